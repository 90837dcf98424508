//! Agent harnesses and trip actions end to end: the three classic loops, `event`,
//! `finish`, and what a trip does (pause, alert, abort, escalate, webhook, the prompt).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{Ran, TestRepo, bin, fixture, guarded, lg as lg_cmd, status};
use serde_json::Value;

fn lg(repo: &TestRepo, args: &[&str]) -> Ran {
    lg_cmd(repo).args(args).run()
}

fn json(out: &Ran) -> Value {
    out.json()
}

fn event(repo: &TestRepo, args: &[&str]) -> (i32, Value) {
    let out = lg_cmd(repo).args(["event", "--json"]).args(args).run();
    (out.code.expect("an exit code"), out.json())
}

fn failing_tests(repo: &TestRepo) -> Ran {
    let log = fixture("pytest/assert-count/plain.log");
    lg(
        repo,
        &[
            "run",
            "--",
            "sh",
            "-c",
            &format!("cat '{}'; exit 1", log.display()),
        ],
    )
}

#[test]
fn planner_researcher_loop_ends_aborted_stuck_naming_the_edge() {
    let repo = guarded("");
    let mut last = (0, Value::Null);
    let mut steps = 0;
    for _ in 0..50 {
        steps += 1;
        last = event(
            &repo,
            &[
                "--edge",
                "planner_to_researcher",
                "--query",
                "where is the parser bug?",
            ],
        );
        if last.0 != 0 {
            break;
        }
        steps += 1;
        last = event(&repo, &["--edge", "researcher_to_planner"]);
        if last.0 != 0 {
            break;
        }
    }
    assert_eq!(last.0, 1, "the breaker opened: {}", last.1);
    assert_eq!(last.1["rule"], "edge_loop");
    assert!(
        last.1["reason"]
            .as_str()
            .unwrap()
            .contains("planner_to_researcher"),
        "{}",
        last.1
    );
    assert_eq!(steps, 9, "well before the step budget of 100");
    let done = json(&lg(&repo, &["finish", "--json"]));
    assert_eq!(done["terminal_status"], "aborted_stuck");
}

#[test]
fn a_repeated_query_is_no_new_information() {
    let repo = guarded("");
    let (_, first) = event(
        &repo,
        &["--edge", "planner_to_researcher", "--query", "Parser bug?"],
    );
    assert_eq!(first["new_information"], true);
    let (_, other) = event(
        &repo,
        &["--edge", "planner_to_researcher", "--query", "lexer bug?"],
    );
    assert_eq!(other["new_information"], true);
    let (_, again) = event(
        &repo,
        &[
            "--edge",
            "planner_to_researcher",
            "--query",
            "  parser   BUG? ",
        ],
    );
    assert_eq!(again["new_information"], false);
    assert_eq!(again["asked_at_step"], 1);
    // After progress the same question is new again.
    event(&repo, &["--edge", "planner_to_researcher", "--progress"]);
    let (_, fresh) = event(
        &repo,
        &["--edge", "planner_to_researcher", "--query", "parser bug?"],
    );
    assert_eq!(fresh["new_information"], true);
}

#[test]
fn planner_verifier_loop_stops_at_three_with_the_failing_command_in_the_report() {
    let repo = guarded("");
    repo.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    repo.commit("Attempt a fix");
    let mut code = 0;
    let mut rounds = 0;
    while code == 0 && rounds < 10 {
        rounds += 1;
        code = event(&repo, &["--edge", "planner_to_verifier"]).0;
        if code == 0 {
            failing_tests(&repo);
        }
    }
    assert_eq!(rounds, 3, "the verifier edge's threshold is 3");
    let s = status(&repo);
    assert_eq!(s["rule"], "edge_loop", "{s}");
    let md = lg(&repo, &["report"]).stdout;
    assert!(md.contains("## Last test run"), "{md}");
    assert!(md.contains("**Command:** `sh -c"), "{md}");
    assert!(md.contains("**Signature:** `"), "{md}");
}

#[test]
fn a_coder_making_no_op_patches_is_stopped_and_not_invoked_again() {
    let repo = guarded("");
    let mut coder_turns = 0;
    for _ in 0..10 {
        let (code, _) = event(&repo, &["--edge", "planner_to_coder"]);
        if code != 0 {
            break;
        }
        coder_turns += 1;
        // The "coder" writes the same thing again: nothing changes.
        repo.write("src/lib.rs", "pub fn answer() -> u32 { 41 }\n");
        repo.commit("Fix the answer");
    }
    assert_eq!(coder_turns, 3);
    assert_eq!(status(&repo)["rule"], "stagnation");
}

#[test]
fn progress_resets_an_edge_and_slow_progress_never_trips() {
    let repo = guarded("");
    for i in 0..30 {
        let progress = i % 4 == 3;
        let mut args = vec!["--edge", "planner_to_researcher"];
        if progress {
            args.push("--progress");
        }
        let (code, doc) = event(&repo, &args);
        assert_eq!(code, 0, "step {i}: {doc}");
    }
    // Progress seen in commits resets the edges too.
    for _ in 0..4 {
        assert_eq!(event(&repo, &["--edge", "planner_to_coder"]).0, 0);
    }
    repo.write("src/new.rs", "pub fn new() {}\n");
    repo.commit("Real work");
    let (code, doc) = event(&repo, &["--edge", "planner_to_coder"]);
    assert_eq!((code, doc["count"].as_u64()), (0, Some(1)), "{doc}");
}

#[test]
fn the_step_budget_ends_the_run_before_a_recursion_limit() {
    let repo = guarded("rules:\n  edge_loop: {max_steps: 12}\n");
    let mut n = 0;
    loop {
        n += 1;
        let (code, doc) = event(&repo, &["--edge", &format!("step_{}", n % 3), "--progress"]);
        if code != 0 {
            assert!(
                doc["reason"].as_str().unwrap().contains("step budget"),
                "{doc}"
            );
            break;
        }
        assert!(n < 50);
    }
    assert_eq!(n, 12);
}

#[test]
fn token_and_cost_budgets() {
    let repo = guarded("rules:\n  budget: {max_tokens: 1000, max_cost: 5.0}\n");
    assert_eq!(
        event(&repo, &["--edge", "a", "--progress", "--tokens", "400"]).0,
        0
    );
    assert_eq!(
        event(
            &repo,
            &[
                "--edge",
                "a",
                "--progress",
                "--tokens",
                "400",
                "--cost",
                "1.5"
            ]
        )
        .0,
        0
    );
    let (code, doc) = event(&repo, &["--edge", "a", "--progress", "--tokens", "400"]);
    assert_eq!(code, 1);
    assert_eq!(doc["rule"], "budget");
    assert!(
        doc["reason"].as_str().unwrap().contains("1200 tokens"),
        "{doc}"
    );
}

#[test]
fn finish_reports_success_or_partial_and_writes_the_reports() {
    let repo = guarded("report: {dir: .loopguard/runs, issues_file: STUCK.md}\n");
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.commit("Add a");
    lg(&repo, &["run", "--", "true"]);
    let done = json(&lg(&repo, &["finish", "--json"]));
    assert_eq!(done["terminal_status"], "done_success", "{done}");
    let run_id = done["run"].as_str().unwrap().to_owned();
    let report = repo
        .path()
        .join(".loopguard/runs")
        .join(format!("{run_id}.md"));
    assert!(
        std::fs::read_to_string(&report)
            .unwrap()
            .contains("done_success")
    );
    let artifacts = repo
        .path()
        .join(".git/loopguard/runs")
        .join(&run_id)
        .join("iterations");
    let first = std::fs::read_dir(&artifacts)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for f in [
        "changes.patch",
        "errors.json",
        "metrics.json",
        "completion_signals.json",
    ] {
        assert!(first.join(f).exists(), "{f}");
    }
    assert!(
        std::fs::read_to_string(first.join("changes.patch"))
            .unwrap()
            .contains("+pub fn a() {}")
    );

    // The next commit starts a new run; failures left after progress: done_partial.
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.commit("Add b");
    failing_tests(&repo);
    let partial = json(&lg(&repo, &["finish", "--json"]));
    assert_eq!(partial["terminal_status"], "done_partial", "{partial}");
    assert_ne!(partial["run"], run_id.as_str());

    // An aborted run gets an entry in the issues file.
    repo.commit_empty("nothing");
    failing_tests(&repo);
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    let stuck = std::fs::read_to_string(repo.path().join("STUCK.md")).unwrap();
    assert!(stuck.contains("aborted_stuck"), "{stuck}");
    assert!(stuck.contains("- rule: stagnation"), "{stuck}");
    assert!(stuck.contains("- last test command: `sh -c"), "{stuck}");
}

#[test]
fn abort_is_terminal_until_reset() {
    let repo = guarded("on_trip: {action: abort}\n");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    let out = lg(&repo, &["resume"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("only `loopguard reset`"));
    repo.write("x.txt", "x\n");
    repo.git(&["add", "-A"]);
    assert!(!repo.try_git(&["commit", "-q", "-m", "x"]).status.success());
    assert!(lg(&repo, &["reset"]).success());
    assert!(repo.try_git(&["commit", "-q", "-m", "x"]).status.success());
    assert_eq!(status(&repo)["state"], "closed");
}

#[test]
fn alert_reports_and_lets_the_agent_go_on() {
    let repo = guarded("on_trip: {action: alert}\n");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    assert_eq!(status(&repo)["state"], "open");
    repo.write("x.txt", "x\n");
    let commit = repo.try_git(&["add", "-A"]);
    assert!(commit.status.success());
    assert!(repo.try_git(&["commit", "-q", "-m", "x"]).status.success());
    assert_eq!(status(&repo)["state"], "closed", "progress closes it again");
}

#[test]
fn escalate_walks_the_models_then_pauses() {
    let repo =
        guarded("on_trip: {action: escalate}\nescalation: {models: [small, medium, large]}\n");
    assert_eq!(status(&repo)["next_model"], "small");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    // The first trip hands the task to the next model, which starts with fresh counters:
    // the breaker is closed again, and nothing says "stuck" yet.
    let s = status(&repo);
    assert_eq!(
        (
            s["state"].as_str(),
            s["next_model"].as_str(),
            s["trips"].as_u64()
        ),
        (Some("closed"), Some("medium"), Some(1)),
        "{s}"
    );
    assert_eq!(s["counters"]["stagnation"]["count"], 0, "{s}");
    let run = s["run"].as_str().unwrap().to_owned();
    let context = repo
        .path()
        .join(".git/loopguard/runs")
        .join(&run)
        .join("failure-context.md");
    let text = std::fs::read_to_string(&context).unwrap();
    assert!(text.contains("Stop rule: stagnation"), "{text}");
    assert!(text.contains("You are the next model: medium"), "{text}");

    // medium gets as many attempts as small did, not one.
    repo.commit_empty("medium tries nothing");
    repo.commit_empty("medium tries nothing again");
    assert_eq!(status(&repo)["state"], "closed");
    assert_eq!(status(&repo)["next_model"], "medium");
    repo.commit_empty("medium gives up");
    assert_eq!(status(&repo)["next_model"], "large");
    for i in 0..3 {
        let out = repo.try_git(&["commit", "-q", "--allow-empty", "-m", &format!("large {i}")]);
        assert!(
            out.status.success(),
            "the hooks never refuse a closed breaker"
        );
    }
    let s = status(&repo);
    assert_eq!(s["state"], "open", "the last model is stuck too: {s}");
    assert_eq!(s["next_model"], "large");
    assert_eq!(
        s["counters"]["budget"]["count"], 9,
        "the budget counts the whole run: {s}"
    );
    // Paused now: the next commit is refused.
    assert!(
        !repo
            .try_git(&["commit", "-q", "--allow-empty", "-m", "again"])
            .status
            .success()
    );
}

/// A one-shot HTTP server that records the request body and answers `status` after
/// `delay`.
fn http_server(status: u16, delay: Duration) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let body = loop {
                let n = s.read(&mut chunk).unwrap_or(0);
                if n == 0 {
                    break String::new();
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).into_owned();
                if let Some(i) = text.find("\r\n\r\n") {
                    let len: usize = text
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    if text.len() >= i + 4 + len {
                        break text[i + 4..i + 4 + len].to_owned();
                    }
                }
            };
            let _ = tx.send(body);
            std::thread::sleep(delay);
            let _ = write!(
                s,
                "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
        }
    });
    (url, rx)
}

#[test]
fn the_webhook_gets_the_stop_reason() {
    let (url, rx) = http_server(200, Duration::ZERO);
    let repo = guarded(&format!(
        "on_trip: {{notify: [webhook]}}\nwebhook: {{url: \"{url}\"}}\n"
    ));
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    let body: Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(10)).unwrap()).unwrap();
    assert!(
        body["text"]
            .as_str()
            .unwrap()
            .contains("is stuck (stagnation)"),
        "{body}"
    );
    assert_eq!(body["content"], body["text"]);
    assert_eq!(body["loopguard"]["rule"], "stagnation");
    assert_eq!(body["loopguard"]["state"], "open");
    assert_eq!(body["loopguard"]["branch"], "main");
}

#[test]
fn a_hanging_webhook_does_not_hold_the_hook_beyond_its_timeout() {
    let (url, _rx) = http_server(200, Duration::from_secs(600));
    let repo = guarded(&format!(
        "on_trip: {{notify: [webhook, desktop]}}\nwebhook: {{url: \"{url}\", timeout: 1s}}\n"
    ));
    repo.commit_empty("one");
    repo.commit_empty("two");
    let start = Instant::now();
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "three"]);
    let took = start.elapsed();
    assert!(out.status.success());
    assert!(took < Duration::from_secs(8), "the commit took {took:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("webhook not delivered"));
    // A refused connection is the same: a warning, never a failed hook.
    let repo = guarded(
        "on_trip: {notify: [webhook]}\nwebhook: {url: \"http://127.0.0.1:9/x\", timeout: 1s}\n",
    );
    for _ in 0..3 {
        assert!(
            repo.try_git(&["commit", "-q", "--allow-empty", "-m", "n"])
                .status
                .success()
        );
    }
}

#[test]
fn the_prompt_after_a_trip_is_driven_through_a_terminal() {
    let repo = guarded("");
    repo.write("src/lib.rs", "pub fn answer() -> u32 { 40 }\n");
    repo.commit("Try");
    let log = fixture("pytest/assert-count/plain.log");
    let cmd = format!(
        "'{}' run -- sh -c \"cat '{}'; exit 1\"",
        bin().display(),
        log.display()
    );
    // Two quiet runs, then the third trips `same_error` on a terminal.
    for _ in 0..2 {
        lg(
            &repo,
            &[
                "run",
                "--",
                "sh",
                "-c",
                &format!("cat '{}'; exit 1", log.display()),
            ],
        );
    }
    let mut script = repo.command("script");
    script
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("CI")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = script.spawn().unwrap();
    {
        let stdin = child.stdin.as_mut().unwrap();
        stdin.write_all(b"h\n").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        stdin.write_all(b"c\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("what now?"), "{text}");
    assert!(text.contains("counters:"), "help shows the context: {text}");
    assert!(text.contains("counting starts again"), "{text}");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(s["counters"]["same_error"]["count"], 0);
}

#[test]
fn the_ralph_loop_example_stops_a_stuck_agent() {
    let repo = guarded("");
    let agent = repo.path().join("../agent.sh");
    // A scripted agent that keeps "fixing" the same line the same way.
    std::fs::write(
        &agent,
        "#!/bin/sh\necho 'pub fn answer() -> u32 { 42 }' > src/lib.rs\ngit add -A\ngit commit -q --allow-empty -m 'Fix the answer'\n",
    )
    .unwrap();
    let log = fixture("cargo/assert-count/plain.log");
    let mut cmd =
        repo.command(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ralph-loop.sh"));
    cmd.env("AGENT_CMD", format!("sh {}", agent.display()))
        .env("TEST_CMD", format!("cat '{}'; exit 101", log.display()))
        .env("LOOPGUARD", bin())
        .env("LOOPGUARD_NO_PROMPT", "1")
        .env("MAX_TURNS", "20");
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("loopguard stopped the loop after turn"),
        "{err}"
    );
    let turns = err.matches("ralph: turn").count();
    assert!(turns <= 4, "stopped early, after {turns} turns: {err}");
}
