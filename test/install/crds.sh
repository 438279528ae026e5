#!/usr/bin/env bash
# Fills a cache folder with the CRDs the install tests need besides the harness's: Alert and
# Receiver (notification-controller API v1.9.4, Flux's own kind enum) and HelmRelease
# (helm-controller API v1.6.5, helm.toolkit.fluxcd.io/v2), generated with controller-gen from
# the API modules in the Go module cache. Prints the folder. Nothing here is committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
notification_api=github.com/fluxcd/notification-controller/api@v1.9.4
helm_api=github.com/fluxcd/helm-controller/api@v1.6.5
cache="${FKC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-kcl-controller}"
out="$cache/crds/notification-api-v1.9.4_helm-api-v1.6.5"
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi
mkdir -p "$(dirname "$out")"
exec 9>"$out.lock"
flock 9
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/crds"
controller_gen="$("$here/../../hack/tools.sh")/controller-gen"

# generate module@version packages: controller-gen on a writable copy of the module.
generate() {
  local module=$1 paths=$2 dir
  dir="$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$module" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  local copy="$tmp/src-${module//[\/@]/_}"
  cp -r "$dir" "$copy"
  chmod -R u+w "$copy"
  (cd "$copy" && GOWORK=off GOFLAGS=-mod=mod go mod download &&
    GOWORK=off GOFLAGS=-mod=mod "$controller_gen" crd paths="$paths" output:crd:dir="$tmp/gen")
}

# The versions Flux serves: Alert v1beta3, Receiver v1, HelmRelease v2.
generate "$notification_api" "./v1;./v1beta3"
generate "$helm_api" "./v2"
for f in notification.toolkit.fluxcd.io_alerts notification.toolkit.fluxcd.io_receivers \
  helm.toolkit.fluxcd.io_helmreleases; do
  cp "$tmp/gen/$f.yaml" "$tmp/crds/"
done

rm -rf "$out"
mv "$tmp/crds" "$out"
touch "$out/.complete"
echo "$out"
