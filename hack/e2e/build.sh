#!/usr/bin/env bash
# Builds the real Flux source-controller v1.9.6 for the end-to-end suite from the Go module
# proxy, once, into a cache folder outside the checkout; prints the binary's path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version=v1.9.6
cache="${FKC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-kcl-controller}"
out="$cache/e2e/source-controller-$version"
if [ ! -x "$out" ]; then
  mkdir -p "$(dirname "$out")"
  echo "building source-controller $version into $out ..." >&2
  start=$SECONDS
  (cd "$here/source-controller" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go build -trimpath -ldflags "-s -w" -o "$out.tmp" github.com/fluxcd/source-controller)
  mv "$out.tmp" "$out"
  echo "built source-controller in $((SECONDS - start))s" >&2
fi
echo "$out"
