#!/usr/bin/env bash
# Fuzzes UserInfoDecoder (and UserInfoEncoder, through round trips) with libFuzzer for a bounded time.
#
#   Tests/Fuzz/run.sh                      # 60 seconds
#   FUZZ_SECONDS=600 Tests/Fuzz/run.sh     # longer
#   FUZZ_CORPUS=~/corpus Tests/Fuzz/run.sh # keep the corpus between runs (default: a temporary folder)
#
# Builds UserInfoFuzzer.swift with the files of Sources/MailroomFoundation/UserInfo under ASan and libFuzzer, seeds
# the corpus from Tests/Fuzz/Seeds, and exits non-zero on any crash, failed round trip (abort), leak, timeout
# (an input running over 10 s) or out-of-memory (over 2 GB), after printing the failing input's path and a hexdump.
# Failing inputs are kept in .build/fuzz-artifacts; `<binary> <input>` replays one. Once fixed, a failing input goes
# into Tests/Fuzz/Seeds (named for what it found), so that every run replays it first.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${FUZZ_SECONDS:-60}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus="${FUZZ_CORPUS:-$work/corpus}"
artifacts="$PWD/.build/fuzz-artifacts"
mkdir -p "$corpus" "$artifacts"
cp Tests/Fuzz/Seeds/* "$corpus/"

echo "== building the fuzzer"
# Compiles a copy of the sources, so that an editor saving a file during the build cannot fail it.
mkdir -p "$work/src"
cp Sources/MailroomFoundation/UserInfo/*.swift Tests/Fuzz/UserInfoFuzzer.swift "$work/src/"
# ld.gold warns "Cannot export local symbol" for every Swift symbol it sees; those lines are harmless and hidden.
if ! swiftc -sanitize=fuzzer,address -parse-as-library -O "$work"/src/*.swift \
    -o "$work/fuzz" 2>"$work/build.log"; then
    grep -v "Cannot export local symbol" "$work/build.log" >&2
    echo "building the fuzzer failed" >&2
    exit 1
fi
grep -v "Cannot export local symbol" "$work/build.log" >&2 || true

echo "== fuzzing for ${seconds} s"
started="$(date +%s)"
status=0
# Swift's own backtracer is off: it would run inside the crash and trip AddressSanitizer, hiding libFuzzer's report.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=1" \
    "$work/fuzz" "$corpus" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 | tee "$work/fuzz.log" || status=$?

if ((status != 0)); then
    echo
    echo "== the fuzzer failed (exit status $status) after $(($(date +%s) - started)) s"
    found=0
    # The failing input is the artifact libFuzzer wrote during this run.
    while IFS= read -r input; do
        [[ -f "$input" ]] || continue
        found=1
        echo "failing input: $input ($(wc -c <"$input") bytes)"
        od -A x -t x1z "$input"
        echo "replay: build as above, then run the binary with this file as its argument"
    done < <(grep -oE "Test unit written to [^ ]+" "$work/fuzz.log" | sed 's/^Test unit written to //')
    ((found)) || echo "libFuzzer wrote no input file; see its output above"
    exit "$status"
fi
echo "== no crash, leak, timeout or out-of-memory in ${seconds} s"
