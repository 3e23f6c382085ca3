#!/usr/bin/env bash
# A deterministic performance gate: counts the instructions one post executes, with valgrind's callgrind on a
# release build, and fails when a count exceeds its budget in instruction-budgets.txt by more than 10%.
# Instruction counts are exact and identical from run to run, unlike wall-clock time on a shared machine.
#
#   Benchmarks/Scripts/instruction-gate.sh            check against the budgets
#   Benchmarks/Scripts/instruction-gate.sh --update   measure and write the budgets (commit them on purpose)
set -euo pipefail
cd "$(dirname "$0")/.."

budgets=instruction-budgets.txt
scenarios=(post-1-closure post-100-closures post-1-capturing-closure post-100-capturing-closures
    post-100-closures-by-priority post-1-closure-1000-other-types
    post-1-closure-1000-other-protocols post-1-throwing-closure post-1-interceptor post-1-main-actor-closure
    post-1-main-actor-closure-from-task post-1-queue-closure register-unregister-1000-others
    instrumented-post-1-closure instrumented-post-100-closures instrumented-post-1-queue-closure)
tolerance_percent=10

build_log="$(mktemp)"
if ! swift build -c release --product InstructionCounts >"$build_log" 2>&1; then
    cat "$build_log"
    exit 1
fi
binary="$(mktemp -d)/InstructionCounts"
# valgrind 3.19 cannot read the DWARF 5 debug information Swift 6 emits; the symbol table is enough.
cp "$(swift build -c release --show-bin-path)/InstructionCounts" "$binary"
strip --strip-debug "$binary"

# Instructions inside `measuredPosts` (or `measuredPairs`) for a number of posts (or register + unregister pairs).
collected() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*measured*' \
        "$binary" "$1" "$2" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# Per post: the difference between 2000 and 1000 posts, so that the loop's setup cancels out.
per_post() {
    local small large
    small="$(collected "$1" 1000)"
    large="$(collected "$1" 2000)"
    echo $(((large - small) / 1000))
}

if [ "${1:-}" = "--update" ]; then
    {
        echo "# Instructions per post, measured by Scripts/instruction-gate.sh --update; the gate allows +${tolerance_percent}%."
        for scenario in "${scenarios[@]}"; do
            echo "$scenario $(per_post "$scenario")"
        done
    } >"$budgets"
    cat "$budgets"
    exit 0
fi

# What a scenario's count is per: a post, or a register + unregister pair.
unit() {
    if [[ "$1" == register-* ]]; then echo pair; else echo post; fi
}

failures=0
for scenario in "${scenarios[@]}"; do
    budget="$(awk -v s="$scenario" '$1 == s { print $2 }' "$budgets")"
    if [ -z "$budget" ]; then
        echo "FAIL $scenario: no budget in $budgets (run with --update)"
        failures=$((failures + 1))
        continue
    fi
    count="$(per_post "$scenario")"
    limit=$((budget + budget * tolerance_percent / 100))
    if [ "$count" -gt "$limit" ]; then
        echo "FAIL $scenario: $count instructions per $(unit "$scenario"), budget $budget (+${tolerance_percent}% = $limit)"
        failures=$((failures + 1))
    else
        echo "ok   $scenario: $count instructions per $(unit "$scenario"), budget $budget (+${tolerance_percent}% = $limit)"
    fi
done
[ "$failures" -eq 0 ] || exit 1
