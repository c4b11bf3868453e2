#!/usr/bin/env bash
# Builds the release binary and measures it (SPEC §7): start to first /health,
# idle RSS, and sends/s, p50, p99 at c=1 and c=16 on one session whose history
# is past the mock model's window, on a temporary SQLite database.
#   scripts/load.sh                       # defaults
#   scripts/load.sh -turns 100000 -n 500  # any flag of scripts/load
#   scripts/load.sh -db postgres://…      # a PostgreSQL database instead
# With -baseline URL it alternates with a reference server and prints the ratio.
#   scripts/load.sh -db postgres://… -replicas 1,3 -cpu-quota 15% -rounds 3 -n 3000
#                                         # one replica against three on that
#                                         # database, each in a quota'd cgroup (root)
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
go run ./scripts/load -bin bin/smriti "$@"
