#!/usr/bin/env python3
"""Prints a symbol link for each member of a type, for curating it in a DocC extension file.

    Tests/DocsSite/symbol_links.py [TYPE]

TYPE defaults to PostOffice. Reads what ./builddocs.sh leaves in .build-docs: Mailroom's link hierarchy
(archives/Mailroom-symbols.doccarchive/link-hierarchy.json) and symbol graph (graphs/Mailroom/Mailroom.symbols.json).
Each line is a link that DocC resolves to exactly one member, then the member's declaration, marked DEPRECATED
when it is. An overloaded name is told apart by its parameter types, with `_` for those its overloads share
(register(queue:_:)-(_,(M)->Void)), or else by DocC's hash of the symbol (register(_:_:)-4225d), which changes
with the declaration: Swift 6.3's docc matches no method or main-actor handler type spelled in a link. Run it
after adding or changing an overload, and curate the new links in Sources/Mailroom/Mailroom.docc/PostOffice.md.
"""

import itertools
import json
import pathlib
import sys

BUILD = pathlib.Path(".build-docs")


def main():
    type_name = sys.argv[1] if len(sys.argv) > 1 else "PostOffice"
    hierarchy = json.loads((BUILD / "archives/Mailroom-symbols.doccarchive/link-hierarchy.json").read_text())
    nodes = hierarchy["pathHierarchy"]["nodes"]
    graph = json.loads((BUILD / "graphs/Mailroom/Mailroom.symbols.json").read_text())
    symbols = {symbol["identifier"]["precise"]: symbol for symbol in graph["symbols"]}

    owner = next((node for node in nodes if node.get("name") == type_name and "children" in node), None)
    if owner is None:
        sys.exit(f"no {type_name} in Mailroom's link hierarchy")
    overloads = {}
    for child in owner["children"]:
        node = nodes[child["nodeID"]] if "nodeID" in child else {}
        symbol = symbols.get(node.get("symbolID", {}).get("precise"))
        if symbol is not None:  # members inherited from protocols outside Mailroom have no symbol here
            overloads.setdefault(node["name"], []).append((child, symbol))

    for name in sorted(overloads, key=str.lower):
        siblings = [child for child, _ in overloads[name]]
        for child, symbol in overloads[name]:
            link = name if len(siblings) == 1 else name + disambiguation(child, siblings)
            declaration = "".join(fragment["spelling"] for fragment in symbol["names"]["subHeading"])
            deprecated = any(
                availability.get("isUnconditionallyDeprecated") or "deprecated" in availability
                for availability in symbol.get("availability", [])
            )
            print(f"- ``{link}``".ljust(64), declaration, "DEPRECATED" if deprecated else "")


def disambiguation(child, siblings):
    """The shortest suffix that tells `child` apart from its siblings: parameter types, else DocC's hash."""
    types = child.get("parameterTypes")
    others = [sibling.get("parameterTypes") for sibling in siblings if sibling is not child]
    if types is not None:
        positions = range(len(types))
        for size in range(1, len(types) + 1):
            # Later parameters first: the handler tells overloads apart more often than the queue does.
            for kept in itertools.combinations(reversed(positions), size):
                if all(spellable(types[i]) for i in kept) and not any(matches(types, other, kept) for other in others):
                    return "-(" + ",".join(types[i] if i in kept else "_" for i in positions) + ")"
    return "-" + child["hash"]


def spellable(type_spelling):
    # Swift 6.3's docc lists these types among its own suggestions, but does not match them in a link: a function
    # type that returns a function, (R)->(M)->Void, or one with a global actor, MainActor(M)->Void.
    return type_spelling.count("->") <= 1 and "MainActor" not in type_spelling


def matches(types, other, kept):
    return other is not None and len(other) == len(types) and all(other[i] == types[i] for i in kept)


if __name__ == "__main__":
    main()
