#!/usr/bin/env bash
# Compiles each snippet in this folder against the built Mailroom module and checks that it fails with the
# error its first line names (`// expect-error: ...`): misuse that must be a compile error stays one. A second
# line `// flags: ...` adds compiler flags (`-warnings-as-errors` for a misuse Swift reports as a warning).
#
#   Tests/CompileFail/run.sh        (after `swift build`)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
bin="$(swift build --show-bin-path)"
failures=0
for snippet in "$here"/*.swift; do
    expected="$(head -n 1 "$snippet" | sed -n 's|^// expect-error: ||p')"
    if [ -z "$expected" ]; then
        echo "FAIL $(basename "$snippet"): its first line must be '// expect-error: <message>'"
        failures=$((failures + 1))
        continue
    fi
    read -r -a flags <<<"$(sed -n '2s|^// flags: ||p' "$snippet")"
    if output="$(swiftc -typecheck -swift-version 6 "${flags[@]}" -I "$bin/Modules" \
        -Xcc -fmodule-map-file="$bin/_MailroomAtomics.build/module.modulemap" "$snippet" 2>&1)"; then
        echo "FAIL $(basename "$snippet"): compiled, but must fail with: $expected"
        failures=$((failures + 1))
    elif grep -qF -- "$expected" <<<"$output"; then
        echo "ok   $(basename "$snippet"): $expected"
    else
        echo "FAIL $(basename "$snippet"): failed, but not with: $expected"
        echo "$output" | grep -E "error:" | head -n 5
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ] || { echo "$failures compile-fail check(s) failed"; exit 1; }
