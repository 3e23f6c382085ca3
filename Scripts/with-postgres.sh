#!/usr/bin/env bash
# Runs a command beside a PostgreSQL server of its own, then stops the server, whatever the command did.
#
#   Scripts/with-postgres.sh swift test
#
# Installs PostgreSQL from Debian's packages when it is missing, creates a cluster in a new temporary folder,
# starts it on a Unix socket in that folder and on a loopback port, and runs the command with
# MAILROOM_POSTGRES_SOCKET (the socket's path), MAILROOM_POSTGRES_PORT, MAILROOM_POSTGRES_DATA (the cluster) and
# MAILROOM_POSTGRES_CTL (a command that runs pg_ctl as the cluster's owner) set. Exits with the command's status.
#
# The cluster runs with fsync off: it is thrown away at the end, and nothing in it must survive a crash of the
# machine (a crash of the server alone loses nothing). The benchmark states this beside its figures.
set -euo pipefail

if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
    echo "installing PostgreSQL from Debian's packages"
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
fi
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"

# The server refuses to run as root: as root, it runs as the postgres user on a folder that user owns.
folder="$(mktemp -d /tmp/mailroom-postgres.XXXXXX)"
chmod 755 "$folder"
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$folder"
    as_owner=(runuser -u postgres --)
fi
owner_ctl() { (cd /tmp && "${as_owner[@]}" "$bin/pg_ctl" "$@"); }

stop() {
    owner_ctl -D "$folder/data" stop -m fast -w >/dev/null 2>&1 || true
    rm -rf "$folder"
}
trap stop EXIT

(cd /tmp && "${as_owner[@]}" "$bin/initdb" -D "$folder/data" -A trust -U postgres -E UTF8 --no-sync >/dev/null)
options="-k $folder -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
started=""
for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 20000))
    if owner_ctl -D "$folder/data" -l "$folder/log" -w -t 60 -o "$options -p $port" start >/dev/null; then
        started=yes
        break
    fi
done
if [ -z "$started" ]; then
    echo "PostgreSQL did not start; its log:"
    cat "$folder/log"
    exit 1
fi
# pg_ctl keeps these options in the cluster (postmaster.opts), so `pg_ctl restart` brings the server back alike.

ctl="$folder/pg_ctl"
{
    echo '#!/usr/bin/env bash'
    echo "# pg_ctl for the cluster in $folder, as its owner; for tests that stop and restart the server."
    echo "# The server must not inherit the caller's pipes, or whoever reads them would wait for it to exit."
    echo 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null'
    echo 'exec </dev/null >/dev/null'
    printf 'cd /tmp && exec %s %q -D %q -l %q "$@"\n' "${as_owner[*]}" "$bin/pg_ctl" "$folder/data" "$folder/log"
} >"$ctl"
chmod 755 "$ctl"

export MAILROOM_POSTGRES_SOCKET="$folder/.s.PGSQL.$port"
export MAILROOM_POSTGRES_PORT="$port"
export MAILROOM_POSTGRES_DATA="$folder/data"
export MAILROOM_POSTGRES_CTL="$ctl"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $MAILROOM_POSTGRES_SOCKET and 127.0.0.1:$port"
"$@"
