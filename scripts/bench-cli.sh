#!/usr/bin/env bash
# Startup cost of the agent CLI, end to end: `smriti state <space> --compact`
# from process start to exit against a server on this machine (a fresh
# SQLite database with one checkpoint). Prints p50/p90/max over N runs.
#
#   scripts/bench-cli.sh [runs]    (default 50)
set -euo pipefail
runs=${1:-50}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
go build -o "$dir/smriti" ./cmd/smriti
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export SMRITI_API_URL="http://127.0.0.1:$port"
"$dir/smriti" serve --addr "127.0.0.1:$port" --db "$dir/bench.db" --config "$dir/none.yaml" --env-file "" 2>"$dir/serve.log" &
pid=$!
for _ in $(seq 100); do curl -fs "$SMRITI_API_URL/health" >/dev/null 2>&1 && break; sleep 0.1; done
"$dir/smriti" space create bench --no-project-root >/dev/null
echo '{"message":"Bench","summary":"s","decisions":["a","b"],"artifacts":[{"label":"l","type":"text","content":"x"}]}' |
  "$dir/smriti" checkpoint create bench >/dev/null
"$dir/smriti" state bench --compact >/dev/null # warm the page cache
# measure runs a command $runs times and prints its latency percentiles.
measure() {
  local label=$1; shift
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$runs" -v label="$label" '
    { a[NR] = $1 }
    END { printf "%-40s %d runs: p50 %6.1f ms  p90 %6.1f ms  max %6.1f ms\n",
          label, n, a[int((n+1)/2)]/1000, a[int(n*0.9)]/1000, a[n]/1000 }'
}
# The process start alone (no request), for comparison: on a loaded
# machine both grow together.
measure "smriti version (process start only)" "$dir/smriti" version
measure "smriti state <space> --compact" "$dir/smriti" state bench --compact
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPU(s)"
