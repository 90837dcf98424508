#!/usr/bin/env bash
# Judges windows of consecutive commits of a real history with `loopguard check` and the
# default config (or --config FILE), and counts the windows that trip. Good human history
# is not a loop: on a healthy project almost no window should trip.
#
#   scripts/check-windows.sh REPO [WINDOWS [SIZE]] [-- CHECK-ARGS...]
#
# e.g. ripgrep: fetch or clone BurntSushi/ripgrep, then
#   scripts/check-windows.sh ~/src/ripgrep 60 20
# The windows are spread evenly over the first-parent history of HEAD; each is judged as
# `check --range <first>~1..<last>`. Needs a built binary (LOOPGUARD, default
# target/release/loopguard, else target/debug/loopguard).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:?usage: check-windows.sh REPO [WINDOWS [SIZE]] [-- CHECK-ARGS...]}
shift
windows=${1:-60}
[[ $# -gt 0 && $1 != -- ]] && shift
size=${1:-20}
[[ $# -gt 0 && $1 != -- ]] && shift
[[ ${1:-} == -- ]] && shift
extra=("$@")

bin=${LOOPGUARD:-}
if [[ -z $bin ]]; then
    for b in "$root/target/release/loopguard" "$root/target/debug/loopguard"; do
        [[ -x $b ]] && bin=$b && break
    done
fi
[[ -x ${bin:-} ]] || { echo "no loopguard binary: cargo build first, or set LOOPGUARD" >&2; exit 2; }

mapfile -t commits < <(git -C "$repo" rev-list --first-parent --reverse HEAD)
total=${#commits[@]}
(( total > size + 1 )) || { echo "$repo: only $total commits" >&2; exit 2; }
step=$(( (total - size - 1) / windows ))
(( step >= 1 )) || step=1

tripped=0
judged=0
declare -A rules=()
for (( w = 0; w < windows; w++ )); do
    start=$(( 1 + w * step ))
    end=$(( start + size - 1 ))
    (( end < total )) || break
    range="${commits[$((start - 1))]}..${commits[$end]}"
    doc=$("$bin" -C "$repo" check --range "$range" --json "${extra[@]}" 2>/dev/null) || true
    verdict=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
first = next((e for e in d.get("events", []) if e["kind"] in ("trip", "reopen")), None)
print("ok" if first is None else "%s\t%s" % (first["rule"], first["reason"]))
' <<<"$doc")
    judged=$(( judged + 1 ))
    if [[ $verdict != ok ]]; then
        tripped=$(( tripped + 1 ))
        rule=${verdict%%$'\t'*}
        rules[$rule]=$(( ${rules[$rule]:-0} + 1 ))
        printf 'window %2d (%s): %s\n' "$w" "${range:0:7}..${commits[$end]:0:7}" "${verdict//$'\t'/: }"
    fi
done
printf '%s: %d windows of %d commits judged, %d tripped' "$(basename "$repo")" "$judged" "$size" "$tripped"
for r in "${!rules[@]}"; do printf ' (%s %d)' "$r" "${rules[$r]}"; done
printf '\n'
