#!/usr/bin/env bash
# Caches the Kustomization CRD of kustomize-controller v1.9.6, taken from its module zip in the
# Go module cache, for the side-by-side load test; prints the folder. Nothing is committed.
set -euo pipefail
module=github.com/fluxcd/kustomize-controller@v1.9.6
cache="${FKC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-kcl-controller}"
out="$cache/loadtest/crds-kustomize-controller-v1.9.6"
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
dir="$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$module" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
mkdir -p "$tmp/crds"
cp "$dir/config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml" "$tmp/crds/"
chmod u+w "$tmp"/crds/*.yaml # copies from the read-only module cache
mkdir -p "$(dirname "$out")"
rm -rf "$out"
mv "$tmp/crds" "$out"
touch "$out/.complete"
echo "$out"
