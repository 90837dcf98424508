#!/usr/bin/env bash
# Benchmarks the coding agents' hooks as a session grows (issue 18): the before-tool-call
# hook must cost as much after 1,000 recorded calls as after 10.
#
#   scripts/bench-session.sh [BIN]
#
# Without BIN, builds and measures target/release/loopguard. For each session length N in
# SIZES (default "10 1000"), a repository with `init --agent claude` and a session of N
# recorded tool calls (reads and edits of distinct files, so no rule trips), then the median
# wall time (and mean CPU time with hyperfine) of RUNS (default 30) runs of
#
#   pre-tool   `loopguard agent-hook claude` with a PreToolUse event (what every call pays)
#   post-tool  `loopguard agent-hook claude` with a PostToolUse event (state restored after)
#
# Uses hyperfine when installed (apt-get install hyperfine), else a timed loop.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$root/scripts/bench-lib.sh"
runs=${RUNS:-30}
sizes=${SIZES:-"10 1000"}
bin=${1:-}
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release --quiet)
  bin=$root/target/release/loopguard
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com \
  GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@example.com LOOPGUARD_NO_PROMPT=1
mkdir -p "$HOME"

printf '%-10s %8s %12s %12s\n' "hook" "calls" "wall ms" "cpu ms"
for n in $sizes; do
  repo=$work/repo-$n
  mkdir -p "$repo" && cd "$repo"
  git init -q -b main . && echo x >README.md && git add . && git commit -qm init
  printf 'session: {max_calls: 100000, stagnation: 100000}\n' >.loopguard.yml
  "$bin" init --agent claude >/dev/null 2>&1
  # N calls: a read and an edit of a new file each time (progress, no rule trips).
  python3 - "$bin" "$repo" "$n" <<'PY'
import json, subprocess, sys
bin, repo, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    if i % 2:
        tool, inp, resp = "Read", {"file_path": f"src/f{i}.py"}, {"file": {"content": f"{i}"}}
    else:
        tool, inp, resp = "Edit", {"file_path": f"src/f{i}.py", "old_string": f"a{i}", "new_string": f"b{i}"}, {}
    ev = {"session_id": "bench", "cwd": repo, "hook_event_name": "PostToolUse", "tool_name": tool,
          "tool_input": inp, "tool_response": resp, "tool_use_id": f"t{i}"}
    subprocess.run([bin, "agent-hook", "claude"], input=json.dumps(ev).encode(), check=True,
                   stdout=subprocess.DEVNULL, cwd=repo)
PY
  pre=$(printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"pytest -q"},"tool_use_id":"p"}' "$repo")
  post=$(printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"x.py"},"tool_response":{"file":{"content":"x"}},"tool_use_id":"q"}' "$repo")
  printf '%s' "$pre" >"$work/pre.json"
  printf '%s' "$post" >"$work/post.json"
  state=$repo/.git/loopguard/sessions
  cp -a "$state" "$work/saved"
  read -r wall cpu < <(median_ms "$runs" "" "'$bin' agent-hook claude <'$work/pre.json'")
  printf '%-10s %8s %12s %12s\n' pre-tool "$n" "$wall" "$cpu"
  read -r wall cpu < <(median_ms "$runs" "rm -rf '$state' && cp -a '$work/saved' '$state'" "'$bin' agent-hook claude <'$work/post.json'")
  printf '%-10s %8s %12s %12s\n' post-tool "$n" "$wall" "$cpu"
  rm -rf "$work/saved"
  cd "$work"
done
