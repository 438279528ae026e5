#!/usr/bin/env bash
# Installs the pinned Go tools into a cache folder outside the checkout and prints that folder.
# Each tool is installed once per version.
set -euo pipefail
cache="${FKC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-kcl-controller}"
bin="$cache/tools/bin"
mkdir -p "$bin"
install_tool() { # name module@version
  local name=$1 pkg=$2
  if [ -x "$bin/$name" ] && [ "$(cat "$bin/$name.version" 2>/dev/null)" = "$pkg" ]; then return 0; fi
  echo "installing $pkg" >&2
  GOWORK=off GOBIN="$bin" go install "$pkg"
  echo "$pkg" > "$bin/$name.version"
}
install_tool controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0
install_tool protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
install_tool protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
echo "$bin"
