#!/usr/bin/env bash
# Times the engine and the official engine side by side on the same programs,
# in one run: the real-like programs of kcl/testdata/real_like; when
# KCL_K8S_MODULE names the k8s 1.29 folder of kcl-lang/modules, the
# k8s-importing program of kcl/testdata/k8s_programs; when KCL_REAL_PROGRAMS
# names a directory laid out as kcl/realprograms.Public describes, the public
# ones. Prints, for both engines, wall and CPU (user+system) ms per warm run
# and their ratios, and the engine's allocations per run. Ours is a warm
# kcl.Run as the compiler service makes it (parse and check caches of the
# process warm); the official one execProgram called again and again in one
# node process. On a busy shared machine the CPU ratio is the steadier one.
#   KCL_BENCH_RUNS  runs of the official engine per program (default 20)
# The static pass's share of a warm compile (with and without it, in turns):
#   KCL_K8S_MODULE=DIR go test ./eval -run '^$' -bench K8sStaticPass -benchtime 300x
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export KCL_OFFICIAL_NODE_MODULES="${KCL_OFFICIAL_NODE_MODULES:-$("$here/oracle.sh")}"
cd "$here/.."
KCL_BENCH_SIDE_BY_SIDE=1 go test -p 1 -count=1 -run '^TestSideBySide$' -v ./realprograms |
  sed -n '/TestSideBySide/,$p'
