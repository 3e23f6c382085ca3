#!/usr/bin/env bash
# Mailroom against its peers (NotificationCenter, Foundation's typed messages, AsyncStream), in one command:
# builds the Comparison tool in release, runs every scenario interleaved (9 rounds, median; the memory
# scenario's child processes in the first 3; the main-actor scenario's post from a @MainActor async function in a
# child process each round, which parks its main thread) and the cost-against-recipients curve, and writes
#   Benchmarks/Results/comparison.md   the table (also printed)
#   Benchmarks/Results/curve.csv       ns per post for 1, 10, 100, 1000 recipients: closures (Mailroom,
#                                      NotificationCenter, bare loop) and main-actor recipients posted to on the
#                                      main actor (Mailroom, Foundation's MainActorMessage)
#   docs/performance-curve.svg         the curve, drawn by Scripts/chart.py
# Extra arguments go to Comparison (e.g. --rounds 15). Exits 0 whatever the targets: it is a report.
#
#   Benchmarks/Scripts/compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product Comparison
"$(swift build -c release --show-bin-path)/Comparison" --curve --results Results "$@"
python3 Scripts/chart.py Results/curve.csv ../docs/performance-curve.svg
