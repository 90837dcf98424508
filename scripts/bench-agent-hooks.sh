#!/usr/bin/env bash
# Benchmarks loopguard's hooks as the real agent CLIs run them (issue 26 item 5): the
# scenarios of tests/it/agents_e2e, one at a time, with a release loopguard in the hook
# configs and every hook run timed. Prints, per CLI and event, how many hooks ran and the
# median wall time and CPU time (user + system of the hook's process and what it waited
# for) in milliseconds.
#
#   scripts/bench-agent-hooks.sh [BIN] [FILTER]
#
# Without BIN, builds and measures target/release/loopguard, as the other bench scripts do.
# FILTER picks the scenarios (default `agents_e2e::scenarios::`). The CLIs come from
# .ci/install-agents.sh. The machine's load average is printed before and after: on a
# shared machine, compare figures taken together.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-}
filter=${2:-agents_e2e::scenarios::}
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release --quiet)
  bin=$root/target/release/loopguard
else
  bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
fi
bash "$root/.ci/install-agents.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The timer each hook command runs under: the hook's input on its stdin, its answer on
# stdout, one JSON line per run in the times file.
cat >"$work/time-hook.py" <<'PY'
import json, os, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
data = sys.stdin.buffer.read()
t0 = time.perf_counter()
child = subprocess.Popen(cmd, stdin=subprocess.PIPE)
child.stdin.write(data)
child.stdin.close()
_, status, usage = os.wait4(child.pid, 0)
wall = time.perf_counter() - t0
try:
    event = json.loads(data).get("hook_event_name", "?")
except ValueError:
    event = "?"
with open(out, "a") as f:
    f.write(json.dumps({"cli": cmd[-1], "event": event, "wall_ms": wall * 1000,
                        "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000}) + "\n")
sys.exit(os.waitstatus_to_exitcode(status))
PY

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$root" && LOOPGUARD_E2E_LOOPGUARD="$bin" \
  LOOPGUARD_E2E_HOOK_PREFIX="python3 $work/time-hook.py $work/times.jsonl" \
  cargo test --locked --quiet --test it "$filter" -- --test-threads=1 >"$work/test.log" 2>&1) ||
  { cat "$work/test.log" >&2; exit 1; }
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/times.jsonl" <<'PY'
import collections, json, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs[(r["cli"], r["event"])].append(r)
print(f"{'cli':8} {'event':20} {'hooks':>5} {'wall ms':>8} {'cpu ms':>7} {'wall/cpu':>8}")
for (cli, event), rs in sorted(runs.items()):
    wall = statistics.median(r["wall_ms"] for r in rs)
    cpu = statistics.median(r["cpu_ms"] for r in rs)
    print(f"{cli:8} {event:20} {len(rs):5} {wall:8.1f} {cpu:7.1f} {wall / max(cpu, 0.01):8.1f}")
PY
