#!/usr/bin/env bash
# Runs two workers of the welcome emails against the PostgreSQL server that Scripts/with-postgres.sh started, as CI
# does, and checks what a user would: when the busy worker is killed with SIGKILL in the middle of the signups, the
# other one takes over; with the first started again, every signup gets exactly one welcome email; and both workers
# shut down cleanly on SIGTERM.
#
#   Scripts/with-postgres.sh Examples/WelcomeEmails/check.sh
#
# Builds WelcomeEmails with every trait, in SCRATCH_PATH if set (else .build). Each run works in a database of its
# own, dropped at the end. Every wait gives up after 60 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${MAILROOM_POSTGRES_SOCKET:?run it as Scripts/with-postgres.sh Examples/WelcomeEmails/check.sh}"

build=(swift build --enable-all-traits ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
"${build[@]}" --product WelcomeEmails
program="$("${build[@]}" --show-bin-path)/WelcomeEmails"

export WELCOME_EMAILS_DATABASE="welcome_emails_$$_$RANDOM"
export logs
logs="$(mktemp -d)"
declare -A pids=()

# Runs the statement $2 on the database $1 and prints the result, unaligned (columns separated by |).
psql_on() {
    psql -h "$(dirname "$MAILROOM_POSTGRES_SOCKET")" -p "$MAILROOM_POSTGRES_PORT" -U postgres -d "$1" \
        -X -A -t -q -v ON_ERROR_STOP=1 -c "$2"
}
sql() { psql_on "$WELCOME_EMAILS_DATABASE" "$1"; }
# How many "wrote the welcome email" lines were printed: in all logs, or in those whose names start with $1.
printed() { cat "$logs/${1:-}"* | grep -c " wrote the welcome email " || true; }
export -f psql_on sql printed

stop() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    psql_on postgres "DROP DATABASE IF EXISTS $WELCOME_EMAILS_DATABASE WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$logs"
}
trap stop EXIT

fail() {
    echo "FAILED: $*"
    for log in "$logs"/*; do
        echo "== $(basename "$log")"
        cat "$log"
    done
    exit 1
}

# Waits until the shell condition $1 holds.
eventually() {
    timeout 60 bash -c "until $1; do sleep 0.05; done" || fail "after 60 s, still not: $1"
}

# Starts the worker $1, its output in the log $2, and waits until it runs.
start() {
    "$program" "$1" >"$logs/$2" 2>&1 &
    pids[$1]=$!
    eventually "grep -q '$1 is running' '$logs/$2'"
}

# Records $1 signups, its output in the log $2.
sign_up() {
    timeout 60 "$program" signup "$1" >"$logs/$2" 2>&1 || fail "signup $1 exited with $?"
}

psql_on postgres "CREATE DATABASE $WELCOME_EMAILS_DATABASE"
start worker-1 worker-1
start worker-2 worker-2

# The worker that holds the subscription is killed once it printed 50 emails, while signups are still recorded;
# the other one takes over.
sign_up 200 signup-200 &
pids[signup]=$!
eventually '[ "$(printed)" -ge 50 ]'
busy=worker-1 other=worker-2
if [ "$(printed worker-2)" -gt 0 ]; then busy=worker-2 other=worker-1; fi
kill -KILL "${pids[$busy]}"
wait "${pids[$busy]}" 2>/dev/null || true
unset "pids[$busy]"
written="$(sql "SELECT count(*) FROM welcome_emails WHERE sent_by = '$busy'")"
echo "$busy, killed with SIGKILL once $(sql "SELECT count(*) FROM signups") signups were recorded, had printed" \
    "$(printed "$busy") emails, of which $written committed (the rest are handed again)"
wait "${pids[signup]}" || exit 1
unset "pids[signup]"
eventually '[ "$(sql "SELECT count(DISTINCT signup_id) FROM welcome_emails")" = 200 ]'
echo "$other took over and wrote $(sql "SELECT count(*) FROM welcome_emails WHERE sent_by = '$other'") of the 200"

# Its sessions end once the server notices, and with them its hold on its origin.
eventually "[ \"\$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$busy'\")\" = 0 ]"
start "$busy" "$busy-restarted"
sign_up 100 signup-100
eventually '[ "$(sql "SELECT count(DISTINCT signup_id) FROM welcome_emails")" = 300 ]'

for name in worker-1 worker-2; do kill -TERM "${pids[$name]}" || fail "$name is not running"; done
for name in worker-1 worker-2; do
    timeout 60 tail --pid="${pids[$name]}" -f /dev/null || fail "$name did not exit within 60 s of SIGTERM"
    wait "${pids[$name]}" || fail "$name exited with $? on SIGTERM"
    unset "pids[$name]"
done
echo "both workers shut down cleanly"

echo "emails written, by worker: $(sql "SELECT string_agg(sent_by || ' ' || n, ', ' ORDER BY sent_by) FROM (
    SELECT sent_by, count(*) AS n FROM welcome_emails GROUP BY sent_by) AS counts")"
echo "$(printed) lines printed for 300 emails"
counts="$(sql "SELECT (SELECT count(*) FROM signups), (SELECT count(*) FROM welcome_emails),
    (SELECT count(DISTINCT signup_id) FROM welcome_emails),
    (SELECT count(*) FROM signups JOIN welcome_emails ON signup_id = id AND welcome_emails.email = signups.email),
    (SELECT count(*) FROM mailroom_dead_letters)")"
echo "signups|emails|signups emailed|emails matching their signup|dead letters: $counts"
[[ "$counts" == "300|300|300|300|0" ]] || fail "expected 300|300|300|300|0: one email per signup"
echo "every signup got exactly one welcome email"
