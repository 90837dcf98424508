//! The coding agents' hooks, driven as each harness drives them: `init --agent` writes the
//! harness's hook config; the test reads it back, finds the command for each event (and
//! tool, by its matcher), runs it with the event's JSON on stdin in the repository, and
//! does the edits on disk in between.

mod agents;
mod effects;
mod model;
mod security;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{TestRepo, lg, run_within};

/// A pytest run that fails `tests/test_wc.py::test_count` (`assert 3 == 2`).
pub(crate) const FAIL: &str = "============================= test session starts ==============================\n\
collected 1 item\n\ntests/test_wc.py F                                                       [100%]\n\n\
=================================== FAILURES ===================================\n\
__________________________________ test_count __________________________________\n\n\
    def test_count():\n>       assert count(\"a b\") == 2\nE       assert 3 == 2\n\n\
tests/test_wc.py:4: AssertionError\n\
=========================== short test summary info ============================\n\
FAILED tests/test_wc.py::test_count - assert 3 == 2\n\
============================== 1 failed in 0.03s ===============================\n";
/// The same test passing.
pub(crate) const PASS: &str = "============================= test session starts ==============================\n\
collected 1 item\n\ntests/test_wc.py .                                                       [100%]\n\n\
============================== 1 passed in 0.01s ===============================\n";

/// One coding agent's harness over a repository: its hook config, as `init --agent` wrote
/// it, and what went in and came out of each hook.
pub(crate) struct Agent<'r> {
    pub repo: &'r TestRepo,
    pub harness: &'static str,
    pub session: String,
    config: Value,
    /// (event, input, answer) of every hook run.
    pub log: RefCell<Vec<(String, String, String)>>,
    /// A Claude Code transcript the harness writes as it goes, when set.
    pub transcript: Option<PathBuf>,
    /// The hooks' clock (`LOOPGUARD_NOW`), when pinned: the hooks then run with
    /// `--test-knobs`, as a hook honours no knob the environment alone sets.
    pub now: Option<&'static str>,
    calls: RefCell<u32>,
}

/// One hook's answer: the exit code, stdout as JSON (`Null` when empty), stderr.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub code: Option<i32>,
    pub json: Value,
    pub stderr: String,
}

impl Answer {
    /// The text the model reads: a denial's reason, a context, a block's reason.
    pub(crate) fn text(&self) -> String {
        let j = &self.json;
        [
            &j["hookSpecificOutput"]["permissionDecisionReason"],
            &j["hookSpecificOutput"]["additionalContext"],
            &j["permissionDecisionReason"],
            &j["reason"],
            &j["systemMessage"],
            &j["agent_message"],
            &j["additional_context"],
            &j["followup_message"],
        ]
        .iter()
        .find_map(|v| v.as_str())
        .unwrap_or("")
        .to_owned()
    }

    pub(crate) fn denied(&self) -> bool {
        self.json["hookSpecificOutput"]["permissionDecision"] == "deny"
            || self.json["permissionDecision"] == "deny"
            || self.json["decision"] == "deny"
            || self.json["permission"] == "deny"
    }

    pub(crate) fn blocked(&self) -> bool {
        self.json["decision"] == "block"
            || self.json["decision"] == "deny"
            || self.json["followup_message"].is_string()
    }

    /// Nothing said: no output, or (Cursor, which reads an object for every event) an
    /// object with nothing in it but a prompt let through.
    pub(crate) fn silent(&self) -> bool {
        self.json.is_null()
            || self
                .json
                .as_object()
                .is_some_and(|o| o.iter().all(|(k, v)| k == "continue" && v == true))
    }
}

pub(crate) fn config_path(harness: &str) -> &'static str {
    match harness {
        "claude" => ".claude/settings.json",
        "codex" => ".codex/hooks.json",
        "gemini" => ".gemini/settings.json",
        "copilot" => ".github/hooks/loopguard.json",
        "cursor" => ".cursor/hooks.json",
        other => panic!("no such agent {other}"),
    }
}

impl<'r> Agent<'r> {
    /// The agent of `repo`, after `init --agent <harness>`.
    pub(crate) fn new(repo: &'r TestRepo, harness: &'static str, session: &str) -> Agent<'r> {
        let text = repo
            .read(config_path(harness))
            .unwrap_or_else(|| panic!("init wrote no {}", config_path(harness)));
        Agent {
            repo,
            harness,
            session: session.to_owned(),
            config: serde_json::from_str(&text).expect("the hook config is JSON"),
            log: RefCell::new(Vec::new()),
            transcript: None,
            now: None,
            calls: RefCell::new(0),
        }
    }

    /// The commands the harness runs for `event` (and `tool`, by each group's matcher).
    pub(crate) fn commands(&self, event: &str, tool: Option<&str>) -> Vec<String> {
        let list = self.config["hooks"][event]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut out = Vec::new();
        for group in list {
            let matches = match (group["matcher"].as_str(), tool) {
                (None | Some("" | "*"), _) | (Some(_), None) => true,
                (Some(m), Some(t)) => regex::Regex::new(&format!("^(?:{m})$"))
                    .unwrap()
                    .is_match(t),
            };
            // Entries flat under the event (Copilot's `bash`, Cursor's `command`).
            if matches!(self.harness, "copilot" | "cursor") {
                if matches {
                    out.extend(group["bash"].as_str().map(str::to_owned));
                    out.extend(group["command"].as_str().map(str::to_owned));
                }
                continue;
            }
            if matches {
                for h in group["hooks"].as_array().into_iter().flatten() {
                    out.extend(h["command"].as_str().map(str::to_owned));
                }
            }
        }
        out
    }

    /// Runs every hook of `event` with `input` on stdin, as the harness does; the last
    /// answer.
    pub(crate) fn send(&self, event: &str, tool: Option<&str>, input: Value) -> Answer {
        let commands = self.commands(event, tool);
        assert!(!commands.is_empty(), "no {} hook for {event}", self.harness);
        let mut last = None;
        for command in commands {
            let mut cmd = self.repo.command("sh");
            cmd.env("LOOPGUARD_NO_PROMPT", "1");
            match self.now {
                Some(now) => cmd
                    .args(["-c", &format!("{command} --test-knobs")])
                    .env("LOOPGUARD_NOW", now),
                None => cmd.args(["-c", &command]),
            };
            let ran = run_within(
                cmd,
                Some(input.to_string().into_bytes()),
                Duration::from_secs(60),
            );
            let json = if ran.stdout.trim().is_empty() {
                Value::Null
            } else {
                serde_json::from_str(ran.stdout.trim())
                    .unwrap_or_else(|e| panic!("{event}: stdout is not JSON ({e}): {}", ran.stdout))
            };
            self.log.borrow_mut().push((
                event.to_owned(),
                input.to_string(),
                ran.stdout.trim().to_owned(),
            ));
            last = Some(Answer {
                code: ran.code,
                json,
                stderr: ran.stderr,
            });
        }
        let a = last.expect("a hook ran");
        assert_eq!(a.code, Some(0), "{event}: every hook exits 0: {}", a.stderr);
        a
    }

    pub(crate) fn base_for(&self, event: &str) -> Value {
        let root = self.repo.path().display().to_string();
        match self.harness {
            "copilot" => {
                json!({"timestamp": 1_704_614_600_000_u64, "cwd": root, "sessionId": self.session})
            }
            // Cursor's common fields; the tool events add the command's `cwd`.
            "cursor" => {
                let mut v = json!({
                    "conversation_id": self.session,
                    "generation_id": format!("gen-{}", self.calls.borrow()),
                    "model": "claude-4.5-sonnet",
                    "hook_event_name": event,
                    "cursor_version": "1.7.54",
                    "workspace_roots": [root],
                    "user_email": null,
                    "transcript_path": self.transcript.as_ref().map(|p| p.display().to_string()),
                });
                if event.contains("ToolUse") {
                    v["cwd"] = json!(root);
                }
                v
            }
            _ => json!({
                "session_id": self.session,
                "transcript_path": self.transcript.as_ref().map(|p| p.display().to_string()),
                "cwd": root,
                "hook_event_name": event,
                "permission_mode": "default",
                "model": "gpt-5-codex",
                "turn_id": "turn-1",
            }),
        }
    }

    /// The harness's name of the event `kind` (`pre`, `post`, `fail`, `prompt`, `stop`,
    /// `start`).
    pub(crate) fn event_name(&self, kind: &str) -> &'static str {
        match (self.harness, kind) {
            ("gemini", "pre") => "BeforeTool",
            ("gemini", "post") => "AfterTool",
            ("gemini", "prompt") => "BeforeAgent",
            ("gemini", "stop") => "AfterAgent",
            ("copilot", "pre") => "preToolUse",
            ("copilot", "post") => "postToolUse",
            ("copilot", "prompt") => "userPromptSubmitted",
            ("copilot", "stop") => "agentStop",
            ("copilot", "start") => "sessionStart",
            ("cursor", "pre") => "preToolUse",
            ("cursor", "post") => "postToolUse",
            ("cursor", "fail") => "postToolUseFailure",
            ("cursor", "prompt") => "beforeSubmitPrompt",
            ("cursor", "stop") => "stop",
            ("cursor", "start") => "sessionStart",
            (_, "pre") => "PreToolUse",
            (_, "post") => "PostToolUse",
            (_, "fail") => "PostToolUseFailure",
            (_, "prompt") => "UserPromptSubmit",
            (_, "stop") => "Stop",
            (_, "start") => "SessionStart",
            _ => panic!("{kind}"),
        }
    }

    fn with_tool(&self, mut v: Value, tool: &str, input: &Value, id: &str) -> Value {
        if self.harness == "copilot" {
            v["toolName"] = json!(tool);
            v["toolArgs"] = json!(input.to_string());
        } else {
            v["tool_name"] = json!(tool);
            v["tool_input"] = input.clone();
            v["tool_use_id"] = json!(id);
        }
        v
    }

    /// The id the harness gives its next call.
    pub(crate) fn next_call_id(&self) -> String {
        format!("toolu_{:04}", *self.calls.borrow() + 1)
    }

    fn next_id(&self) -> String {
        *self.calls.borrow_mut() += 1;
        format!("toolu_{:04}", self.calls.borrow())
    }

    /// A tool call as the harness makes it: the pre-tool hook; when allowed, `effect` (the
    /// edit on disk) and the post-tool hook with `response`. The post answer, or the
    /// denial.
    pub(crate) fn call(
        &self,
        tool: &str,
        input: Value,
        response: Value,
        effect: impl FnOnce(),
    ) -> Answer {
        self.call_then(tool, input, || {
            effect();
            response
        })
    }

    /// A tool call whose result is what `run` (the tool, doing its work between the
    /// hooks) returns: a string for a call that failed, as [`Agent::call`] takes it.
    pub(crate) fn call_then(
        &self,
        tool: &str,
        input: Value,
        run: impl FnOnce() -> Value,
    ) -> Answer {
        let id = self.next_id();
        let pre_name = self.event_name("pre");
        if let Some(t) = &self.transcript {
            append(
                t,
                &json!({"type": "assistant", "sessionId": self.session, "uuid": format!("u-{id}"), "isSidechain": false, "timestamp": "2026-11-26T10:00:00Z",
                "message": {"id": format!("msg_{id}"), "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}],
                            "usage": {"input_tokens": 1200, "output_tokens": 80, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}),
            );
        }
        let pre = self.send(
            pre_name,
            Some(tool),
            self.with_tool(self.base_for(pre_name), tool, &input, &id),
        );
        if pre.denied() {
            return pre;
        }
        let response = run();
        let failed = response.is_string();
        let post_name = if failed && matches!(self.harness, "claude" | "cursor") {
            self.event_name("fail")
        } else {
            self.event_name("post")
        };
        let mut v = self.with_tool(self.base_for(post_name), tool, &input, &id);
        match (self.harness, failed) {
            ("claude", true) => v["error"] = response.clone(),
            ("cursor", true) => {
                v["error_message"] = response.clone();
                v["failure_type"] = json!("error");
            }
            // What Cursor reports of a call: its output, as text.
            ("cursor", false) => {
                v["tool_output"] = match (&response["stdout"], &response) {
                    (Value::String(out), _) | (_, Value::String(out)) => json!(out),
                    _ => json!(response.to_string()),
                };
            }
            ("copilot", _) => {
                v["toolResult"] = json!({"resultType": if failed {"failure"} else {"success"}, "textResultForLlm": response.get("stdout").cloned().unwrap_or(response.clone())});
            }
            _ => v["tool_response"] = response.clone(),
        }
        if let Some(t) = &self.transcript {
            append(
                t,
                &json!({"type": "user", "sessionId": self.session, "uuid": format!("r-{id}"), "isSidechain": false, "timestamp": "2026-11-26T10:00:01Z",
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": response.to_string(), "is_error": failed}]},
                "toolUseResult": if failed { Value::Null } else { response.clone() }}),
            );
        }
        self.send(post_name, Some(tool), v)
    }

    /// A shell command the agent runs through its shell tool, for real, in the repository
    /// (a child of this process, the harness), between the hooks; the result is what it
    /// printed and how it exited. The answer of the hook after it, or the denial.
    pub(crate) fn shell(&self, command: &str) -> Answer {
        self.shell_ran(command).0
    }

    /// [`Agent::shell`], and what the command printed (`None` when it was denied).
    pub(crate) fn shell_ran(&self, command: &str) -> (Answer, Option<crate::support::Ran>) {
        let ran = RefCell::new(None);
        let answer = self.call_then(self.shell_tool(), json!({ "command": command }), || {
            let mut cmd = self.repo.command("sh");
            cmd.args(["-c", command]);
            let out = run_within(cmd, None, Duration::from_secs(60));
            let response = match out.code {
                Some(0) => json!({"stdout": out.stdout, "stderr": out.stderr, "interrupted": false, "exit_code": 0}),
                code => json!(format!(
                    "Error: Exit code {}\n{}{}",
                    code.unwrap_or(-1),
                    out.stdout,
                    out.stderr
                )),
            };
            *ran.borrow_mut() = Some(out);
            response
        });
        (answer, ran.into_inner())
    }

    /// `pytest -q` printing `log`, exiting as pytest does.
    pub(crate) fn pytest(&self, cmd: &str, log: &str) -> Answer {
        let fails = log.contains("failed");
        self.call(
            self.shell_tool(),
            json!({"command": cmd}),
            json!({"stdout": log, "stderr": "", "interrupted": false, "exit_code": if fails {1} else {0}}),
            || {},
        )
    }

    pub(crate) fn shell_tool(&self) -> &'static str {
        match self.harness {
            "gemini" => "run_shell_command",
            "copilot" => "bash",
            "cursor" => "Shell",
            _ => "Bash",
        }
    }

    /// Replaces `old` by `new` in `path`, on disk and as the harness's edit tool.
    pub(crate) fn edit(&self, path: &str, old: &str, new: &str) -> Answer {
        let repo = self.repo;
        let (tool, input) = match self.harness {
            "codex" => (
                "apply_patch",
                json!({"command": format!("*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n")}),
            ),
            "gemini" => (
                "replace",
                json!({"file_path": path, "old_string": old, "new_string": new}),
            ),
            "copilot" => (
                "edit",
                json!({"path": path, "old_str": old, "new_str": new}),
            ),
            // Cursor writes the whole file.
            "cursor" => (
                "Write",
                json!({"file_path": path, "content": repo.read(path).unwrap_or_default().replacen(old, new, 1)}),
            ),
            _ => (
                "Edit",
                json!({"file_path": path, "old_string": old, "new_string": new}),
            ),
        };
        self.call(tool, input, json!({"filePath": path}), || {
            let text = repo.read(path).unwrap_or_default();
            repo.write(path, text.replacen(old, new, 1));
        })
    }

    pub(crate) fn prompt(&self, text: &str) -> Answer {
        if let Some(t) = &self.transcript {
            append(
                t,
                &json!({"type": "user", "sessionId": self.session, "uuid": format!("p-{}", self.calls.borrow()), "isSidechain": false, "timestamp": "2026-11-26T10:00:02Z", "message": {"role": "user", "content": text}}),
            );
        }
        let name = self.event_name("prompt");
        let mut v = self.base_for(name);
        v["prompt"] = json!(text);
        self.send(name, None, v)
    }

    pub(crate) fn stop(&self, active: bool, message: &str) -> Answer {
        if let Some(t) = &self.transcript {
            append(
                t,
                &json!({"type": "assistant", "sessionId": self.session, "uuid": format!("s-{}", self.calls.borrow()), "isSidechain": false, "timestamp": "2026-11-26T10:00:03Z",
                "message": {"id": format!("msg_stop{}", self.calls.borrow()), "role": "assistant", "content": [{"type": "text", "text": message}], "usage": {"input_tokens": 10, "output_tokens": 5}}}),
            );
        }
        let name = self.event_name("stop");
        let mut v = self.base_for(name);
        if self.harness == "cursor" {
            // Cursor's stop: how the loop ended and how often a hook made it go on; no
            // last message.
            v["status"] = json!("completed");
            v["loop_count"] = json!(u8::from(active));
            return self.send(name, None, v);
        }
        v["stop_hook_active"] = json!(active);
        v["last_assistant_message"] = json!(message);
        if self.harness == "gemini" {
            v["prompt_response"] = json!(message);
        }
        self.send(name, None, v)
    }
}

fn append(path: &Path, line: &Value) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    writeln!(f, "{line}").unwrap();
}

/// The sessions' store of `repo`: under the user's state directory, out of the repository
/// (docs/agents/README.md, "State").
pub(crate) fn sessions_dir(repo: &TestRepo) -> PathBuf {
    let all = repo.home().join(".local/state/loopguard/repositories");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&all)
        .unwrap_or_else(|e| panic!("{}: {e}", all.display()))
        .map(|e| e.unwrap().path().join("sessions"))
        .collect();
    assert_eq!(dirs.len(), 1, "one repository's sessions: {dirs:?}");
    dirs.pop().unwrap()
}

/// A repository with `src/wc.py` whose test fails, and `init --agent <agents>`.
pub(crate) fn project(agents: &str) -> TestRepo {
    project_with(agents, None)
}

/// [`project`] with `config` as its `.loopguard.yml`.
pub(crate) fn project_with(agents: &str, config: Option<&str>) -> TestRepo {
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    if let Some(config) = config {
        repo.write(".loopguard.yml", config);
    }
    repo.write("src/wc.py", "def count(s):\n    return len(s)\n");
    repo.write(
        "tests/test_wc.py",
        "from src.wc import count\n\n\ndef test_count():\n    assert count(\"a b\") == 2\n",
    );
    repo.commit("Initial commit");
    lg(&repo).args(["init", "--agent", agents]).run().ok();
    repo.as_agent();
    repo
}
