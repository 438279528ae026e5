#!/usr/bin/env bash
# Installs every prerequisite of `make test` and `make demo` on a fresh machine, idempotently:
# Debian packages, the pinned Go tools, the real kube-apiserver and etcd (built from the Go
# module proxy, cached outside the checkout) and the official KCL engine used as a test oracle.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

need_apt=()
command -v protoc >/dev/null 2>&1 || need_apt+=(protobuf-compiler)
command -v git >/dev/null 2>&1 || need_apt+=(git)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  echo "installing Debian packages: ${need_apt[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

"$here/tools.sh" >/dev/null
"$here/envtest/build.sh" >/dev/null
"$here/e2e/build.sh" >/dev/null
if [ -x "$here/envtest/crds.sh" ]; then "$here/envtest/crds.sh" >/dev/null; fi
if [ -x "$here/../kcl/hack/oracle.sh" ]; then "$here/../kcl/hack/oracle.sh" >/dev/null; fi
