#!/usr/bin/env bash
# Benchmarks loopguard's reading of git history against git itself (issue 2):
#
#   scripts/bench-git.sh [REPO]
#
# Always runs on a generated history (scripts/gen-history.sh, 20,000 commits, made once
# under target/bench-git/). With REPO (a large real history: a bare git dir or a work
# tree; for instance `fetch github:rust-lang/cargo` gives /work/.mirror/rust-lang+cargo/repo),
# it also runs on a local `git clone` of it. For each history it prints the median time of
#
#   post-commit   `loopguard hook post-commit` on a new HEAD commit (state prepared so the
#                 parent is the last recorded iteration, as after a real commit) beside
#                 `git show HEAD | git patch-id --stable`             target: ratio <= 1.5
#   check         `loopguard check --range A..B` over ~4,000 commits beside
#                 `git log -p --no-merges A..B | git patch-id --stable` target: ratio < 1.0
#
# (wall: median; cpu: mean user+system, which is steadier on a busy machine) and the same
# two through the library alone (examples/evidence.rs: open the repository,
# read the evidence, print a count), which isolates src/git from the rest of the command.
#
# Then, on a clone of the generated history, what the hooks cost git (issue 9):
#
#   update-ref    `git update-ref` of a branch without the reference-transaction hook,
#                 and with it: on a ref loopguard does not guard, on a guarded branch with a
#                 closed breaker (both the shim's fast path: no breaker open anywhere), and
#                 on that branch while another branch's breaker is open (loopguard starts)
#   commit        `git commit` of one changed file with no hooks, with the shims of
#                 BASE_SHIM (default: the shim version before this one: v1, four hooks, no
#                 reference-transaction) and with today's shims (five hooks), all running
#                 this build of loopguard, the breaker closed        target: +5 ms at most
#
# Uses hyperfine when installed (apt-get install hyperfine), else a timed loop.
#
# Environment: RUNS (post-commit runs, default 20), RANGE_RUNS (default 5),
# RANGE_COMMITS (default 4000), HOOK_RUNS (default 40), BASE_SHIM (a revision of this
# repository), HOOKS_ONLY=1 (the hooks' figures alone), BENCH_DIR (default
# target/bench-git).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${RUNS:-20}
range_runs=${RANGE_RUNS:-5}
range_commits=${RANGE_COMMITS:-4000}
work=${BENCH_DIR:-$root/target/bench-git}
mkdir -p "$work"

echo "building (release)..." >&2
(cd "$root" && cargo build --release --quiet --bin loopguard --example evidence)
bin=$root/target/release/loopguard
lib=$root/target/release/examples/evidence
have_cli=0
if "$bin" check --help >/dev/null 2>&1 && "$bin" hook --help >/dev/null 2>&1; then
  have_cli=1
fi

# shellcheck source=scripts/bench-lib.sh
. "$root/scripts/bench-lib.sh"

# base_for COUNT: a first-parent ancestor of HEAD with about COUNT commits in BASE..HEAD.
base_for() {
  local want=$1
  local fp
  mapfile -t fp < <(git rev-list --first-parent HEAD)
  local lo=0 hi=$(( ${#fp[@]} - 1 )) mid n
  while (( lo < hi )); do
    mid=$(( (lo + hi) / 2 ))
    n=$(git rev-list --count "${fp[mid]}..HEAD")
    if (( n < want )); then lo=$(( mid + 1 )); else hi=$mid; fi
  done
  echo "${fp[lo]}"
}

row() {
  # row LABEL "GIT_WALL GIT_CPU" "OURS_WALL OURS_CPU" TARGET
  local g o
  read -r -a g <<<"$2"
  read -r -a o <<<"$3"
  awk -v l="$1" -v gw="${g[0]}" -v gc="${g[1]}" -v ow="${o[0]}" -v oc="${o[1]}" -v t="$4" 'BEGIN {
    cr = (gc > 0 && oc != "-") ? sprintf("%8.2f", oc / gc) : "       -"
    printf "  %-44s %9.1f %9.1f %6.2f   %7s %7s %s   %s\n", l, gw, ow, (gw > 0 ? ow / gw : 0), gc, oc, cr, t }'
}

bench() {
  local name=$1 repo=$2
  cd "$repo"
  local head tip parent base all nomerge common
  head=$(git rev-parse HEAD)
  # post-commit measures the newest non-merge commit that touches no protected path:
  # `git show` of a merge prints a combined diff that is usually empty, which would compare
  # unlike work, and a commit touching `.github/workflows/` trips `constraint`, which
  # measures the (rare) trip path with its report instead of the path every commit takes.
  tip=""
  for c in $(git rev-list --no-merges -n 200 HEAD); do
    if ! git diff-tree --no-commit-id --name-only -r "$c" | grep -qE '^(\.github/workflows/|\.loopguard\.yml$)'; then
      tip=$c
      break
    fi
  done
  [ -n "$tip" ] || tip=$(git rev-list --no-merges -n1 HEAD)
  parent=$(git rev-parse "$tip~1")
  base=$(base_for "$range_commits")
  all=$(git rev-list --count "$base..$head")
  nomerge=$(git rev-list --count --no-merges "$base..$head")
  common=$(git rev-parse --path-format=absolute --git-common-dir)

  echo
  echo "$name: $(git rev-list --count HEAD) commits; post-commit on $(git log -1 --format='%h %s' "$tip" | cut -c1-60)"
  printf '  %-44s %9s %9s %6s   %7s %7s %8s   %s\n' "" "git ms" "ours ms" "ratio" "git cpu" "our cpu" "cpu ratio" "target"

  local git_pc lib_pc
  git_pc=$(median_ms "$runs" "" "git show $tip | git patch-id --stable")
  if (( have_cli )); then
    local prepare="git reset -q --hard $parent && rm -rf '$common/loopguard' && '$bin' init --no-hooks >/dev/null 2>&1 && git merge -q --ff-only $tip"
    local bin_pc
    bin_pc=$(median_ms "$runs" "$prepare" "'$bin' hook post-commit")
    git reset -q --hard "$head"
    rm -rf "$common/loopguard"
    row "post-commit: loopguard hook post-commit" "$git_pc" "$bin_pc" "<= 1.5"
  fi
  lib_pc=$(median_ms "$runs" "" "'$lib' . head $tip")
  row "post-commit: library (evidence of HEAD)" "$git_pc" "$lib_pc" ""

  local git_rg lib_rg
  git_rg=$(median_ms "$range_runs" "" "git log -p --no-merges $base..$head | git patch-id --stable")
  if (( have_cli )); then
    local bin_rg
    bin_rg=$(median_ms "$range_runs" "" "'$bin' check --range $base..$head")
    row "check --range ($all commits, $nomerge non-merge)" "$git_rg" "$bin_rg" "< 1.0"
  fi
  lib_rg=$(median_ms "$range_runs" "" "'$lib' . range $base..$head")
  row "check: library (evidence of the range)" "$git_rg" "$lib_rg" ""
  cd - >/dev/null
}

# hooks_bench DIR: the cost of the hooks to git itself, in a clone of DIR.
hooks_bench() {
  local src=$1 repo=$work/hooks n=${HOOK_RUNS:-40}
  rm -rf "$repo"
  git clone -q "$src" "$repo"
  cd "$repo"
  git config user.name Bench
  git config user.email bench@example.com
  local common empty v1 v2 a b base_shim
  common=$(git rev-parse --path-format=absolute --git-common-dir)
  empty=$work/hooks-none
  v1=$work/hooks-base
  v2=$work/hooks-now
  rm -rf "$empty" "$v1" "$v2"
  mkdir -p "$empty" "$v1"
  a=$(git rev-parse HEAD~1)
  b=$(git rev-parse HEAD)
  # The shims of the version before this one (the parent of the commit that introduced the
  # current `loopguard-shim vN` line), pointed at this build.
  local version introduced
  version=$(grep -o 'loopguard-shim v[0-9]*' "$root/hooks/loopguard-shim" | head -n1)
  introduced=$(git -C "$root" log --format=%H -S"$version" -- hooks/loopguard-shim | tail -n1)
  base_shim=$(git -C "$root" rev-parse --short "${BASE_SHIM:-$introduced~1}")
  local h
  for h in post-commit post-rewrite pre-commit pre-push; do
    git -C "$root" show "$base_shim:hooks/loopguard-shim" | sed "s|@LOOPGUARD@|$bin|" >"$v1/$h"
    chmod +x "$v1/$h"
  done
  git config core.hooksPath "$v2"
  "$bin" init >/dev/null 2>&1
  git config --unset core.hooksPath
  echo
  echo "hooks: a clone of $(basename "$src") ($(git rev-list --count HEAD) commits)"
  printf '  %-44s %9s %9s %6s   %7s %7s %8s   %s\n' "" "base ms" "hook ms" "ratio" "base cpu" "our cpu" "cpu ratio" "target"
  local reset="git -c core.hooksPath=$empty update-ref"
  local plain ours
  plain=$(median_ms "$n" "$reset refs/heads/free $a" "git -c core.hooksPath=$empty update-ref refs/heads/free $b")
  ours=$(median_ms "$n" "$reset refs/heads/free $a" "git -c core.hooksPath=$v2 update-ref refs/heads/free $b")
  row "update-ref, a branch it does not guard" "$plain" "$ours" ""
  plain=$(median_ms "$n" "$reset refs/heads/main $a" "git -c core.hooksPath=$empty update-ref refs/heads/main $b")
  ours=$(median_ms "$n" "$reset refs/heads/main $a" "git -c core.hooksPath=$v2 update-ref refs/heads/main $b")
  row "update-ref, guarded branch, breaker closed" "$plain" "$ours" ""

  # Another branch whose breaker is open (three empty commits recorded): loopguard starts.
  git -c core.hooksPath="$empty" checkout -q -b stuck
  "$bin" init --no-hooks >/dev/null 2>&1
  for h in 1 2 3; do
    git -c core.hooksPath="$empty" commit -q --allow-empty -m "nothing $h"
    "$bin" hook post-commit >/dev/null 2>&1
  done
  if ! "$bin" status --exit-code >/dev/null 2>&1; then
    git -c core.hooksPath="$empty" checkout -q main
    ours=$(median_ms "$n" "$reset refs/heads/main $a" "git -c core.hooksPath=$v2 update-ref refs/heads/main $b")
    row "  the same while another breaker is open" "$plain" "$ours" ""
  else
    git -c core.hooksPath="$empty" checkout -q main
    echo "  (the stuck branch did not trip: no figure while a breaker is open)"
  fi
  rm -rf "$common/loopguard/runs" "$common/loopguard/events" "$common/loopguard/open"

  # A commit of one changed file on main, its run fresh and closed each time.
  local prepare="git -c core.hooksPath=$empty reset -q --hard $b && rm -rf '$common/loopguard/runs' '$common/loopguard/events' && '$bin' init --no-hooks >/dev/null 2>&1 && date +%s%N >bench.txt && git add bench.txt"
  local none base now
  none=$(median_ms "$n" "$prepare" "git -c core.hooksPath=$empty commit -q -m bench")
  base=$(median_ms "$n" "$prepare" "git -c core.hooksPath=$v1 commit -q -m bench")
  now=$(median_ms "$n" "$prepare" "git -c core.hooksPath=$v2 commit -q -m bench")
  row "commit: no hooks / shims of $base_shim" "$none" "$base" ""
  row "commit: shims of $base_shim / today's" "$base" "$now" "+5 ms"
  awk -v b="${base%% *}" -v n="${now%% *}" 'BEGIN { printf "  a commit costs %+.1f ms more with today'"'"'s hooks (target: at most +5 ms)\n", n - b }'
  git -c core.hooksPath="$empty" reset -q --hard "$b"
  cd - >/dev/null
}

generated=$work/generated
if [ ! -f "$generated/.complete" ]; then
  rm -rf "$generated"
  "$root/scripts/gen-history.sh" "$generated" 20000 300
  touch "$generated/.complete"
fi

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); git $(git --version | cut -d' ' -f3);" \
  "$(command -v hyperfine >/dev/null && echo hyperfine || echo 'timed loop')"
if (( ! have_cli )); then
  echo "note: $bin has no 'check'/'hook' yet: library figures only"
fi
if [ "${HOOKS_ONLY:-0}" != 1 ]; then
  bench "generated" "$generated"
fi
if (( have_cli )); then
  hooks_bench "$generated"
fi
if [ "${HOOKS_ONLY:-0}" = 1 ]; then
  exit 0
fi

if [ $# -ge 1 ]; then
  src=$1
  real=$work/real-$(basename "$(cd "$src" && pwd)" .git)
  [ "$(basename "$real")" = "real-repo" ] && real=$work/real-$(basename "$(dirname "$(cd "$src" && pwd)")")
  if [ ! -d "$real/.git" ]; then
    rm -rf "$real"
    git clone -q "$src" "$real"
  fi
  bench "$(basename "$real" | sed 's/^real-//')" "$real"
fi
