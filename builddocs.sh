#!/usr/bin/env bash
# Builds Mailroom's DocC documentation as a static site, with the toolchain's own docc and no package
# dependency. Warnings are errors: a public symbol without documentation or a broken link fails the build.
#
#   ./builddocs.sh [output-folder]      (default: .build-docs/site)
set -euo pipefail
cd "$(dirname "$0")"

output="${1:-.build-docs/site}"
# Kept between runs: a build that finds nothing to do does not write the symbol graph again.
graphs="$PWD/.build-docs/symbol-graphs"
mkdir -p "$graphs"

swift build --scratch-path .build-docs --target Mailroom \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"

if command -v xcrun >/dev/null 2>&1; then
    docc=(xcrun docc)
else
    docc=("$(dirname "$(readlink -f "$(command -v swift)")")/docc")
fi

"${docc[@]}" convert Sources/Mailroom/Mailroom.docc \
    --additional-symbol-graph-dir "$graphs" \
    --output-path "$output" \
    --transform-for-static-hosting \
    --hosting-base-path Mailroom \
    --fallback-display-name Mailroom \
    --fallback-bundle-identifier org.mailroom.Mailroom \
    --warnings-as-errors

echo "Documentation built in $output (open $output/documentation/mailroom/index.html through a web server)"
