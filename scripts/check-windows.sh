#!/usr/bin/env bash
# Judges windows of consecutive first-parent commits of a real history with `loopguard
# check` and the default config (or CHECK-ARGS such as `--config FILE`), and prints which
# windows trip and a table of trips by rule. Good human history is not a loop: on a healthy
# project almost no window should trip (the target: at most 1 in 60).
#
#   scripts/check-windows.sh REPO [WINDOWS [SIZE]] [--agent-only [REGEX]] [-- CHECK-ARGS...]
#
# e.g. fetch or clone BurntSushi/ripgrep, then
#   scripts/check-windows.sh ~/src/ripgrep 60 20
#
# The windows are spread evenly over the first-parent history of HEAD; each is judged as
# `check --range <before first>..<last>`. With --agent-only, a window is SIZE consecutive
# first-parent commits an agent made or co-authored (REGEX, case-insensitive, over the
# author and the Co-authored-by trailers; default: the agent identities loopguard knows),
# and the range runs from the commit before the first to the last: the commits of people in
# between are in it, as context. VERBOSE=1 prints the warnings too. Needs a built binary
# (LOOPGUARD, default target/release/loopguard, else target/debug/loopguard).
set -euo pipefail

usage="usage: check-windows.sh REPO [WINDOWS [SIZE]] [--agent-only [REGEX]] [-- CHECK-ARGS...]"
root=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:?$usage}
shift
windows=60
size=20
agents=""
extra=()
positional=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --agent-only)
            agents='copilot-swe-agent\[bot\]|\+copilot@users\.noreply\.github\.com|copilot@github\.com|copilot <|chatgpt-codex-connector|codex@openai\.com|noreply@anthropic\.com|claude@anthropic\.com|devin-ai-integration|openhands@all-hands\.dev|google-labs-jules|cursoragent@cursor\.com|open-swe'
            if [[ $# -gt 1 && $2 != -* && ! $2 =~ ^[0-9]+$ ]]; then
                agents=$2
                shift
            fi
            ;;
        --)
            shift
            extra=("$@")
            break
            ;;
        *)
            [[ $1 =~ ^[0-9]+$ ]] || { echo "$usage" >&2; exit 2; }
            if (( positional == 0 )); then windows=$1; else size=$1; fi
            positional=$(( positional + 1 ))
            ;;
    esac
    shift
done

bin=${LOOPGUARD:-}
if [[ -z $bin ]]; then
    for b in "$root/target/release/loopguard" "$root/target/debug/loopguard"; do
        [[ -x $b ]] && bin=$b && break
    done
fi
[[ -x ${bin:-} ]] || { echo "no loopguard binary: cargo build first, or set LOOPGUARD" >&2; exit 2; }

mapfile -t commits < <(git -C "$repo" rev-list --first-parent --reverse HEAD)
# The commits a window is made of: all of them, or the agent's.
if [[ -n $agents ]]; then
    mapfile -t picked < <(
        git -C "$repo" log --first-parent --reverse \
            --format='%H%x09%an <%ae>%x09%(trailers:key=Co-authored-by,valueonly,separator=%x20)' HEAD |
            grep -iE "$(printf '\t')[^$(printf '\t')]*(${agents})" | cut -f1 || true
    )
else
    picked=("${commits[@]}")
fi
declare -A parent_of=()
for (( i = 1; i < ${#commits[@]}; i++ )); do
    parent_of[${commits[$i]}]=${commits[$((i - 1))]}
done
# A window starts after a commit: the root has none before it.
mapfile -t picked < <(for c in "${picked[@]}"; do [[ -n ${parent_of[$c]:-} ]] && echo "$c"; done)
total=${#picked[@]}
(( total >= size )) || { echo "$(basename "$repo"): only $total commits to pick from" >&2; exit 2; }
step=$(( (total - size) / windows ))
(( step >= 1 )) || step=1

tripped=0
judged=0
failed=0
warned=0
declare -A rules=()
for (( w = 0; w < windows; w++ )); do
    start=$(( w * step ))
    end=$(( start + size - 1 ))
    (( end < total )) || break
    first=${picked[$start]}
    before=${parent_of[$first]:-}
    [[ -n $before ]] || continue
    range="$before..${picked[$end]}"
    if ! doc=$("$bin" -C "$repo" check --range "$range" --json "${extra[@]}" 2>/tmp/check-windows.$$); then
        # Exit 1 is a trip; anything else is a failure to judge.
        if [[ -z $doc ]]; then
            failed=$(( failed + 1 ))
            printf 'window %2d (%s): not judged: %s\n' "$w" "${range:0:7}..${picked[$end]:0:7}" \
                "$(head -c 300 /tmp/check-windows.$$)"
            continue
        fi
    fi
    verdict=$(python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
events = d.get("events", [])
first = next((e for e in events if e["kind"] in ("trip", "reopen")), None)
warns = [e for e in events if e["kind"] == "warn"]
if os.environ.get("VERBOSE"):
    for e in warns:
        print("  warns: %s: %s" % (e["rule"], e["reason"][:300]), file=sys.stderr)
print("%d\t%s" % (len(warns), "ok" if first is None else "%s\t%s" % (first["rule"], first["reason"])))
' <<<"$doc")
    judged=$(( judged + 1 ))
    warns=${verdict%%$'\t'*}
    verdict=${verdict#*$'\t'}
    (( warns > 0 )) && warned=$(( warned + 1 ))
    if [[ $verdict != ok ]]; then
        tripped=$(( tripped + 1 ))
        rule=${verdict%%$'\t'*}
        rules[$rule]=$(( ${rules[$rule]:-0} + 1 ))
        printf 'window %2d (%s): %s\n' "$w" "${range:0:7}..${picked[$end]:0:7}" "${verdict//$'\t'/: }"
    fi
done
rm -f /tmp/check-windows.$$
by_rule=""
for r in $(printf '%s\n' "${!rules[@]}" | sort); do
    by_rule+="${by_rule:+, }$r ${rules[$r]}"
done
what="windows of $size commits"
[[ -n $agents ]] && what="windows of $size agent commits"
printf '%s: %d %s judged, %d tripped (%s), %d with warnings%s\n' "$(basename "$repo")" \
    "$judged" "$what" "$tripped" "${by_rule:-none}" "$warned" \
    "$( (( failed > 0 )) && printf ', %d not judged' "$failed")"
printf '| history | windows that trip | by rule | windows with warnings |\n|---|---:|---|---:|\n'
printf '| %s%s | %d / %d | %s | %d |\n' "$(basename "$repo")" "$([[ -n $agents ]] && printf ', agent commits only')" \
    "$tripped" "$judged" "${by_rule:--}" "$warned"
