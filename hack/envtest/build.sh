#!/usr/bin/env bash
# Builds the real kube-apiserver and etcd used by the test harness from the Go module proxy,
# once, into a cache folder outside the checkout keyed by version. Prints the folder (for
# KUBEBUILDER_ASSETS). Re-running with the binaries present does nothing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s_version=v1.37.2
etcd_version=v3.6.16
. "$here/../step.sh"
out="$fkc_cache/envtest/$k8s_version"
mkdir -p "$out"
# Test packages may call this concurrently: one builds, the others wait and reuse it.
exec 9>"$out/.lock"
flock 9

go_build() ( # dir pkg ldflags output: a subshell, for its cd
  cd "$here/$1" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go build -trimpath -ldflags "$3" -o "$4" "$2"
)

build() { # name version dir pkg ldflags [how long it usually takes]
  local name=$1 version=$2 dir=$3 pkg=$4 ldflags=$5 takes=${6:+ (${6})}
  if [ -x "$out/$name" ] && [ -f "$out/$name.stamp" ] && [ "$(cat "$out/$name.stamp")" = "$pkg $ldflags" ]; then
    return 0
  fi
  fkc_step "building $name $version from source$takes" "$out" go_build "$dir" "$pkg" "$ldflags" "$out/$name.tmp"
  mv "$out/$name.tmp" "$out/$name"
  echo "$pkg $ldflags" > "$out/$name.stamp"
}

vpkg=k8s.io/component-base/version
# The set-up's longest step: 14m39s user + 5m15s sys CPU with etcd, about 10 min wall on an
# idle 2-core machine (docs/performance.md, "The one-time set-up").
build kube-apiserver "$k8s_version" kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver \
  "-s -w -X $vpkg.gitVersion=$k8s_version -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=37 -X $vpkg.gitTreeState=clean" \
  "the longest step: usually 10–15 min on 2 cores"
build etcd "$etcd_version" etcd go.etcd.io/etcd/server/v3 "-s -w"
echo "$out"
