#!/usr/bin/env bash
# Benchmarks the coding agents' hooks as a session grows (issue 18): both hooks must cost
# the same after 1,000 recorded calls as after 10 (a session's run keeps its latest calls).
#
#   scripts/bench-session.sh [BIN]
#
# Without BIN, builds and measures target/release/loopguard, as the other bench scripts do.
# For each session length N in SIZES (default "10 1000"), a repository with
# `init --agent claude` and a session of N recorded tool calls (reads and edits of distinct
# files, so no rule trips), then the median wall time and the median CPU time (user +
# system of the hook's process) of RUNS (default 30) runs, after WARMUP (default 3), of
#
#   pre-tool   `loopguard agent-hook claude` with a PreToolUse event (what every call pays:
#              the call marked in flight; the session's state restored before each run)
#   post-tool  `loopguard agent-hook claude` with a PostToolUse event (the session's state
#              restored before each run, so each records the N+1st call)
#
# The calls read and edit a new file each (FILES unset), the worst case: the session keeps
# one small state (a 64-bit digest) per file it edited. FILES=20 spreads the edits over 20
# files instead, as a session that works on a few files does.
#
# The machine's load average is printed before and after: on a shared machine, compare
# figures taken together.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${RUNS:-30}
warmup=${WARMUP:-3}
sizes=${SIZES:-"10 1000"}
bin=${1:-}
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release --quiet)
  bin=$root/target/release/loopguard
else
  # Absolute: the measurements run inside the repositories they make.
  bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com \
  GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@example.com LOOPGUARD_NO_PROMPT=1
mkdir -p "$HOME"

# measure REPO INPUT [STATE SAVED]: "WALL CPU", the medians in milliseconds; with STATE,
# SAVED is copied back over it before each run (untimed).
measure() {
  python3 - "$bin" "$runs" "$warmup" "$@" <<'PY'
import os, resource, shutil, statistics, subprocess, sys, time
bin, runs, warmup, repo, event = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
state, saved = (sys.argv[6], sys.argv[7]) if len(sys.argv) > 7 else (None, None)
data = open(event, "rb").read()
walls, cpus = [], []
for i in range(warmup + runs):
    if state:
        shutil.rmtree(state)
        shutil.copytree(saved, state, symlinks=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([bin, "agent-hook", "claude"], input=data, cwd=repo,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if i >= warmup:
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
print(f"{statistics.median(walls):.1f} {statistics.median(cpus):.1f}")
PY
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores); $runs runs each; files edited: ${FILES:-one new file per edit}"
printf '%-10s %8s %12s %12s %8s\n' "hook" "calls" "wall ms" "cpu ms" "kept"
for n in $sizes; do
  repo=$work/repo-$n
  mkdir -p "$repo" && cd "$repo"
  git init -q -b main . && echo x >README.md && git add . && git commit -qm init
  printf 'session: {max_calls: 100000, stagnation: 100000}\n' >.loopguard.yml
  "$bin" init --agent claude >/dev/null 2>&1
  # N calls: a read and an edit of a new file each time (progress, no rule trips).
  python3 - "$bin" "$repo" "$n" "${FILES:-0}" <<'PY'
import json, subprocess, sys
bin, repo, n, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for i in range(n):
    f = i % files if files else i
    if i % 2:
        tool, inp, resp = "Read", {"file_path": f"src/f{f}.py"}, {"file": {"content": f"{i}"}}
    else:
        tool, inp, resp = "Edit", {"file_path": f"src/f{f}.py", "old_string": f"a{i}", "new_string": f"b{i}"}, {}
    # Each call announced by its before-call hook, then its result (as the harness does).
    pre = {"session_id": "bench", "cwd": repo, "hook_event_name": "PreToolUse", "tool_name": tool,
           "tool_input": inp, "tool_use_id": f"t{i}"}
    post = dict(pre, hook_event_name="PostToolUse", tool_response=resp)
    for ev in (pre, post):
        subprocess.run([bin, "agent-hook", "claude"], input=json.dumps(ev).encode(), check=True,
                       stdout=subprocess.DEVNULL, cwd=repo)
PY
  state=$(echo "$HOME"/.local/state/loopguard/repositories/repo-"$n"-*/sessions)
  kept=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["iterations"]))' "$state/runs/bench.json")
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"pytest -q"},"tool_use_id":"p"}' "$repo" >"$work/pre.json"
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"x.py"},"tool_response":{"file":{"content":"x"}},"tool_use_id":"q"}' "$repo" >"$work/post.json"
  # The measured result's call is in flight, as the harness's before-call hook left it.
  sed 's/"PostToolUse"/"PreToolUse"/' "$work/post.json" | "$bin" agent-hook claude >/dev/null
  cp -a "$state" "$work/saved"
  read -r wall cpu < <(measure "$repo" "$work/pre.json" "$state" "$work/saved")
  printf '%-10s %8s %12s %12s %8s\n' pre-tool "$n" "$wall" "$cpu" "$kept"
  read -r wall cpu < <(measure "$repo" "$work/post.json" "$state" "$work/saved")
  printf '%-10s %8s %12s %12s %8s\n' post-tool "$n" "$wall" "$cpu" "$kept"
  rm -rf "$work/saved"
  cd "$work"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
