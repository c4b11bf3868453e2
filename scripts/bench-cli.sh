#!/usr/bin/env bash
# Cost of the agent-facing CLI commands, end to end: each command from
# process start to exit against a server on this machine (a fresh SQLite
# database with one space whose head checkpoint holds ITEMS items, spread
# over decisions, assumptions, tasks and open questions). Prints, per
# command, p50/p90 wall time, p50 CPU time (user+sys of the process) and
# peak RSS over N runs, and each against `smriti version` (process start
# only) and a Go hello world built alike: on a shared machine the absolute
# figures move with the load, the ratios much less. Nothing here asserts a
# time; it reports (SPEC §7: an agent command within 2× `smriti version`'s
# wall time and 40 MB).
#
#   scripts/bench-cli.sh [runs] [items]    (default 30 runs, 300 items)
#   BIN=/path/to/smriti scripts/bench-cli.sh   # measure a binary already built
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
items=${2:-300}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
if [ -n "${BIN:-}" ]; then
  cp "$BIN" "$dir/smriti"
else
  # The binary is built as the release is (make build-api: static, stripped).
  make -s build-api BIN="$dir/smriti" >/dev/null
fi
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$dir/hello.go"
(cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o hello hello.go)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export SMRITI_API_URL="http://127.0.0.1:$port"
"$dir/smriti" serve --addr "127.0.0.1:$port" --db "$dir/bench.db" --config "$dir/none.yaml" --env-file "" 2>"$dir/serve.log" &
pid=$!
for _ in $(seq 100); do curl -fs "$SMRITI_API_URL/health" >/dev/null 2>&1 && break; sleep 0.1; done
"$dir/smriti" space create bench --no-project-root >/dev/null
python3 - "$items" <<'PY' | "$dir/smriti" checkpoint create bench >/dev/null
import json, sys
n = int(sys.argv[1])
d = [f"Item {i}: service {i*7} keeps its cache for {i%60} minutes" for i in range(n)]
print(json.dumps({"message": "Bench", "summary": "where the work stands", "decisions": d[0::4], "assumptions": d[1::4],
                  "tasks": d[2::4], "open_questions": d[3::4],
                  "artifacts": [{"label": "l", "type": "text", "content": "x"}]}))
PY
cp=$("$dir/smriti" checkpoint list bench --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
"$dir/smriti" state bench --compact >/dev/null # warm the page cache and the server
# The commands take turns, run by run, so a change in the machine's load
# falls on all of them alike. Wall time is what an agent waits; CPU time
# (from wait4) is what the client itself costs and moves much less with the
# other work on a shared machine; peak RSS is wait4's ru_maxrss.
python3 - "$runs" "$dir" "$cp" <<'PY'
import os, subprocess, sys, time
runs, d, cp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = d + "/smriti"
hook_in = '{"cwd": "%s", "hook_event_name": "SessionStart"}' % d
cases = [("Go hello world (baseline)", [d + "/hello"], None),
         ("smriti version (process start only)", [s, "version"], None),
         ("smriti prime", [s, "prime", "bench"], None),
         ("smriti state", [s, "state", "bench"], None),
         ("smriti state --compact", [s, "state", "bench", "--compact"], None),
         ("smriti restore", [s, "restore", cp], None),
         ("smriti why", [s, "why", "bench", "Item 7: service 49"], None),
         ("smriti ready", [s, "ready", "bench"], None),
         ("smriti check", [s, "check", "bench"], None),
         ("smriti hook session-start", [s, "hook", "session-start", "--space", "bench"], hook_in)]
wall = {c[0]: [] for c in cases}
cpu = {c[0]: [] for c in cases}
rss = {c[0]: [] for c in cases}
for _ in range(runs):
    for label, argv, stdin in cases:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if stdin is not None:
            p.stdin.write(stdin.encode())
        p.stdin.close()
        _, status, ru = os.wait4(p.pid, 0)
        wall[label].append((time.perf_counter() - t0) * 1000)
        cpu[label].append((ru.ru_utime + ru.ru_stime) * 1000)
        rss[label].append(ru.ru_maxrss / 1024)
        if status != 0:
            sys.exit(f"{' '.join(argv)} exited with status {status}")
def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]
v = "smriti version (process start only)"
vw, vc = pct(wall[v], .5), pct(cpu[v], .5)
print(f"{'command':<38} {'wall p50':>9} {'p90':>7} {'CPU p50':>8} {'RSS MB':>7} {'wall × version':>15} {'CPU × version':>14}")
for label, _, _ in cases:
    w, c = wall[label], cpu[label]
    print(f"{label:<38} {pct(w, .5):7.1f}ms {pct(w, .9):5.0f}ms {pct(c, .5):6.1f}ms {max(rss[label]):7.1f} "
          f"{pct(w, .5) / vw:15.2f} {pct(c, .5) / max(vc, 0.1):14.2f}")
PY
echo "$runs runs, $items items; load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPU(s)"
