# Smriti — the two commands a fresh Debian machine with Go and Node needs:
#   make run    build and start Smriti (API + web workspace, embedded SQLite, mock provider)
#   make test   install what the tests need, start PostgreSQL, run every test
GO        ?= go
BIN       ?= bin/smriti
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE      ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# The release binary is static: nothing in it needs cgo (SQLite is pure Go),
# and without the dynamic loader every start skips mapping and relocating
# libc and the process has fewer pages to fault in.
RELEASE   := CGO_ENABLED=0 $(GO) build -trimpath

.PHONY: run build build-api web test test-go bench fuzz vet lint clean load

# The web workspace is rebuilt when web/dist is missing or older than any of
# its sources, then embedded in the binary (the webui build tag).
WEB_SRC := $(shell find web/src web/index.html web/vite.config.ts web/tsconfig.json web/package.json web/package-lock.json -type f 2>/dev/null)

build: web/dist/index.html
	$(RELEASE) -tags webui -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/smriti

# build-api builds the binary without the web workspace (no Node needed).
build-api:
	$(RELEASE) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/smriti

web: web/dist/index.html

web/node_modules/.package-lock.json: web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

web/dist/index.html: web/node_modules/.package-lock.json $(WEB_SRC)
	cd web && npm run build

run: build
	./$(BIN) serve

test:
	./scripts/test.sh

vet:
	gofmt -l . | tee /dev/stderr | (! read)
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

load:
	./scripts/load.sh

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecodeJSON -fuzztime 30s ./httpapi/

clean:
	rm -rf bin web/dist
