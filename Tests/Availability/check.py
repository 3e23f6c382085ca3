#!/usr/bin/env python3
"""Checks that every API the library targets use is available on the platforms Package.swift declares.

The Linux compiler ignores Apple availability, so nothing here stops code that needs macOS 13 from shipping in a
package that declares macOS 12. But the toolchain's own modules carry the Apple `@available` annotations of the
standard library, _Concurrency, Synchronization and swift-foundation, and the compiler can dump the type-checked
AST of our code with the USR of every declaration it references. This script joins the two:

1. For each Swift target of a library product (and the targets they depend on), it dumps the type-checked AST as
   JSON (`swift-frontend -dump-ast -dump-ast-format json`, with the flags of the last build, read from the build
   manifest) and collects every declaration it references (calls, members, initializers, operators, conformed
   protocols, implicit ones included) and every nominal type its types mention (demangled with `swift demangle`).
2. It extracts the symbol graphs of the system modules those targets import (`swift symbolgraph-extract`) and reads
   each symbol's introduced version per Apple platform, merged with its enclosing types'. An `@backDeployed` API
   carries the version it is back-deployed to (its `@available`), which is the one a caller needs. Where a module
   declares two overloads of identical declaration and the Linux compiler picks the newer (a protocol requirement
   added beside an old default implementation), the older one counts: Apple's compiler picks it.
3. It fails when a requirement is newer than the platform minimum (SwiftPM's oldest for a platform not declared),
   unless the use is inside a declaration of ours with an `@available` at least as new, inside `if #available`,
   or after `guard #available`. Uses of our own declarations are checked the same way: the Linux compiler does not
   catch a call from unannotated code to a `@available(macOS 15, *)` helper of ours either.

Before that it checks SelfTest.swift, whose comments say which lines must be reported, against fixed minimums.

What it cannot see, and what it does instead:
- swift-corelibs-foundation (`Foundation`) and swift-corelibs-libdispatch (`Dispatch`) are other implementations
  than Apple's and mostly carry no Apple annotations. A referenced symbol of theirs without one must be listed in
  reviewed.txt with the versions Apple documents; an unlisted one fails the check.
- Code in an `#if` branch Linux does not compile (`#if canImport(Darwin)`): the check lists those conditions.
- C: the check lists the C declarations Swift calls and does not check C targets. _MailroomAtomics uses compiler
  `__atomic` builtins, POSIX threads (`pthread_key_create`, `pthread_once`, `pthread_setspecific`, the mutex
  calls) and, on Apple platforms, `pthread_main_np`, all older than any platform Swift concurrency runs on.
- Underscored standard library declarations (literal initializers, `_Pointer`), which symbol graphs leave out:
  listed, not checked. Any other declaration missing from the graphs fails the check.
- A conformance of a system type added after the type itself: the AST names the extension that declares it,
  which symbol graphs leave out. visionOS versions a symbol does not name are inferred from iOS (iOS 18 is
  visionOS 2); Mac Catalyst is not checked.

Usage: check.py [--scratch-path .build] [--all]   after `swift build` with the same scratch path (and traits)
"""

import argparse
import bisect
import json
import os
import re
import subprocess
import sys
import tempfile
import time

APPLE = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"]
# The oldest deployment target SwiftPM 6 supports, which it uses for a platform `platforms:` does not name.
SWIFTPM_DEFAULT_MINIMUM = {"macOS": (10, 13), "iOS": (12, 0), "tvOS": (12, 0), "watchOS": (4, 0), "visionOS": (1, 0)}
# Modules whose Linux build is not Apple's implementation and carries few Apple annotations: an unannotated symbol
# of theirs has unknown availability, not "available everywhere" as in the standard library.
UNANNOTATED_ON_LINUX = {"Foundation", "Dispatch"}
# Always read, so that the self-test and the check share one set: the modules every file imports implicitly, and
# Synchronization, whose `Mutex` and `Atomic` (macOS 15) are the likeliest mistake.
IMPLICIT_MODULES = {"Swift", "_Concurrency", "_StringProcessing", "Synchronization"}
# What `import Foundation` brings in on Linux.
FOUNDATION_MODULES = {"Foundation", "FoundationEssentials", "FoundationInternationalization", "Dispatch"}
NOMINAL_KINDS = {"Structure", "Class", "Enum", "Protocol", "TypeAlias", "OtherNominalType"}
TYPE_SYMBOL_KINDS = {"struct", "class", "enum", "protocol", "typealias", "associatedtype"}
UNAVAILABLE = (999, 0)  # sorts above every version
OUR_C_MODULES = set()  # C targets of ours, which the Swift code imports: not system modules
SYSTEM_SYMBOLS = {}  # (modules, target triple) -> SystemSymbols, read once for the self-test and the check


def version(text):
    parts = [int(p) for p in text.split(".")] + [0]
    return (parts[0], parts[1])


def show(v):
    return "unavailable" if v is None or v == UNAVAILABLE else "%d.%d" % v


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


# --- The package and its build -----------------------------------------------------------------------------------


def declared_minimums(package):
    minimum, declared = dict(SWIFTPM_DEFAULT_MINIMUM), set()
    names = {p.lower(): p for p in APPLE}
    for platform in package.get("platforms", []):
        name = names.get(platform["platformName"])
        if name:
            minimum[name] = version(platform["version"])
            declared.add(name)
    return minimum, declared


def library_targets(package):
    """The targets of the library products that need no other package, and the targets they depend on, in
    declaration order. The integrations (MailroomObservability, MailroomPostgres) need packages whose availability
    is theirs to state: they are not checked."""
    by_name = {t["name"]: t for t in package["targets"]}

    def closure(names):
        found, stack = set(), list(names)
        while stack:
            name = stack.pop()
            if name in by_name and name not in found:
                found.add(name)
                stack += [d[k][0] for d in by_name[name].get("dependencies", []) for k in ("byName", "target") if k in d]
        return found

    def needs_a_package(product):
        return any("product" in d for t in closure(product["targets"]) for d in by_name[t].get("dependencies", []))

    libraries = [p for p in package["products"] if "library" in p["type"]]
    print("products checked: " + ", ".join(p["name"] for p in libraries if not needs_a_package(p)) + "; not checked, "
          "as they need other packages: " + ", ".join(p["name"] for p in libraries if needs_a_package(p)))
    wanted, stack = set(), [t for p in libraries if not needs_a_package(p) for t in p["targets"]]
    while stack:
        name = stack.pop()
        if name in by_name and name not in wanted:
            wanted.add(name)
            stack += [d[k][0] for d in by_name[name].get("dependencies", []) for k in ("byName", "target") if k in d]
    return [t["name"] for t in package["targets"] if t["name"] in wanted]


def compile_commands(manifest):
    """Module name -> the swiftc arguments that built it, from the build manifest SwiftPM wrote."""
    if not os.path.exists(manifest):
        sys.exit("error: no build manifest at %s: build first (`swift build`)" % manifest)
    commands = {}
    for line in open(manifest):
        line = line.strip()
        if line.startswith("args: ["):
            args = json.loads(line[len("args: ") :])
            if "-emit-module" in args and "-module-name" in args:
                commands[args[args.index("-module-name") + 1]] = args
    return commands


def frontend_arguments(args):
    """The flags of a swiftc command that decide how its sources type-check, and its source files."""
    with_value = {
        "-module-name", "-target", "-sdk", "-resource-dir", "-I", "-Isystem", "-F", "-Fsystem", "-Xcc",
        "-package-name", "-swift-version", "-module-cache-path", "-enable-upcoming-feature",
        "-enable-experimental-feature", "-default-isolation",
    }
    alone = {"-parse-as-library", "-enable-testing"}
    flags, sources, i = [], [], 1
    while i < len(args):
        a = args[i]
        if a in with_value:
            flags += [a, args[i + 1]]
            i += 1
        elif a in alone or a.startswith("-D") or a.startswith("-strict-concurrency="):
            flags.append(a)
        elif a.startswith("@"):
            sources += open(a[1:]).read().split()
        elif a.endswith(".swift"):
            sources.append(a)
        i += 1
    return flags, sources


def plugin_flags(compiler):
    """The macro plugin flags the driver gives the frontend (`@TaskLocal` is a macro)."""
    with tempfile.NamedTemporaryFile(suffix=".swift") as empty:
        job = run([compiler, "-###", "-typecheck", empty.name]).split()
    wanted = {"-plugin-path", "-external-plugin-path", "-in-process-plugin-server-path"}
    return [x for i, a in enumerate(job[:-1]) if a in wanted for x in (a, job[i + 1])]


def dump_ast(compiler, flags, sources):
    args = [compiler, "-frontend", "-dump-ast", "-dump-ast-format", "json"] + plugin_flags(compiler) + flags
    for source in sources:
        args += ["-primary-file", source]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("error: the AST dump failed; is the build up to date?\n" + result.stderr[-3000:])
    decoder, text, i, documents = json.JSONDecoder(), result.stdout, 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return documents
        document, i = decoder.raw_decode(text, i)
        documents.append(document)


# --- Our code ----------------------------------------------------------------------------------------------------
# An availability context maps each platform to the oldest version the code in it can run on, or None where the
# code is unavailable (and so never runs).


def refined_by_attributes(context, attrs):
    new = dict(context)
    for attr in attrs or []:
        domain = attr.get("domain")
        if attr.get("_kind") != "available_attr" or (domain != "*" and domain not in APPLE):
            continue
        for p in APPLE if domain == "*" else [domain]:
            if attr.get("unavailable") or "obsoleted" in attr:
                new[p] = None
            elif "introduced" in attr and new[p] is not None:
                new[p] = max(new[p], version(attr["introduced"]))
    return new


def refined_by_conditions(context, conditions):
    new = dict(context)
    for condition in conditions or []:
        if condition.get("_kind") == "#available":
            for query in condition.get("queries", []):
                p = query.get("domain")
                if p in APPLE and "version" in query and new[p] is not None:
                    new[p] = max(new[p], version(query["version"]))
    return new


class Walker:
    """Walks ASTs, recording each reference with the availability context and place it occurs in."""

    def __init__(self, minimum):
        self.minimum = minimum
        self.references = []  # (USR, or ("type", mangled type)), context, file, byte offset
        self.declarations = {}  # USR of a declaration of ours -> the context inside it
        self.nominal_types = {}  # USR of a type of ours -> its mangled metatype
        self.imports = set()

    def source_file(self, document):
        self.file = document["filename"]
        data = open(self.file, "rb").read()
        self.newlines = [i for i, b in enumerate(data) if b == 10]
        self.walk(document, dict(self.minimum), 0)

    def line(self, offset):
        return bisect.bisect_left(self.newlines, offset) + 1

    def walk(self, node, context, offset):
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, dict) and item.get("_kind") == "pattern_binding_decl":
                    # The initial value of `@available(...) let x = ...` is in the binding, and the attribute on
                    # the variable declared next to it.
                    following = node[i + 1] if i + 1 < len(node) and isinstance(node[i + 1], dict) else {}
                    attrs = following.get("attrs") if following.get("_kind") == "var_decl" else None
                    self.walk(item, refined_by_attributes(context, attrs), offset)
                else:
                    self.walk(item, context, offset)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("_kind", "")
        offset = node.get("range", {}).get("start", offset) if isinstance(node.get("range"), dict) else offset
        if kind == "import_decl":
            self.imports.add(node["module_path"][0])
        if "usr" in node and (kind.endswith("_decl") or kind in ("typealias", "protocol")):
            context = refined_by_attributes(context, node.get("attrs"))
            name = node.get("name", {})
            name = name.get("base_name", {}).get("name", "?") if isinstance(name, dict) else name
            where = "%s:%d" % (os.path.basename(self.file), self.line(offset))
            self.declarations[node["usr"]] = (context, "our %s (%s)" % (name, where))
            if kind in ("struct_decl", "class_decl", "enum_decl", "protocol") and node.get("interface_type"):
                self.nominal_types[node["usr"]] = node["interface_type"]
        if kind == "brace_stmt":
            for element in node.get("elements", []):
                self.walk(element, context, offset)
                if isinstance(element, dict) and element.get("_kind") == "guard_stmt":
                    context = refined_by_conditions(context, element.get("conditions"))
            return
        for key, value in node.items():
            if isinstance(value, str):
                if key in ("usr", "_kind") or value.startswith("s:e:"):
                    continue  # a declaration, not a reference; or the extension that declares a conformance
                if value.startswith("s:") or value.startswith("c:"):
                    self.references.append((value, context, self.file, offset))
                elif value.startswith("$s"):
                    self.references.append((("type", value), context, self.file, offset))
            elif key == "then_stmt" and kind == "if_stmt":
                self.walk(value, refined_by_conditions(context, node.get("conditions")), offset)
            else:
                self.walk(value, context, offset)


def demangled_trees(manglings):
    """Mangled type -> the root of its demangled tree (`swift demangle --tree-only`)."""
    manglings, text = sorted(manglings), ""
    for start in range(0, len(manglings), 2000):
        text += run(["swift", "demangle", "--tree-only"] + manglings[start : start + 2000])
    roots, stack, current = {}, [], None
    for line in text.splitlines():
        if line.startswith("Demangling for "):
            current, stack = line[len("Demangling for ") :], []
            continue
        stripped = line.lstrip(" ")
        m = re.match(r'kind=(\w+)(?:, text="(.*)")?$', stripped)
        if not m or current is None:
            continue
        depth = (len(line) - len(stripped)) // 2
        node = {"kind": m.group(1), "text": m.group(2), "children": []}
        del stack[depth:]
        if stack:
            stack[-1]["children"].append(node)
        else:
            roots[current] = node
        stack.append(node)
    return roots


def mentioned_types(root):
    """The (module, path components) of each nominal type a demangled type mentions."""
    return {nominal_name(n) for n in nodes(root) if n["kind"] in NOMINAL_KINDS} - {None}


def declared_type(root):
    """The (module, path components) of the type a declaration's metatype names: its outermost nominal node."""
    return next((nominal_name(n) for n in nodes(root) if n["kind"] in NOMINAL_KINDS), None)


def nodes(node):
    yield node
    for child in node["children"]:
        yield from nodes(child)


def nominal_name(node):
    """(module, path components) of a nominal type node; None for any other node, or a local or private type."""
    kind, children = node["kind"], node["children"]
    if kind == "Module":
        return (node["text"], ())
    if kind == "Extension" and len(children) > 1:
        return nominal_name(children[1])
    if kind == "Type" and children:
        return nominal_name(children[0])
    if kind not in NOMINAL_KINDS or len(children) < 2 or children[1]["kind"] != "Identifier":
        return None
    parent = nominal_name(children[0])
    return (parent[0], parent[1] + (children[1]["text"],)) if parent else None


# --- The system modules ------------------------------------------------------------------------------------------


def merged_requirement(chain):
    """Per platform, the newest introduced version along a symbol and its parents (None: unavailable), and
    whether any of them carries an Apple annotation."""
    requirement, annotated = {p: (0, 0) for p in APPLE}, False
    for record in chain:
        has_vision = any(a.get("domain") == "visionOS" for a in record["availability"])
        for a in record["availability"]:
            p = a.get("domain")
            if p == "*" and a.get("isUnconditionallyUnavailable"):
                return {q: None for q in APPLE}, True
            if p not in APPLE:
                continue
            annotated = True
            if a.get("isUnconditionallyUnavailable") or "obsoleted" in a:
                requirement[p] = None
            elif "introduced" in a and requirement[p] is not None:
                v = (a["introduced"]["major"], a["introduced"].get("minor", 0))
                requirement[p] = max(requirement[p], v)
                # visionOS inherits iOS availability: visionOS 1 came with iOS 17, visionOS 2 with iOS 18.
                if p == "iOS" and not has_vision and v[0] >= 18 and requirement["visionOS"] is not None:
                    requirement["visionOS"] = max(requirement["visionOS"], (v[0] - 16, v[1]))
    return requirement, annotated


class SystemSymbols:
    def __init__(self, modules, triple):
        self.by_usr, self.by_path = {}, {}
        parents = {}
        with tempfile.TemporaryDirectory() as directory:
            extractions = [
                subprocess.Popen(["swift", "symbolgraph-extract", "-module-name", module, "-target", triple,
                                  "-minimum-access-level", "public", "-output-dir", directory])
                for module in sorted(modules)
            ]
            if any(e.wait() != 0 for e in extractions):
                sys.exit("error: swift symbolgraph-extract failed")
            for name in sorted(os.listdir(directory)):
                # `A@B.symbols.json` holds what module A declares in extensions of B (on Linux, _Concurrency's own
                # types too): A declares them.
                module = name.split(".symbols.json")[0].split("@")[0]
                graph = json.load(open(os.path.join(directory, name)))
                for s in graph["symbols"]:
                    usr = s["identifier"]["precise"]
                    if "::SYNTHESIZED::" in usr:
                        continue  # a protocol extension's member as seen on a conforming type: the AST names the original
                    record = {
                        "module": module,
                        "path": tuple(s["pathComponents"]),
                        "kind": s["kind"]["identifier"].split(".", 1)[-1],
                        "availability": s.get("availability") or [],
                        "declaration": "".join(f["spelling"] for f in s.get("declarationFragments", []))
                        + json.dumps(s.get("swiftGenerics"), sort_keys=True),
                    }
                    self.by_usr[usr] = record
                    self.by_path.setdefault((module, record["path"]), []).append(usr)
                for r in graph["relationships"]:
                    if r["kind"] in ("memberOf", "requirementOf", "optionalRequirementOf") and "::" not in r["source"]:
                        parents.setdefault(r["source"], r["target"])
        for usr, record in self.by_usr.items():
            chain, cursor = [], usr
            while cursor in self.by_usr and len(chain) < 20:
                chain.append(self.by_usr[cursor])
                cursor = parents.get(cursor)
            record["requirement"], record["annotated"] = merged_requirement(chain)
        # Declarations of one module with the same path, kind and declaration are overloads that Apple's compiler
        # cannot tell apart by type, so it picks the one available at the deployment target: it ranks a potentially
        # unavailable overload last. That is how the standard library adds a protocol requirement beside an older
        # default implementation (`FixedWidthInteger.&*` has been a requirement since macOS 15 and has always had
        # one); the Linux compiler, for which neither is unavailable, picks the requirement.
        alike = {}
        for record in self.by_usr.values():
            alike.setdefault((record["module"], record["path"], record["kind"], record["declaration"]), []).append(
                record
            )
        for group in (g for g in alike.values() if len(g) > 1):
            oldest = {p: min((r["requirement"][p] or UNAVAILABLE for r in group)) for p in APPLE}
            oldest = {p: None if v == UNAVAILABLE else v for p, v in oldest.items()}
            for record in group:
                if record["requirement"] != oldest:
                    record["requirement"], record["older_overload"] = oldest, True

    def types_named(self, module, path):
        # The demangler names the standard substitutions for _Concurrency's types (`ScA`, `ScT`) as Swift's.
        for owner in [module] + (["_Concurrency", "_StringProcessing"] if module == "Swift" else []):
            usrs = [u for u in self.by_path.get((owner, path), []) if self.by_usr[u]["kind"] in TYPE_SYMBOL_KINDS]
            if usrs:
                return usrs
        return []


# --- The check ---------------------------------------------------------------------------------------------------


def read_reviewed(path):
    """`Module Path.name  macOS X.Y, iOS X.Y, tvOS X.Y, watchOS X.Y, visionOS X.Y` or `Module Path.name  any`."""
    reviewed = {}
    for number, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        module, path_, versions = (line.split(None, 2) + ["", ""])[:3]
        requirement = {p: (0, 0) for p in APPLE} if versions == "any" else {}
        for item in versions.split(",") if versions != "any" else []:
            platform, _, v = item.strip().partition(" ")
            if platform in APPLE and re.match(r"^\d+(\.\d+)*$", v):
                requirement[platform] = version(v)
        if set(requirement) != set(APPLE):
            sys.exit("error: %s:%d: expected `Module Path  any` or `Module Path  %s`"
                     % (path, number, ", ".join(p + " X.Y" for p in APPLE)))
        reviewed[(module, path_)] = requirement
    return reviewed


class Place:
    def __init__(self):
        self.newlines = {}

    def __call__(self, file, offset):
        if file not in self.newlines:
            data = open(file, "rb").read()
            self.newlines[file] = [i for i, b in enumerate(data) if b == 10]
        return "%s:%d" % (os.path.relpath(file), bisect.bisect_left(self.newlines[file], offset) + 1)


def analyse(walkers, triple, minimum, reviewed):
    """Checks every reference the walkers recorded. Returns, per target, the symbols used with their requirement
    and the number of references; the problems, each with the places it occurs; and the C symbols met."""
    ours = {usr: d for w in walkers.values() for usr, d in w.declarations.items()}
    our_types = {usr: m for w in walkers.values() for usr, m in w.nominal_types.items() if m}
    imported = set().union(IMPLICIT_MODULES, *(w.imports for w in walkers.values()))
    if "Foundation" in imported:
        imported |= FOUNDATION_MODULES
    modules = frozenset(imported - set(walkers) - OUR_C_MODULES)
    if (modules, triple) not in SYSTEM_SYMBOLS:
        SYSTEM_SYMBOLS[(modules, triple)] = SystemSymbols(modules, triple)
    system = SYSTEM_SYMBOLS[(modules, triple)]
    manglings = {r[0][1] for w in walkers.values() for r in w.references if isinstance(r[0], tuple)}
    trees = demangled_trees(manglings | set(our_types.values()))
    types = {m: mentioned_types(root) for m, root in trees.items()}
    our_type_names = {declared_type(trees[m]): usr for usr, m in our_types.items() if m in trees}

    place, problems, c_symbols, usage, unresolved, unresolved_types = Place(), {}, set(), {}, {}, {}
    for target, walker in walkers.items():
        used, references = {}, 0
        for ref, context, file, offset in walker.references:
            if isinstance(ref, tuple):
                usrs = []
                for module, path in types.get(ref[1], ()):
                    if (module, path) in our_type_names:
                        usrs.append(our_type_names[(module, path)])
                    elif module == "__C" or module in OUR_C_MODULES:
                        c_symbols.add(".".join(path))
                    elif module not in walkers:
                        found = system.types_named(module, path)
                        usrs += found or [("missing type", "%s.%s" % (module, ".".join(path)))]
            else:
                usrs = [ref]
            for usr in usrs:
                if isinstance(usr, tuple):
                    unresolved_types.setdefault(usr[1], place(file, offset))
                    continue
                if usr.startswith("c:"):
                    c_symbols.add(usr.split("@")[-1])
                    continue
                if usr in system.by_usr:
                    record = system.by_usr[usr]
                    name, requirement = "%s %s" % (record["module"], ".".join(record["path"])), record["requirement"]
                    if not record["annotated"] and record["module"] in UNANNOTATED_ON_LINUX:
                        requirement = reviewed.get((record["module"], ".".join(record["path"])))
                        if requirement is None:
                            problem = "has no Apple availability here and is not in Tests/Availability/reviewed.txt"
                            problems.setdefault((name, problem), set()).add(place(file, offset))
                            continue
                        name += " (reviewed)"
                    elif record.get("older_overload"):
                        name += " (or its older overload)"
                elif usr in ours:
                    if ours[usr][0] == minimum:
                        continue  # ours, available wherever the package is
                    requirement, name = ours[usr]
                else:
                    unresolved.setdefault(usr, place(file, offset))
                    continue
                references += 1
                used.setdefault(name, requirement)
                # Where our code is unavailable (context None) it never runs, so it needs nothing there.
                short = [p for p in APPLE if context[p] and (requirement[p] is None or requirement[p] > context[p])]
                if short:
                    problem = "needs %s, but the code using it is available from %s" % (
                        ", ".join("%s %s" % (p, show(requirement[p])) for p in short),
                        ", ".join("%s %s" % (p, show(context[p])) for p in short))
                    problems.setdefault((name, problem), set()).add(place(file, offset))
        usage[target] = (used, references)
    internals = unresolved_declarations(unresolved, set(walkers), problems)
    for name, where in unresolved_types.items():
        if re.search(r"\._", "." + name.split(".", 1)[1]):
            internals.append(name)
        else:
            problem = "is a type in no symbol graph, so its availability cannot be checked"
            problems.setdefault((name, problem), set()).add(where)
    return usage, problems, c_symbols, internals


def unresolved_declarations(unresolved, our_modules, problems):
    """Sorts the referenced declarations no symbol graph has: ours (locals, generic parameters), and the standard
    library's underscored internals that symbol graphs leave out (literal initializers, `_Pointer`), which are as
    old as the standard library; anything else is a problem, a declaration whose availability cannot be read."""
    usrs = sorted(unresolved)
    names = run(["swift", "demangle", "--compact"] + ["$s" + u[2:] for u in usrs]).splitlines() if usrs else []
    ours = re.compile(r"(^|[\s(:])(%s)[.)]" % "|".join(map(re.escape, our_modules)))
    internals = []
    for usr, name in zip(usrs, names):
        if ours.search(name):
            continue
        if re.search(r"(^|[.(\s])_[A-Za-z]", name):
            internals.append(name)
        else:
            problem = "is in no symbol graph, so its availability cannot be checked (%s)" % usr
            problems.setdefault((name, problem), set()).add(unresolved[usr])
    return internals


def platform_conditionals(sources):
    """The `#if` clauses that depend on the platform: the branches Linux does not compile are not checked."""
    condition = re.compile(r"^\s*#(if|elseif)\b.*\b(os|canImport|targetEnvironment|arch|_runtime)\(")
    return ["%s:%d" % (os.path.relpath(f), n) for f in sources for n, line in enumerate(open(f), 1)
            if condition.match(line)]


def short_name(demangled):
    """`Swift.Int.init` for `static (extension in Swift):Swift.Int.init(_builtinIntegerLiteral: ...) -> Swift.Int`."""
    name = re.sub(r"^(static )?(\(extension in \w+\):)?", "", demangled)
    return re.split(r"[(<\s]", name, maxsplit=1)[0]


def print_problems(problems):
    print("\n%d availability problem(s):" % len(problems))
    for (name, problem), places in sorted(problems.items()):
        places = sorted(places, key=lambda x: (x.rsplit(":", 1)[0], int(x.rsplit(":", 1)[1])))
        more = " and %d more" % (len(places) - 6) if len(places) > 6 else ""
        print("  %s %s\n    at %s%s" % (name, problem, ", ".join(places[:6]), more))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch-path", default=".build")
    parser.add_argument("--all", action="store_true", help="list every referenced symbol and its requirement")
    options = parser.parse_args()
    started = time.time()
    here = os.path.dirname(os.path.abspath(__file__))
    reviewed = read_reviewed(os.path.join(here, "reviewed.txt"))
    self_test(os.path.join(here, "SelfTest.swift"), reviewed)

    package = json.loads(run(["swift", "package", "--scratch-path", options.scratch_path, "dump-package"]))
    minimum, declared = declared_minimums(package)
    commands = compile_commands(os.path.join(options.scratch_path, "debug.yaml"))
    print("declared minimums: " + ", ".join(
        "%s %s%s" % (p, show(minimum[p]), "" if p in declared else " (not declared: SwiftPM's oldest)") for p in APPLE
    ))

    walkers, c_targets, conditionals, triple = {}, [], [], None
    for target in library_targets(package):
        if target not in commands:
            c_targets.append(target)
            continue
        flags, sources = frontend_arguments(commands[target])
        triple = flags[flags.index("-target") + 1]
        built = os.path.join(options.scratch_path, "debug", "Modules", target + ".swiftmodule")
        if not os.path.exists(built) or max(map(os.path.getmtime, sources)) > os.path.getmtime(built):
            sys.exit("error: %s changed since the last build: build first (`swift build --scratch-path %s`)"
                     % (target, options.scratch_path))
        walkers[target] = Walker(minimum)
        for document in dump_ast(commands[target][0], flags, sources):
            walkers[target].source_file(document)
        conditionals += platform_conditionals(sources)
    OUR_C_MODULES.update(c_targets)

    usage, problems, c_symbols, internals = analyse(walkers, triple, minimum, reviewed)
    for target, (used, references) in usage.items():
        report(target, used, references, minimum, options.all)
    print()
    for target in c_targets:
        print("%s: C, not checked (see the header of Tests/Availability/check.py)" % target)
    if c_symbols:
        shown = ": " + ", ".join(sorted(c_symbols)) if options.all else " (--all lists them)"
        print("C declarations used from Swift, not checked: %d%s" % (len(c_symbols), shown))
    if internals:
        print("underscored standard library declarations, which symbol graphs leave out, not checked: %d (%s)"
              % (len(internals), ", ".join(sorted({short_name(n) for n in internals}))))
    if conditionals:
        print("platform conditions whose branches for other platforms are not compiled here, so not checked: "
              + ", ".join(conditionals))
    print("checked in %.1f s" % (time.time() - started))
    if problems:
        print_problems(problems)
        sys.exit(1)
    print("every referenced API is available on the declared platforms")


def self_test(fixture, reviewed):
    """Checks SelfTest.swift, whose `// expect: Name` comments say which lines must be reported, against fixed
    minimums: a proof that the check still finds what it claims to, whatever Package.swift declares."""
    minimum = {"macOS": (12, 0), "iOS": (15, 0), "tvOS": (15, 0), "watchOS": (8, 0), "visionOS": (1, 0)}
    compiler = run(["sh", "-c", "command -v swiftc"]).strip()
    triple = json.loads(run([compiler, "-print-target-info"]))["target"]["triple"]
    flags = ["-module-name", "SelfTest", "-target", triple, "-swift-version", "6", "-parse-as-library"]
    walker = Walker(minimum)
    for document in dump_ast(compiler, flags, [fixture]):
        walker.source_file(document)
    _, problems, _, _ = analyse({"SelfTest": walker}, triple, minimum, reviewed)
    found = {}
    for (name, _), places in problems.items():
        for where in places:
            found.setdefault(int(where.rsplit(":", 1)[1]), set()).add(name)
    expected = {}
    for number, line in enumerate(open(fixture), 1):
        if "// expect: " in line:
            expected[number] = {n.strip() for n in line.split("// expect: ", 1)[1].split(";")}
    failures = ["line %d: expected %s, found %s" % (n, ", ".join(sorted(expected.get(n, ()))) or "nothing",
                                                     ", ".join(sorted(found.get(n, ()))) or "nothing")
                for n in sorted(set(found) | set(expected))
                if n not in found or n not in expected or not all(
                    any(f == e or f.startswith(e + " (") for f in found[n]) for e in expected[n])]
    if failures:
        print("self-test failed: the check no longer reports what SelfTest.swift expects:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("self-test: the %d lines SelfTest.swift expects to be reported are, and no others" % len(expected))


def report(target, used, references, minimum, everything):
    print("\n%s: %d distinct symbols checked (%d references); a requirement above the minimum is met by an "
          "@available or #available around each use" % (target, len(used), references))
    for p in APPLE:
        highest = max((r[p] or UNAVAILABLE for r in used.values()), default=(0, 0))
        setters = sorted(n for n, r in used.items() if (r[p] or UNAVAILABLE) == highest)
        shown = "-" if highest == (0, 0) else show(highest)
        more = " and %d more" % (len(setters) - 3) if len(setters) > 3 else ""
        print("  %-8s highest requirement %-5s (minimum %s)%s" % (
            p, shown, show(minimum[p]), ": " + ", ".join(setters[:3]) + more if highest != (0, 0) else ""))
    if everything:
        for name, r in sorted(used.items()):
            needs = ", ".join("%s %s" % (p, show(r[p])) for p in APPLE if r[p] != (0, 0))
            print("    %-72s %s" % (name, needs or "no Apple platform version"))


if __name__ == "__main__":
    main()
