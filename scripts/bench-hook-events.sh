#!/usr/bin/env bash
# What each coding agent's hook costs, event by event (issues 25 and 26 item 5: every hook
# <= 10 ms wall at the median on an idle machine, the before-call hook <= 5 ms CPU).
#
#   scripts/bench-hook-events.sh [BIN]
#
# Without BIN, builds and measures target/release/loopguard, as the other bench scripts do.
# The state is a realistic one: a repository of COMMITS (default 60) commits made through
# loopguard's git hooks (the branch's run has their history), `init --agent` for Claude
# Code, Codex, Gemini CLI and GitHub Copilot, and one session per harness that already made
# CALLS (default 200) tool calls. Each harness's events are sent as its CLI sends them
# (docs/agents: field names, tool names, a failing shell call's shape — Claude Code's
# PostToolUseFailure, Codex's output without a status and its rollout's item_completed,
# Gemini CLI's llmContent, Copilot's camelCase with toolArgs as a string; the Claude Code
# transcript and the Codex rollout grow with every call, as the real ones do), in the order
# a turn fires them:
#
#   start      SessionStart (a resumed session)        prompt     the person's prompt
#   pre        before a call (a read, an edit, a test) post       after a read or an edit
#   post-fail  after a failing test run                stop       the end of the turn
#
# nothing is restored between hooks: each sees the state the previous one left, as in a
# real session. Two modes: `steady` (between hooks nothing else happens: the guard-surface
# snapshot's stat-only path) and `changed` (before each hook, untimed, `git config` rewrites
# .git/config and the harness's hook config is written again with the same bytes: the
# snapshot reads them again, nothing trips). RUNS (default 20) turns per harness and mode,
# ROUNDS (default 3) rounds, the machine's load average printed with each.
#
# Printed per round, harness, mode and event: how many hooks, the median and 90th
# percentile of wall time and of CPU time (user + system of the hook's process and what it
# waited for) in milliseconds, and the median wall time as a multiple of `git rev-parse
# --git-dir` timed in the same turns (a process start of git's: figures taken at different
# loads compare by this ratio). Then, per harness and event, the median over the rounds.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release --quiet)
  bin=$root/target/release/loopguard
else
  bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
fi

work=$(mktemp -d)
# KEEP=1 keeps the repository and the sessions (to profile a hook on them), and says where.
if [ -n "${KEEP:-}" ]; then echo "kept: $work"; else trap 'rm -rf "$work"' EXIT; fi
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home CODEX_HOME=$work/home/.codex \
  GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=A \
  GIT_COMMITTER_EMAIL=a@example.com LOOPGUARD_NO_PROMPT=1
mkdir -p "$HOME" "$CODEX_HOME"

python3 - "$bin" "$work" "${RUNS:-20}" "${ROUNDS:-3}" "${CALLS:-200}" "${COMMITS:-60}" <<'PY'
import json, os, statistics, subprocess, sys, time

BIN, WORK = sys.argv[1], sys.argv[2]
RUNS, ROUNDS, CALLS, COMMITS = (int(a) for a in sys.argv[3:7])
REPO = os.path.join(WORK, "repo")
HARNESSES = ["claude", "codex", "gemini", "copilot"]
EVENTS = ["start", "prompt", "pre", "post", "post-fail", "stop"]
CONFIG_OF = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json",
             "gemini": ".gemini/settings.json", "copilot": ".github/hooks/loopguard.json"}


def git(*args):
    subprocess.run(["git", *args], cwd=REPO, check=True, stdout=subprocess.DEVNULL)


def timed(cmd, data=b""):
    """(wall ms, cpu ms) of one run of `cmd` with `data` on its stdin."""
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    child.stdin.write(data)
    child.stdin.close()
    _, _, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000


# The repository: a small project, loopguard's hooks, COMMITS commits through them.
os.makedirs(os.path.join(REPO, "src"))
git("init", "-q", "-b", "main", ".")
with open(os.path.join(REPO, ".loopguard.yml"), "w") as f:
    # Room for a long session of failing runs without a trip: the cost of judging, not of
    # tripping, is measured.
    f.write("session: {max_calls: 100000, stagnation: 100000, same_error: 100000, "
            "identical_calls: 100000}\nrules:\n  budget: {max_iterations: 10000}\n")
for i in range(8):
    with open(os.path.join(REPO, "src", f"m{i}.py"), "w") as f:
        f.write("".join(f"def f{j}(x):\n    return x + {j}\n\n" for j in range(40)))
git("add", ".")
git("commit", "-qm", "init")
subprocess.run([BIN, "init", "--agent", ",".join(HARNESSES)], cwd=REPO, check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
git("add", ".")
git("commit", "-qm", "loopguard")
for i in range(COMMITS):
    with open(os.path.join(REPO, "src", f"m{i % 8}.py"), "a") as f:
        f.write(f"def g{i}(x):\n    return x * {i}\n\n")
    git("commit", "-qam", f"change {i}")


class Session:
    """One harness's session: its events as its CLI sends them, its transcript growing."""

    def __init__(self, harness):
        self.h, self.n = harness, 0
        self.id = f"{harness}-0199aa00-1111-7000-8000-00000000000{HARNESSES.index(harness)}"
        self.transcript = os.path.join(WORK, f"{harness}-transcript.jsonl")
        open(self.transcript, "w").close()
        self.tokens = 4000
        if harness == "codex":
            self.log({"type": "session_meta", "payload": {"id": self.id, "cwd": REPO,
                      "originator": "codex_cli_rs", "cli_version": "0.171.0"}})

    def log(self, line):
        line.setdefault("timestamp", "2026-11-28T20:00:00.000Z")
        with open(self.transcript, "a") as f:
            f.write(json.dumps(line) + "\n")

    def base(self, event):
        h = self.h
        if h == "copilot":
            return {"timestamp": int(time.time() * 1000), "cwd": REPO}
        d = {"session_id": self.id, "transcript_path": self.transcript, "cwd": REPO,
             "hook_event_name": event}
        if h == "claude":
            d["permission_mode"] = "default"
        if h == "codex":
            d.update(turn_id=f"turn-{self.n}", model="gpt-5-codex", permission_mode="default")
        if h == "gemini":
            d["timestamp"] = "2026-11-28T20:00:00.000Z"
        return d

    def name(self, kind):
        return {"claude": {"start": "SessionStart", "prompt": "UserPromptSubmit",
                           "pre": "PreToolUse", "post": "PostToolUse",
                           "post-fail": "PostToolUseFailure", "stop": "Stop"},
                "codex": {"start": "SessionStart", "prompt": "UserPromptSubmit",
                          "pre": "PreToolUse", "post": "PostToolUse", "post-fail": "PostToolUse",
                          "stop": "Stop"},
                "gemini": {"start": "SessionStart", "prompt": "BeforeAgent", "pre": "BeforeTool",
                           "post": "AfterTool", "post-fail": "AfterTool", "stop": "AfterAgent"},
                "copilot": {"start": "sessionStart", "prompt": "userPromptSubmitted",
                            "pre": "preToolUse", "post": "postToolUse", "post-fail": "postToolUse",
                            "stop": "agentStop"}}[self.h][kind]

    def command(self, kind):
        cmd = [BIN, "agent-hook", self.h]
        return cmd + [self.name(kind)] if self.h == "copilot" else cmd

    def start(self):
        d = self.base("SessionStart")
        d["source"] = "resume"
        if self.h == "claude":
            d.pop("permission_mode")
        return "start", d

    def prompt(self):
        text = f"turn {self.n}: the tests still fail, go on"
        d = self.base(self.name("prompt"))
        d["prompt"] = text
        if self.h == "claude":
            self.log({"type": "user", "sessionId": self.id, "uuid": f"p{self.n}",
                      "message": {"role": "user", "content": text}})
        if self.h == "codex":
            self.log({"type": "event_msg", "payload": {"type": "user_message", "message": text}})
        return "prompt", d

    def call(self, what):
        """(pre, post) of one tool call: 'read', 'edit' or 'test' (a failing test run)."""
        self.n += 1
        i, h = self.n, self.h
        f = f"src/m{i % 8}.py"
        fail = (f"FAILED tests/test_m.py::test_case_{i} - AssertionError: {i} != {i + 1}\n"
                f"1 failed, {40 + i % 7} passed in 0.{i % 9 + 1}s\n")
        tool = {"claude": {"read": "Read", "edit": "Edit", "test": "Bash"},
                "codex": {"read": "Bash", "edit": "apply_patch", "test": "Bash"},
                "gemini": {"read": "read_file", "edit": "replace", "test": "run_shell_command"},
                "copilot": {"read": "view", "edit": "edit", "test": "bash"}}[h][what]
        if what == "read":
            args = {"command": f"sed -n 1,80p {f}"} if h == "codex" else {"file_path": f}
            if h == "gemini":
                args = {"absolute_path": os.path.join(REPO, f)}
            if h == "copilot":
                args = {"path": os.path.join(REPO, f)}
        elif what == "edit":
            args = {"file_path": f, "old_string": f"return x + {i % 40}",
                    "new_string": f"return x + {i % 40}  # {i}"}
            if h == "codex":
                args = {"command": f"*** Begin Patch\n*** Update File: {f}\n@@\n-    return x + 1\n+    return x + 1  # {i}\n*** End Patch\n"}
            if h == "copilot":
                args = {"path": os.path.join(REPO, f), "old_str": "return x + 1",
                        "new_str": f"return x + 1  # {i}"}
        else:
            args = {"command": "python3 -m pytest -q"}
        uid = f"call_{h}_{i}"
        if h == "copilot":
            pre = dict(self.base(""), toolName=tool, toolArgs=json.dumps(args))
            ok = {"resultType": "success", "textResultForLlm": "def f0(x):\n    return x\n" * 20}
            bad = {"resultType": "failure", "textResultForLlm": fail}
            post = dict(pre, toolResult=bad if what == "test" else ok)
            return (("pre", pre), ("post-fail" if what == "test" else "post", post))
        pre = dict(self.base(self.name("pre")), tool_name=tool, tool_input=args)
        if h in ("claude", "codex"):
            pre["tool_use_id"] = uid
        post = dict(pre, hook_event_name=self.name("post"))
        content = "def f0(x):\n    return x\n" * 20
        if h == "claude":
            post["tool_response"] = {"type": "text", "file": {"filePath": f, "content": content}} \
                if what == "read" else {"filePath": f, "oldString": args.get("old_string"),
                                        "newString": args.get("new_string"),
                                        "structuredPatch": []}
            self.tokens += 900
            self.log({"type": "assistant", "sessionId": self.id, "uuid": f"a{i}",
                      "message": {"id": f"msg_{i}", "role": "assistant",
                                  "content": [{"type": "tool_use", "id": uid, "name": tool,
                                               "input": args}],
                                  "usage": {"input_tokens": self.tokens, "output_tokens": 120}}})
            if what == "test":
                post["hook_event_name"] = "PostToolUseFailure"
                post.pop("tool_response")
                post["error"] = "Error: Exit code 1\n" + fail
                post["is_interrupt"] = False
        elif h == "codex":
            out = fail if what == "test" else ("" if what == "edit" else content)
            post["tool_response"] = out if what != "edit" else "Success. Updated the following files:\nM " + f
            self.tokens += 900
            self.log({"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                      "arguments": json.dumps({"command": ["bash", "-lc", args.get("command", "")]}),
                      "call_id": uid}})
            self.log({"type": "event_msg", "payload": {"type": "token_count", "info": {
                "total_token_usage": {"total_tokens": self.tokens}}}})
            if what != "edit":
                # Written before Codex runs the PostToolUse hooks.
                self.log({"type": "event_msg", "payload": {"type": "item_completed", "item": {
                    "id": uid, "type": "CommandExecution", "exit_code": 1 if what == "test" else 0}}})
        else:  # gemini
            if what == "test":
                post["tool_response"] = {"llmContent": "Command: python3 -m pytest -q\nDirectory: (root)\nOutput: " + fail + "Error: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242",
                                         "returnDisplay": fail}
            else:
                post["tool_response"] = {"llmContent": content if what == "read" else f"Successfully modified file: {f} (1 replacements).",
                                         "returnDisplay": ""}
        return (("pre", pre), ("post-fail" if what == "test" else "post", post))

    def stop(self):
        said = "The test still fails: test_case is not fixed yet; I will look at m.py next turn."
        d = self.base(self.name("stop"))
        d["stop_hook_active"] = False
        if self.h == "claude":
            self.log({"type": "assistant", "sessionId": self.id, "uuid": f"s{self.n}",
                      "message": {"id": f"msg_s{self.n}", "role": "assistant",
                                  "content": [{"type": "text", "text": said}],
                                  "usage": {"input_tokens": self.tokens, "output_tokens": 80}}})
        if self.h == "codex":
            d["last_assistant_message"] = said
        if self.h == "gemini":
            d["prompt"] = "go on"
            d["prompt_response"] = said
        return "stop", d

    def turn(self):
        """The hooks of one turn, in the order the harness fires them."""
        events = [self.start(), self.prompt()]
        for what in ("read", "edit", "test"):
            events.extend(self.call(what))
        events.append(self.stop())
        return events


def send(s, kind, payload):
    return timed(s.command(kind), json.dumps(payload).encode())


def change(s, tick):
    """Untimed: what the snapshot must read again, nothing that guards changed."""
    git("config", "bench.tick", str(tick))
    path = os.path.join(REPO, CONFIG_OF[s.h])
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data)


sessions = {h: Session(h) for h in HARNESSES}
for s in sessions.values():
    # The session's earlier calls: reads, edits and failing test runs (3 calls a turn).
    for _ in range(CALLS // 3):
        for kind, payload in s.turn():
            send(s, kind, payload)

ref_cmd = ["git", "rev-parse", "--git-dir"]
summary = {}
for rnd in range(1, ROUNDS + 1):
    load = open("/proc/loadavg").read().split()[:3]
    print(f"\nround {rnd}/{ROUNDS}: load average {' '.join(load)} ({os.cpu_count()} cores), "
          f"{RUNS} turns per harness and mode, sessions of {CALLS}+ calls, {COMMITS} commits")
    print(f"{'harness':8} {'mode':8} {'event':10} {'hooks':>5} {'wall med':>8} {'p90':>6} "
          f"{'cpu med':>8} {'p90':>6} {'x git':>6}")
    for h in HARNESSES:
        s = sessions[h]
        for mode in ("steady", "changed"):
            times = {e: [] for e in EVENTS}
            refs = []
            for t in range(RUNS):
                refs.append(timed(ref_cmd)[0])
                for kind, payload in s.turn():
                    if mode == "changed":
                        change(s, t)
                    times[kind].append(send(s, kind, payload))
            ref = statistics.median(refs)
            for e in EVENTS:
                walls = [w for w, _ in times[e]]
                cpus = [c for _, c in times[e]]
                p90 = lambda xs: statistics.quantiles(xs, n=10)[8]
                wm, cm = statistics.median(walls), statistics.median(cpus)
                summary.setdefault((h, mode, e), []).append((wm, cm, wm / ref))
                print(f"{h:8} {mode:8} {e:10} {len(walls):5} {wm:8.1f} {p90(walls):6.1f} "
                      f"{cm:8.1f} {p90(cpus):6.1f} {wm / ref:6.1f}")
    print(f"git rev-parse: {ref:.1f} ms wall (the last harness's turns); load average "
          f"{' '.join(open('/proc/loadavg').read().split()[:3])}")

print(f"\nover {ROUNDS} rounds (the median of the rounds' medians)")
print(f"{'harness':8} {'mode':8} {'event':10} {'wall ms':>8} {'cpu ms':>7} {'x git':>6}")
for (h, mode, e), rs in summary.items():
    print(f"{h:8} {mode:8} {e:10} {statistics.median(r[0] for r in rs):8.1f} "
          f"{statistics.median(r[1] for r in rs):7.1f} {statistics.median(r[2] for r in rs):6.1f}")
PY
