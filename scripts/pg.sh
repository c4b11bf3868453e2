#!/usr/bin/env bash
# Starts (or stops) a throwaway PostgreSQL cluster for the tests, without a
# service manager: ./scripts/pg.sh start DIR  → prints the connection URL;
# ./scripts/pg.sh stop DIR.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?directory}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bindir" ] || { echo "PostgreSQL is not installed (apt-get install -y postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$cmd" in
start)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 55432)
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_pg "$bindir/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1
  fi
  as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -c listen_addresses=127.0.0.1 -p $port -c fsync=off -c max_connections=200" start >/dev/null
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  ;;
stop)
  [ -f "$dir/data/postmaster.pid" ] && as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  ;;
esac
