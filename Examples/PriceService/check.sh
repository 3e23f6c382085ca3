#!/usr/bin/env bash
# Runs two instances of the price service against the PostgreSQL server that Scripts/with-postgres.sh started, as
# CI does, and checks what a user would: a price set through one instance is what the other serves once the change
# reached it, and both shut down cleanly on SIGTERM.
#
#   Scripts/with-postgres.sh Examples/PriceService/check.sh
set -euo pipefail
cd "$(dirname "$0")"
: "${MAILROOM_POSTGRES_SOCKET:?run it as Scripts/with-postgres.sh Examples/PriceService/check.sh}"

swift build ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"}
service="$(swift build ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"} --show-bin-path)/PriceService"
logs="$(mktemp -d)"
pids=()
stop() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$logs"; }
trap stop EXIT

# Waits up to 60 s for a line matching $2 in the log $1.
wait_for() {
    timeout 60 grep -q -m 1 "$2" <(tail -n +1 -f "$1") || { echo "no '$2' in $1:"; cat "$1"; exit 1; }
}

port1=$((20000 + RANDOM % 20000))
port2=$((port1 + 1))
"$service" api-1 "$port1" >"$logs/api-1" 2>&1 &
pids+=($!)
"$service" api-2 "$port2" >"$logs/api-2" 2>&1 &
pids+=($!)
wait_for "$logs/api-1" serving
wait_for "$logs/api-2" serving

curl -fsS -X PUT "http://127.0.0.1:$port1/prices/tea" -d '{"cents": 400}'
echo "api-2 serves tea at $(curl -fsS "http://127.0.0.1:$port2/prices/tea")"
curl -fsS -X PUT "http://127.0.0.1:$port1/prices/tea" -d '{"cents": 450}'
wait_for "$logs/api-2" 'cents=450 on=api-1 sku=tea .* price changed'
served="$(curl -fsS "http://127.0.0.1:$port2/prices/tea")"
echo "after api-1 set it to 450, api-2 serves tea at $served"
[[ "$served" == *'"cents":450'* ]] || { echo "api-2 served $served"; exit 1; }

for pid in "${pids[@]}"; do kill -TERM "$pid"; done
for pid in "${pids[@]}"; do wait "$pid" || { echo "an instance exited with $?:"; cat "$logs"/*; exit 1; }; done
pids=()
echo "both instances shut down cleanly"
