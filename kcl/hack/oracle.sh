#!/usr/bin/env bash
# Installs the official KCL engine (the npm add-on @kcl-lang/lib-linux-x64-gnu)
# into the user cache, outside the repository, for the differential test.
# Prints the node_modules directory that holds it.
#   KCL_ORACLE_DIR overrides the install directory.
set -euo pipefail
pkg="@kcl-lang/lib-linux-x64-gnu"
version="0.12.1"
dir="${KCL_ORACLE_DIR:-$HOME/.cache/flux-kcl-controller/kcl-official}"
if [ ! -f "$dir/node_modules/$pkg/package.json" ]; then
  command -v npm >/dev/null || { echo "oracle.sh: npm is not installed" >&2; exit 1; }
  mkdir -p "$dir"
  (cd "$dir" && npm install --no-audit --no-fund --silent "$pkg@$version" >&2)
fi
echo "$dir/node_modules"
