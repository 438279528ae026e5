#!/usr/bin/env bash
# Builds the real Flux kustomize-controller v1.9.6 from the Go module proxy, once, into a
# cache folder outside the checkout; prints the binary's path. The side-by-side load test
# and test/e2e's ExternalArtifact test run it; hack/setup.sh builds it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version=v1.9.6
. "$here/../step.sh"
out="$fkc_cache/loadtest/kustomize-controller-$version"
go_build() ( # a subshell, for its cd
  cd "$here/kustomize-controller" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go build -trimpath -ldflags "-s -w" -o "$out.tmp" github.com/fluxcd/kustomize-controller
)
mkdir -p "$(dirname "$out")"
# Concurrent callers: one builds, the others wait.
exec 9>"$out.lock"
flock 9
if [ ! -x "$out" ]; then
  fkc_step "building kustomize-controller $version from source" "$(dirname "$out")" go_build
  mv "$out.tmp" "$out"
fi
echo "$out"
