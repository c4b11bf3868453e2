# Smriti — the two commands a fresh Debian machine with Go and Node needs:
#   make run    build and start Smriti (API + web workspace, embedded SQLite, mock provider)
#   make test   install what the tests need, start PostgreSQL, run every test
GO        ?= go
BIN       ?= bin/smriti
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# The build date is the commit's time, not the clock's: the link flags then
# stay the same from one build to the next, so an unchanged tree is not
# relinked and one commit always links to the same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
DATE      ?= $(shell TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# The release binary is static: nothing in it needs cgo (SQLite is pure Go),
# and without the dynamic loader every start skips mapping and relocating
# libc and the process has fewer pages to fault in.
RELEASE   := CGO_ENABLED=0 $(GO) build -trimpath

.PHONY: run build build-api web test test-go bench fuzz vet lint clean load dist repro repro-all

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

# dist builds the release: a static binary for each target with the web
# workspace embedded, packed with the README, licence and changelog (and the
# deployment examples) into dist/smriti_VERSION_OS_ARCH.tar.gz (.zip for
# windows), and dist/SHA256SUMS. Binaries stay in bin/dist so a target whose
# inputs did not change is not relinked.
DIST         ?= dist
DIST_BIN     ?= bin/dist
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST_FILES   := README.md,LICENSE,CHANGELOG.md,deploy/smriti.service,deploy/smriti-backup.service,deploy/smriti-backup.timer,deploy/nginx-smriti.conf,deploy/UPGRADING.md

dist: web/dist/index.html
	rm -rf $(DIST)
	$(GO) run ./scripts/distpack -go $(GO) -out $(DIST) -bin $(DIST_BIN) -version $(VERSION) -mtime $(SOURCE_DATE_EPOCH) \
		-ldflags '$(LDFLAGS)' -tags webui -files '$(DIST_FILES)' $(DIST_TARGETS)
	cd $(DIST) && sha256sum -c SHA256SUMS

# repro checks that one commit builds the same bytes: it builds one small
# target (linux/amd64, API only; REPRO_TARGET=os/arch for another) twice into different directories with the
# release flags and a different clock and time zone, and compares.
# repro-all does it for the whole release: `make dist` twice, the second
# time from a copy of the tree at another path (its web workspace built
# again there), in another time zone and umask, and compares every archive
# and SHA256SUMS byte for byte; REPRO_GOCACHE=fresh also compiles the second
# build from an empty build cache. Neither is part of `make test`: repro-all
# links six targets twice, and with a cold cache compiles every package for
# each of the six targets (twice with REPRO_GOCACHE=fresh).
repro:
	./scripts/repro.sh

repro-all: web/dist/index.html
	./scripts/repro.sh dist

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
	rm -rf bin web/dist $(DIST)

print-ldflags:
	@echo '$(LDFLAGS)'

# print-VAR prints a variable (scripts/repro.sh reads the release's version and date).
print-%:
	@echo '$($*)'
