#!/usr/bin/env python3
"""Checks that the table of register forms and Mailroom's public API agree, and that the API stays small.

    check_forms.py SYMBOL_GRAPH ARTICLE

SYMBOL_GRAPH is Mailroom's symbol graph (builddocs.sh writes .build-docs/graphs/Mailroom/Mailroom.symbols.json);
ARTICLE is Sources/Mailroom/Mailroom.docc/RegistrationForms.md. Fails when:

- PostOffice has more than LIMIT public `register`, `intercept` and `mail(of:)` overloads, deprecated and unavailable
  ones included (issue #28: one call per kind of recipient, with the choices in parameters);
- a form (a row, what is registered and where it runs, by a column, the shape of its handler) that is neither
  deprecated nor unavailable has no cell in the article's table, or a cell names a form that does not exist;
- a row's `queue:` column is wrong;
- a deprecated or unavailable overload is not one of the corrections the article lists (a main-actor method with
  `queue:`, a `@MainActor` closure without `on:`, an `async` closure with `queue:`, a closure that takes the sender
  first), or one of those is not deprecated or unavailable.

An overload's form comes from its declaration in the symbol graph: its argument labels and its handler's type
(main-actor, `async`, `isolated`, a method reference `(R) -> (M) -> Void`, whether the sender is optional). A
cell's form comes from its place in the table.
"""

import glob
import json
import os
import re
import sys

LIMIT = 48
ROWS = [  # (key, pattern for the row's first cell, in lower case without backticks); the first match wins
    ("main-actor protocol", r"main-actor protocol"),
    ("async protocol", r"async protocol"),
    ("main-actor closure", r"main-actor closure"),
    ("main-actor method", r"main-actor method"),
    ("async closure", r"async closure"),
    ("intercepting closure", r"intercepting closure"),
    ("actor method", r"actor method"),
    ("actor", r"actor\b"),
    ("closure", r"closure"),
    ("method", r"method"),
    ("protocol", r"protocol"),
    ("sequence", r"sequence"),
]
# The rows only deprecated or unavailable overloads fill: each answers a mistake with the fix.
CORRECTIONS = {"main-actor method with queue": "deprecated", "@MainActor closure": "deprecated",
               "async closure with queue": "unavailable", "sender first": "unavailable"}
COLUMNS = [("queue", "queue:"), ("class or none", "(M, S?)"), ("class", "(M, S)"), ("any", "(M)")]


def split_top_level(text, separator=","):
    """Splits at the separators outside brackets: "m: M, s: (any A & B)?" gives ["m: M", "s: (any A & B)?"]."""
    parts, depth, current = [], 0, ""
    for index, character in enumerate(text):
        depth += character in "([<{"
        depth -= character in ")]}" or (character == ">" and text[index - 1 : index] != "-")
        if character == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += character
    if current.strip():
        parts.append(current.strip())
    return parts


# ---- The API, from the symbol graph


def overloads(graph_path):
    graph = json.load(open(graph_path, encoding="utf-8"))
    found = []
    for symbol in graph["symbols"]:
        path = symbol["pathComponents"]
        if len(path) != 2 or path[0] != "PostOffice" or symbol["kind"]["identifier"] != "swift.method":
            continue
        if path[1].startswith(("register(", "intercept(", "mail(of:")):
            found.append(symbol)
    return found


def classify(symbol):
    """((row, column), status, declaration) of a register, intercept or mail(of:) overload; status is None,
    "deprecated" or "unavailable"."""
    title = symbol["pathComponents"][1]
    labels = title[title.index("(") + 1 : -1].split(":")[:-1]
    parameters = symbol.get("functionSignature", {}).get("parameters", [])
    types = ["".join(f["spelling"] for f in p["declarationFragments"]).split(":", 1)[1].strip() for p in parameters]
    declaration = "".join(fragment["spelling"] for fragment in symbol["names"]["subHeading"])
    availability = symbol.get("availability", [])
    status = None
    if any(a.get("isUnconditionallyUnavailable") for a in availability):
        status = "unavailable"
    elif any(a.get("isUnconditionallyDeprecated") or "deprecated" in a for a in availability):
        status = "deprecated"
    if len(types) != len(labels):
        raise ValueError(f"cannot read the parameters of {declaration}")

    if title.startswith("mail(of:"):
        sent_by = types[labels.index("sentBy")].replace(" ", "") if "sentBy" in labels else None
        column = "any" if sent_by is None else ("class or none" if sent_by.endswith("?.Type") else "class")
        return ("sequence", column), status, declaration

    handler = types[-1]
    innermost = handler_parameters(handler)
    queue = "queue" in labels
    if "isolated" in handler:
        row = "actor method" if re.search(r"\(isolated \w+\) -> \(", handler) else "actor"
    elif "conformingTo" in labels:
        row = "protocol"
        if "@MainActor" in handler:
            row = "main-actor protocol"
        elif re.search(r"\basync\b", handler):
            row = "async protocol"
    elif re.search(r"->\s*Consumption\s*$", handler):
        row = "intercepting method" if handler.count("->") > 1 else "intercepting closure"
    elif handler.count("->") > 1:  # a method, passed unapplied: (R) -> (M) -> Void
        if "@MainActor" in handler:
            row = "main-actor method with queue" if queue else "main-actor method"
        else:
            row = "method"
    elif "@MainActor" in handler:
        row = "main-actor closure" if "on" in labels else "@MainActor closure"
    elif re.search(r"\basync\b", handler):
        row = "async closure with queue" if queue else "async closure"
    else:
        row = "closure"
    if len(innermost) == 2 and not innermost[0].startswith(("M", "P", "any")):
        row = "sender first"
    if len(innermost) not in (1, 2):
        raise ValueError(f"{declaration}: a handler of {len(innermost)} parameters")
    column = "any" if len(innermost) == 1 else ("class or none" if innermost[1].endswith("?") else "class")
    return (row, column), status, declaration


def handler_parameters(handler):
    """The parameters of the function a handler type finally calls: (R) -> @MainActor (M, S?) -> Void gives
    [M, S?]; an actor's isolated parameter is not one of them."""
    text = re.sub(r"\s*->\s*(Void|Consumption)\s*$", "", handler.strip())
    text = re.sub(r"\s*\bthrows(\(\w+\))?\s*$", "", text)
    text = re.sub(r"\s*\basync\s*$", "", text)
    if not text.endswith(")"):
        raise ValueError(f"cannot read the handler type {handler}")
    depth = 0
    for start in range(len(text) - 1, -1, -1):
        depth += text[start] == ")"
        depth -= text[start] == "("
        if depth == 0:
            break
    parameters = split_top_level(text[start + 1 : -1])
    return [p for p in parameters if not p.startswith("isolated ")]


# ---- The table, from the article


def table(article_path):
    """The generated table of forms: {(row, column): line}, and {row: the queue cell}."""
    text = open(article_path, encoding="utf-8").read()
    start = text.index("<!-- forms: written by Scripts/register-forms.py -->")
    lines = text[:start].count("\n")
    rows = [line for line in text[start : text.index("<!-- /forms -->")].splitlines() if line.startswith("|")]
    header = cells(rows[0])
    columns = [next((key for key, marker in COLUMNS if marker in cell), None) for cell in header]
    forms, queues = {}, {}
    for offset, line in enumerate(rows[2:]):
        row_cells = cells(line)
        name = re.sub(r"[`*]", "", row_cells[0]).lower()
        row = next((key for key, pattern in ROWS if re.match(pattern, name)), None)
        number = lines + 3 + offset
        if row is None:
            raise SystemExit(f"{article_path}:{number}: no such row: {row_cells[0]}")
        for column, cell in zip(columns[1:], row_cells[1:]):
            if column == "queue":
                queues[row] = (number, cell.split(":")[0].strip())
            elif re.search(r"`(register|intercept|mail)\b[^`]*`", cell):
                forms[(row, column)] = number
    return forms, queues


def cells(line):
    parts, current, in_code = [], "", False
    for character in line.strip().strip("|"):
        if character == "`":
            in_code = not in_code
        if character == "|" and not in_code:
            parts.append(current.strip())
            current = ""
        else:
            current += character
    return parts + [current.strip()]


def unavailable_in_sources():
    """The unavailable register and intercept overloads, which the symbol graph leaves out, counted in the sources."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    count = 0
    for path in glob.glob(os.path.join(root, "Sources/Mailroom/**/*.swift"), recursive=True):
        text = open(path, encoding="utf-8").read()
        count += len(re.findall(r"@available\(\*, unavailable[^\n]*\n(?:\s*@\w+\n)*\s*public func (?:register|intercept|mail)\b",
                                text))
    return count


def main():
    graph_path, article_path = sys.argv[1], sys.argv[2]
    problems, api, queues_by_row, total = [], {}, {}, 0
    for symbol in overloads(graph_path):
        try:
            form, status, declaration = classify(symbol)
        except ValueError as error:
            problems.append(str(error))
            continue
        total += 1
        if status != CORRECTIONS.get(form[0]):
            problems.append(f"{declaration}: {status or 'available'}, but a form of the {form[0]} row")
        if status is None:
            api.setdefault(form, []).append(declaration)
            queues_by_row.setdefault(form[0], set()).add("queue" in symbol["pathComponents"][1])
    forms, queue_cells = table(article_path)
    for form, declarations in sorted(api.items()):
        if form not in forms:
            problems += [f"not in the table: {d} ({form[0]}, {form[1]})" for d in declarations]
    for form, line in sorted(forms.items(), key=lambda item: item[1]):
        if form not in api:
            problems.append(f"{article_path}:{line}: {form[0]}, {form[1]}: no such overload")
    for row, (line, cell) in queue_cells.items():
        expected = {"yes": {True}, "no": {False}}.get(cell)
        if expected is None or queues_by_row.get(row, expected) != expected:
            problems.append(f"{article_path}:{line}: {row}: `queue:` is not \"{cell}\" for every form")
    unavailable = unavailable_in_sources()
    if total + unavailable > LIMIT:
        problems.append(f"{total + unavailable} register, intercept and mail(of:) overloads: at most {LIMIT}")
    print(f"{total + unavailable} register, intercept and mail(of:) overloads (at most {LIMIT}): {total} in the symbol "
          f"graph and {unavailable} unavailable, which it leaves out; {len(api)} forms, the table names {len(forms)}")
    if problems:
        print(f"{len(problems)} problems:")
        for problem in problems:
            print("  " + problem)
        return 1
    print("the table and the API agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
