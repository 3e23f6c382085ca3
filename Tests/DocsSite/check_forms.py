#!/usr/bin/env python3
"""Checks that the table of register forms and Mailroom's public API agree.

    check_forms.py SYMBOL_GRAPH ARTICLE

SYMBOL_GRAPH is Mailroom's symbol graph (builddocs.sh writes .build-docs/graphs/Mailroom/Mailroom.symbols.json);
ARTICLE is Sources/Mailroom/Mailroom.docc/RegistrationForms.md. Fails when a public `register` or `mail(of:)`
overload of PostOffice is not named by a cell of the article's tables, when a cell names a form that does not
exist, or when a row's `queue:` column is wrong.

Both sides are reduced to the same key: the row (what is registered), the column (the sender filter) and, where a
column holds two forms, which one (an exact-sender handler that also receives the sender, or not; a no-contents
form for one exact sender, or any). An overload's key comes from its declaration in the symbol graph: its
argument labels and its handler's type (main-actor, `async`, `isolated`, a method reference `(R) -> (M) -> Void`,
how many parameters the handler takes and whether the sender is optional). A cell's key comes from its place in
the table and from each call written in it in backticks: its labels, and the closure or method reference it
passes. A main-actor method with `queue:` and a `@MainActor` closure without `on:` are rows of their own, which
only deprecated overloads may fill, in the table under "Deprecated forms".
"""

import collections
import json
import re
import sys

ROWS = [  # (key, pattern for the row's first cell, in lower case without backticks); the first match wins
    ("main-actor method with queue", r"main-actor method with queue"),
    ("@MainActor closure", r"@mainactor closure"),
    ("main-actor catch-all", r"main-actor catch-all"),
    ("async catch-all", r"async catch-all"),
    ("main-actor protocol", r"main-actor protocol"),
    ("async protocol", r"async protocol"),
    ("main-actor closure", r"main-actor closure"),
    ("main-actor method", r"main-actor method"),
    ("async closure", r"async closure"),
    ("intercepting closure", r"intercepting closure"),
    ("intercepting method", r"intercepting method"),
    ("actor method", r"actor method"),
    ("actor", r"actor\b"),
    ("closure", r"closure"),
    ("method", r"method"),
    ("protocol", r"protocol"),
    ("catch-all", r"catch-all"),
    ("sequence", r"sequence"),
]
DEPRECATED_ROWS = {"main-actor method with queue", "@MainActor closure"}
COLUMNS = [  # (key, test on the header cell); the first match wins
    ("queue", lambda header: "queue:" in header),
    ("class or none", lambda header: "S?" in header),
    ("class", lambda header: "(M, S)" in header),
    ("exact", lambda header: "sender:" in header),
    ("no contents", lambda header: "M.self" in header),
    ("any", lambda header: "(M)" in header),
]


# ---- Both sides


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


def key(row, column, handler_count, exact_sender):
    """The key of a form. Two forms share a column when it is "exact" (with the sender passed to the handler or
    not) or "no contents" (for one exact sender or any)."""
    variant = None
    if column == "exact":
        variant = "receives the sender" if handler_count == 2 else "mail only"
    elif column == "no contents":
        variant = "exact sender" if exact_sender else "any sender"
    return (row, column, variant)


def column_for(handler_count, optional_sender, exact_sender, sent_by):
    if handler_count == 0:
        return "no contents"
    if exact_sender:
        return "exact"
    if sent_by or handler_count == 2:
        return "class or none" if optional_sender else "class"
    return "any"


# ---- The API, from the symbol graph


def overloads(graph_path):
    graph = json.load(open(graph_path, encoding="utf-8"))
    found = []
    for symbol in graph["symbols"]:
        path = symbol["pathComponents"]
        if len(path) != 2 or path[0] != "PostOffice" or symbol["kind"]["identifier"] != "swift.method":
            continue
        if not path[1].startswith(("register(", "intercept(", "mail(of:")):
            continue
        found.append(symbol)
    return found


def classify(symbol):
    """(key, has a queue parameter, is deprecated, declaration) of a register or mail(of:) overload."""
    title = symbol["pathComponents"][1]
    labels = title[title.index("(") + 1 : -1].split(":")[:-1]
    parameters = symbol.get("functionSignature", {}).get("parameters", [])
    types = ["".join(f["spelling"] for f in p["declarationFragments"]).split(":", 1)[1].strip() for p in parameters]
    declaration = "".join(fragment["spelling"] for fragment in symbol["names"]["subHeading"])
    deprecated = any(
        a.get("isUnconditionallyDeprecated") or "deprecated" in a for a in symbol.get("availability", [])
    )
    if len(types) != len(labels):
        raise ValueError(f"cannot read the parameters of {declaration}")
    queue = "queue" in labels
    exact = "sender" in labels or "from" in labels

    if title.startswith("mail(of:"):
        count = 2 if "sentBy" in labels else 1  # sentBy: yields (mail, sender)
        optional = "sentBy" in labels and types[labels.index("sentBy")].replace(" ", "").endswith("?.Type")
        form = key("sequence", column_for(count, optional, exact, "sentBy" in labels), count, exact)
        return form, queue, deprecated, declaration

    handler = types[-1]
    innermost = handler_parameters(handler)
    if "isolated" in handler:
        row = "actor method" if re.search(r"\(isolated \w+\) -> \(", handler) else "actor"
    elif "conformingTo" in labels or (innermost and innermost[0] == "any Mail"):
        row = "protocol" if "conformingTo" in labels else "catch-all"
        if "@MainActor" in handler:
            row = "main-actor " + row
        elif re.search(r"\basync\b", handler):
            row = "async " + row
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
        row = "async closure"
    else:
        row = "closure"
    count = len(innermost)
    optional = count == 2 and innermost[1].endswith("?")
    return key(row, column_for(count, optional, exact, False), count, exact), queue, deprecated, declaration


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


def tables(article_path):
    """Each table of the article as (header cells, rows of cells), with the line number of each row."""
    lines = open(article_path, encoding="utf-8").read().splitlines()
    found, index = [], 0
    while index < len(lines):
        if lines[index].startswith("|") and index + 1 < len(lines) and re.match(r"^\|[\s|:-]+\|$", lines[index + 1]):
            header = cells(lines[index])
            rows = []
            index += 2
            while index < len(lines) and lines[index].startswith("|"):
                rows.append((index + 1, cells(lines[index])))
                index += 1
            found.append((header, rows))
        else:
            index += 1
    return found


def cells(line):
    return [cell.strip() for cell in split_code_aware(line.strip().strip("|"))]


def split_code_aware(text):
    parts, current, in_code = [], "", False
    for character in text:
        if character == "`":
            in_code = not in_code
        if character == "|" and not in_code:
            parts.append(current)
            current = ""
        else:
            current += character
    parts.append(current)
    return parts


def call_key(call, row, column):
    """The key of a call written in a cell, and why it cannot be one, if it cannot."""
    match = re.match(r"^(register|intercept|mail)\s*(\((.*?)\))?\s*(\{(.*)\})?$", call)
    if not match:
        return None, "not a call of register, intercept or mail"
    function, arguments, closure = match.group(1), split_top_level(match.group(3) or ""), match.group(5)
    labels = [a.split(":", 1)[0].strip() for a in arguments if re.match(r"^\w+\s*:", a)]
    positional = [a for a in arguments if not re.match(r"^\w+\s*:", a)]
    exact = "sender" in labels or "from" in labels

    on_main = "on" in labels
    suspends = closure is not None and re.search(r"\basync\s+in\b", closure) is not None
    conforming = "conformingTo" in labels
    catch_all = closure is not None and "any Mail" in closure
    plain = not conforming and not catch_all
    hints = {  # a call with one of these says which row it is in
        "sequence": function == "mail",
        "main-actor closure": on_main and plain,
        "@MainActor closure": closure is not None and "@MainActor" in closure,
        "async closure": suspends and plain,
        "intercepting closure": function == "intercept" and closure is not None,
        "intercepting method": function == "intercept" and closure is None,
        "protocol": conforming and not on_main and not suspends,
        "main-actor protocol": conforming and on_main,
        "async protocol": conforming and suspends,
        "catch-all": catch_all and not on_main and not suspends,
        "main-actor catch-all": catch_all and on_main,
        "async catch-all": catch_all and suspends,
    }
    for hinted, present in hints.items():
        if present != (row == hinted):
            return None, f"{'written as' if present else 'not written as'} a form of the {hinted} row"

    optional, sent_by, ambiguous_optional = False, "sentBy" in labels, False
    method = next((p for p in positional if re.match(r"^\w+\.\w+(\([\w:]*\))?$", p) and not p.endswith(".self")), None)
    if function == "mail":
        count = 2 if sent_by else 1
        optional = any(argument.replace(" ", "").endswith("?.self") for argument in arguments)
    elif method is not None:
        method_labels = re.search(r"\(([\w:]*)\)$", method)
        count = method_labels.group(1).count(":") if method_labels else 0
        ambiguous_optional = count == 2  # receive(_:from:) may take S or S?
    elif closure is not None:
        head = closure.split(" in", 1)[0].replace("@MainActor", "").replace("async", "").strip()
        head = re.sub(r"\s*->\s*\w+$", "", head)
        if " in" not in closure and closure.strip():
            return None, "a closure without `in`"
        if head.startswith("(") and head.endswith(")"):
            parameters = split_top_level(head[1:-1])
        else:
            parameters = split_top_level(head) if head else []
        if row == "actor":
            parameters = parameters[1:]  # the actor itself, isolated
        count = len(parameters)
        optional = count == 2 and parameters[1].endswith("?")
    else:
        return None, "neither a closure nor a method"
    if "M.self" in positional:
        count = 0
    written = column_for(count, optional, exact, sent_by)
    allowed = {written}
    if ambiguous_optional and written in ("class", "class or none"):
        allowed = {"class", "class or none"}
    if column not in allowed:
        return None, f"a form of the {written} column"
    return key(row, column, count, exact), None


def main():
    graph_path, article_path = sys.argv[1], sys.argv[2]
    problems = []

    api = collections.defaultdict(list)
    row_queues = collections.defaultdict(set)
    for symbol in overloads(graph_path):
        try:
            form, queue, deprecated, declaration = classify(symbol)
        except ValueError as error:
            problems.append(str(error))
            continue
        api[form].append(declaration)
        row_queues[form[0]].add(queue)
        if deprecated != (form[0] in DEPRECATED_ROWS):
            problems.append(
                f"{declaration}: {'deprecated' if deprecated else 'not deprecated'}, but a form of the {form[0]} row"
            )

    table = {}
    for header, rows in tables(article_path):
        columns = []
        for cell in header:
            columns.append(next((name for name, test in COLUMNS if test(cell)), None))
        if not any(columns[1:]):
            continue  # not a table of forms
        for line, row_cells in rows:
            name = re.sub(r"[`*]", "", row_cells[0]).lower()
            row = next((row for row, pattern in ROWS if re.match(pattern, name)), None)
            if row is None:
                problems.append(f"{article_path}:{line}: no such row: {row_cells[0]}")
                continue
            for column, cell in zip(columns[1:], row_cells[1:]):
                if column == "queue":
                    expected = {"yes": {True}, "no": {False}, "ignored": {True}}.get(cell.split(":")[0].strip())
                    if expected is None:
                        problems.append(f"{article_path}:{line}: the queue column says yes, no or ignored: {cell}")
                    elif row_queues.get(row, expected) != expected:
                        problems.append(f"{article_path}:{line}: {row}: `queue:` is not \"{cell}\" for every form")
                    continue
                # Other code in a cell, an `async` method or `(mail, sender)`, is prose.
                calls = [code for code in re.findall(r"`([^`]+)`", cell) if re.match(r"^(register|intercept|mail)\b", code)]
                if not calls and not re.search(r"\bnone\b", cell):
                    problems.append(f"{article_path}:{line}: {row}, {column}: neither a form nor none: {cell}")
                for call in calls:
                    form, why = call_key(call, row, column)
                    if form is None:
                        problems.append(f"{article_path}:{line}: {row}, {column}: `{call}`: {why}")
                    else:
                        table.setdefault(form, (line, call))

    for form, declarations in sorted(api.items()):
        if form not in table:
            for declaration in declarations:
                problems.append(f"not in the table: {declaration} ({describe(form)})")
    for form, (line, call) in sorted(table.items(), key=lambda item: item[1]):
        if form not in api:
            problems.append(f"{article_path}:{line}: `{call}` ({describe(form)}): no such overload")

    count = sum(len(declarations) for declarations in api.values())
    print(f"{count} register and mail(of:) overloads, {len(api)} forms; the table names {len(table)} forms")
    if problems:
        print(f"{len(problems)} disagreements between the table and the API:")
        for problem in problems:
            print("  " + problem)
        return 1
    print("the table and the API agree")
    return 0


def describe(form):
    row, column, variant = form
    return f"{row}, {column}" + (f", {variant}" if variant else "")


if __name__ == "__main__":
    sys.exit(main())
