#!/usr/bin/env bash
# Builds the real kube-apiserver and etcd used by the test harness from the Go module proxy,
# once, into a cache folder outside the checkout keyed by version. Prints the folder (for
# KUBEBUILDER_ASSETS). Re-running with the binaries present does nothing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s_version=v1.37.2
etcd_version=v3.6.16
cache="${FKC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-kcl-controller}"
out="$cache/envtest/$k8s_version"
mkdir -p "$out"
# Test packages may call this concurrently: one builds, the others wait and reuse it.
exec 9>"$out/.lock"
flock 9

build() { # name dir pkg ldflags
  local name=$1 dir=$2 pkg=$3 ldflags=$4
  if [ -x "$out/$name" ] && [ -f "$out/$name.stamp" ] && [ "$(cat "$out/$name.stamp")" = "$pkg $ldflags" ]; then
    return 0
  fi
  echo "building $name ($pkg) into $out ..." >&2
  local start=$SECONDS
  (cd "$here/$dir" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go build -trimpath -ldflags "$ldflags" -o "$out/$name.tmp" "$pkg")
  mv "$out/$name.tmp" "$out/$name"
  echo "$pkg $ldflags" > "$out/$name.stamp"
  echo "built $name in $((SECONDS - start))s" >&2
}

vpkg=k8s.io/component-base/version
build kube-apiserver kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver \
  "-s -w -X $vpkg.gitVersion=$k8s_version -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=37 -X $vpkg.gitTreeState=clean"
build etcd etcd go.etcd.io/etcd/server/v3 "-s -w"
echo "$out"
