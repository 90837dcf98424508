#!/usr/bin/env bash
# Benchmarks what the local guard costs per git operation over a run's state (issue 9: the
# pinned config, the journal, the catch-up):
#
#   scripts/bench-hooks.sh [BIN...]
#
# Without BIN, builds and measures target/release/loopguard; with several, measures each on
# the same repository (e.g. the binary of an earlier commit beside this one). For each, a
# repository with a run of ITERATIONS (default 40) commits recorded by the hooks, then the
# median wall time (and mean CPU time with hyperfine) of RUNS (default 30) runs of
#
#   post-commit   `loopguard hook post-commit` on a new commit whose parent is the last
#                 recorded one: the path every commit takes (state restored before each)
#   pre-commit    `loopguard hook pre-commit`: read the run, gate
#   status        `loopguard status --json`
#   catch-up      `loopguard hook post-commit` after CATCHUP (default 200) commits made with
#                 the hooks off: every one is read and recorded (binaries before issue 9
#                 recorded HEAD alone past 50, so theirs is not the same work)
#   commit        what the hooks cost a commit: ROUNDS (default 5) alternating rounds of
#                 COMMITS (default 30) `git commit`s of a new file each, with the hooks
#                 `loopguard init` installs (that binary's own shims) and with no hooks at all
#                 (an empty hooks directory); the median per commit of each, and their ratio
#                 (issue 16's target: at most 2)
#
# The repository's config raises the budget so that no rule trips: what is measured is the
# path of a commit, not of a trip (its report and per-iteration artifacts).
#
# Uses hyperfine when installed (apt-get install hyperfine), else a timed loop.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${RUNS:-30}
iterations=${ITERATIONS:-40}
catchup=${CATCHUP:-200}
bins=()
for bin in "$@"; do
  # Absolute: the measurements run inside the repositories they make.
  bins+=("$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")")
done
if [ ${#bins[@]} -eq 0 ]; then
  echo "building (release)..." >&2
  (cd "$root" && cargo build --release --quiet --bin loopguard)
  bins=("$root/target/release/loopguard")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/loopguard-bench-hooks.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home XDG_CONFIG_HOME=$work/home
export GIT_AUTHOR_NAME=Agent GIT_AUTHOR_EMAIL=agent@example.com
export GIT_COMMITTER_NAME=Agent GIT_COMMITTER_EMAIL=agent@example.com
mkdir -p "$work/home"

# shellcheck source=scripts/bench-lib.sh
. "$root/scripts/bench-lib.sh"

# A repository whose run has $iterations recorded commits (hooks run by `bin`), and its
# state saved aside; then one more commit made with the hooks off (HEAD, not recorded).
setup() {
  local bin=$1 repo=$2
  rm -rf "$repo"
  mkdir -p "$repo"
  cd "$repo"
  git init -q -b main .
  printf 'pub fn f() {}\n' >lib.rs
  printf 'rules:\n  budget: {max_iterations: 10000}\n' >.loopguard.yml
  git add -A && git commit -q -m "Initial commit"
  "$bin" init >/dev/null 2>&1
  local i
  for ((i = 0; i < iterations; i++)); do
    printf 'pub fn f%d() {}\n' "$i" >"src_$i.rs"
    git add -A && git commit -q -m "Step $i" 2>/dev/null
  done
  cp -a .git/loopguard "$work/state"
  printf 'pub fn next() {}\n' >next.rs
  git add -A && git -c core.hooksPath=/dev/null commit -q -m "Next step"
  cd - >/dev/null
}

# commit_rounds REPO: "WITH WITHOUT RATIO": the median ms per `git commit` with the hooks
# installed in REPO and with none, over alternating rounds.
commit_rounds() {
  local repo=$1 rounds=${ROUNDS:-5} n=${COMMITS:-30} r i t0 t1 mode
  local none=$work/no-hooks
  mkdir -p "$none"
  cd "$repo"
  local with=() without=()
  for ((r = 0; r < rounds; r++)); do
    for mode in with without; do
      for ((i = 0; i < n; i++)); do
        printf 'pub fn c%s_%s_%s() {}\n' "$r" "$mode" "$i" >"c_${r}_${mode}_$i.rs"
        git add -A
        if [ "$mode" = with ]; then
          t0=$(date +%s%N)
          git commit -q -m "commit $r $i" 2>/dev/null
          t1=$(date +%s%N)
          with+=($(( (t1 - t0) / 1000 )))
        else
          t0=$(date +%s%N)
          git -c core.hooksPath="$none" commit -q -m "commit $r $i" 2>/dev/null
          t1=$(date +%s%N)
          without+=($(( (t1 - t0) / 1000 )))
        fi
      done
    done
  done
  cd - >/dev/null
  local w o
  w=$(printf '%s\n' "${with[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }')
  o=$(printf '%s\n' "${without[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }')
  awk -v w="$w" -v o="$o" 'BEGIN { printf "%s %s %.2f\n", w, o, w / o }'
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); run of $iterations iterations;" \
  "$(command -v hyperfine >/dev/null && echo hyperfine || echo 'timed loop')"
printf '%-40s %12s %12s %12s %12s %22s\n' "binary" "post-commit" "pre-commit" "status" "catch-up $catchup" "commit: hooks/none"
for bin in "${bins[@]}"; do
  repo=$work/repo
  rm -rf "$work/state"
  setup "$bin" "$repo"
  cd "$repo"
  restore="rm -rf '$repo/.git/loopguard' && cp -a '$work/state' '$repo/.git/loopguard'"
  read -r pc_w pc_c <<<"$(median_ms "$runs" "$restore" "'$bin' hook post-commit" 2)"
  eval "$restore"
  read -r pre_w pre_c <<<"$(median_ms "$runs" "" "'$bin' hook pre-commit" 2)"
  read -r st_w st_c <<<"$(median_ms "$runs" "" "'$bin' status --json" 2)"
  # The catch-up: $catchup more commits with the hooks off, then one post-commit.
  for ((i = 0; i < catchup; i++)); do
    printf 'pub fn q%d() {}\n' "$i" >"quiet_$i.rs"
    git add -A && git -c core.hooksPath=/dev/null commit -q -m "Quiet $i"
  done
  read -r cu_w cu_c <<<"$(median_ms "$(( runs < 10 ? runs : 10 ))" "$restore" "'$bin' hook post-commit" 2)"
  cd - >/dev/null
  # The commit: a fresh repository, the hooks of this binary's `init`.
  rm -rf "$work/state"
  ITERATIONS=0 iterations=0 setup "$bin" "$repo"
  read -r c_with c_none c_ratio <<<"$(commit_rounds "$repo")"
  printf '%-40s %6s ms/%-4s %6s ms/%-4s %6s ms/%-4s %6s ms/%-4s %7s/%-5s ms = %-5s\n' "$(basename "$(dirname "$bin")")/$(basename "$bin")" \
    "$pc_w" "$pc_c" "$pre_w" "$pre_c" "$st_w" "$st_c" "$cu_w" "$cu_c" "$c_with" "$c_none" "$c_ratio"
done
echo "(wall median ms / mean CPU ms; commit: median ms per commit with init's hooks / with none = ratio)"
