#!/usr/bin/env bash
# Builds the real Flux source-controller v1.9.6 for the end-to-end suite from the Go module
# proxy, once, into a cache folder outside the checkout; prints the binary's path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version=v1.9.6
. "$here/../step.sh"
out="$fkc_cache/e2e/source-controller-$version"
go_build() ( # a subshell, for its cd
  cd "$here/source-controller" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go build -trimpath -ldflags "-s -w" -o "$out.tmp" github.com/fluxcd/source-controller
)
mkdir -p "$(dirname "$out")"
# Test packages and worktrees may call this concurrently: one builds, the others wait.
exec 9>"$out.lock"
flock 9
if [ ! -x "$out" ]; then
  fkc_step "building source-controller $version from source" "$(dirname "$out")" go_build
  mv "$out.tmp" "$out"
fi
echo "$out"
