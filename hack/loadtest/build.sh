#!/usr/bin/env bash
# Builds the real Flux kustomize-controller v1.9.6 for the side-by-side load test from the Go
# module proxy, once, into a cache folder outside the checkout; prints the binary's path.
# Not part of make setup or make test: only make loadtest needs it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version=v1.9.6
cache="${FKC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-kcl-controller}"
out="$cache/loadtest/kustomize-controller-$version"
mkdir -p "$(dirname "$out")"
# Concurrent callers: one builds, the others wait.
exec 9>"$out.lock"
flock 9
if [ ! -x "$out" ]; then
  echo "building kustomize-controller $version into $out (takes a while) ..." >&2
  start=$SECONDS
  (cd "$here/kustomize-controller" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go build -trimpath -ldflags "-s -w" -o "$out.tmp" github.com/fluxcd/kustomize-controller)
  mv "$out.tmp" "$out"
  echo "built kustomize-controller in $((SECONDS - start))s" >&2
fi
echo "$out"
