# Sourced by the set-up scripts (hack/setup.sh, hack/tools.sh, hack/envtest/*.sh,
# hack/e2e/build.sh): each one-time step prints one line on stderr (what it does, where it
# caches, how long it took) and sends the tools' own output (`go: downloading …`, compiler
# and npm chatter) to one log file, named in the header line. Steps with nothing to do print
# nothing.
fkc_cache="${FKC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-kcl-controller}"
FKC_SETUP_LOG="${FKC_SETUP_LOG:-$fkc_cache/setup.log}"

# fkc_short PATH: PATH with $HOME written as ~, for lines people read.
fkc_short() { case "$1" in "$HOME"/*) printf '~/%s' "${1#"$HOME"/}" ;; *) printf '%s' "$1" ;; esac; }

# fkc_duration SECONDS: 7s, 3m05s.
fkc_duration() {
  if [ "$1" -lt 60 ]; then printf '%ds' "$1"; else printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); fi
}

# fkc_header: the line above the first step. hack/setup.sh exports FKC_SETUP_RUN (a file
# that exists once the header is out) so that the scripts it runs share one header.
fkc_header() {
  if [ -n "${FKC_SETUP_RUN:-}" ]; then
    [ -e "$FKC_SETUP_RUN" ] && return 0
    : >"$FKC_SETUP_RUN"
  elif [ -n "${fkc_header_done:-}" ]; then
    return 0
  fi
  fkc_header_done=1
  printf 'one-time set-up, cached in %s (tool output: %s):\n' \
    "$(fkc_short "$fkc_cache")" "$(fkc_short "$FKC_SETUP_LOG")" >&2
}

# fkc_step WHAT WHERE COMMAND [ARGS…]: runs COMMAND with its output in the log and prints
# "  WHAT, once, into WHERE ... 3m05s". On failure it prints the end of the log.
fkc_step() {
  local what=$1 where=$2
  shift 2
  mkdir -p "$(dirname "$FKC_SETUP_LOG")"
  fkc_header
  printf '  %s, once, into %s ...' "$what" "$(fkc_short "$where")" >&2
  printf '\n== %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$what" >>"$FKC_SETUP_LOG"
  local start=$SECONDS rc=0
  # In the background so that `set -e` holds inside COMMAND (it would not under `||`).
  "$@" >>"$FKC_SETUP_LOG" 2>&1 &
  wait $! || rc=$?
  if [ "$rc" = 0 ]; then
    printf ' %s\n' "$(fkc_duration $((SECONDS - start)))" >&2
    return 0
  fi
  printf ' failed after %s; the end of %s:\n' "$(fkc_duration $((SECONDS - start)))" "$(fkc_short "$FKC_SETUP_LOG")" >&2
  tail -n 20 "$FKC_SETUP_LOG" | sed 's/^/    /' >&2
  return "$rc"
}
