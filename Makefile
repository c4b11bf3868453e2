# Smriti — the two commands a fresh Debian machine with Go and Node needs:
#   make run    build and start Smriti (API + web workspace, embedded SQLite, mock provider)
#   make test   install what the tests need, start PostgreSQL, run every test
GO        ?= go
BIN       ?= bin/smriti
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE      ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)

.PHONY: run build test test-go bench fuzz vet lint clean load

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/smriti

run: build
	./$(BIN) serve

test:
	./scripts/test.sh

vet:
	gofmt -l . | tee /dev/stderr | (! read)
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

load:
	./scripts/load.sh

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecodeJSON -fuzztime 30s ./httpapi/

clean:
	rm -rf bin
