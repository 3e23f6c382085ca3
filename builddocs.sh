#!/usr/bin/env bash
# Builds Mailroom's DocC documentation as a static site, with the toolchain's own docc and no package
# dependency. Warnings are errors: a public symbol without documentation or a broken link fails the build.
#
# Mailroom's site goes to the output folder, MailroomFoundation's to its MailroomFoundation subfolder: docc builds
# one module per archive.
#
#   ./builddocs.sh [output-folder]      (default: .build-docs/site)
set -euo pipefail
cd "$(dirname "$0")"

output="${1:-.build-docs/site}"
# Kept between runs: a build that finds nothing to do does not write the symbol graphs again. Each target has a
# folder of its own, since building MailroomFoundation also writes the graphs of the modules it depends on.
graphs="$PWD/.build-docs/symbol-graphs"
foundation_build_graphs="$PWD/.build-docs/symbol-graphs-foundation-build"
mkdir -p "$graphs" "$foundation_build_graphs"

swift build --scratch-path .build-docs --target Mailroom \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
# Extension block symbols put MailroomFoundation's methods on PostOffice under "Extended Modules"; without them
# docc drops the members of types from other modules.
swift build --scratch-path .build-docs --target MailroomFoundation \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$foundation_build_graphs" \
    -Xswiftc -emit-extension-block-symbols

# MailroomFoundation's own graph and its extension graphs (MailroomFoundation@Mailroom: what it adds to
# PostOffice), without Mailroom's, which belongs to the other archive.
foundation_graphs="$PWD/.build-docs/symbol-graphs-foundation"
rm -rf "$foundation_graphs"
mkdir -p "$foundation_graphs"
cp "$foundation_build_graphs"/MailroomFoundation.symbols.json "$foundation_graphs"/
find "$foundation_build_graphs" -maxdepth 1 -name 'MailroomFoundation@*.symbols.json' \
    -exec cp {} "$foundation_graphs"/ \;

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

"${docc[@]}" convert Sources/MailroomFoundation/MailroomFoundation.docc \
    --additional-symbol-graph-dir "$foundation_graphs" \
    --output-path "$output/MailroomFoundation" \
    --transform-for-static-hosting \
    --hosting-base-path Mailroom/MailroomFoundation \
    --fallback-display-name MailroomFoundation \
    --fallback-bundle-identifier org.mailroom.MailroomFoundation \
    --warnings-as-errors

echo "Documentation built in $output (open $output/documentation/mailroom/index.html through a web server;"
echo "MailroomFoundation's is $output/MailroomFoundation/documentation/mailroomfoundation/index.html)"
