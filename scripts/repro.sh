#!/usr/bin/env bash
# Checks that one commit builds the same bytes.
#
#   scripts/repro.sh        builds one release target (REPRO_TARGET, default
#                           linux/amd64, API only) twice with the flags
#                           `make dist` uses and compares the two binaries.
#   scripts/repro.sh dist   runs `make dist` twice and compares every archive
#                           and SHA256SUMS byte for byte (`make repro-all`).
#
# The second build runs from a different output directory, in another time
# zone, with the source files' times changed, none of which may reach the
# output. In dist mode it also runs from a copy of the tree at another path
# (so -trimpath is exercised), builds the web workspace again in that copy,
# and runs under umask 077 (the archives must still carry fixed modes).
# REPRO_GOCACHE=fresh gives the second build an empty build cache, so every
# package is compiled again rather than taken from the first build's cache.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-binary}
a=$(mktemp -d /tmp/smriti-repro.XXXXXX)
b=$(mktemp -d /tmp/smriti-repro.XXXXXX)
trap 'chmod -R u+w "$a" "$b" 2>/dev/null; rm -rf "$a" "$b"' EXIT
second_env=(TZ=Asia/Kolkata)
if [ "${REPRO_GOCACHE:-}" = fresh ]; then
  second_env+=(GOCACHE="$b/gocache")
fi
start=$(date +%s)

if [ "$mode" = binary ]; then
  target=${REPRO_TARGET:-linux/amd64}
  ldflags=$(make -s --no-print-directory print-ldflags)
  build() {
    env "${@:2}" CGO_ENABLED=0 GOOS=${target%/*} GOARCH=${target#*/} GOFLAGS=-buildvcs=false GOAMD64=v1 GOARM64=v8.0 \
      go build -trimpath -ldflags "$ldflags" -o "$1/smriti" ./cmd/smriti
  }
  build "$a"
  touch cmd/smriti/main.go
  build "$b" "${second_env[@]}"
  ha=$(sha256sum < "$a/smriti" | cut -d' ' -f1)
  hb=$(sha256sum < "$b/smriti" | cut -d' ' -f1)
  echo "repro $target: $ha / $hb in $(( $(date +%s) - start )) s"
  if [ "$ha" != "$hb" ]; then
    echo "repro: the two builds of $target differ" >&2
    exit 1
  fi
  exit 0
fi
if [ "$mode" != dist ]; then
  echo "usage: $0 [dist]" >&2
  exit 2
fi

# The release's identity comes from this tree's git state; the copy has no
# .git, so both builds are given the same values.
vars=()
for v in VERSION COMMIT DATE SOURCE_DATE_EPOCH; do
  vars+=("$v=$(make -s --no-print-directory "print-$v")")
done
echo "repro dist: ${vars[*]}"

make --no-print-directory dist "${vars[@]}" DIST="$a/dist" DIST_BIN="$a/bin"
mid=$(date +%s)

# The copy: tracked and untracked files, not what is ignored (node_modules,
# web/dist, bin, dist); every file gets the time of the copy.
mkdir "$b/src"
git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - --no-recursion | tar -xmf - -C "$b/src"
ln -s "$PWD/web/node_modules" "$b/src/web/node_modules"
(
  cd "$b/src"
  umask 077
  export "${second_env[@]}"
  w=$(date +%s)
  (cd web && npm run build >/dev/null)
  echo "repro dist: web workspace built again in the copy in $(( $(date +%s) - w )) s"
  # web/dist was just built; -o keeps make from rebuilding it against the
  # copied node_modules time stamp.
  make --no-print-directory -o web/dist/index.html dist "${vars[@]}" DIST="$b/dist" DIST_BIN="$b/bin"
)
end=$(date +%s)

la=$(cd "$a/dist" && ls)
lb=$(cd "$b/dist" && ls)
if [ "$la" != "$lb" ]; then
  printf 'repro: the two builds wrote different files:\n%s\n--\n%s\n' "$la" "$lb" >&2
  exit 1
fi
fail=0
for f in $la; do
  if ! cmp -s "$a/dist/$f" "$b/dist/$f"; then
    echo "repro: $f differs" >&2
    fail=1
  fi
done
if ! diff -r "$PWD/web/dist" "$b/src/web/dist" >/dev/null; then
  echo "repro: the web workspace built in the copy differs from web/dist" >&2
  fail=1
fi
[ "$fail" = 0 ] || exit 1
echo "repro dist: $(echo "$la" | wc -l) files identical; first build $(( mid - start )) s, second $(( end - mid )) s"
(cd "$a/dist" && for f in $la; do printf '%10d  %s\n' "$(stat -c %s "$f")" "$f"; done)
cat "$a/dist/SHA256SUMS"
