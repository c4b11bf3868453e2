#!/usr/bin/env bash
# Startup cost of the agent CLI, end to end: `smriti state <space> --compact`
# from process start to exit against a server on this machine (a fresh
# SQLite database with one checkpoint). Prints p50/p90/max over N runs, and
# the same for a Go hello world built alike: on a shared machine the absolute
# figures move with the load, the distance to the hello world much less.
#
#   scripts/bench-cli.sh [runs]    (default 50)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
# The binary is built as the release is (make build-api: static, stripped).
make -s build-api BIN="$dir/smriti" >/dev/null
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$dir/hello.go"
(cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o hello hello.go)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export SMRITI_API_URL="http://127.0.0.1:$port"
"$dir/smriti" serve --addr "127.0.0.1:$port" --db "$dir/bench.db" --config "$dir/none.yaml" --env-file "" 2>"$dir/serve.log" &
pid=$!
for _ in $(seq 100); do curl -fs "$SMRITI_API_URL/health" >/dev/null 2>&1 && break; sleep 0.1; done
"$dir/smriti" space create bench --no-project-root >/dev/null
echo '{"message":"Bench","summary":"s","decisions":["a","b"],"artifacts":[{"label":"l","type":"text","content":"x"}]}' |
  "$dir/smriti" checkpoint create bench >/dev/null
"$dir/smriti" state bench --compact >/dev/null # warm the page cache
# The three commands take turns, run by run, so a change in the machine's
# load falls on all of them alike. Wall time is what an agent waits; CPU time
# (user+sys of the process, from wait4) is what the start-up itself costs and
# moves much less with the other work on a shared machine.
python3 - "$runs" "$dir/hello" "$dir/smriti" <<'PY'
import os, subprocess, sys, time
runs, hello, smriti = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cases = [("Go hello world (baseline)", [hello]),
         ("smriti version (process start only)", [smriti, "version"]),
         ("smriti state <space> --compact", [smriti, "state", "bench", "--compact"])]
wall = {c[0]: [] for c in cases}
cpu = {c[0]: [] for c in cases}
for _ in range(runs):
    for label, argv in cases:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall[label].append((time.perf_counter() - t0) * 1000)
        cpu[label].append((ru.ru_utime + ru.ru_stime) * 1000)
        if status != 0:
            sys.exit(f"{' '.join(argv)} exited with status {status}")
def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]
for label, _ in cases:
    w, c = wall[label], cpu[label]
    print(f"{label:<38} {runs} runs: p50 {pct(w, .5):6.1f} ms  p90 {pct(w, .9):6.1f} ms  "
          f"max {max(w):6.1f} ms | CPU p50 {pct(c, .5):5.1f} ms")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPU(s)"
