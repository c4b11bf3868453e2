#!/usr/bin/env bash
# Lints the OpenAPI document the server serves at /openapi.json with Redocly
# CLI's recommended rules (scripts/openapi-lint/redocly.yaml); fails on any
# error. Warnings are printed, not fatal.
# SMRITI_BIN names a built smriti binary (built here when unset).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/smriti-lint.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

bin=${SMRITI_BIN:-}
if [ -z "$bin" ]; then
  bin="$work/smriti"
  go build -o "$bin" ./cmd/smriti
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
HOME="$work" "$bin" serve --addr "127.0.0.1:$port" --db "$work/smriti.db" --config "$work/none.yaml" --env-file "$work/none.env" >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/openapi.json" -o "$work/openapi.json" 2>/dev/null && break
  sleep 0.1
done
[ -s "$work/openapi.json" ] || { cat "$work/log" >&2; echo "the server did not answer /openapi.json" >&2; exit 1; }

cd scripts/openapi-lint
[ -x node_modules/.bin/redocly ] || npm ci --no-audit --no-fund --loglevel=error
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  node_modules/.bin/redocly lint --config redocly.yaml --format stylish "$work/openapi.json"
