#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster:
#   scripts/postgres-test-cluster.sh <command> [args…]
# initdb's a cluster into a temporary directory, starts it on a free loopback port (unix socket inside the data
# directory, no other listener), exports IRONCLAW_TEST_POSTGRES_URL and IRONCLAW_LEDGER_URL for the command,
# then stops the cluster and deletes it, whatever the command's outcome. The command's exit code is ours.
#
# PostgreSQL refuses to run as root; as root (CI, containers) the server runs as the `postgres` user.
# PG_BIN overrides where initdb/pg_ctl are found (default: the newest /usr/lib/postgresql/*/bin, then PATH).
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args…]" >&2
  exit 2
fi

PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)}"
if [ -n "$PG_BIN" ]; then PATH="$PG_BIN:$PATH"; fi
for tool in initdb pg_ctl; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found; install PostgreSQL or set PG_BIN" >&2; exit 1; }
done

as_owner=()
owner="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  as_owner=(runuser -u postgres --)
fi

data="$(mktemp -d "${TMPDIR:-/tmp}/ironclaw-pg.XXXXXX")"
chown "$owner" "$data"
chmod 700 "$data"
log="$data/server.log"

cleanup() {
  "${as_owner[@]}" pg_ctl -D "$data/db" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$data"
}
trap cleanup EXIT INT TERM

# A free port: bind port 0 on loopback and read back what the kernel chose.
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

"${as_owner[@]}" initdb -D "$data/db" -U "$owner" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
"${as_owner[@]}" pg_ctl -D "$data/db" -l "$log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$data/db -c max_connections=200" \
  start >/dev/null || { cat "$log" >&2; exit 1; }

export IRONCLAW_TEST_POSTGRES_URL="postgres://$owner@127.0.0.1:$port/postgres"
export IRONCLAW_LEDGER_URL="$IRONCLAW_TEST_POSTGRES_URL"
echo "postgres-test-cluster: $IRONCLAW_TEST_POSTGRES_URL (data in $data)" >&2

set +e
"$@"
status=$?
set -e
exit "$status"
