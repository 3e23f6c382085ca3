#!/usr/bin/env python3
"""Counts the code-completion rows sourcekit-lsp offers for `office.reg`: the `register` overloads of PostOffice.

    Scripts/completion-rows.py [PACKAGE_ROOT] [--list] [--keep] [--timeout SECONDS] [--settle SECONDS]
    Scripts/completion-rows.py /tmp/mailroom-before     a checkout of another commit, e.g. from `git worktree add`

PACKAGE_ROOT is a checkout of Mailroom (default: the repository this script is in). The script

1. makes a fresh package in a temporary folder (swift-tools-version 6.0, Swift 6 language mode) that depends on
   PACKAGE_ROOT by path and has one executable target, whose main.swift is

       import Mailroom
       let office = PostOffice()
       office.reg

   It first builds it with `swift build` and a main.swift that compiles (`_ = PostOffice()`), so that the Mailroom
   module is built, then writes the file above, which ends at the completion point.
2. starts `sourcekit-lsp` on that package (over stdio, JSON-RPC with Content-Length framing, background indexing off
   so that it uses the modules of that build), opens main.swift, waits for its first diagnostics that find the
   Mailroom module (the server has the package's build settings then) and asks for completion right after
   `office.reg`; it asks again, for at most --settle seconds, while the answer has no `register` row.
3. prints the completion rows for office.register (the items whose label or filterText starts with `register`), the
   distinct labels among them, the pairs of rows whose labels are identical (rows that print exactly alike), and the
   longest label in characters; with --list, every such label too. Then it shuts the server down and deletes the
   temporary package (--keep keeps it, with the server's stderr in sourcekit-lsp.log).

sourcekit-lsp asks sourcekitd for calls with and without their defaulted arguments (`addCallWithNoDefaultArgs`),
so an overload with defaulted parameters gives two rows, and it returns at most 200 items (`requestLimit`); the
script warns when the answer has that many. Needs only python3's standard library and a Swift toolchain (`swift`
and `sourcekit-lsp` on PATH). Exits with 1 when it could not measure, 2 on bad arguments.
"""

import argparse
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = "Mailroom"
PREFIX = "register"
# What sourcekit-lsp passes sourcekitd as `requestLimit`: an answer this long may have been cut.
SERVER_LIMIT = 200
SOURCE_LINES = ["import Mailroom", "let office = PostOffice()", "office.reg"]


class Failure(Exception):
    """Why the measurement could not be made."""


class Deadline:
    """The time left of the whole run, from which every wait takes its timeout."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self, cap=None):
        left = self.end - time.monotonic()
        if left <= 0:
            raise Failure("out of time (see --timeout)")
        return left if cap is None else min(left, cap)


def read_manifest(root):
    """The package's name and, if it declares them, its `platforms:` (to give the client the same minimums)."""
    manifest = root / "Package.swift"
    if not manifest.is_file():
        raise Failure(f"no Package.swift in {root}")
    text = manifest.read_text()
    name = re.search(r'\bPackage\(\s*name:\s*"([^"]+)"', text)
    if not name:
        raise Failure(f"no `Package(name: ...)` in {manifest}")
    platforms = re.search(r"^\s*platforms:\s*(\[[^\]]*\])", text, re.MULTILINE)
    return name.group(1), platforms.group(1) if platforms else None


def write_client(folder, root, package_name, platforms):
    """Writes the temporary package, with a main.swift that compiles; returns main.swift's path."""
    platforms_line = f"    platforms: {platforms},\n" if platforms else ""
    (folder / "Package.swift").write_text(
        "// swift-tools-version:6.0\n"
        "import PackageDescription\n\n"
        "let package = Package(\n"
        '    name: "CompletionRows",\n'
        f"{platforms_line}"
        f"    dependencies: [.package(name: {json.dumps(package_name)}, path: {json.dumps(str(root))})],\n"
        "    targets: [\n"
        "        .executableTarget(\n"
        '            name: "CompletionRows",\n'
        f'            dependencies: [.product(name: "{PRODUCT}", package: {json.dumps(package_name)})])\n'
        "    ],\n"
        "    swiftLanguageModes: [.v6]\n"
        ")\n")
    sources = folder / "Sources" / "CompletionRows"
    sources.mkdir(parents=True)
    main = sources / "main.swift"
    main.write_text(f"import {PRODUCT}\n_ = PostOffice()\n")
    return main


def stop_group(process, interrupt=False):
    """Ends `process` and what it started (it leads its own process group), and reaps it. With `interrupt`, first
    sends the group SIGINT and waits up to 15 s: SwiftPM then stops the compilers it started in groups of their own.
    """
    if interrupt and process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGINT)
            process.wait(timeout=15)
        except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def build(folder, deadline):
    """`swift build` in the temporary package, which builds the Mailroom module of PACKAGE_ROOT into its .build."""
    print(f"building {folder.name} (swift build)...", file=sys.stderr, flush=True)
    # In its own process group, so that a timeout also stops the compilers it started.
    process = subprocess.Popen(["swift", "build"], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=deadline.left())
    except BaseException as error:  # a timeout, the deadline, ^C...
        stop_group(process, interrupt=True)
        if isinstance(error, subprocess.TimeoutExpired):
            raise Failure("swift build took too long (see --timeout)")
        raise
    stop_group(process)
    if process.returncode != 0:
        raise Failure("swift build of the temporary package failed:\n" + output[-4000:])


class Server:
    """sourcekit-lsp over stdio: requests with ids, answered with bounded waits."""

    def __init__(self, folder, log):
        self.process = subprocess.Popen(["sourcekit-lsp"], cwd=folder, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=log, start_new_session=True)
        self.incoming = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        """Puts every message the server writes on `incoming`, then None when its output ends."""
        stream = self.process.stdout
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    key, _, value = line.decode("ascii", "replace").partition(":")
                    if key.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                body = stream.read(length)
                if len(body) < length:
                    return
                self.incoming.put(json.loads(body))
        except (OSError, ValueError):
            return
        finally:
            self.incoming.put(None)

    def _send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        try:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()
        except OSError:
            raise Failure("sourcekit-lsp is gone (its stdin is closed)")

    def notify(self, method, params=None):
        self._send({"method": method, "params": params if params is not None else {}})

    def request(self, method, params, timeout, deadline):
        """The result of a request; raises Failure on an error answer, on timeout or if the server ends."""
        self.next_id += 1
        ident = self.next_id
        self._send({"id": ident, "method": method, "params": params})
        end = time.monotonic() + deadline.left(timeout)
        while True:
            message = self.wait(end - time.monotonic())
            if message is None:
                raise Failure(f"no answer to {method} in {timeout:.0f} s")
            if message.get("id") == ident and "method" not in message:
                if "error" in message:
                    raise Failure(f"{method}: {message['error'].get('message', message['error'])}")
                return message.get("result")

    def wait(self, seconds):
        """The next message in at most `seconds`, or None; answers the server's own requests on the way."""
        if seconds <= 0:
            return None
        try:
            message = self.incoming.get(timeout=seconds)
        except queue.Empty:
            return None
        if message is None:
            self.incoming.put(None)  # stays ended for later waits
            raise Failure(f"sourcekit-lsp ended (exit status {self.process.poll()})")
        if "method" in message and "id" in message:
            # window/workDoneProgress/create, client/registerCapability...: accept them all.
            self._send({"id": message["id"], "result": None})
        return message

    def stop(self):
        """shutdown and exit, waiting a few seconds for each; then ends whatever of the server is left."""
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, 10, Deadline(10))
                self.notify("exit")
                self.process.wait(timeout=5)
            except (Failure, subprocess.TimeoutExpired):
                pass
        stop_group(self.process)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


def complete(folder, main, settle, deadline):
    """The completion items at the end of main.swift, asked again while none is a `register` row."""
    log = open(folder / "sourcekit-lsp.log", "wb")
    server = Server(folder, log)
    try:
        server.request("initialize", {
            "processId": os.getpid(),
            "rootUri": folder.as_uri(),
            "capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}},
            # Use the modules `swift build` made, rather than preparing the package again in .build/index-build.
            "initializationOptions": {"backgroundIndexing": False},
        }, 60, deadline)
        server.notify("initialized")
        text = main.read_text()
        document = {"uri": main.as_uri()}
        server.notify("textDocument/didOpen", {"textDocument": dict(document, languageId="swift", version=1,
                                                                    text=text)})
        lines = text.split("\n")
        position = {"line": len(lines) - 1, "character": len(lines[-1])}  # the end of `office.reg`
        # The server may open the file with fallback build settings (no Mailroom module) and reopen it once SwiftPM's
        # arrive; a completion asked before that has no rows. Its first diagnostics without "no such module" say it
        # has the package's settings (waits at most `settle` seconds, and goes on without them).
        wait_for_settings(server, main.as_uri(), settle, deadline)
        settle_end = time.monotonic() + settle
        attempts = 0
        while True:
            attempts += 1
            result = server.request("textDocument/completion", {"textDocument": document, "position": position},
                                    60, deadline)
            items = result.get("items", []) if isinstance(result, dict) else (result or [])
            if rows_of(items) or time.monotonic() >= settle_end:
                return items, (result.get("isIncomplete") if isinstance(result, dict) else False), attempts
            # Still loading: wait for what the server says next (diagnostics, progress), up to 2 s. Then complete
            # elsewhere (the start of the file), because sourcekit-lsp keeps a completion session open for a position
            # and would only re-filter its empty results; the next request at `office.reg` opens a new one.
            end = time.monotonic() + deadline.left(2)
            while server.wait(end - time.monotonic()) is not None and time.monotonic() < end:
                pass
            server.request("textDocument/completion", {"textDocument": document,
                                                       "position": {"line": 0, "character": 0}}, 60, deadline)
    finally:
        server.stop()
        log.close()


def wait_for_settings(server, uri, seconds, deadline):
    """Waits for diagnostics of `uri` that do not say "no such module"; whether they came in `seconds`."""
    end = time.monotonic() + deadline.left(seconds)
    while True:
        message = server.wait(end - time.monotonic())
        if message is None:
            return False
        params = message.get("params") or {}
        if message.get("method") != "textDocument/publishDiagnostics" or unquote(params.get("uri", "")) != unquote(uri):
            continue
        if not any("no such module" in d.get("message", "") for d in params.get("diagnostics", [])):
            return True


def rows_of(items):
    """The items that are rows of office.register."""
    return [item for item in items
            if item.get("label", "").startswith(PREFIX) or item.get("filterText", "").startswith(PREFIX)]


def report(items, incomplete, attempts, listing):
    """Prints the figures (and with `listing` the labels); whether there was any row."""
    rows = rows_of(items)
    labels = [row.get("label", "") for row in rows]
    counts = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    pairs = sum(n * (n - 1) // 2 for n in counts.values())
    alike = sorted(n for n in counts.values() if n > 1)
    print(f"completion rows for office.{PREFIX}: {len(rows)}")
    print(f"distinct labels: {len(counts)}")
    print(f"pairs of rows that print exactly alike (identical labels): {pairs}"
          + (f" (labels shown {', '.join(map(str, alike))} times)" if alike and alike[-1] > 2 else ""))
    print(f"longest label: {max(map(len, labels), default=0)} characters")
    print(f"(all items in the answer: {len(items)}, isIncomplete: {str(bool(incomplete)).lower()}, "
          f"completion requests: {attempts})")
    if len(items) >= SERVER_LIMIT:
        print(f"warning: the answer has {len(items)} items, sourcekit-lsp's limit: rows may be missing",
              file=sys.stderr)
    if listing:
        for label in labels:
            print(label)
    return bool(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("package_root", nargs="?", default=str(ROOT), metavar="PACKAGE_ROOT",
                        help="a checkout of Mailroom (default: %(default)s)")
    parser.add_argument("--list", action="store_true", help="print every row's label")
    parser.add_argument("--keep", action="store_true", help="keep the temporary package and print where it is")
    parser.add_argument("--timeout", type=float, default=300, help="seconds for the whole run (default: 300)")
    parser.add_argument("--settle", type=float, default=60,
                        help="seconds to keep asking while no register row comes back (default: 60)")
    args = parser.parse_args()
    # Cleans up on SIGTERM as on ^C: the finally clauses stop what was started and delete the temporary package.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    root = Path(args.package_root).resolve()
    deadline = Deadline(args.timeout)
    for tool in ("swift", "sourcekit-lsp"):
        if not shutil.which(tool):
            print(f"error: {tool} is not on PATH", file=sys.stderr)
            return 1
    folder = Path(tempfile.mkdtemp(prefix="completion-rows-")).resolve()
    try:
        package_name, platforms = read_manifest(root)
        main_swift = write_client(folder, root, package_name, platforms)
        build(folder, deadline)
        main_swift.write_text("\n".join(SOURCE_LINES))  # no newline after: the file ends at the completion point
        items, incomplete, attempts = complete(folder, main_swift, args.settle, deadline)
        print(f"{root} (package {package_name}):")
        return 0 if report(items, incomplete, attempts, args.list) else 1
    except Failure as failure:
        print(f"error: {failure}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
