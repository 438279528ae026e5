#!/usr/bin/env bash
# Writes the pull-request comment of a KCL diff on stdout: every KCLRun that uses SOURCE
# (KIND/NAME in NAMESPACE, KCLRuns of any namespace) compiled from CHECKOUT, the pull
# request's head, at its own spec.path, and server-side dry-run against the cluster of
# $KUBECONFIG. Exits as flux-kcl-controller diff does: 0 no changes, 1 changes, 2 an error
# (a broken program's error is in the comment, with its file:line).
#
#   docs/ci/kcl-diff.sh GitRepository/fleet flux-system . > comment.md
set -uo pipefail
source_ref=${1:?usage: kcl-diff.sh KIND/NAME NAMESPACE CHECKOUT}
namespace=${2:?usage: kcl-diff.sh KIND/NAME NAMESPACE CHECKOUT}
checkout=${3:?usage: kcl-diff.sh KIND/NAME NAMESPACE CHECKOUT}
cli=${FLUX_KCL_CONTROLLER:-flux-kcl-controller}

"$cli" diff kclrun --all --source "$source_ref" -n "$namespace" -A \
  --path "$checkout" -o markdown
