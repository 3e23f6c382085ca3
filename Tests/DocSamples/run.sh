#!/usr/bin/env bash
# Checks the ```swift blocks of README.md, docs/*.md and the DocC articles (this package's and the integration
# packages', Integrations/*/Sources/*/*.docc) against the library: each is compiled, one that shows its output
# (`// prints "..."`, `// prints:`) is run and its output compared, Package.swift fragments are loaded in a
# manifest, and the README's set-up lines are built in a fresh package that posts and receives a mail, both by URL
# and by path. An HTML comment above a fence, `<!-- sample: ... -->`, says what a block needs;
# docs/documentation.md describes the markers, the output convention and the scaffold.
#
#   Tests/DocSamples/run.sh [--no-install] [FILE.md ...]   (everything by default; builds what it needs)
#
# It builds in .build-samples/doc-samples: a generated package that depends on this one by path, holds the
# scaffold module (Tests/DocSamples/Scaffolds) and an executable for each block that is run; and one such
# package for each integration package that a checked block uses (it imports the integration's module, is in its
# folder, or says `package=Integrations/NAME`), which depends on that integration package too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
exec python3 "$here/check.py" "$@"
