#!/usr/bin/env bash
# Sends/s and checkpoint commits/s of one `smriti serve` replica against
# three on one PostgreSQL, alternated, at c=16 across 16 spaces, with the
# share of sampled lock waits (pg_stat_activity) on any single row.
#   scripts/ha-load.sh                     # defaults (3 rounds of 6 s each)
#   scripts/ha-load.sh -rounds 5 -each 10s # any flag of scripts/ha
#   scripts/ha-load.sh -bin other/smriti   # another build
#   scripts/ha-load.sh -cpu-quota 15%      # each replica held to 15 % of one CPU
#                                          # (a cgroup each, v2 cpu.max else v1
#                                          # cfs quota; root), so replica CPU is
#                                          # the bound as on machines of their own
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./scripts/ha "$@" load
