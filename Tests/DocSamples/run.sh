#!/usr/bin/env bash
# Checks the ```swift blocks of README.md, docs/*.md and the DocC articles (Sources/*/*.docc) against this
# package's libraries, every trait enabled: each is compiled, one that shows its output (`// prints "..."`,
# `// prints:`) is run and its output compared, Package.swift fragments are loaded in a manifest, and the README's
# install lines are built in fresh packages, by URL and by path, that use what they installed. An HTML comment above
# a fence, `<!-- sample: ... -->`, says what a block needs; docs/documentation.md describes the markers, the output
# convention and the scaffold.
#
#   Tests/DocSamples/run.sh [--no-install | --installs-only] [FILE.md ...]   (everything by default)
#
# It builds in .build-samples/doc-samples a generated package that depends on this one by path, holds the scaffold
# module (Tests/DocSamples/Scaffolds) and an executable for each block that is run, and builds it in this package's
# .build. The fresh package that installs MailroomPostgres needs the server of Scripts/with-postgres.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
exec python3 "$here/check.py" "$@"
