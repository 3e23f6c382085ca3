#!/usr/bin/env bash
# Builds the documentation of Mailroom and MailroomFoundation as one static site, with the toolchain's own docc
# and no package dependency. Warnings are errors: a public symbol without documentation or a broken link fails
# the build.
#
# The site is made to be served at /Mailroom/ (its hosting base path), so it is written to the Mailroom folder of
# the output folder: serve the output folder, and the site is at http://localhost:8000/Mailroom/ (the last lines
# printed say how). Tests/DocsSite/check-links.sh checks its links; Tests/DocsSite/check-forms.sh checks the
# table of register forms against the API.
#
#   ./builddocs.sh [output-folder]      (default: .build-docs/site)
set -euo pipefail
cd "$(dirname "$0")"

output="${1:-.build-docs/site}"
base_path=Mailroom
site="$output/$base_path"

# Kept between runs: a build that finds nothing to do does not write the symbol graphs again. Each target has a
# folder of its own, since building MailroomFoundation also writes the graphs of the modules it depends on.
graphs="$PWD/.build-docs/symbol-graphs"
foundation_build_graphs="$PWD/.build-docs/symbol-graphs-foundation-build"
if [[ ! -f "$graphs/Mailroom.symbols.json" || ! -f "$foundation_build_graphs/MailroomFoundation.symbols.json" ]]; then
    # Graphs gone beside an up-to-date build would not be written again: build afresh. (A no-op on a clean clone.)
    swift package --scratch-path .build-docs clean
fi
mkdir -p "$graphs" "$foundation_build_graphs"

build_graphs() {
    local target="$1" folder="$2"
    shift 2
    swift build --scratch-path .build-docs --target "$target" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$folder" "$@"
}

build_graphs Mailroom "$graphs"
# Extension block symbols put MailroomFoundation's methods on PostOffice under "Extended Modules"; without them
# docc drops the members of types from other modules.
build_graphs MailroomFoundation "$foundation_build_graphs" -Xswiftc -emit-extension-block-symbols

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

# docc builds one module per archive; `docc merge` makes one site of the two. Each archive can link to the other
# (``/MailroomFoundation/NotificationBridge``, ``/Mailroom/PostOffice``) through `--dependency`, which reads the
# link files an archive built with external link support writes. MailroomFoundation depends on Mailroom, and
# Mailroom's landing page links to MailroomFoundation, so Mailroom is built twice: first from its symbols alone,
# for MailroomFoundation to link to, then in full against MailroomFoundation's archive.
archives="$PWD/.build-docs/archives"
rm -rf "$archives"
mkdir -p "$archives"
convert() {
    "${docc[@]}" convert \
        --transform-for-static-hosting \
        --hosting-base-path "$base_path" \
        --enable-experimental-external-link-support \
        "$@"
}

convert \
    --additional-symbol-graph-dir "$graphs" \
    --output-path "$archives/Mailroom-symbols.doccarchive" \
    --fallback-display-name Mailroom \
    --fallback-bundle-identifier org.mailroom.Mailroom \
    --warnings-as-errors

convert Sources/MailroomFoundation/MailroomFoundation.docc \
    --additional-symbol-graph-dir "$foundation_graphs" \
    --dependency "$archives/Mailroom-symbols.doccarchive" \
    --output-path "$archives/MailroomFoundation.doccarchive" \
    --fallback-display-name MailroomFoundation \
    --fallback-bundle-identifier org.mailroom.MailroomFoundation \
    --warnings-as-errors

convert Sources/Mailroom/Mailroom.docc \
    --additional-symbol-graph-dir "$graphs" \
    --dependency "$archives/MailroomFoundation.doccarchive" \
    --output-path "$archives/Mailroom.doccarchive" \
    --fallback-display-name Mailroom \
    --fallback-bundle-identifier org.mailroom.Mailroom \
    --warnings-as-errors

if [[ -e "$site" && ! -f "$site/metadata.json" ]]; then
    echo "$site exists and is not a documentation site: not replacing it" >&2
    exit 1
fi
rm -rf "$site"
mkdir -p "$output"
"${docc[@]}" merge "$archives/Mailroom.doccarchive" "$archives/MailroomFoundation.doccarchive" \
    --output-path "$site" \
    --synthesized-landing-page-name "Mailroom package" \
    --synthesized-landing-page-kind Package \
    --synthesized-landing-page-topics-style list

served="$(cd "$output" && pwd)"
echo
echo "Documentation built in $site, for serving at /$base_path/. To view it:"
echo "    python3 -m http.server --directory $served 8000"
echo "and open http://localhost:8000/$base_path/documentation/mailroom"
echo "(MailroomFoundation: http://localhost:8000/$base_path/documentation/mailroomfoundation;"
echo " both libraries: http://localhost:8000/$base_path/documentation)"
