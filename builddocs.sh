#!/usr/bin/env bash
# Builds the documentation of this package's libraries (Mailroom, MailroomFoundation, and the integrations
# MailroomObservability and MailroomPostgres, whose traits it enables) as one static site, with the toolchain's own
# docc and no package dependency. Warnings are errors: a public symbol without documentation or a broken link fails
# the build.
#
# The symbol graphs come from `swift package dump-symbol-graph` on this package's debug build with every trait (the
# build `Scripts/with-postgres.sh swift test --enable-all-traits` makes; a no-op after it). Each library is an
# archive of its own; Mailroom's landing page links to the others.
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

# The libraries beside Mailroom. Each links to Mailroom and to the libraries above it.
libraries=(MailroomFoundation MailroomObservability MailroomPostgres)

if [[ "${1:-}" == --modules ]]; then
    echo Mailroom
    for module in "${libraries[@]}"; do echo "$module"; done
    exit 0
fi

output="${1:-.build-docs/site}"
base_path=Mailroom
site="$output/$base_path"

# The folder where `swift package dump-symbol-graph` wrote the graphs (it says so last). Its output is shown on
# standard error (not with `tee /dev/stderr`, which empties a log file that standard error goes to).
dumped="$(swift package --enable-all-traits dump-symbol-graph --emit-extension-block-symbols)"
echo "$dumped" >&2
dumped="$(sed -n 's/^Files written to //p' <<<"$dumped" | tail -n 1)"
[[ -n "$dumped" ]] || { echo "swift package dump-symbol-graph did not say where it wrote the graphs" >&2; exit 1; }

# Each library's own graph and its extension graphs (MailroomFoundation@Mailroom: what it adds to PostOffice),
# without those of the modules it depends on (Mailroom's belongs to its own archive; swift-log's and the like to no
# archive of the site). Extension block symbols put its methods on PostOffice under "Extended Modules"; without
# them docc drops the members of types from other modules.
graphs="$PWD/.build-docs/graphs"
rm -rf "$graphs"
for module in Mailroom "${libraries[@]}"; do
    mkdir -p "$graphs/$module"
    cp "$dumped/$module.symbols.json" "$graphs/$module/"
    find "$dumped" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$graphs/$module/" \;
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
    --additional-symbol-graph-dir "$graphs/Mailroom" \
    --output-path "$archives/Mailroom-symbols.doccarchive" \
    --fallback-display-name Mailroom \
    --fallback-bundle-identifier org.mailroom.Mailroom

dependencies=(--dependency "$archives/Mailroom-symbols.doccarchive")
library_archives=()
for module in "${libraries[@]}"; do
    convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        "${dependencies[@]}" \
        --output-path "$archives/$module.doccarchive" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.mailroom.$module"
    dependencies+=(--dependency "$archives/$module.doccarchive")
    library_archives+=("$archives/$module.doccarchive")
done

convert Sources/Mailroom/Mailroom.docc \
    --additional-symbol-graph-dir "$graphs/Mailroom" \
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
for module in "${libraries[@]}"; do
    echo "($module: http://localhost:8000/$base_path/documentation/$(tr '[:upper:]' '[:lower:]' <<<"$module"))"
done
echo "(every library: http://localhost:8000/$base_path/documentation)"
