#!/usr/bin/env bash
# A deterministic memory gate: counts the heap bytes one live registration holds, for each kind of registration,
# with Sources/RegistrationBytes on a release build (glibc's mallinfo2 before and after 10,000 registrations, in
# a fresh process per kind), and fails when a kind exceeds its budget in memory-budgets.txt by more than 8 bytes.
# The figures are exact and identical from run to run, unlike resident memory. The tolerance is half of glibc's
# 16-byte step between chunk sizes: one more size class for any allocation a registration makes (16 bytes) fails,
# and so does anything larger.
#
#   Benchmarks/Scripts/memory-gate.sh            check against the budgets
#   Benchmarks/Scripts/memory-gate.sh --update   measure and write the budgets (commit them on purpose)
set -euo pipefail
cd "$(dirname "$0")/.."

budgets=memory-budgets.txt
kinds=(closure weak-method exact-sender main-actor-closure queue-closure)
tolerance_bytes=8

build_log="$(mktemp)"
if ! swift build -c release --product RegistrationBytes >"$build_log" 2>&1; then
    cat "$build_log"
    exit 1
fi
binary="$(swift build -c release --show-bin-path)/RegistrationBytes"

# Heap bytes per registration of one kind, measured in a process of its own.
per_registration() {
    "$binary" "$1" | awk -v k="$1" '$1 == k { print $2 }'
}

if [ "${1:-}" = "--update" ]; then
    {
        echo "# Heap bytes per live registration (Sources/RegistrationBytes), measured by"
        echo "# Scripts/memory-gate.sh --update; the gate allows +${tolerance_bytes} bytes."
        for kind in "${kinds[@]}"; do
            echo "$kind $(per_registration "$kind")"
        done
    } >"$budgets"
    cat "$budgets"
    exit 0
fi

failures=0
for kind in "${kinds[@]}"; do
    budget="$(awk -v k="$kind" '$1 == k { print $2 }' "$budgets")"
    if [ -z "$budget" ]; then
        echo "FAIL $kind: no budget in $budgets (run with --update)"
        failures=$((failures + 1))
        continue
    fi
    bytes="$(per_registration "$kind")"
    if [ -z "$bytes" ]; then
        echo "FAIL $kind: RegistrationBytes printed no figure"
        failures=$((failures + 1))
        continue
    fi
    limit=$((budget + tolerance_bytes))
    if [ "$bytes" -gt "$limit" ]; then
        echo "FAIL $kind: $bytes heap bytes per registration, budget $budget (+${tolerance_bytes} = $limit)"
        failures=$((failures + 1))
    else
        echo "ok   $kind: $bytes heap bytes per registration, budget $budget (+${tolerance_bytes} = $limit)"
    fi
done
[ "$failures" -eq 0 ] || exit 1
