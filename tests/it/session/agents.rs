//! Each agent's hooks end to end; each rule at the tool level; the prompt, the stop, the
//! constraint; Codex's answers against its schemas; hooks racing; replay against live.

use std::path::Path;

use serde_json::{Value, json};

use super::{Agent, FAIL, PASS, project};
use crate::support::{lg, status};

const STUCK: &str = "    return len(s)";

/// A looping Claude Code session: the same failure through three spellings of the test
/// command, a warning one step before, the trip, every call refused, a person's prompt,
/// the fix. Its hook inputs and answers go to `target/session-example.jsonl`.
#[test]
fn a_looping_claude_session_is_warned_stopped_and_resumed_by_a_prompt() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "sess-loop");
    a.prompt("the word count is wrong, fix it");
    assert!(a.pytest("pytest -q", FAIL).silent());
    assert!(a.edit("src/wc.py", STUCK, "    return len(s) - 1").silent());
    let warned = a.pytest("python -m pytest tests/test_wc.py", FAIL);
    let text = warned.text();
    assert_eq!(
        text,
        "loopguard: warning (same_error): the same failure (pytest: tests/test_wc.py::test_count, E assert 3 == 2) in 2 test runs in a row; one more opens the breaker and stops this session's tool calls — change approach, or ask the user"
    );
    assert!(
        a.edit(
            "src/wc.py",
            "    return len(s) - 1",
            "    return len(s.strip()) - 1"
        )
        .silent()
    );
    let tripped = a.pytest("pytest tests/", FAIL);
    assert!(
        tripped.text().contains("rule: same_error"),
        "{}",
        tripped.text()
    );
    assert!(
        tripped.text().contains(
            "what the loop cost since the repeated failure first came (c1): 5 tool calls"
        ),
        "{}",
        tripped.text()
    );
    // Every call is refused now, reads included, with the rule and the ways out.
    let denied = a.call("Read", json!({"file_path": "src/wc.py"}), json!({}), || {
        panic!("a denied call does not run")
    });
    assert!(denied.denied());
    assert!(
        denied
            .text()
            .contains("the user's next prompt starts a new episode"),
        "{}",
        denied.text()
    );
    assert_eq!(
        status(&repo)["sessions"][0]["state"],
        "open",
        "the branch's status shows the session's trip"
    );
    // A person's prompt: a new episode; the next call decides.
    let p = a.prompt("count words, not characters");
    assert!(p.text().contains("new episode"), "{}", p.text());
    assert!(
        a.edit(
            "src/wc.py",
            "    return len(s.strip()) - 1",
            "    return len(s.split())"
        )
        .silent()
    );
    assert!(a.pytest("pytest -q", PASS).silent());
    let s = lg(&repo)
        .args(["status", "--session", "sess-loop", "--json"])
        .run()
        .ok()
        .json();
    assert_eq!(s["state"], "closed");
    assert_eq!(s["iterations"], 7, "the budget counts the whole session");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("session-example.jsonl");
    let lines: Vec<String> = a
        .log
        .borrow()
        .iter()
        .map(|(e, i, o)| {
            json!({"event": e, "input": serde_json::from_str::<Value>(i).unwrap(), "answer": o})
                .to_string()
        })
        .collect();
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

#[test]
fn the_stop_is_blocked_once_and_never_with_stop_hook_active() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "sess-stop");
    a.prompt("fix the count");
    a.edit("src/wc.py", STUCK, "    return len(s) + 0");
    a.pytest("pytest -q", FAIL);
    assert!(
        a.stop(true, "Done! The count is fixed.").silent(),
        "stop_hook_active"
    );
    let blocked = a.stop(false, "Done! The count is fixed.");
    assert!(blocked.blocked(), "{:?}", blocked.json);
    assert!(
        blocked
            .text()
            .contains("the last run of `pytest -q` failed and no run of it passed since"),
        "{}",
        blocked.text()
    );
    assert!(a.stop(false, "Done! The count is fixed.").silent(), "once");
    assert!(
        a.stop(false, "The test still fails; I need the spec.")
            .silent(),
        "no claim"
    );
}

/// Claude Code's stop may not carry the agent's last words: they are read from the end of
/// the transcript, whose turn began at its first line.
#[test]
fn a_stop_without_the_last_words_reads_them_from_the_transcript() {
    let repo = project("claude");
    let mut a = Agent::new(&repo, "claude", "sess-tail");
    let transcript = repo.home().join("tail.jsonl");
    a.transcript = Some(transcript.clone());
    a.prompt("fix the count");
    a.edit("src/wc.py", STUCK, "    return len(s) + 0");
    a.pytest("pytest -q", FAIL);
    a.stop(true, "Done! The count is fixed.");
    let mut stop = a.base_for("Stop");
    stop["stop_hook_active"] = json!(false);
    let blocked = a.send("Stop", None, stop);
    assert!(blocked.blocked(), "{:?}", blocked.json);
}

#[test]
fn each_rule_at_the_tool_level() {
    // oscillation: a file returning to earlier content, twice.
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "osc");
    a.edit("src/wc.py", STUCK, "    return len(s.split())");
    a.edit("src/wc.py", "    return len(s.split())", STUCK);
    let t = a.edit("src/wc.py", STUCK, "    return len(s.split())");
    assert!(t.text().contains("rule: oscillation"), "{}", t.text());

    // same_error: the same failing command with the same error.
    let a = Agent::new(&repo, "claude", "same-call");
    for _ in 0..2 {
        a.call(
            "Bash",
            json!({"command": "ssh build make"}),
            json!("Error: Exit code 255\nssh: connect to host build port 22: Connection refused"),
            || {},
        );
    }
    let t = a.call(
        "Bash",
        json!({"command": "ssh build make"}),
        json!("Error: Exit code 255\nssh: connect to host build port 22: Connection refused"),
        || {},
    );
    assert!(
        t.text().contains("rule: same_error") && t.text().contains("failed the same way 3 times"),
        "{}",
        t.text()
    );

    // repeated_patch through a session config: an edit applied again, twice.
    // stagnation and budget with the session's limits lowered.
    let repo = project("claude");
    repo.write(
        ".loopguard.yml",
        "session: {stagnation: 5, max_calls: 100}\n",
    );
    lg(&repo).args(["reset", "--accept-config"]).run().ok();
    let a = Agent::new(&repo, "claude", "stag");
    let mut last = None;
    for i in 0..5 {
        last = Some(a.call(
            "Read",
            json!({"file_path": format!("src/m{i}.py")}),
            json!({"file": {"content": ""}}),
            || {},
        ));
    }
    assert!(last.unwrap().text().contains("rule: stagnation"));

    let repo = project("claude");
    repo.write(".loopguard.yml", "session: {max_calls: 3}\n");
    lg(&repo).args(["reset", "--accept-config"]).run().ok();
    let a = Agent::new(&repo, "claude", "budget");
    a.edit("src/wc.py", STUCK, "    return 1");
    a.edit("src/wc.py", "    return 1", "    return 2");
    let t = a.edit("src/wc.py", "    return 2", "    return 3");
    assert!(t.text().contains("rule: budget"), "{}", t.text());

    // edge_loop: a sub-agent is an edge, with its reasons in status.
    let repo = project("claude");
    repo.write(
        ".loopguard.yml",
        "session: {subagent_calls: 3, stagnation: 50}\n",
    );
    lg(&repo).args(["reset", "--accept-config"]).run().ok();
    let a = Agent::new(&repo, "claude", "edges");
    for i in 0..3 {
        let mut v = json!({"session_id": "edges", "cwd": repo.path().display().to_string(), "hook_event_name": "PostToolUse", "tool_name": "Grep",
            "tool_input": {"pattern": format!("fn{i}")}, "tool_response": {"matches": []}, "tool_use_id": format!("g{i}"), "agent_id": "a1", "agent_type": "Explore"});
        // The harness announces each call before its result.
        let mut pre = v.clone();
        pre["hook_event_name"] = json!("PreToolUse");
        pre.as_object_mut().unwrap().remove("tool_response");
        a.send("PreToolUse", Some("Grep"), pre);
        v["tool_response"] = json!({"output": ""});
        a.send("PostToolUse", Some("Grep"), v);
    }
    let s = lg(&repo).args(["status", "--session", "edges"]).run().ok();
    assert!(
        s.stdout.contains("rule: edge_loop")
            && s.stdout
                .contains("edge subagent:Explore: 3 tool calls without progress"),
        "{}",
        s.stdout
    );
    assert!(s.stdout.contains("- Grep: fn2 -> ok"), "{}", s.stdout);
}

#[test]
fn the_guard_cannot_be_switched_off_from_inside_the_session() {
    let repo = project("claude,gemini");
    let a = Agent::new(&repo, "claude", "guard");
    let d = a.call("Edit", json!({"file_path": format!("{}/.claude/settings.json", repo.path().display()), "old_string": "agent-hook", "new_string": "true"}), json!({}), || panic!("runs"));
    assert!(
        d.denied() && d.text().contains("(constraint)"),
        "{}",
        d.text()
    );
    let d = a.call(
        "Bash",
        json!({"command": "rm -rf .git/loopguard"}),
        json!({}),
        || panic!("runs"),
    );
    assert!(d.denied());
    let d = a.edit(
        "tests/test_wc.py",
        "def test_count():",
        "@pytest.mark.skip\ndef test_count():",
    );
    assert!(d.denied() && d.text().contains("test skip"), "{}", d.text());
    assert!(!repo.read("tests/test_wc.py").unwrap().contains("skip"));
    let g = Agent::new(&repo, "gemini", "guard-g");
    let d = g.call(
        "write_file",
        json!({"file_path": ".loopguard.yml", "content": "profile: yolo\n"}),
        json!({}),
        || panic!("runs"),
    );
    assert_eq!(d.json["decision"], "deny");
}

#[test]
fn gemini_and_copilot_answer_in_their_own_format() {
    for harness in ["gemini", "copilot", "codex", "cursor"] {
        let repo = project(harness);
        let a = Agent::new(&repo, harness, &format!("fmt-{harness}"));
        a.prompt("fix it");
        for _ in 0..3 {
            a.pytest("pytest -q", FAIL);
        }
        let d = a.call(
            a.shell_tool(),
            json!({"command": "ls"}),
            json!({"stdout": ""}),
            || panic!("runs"),
        );
        assert!(d.denied(), "{harness}: {:?}", d.json);
        match harness {
            "gemini" => assert_eq!(d.json["decision"], "deny"),
            "copilot" => assert_eq!(d.json["permissionDecision"], "deny"),
            "cursor" => assert_eq!(d.json["permission"], "deny"),
            _ => assert_eq!(d.json["hookSpecificOutput"]["permissionDecision"], "deny"),
        }
        assert!(d.text().contains("same_error"), "{harness}: {}", d.text());
    }
}

/// A looping Cursor session, driven through `.cursor/hooks.json` as `init --agent cursor`
/// wrote it, with Cursor's payloads: its `conversation_id`, its workspace roots, `Shell`
/// and `Write`, `tool_output` and `error_message`; every answer a JSON object.
#[test]
fn a_looping_cursor_session_in_cursors_own_format() {
    let repo = project("cursor");
    let config: Value = serde_json::from_str(&repo.read(".cursor/hooks.json").unwrap()).unwrap();
    assert_eq!(config["version"], 1);
    let exe = config["hooks"]["preToolUse"][0]["command"]
        .as_str()
        .unwrap();
    assert!(exe.ends_with("loopguard agent-hook cursor"), "{exe}");
    assert_eq!(config["hooks"]["preToolUse"][0]["timeout"], 30);
    let a = Agent::new(&repo, "cursor", "conv-cursor-1");
    let p = a.prompt("the word count is wrong, fix it");
    assert_eq!(
        p.json,
        json!({"continue": true}),
        "a person's prompt goes on"
    );
    let start = a.send("sessionStart", None, a.base_for("sessionStart"));
    assert_eq!(
        start.json,
        json!({}),
        "nothing to say: `{{}}`, never an empty stdout"
    );
    assert!(a.pytest("pytest -q", FAIL).silent());
    assert!(a.edit("src/wc.py", STUCK, "    return len(s) - 1").silent());
    assert_eq!(
        repo.read("src/wc.py").unwrap(),
        "def count(s):\n    return len(s) - 1\n"
    );
    let warned = a.pytest("python -m pytest tests/test_wc.py", FAIL);
    assert!(
        warned.json["additional_context"]
            .as_str()
            .is_some_and(|t| t.contains("loopguard: warning (same_error)")),
        "{:?}",
        warned.json
    );
    // A call Cursor reports as failed: `postToolUseFailure`.
    let failed = a.call(
        "Shell",
        json!({"command": "make lint"}),
        json!("make: *** [lint] Error 2"),
        || {},
    );
    assert!(failed.silent(), "{:?}", failed.json);
    let tripped = a.pytest("pytest tests/", FAIL);
    assert!(
        tripped.text().contains("rule: same_error"),
        "{:?}",
        tripped.json
    );
    let denied = a.call(
        "Read",
        json!({"file_path": "src/wc.py"}),
        json!("…"),
        || panic!("a denied call does not run"),
    );
    assert_eq!(denied.json["permission"], "deny");
    assert_eq!(denied.json["agent_message"], denied.json["user_message"]);
    assert!(denied.text().contains("ways out"), "{}", denied.text());
    let start = a.send("sessionStart", None, a.base_for("sessionStart"));
    assert!(
        start.json["additional_context"]
            .as_str()
            .is_some_and(|t| t.contains("the breaker of this session is open")),
        "{:?}",
        start.json
    );
    // Cursor's stop has no last message: a false "done" is not judged.
    assert_eq!(a.stop(false, "Done!").json, json!({}));
    let s = status(&repo);
    assert_eq!(s["sessions"][0]["agent"], "cursor");
    assert_eq!(s["sessions"][0]["id"], "conv-cursor-1");
    assert_eq!(s["sessions"][0]["state"], "open");
    // The next prompt: a new episode, said to the person (Cursor's prompt reads no text).
    let p = a.prompt("count words, not characters");
    assert_eq!(p.json, json!({"continue": true}));
    assert!(p.stderr.contains("new episode"), "{}", p.stderr);
}

/// `init --agent cursor` and `uninstall --agent cursor` with the real binary: the user's
/// own `.cursor/hooks.json` keeps its hooks, keys and layout, a second run adds nothing,
/// and uninstalling gives the file back byte for byte; the file is guarded.
#[test]
fn init_and_uninstall_cursor_keep_the_users_hooks() {
    let repo = crate::support::TestRepo::new();
    repo.write("README.md", "x\n");
    let users = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [\n      {\n        \"command\": \"./hooks/format.sh\"\n      }\n    ],\n    \"preToolUse\": [\n      {\n        \"command\": \"./hooks/audit.sh\",\n        \"matcher\": \"Shell\"\n      }\n    ]\n  }\n}\n";
    repo.write(".cursor/hooks.json", users);
    repo.commit("init");
    lg(&repo)
        .args(["init", "--no-hooks", "--agent", "cursor"])
        .run()
        .ok()
        .stderr_has("Cursor: hooked in (.cursor/hooks.json)");
    let once = repo.read(".cursor/hooks.json").unwrap();
    assert!(
        once.starts_with("{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [\n      {\n        \"command\": \"./hooks/format.sh\"\n      }\n    ],\n    \"preToolUse\": [\n      {\n        \"command\": \"./hooks/audit.sh\",\n        \"matcher\": \"Shell\"\n      },\n      {\n        \"type\": \"command\",\n        \"command\": \""),
        "the user's hooks first, in their layout, loopguard's after: {once}"
    );
    let v: Value = serde_json::from_str(&once).unwrap();
    let events: Vec<&str> = v["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for e in [
        "sessionStart",
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "stop",
        "subagentStop",
    ] {
        assert!(events.contains(&e), "{e}: {events:?}");
    }
    assert_eq!(v["hooks"]["afterFileEdit"].as_array().unwrap().len(), 1);
    lg(&repo)
        .args(["init", "--no-hooks", "--agent", "cursor"])
        .run()
        .ok()
        .stderr_has("already hooked in");
    assert_eq!(
        repo.read(".cursor/hooks.json").unwrap(),
        once,
        "a second run adds nothing"
    );
    // From inside a session, the file is the agent's guard: not to be written.
    repo.as_agent();
    let a = Agent::new(&repo, "cursor", "conv-guard");
    for (tool, input) in [
        (
            "Write",
            json!({"file_path": ".cursor/hooks.json", "content": "{}"}),
        ),
        ("Shell", json!({"command": "rm .cursor/hooks.json"})),
    ] {
        let d = a.call(tool, input, json!(""), || panic!("runs"));
        assert!(
            d.denied() && d.text().contains("(constraint)"),
            "{tool}: {:?}",
            d.json
        );
    }
    lg(&repo)
        .args(["uninstall", "--agent", "cursor"])
        .run()
        .ok()
        .stderr_has("Cursor: loopguard's hooks removed (.cursor/hooks.json)");
    assert_eq!(
        repo.read(".cursor/hooks.json").unwrap(),
        users,
        "the user's file again, byte for byte"
    );
    // A repository without the file: init makes it, uninstall leaves none (nothing but the
    // version would be left: no file that was not there).
    let fresh = crate::support::TestRepo::new();
    fresh.write("README.md", "x\n");
    fresh.commit("init");
    lg(&fresh)
        .args(["init", "--no-hooks", "--agent", "cursor"])
        .run()
        .ok();
    let made = fresh.read(".cursor/hooks.json").unwrap();
    assert!(
        made.find("\"version\": 1") < made.find("\"hooks\""),
        "the version first: {made}"
    );
    lg(&fresh)
        .args(["uninstall", "--agent", "cursor"])
        .run()
        .ok();
    assert_eq!(fresh.read(".cursor/hooks.json"), None);
    assert!(!fresh.path().join(".cursor").exists());
}

/// Python with `jsonschema`: the `.ci/run` tools venv when there is one. The test fails
/// without it, saying so, rather than skip.
fn python() -> std::path::PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ci-tools/bin/python");
    let python: std::path::PathBuf = if venv.exists() {
        venv
    } else {
        "python3".into()
    };
    let has = std::process::Command::new(&python)
        .args(["-c", "import jsonschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has,
        "{} cannot import jsonschema, and Codex's answers are checked against its published schemas; \
         hint: pip install jsonschema (.ci/test-deps.sh installs what the tests need)",
        python.display()
    );
    python
}

#[test]
fn every_codex_answer_fits_its_published_schema() {
    let repo = project("codex");
    let a = Agent::new(&repo, "codex", "codex-schema");
    a.send("SessionStart", None, {
        let mut v = a.base_for("SessionStart");
        v["source"] = json!("startup");
        v
    });
    a.prompt("fix the count");
    a.pytest("pytest -q", FAIL);
    a.edit("src/wc.py", STUCK, "    return len(s) - 1");
    a.pytest("pytest -q", FAIL);
    a.edit(
        "src/wc.py",
        "    return len(s) - 1",
        "    return len(s) - 2",
    );
    a.pytest("pytest -q", FAIL);
    a.call("Bash", json!({"command": "ls"}), json!({}), || {});
    a.stop(false, "Done, fixed.");
    a.send("SessionStart", None, a.base_for("SessionStart"));
    a.prompt("go on");
    a.stop(false, "Done.");
    // loopguard failing itself: a broken input.
    let schema_of = |event: &str| match event {
        "PreToolUse" => "pre-tool-use",
        "PostToolUse" => "post-tool-use",
        "SessionStart" => "session-start",
        "Stop" => "stop",
        "UserPromptSubmit" => "user-prompt-submit",
        other => panic!("{other}"),
    };
    let mut cases = Vec::new();
    for (event, _, answer) in a.log.borrow().iter() {
        if !answer.is_empty() {
            cases.push(json!({"schema": schema_of(event), "answer": serde_json::from_str::<Value>(answer).unwrap()}));
        }
    }
    let kinds: Vec<String> = cases
        .iter()
        .map(|c| c["schema"].as_str().unwrap().to_owned())
        .collect();
    for want in [
        "pre-tool-use",
        "post-tool-use",
        "session-start",
        "stop",
        "user-prompt-submit",
    ] {
        assert!(
            kinds.iter().any(|k| k == want),
            "no {want} answer to check: {kinds:?}"
        );
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex-hooks");
    let script = "import json, sys, jsonschema\n\
        d = sys.argv[1]\n\
        for c in json.load(sys.stdin):\n\
        \x20   jsonschema.validate(c['answer'], json.load(open(f\"{d}/{c['schema']}.json\")))\n\
        print('ok')\n";
    let mut cmd = std::process::Command::new(python());
    cmd.args(["-c", script]).arg(&dir);
    let ran = crate::support::run_within(
        cmd,
        Some(Value::Array(cases).to_string().into_bytes()),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(
        ran.code,
        Some(0),
        "an answer does not fit Codex's schema:\n{}",
        ran.stderr
    );
    // An unknown field would be rejected: the check is real.
    let mut cmd = std::process::Command::new(python());
    cmd.args(["-c", script]).arg(&dir);
    let bad = json!([{"schema": "pre-tool-use", "answer": {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}, "loopguard": 1}}]);
    let ran = crate::support::run_within(
        cmd,
        Some(bad.to_string().into_bytes()),
        std::time::Duration::from_secs(60),
    );
    assert_ne!(ran.code, Some(0));
    // loopguard failing: a message, exit 0, and still the schema's shape.
    let r = lg(&repo)
        .args(["agent-hook", "codex"])
        .stdin("{not json")
        .run()
        .ok();
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(
        v.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["systemMessage"]
    );
}

#[test]
fn init_merges_keeps_the_users_hooks_and_uninstall_takes_only_loopguards() {
    let repo = crate::support::TestRepo::new();
    repo.write("README.md", "x\n");
    // The user's keys out of alphabetical order (`permissions` before `hooks`, `type`
    // before `command`), on one line.
    let users = "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}, \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./notify.sh\"}]}]}}\n";
    repo.write(".claude/settings.json", users);
    repo.commit("init");
    // Agent hooks alone: no git hooks.
    lg(&repo)
        .args(["init", "--no-hooks", "--agent", "claude"])
        .run()
        .ok();
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
    let once = repo.read(".claude/settings.json").unwrap();
    lg(&repo)
        .args(["init", "--no-hooks", "--agent", "claude"])
        .run()
        .ok()
        .stderr_has("already hooked in");
    assert_eq!(
        repo.read(".claude/settings.json").unwrap(),
        once,
        "a second run adds nothing"
    );
    let v: Value = serde_json::from_str(&once).unwrap();
    assert_eq!(v["permissions"]["allow"][0], "Bash(ls)");
    assert!(
        once.starts_with("{\"permissions\": {\"allow\": [\"Bash(ls)\"]}, \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./notify.sh\"}]}, "),
        "the user's keys in their order, on one line as they were: {once}"
    );
    assert_eq!(once.lines().count(), 1, "{once}");
    assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), 2);
    // Together: git hooks and a second agent.
    lg(&repo).args(["init", "--agent", "copilot"]).run().ok();
    assert!(repo.path().join(".git/hooks/pre-commit").exists());
    lg(&repo)
        .args(["uninstall", "--agent", "claude,copilot"])
        .run()
        .ok();
    let v: Value = serde_json::from_str(&repo.read(".claude/settings.json").unwrap()).unwrap();
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "./notify.sh");
    assert_eq!(v["hooks"].as_object().unwrap().len(), 1);
    assert_eq!(
        repo.read(".claude/settings.json").unwrap(),
        users,
        "the user's file again, byte for byte"
    );
    assert!(repo.read(".github/hooks/loopguard.json").is_none());
    assert!(
        repo.path().join(".git/hooks/pre-commit").exists(),
        "the git hooks stay"
    );
    // A broken file: exit 2 naming it, nothing lost.
    repo.write(".codex/hooks.json", "{\"hooks\": {},}\n");
    lg(&repo)
        .args(["init", "--agent", "codex"])
        .run()
        .code(2)
        .stderr_has(".codex/hooks.json:1:14: not valid JSON");
    assert_eq!(
        repo.read(".codex/hooks.json").unwrap(),
        "{\"hooks\": {},}\n"
    );
}

#[test]
fn hooks_racing_lose_no_call() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "race");
    let commands = a.commands("PostToolUse", Some("Read"));
    let root = repo.path().display().to_string();
    std::thread::scope(|s| {
        for i in 0..8 {
            let post = json!({"session_id": "race", "cwd": root, "hook_event_name": "PostToolUse", "tool_name": "Read",
                "tool_input": {"file_path": format!("src/f{i}.py")}, "tool_response": {"file": {"content": "x"}}, "tool_use_id": format!("r{i}")});
            let mut pre = post.clone();
            pre["hook_event_name"] = json!("PreToolUse");
            pre.as_object_mut().unwrap().remove("tool_response");
            let cmds: Vec<_> = [pre, post]
                .into_iter()
                .map(|input| {
                    let mut cmd = repo.command("sh");
                    cmd.args(["-c", &commands[0]]);
                    (cmd, input)
                })
                .collect();
            s.spawn(move || {
                // Each call announced, then its result: eight calls in parallel.
                for (cmd, input) in cmds {
                    let ran = crate::support::run_within(
                        cmd,
                        Some(input.to_string().into_bytes()),
                        std::time::Duration::from_secs(60),
                    );
                    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
                }
            });
        }
    });
    let s = lg(&repo)
        .args(["status", "--session", "race", "--json"])
        .run()
        .ok()
        .json();
    assert_eq!(s["iterations"], 8, "{s}");
}

#[test]
fn a_replay_of_the_transcript_agrees_with_the_live_hooks() {
    let repo = project("claude");
    let mut a = Agent::new(&repo, "claude", "sess-replay");
    let transcript = repo.home().join("transcript.jsonl");
    a.transcript = Some(transcript.clone());
    a.prompt("fix the count");
    a.call(
        "Read",
        json!({"file_path": "src/wc.py"}),
        json!({"type": "text", "file": {"content": "def count(s)"}}),
        || {},
    );
    a.pytest("pytest -q", FAIL);
    a.edit("src/wc.py", STUCK, "    return len(s) - 1");
    a.pytest("pytest -q", FAIL);
    a.edit("src/wc.py", "    return len(s) - 1", STUCK);
    a.pytest("pytest -q", FAIL);
    a.call(
        "Read",
        json!({"file_path": "tests/test_wc.py"}),
        json!({}),
        || {},
    );
    a.stop(false, "Done, fixed.");
    let (live, replay) = live_and_replay(&repo, "sess-replay", &transcript);
    assert_eq!(
        replay["answers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["answer"] == "deny")
            .count(),
        1,
        "the last Read was denied"
    );
    assert!(
        live["history"][0]["call"]["tokens"].as_u64().unwrap() > 0,
        "tokens from the transcript"
    );
}

/// `report --session --json` of the live session and `replay --json` of its transcript,
/// once they are shown to agree: the verdict, the counters, every call (its action,
/// outcome, tree and tokens) and every event.
fn live_and_replay(repo: &crate::support::TestRepo, id: &str, transcript: &Path) -> (Value, Value) {
    let live = lg(repo)
        .args(["report", "--session", id, "--json"])
        .run()
        .ok()
        .json();
    let replay = lg(repo)
        .arg("replay")
        .arg("--json")
        .arg(transcript)
        .run()
        .code(1)
        .json();
    for key in ["state", "rule", "reason", "iterations", "counters"] {
        assert_eq!(live[key], replay[key], "{key}");
    }
    let calls = |doc: &Value| -> Vec<Value> {
        doc["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|it| {
                json!([
                    it["id"],
                    it["call"]["action"],
                    it["call"]["outcome"],
                    it["tree"],
                    it["call"]["tokens"]
                ])
            })
            .collect()
    };
    assert_eq!(
        calls(&live),
        calls(&replay),
        "the same calls, outcomes, trees and tokens"
    );
    let kinds = |doc: &Value| -> Vec<(String, Option<String>)> {
        doc["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["kind"].as_str().unwrap().to_owned(),
                    e["rule"].as_str().map(str::to_owned),
                )
            })
            .collect()
    };
    assert_eq!(kinds(&live), kinds(&replay));
    (live, replay)
}

/// A session longer than its run keeps: the hooks keep its latest calls and put the rest
/// in its calls log, the same failure 11 calls apart still trips, the report shows every
/// call, and a replay of the transcript agrees with the hooks.
#[test]
fn a_long_session_keeps_its_latest_calls_and_its_replay_agrees() {
    let repo = super::project_with("claude", Some("session:\n  window: 3\n"));
    let mut a = Agent::new(&repo, "claude", "sess-long");
    let transcript = repo.home().join("long.jsonl");
    a.transcript = Some(transcript.clone());
    a.prompt("fix the count");
    let mut last = None;
    for round in 0..3 {
        last = Some(a.pytest("pytest -q", FAIL));
        if round < 2 {
            for i in 0..4 {
                a.call(
                    "Read",
                    json!({"file_path": format!("src/r{round}{i}.py")}),
                    json!({"file": {"content": "x"}}),
                    || {},
                );
            }
        }
    }
    let tripped = last.unwrap().text();
    assert!(
        tripped.contains("rule: same_error")
            && tripped.contains("since the repeated failure first came (c1): 11 tool calls"),
        "{tripped}"
    );
    assert!(
        a.call("Read", json!({"file_path": "x.py"}), json!({}), || {})
            .denied()
    );
    assert!(a.stop(false, "Done, fixed.").blocked());
    // The run keeps its latest calls; its calls log holds the others.
    let store = super::sessions_dir(&repo);
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(store.join("runs/sess-long.json")).unwrap())
            .unwrap();
    let kept = run["iterations"].as_array().unwrap().len();
    assert!(kept < 6, "{kept} calls kept");
    let logged = std::fs::read_to_string(store.join("calls/session-claude-sess-long.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(logged + kept, 11);
    let (live, _) = live_and_replay(&repo, "sess-long", &transcript);
    assert_eq!(live["history"].as_array().unwrap().len(), 11, "every call");
    assert_eq!(live["iterations"], 11);
}

#[test]
fn a_codex_rollout_replays() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sessions/codex-rollout.jsonl");
    let repo = crate::support::TestRepo::new();
    let r = lg(&repo)
        .arg("replay")
        .arg("--json")
        .arg(&file)
        .run()
        .code(1);
    let v = r.json();
    assert_eq!(v["rule"], "same_error", "{}", r.stdout);
    assert!(
        v["answers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["answer"] == "context"
                && x["text"].as_str().unwrap().contains("warning (same_error)"))
    );
}

#[test]
fn a_claude_transcript_with_a_sidechain_replays() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sessions/claude-sidechain.jsonl");
    let repo = crate::support::TestRepo::new();
    let r = lg(&repo).arg("replay").arg(&file).run().code(1);
    assert!(r.stdout.contains("rule: same_error"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("edge subagent:a91b: 2 tool calls without progress"),
        "{}",
        r.stdout
    );
}

#[test]
fn commits_during_a_session_are_iterations_of_the_branch() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "commits");
    a.edit("src/wc.py", STUCK, "    return len(s.split())");
    repo.commit("Count words");
    let s = status(&repo);
    assert_eq!(s["iterations"], 1);
    assert_eq!(s["sessions"][0]["id"], "commits");
    let s = lg(&repo)
        .args(["status", "--session", "commits"])
        .run()
        .ok();
    assert!(
        s.stdout.contains("branch main: breaker closed"),
        "{}",
        s.stdout
    );
}

/// A session counts tool calls, a branch iterations, in every format: `status` and
/// `report --session` in text, markdown and HTML never say "iterations" of a session, and
/// the branch's status and report never say "tool calls". `report --session` honours the
/// format flags as a branch's report does.
#[test]
fn a_session_counts_tool_calls_and_a_branch_iterations() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "units");
    a.edit("src/wc.py", STUCK, "    return len(s) - 1");
    for _ in 0..3 {
        a.pytest("pytest -q", FAIL);
    }
    let out = |args: &[&str]| lg(&repo).args(args).run().ok().stdout;
    let text = out(&["status", "--session", "units"]);
    assert!(text.contains("tool calls: 4 (profile"), "{text}");
    assert!(text.contains("in 3 test runs in a row"), "{text}");
    let md = out(&["report", "--session", "units", "--markdown"]);
    assert!(md.contains("- **Tool calls:** 4"), "{md}");
    assert!(md.contains("## Recent tool calls\n\n| # | call |"), "{md}");
    let plain = out(&["report", "--session", "units", "--text"]);
    assert!(
        plain.contains("tool calls: ") && plain.contains("recent tool calls:"),
        "{plain}"
    );
    assert!(!plain.contains("## "), "--text is no markdown: {plain}");
    let html = out(&["report", "--session", "units", "--html"]);
    assert!(
        html.contains("<dt>Tool calls</dt><dd>4</dd>") && html.contains("<h2>Tool calls</h2>"),
        "{html}"
    );
    let json = lg(&repo)
        .args(["report", "--session", "units", "--json"])
        .run()
        .ok()
        .json();
    assert_eq!(json["iterations"], 4, "the JSON keeps its keys");
    for (what, doc) in [
        ("status", &text),
        ("markdown", &md),
        ("text", &plain),
        ("html", &html),
    ] {
        assert!(
            !doc.to_lowercase().contains("iteration"),
            "a session's {what} says iterations: {doc}"
        );
    }
    // The branch counts its commits as iterations.
    repo.commit("Count words");
    let branch = out(&["status"]);
    assert!(branch.contains("iterations: 1 (profile"), "{branch}");
    let report = out(&["report", "--markdown"]);
    assert!(
        report.contains("- **Iterations:** 1") && report.contains("## Recent iterations"),
        "{report}"
    );
    assert!(!report.contains("tool call"), "{report}");
    // Its status lists the session after its own lines, each in its own unit.
    let (own, sessions) = branch
        .split_once("sessions:\n")
        .expect("the session listed");
    assert!(!own.contains("tool call"), "{branch}");
    assert!(
        sessions.contains("claude units 4 tool calls, breaker open (same_error)"),
        "{branch}"
    );
}

/// Scripted sessions that are warned one step before a trip: some change approach, some
/// don't. How many recovered is what the warning is for.
#[test]
fn warned_sessions_that_change_approach_recover() {
    let repo = project("claude");
    let mut warned = 0;
    let mut recovered = 0;
    for (n, heeds) in [true, true, false, true, false].into_iter().enumerate() {
        let a = Agent::new(&repo, "claude", &format!("warned-{n}"));
        a.pytest("pytest -q", FAIL);
        let w = a.pytest("pytest -q", FAIL);
        assert!(
            w.text().contains("one more opens the breaker"),
            "{}",
            w.text()
        );
        warned += 1;
        let last = if heeds {
            a.call(
                "Read",
                json!({"file_path": "tests/test_wc.py"}),
                json!({}),
                || {},
            );
            a.edit("src/wc.py", "len(s)", "len(s.split())");
            let r = a.pytest("pytest -q", PASS);
            a.edit("src/wc.py", "len(s.split())", "len(s)");
            r
        } else {
            a.pytest("pytest -q", FAIL)
        };
        let open = lg(&repo)
            .args(["status", "--session", &format!("warned-{n}"), "--json"])
            .run()
            .ok()
            .json()["state"]
            == "open";
        if !open {
            recovered += 1;
        }
        assert_eq!(open, !heeds, "{n}: {}", last.text());
    }
    assert_eq!((warned, recovered), (5, 3));
}

#[test]
fn the_git_hooks_warn_one_commit_before_a_trip() {
    let repo = crate::support::guarded("");
    repo.commit_empty("try 1");
    repo.tick();
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "try 2"]);
    let out = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.contains("loopguard: warning (stagnation): no progress in 2 iterations in a row"),
        "{out}"
    );
}
