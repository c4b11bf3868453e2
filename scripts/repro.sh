#!/usr/bin/env bash
# Builds one release target twice with the flags `make dist` uses and fails
# unless the two binaries are byte for byte the same. The second build runs
# from a different output directory, in another time zone, with the source
# files' times changed, none of which may reach the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${REPRO_TARGET:-linux/amd64}
ldflags=$(make -s --no-print-directory print-ldflags)
a=$(mktemp -d /tmp/smriti-repro.XXXXXX)
b=$(mktemp -d /tmp/smriti-repro.XXXXXX)
trap 'rm -rf "$a" "$b"' EXIT
build() { CGO_ENABLED=0 GOOS=${target%/*} GOARCH=${target#*/} go build -trimpath -ldflags "$ldflags" -o "$1/smriti" ./cmd/smriti; }
start=$(date +%s)
build "$a"
touch cmd/smriti/main.go
TZ=Asia/Kolkata build "$b"
ha=$(sha256sum < "$a/smriti" | cut -d' ' -f1)
hb=$(sha256sum < "$b/smriti" | cut -d' ' -f1)
echo "repro $target: $ha / $hb in $(( $(date +%s) - start )) s"
if [ "$ha" != "$hb" ]; then
  echo "repro: the two builds of $target differ" >&2
  exit 1
fi
