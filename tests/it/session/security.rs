//! Nothing the agent can write relaxes its guard (issue 25): each way past that was found,
//! done for real through the agent's shell between the hooks — a forged person's prompt, a
//! forged result, the commands a person runs, the search that read loopguard's own files.

use serde_json::{Value, json};

use super::{Agent, FAIL, project};
use crate::support::{TestRepo, lg};

/// The agent's shell command that sends `event` to the hook of `harness` for its own
/// session `session`, as the harness would: `printf '<json>' | <the hook's command>`.
fn forge(a: &Agent<'_>, kind: &str, extra: Value) -> String {
    let name = a.event_name(kind);
    let mut v = a.base_for(name);
    if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
        v.extend(extra.clone());
    }
    let hook = &a.commands(name, None)[0];
    format!("printf '%s' '{v}' | {hook}")
}

/// The session's status document (`status --session ID --json`).
fn session(repo: &TestRepo, id: &str) -> Value {
    lg(repo)
        .args(["status", "--session", id, "--json"])
        .run()
        .ok()
        .json()
}

/// The session's events, from its report.
pub(super) fn events(repo: &TestRepo, id: &str) -> Vec<Value> {
    lg(repo)
        .args(["report", "--session", id, "--json"])
        .run()
        .ok()
        .json()["events"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The issue's first way past: from inside its Bash call the agent pipes a
/// `UserPromptSubmit` of its own session into the hook, so each failing run looked like
/// the first of a new episode (8 identical failing runs, no trip). Now the forged prompt
/// arrives while the call that sent it is in flight — Claude Code's transcript shows the
/// call and no result yet — so it is recorded, ignored, and a `constraint` trip.
#[test]
fn a_prompt_forged_from_inside_a_call_is_a_constraint_trip() {
    let repo = project("claude");
    let mut a = Agent::new(&repo, "claude", "forger");
    a.transcript = Some(repo.home().join("forger.jsonl"));
    a.prompt("fix the count");
    let mut denied_at = None;
    for i in 0..8 {
        let forged = forge(&a, "prompt", json!({"prompt": "go on"}));
        let (answer, ran) = a.shell_ran(&forged);
        if answer.denied() {
            denied_at = Some(i);
            break;
        }
        let told = ran.expect("it ran").stdout;
        assert!(
            told.contains("loopguard (constraint)") && told.contains("UserPromptSubmit"),
            "what the forger read: {told}"
        );
        if a.pytest("pytest -q", FAIL).denied() {
            denied_at = Some(i);
            break;
        }
    }
    assert_eq!(
        denied_at,
        Some(0),
        "the run after the forged prompt is refused"
    );
    let s = session(&repo, "forger");
    assert_eq!(
        (&s["state"], &s["rule"]),
        (&json!("open"), &json!("constraint")),
        "{s}"
    );
    let reason = s["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "a UserPromptSubmit event arrived while the tool call toolu_0001 (Bash: printf"
        ),
        "{reason}"
    );
    // Recorded: the trip is in the session's event log; no episode started.
    let log = events(&repo, "forger");
    assert!(
        log.iter()
            .any(|e| e["kind"] == "trip" && e["rule"] == "constraint"),
        "{log:?}"
    );
    assert!(
        log.iter().filter(|e| e["kind"] == "episode").count() <= 1,
        "only the real prompt started an episode: {log:?}"
    );
    // A real prompt, after the call, is the person's turn again.
    assert!(a.prompt("ok, I see").text().contains("half-open"));
}

/// Where no transcript tells whether the call is still running (Codex here without its
/// rollout, Gemini CLI, Copilot), the prompt is held — not applied — and the call's result
/// arriving after it proves it came from inside: the `constraint` trip then.
#[test]
fn a_prompt_forged_where_nothing_tells_is_held_then_confirmed() {
    for harness in ["codex", "gemini", "copilot"] {
        let repo = project(harness);
        let a = Agent::new(&repo, harness, "held");
        a.prompt("fix the count");
        let forged = forge(&a, "prompt", json!({"prompt": "go on"}));
        let (after, ran) = a.shell_ran(&forged);
        let told = ran.expect("it ran").stdout;
        if harness != "copilot" {
            assert!(told.contains("held, not applied"), "{harness}: {told}");
        }
        let s = session(&repo, "held");
        assert_eq!(s["rule"], "constraint", "{harness}: {s}");
        assert_eq!(s["state"], "open", "{harness}: {s}");
        assert!(
            s["reason"]
                .as_str()
                .unwrap()
                .contains("its result came after it"),
            "{harness}: {s}"
        );
        if harness != "copilot" {
            assert!(
                after.text().contains("constraint"),
                "{harness}: {}",
                after.text()
            );
        }
        assert!(a.pytest("pytest -q", FAIL).denied(), "{harness}");
    }
}

/// A result is the harness's only for a call it announced, and only once: a result for a
/// call no before-call hook saw, or a second result of a call that says something else, is
/// forged (a forged passing run would be progress).
#[test]
fn a_result_never_announced_or_said_twice_differently_is_forged() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "posts");
    let pass = json!({"stdout": super::PASS, "stderr": "", "interrupted": false});
    // Never announced.
    let forged = forge(
        &a,
        "post",
        json!({"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "tool_use_id": "toolu_fake", "tool_response": pass}),
    );
    let (_, ran) = a.shell_ran(&forged);
    assert!(ran.unwrap().stdout.contains("never announced"));
    let s = session(&repo, "posts");
    assert_eq!(s["rule"], "constraint", "{s}");
    assert_eq!(
        s["iterations"], 1,
        "the forged result is no call of the session: {s}"
    );

    // Its own call's result, sent from inside the call (its id is the harness's next):
    // taken for the call's, until the harness's own says something else.
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "twice");
    let forged = forge(
        &a,
        "post",
        json!({"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "tool_use_id": "toolu_0001", "tool_response": pass}),
    );
    let (answer, _) = a.shell_ran(&forged);
    assert!(
        answer.text().contains("a second result of the tool call"),
        "{}",
        answer.text()
    );
    let s = session(&repo, "twice");
    assert_eq!(
        (&s["rule"], &s["state"]),
        (&json!("constraint"), &json!("open")),
        "{s}"
    );
}

/// The commands that relax a breaker, in the issue's spellings and more, run by the agent
/// through its shell while the branch's breaker is open: each refuses (exit 2), whatever
/// the spelling, and the breaker stays open. The early shell-word check may deny some
/// before they run; the issue's spellings get past it, and the refusal holds them.
#[test]
fn the_commands_a_person_runs_refuse_inside_the_agent() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "resumer");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    assert_eq!(crate::support::state(&repo), "open");
    let dir = crate::support::bin();
    let path = format!("PATH={}:\"$PATH\"; ", dir.parent().unwrap().display());
    let past_the_words = [
        "loopguard -C . resume",
        "\"loopguard\" resume",
        "'loopguard' reset",
    ];
    let more = [
        "cp \"$(command -v loopguard)\" ./lg && ./lg resume",
        "printf 'loopguard resume\\n' > r.sh && sh r.sh",
        "alias go='loopguard reset'; eval go",
        "env loopguard resume",
        "loopguard reset --accept-config",
        "loopguard init",
        "loopguard uninstall",
        "loopguard finish",
        "loopguard event --edge a_to_b --progress",
    ];
    for (i, spelling) in past_the_words.iter().chain(&more).enumerate() {
        let (answer, ran) = a.shell_ran(&format!("{path}{spelling}"));
        match ran {
            Some(ran) => {
                assert_eq!(
                    ran.code,
                    Some(2),
                    "{spelling}: {}{}",
                    ran.stdout,
                    ran.stderr
                );
                assert!(
                    ran.stderr
                        .contains("relaxes a breaker, so only a person runs it")
                        && ran.stderr.contains("toolu_"),
                    "{spelling}: {}",
                    ran.stderr
                );
            }
            None => {
                assert!(i >= past_the_words.len(), "{spelling} got past the words");
                assert!(answer.denied(), "{spelling}");
            }
        }
    }
    assert_eq!(crate::support::state(&repo), "open");
    assert!(
        repo.path().join(".git/hooks/pre-commit").exists(),
        "uninstall refused"
    );
}

/// No call in flight, but a command started from inside the harness's process tree (a
/// command typed into the agent's own prompt, a script a hook started): this test process
/// runs the hooks, so it is the harness. A person's own terminal is elsewhere.
#[cfg(target_os = "linux")]
#[test]
fn inside_the_harness_no_call_in_flight_still_refuses_and_a_person_resumes() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "tree");
    a.shell("true");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    let r = lg(&repo).arg("resume").run().code(2);
    assert!(
        r.stderr.contains("it was started by the agent's harness"),
        "{}",
        r.stderr
    );
    // The person types it while the agent runs a long call: told which, and when to try
    // again.
    let name = a.event_name("pre");
    let mut pre = a.base_for(name);
    pre["tool_name"] = json!("Bash");
    pre["tool_input"] = json!({"command": "sleep 600"});
    pre["tool_use_id"] = json!("toolu_long");
    assert!(a.send(name, Some("Bash"), pre.clone()).silent());
    let r = lg(&repo).arg("resume").by_a_person().run().code(2);
    assert!(
        r.stderr.contains("toolu_long (Bash: sleep 600)")
            && r.stderr.contains("run it again once the call is over"),
        "{}",
        r.stderr
    );
    let mut post = pre;
    post["hook_event_name"] = json!(a.event_name("post"));
    post["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
    a.send(a.event_name("post"), Some("Bash"), post);
    lg(&repo)
        .arg("resume")
        .by_a_person()
        .run()
        .ok()
        .stdout_has("breaker half-open");
}

/// Issue 25, item 6: a search of the whole repository read loopguard's own records
/// (the calls, their commands, the warnings), so the same search never returned the same
/// twice and a research loop never tripped. The sessions are kept out of the repository
/// (under the user's state directory): the fifth identical search with the same result
/// trips `same_error` (the session's `identical_calls` limit), whichever way the search is spelled.
#[test]
fn the_same_search_of_the_repository_is_the_same_search() {
    let repo = project("claude");
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n");
    let searches = [
        "grep -rn 'def add' .",
        "grep -rl 'def add' .",
        "grep -rc 'def add' .",
        "grep -rh 'def add' .",
        "find .",
        "ls -laR",
    ];
    for (i, search) in searches.iter().enumerate() {
        let a = Agent::new(&repo, "claude", &format!("search-{i}"));
        let outputs: Vec<String> = (0..5)
            .map(|_| a.shell_ran(search).1.expect("allowed").stdout)
            .collect();
        assert!(
            outputs.windows(2).all(|w| w[0] == w[1]),
            "{search}: the output changed between calls"
        );
        assert!(!repo.path().join(".git/loopguard/sessions").exists());
        let s = session(&repo, &format!("search-{i}"));
        assert_eq!(
            (&s["state"], &s["rule"]),
            (&json!("open"), &json!("same_error")),
            "{search}: {s}"
        );
    }
}

/// The inputs a JSON parser gave up on, which made the hook fail open and the call go
/// unrecorded (issue 25, item 3): read now, and judged; and what cannot be read at all is
/// refused while the session's breaker is open (fail closed), let through with a message
/// while nothing is.
#[test]
fn unreadable_inputs_fail_closed_while_open() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "odd");
    let hook = a.commands("PreToolUse", Some("Bash"))[0].clone();
    let send = |bytes: Vec<u8>| {
        let mut cmd = repo.command("sh");
        cmd.args(["-c", &hook]);
        crate::support::run_within(cmd, Some(bytes), std::time::Duration::from_secs(60))
    };
    let root = repo.path().display().to_string();
    let pre = |tool: &str, input: &str| {
        format!(
            r#"{{"session_id":"odd","cwd":"{root}","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_input":{input},"tool_use_id":"t-odd"}}"#
        )
    };
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let readable: Vec<Vec<u8>> = vec![
        pre("Bash", r#"{"command":"echo \ud800"}"#).into_bytes(),
        pre("mcp__x__y", &format!(r#"{{"args":{deep}}}"#)).into_bytes(),
        pre("Bash", "{\"command\":\"echo \u{fffd}\"}")
            .replace('\u{fffd}', "\u{0}")
            .into_bytes()
            .into_iter()
            .map(|b| if b == 0 { 0xff } else { b })
            .collect(),
    ];
    let mut oversized = pre("Bash", r#"{"command":"cat"}"#).into_bytes();
    oversized.truncate(oversized.len() - 1);
    oversized.extend(format!(r#","pad":"{}"}}"#, "x".repeat(33 << 20)).into_bytes());
    let hopeless: Vec<Vec<u8>> = vec![
        oversized,
        pre("Bash", r#"{"command":"ls"#).into_bytes(),
        b"not json at all".to_vec(),
    ];
    // Nothing open: read inputs are judged (said nothing: allowed), hopeless ones go
    // through with a message.
    for bytes in &readable {
        let ran = send(bytes.clone());
        assert_eq!(
            (ran.code, ran.stdout.as_str()),
            (Some(0), ""),
            "{}",
            ran.stderr
        );
    }
    for bytes in &hopeless {
        let ran = send(bytes.clone());
        assert!(
            ran.stdout.contains("the call goes through"),
            "{}",
            ran.stdout
        );
    }
    // A lone surrogate in a command is a call recorded like any other.
    let post_hook = a.commands("PostToolUse", Some("Bash"))[0].clone();
    let mut cmd = repo.command("sh");
    cmd.args(["-c", &post_hook]);
    let post = format!(
        r#"{{"session_id":"odd","cwd":"{root}","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{{"command":"echo \ud800"}},"tool_response":{{"stdout":"\ud800","stderr":""}},"tool_use_id":"t-odd"}}"#
    );
    crate::support::run_within(
        cmd,
        Some(post.into_bytes()),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(session(&repo, "odd")["iterations"], 1);
    // Open: every hopeless input before a call is refused, in Claude Code's format.
    for _ in 0..3 {
        a.pytest("pytest -q", FAIL);
    }
    assert_eq!(session(&repo, "odd")["state"], "open");
    for bytes in readable.iter().chain(&hopeless) {
        let ran = send(bytes.clone());
        let v: Value = serde_json::from_str(ran.stdout.trim())
            .unwrap_or_else(|e| panic!("{e}: {}", ran.stdout));
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    }
}

/// The issue's background eraser: a program the agent started before the trip deletes the
/// session's open marker as fast as loopguard writes it. The before-call hook does not
/// trust a marker's absence: a run marked neither open nor closed, or a run gone while
/// its event log remains, was tampered with — the call is refused, the markers put back,
/// and a `constraint` trip recorded. (An eraser of the runs too, before any trip, keeps a
/// session from ever tripping: README's threat model says so.)
#[test]
fn a_background_eraser_of_the_markers_is_caught() {
    for erased in ["open/*", "open/* closed/*"] {
        let repo = project("claude");
        let a = Agent::new(&repo, "claude", "eraser");
        a.shell("true");
        let state = super::sessions_dir(&repo);
        let targets: Vec<String> = erased
            .split(' ')
            .map(|g| format!("{}/{g}", state.display()))
            .collect();
        let pid_file = repo.home().join("eraser.pid");
        let (answer, _) = a.shell_ran(&format!(
            "(while sleep 0.05; do rm -f {}; done) >/dev/null 2>&1 & echo $! > {}",
            targets.join(" "),
            pid_file.display()
        ));
        assert!(!answer.denied(), "{erased}");
        let pid = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .to_owned();
        for _ in 0..3 {
            a.pytest("pytest -q", FAIL);
        }
        std::thread::sleep(std::time::Duration::from_millis(400));
        let denied = a.shell("true");
        let _ = std::process::Command::new("kill").arg(&pid).status();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(denied.denied(), "{erased}: {}", denied.text());
        // The eraser is gone: the next call, refused, puts the markers back.
        assert!(a.shell("true").denied(), "{erased}");
        assert!(
            denied.text().contains("rule: constraint") && denied.text().contains("deleted"),
            "{erased}: {}",
            denied.text()
        );
        let log = events(&repo, "eraser");
        assert!(
            log.iter().any(|e| e["rule"] == "constraint"
                && e["reason"].as_str().is_some_and(|r| r.contains("deleted"))),
            "{erased}: {log:?}"
        );
        assert!(
            state.join("open").read_dir().unwrap().next().is_some(),
            "{erased}: put back"
        );
    }
}

/// A program that deletes a session's whole state after every call, before it ever trips
/// (issue 25, item 3): each call looked like a session's first, and the same failing run
/// never tripped. loopguard notes each session it keeps state for beside the sessions'
/// directory, and a harness's transcript shows the calls made since the hooks were set up:
/// the state missing for such a session is a `constraint` trip, the call refused — never a
/// fresh start. Deleted the sessions' directory (the note stays), and the whole state
/// directory of the repository (the transcript tells).
#[test]
fn deleting_a_sessions_whole_state_after_every_call_is_a_constraint_trip() {
    for whole in [false, true] {
        let repo = project("claude");
        let mut a = Agent::new(&repo, "claude", "wiper");
        let transcript = repo.home().join("wiper.jsonl");
        a.transcript = Some(transcript.clone());
        let a = a;
        assert!(!a.pytest("pytest -q", FAIL).denied());
        let sessions = super::sessions_dir(&repo);
        let wiped = if whole {
            sessions.parent().unwrap().to_owned()
        } else {
            sessions.clone()
        };
        std::fs::remove_dir_all(&wiped).unwrap();
        // The harness writes the time of each line: now, after `init`.
        let now = jiff::Timestamp::now().to_string();
        let text = std::fs::read_to_string(&transcript).unwrap();
        let text = text
            .replace("2026-11-26T10:00:00Z", &now)
            .replace("2026-11-26T10:00:01Z", &now);
        std::fs::write(&transcript, text).unwrap();
        let denied = a.pytest("pytest -q", FAIL);
        assert!(denied.denied(), "whole={whole}: {}", denied.text());
        assert!(
            denied.text().contains("rule: constraint") && denied.text().contains("deleted"),
            "whole={whole}: {}",
            denied.text()
        );
        std::fs::remove_dir_all(&wiped).unwrap();
        assert!(a.shell("true").denied(), "whole={whole}: a fresh start");
        let s = session(&repo, "wiper");
        assert_eq!(
            (&s["state"], &s["rule"]),
            (&json!("open"), &json!("constraint")),
            "whole={whole}: {s}"
        );
    }
}

/// Deleted during a call (the command removes its own state) is caught by the result's
/// hook: loopguard kept the session's state, and it is gone.
#[test]
fn deleting_a_sessions_state_during_a_call_is_a_constraint_trip() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "wiper");
    assert!(!a.pytest("pytest -q", FAIL).denied());
    let sessions = super::sessions_dir(&repo);
    let (answer, _) = a.shell_ran(&format!("rm -rf '{}'", sessions.display()));
    assert!(
        answer.text().contains("loopguard (constraint)"),
        "{}",
        answer.text()
    );
    let denied = a.pytest("pytest -q", FAIL);
    assert!(denied.denied(), "{}", denied.text());
    let log = events(&repo, "wiper");
    assert!(log.iter().any(|e| e["rule"] == "constraint"), "{log:?}");
}

/// A session that began before loopguard's hooks (its transcript's calls all came before
/// `init`) is no lost state: told, and recorded from then on.
#[test]
fn a_session_begun_before_the_hooks_starts_with_a_word() {
    let repo = project("claude");
    let transcript = repo.home().join("early.jsonl");
    std::fs::write(
        &transcript,
        r#"{"type":"assistant","timestamp":"2020-01-01T10:00:00Z","message":{"content":[{"type":"tool_use","id":"early-1","name":"Bash","input":{"command":"ls"}}]}}
"#,
    )
    .unwrap();
    let mut a = Agent::new(&repo, "claude", "early");
    a.transcript = Some(transcript);
    let said = a.shell("true");
    assert!(!said.denied(), "{}", said.text());
    let log = a.log.borrow().clone();
    assert!(
        log.iter().any(|(event, _, out)| event == "PreToolUse"
            && out.contains("began before loopguard's hooks were set up")),
        "{log:?}"
    );
    for _ in 0..2 {
        assert!(!a.pytest("pytest -q", FAIL).denied());
    }
    assert!(
        a.pytest("pytest -q", FAIL)
            .text()
            .contains("rule: same_error")
    );
}
