//! Every JSON document of the contract, pinned: made by the real binary on a real
//! repository (or, where it needs GitHub or a receiver, built from the core's document
//! type), pretty-printed and compared with `tests/snapshots/documents/`, run ids, times
//! and this checkout's path redacted. A field renamed, removed or retyped fails here; one
//! added shows in the snapshot's diff (`UPDATE_SNAPSHOTS=1 cargo test --test it
//! documents::`, then review it against docs/contract.md). Every document carries the
//! same `schema`.

use std::path::Path;

use loopguard::breaker::{EventKind, State, TerminalStatus};
use loopguard::ci::cost::LoopCost;
use loopguard::ci::dashboard::{Counts, Section};
use loopguard::documents::{DashboardDocument, DashboardRow, SCHEMA, Schema, WebhookFacts};
use loopguard::rules::RuleName;
use serde_json::Value;

use crate::support::snapshots::assert_snapshot;
use crate::support::{TestRepo, fixture, guarded, lg, run_log};

/// The document, pinned; its `schema` is [`SCHEMA`].
#[track_caller]
fn pin(name: &str, doc: &Value) {
    assert_eq!(doc["schema"], SCHEMA, "{name}: {doc}");
    pin_as_is(name, doc);
}

/// The document, pinned as it is: a coding agent's hook answers carry no `schema` (Codex
/// refuses fields it does not know).
#[track_caller]
fn pin_as_is(name: &str, doc: &Value) {
    let text = serde_json::to_string_pretty(doc).expect("JSON") + "\n";
    assert_snapshot(&format!("documents/{name}.json"), &text);
}

fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

fn lib(body: &str) -> String {
    format!("pub fn count_words(s: &str) -> usize {{\n    {body}\n}}\n")
}

/// `same_error` trips on the third failing run of changed code.
fn stuck() -> TestRepo {
    let repo = guarded("");
    for (i, body) in ["s.len()", "s.len() + 0", "s.len() + 1 - 1"]
        .iter()
        .enumerate()
    {
        repo.write("src/lib.rs", lib(body));
        repo.commit(&format!("Count words, take {i}"));
        run_log(&repo, "cargo/assert-count/plain.log", 101);
    }
    repo
}

#[test]
fn the_status_documents() {
    let repo = stuck();
    let run = |args: &[&str]| json_of(&lg(&repo).args(args).run().stdout);
    pin("status", &run(&["status", "--json"]));
    pin("report", &run(&["report", "--json"]));
    pin("check", &run(&["check", "--json"]));
    let ingest = lg(&repo)
        .args(["ingest", "--json", "--exit-code", "1"])
        .arg(fixture("cargo/assert-count/plain.log"))
        .run();
    pin("ingest", &json_of(&ingest.stdout));
    pin("finish", &run(&["finish", "--json"]));
}

#[test]
fn the_replay_document() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/iterations.jsonl");
    let repo = TestRepo::new();
    let out = lg(&repo).args(["replay", "--json"]).arg(&sample).run();
    pin("replay", &json_of(&out.stdout));
}

#[test]
fn the_event_and_fingerprint_documents() {
    let repo = guarded("");
    let out = lg(&repo)
        .args(["event", "--json", "--edge", "planner_to_verifier"])
        .args(["--query", "why does it fail?", "--tokens", "1200"])
        .run();
    pin("event", &json_of(&out.stdout));
    let out = lg(&repo)
        .args(["fingerprint", "--json"])
        .arg(fixture("pytest/two-failures/plain.log"))
        .run();
    pin("fingerprint", &json_of(&out.stdout));
}

#[test]
fn the_failure_context_artifacts() {
    let repo = stuck();
    let runs = repo.path().join(".git/loopguard/runs");
    let run = std::fs::read_dir(&runs)
        .expect("the trip wrote the run's artifacts")
        .map(|e| e.unwrap().path())
        .find(|p| p.join("iterations").is_dir())
        .expect("a run with its iterations");
    let first = std::fs::read_dir(run.join("iterations"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .expect("an iteration");
    for file in ["errors", "metrics", "completion_signals"] {
        let text = std::fs::read_to_string(first.join(format!("{file}.json"))).unwrap();
        pin(&format!("artifact-{file}"), &json_of(&text));
    }
}

#[test]
fn the_dashboard_and_webhook_documents() {
    // Their commands need GitHub or a receiver (tests/it/dashboard.rs and harness.rs run
    // them end to end); here the types they print are pinned.
    let at = "2026-11-25T10:00:00Z".parse().unwrap();
    let dashboard = DashboardDocument {
        schema: Schema,
        issue: Some(42),
        counts: Counts {
            stuck: 1,
            half_open: 1,
            healthy: 3,
            tripped_recently: 2,
            closed: 1,
        },
        rows: vec![
            DashboardRow {
                pr: 101,
                section: Section::HalfOpen,
                state: Some(State::HalfOpen),
                rule: Some(RuleName::SameError),
                reason: Some("the same failure in 3 iterations in a row".into()),
                iterations: Some(4),
                signature: Some("3142acdf65c5".into()),
                progress_at: Some(at),
                tripped_at: Some(at),
                run: Some(990_001),
                loop_cost: None,
            },
            DashboardRow {
                pr: 103,
                section: Section::Stuck,
                state: Some(State::Open),
                rule: Some(RuleName::SameError),
                reason: Some("the same failure in 3 iterations in a row".into()),
                iterations: Some(5),
                signature: Some("3142acdf65c5".into()),
                progress_at: Some(at),
                tripped_at: Some(at),
                run: Some(990_003),
                loop_cost: Some(LoopCost {
                    since: "c0ffee0c0ffee0c0ffee0c0ffee0c0ffee0c0ffe".parse().unwrap(),
                    runs: 3,
                    seconds: 754,
                }),
            },
        ],
        resumed: vec![102],
        notes: Vec::new(),
        requests: 6,
    };
    pin("dashboard", &serde_json::to_value(dashboard).unwrap());
    let facts = WebhookFacts {
        schema: Schema,
        event: EventKind::Trip,
        state: State::Open,
        terminal_status: Some(TerminalStatus::AbortedStuck),
        rule: Some(RuleName::Stagnation),
        reason: Some("no progress in 3 iterations in a row".into()),
        run: "20261126T064101.162496Z-main".into(),
        branch: Some("main".into()),
        repository: "widgets".into(),
        iterations: 3,
        next_model: None,
    };
    pin("webhook", &serde_json::to_value(facts).unwrap());
}

/// The hooks' clock in the session documents: every call at the same time.
const SESSION_NOW: &str = "2026-11-25T10:00:00Z";

#[test]
fn the_session_documents() {
    // A Claude Code session stuck on the same failure, through the real hooks.
    let repo = crate::session::project("claude");
    let mut a = crate::session::Agent::new(&repo, "claude", "sess-doc");
    a.now = Some(SESSION_NOW);
    a.edit("src/wc.py", "    return len(s)", "    return len(s) - 1");
    for _ in 0..3 {
        a.pytest("pytest -q", crate::session::FAIL);
    }
    let run = |args: &[&str]| {
        json_of(
            &lg(&repo)
                .env("LOOPGUARD_NOW", SESSION_NOW)
                .args(args)
                .run()
                .stdout,
        )
    };
    pin(
        "session-status",
        &run(&["status", "--session", "sess-doc", "--json"]),
    );
    pin(
        "session-report",
        &run(&["report", "--session", "sess-doc", "--json"]),
    );
    pin("status-with-sessions", &run(&["status", "--json"]));
}

/// What each harness reads back from a hook: a warning one step before a trip, the trip,
/// a refused call, a blocked stop, and loopguard failing (refused while the breaker is
/// open; the call goes through in a session where nothing is). `null`:
/// nothing on stdout (Copilot reads only a refusal and a blocked stop; the rest goes to
/// the person on stderr); `{}`: nothing said (Cursor reads an object for every event, and
/// its stop carries no claim to block).
#[test]
fn the_agent_hook_answers_of_each_harness() {
    for harness in ["claude", "codex", "gemini", "copilot", "cursor"] {
        let repo = crate::session::project(harness);
        let mut a = crate::session::Agent::new(&repo, harness, "sess-answers");
        a.now = Some(SESSION_NOW);
        let fail = crate::session::FAIL;
        a.pytest("pytest -q", fail);
        let mut doc = serde_json::Map::new();
        doc.insert("warning".into(), a.pytest("pytest -q", fail).json);
        doc.insert("trip".into(), a.pytest("pytest -q", fail).json);
        let denied = a.call(
            "Read",
            serde_json::json!({"file_path": "src/wc.py"}),
            serde_json::json!({}),
            || panic!("a denied call does not run"),
        );
        doc.insert("deny".into(), denied.json);
        doc.insert("block".into(), a.stop(false, "Done, fixed.").json);
        // An input loopguard cannot judge: refused while this session's breaker is open
        // (fail closed); in a session where nothing is open, it goes through.
        let pre = a.event_name("pre");
        let broken = a.send(pre, Some("Read"), a.base_for(pre));
        doc.insert("failed_while_open".into(), broken.json);
        let mut elsewhere = a.base_for(pre);
        let id = match harness {
            "copilot" => "sessionId",
            "cursor" => "conversation_id",
            _ => "session_id",
        };
        elsewhere[id] = serde_json::json!("sess-closed");
        doc.insert("failed".into(), a.send(pre, Some("Read"), elsewhere).json);
        pin_as_is(&format!("agent-hook-{harness}"), &Value::Object(doc));
    }
}
