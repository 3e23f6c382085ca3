#!/usr/bin/env python3
"""Checks the ```swift blocks of README.md, docs/*.md and the DocC articles against the library.

Tests/DocSamples/run.sh starts it from the repository's root; docs/documentation.md describes the markers, the
output convention and the scaffold. Each block is compiled as the main.swift of a compilation of its own, against
every library of this package, its traits enabled; a block that shows its output is also built and run;
Package.swift fragments are loaded in a manifest; the README's install lines are built in fresh packages, by URL
and by path, which use what they installed.
"""

import argparse
import concurrent.futures
import dataclasses
import difflib
import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path.cwd()
HERE = Path(__file__).resolve().parent
WORK = ROOT / ".build-samples" / "doc-samples"  # git-ignored

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
MARKER = re.compile(r"^\s*<!--\s*sample:(?P<body>.*?)-->\s*$")
PRINTS_INLINE = re.compile(r'//\s*prints\s+"(?P<text>.*)"\s*$')
PRINTS_BLOCK = re.compile(r"^\s*//\s*prints:\s*$")
COMMENT_LINE = re.compile(r"^\s*//(?: (?P<text>.*))?$")
IMPORT_LINE = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?P<module>[\w.]+)\s*(?://.*)?$")
FLAGS = {"continues", "manifest", "swift5", "warnings-as-errors"}
KEYS = {"name", "continues", "scaffold", "around", "imports", "fails", "skip", "install"}
# A block is a fragment of a file that imports these and the scaffold, unless it says `scaffold=none`.
IMPLICIT_IMPORTS = ["Foundation", "Mailroom", "MailroomFoundation"]
SCAFFOLD = "DocScaffold"
PRODUCTS = ["Mailroom", "MailroomFoundation", "MailroomTesting", "MailroomObservability", "MailroomPostgres"]
TRAITS = ["Observability", "Postgres"]  # every trait of this package: the integrations' modules are empty without


class Failure(Exception):
    pass


@dataclasses.dataclass(eq=False)
class Block:
    doc: str
    index: int  # among the swift blocks of its document, from 1
    line: int  # of its first line of code
    options: dict
    previous: "Block | None"
    code: str = ""

    @property
    def where(self):
        return f"{self.doc}:{self.line}"

    @property
    def target(self):
        """Names its generated executable and folders, whichever documents a run checks."""
        return "Sample_" + re.sub(r"[^A-Za-z0-9]+", "_", self.doc.removesuffix(".md")).strip("_") + f"_{self.index}"

    def expected_output(self):
        """The lines of output the block shows: `// prints "..."`, and the comment lines after `// prints:`."""
        lines, collecting = [], False
        for line in self.code.splitlines():
            comment = COMMENT_LINE.match(line)
            if collecting and comment:
                lines.append(comment.group("text") or "")
                continue
            collecting = bool(PRINTS_BLOCK.match(line))
            if not collecting and (match := PRINTS_INLINE.search(line)):
                lines.append(match.group("text"))
        return lines


def parse_marker(body, where):
    options = {}
    try:
        tokens = shlex.split(body)
    except ValueError as error:
        raise Failure(f"{where}: unreadable marker ({error})")
    for token in tokens:
        key, has_value, value = token.partition("=")
        if (key in FLAGS and not has_value) or (key in KEYS and has_value):
            options[key] = value if has_value else True
        else:
            raise Failure(f"{where}: unknown marker word '{token}' (flags: {sorted(FLAGS)}, keys: {sorted(KEYS)})")
    if "install" in options:
        options["manifest"] = True
    return options


def parse(doc):
    """The swift blocks of a document with their markers, and the mistakes in its markers."""
    lines = Path(doc).read_text().splitlines()
    blocks, problems, fence = [], [], None  # fence: (its characters, its indent, the block it opens or None)
    for number, line in enumerate(lines, start=1):
        match = FENCE.match(line)
        if fence:
            if match and match.group("fence").startswith(fence[0]) and not match.group("info").strip():
                if fence[2]:
                    body = lines[fence[2].line - 1:number - 1]
                    fence[2].code = "".join(l.removeprefix(fence[1]) + "\n" for l in body)
                fence = None
            continue
        marker = MARKER.match(lines[number - 2]) if number > 1 else None
        if match:
            language = (match.group("info").split() or [""])[0].lower()
            block = None
            if language == "swift":
                try:
                    options = parse_marker(marker.group("body"), f"{doc}:{number - 1}") if marker else {}
                except Failure as error:
                    problems.append(str(error))
                    options = {"skip": "its marker is broken"}
                block = Block(doc, len(blocks) + 1, number + 1, options, blocks[-1] if blocks else None)
                blocks.append(block)
            elif marker:
                problems.append(f"{doc}:{number - 1}: a sample marker above a '{language or 'plain'}' fence")
            fence = (match.group("fence"), match.group("indent"), block)
        elif "<!-- sample" in line and not (number < len(lines) and FENCE.match(lines[number])):
            problems.append(f"{doc}:{number}: a sample marker must be on the line right above a ```swift fence")
    if fence:
        problems.append(f"{doc}: a fence is not closed")
    return blocks, problems


def chain(block, blocks_by_doc):
    """The block and the earlier blocks it continues, earliest first."""
    result = [block]
    while "continues" in result[0].options:
        name = result[0].options["continues"]
        if name is True:
            earlier = result[0].previous
        else:
            earlier = next((b for b in blocks_by_doc[block.doc] if b.options.get("name") == name), None)
        if earlier is None or earlier in result:
            raise Failure(f"{result[0].where}: continues '{name}', which is no other block of {block.doc}")
        result.insert(0, earlier)
    return result


# What a block is compiled against

@dataclasses.dataclass(eq=False)
class SamplePackage:
    """What the blocks are compiled against: a generated package that depends on this one (every trait enabled) and
    on this one's own dependencies, built at most once a run."""

    manifest: dict  # this package's `swift package dump-package`

    @property
    def work(self):
        """The generated package: the scaffold module, and an executable per block that is run."""
        return WORK / "package"

    @property
    def scratch(self):
        """Where the generated package builds: in this package's own build folder, which its tests built with every
        trait (`swift test --enable-all-traits`), so that postgres-nio and the rest are built once for both."""
        return ["--scratch-path", str(ROOT / ".build")]

    def implicit_imports(self):
        return IMPLICIT_IMPORTS

    def scaffold_files(self):
        """The scaffold's files: Tests/DocSamples/Scaffolds/*.swift."""
        return {p.name: p.read_text() for p in (HERE / "Scaffolds").glob("*.swift")}


def load_package():
    """This package's manifest, read once a run (about 0.4 s)."""
    result = run(["swift", "package", "--scratch-path", str(WORK / "manifest"), "dump-package"])
    if result.returncode != 0:
        raise Failure(f"Package.swift does not load:\n{diagnostics(result.stdout + result.stderr)}")
    return SamplePackage(json.loads(result.stdout))


def own_module(block):
    """The library whose DocC catalog the block is in (Sources/NAME/NAME.docc), which its article need not import."""
    parts = Path(block.doc).parts
    return [parts[1]] if len(parts) > 2 and parts[0] == "Sources" and parts[1] in PRODUCTS else []


def main_swift(block, blocks_by_doc):
    """The block's main.swift: imports, its around template, and its chain, located in the markdown files."""
    imports = [] if block.options.get("scaffold") == "none" else IMPLICIT_IMPORTS + own_module(block) + [SCAFFOLD]
    imports += [name for name in block.options.get("imports", "").split(",") if name]
    body = []
    for part in chain(block, blocks_by_doc):
        body.append(f'#sourceLocation(file: "{part.doc}", line: {part.line})')
        for line in part.code.splitlines():
            if match := IMPORT_LINE.match(line):  # imports go first; the blank keeps the line numbers
                imports.append(match.group("module"))
                line = ""
            body.append(line)
    if "around" in block.options:
        template = HERE / "Around" / f"{block.options['around']}.swift"
        name = os.path.relpath(template, ROOT)
        if not template.exists():
            raise Failure(f"{block.where}: there is no {name}")
        lines = template.read_text().splitlines()
        spot = next((i for i, line in enumerate(lines) if line.strip() == "// SAMPLE"), None)
        if spot is None:
            raise Failure(f"{name} has no '// SAMPLE' line")
        body = ([f'#sourceLocation(file: "{name}", line: 1)'] + lines[:spot] + body
                + [f'#sourceLocation(file: "{name}", line: {spot + 2})'] + lines[spot + 1:])
    return "".join(f"import {name}\n" for name in dict.fromkeys(imports)) + "\n".join(body) + "\n"


def run(command, timeout=600):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def diagnostics(output, limit=12):
    lines = [l for l in output.splitlines() if re.match(r"(\S+:\d+:\d+: )?(error|warning): ", l)]
    return "\n".join("       " + l for l in lines[:limit])


# Compiled and run blocks

def dependencies(package, folder):
    """This package's own dependencies, as the generated package in `folder` declares them, and the products of
    theirs that its targets use (its test kits among them), so that a sample may import what the integrations' own
    tests and examples import."""
    declared, names = [], {}  # names: how this package's targets name a package, to how the generated one does
    for dependency in package.manifest["dependencies"]:
        (kind, (details,)), = dependency.items()
        name = details.get("nameForTargetDependencyResolutionOnly")
        for alias in filter(None, (details["identity"], name)):
            names[alias] = name or details["identity"]
        named = f"name: {json.dumps(name)}, " if name else ""
        if kind == "sourceControl" and "remote" in details["location"]:
            url = json.dumps(details["location"]["remote"][0]["urlString"])
            (rule, values), = details["requirement"].items()
            if rule == "range":
                where = f'url: {url}, "{values[0]["lowerBound"]}"..<"{values[0]["upperBound"]}"'
            elif rule in ("exact", "branch", "revision"):
                where = f"url: {url}, {rule}: {json.dumps(values[0])}"
            else:
                raise Failure(f"Package.swift: a dependency's requirement is not understood here: {rule}")
        else:
            raise Failure(f"Package.swift: a {kind} dependency is not understood here: {details}")
        declared.append(f".package({named}{where})")
    products = []
    for target in package.manifest["targets"]:
        for dependency in target["dependencies"]:
            if "product" in dependency:
                product, owner = dependency["product"][:2]
                owner = names.get(owner, owner or product)
                if (product, owner) not in products:
                    products.append((product, owner))
    return declared, products


def generate_package(package, runnable, sources):
    folder = package.work
    traits = ", ".join(json.dumps(t) for t in TRAITS)
    declared = [f'.package(name: "Mailroom", path: "{os.path.relpath(ROOT, folder)}", traits: [{traits}])']
    products = [(p, "Mailroom") for p in PRODUCTS]
    more_declared, more_products = dependencies(package, folder)
    declared += more_declared
    products += more_products
    tools = package.manifest["toolsVersion"]["_version"].removesuffix(".0")
    # This package's pins, for a first resolution: the versions its own builds use.
    resolved = ROOT / "Package.resolved"
    if resolved.exists() and not (folder / "Package.resolved").exists():
        write_if_changed(folder / "Package.resolved", resolved.read_text())
    products = ", ".join(f'.product(name: "{name}", package: "{owner}")' for name, owner in products)
    targets = [f'        .target(name: "{SCAFFOLD}", dependencies: [{products}]),']
    files = {f"{SCAFFOLD}/{name}": text for name, text in package.scaffold_files().items()}
    for block in runnable:
        mode = ".v5" if block.options.get("swift5") else ".v6"
        targets.append(f'        .executableTarget(name: "{block.target}", dependencies: ["{SCAFFOLD}", {products}], '
                       f"swiftSettings: [.swiftLanguageMode({mode})]),")
        files[f"{block.target}/main.swift"] = sources[block]
    write_if_changed(folder / "Package.swift", "\n".join([
        f"// swift-tools-version:{tools}",
        "// Generated by Tests/DocSamples/check.py.",
        "import PackageDescription",
        "",
        'let package = Package(name: "DocSamples", dependencies: [',
        *[f"    {d}," for d in declared],
        "], targets: [",
        *targets,
        "])",
        "",
    ]))
    for name, text in files.items():
        write_if_changed(folder / "Sources" / name, text)
    for stale in sorted((folder / "Sources").rglob("*"), reverse=True):  # files before their folders
        name = stale.relative_to(folder / "Sources").as_posix()
        if stale.is_file() and name not in files:
            stale.unlink()
        elif stale.is_dir() and not any(stale.iterdir()):
            stale.rmdir()


def build_samples(package, arguments):
    # The manifest is read every time: a cached reading once named a target whose folder was gone. A first build
    # with postgres-nio (and BoringSSL) took over 10 minutes on 2 busy cores.
    result = run(["swift", "build", "--package-path", str(package.work), "--manifest-cache", "none"]
                 + package.scratch + arguments,
                 timeout=2400)
    if result.returncode != 0:
        raise Failure(f"swift build {' '.join(arguments)} failed:\n{diagnostics(result.stdout + result.stderr, 30)}")


def typecheck(block, source, bin_path):
    folder = WORK / "typecheck" / block.target
    write_if_changed(folder / "main.swift", source)
    command = ["swiftc", "-typecheck", "-swift-version", "5" if block.options.get("swift5") else "6",
               "-I", str(bin_path / "Modules")]
    # The C modules (this package's _MailroomAtomics, and any of an integration's dependencies): their module
    # maps are where SwiftPM generated them.
    # A C target that ships its own module map (swift-atomics' _AtomicsShims, under postgres-nio) has none there:
    # it is in its checkout.
    checkouts = bin_path.parent.parent / "checkouts"
    for module_map in sorted(bin_path.glob("*.build/module.modulemap")) + sorted(
            checkouts.glob("*/Sources/*/include/module.modulemap")):
        command += ["-Xcc", f"-fmodule-map-file={module_map}"]
    if block.options.get("warnings-as-errors"):
        command.append("-warnings-as-errors")
    result = run(command + [str(folder / "main.swift")], timeout=300)
    output, expected = result.stdout + result.stderr, block.options.get("fails")
    if expected is None:
        if result.returncode != 0:
            raise Failure(f"does not compile:\n{diagnostics(output)}")
        return "compiles"
    if result.returncode == 0:
        raise Failure(f"compiles, but must fail with: {expected}")
    if expected not in output:
        raise Failure(f"fails, but not with: {expected}\n{diagnostics(output)}")
    return f"fails as shown: {expected}"


def check_output(block, bin_path, blocks_by_doc):
    expected = [line for part in chain(block, blocks_by_doc) for line in part.expected_output()]
    result = run([str(bin_path / block.target)], timeout=60)
    if result.returncode != 0:
        raise Failure(f"exits with status {result.returncode}:\n{result.stderr[-2000:]}")
    if result.stdout.splitlines() != expected:
        diff = difflib.unified_diff(expected, result.stdout.splitlines(), "shown", "printed", lineterm="")
        raise Failure("prints something else:\n" + "\n".join("       " + line for line in diff))
    return f"runs, prints the {len(expected)} line(s) shown"


# Package.swift fragments

def manifest_elements(code):
    """The `.package(...)` and target elements of a comma-separated manifest fragment."""
    elements, depth, current, in_string = [], 0, "", False
    for char in "\n".join(re.sub(r'^((?:[^"/]|"[^"]*"|/(?!/))*)//.*$', r"\1", l) for l in code.splitlines()):
        in_string ^= char == '"'
        depth += (char in "([") - (char in ")]") if not in_string else 0
        if char == "," and depth == 0 and not in_string:
            elements.append(current.strip())
            current = ""
        else:
            current += char
    elements = [e for e in elements + [current.strip()] if e]
    packages = [e for e in elements if e.startswith(".package(")]
    targets = [e for e in elements if re.match(r"\.(target|executableTarget|testTarget)\(", e)]
    if len(packages) + len(targets) != len(elements):
        raise Failure("a manifest block holds only .package(...) and target elements")
    return packages, targets


def tools_version():
    return re.search(r"swift-tools-version:\s*([\d.]+)", Path("Package.swift").read_text()).group(1)


class Clones:
    """This repository's committed main, cloned once a run: bare as `Mailroom.git`, to be reached by URL, and
    checked out under a folder name that is not the package's."""

    def __init__(self):
        self.folder = None

    def path(self, name):
        if self.folder is None:
            folder = WORK / "clones"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for arguments in (["--bare", str(ROOT), "Mailroom.git"], [str(ROOT), "checkout-with-another-name"]):
                result = run(["git", "-C", str(folder), "clone", "--quiet"] + arguments)
                if result.returncode != 0:
                    raise Failure(f"git clone failed: {result.stderr.strip()}")
            self.folder = folder
        return self.folder / name

    def substitute(self, element):
        """The README's placeholders (in angle brackets) replaced by the clones."""
        url = re.search(r'url:\s*"([^"]*<[^"]*)"', element)
        if url:
            if not re.search(r"/Mailroom(\.git)?$", url.group(1)):
                raise Failure(f"the placeholder URL must end in /Mailroom.git: {url.group(1)}")
            element = element.replace(url.group(1), f"file://{self.path('Mailroom.git')}")
        path = re.search(r'path:\s*"([^"]*<[^"]*)"', element)
        if path:
            element = element.replace(path.group(1), str(self.path("checkout-with-another-name")))
        return element


def fresh_package(folder, packages, targets, sources):
    """A package in `folder` with these dependencies and targets; `sources` maps a file's path under Sources/ to
    its text."""
    shutil.rmtree(folder, ignore_errors=True)
    write_if_changed(folder / "Package.swift", "\n".join([
        f"// swift-tools-version: {tools_version()}",
        "import PackageDescription",
        "",
        'let package = Package(name: "App", dependencies: [',
        *[f"    {p}," for p in packages],
        "], targets: [",
        *[f"    {t}," for t in targets],
        "])",
        "",
    ]))
    for path, text in sources.items():
        write_if_changed(folder / "Sources" / path, text)


# What a fresh package does with the product it installed, and what its main must print. Each is a library beside
# the main (`roundTrip()`); the Postgres one links two offices through the server of Scripts/with-postgres.sh.
INSTALLS = {
    "Mailroom": ("""\
import Mailroom

struct Ping: Mail { let count: Int }

public func roundTrip() async throws {
    let office = PostOffice()
    office.register { (ping: Ping) in print("received ping \\(ping.count)") }
    office.post(Ping(count: 1))
}
""", "received ping 1"),
    "MailroomObservability": ("""\
import Dispatch
import Logging
import Mailroom
import MailroomObservability
import Tracing

struct Ping: Mail { let count: Int }

enum RequestKey: ServiceContextKey { typealias Value = String }

/// A recipient on a queue runs after the post, outside the poster's task, yet in the poster's context.
public func roundTrip() async throws {
    let office = PostOffice(instrumentation: MailTelemetry(logger: Logger(label: "install")))
    let (lines, line) = AsyncStream.makeStream(of: String.self)
    office.register(queue: DispatchQueue(label: "install")) { (ping: Ping) in
        line.yield("received ping \\(ping.count) in request \\(ServiceContext.current?[RequestKey.self] ?? "none")")
    }
    var context = ServiceContext.topLevel
    context[RequestKey.self] = "r-1"
    ServiceContext.withValue(context) { office.post(Ping(count: 1)) }
    for await received in lines {
        print(received)
        break
    }
}
""", "received ping 1 in request r-1"),
    "MailroomPostgres": ("""\
import Foundation
import Mailroom
import MailroomPostgres
import PostgresNIO

struct Ping: LinkedMail { let count: Int }

/// Two links, as two processes would have, through the server in MAILROOM_POSTGRES_SOCKET.
public func roundTrip() async throws {
    guard let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"] else {
        print("no MAILROOM_POSTGRES_SOCKET: run it as Scripts/with-postgres.sh")
        return
    }
    let database = PostgresClient.Configuration(
        unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
    let (sending, receiving) = (PostOffice(), PostOffice())
    let (lines, line) = AsyncStream.makeStream(of: String.self)
    receiving.register { (ping: Ping, origin: RemoteOrigin) in line.yield("received ping \\(ping.count) from \\(origin.name)") }
    let links = try [("install-sender", sending), ("install-receiver", receiving)].map { origin, office in
        try PostgresLink(office: office, carrying: [Ping.self], database: database, configuration: .init(origin: origin))
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for link in links { group.addTask { try await link.run() } }
        for link in links { try await link.listening() }
        sending.post(Ping(count: 1))
        for await received in lines {
            print(received)
            break
        }
        group.cancelAll()
    }
}
""", "received ping 1 from install-sender"),
}
# What a fresh package that installs by URL must not resolve, by the product it uses: the packages of the traits it
# does not enable. (A package only one trait uses; those two traits share swift-log and swift-metrics.)
NOT_RESOLVED = {
    "Mailroom": None,  # nothing but Mailroom itself
    "MailroomObservability": {"postgres-nio", "swift-service-lifecycle", "swift-nio"},
    "MailroomPostgres": {"swift-distributed-tracing"},
}
# A warning SwiftPM prints about a dependency's own files, which no client can act on.
FOREIGN_WARNING = re.compile(r"warning: '[\w-]+': found \d+ file\(s\) which are unhandled")


def check_manifest(block, clones):
    packages, targets = manifest_elements(block.code)
    packages = [clones.substitute(p) for p in packages] or [  # a fragment of targets names this package
        f'.package(name: "Mailroom", path: "{clones.path("checkout-with-another-name")}")']
    names = re.findall(r'\.(?:target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"', "\n".join(targets))
    folder = WORK / "manifests" / block.target
    if not block.options.get("install"):
        fresh_package(folder, packages, targets, {f"{name}/{name}.swift": "" for name in names})
        result = run(["swift", "package", "--package-path", str(folder), "describe", "--type", "json"])
        if result.returncode != 0 or "warning:" in result.stderr:
            raise Failure(f"the manifest does not load cleanly:\n{diagnostics(result.stderr)}")
        return "loads in a manifest"

    # The README's install lines: the one target they declare is a library; a main beside it calls it.
    set_up = Path("README.md").read_text().partition("## Set up")[2].partition("\n## ")[0]
    stated = re.search(r"Swift ([\d.]+) or later", set_up)
    if not stated or stated.group(1) != tools_version():
        raise Failure(f"README.md's set-up section must say 'Swift {tools_version()} or later', the "
                      f"swift-tools-version of Package.swift")
    if len(names) != 1:
        raise Failure("an install block declares exactly one target")
    used = [p for p in re.findall(r'\.product\(\s*name:\s*"([^"]+)",\s*package:\s*"Mailroom"', block.code)
            if p in INSTALLS]
    if len(used) != 1:
        raise Failure(f"an install block uses exactly one of {', '.join(INSTALLS)}")
    library, expected = INSTALLS[used[0]]
    fresh_package(folder, packages, targets + [f'.executableTarget(name: "Main", dependencies: ["{names[0]}"])'],
                  {f"{names[0]}/RoundTrip.swift": library,
                   "Main/main.swift": f"import {names[0]}\n\ntry await roundTrip()\n"})
    # A package that installs an integration builds in this package's .build, where postgres-nio and the rest are
    # built already; it resolves in its own folder all the same (its Package.resolved is its own), but it changes
    # .build's checkouts to its own: CI runs these last. One that installs Mailroom alone builds in a folder of its
    # own.
    scratch = folder / ".build" if used[0] == "Mailroom" else ROOT / ".build"
    where = ["--package-path", str(folder), "--scratch-path", str(scratch), "--manifest-cache", "none"]
    # Resolved first, on its own: a build in a shared folder does not always write the package's Package.resolved.
    result = run(["swift", "package"] + where + ["--disable-dependency-cache", "resolve"], timeout=600)
    if result.returncode == 0:
        result = run(["swift", "build"] + where, timeout=2400)
    output = result.stdout + result.stderr
    warnings = [l for l in output.splitlines() if "warning:" in l and not FOREIGN_WARNING.search(l)]
    main = scratch / "debug" / "Main"
    if result.returncode != 0 or warnings or not main.exists():
        raise Failure(f"a fresh package does not build cleanly:\n{diagnostics(output)}\n{output[-1500:]}")
    ran = run([str(main)], timeout=120)
    if ran.stdout != expected + "\n":
        raise Failure(f"the fresh package's main printed {ran.stdout!r}, not {expected!r} {ran.stderr[-500:]}")
    resolved = ""
    if block.options["install"] == "url":
        pins = sorted(p["identity"] for p in json.loads((folder / "Package.resolved").read_text())["pins"])
        excluded = NOT_RESOLVED[used[0]]
        if excluded is None and pins != ["mailroom"]:
            raise Failure(f"a client of {used[0]} alone pins more than Mailroom: {', '.join(pins)}")
        if excluded and (wrong := excluded.intersection(pins)):
            raise Failure(f"a client of {used[0]} pins packages of a trait it does not enable: {', '.join(wrong)}")
        resolved = ", and pins nothing but Mailroom" if excluded is None else f", and pins {len(pins)} packages"
    return (f"installs {used[0]} by {block.options['install']} in a fresh package, which prints "
            f"'{expected}'{resolved}")


def check(results, block, step):
    try:
        results[block] = ("ok", step(block))
    except Failure as error:
        results[block] = ("FAIL", str(error))


def check_package(package, its_blocks, sources, results, blocks_by_doc):
    """Builds the package's generated package once, then compiles its blocks and runs those that show output.
    Returns what stopped it, if anything: the reason, said once, for which its blocks fail."""
    # A block that shows output is run; it must print the output of the blocks it continues, then its own.
    runnable = [b for b in its_blocks if b.expected_output() and not b.options.get("fails")]
    try:
        started = time.monotonic()
        generate_package(package, runnable, sources)
        build_samples(package, ["--target", SCAFFOLD])
        print(f"the samples' package built in {time.monotonic() - started:.0f} s", flush=True)
    except Failure as error:
        for block in its_blocks:
            results[block] = ("FAIL", "not compiled: this package and its samples do not build (below)")
        return [f"this package: {error}"]
    shown = run(["swift", "build", "--package-path", str(package.work), "--show-bin-path"] + package.scratch)
    bin_path = Path(shown.stdout.strip())

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(lambda b: check(results, b, lambda b: typecheck(b, sources[b], bin_path)), its_blocks))
    compiling = [b for b in runnable if results[b][0] == "ok"]
    try:
        if runnable and compiling == runnable:
            build_samples(package, [])
        else:  # a block that does not compile would stop the others' build; it is reported already
            for block in compiling:
                build_samples(package, ["--product", block.target])
    except Failure as error:
        for block in compiling:
            results[block] = ("FAIL", "not run: this package and its samples do not build (below)")
        return [f"this package: {error}"]
    for block in compiling:
        check(results, block, lambda b: check_output(b, bin_path, blocks_by_doc))
    return []


def lock_work_folder():
    """One run at a time in .build-samples: two would rewrite each other's generated packages."""
    WORK.mkdir(parents=True, exist_ok=True)
    lock = open(WORK / "lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"waiting for another run of the samples check in {os.path.relpath(WORK, ROOT)} to finish", flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="markdown files (default: README.md, docs/*.md, the DocC articles "
                                                 "of this package)")
    parser.add_argument("--no-install", action="store_true", help="skip the fresh packages of the README's set-up")
    parser.add_argument("--installs-only", action="store_true",
                        help="only the fresh packages of the README's set-up; the integrations' build in this "
                             "package's .build and change its checkouts: run it after every other use of .build")
    arguments = parser.parse_args()
    lock = lock_work_folder()
    started = time.monotonic()
    docs = arguments.files or (["README.md"] + sorted(map(str, Path("docs").glob("*.md")))
                               + sorted(map(str, Path("Sources").glob("*/*.docc/**/*.md"))))
    package = load_package()

    blocks, problems, blocks_by_doc, results, sources = [], [], {}, {}, {}
    for doc in docs:
        blocks_by_doc[doc], found = parse(doc)
        blocks += blocks_by_doc[doc]
        problems += found
    compiled = []
    for block in blocks:
        if "skip" in block.options:
            results[block] = ("skip", block.options["skip"])
        elif arguments.no_install and block.options.get("install"):
            results[block] = ("skip", "--no-install")
        elif arguments.installs_only and not block.options.get("install"):
            results[block] = ("skip", "--installs-only")
        elif not block.options.get("manifest"):
            try:
                sources[block] = main_swift(block, blocks_by_doc)
                compiled.append(block)
            except Failure as error:
                results[block] = ("FAIL", str(error))

    if compiled:
        problems += check_package(package, compiled, sources, results, blocks_by_doc)
    clones = Clones()
    # The integrations' fresh packages share .build, where each resolution drops the checkouts it does not need:
    # the one that needs most goes first, so that the next rebuilds nothing it shares with it.
    order = {product: rank for rank, product in enumerate(["MailroomPostgres", "MailroomObservability"])}
    manifests = [b for b in blocks if b not in results and b.options.get("manifest")]
    for block in sorted(manifests, key=lambda b: min((order.get(p, 9) for p in INSTALLS if p in b.code), default=9)):
        check(results, block, lambda b: check_manifest(b, clones))

    for block in blocks:
        status, message = results[block]
        print(f"{status:<4} {block.where}: {message}")
    for problem in problems:
        print(f"FAIL {problem}")
    counts = {s: sum(1 for r in results.values() if r[0] == s) for s in ("ok", "FAIL", "skip")}
    failed = counts["FAIL"] + len(problems)
    print(f"documentation samples checked in {time.monotonic() - started:.0f} s")
    print(f"samples: {counts['ok']} passed, {failed} failed, {counts['skip']} skipped")
    lock.close()
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as error:
        print(f"FAIL {error}")
        sys.exit(1)
