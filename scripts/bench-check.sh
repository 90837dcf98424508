#!/usr/bin/env bash
# `loopguard check --range` over a real history against git reading the same commits
# (issue 29): wall time (median), CPU time (user + system, mean) and peak RSS of
#
#   check   loopguard check --range BASE..HEAD
#   git     git log -p --no-merges BASE..HEAD | git patch-id --stable
#
# measured in the same run, alternating, and their ratios.
#
#   scripts/bench-check.sh [REPO [COMMITS [RUNS]]]
#
# REPO: a work tree or a bare git dir (default: this repository); COMMITS: first-parent
# commits back from HEAD (default 2000, fewer when the history is shorter); RUNS (default 5).
# With MAX_CPU_RATIO set, exits 1 when check's CPU time is more than that many times git's
# (`.ci/run` runs it on this repository's own history with a bound that the whole-file test
# reading of every commit, 2.3-3.2x, broke). LOOPGUARD: the binary (default: a release
# build of this checkout). Needs python3 (the clock and getrusage).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repo=${1:-$root}
want=${2:-2000}
runs=${3:-5}
bin=${LOOPGUARD:-}
if [[ -z $bin ]]; then
    (cd "$root" && cargo build --release --quiet --locked --bin loopguard)
    bin=$root/target/release/loopguard
fi
cd "$repo"
depth=$(git rev-list --first-parent --count HEAD)
back=$(( want < depth - 1 ? want : depth - 1 ))
base=$(git rev-parse "HEAD~$back")
commits=$(git rev-list --count "$base..HEAD")
nomerge=$(git rev-list --count --no-merges "$base..HEAD")

# measure CMD...: "WALL_S CPU_S RSS_KB" of one run (children included; the peak is the
# largest process's).
measure() {
    python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.4f} {r.ru_utime + r.ru_stime:.4f} {r.ru_maxrss}")' "$@"
}

check_cmd=("$bin" check --range "$base..HEAD")
git_cmd=(sh -c "git log -p --no-merges $base..HEAD | git patch-id --stable")
measure "${check_cmd[@]}" >/dev/null # warm the caches
measure "${git_cmd[@]}" >/dev/null
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for ((i = 0; i < runs; i++)); do
    echo "check $(measure "${check_cmd[@]}")" >>"$rows"
    echo "git $(measure "${git_cmd[@]}")" >>"$rows"
done

echo "$(basename "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"): $commits commits ($nomerge non-merge) in $base..HEAD; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v bound="${MAX_CPU_RATIO:-}" '
    { n[$1]++; wall[$1, n[$1]] = $2; cpu[$1] += $3; if ($4 > rss[$1]) rss[$1] = $4 }
    function median(who,   k, i, j, t, a) {
        k = n[who]
        for (i = 1; i <= k; i++) a[i] = wall[who, i]
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END {
        cw = median("check"); gw = median("git")
        cc = cpu["check"] / n["check"]; gc = cpu["git"] / n["git"]
        printf "  %-8s %10s %10s %10s\n", "", "wall s", "cpu s", "peak MB"
        printf "  %-8s %10.3f %10.3f %10.1f\n", "check", cw, cc, rss["check"] / 1024
        printf "  %-8s %10.3f %10.3f %10.1f\n", "git", gw, gc, rss["git"] / 1024
        printf "  ratio    %10.2f %10.2f   (check / git, same run)\n", cw / gw, cc / gc
        if (bound != "" && cc / gc > bound) {
            printf "check takes %.2fx the CPU of git: over the bound of %s\n", cc / gc, bound
            exit 1
        }
    }' "$rows"
