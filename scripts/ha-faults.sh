#!/usr/bin/env bash
# Fault tests on real PostgreSQL (the Debian package, as scripts/pg.sh runs
# it) with `smriti serve` processes of a fresh build and a load client:
#   promote  a primary with a synchronous standby crashes under load and the
#            standby is promoted (the servers find it through a multi-host
#            URL with target_session_attrs=read-write);
#   syncrep  the synchronous standby stops and the backends waiting in
#            SyncRep are terminated (COMMITs that fail after committing
#            locally), then the standby comes back;
#   stop10s  the database is stopped for 10 s and started again.
# Each prints acked, stored, lost, duplicates, errors by status, recovery
# and /health/ready along the way, and fails on a lost or duplicated write,
# an answer other than 503 + Retry-After, or no recovery. About a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./scripts/ha "$@" faults
