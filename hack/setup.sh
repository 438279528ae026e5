#!/usr/bin/env bash
# Installs every prerequisite of `make test` and `make demo` on a fresh machine, idempotently:
# Debian packages (chromium for the web view's browser tests among them), the project's Go
# modules, the pinned Go tools, the real kube-apiserver and etcd, source-controller and
# kustomize-controller (built
# from the Go module proxy, cached outside the checkout), the Flux CRDs and the official KCL
# engine used as a test oracle. Each step that has work to do prints one line with its
# duration (hack/step.sh); the tools' output goes to the log named in the first line. With
# everything cached it prints nothing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/step.sh"
cd "$here/.."
FKC_SETUP_RUN="$(mktemp -u)"
export FKC_SETUP_RUN
trap 'rm -f "$FKC_SETUP_RUN"' EXIT
start=$SECONDS

need_apt=()
command -v protoc >/dev/null 2>&1 || need_apt+=(protobuf-compiler)
command -v git >/dev/null 2>&1 || need_apt+=(git)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
# The web view's tests drive a real browser (cmd/flux-kcl-controller/ui).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  apt_install() {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
  }
  fkc_step "installing Debian packages (${need_apt[*]})" /usr apt_install
fi

# The packages of `make build`, `make test` and the demo; present when they list offline.
packages=(./... ./api/... ./kcl/... ./test/install/...)
if ! GOPROXY=off go list -deps -test "${packages[@]}" >/dev/null 2>&1; then
  go_download() { go list -deps -test "${packages[@]}" >/dev/null; }
  fkc_step "downloading the project's Go modules" "$(go env GOMODCACHE)" go_download
fi

"$here/tools.sh" >/dev/null
"$here/envtest/build.sh" >/dev/null # the longest step, kube-apiserver: usually 10–15 min on 2 cores
"$here/e2e/build.sh" >/dev/null
# test/e2e's ExternalArtifact test and make loadtest run Flux's own kustomize-controller.
"$here/loadtest/build.sh" >/dev/null
"$here/envtest/crds.sh" >/dev/null
oracle="${KCL_ORACLE_DIR:-$HOME/.cache/flux-kcl-controller/kcl-official}"
if [ -x kcl/hack/oracle.sh ] && [ ! -f "$oracle/node_modules/@kcl-lang/lib-linux-x64-gnu/package.json" ]; then
  fkc_step "installing the official KCL engine (the test oracle)" "$oracle" kcl/hack/oracle.sh
fi

if [ -e "$FKC_SETUP_RUN" ]; then
  printf 'one-time set-up done in %s; later runs reuse the cache.\n' "$(fkc_duration $((SECONDS - start)))" >&2
fi
