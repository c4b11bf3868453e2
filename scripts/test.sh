#!/usr/bin/env bash
# Runs every test: installs what a fresh Debian machine lacks, starts a
# throwaway PostgreSQL cluster so the store's conformance suite and the
# HTTP tests run on both engines, then runs the Go tests with -race.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need_apt+=(postgresql)
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || need_apt+=(pgbouncer)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need_apt+=(nginx-light)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "==> installing ${need_apt[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "missing ${need_apt[*]}: run 'sudo apt-get install -y ${need_apt[*]}'" >&2
    exit 1
  fi
fi

pgdir=$(mktemp -d /tmp/smriti-pg.XXXXXX)
cleanup() { ./scripts/pg.sh stop "$pgdir" || true; rm -rf "$pgdir"; }
trap cleanup EXIT
echo "==> starting PostgreSQL"
export SMRITI_TEST_POSTGRES_URL=$(./scripts/pg.sh start "$pgdir")
echo "    $SMRITI_TEST_POSTGRES_URL"

echo "==> gofmt, go vet and staticcheck"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted" >&2; exit 1; fi
go vet ./...
# staticcheck is pinned as a tool in go.mod; it is not linked into the binary.
go tool staticcheck ./...

echo "==> go test -race"
go test -race -count=1 -timeout 20m ./... 2>&1 | tee /tmp/smriti-test.log

echo "==> MCP: every tool listed and called with the official TypeScript SDK over stdio"
bindir=$(mktemp -d /tmp/smriti-bin.XXXXXX)
go build -o "$bindir/smriti" ./cmd/smriti
(cd scripts/mcp-client && npm ci --no-audit --no-fund --loglevel=error && SMRITI_BIN="$bindir/smriti" node run.mjs)

echo "==> OpenAPI: Redocly lint, recommended rules, 0 errors on the served document"
(cd scripts/openapi-lint && npm ci --no-audit --no-fund --loglevel=error)
SMRITI_BIN="$bindir/smriti" ./scripts/openapi-lint.sh

echo "==> agent hosts: the real Claude Code and Codex, with smriti init's hooks, against a fake model server of ours"
(cd scripts/agenthosts && npm ci --no-audit --no-fund --loglevel=error && SMRITI_BIN="$bindir/smriti" node run.mjs)

echo "==> state-fidelity eval with the oracle (TestEvalOracle checks it; the README shows this table)"
"$bindir/smriti" eval
rm -rf "$bindir"

echo "==> PostgreSQL fault tests: promote, SyncRep, stop 10 s"
./scripts/ha-faults.sh

echo "==> web workspace: Vitest, build, end to end in Chromium"
(cd web && npm ci --no-audit --no-fund --loglevel=error && node scripts/check-wire-types.mjs && npx tsc -p . && npx vitest run && npx vite build)
webbin=$(mktemp -d /tmp/smriti-web.XXXXXX)
go build -tags webui -o "$webbin/smriti" ./cmd/smriti
# The web's wire types are generated from the server's OpenAPI document.
SMRITI_BIN="$webbin/smriti" ./scripts/web-types.sh --check
# Screenshots, axe results and the budget figures land in web/e2e-artifacts/.
(cd web && SMRITI_BIN="$webbin/smriti" node e2e/run.mjs)
rm -rf "$webbin"
