#!/usr/bin/env bash
# Fills a cache folder, keyed by versions, with the CRDs the test harness installs besides our
# own (deploy/crd/): Flux source v1 kinds, taken from the source-controller module zip in the
# Go module cache, and ImagePolicy v1, generated with controller-gen from the
# image-reflector-controller API module. Prints the folder. Nothing here is committed: the
# YAML is downloaded or generated on demand.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_controller=github.com/fluxcd/source-controller@v1.9.6
image_reflector_api=github.com/fluxcd/image-reflector-controller/api@v1.2.5
. "$here/../step.sh"
out="$fkc_cache/crds/source-controller-v1.9.6_image-reflector-api-v1.2.5"
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi
mkdir -p "$(dirname "$out")"
# Concurrent callers (test packages starting together) wait for one to fill the cache.
exec 9>"$out.lock"
flock 9
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/crds"

# fill copies and generates the CRDs into $tmp/crds (its output goes to the set-up log).
fill() {
  module_dir() { # module@version -> directory in the module cache
    (cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$1") |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
  }

  # Flux sources: only the kinds a KCLRun may reference.
  src="$(module_dir "$source_controller")"
  for kind in gitrepositories ocirepositories buckets externalartifacts; do
    cp "$src/config/crd/bases/source.toolkit.fluxcd.io_$kind.yaml" "$tmp/crds/"
  done

  # ImagePolicy: the module cache is read-only, so generate from a writable copy; only the v1
  # package, so the CRD serves (and stores) v1 alone.
  api="$(module_dir "$image_reflector_api")"
  cp -r "$api" "$tmp/image-api"
  chmod -R u+w "$tmp/image-api"
  controller_gen="$("$here/../tools.sh")/controller-gen"
  (cd "$tmp/image-api" && GOWORK=off GOFLAGS=-mod=mod go mod download &&
    GOWORK=off GOFLAGS=-mod=mod "$controller_gen" crd paths=./v1 output:crd:dir="$tmp/gen")
  cp "$tmp/gen/image.toolkit.fluxcd.io_imagepolicies.yaml" "$tmp/crds/"
  chmod u+w "$tmp"/crds/*.yaml # copies from the read-only module cache
}
fkc_step "collecting the Flux source and ImagePolicy CRDs" "$(dirname "$out")" fill

rm -rf "$out"
mv "$tmp/crds" "$out"
touch "$out/.complete"
echo "$out"
