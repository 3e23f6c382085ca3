#!/usr/bin/env python3
"""Checks the ```swift blocks of README.md, docs/*.md and the DocC articles against the library.

Tests/DocSamples/run.sh starts it from the repository's root; docs/documentation.md describes the markers, the
output convention and the scaffold. Each block is compiled as the main.swift of a compilation of its own; a block
that shows its output is also built and run; Package.swift fragments are loaded in a manifest; the README's
set-up lines are built in a fresh package.
"""

import argparse
import concurrent.futures
import dataclasses
import difflib
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
PACKAGE = WORK / "package"  # generated: the scaffold module, and an executable per block that is run

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
PRODUCTS = ["Mailroom", "MailroomFoundation", "MailroomTesting"]


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


def main_swift(block, blocks_by_doc):
    """The block's main.swift: imports, its around template, and its chain, located in the markdown files."""
    imports = [] if block.options.get("scaffold") == "none" else IMPLICIT_IMPORTS + [SCAFFOLD]
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

def generate_package(runnable, sources):
    products = ", ".join(f'.product(name: "{p}", package: "Mailroom")' for p in PRODUCTS)
    targets = [f'        .target(name: "{SCAFFOLD}", dependencies: [{products}]),']
    for block in runnable:
        mode = ".v5" if block.options.get("swift5") else ".v6"
        targets.append(f'        .executableTarget(name: "{block.target}", dependencies: ["{SCAFFOLD}", {products}], '
                       f"swiftSettings: [.swiftLanguageMode({mode})]),")
        write_if_changed(PACKAGE / "Sources" / block.target / "main.swift", sources[block])
    write_if_changed(PACKAGE / "Package.swift", "\n".join([
        "// swift-tools-version:6.0",
        "// Generated by Tests/DocSamples/check.py.",
        "import PackageDescription",
        "",
        'let package = Package(name: "DocSamples", dependencies: [.package(name: "Mailroom", path: "../../..")], targets: [',
        *targets,
        "])",
        "",
    ]))
    scaffold = {p.name: p.read_text() for p in (HERE / "Scaffolds").glob("*.swift")}
    for name, text in scaffold.items():
        write_if_changed(PACKAGE / "Sources" / SCAFFOLD / name, text)
    wanted = {block.target for block in runnable} | {SCAFFOLD}
    for stale in list((PACKAGE / "Sources").iterdir()) + list((PACKAGE / "Sources" / SCAFFOLD).iterdir()):
        if stale.name not in wanted and stale.name not in scaffold:
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()


def build_samples(arguments):
    # The manifest is read every time: a cached reading once named a target whose folder was gone.
    result = run(["swift", "build", "--package-path", str(PACKAGE), "--manifest-cache", "none"] + arguments)
    if result.returncode != 0:
        raise Failure(f"swift build {' '.join(arguments)} failed:\n{diagnostics(result.stdout + result.stderr, 30)}")


def typecheck(block, source, bin_path):
    folder = WORK / "typecheck" / block.target
    write_if_changed(folder / "main.swift", source)
    command = ["swiftc", "-typecheck", "-swift-version", "5" if block.options.get("swift5") else "6",
               "-I", str(bin_path / "Modules"),
               "-Xcc", f"-fmodule-map-file={bin_path / '_MailroomAtomics.build' / 'module.modulemap'}"]
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


INSTALL_LIBRARY = """\
import Mailroom

struct Ping: Mail { let count: Int }

public func roundTrip() {
    let office = PostOffice()
    office.register { (ping: Ping) in print("received ping \\(ping.count)") }
    office.post(Ping(count: 1))
}
"""


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

    # The README's set-up lines: the one target they declare is a library; a main beside it calls it.
    set_up = Path("README.md").read_text().partition("## Set up")[2].partition("\n## ")[0]
    stated = re.search(r"Swift ([\d.]+) or later", set_up)
    if not stated or stated.group(1) != tools_version():
        raise Failure(f"README.md's set-up section must say 'Swift {tools_version()} or later', the "
                      f"swift-tools-version of Package.swift")
    if len(names) != 1:
        raise Failure("an install block declares exactly one target")
    fresh_package(folder, packages, targets + [f'.executableTarget(name: "Main", dependencies: ["{names[0]}"])'],
                  {f"{names[0]}/RoundTrip.swift": INSTALL_LIBRARY, "Main/main.swift": f"import {names[0]}\n\nroundTrip()\n"})
    result = run(["swift", "build", "--package-path", str(folder), "--disable-dependency-cache"])
    if result.returncode != 0 or "warning:" in result.stderr:
        raise Failure(f"a fresh package does not build cleanly:\n{diagnostics(result.stdout + result.stderr)}")
    ran = run([str(folder / ".build" / "debug" / "Main")], timeout=60)
    if ran.stdout != "received ping 1\n":
        raise Failure(f"the fresh package's main printed {ran.stdout!r}, not 'received ping 1' {ran.stderr[-500:]}")
    return f"installs by {block.options['install']} in a fresh package, which posts and receives a mail"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="markdown files (default: README.md, docs/*.md, the DocC articles)")
    parser.add_argument("--no-install", action="store_true", help="skip the fresh packages of the README's set-up")
    arguments = parser.parse_args()
    started = time.monotonic()
    docs = arguments.files or (["README.md"] + sorted(map(str, Path("docs").glob("*.md")))
                               + sorted(map(str, Path("Sources").glob("*/*.docc/**/*.md"))))

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
        elif not block.options.get("manifest"):
            try:
                sources[block] = main_swift(block, blocks_by_doc)
                compiled.append(block)
            except Failure as error:
                results[block] = ("FAIL", str(error))
    # A block that shows output is run; it must print the output of the blocks it continues, then its own.
    runnable = [b for b in compiled if b.expected_output() and not b.options.get("fails")]

    generate_package(runnable, sources)
    build_samples(["--target", SCAFFOLD])
    bin_path = Path(run(["swift", "build", "--package-path", str(PACKAGE), "--show-bin-path"]).stdout.strip())

    def check(block, step):
        try:
            results[block] = ("ok", step(block))
        except Failure as error:
            results[block] = ("FAIL", str(error))

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(lambda b: check(b, lambda b: typecheck(b, sources[b], bin_path)), compiled))
    compiling = [b for b in runnable if results[b][0] == "ok"]
    if compiling == runnable:
        build_samples([])
    else:  # a block that does not compile would stop the others' build; it is reported already
        for block in compiling:
            build_samples(["--product", block.target])
    for block in compiling:
        check(block, lambda b: check_output(b, bin_path, blocks_by_doc))
    clones = Clones()
    for block in blocks:
        if block not in results and block.options.get("manifest"):
            check(block, lambda b: check_manifest(b, clones))

    for block in blocks:
        status, message = results[block]
        print(f"{status:<4} {block.where}: {message}")
    for problem in problems:
        print(f"FAIL {problem}")
    counts = {s: sum(1 for r in results.values() if r[0] == s) for s in ("ok", "FAIL", "skip")}
    failed = counts["FAIL"] + len(problems)
    print(f"documentation samples checked in {time.monotonic() - started:.0f} s")
    print(f"samples: {counts['ok']} passed, {failed} failed, {counts['skip']} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as error:
        print(f"FAIL {error}")
        sys.exit(1)
