#!/usr/bin/env bash
# Installs the pinned Go tools into a cache folder outside the checkout and prints that folder.
# Each tool is installed once per version.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/step.sh"
bin="$fkc_cache/tools/bin"
mkdir -p "$bin"
install_tool() { # name module@version
  local name=$1 pkg=$2
  if [ -x "$bin/$name" ] && [ "$(cat "$bin/$name.version" 2>/dev/null)" = "$pkg" ]; then return 0; fi
  fkc_step "installing $name ${pkg##*@}" "$bin" env GOWORK=off GOBIN="$bin" go install "$pkg"
  echo "$pkg" > "$bin/$name.version"
}
install_tool controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0
install_tool protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
install_tool protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
echo "$bin"
