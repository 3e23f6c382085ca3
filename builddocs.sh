#!/usr/bin/env bash
# Builds the documentation of Mailroom and of the libraries beside it (MailroomFoundation, and the integration
# packages of Integrations/) as one static site, with the toolchain's own docc and no package dependency. Warnings
# are errors: a public symbol without documentation or a broken link fails the build.
#
# Each module is an archive of its own, listed below with the folder of the package that builds it: this package
# (.) or an integration package, a package of its own that depends on this one by path, whose graphs
# `swift package dump-symbol-graph` extracts from its own debug build (.build in its folder, which its tests and
# the samples check build too). A new library is a new line of that list.
#
# The site is made to be served at /Mailroom/ (its hosting base path), so it is written to the Mailroom folder of
# the output folder: serve the output folder, and the site is at http://localhost:8000/Mailroom/ (the last lines
# printed say how). Tests/DocsSite/check-links.sh checks its links; Tests/DocsSite/check-forms.sh checks the
# table of register forms against the API.
#
#   ./builddocs.sh [output-folder]      (default: .build-docs/site)
#   ./builddocs.sh --modules            (prints the modules of the site, one a line, and builds nothing)
set -euo pipefail
cd "$(dirname "$0")"

# The libraries beside Mailroom: "module package-folder". Each links to Mailroom and to the libraries above it.
libraries=(
    "MailroomFoundation ."
    "MailroomObservability Integrations/MailroomObservability"
    "MailroomPostgres Integrations/MailroomPostgres"
)

if [[ "${1:-}" == --modules ]]; then
    echo Mailroom
    for library in "${libraries[@]}"; do echo "${library%% *}"; done
    exit 0
fi

output="${1:-.build-docs/site}"
base_path=Mailroom
site="$output/$base_path"

# This package's graphs are written by its build in .build-docs, kept between runs: a build that finds nothing to
# do does not write them again. Each target has a folder of its own, since building a library also writes the
# graphs of the modules it depends on.
graphs="$PWD/.build-docs/symbol-graphs"
build_graphs_of() { echo "$PWD/.build-docs/symbol-graphs-build/$1"; }

# Graphs gone beside an up-to-date build would not be written again: build afresh. (A no-op on a clean clone.)
if [[ ! -f "$graphs/Mailroom.symbols.json" ]]; then
    swift package --scratch-path .build-docs clean
fi
for library in "${libraries[@]}"; do
    read -r module folder <<<"$library"
    if [[ "$folder" == . && ! -f "$(build_graphs_of "$module")/$module.symbols.json" ]]; then
        swift package --scratch-path .build-docs clean
    fi
done

build_graphs() {
    local target="$1" graphs_folder="$2"
    shift 2
    mkdir -p "$graphs_folder"
    swift build --scratch-path .build-docs --target "$target" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs_folder" "$@"
}

# The folder where `swift package dump-symbol-graph` wrote an integration's graphs (it says so last). Its output
# is shown on standard error (not with `tee /dev/stderr`, which empties a log file that standard error goes to).
dump_graphs() {
    local output
    output="$(swift package --package-path "$1" dump-symbol-graph --emit-extension-block-symbols)"
    echo "$output" >&2
    sed -n 's/^Files written to //p' <<<"$output" | tail -n 1
}

build_graphs Mailroom "$graphs"

# Each library's own graph and its extension graphs (MailroomFoundation@Mailroom: what it adds to PostOffice),
# without those of the modules it depends on (Mailroom's belongs to the other archive; swift-log's and the like
# to no archive of the site). Extension block symbols put its methods on PostOffice under "Extended Modules";
# without them docc drops the members of types from other modules.
library_graphs="$PWD/.build-docs/library-graphs"
rm -rf "$library_graphs"
for library in "${libraries[@]}"; do
    read -r module folder <<<"$library"
    if [[ "$folder" == . ]]; then
        built="$(build_graphs_of "$module")"
        build_graphs "$module" "$built" -Xswiftc -emit-extension-block-symbols
    else
        built="$(dump_graphs "$folder")"
        [[ -n "$built" ]] || { echo "swift package dump-symbol-graph did not say where it wrote $module's graphs" >&2; exit 1; }
    fi
    mkdir -p "$library_graphs/$module"
    cp "$built/$module.symbols.json" "$library_graphs/$module/"
    find "$built" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$library_graphs/$module/" \;
done

if command -v xcrun >/dev/null 2>&1; then
    docc=(xcrun docc)
else
    docc=("$(dirname "$(readlink -f "$(command -v swift)")")/docc")
fi

# docc builds one module per archive; `docc merge` makes one site of them. An archive can link to another
# (``/MailroomFoundation/NotificationBridge``, ``/Mailroom/PostOffice``) through `--dependency`, which reads the
# link files an archive built with external link support writes. The libraries depend on Mailroom, and Mailroom's
# landing page links to them, so Mailroom is built twice: first from its symbols alone, for the libraries to link
# to, then in full against their archives. A library also links to the libraries listed above it.
archives="$PWD/.build-docs/archives"
rm -rf "$archives"
mkdir -p "$archives"
convert() {
    "${docc[@]}" convert \
        --transform-for-static-hosting \
        --hosting-base-path "$base_path" \
        --enable-experimental-external-link-support \
        --warnings-as-errors \
        "$@"
}

convert \
    --additional-symbol-graph-dir "$graphs" \
    --output-path "$archives/Mailroom-symbols.doccarchive" \
    --fallback-display-name Mailroom \
    --fallback-bundle-identifier org.mailroom.Mailroom

dependencies=(--dependency "$archives/Mailroom-symbols.doccarchive")
library_archives=()
for library in "${libraries[@]}"; do
    read -r module folder <<<"$library"
    catalog="$folder/Sources/$module/$module.docc"
    [[ -d "$catalog" ]] || catalog=()
    convert ${catalog[@]+"${catalog[@]}"} \
        --additional-symbol-graph-dir "$library_graphs/$module" \
        "${dependencies[@]}" \
        --output-path "$archives/$module.doccarchive" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.mailroom.$module"
    dependencies+=(--dependency "$archives/$module.doccarchive")
    library_archives+=("$archives/$module.doccarchive")
done

convert Sources/Mailroom/Mailroom.docc \
    --additional-symbol-graph-dir "$graphs" \
    "${dependencies[@]:2}" \
    --output-path "$archives/Mailroom.doccarchive" \
    --fallback-display-name Mailroom \
    --fallback-bundle-identifier org.mailroom.Mailroom

if [[ -e "$site" && ! -f "$site/metadata.json" ]]; then
    echo "$site exists and is not a documentation site: not replacing it" >&2
    exit 1
fi
rm -rf "$site"
mkdir -p "$output"
"${docc[@]}" merge "$archives/Mailroom.doccarchive" "${library_archives[@]}" \
    --output-path "$site" \
    --synthesized-landing-page-name "Mailroom package" \
    --synthesized-landing-page-kind Package \
    --synthesized-landing-page-topics-style list

served="$(cd "$output" && pwd)"
echo
echo "Documentation built in $site, for serving at /$base_path/. To view it:"
echo "    python3 -m http.server --directory $served 8000"
echo "and open http://localhost:8000/$base_path/documentation/mailroom"
for library in "${libraries[@]}"; do
    module="${library%% *}"
    echo "($module: http://localhost:8000/$base_path/documentation/$(tr '[:upper:]' '[:lower:]' <<<"$module"))"
done
echo "(every library: http://localhost:8000/$base_path/documentation)"
