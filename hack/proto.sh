#!/usr/bin/env bash
# Regenerates the Go code of the gRPC contracts in proto/ (committed next to the
# .proto files). With --check it generates into a temporary folder instead and fails
# when the committed code is stale.
#
# Needs protoc (Debian: apt-get install -y protobuf-compiler) and the plugins pinned
# in hack/tools.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
check=false
[ "${1:-}" = "--check" ] && check=true

command -v protoc >/dev/null || { echo "protoc not found: apt-get install -y protobuf-compiler" >&2; exit 2; }
bin="$("$root/hack/tools.sh")"
export PATH="$bin:$PATH"

out="$root/proto"
if $check; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi

cd "$root/proto"
mapfile -t files < <(find . -name '*.proto' -printf '%P\n' | sort)
protoc -I . \
  --go_out="$out" --go_opt=paths=source_relative \
  --go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
  "${files[@]}"

if $check; then
  stale=0
  while IFS= read -r f; do
    if ! cmp -s "$out/$f" "$root/proto/$f"; then echo "stale: proto/$f" >&2; stale=1; fi
  done < <(cd "$out" && find . -name '*.go' -printf '%P\n' | sort)
  # Generated files whose .proto is gone are stale too.
  while IFS= read -r f; do
    [ -e "$out/$f" ] || { echo "orphan: proto/$f" >&2; stale=1; }
  done < <(find . -name '*.pb.go' -printf '%P\n' | sort)
  [ $stale = 0 ] || { echo "run hack/proto.sh to regenerate" >&2; exit 1; }
  echo "generated code is up to date"
fi
