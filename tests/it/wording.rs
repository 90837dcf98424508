//! What a person and an agent read, line by line: the session report's "now" and ways out,
//! the warning one step before a trip on every surface (a commit, `loopguard run`, a
//! session, CI's comment and summary), numbers and words (a budget, `alert`, counters past
//! their limit, once and twice, a row of one), a reopen that names what half-opened the
//! breaker, the edges' reasons in the run report, a replay's answers, a second `init`.
//! Each test drives the real binary on a real repository and reads the lines themselves.

use crate::session::{Agent, FAIL, PASS, project, project_with};
use crate::support::{fixture, guarded, lg, replay_log, run_log};

const STUCK: &str = "    return len(s)";

/// The line of `text` that starts with `prefix`.
fn line<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?}:\n{text}"))
}

/// A Claude Code session in `repo` that fails the same test three times, editing between:
/// warned after the second run, tripped at the third.
fn looping_session<'r>(repo: &'r crate::support::gitrepo::TestRepo, id: &str) -> Agent<'r> {
    let a = Agent::new(repo, "claude", id);
    a.prompt("the word count is wrong, fix it");
    a.pytest("pytest -q", FAIL);
    // Claude Code names the file it edits by its absolute path.
    let path = repo.path().join("src/wc.py").display().to_string();
    a.call(
        "Edit",
        serde_json::json!({"file_path": path, "old_string": STUCK, "new_string": "    return len(s) - 1"}),
        serde_json::json!({"filePath": path}),
        || {
            let text = repo.read("src/wc.py").unwrap_or_default();
            repo.write("src/wc.py", text.replacen(STUCK, "    return len(s) - 1", 1));
        },
    );
    a.pytest("python -m pytest tests/test_wc.py", FAIL);
    a.edit(
        "src/wc.py",
        "    return len(s) - 1",
        "    return len(s.strip()) - 1",
    );
    a.pytest("pytest", FAIL);
    a
}

/// `report --session` says what an open session breaker does (its tool calls are refused,
/// not commits and pushes), and its ways out are the session's: the user's prompt, then
/// `resume --session` and `reset --session`, in text, markdown, HTML and JSON alike. A
/// test run's row is a test run, not an "empty" change.
#[test]
fn the_session_report_says_what_a_session_breaker_does() {
    let repo = project("claude");
    looping_session(&repo, "sess-words");
    let text = lg(&repo)
        .args(["report", "--session", "sess-words", "--text"])
        .run()
        .ok()
        .stdout;
    assert_eq!(
        line(&text, "now:"),
        "now:        this session's tool calls are refused",
        "{text}"
    );
    let ways: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "ways out:")
        .skip(1)
        .take_while(|l| l.starts_with("  - "))
        .collect();
    assert_eq!(
        ways,
        [
            "  - the user's next prompt starts a new episode: the loop counters start again and the next tool call decides",
            "  - a person lets the agent try again: `loopguard resume --session sess-words` (the next tool call with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again)",
            "  - a person starts a new run of the session: `loopguard reset --session sess-words`",
        ],
        "{text}"
    );
    for row in text.lines().filter(|l| l.contains("Bash: ")) {
        assert!(
            !row.contains("empty"),
            "a test run is no empty change: {row}"
        );
    }
    // An edit is named by the repository's path of the file, however the tool gave it.
    let edits: Vec<&str> = text.lines().filter(|l| l.contains("Edit: ")).collect();
    assert_eq!(edits.len(), 2, "{text}");
    for row in edits {
        assert!(row.contains("Edit: src/wc.py"), "{row}");
    }
    assert!(!text.contains(&repo.path().display().to_string()), "{text}");
    let md = lg(&repo)
        .args(["report", "--session", "sess-words", "--markdown"])
        .run()
        .ok()
        .stdout;
    assert_eq!(
        line(&md, "- **Now:**"),
        "- **Now:** this session's tool calls are refused",
        "{md}"
    );
    assert!(
        md.contains("\n- a person lets the agent try again: `loopguard resume --session sess-words` (the next tool call with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again)\n"),
        "{md}"
    );
    let html = lg(&repo)
        .args(["report", "--session", "sess-words", "--html"])
        .run()
        .ok()
        .stdout;
    assert!(
        html.contains("<dt>Now</dt><dd>this session&#39;s tool calls are refused</dd>"),
        "{html}"
    );
    assert!(
        html.contains("<code>loopguard resume --session sess-words</code>"),
        "{html}"
    );
    for doc in [&text, &md, &html] {
        assert!(!doc.contains("commits and pushes"), "{doc}");
    }
    let json = lg(&repo)
        .args(["report", "--session", "sess-words", "--json"])
        .run()
        .ok()
        .json();
    assert_eq!(
        json["ways_out"],
        serde_json::json!(["prompt", "resume", "reset"])
    );
    let contract = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/contract.md"),
    )
    .unwrap();
    let documented = line(&contract, "| `ways_out` |");
    for way in [
        "tests_change",
        "new_commit",
        "harness_progress",
        "prompt",
        "cooldown",
        "resume",
        "reset",
    ] {
        assert!(
            documented.contains(&format!("`{way}`")),
            "{way}: {documented}"
        );
    }
}

/// After a passing test run the session's `same_error` counts identical calls, and says
/// so against their own limit (issue 26: it said `1 / 5 failing test runs in a row`).
#[test]
fn a_passing_run_counts_identical_calls_against_their_limit() {
    let repo = project("claude");
    let a = Agent::new(&repo, "claude", "sess-pass");
    a.prompt("check the tests");
    a.pytest("pytest -q", PASS);
    let text = lg(&repo)
        .args(["status", "--session", "sess-pass"])
        .run()
        .ok()
        .stdout;
    assert_eq!(
        line(&text, "same_error"),
        "  same_error        1 / 5                    identical calls in a row with the same result",
        "{text}"
    );
}

/// A relapse after the user's prompt names the prompt, not a resume nobody made (issue 26).
#[test]
fn a_relapse_after_a_prompt_names_the_prompt() {
    let repo = project("claude");
    let a = looping_session(&repo, "sess-relapse");
    a.prompt("try once more");
    let denied = a.pytest("pytest -q", FAIL);
    let text = denied.text();
    assert!(
        text.contains(
            "reason: no progress after a person's turn (tripped before: the same failure"
        ),
        "{text}"
    );
    assert!(!text.contains("after resume"), "{text}");
}

/// The budget's warning names the budget there is: with `max_iterations: 6`, the fifth
/// commit reads "5 iterations of the budget of 6 spent" (it said "5 iterations reached the
/// budget of 5").
#[test]
fn the_budget_warning_names_the_budget_there_is() {
    let repo = guarded("rules:\n  budget: {max_iterations: 6}\n");
    for i in 1..=4 {
        repo.write(
            &format!("src/step_{i}.rs"),
            format!("pub fn f() -> u32 {{ {i} }}\n"),
        );
        repo.commit(&format!("step {i}"));
    }
    repo.write("src/step_5.rs", "pub fn f() -> u32 { 5 }\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("step 5");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        line(&stderr, "loopguard: warning"),
        "loopguard: warning (budget): 5 iterations of the budget of 6 spent; one more opens the breaker and refuses commits and pushes — change approach, or ask the user",
        "{stderr}"
    );
}

/// Under `on_trip.action: alert` the warning `loopguard run` prints says what alert does
/// (commits go on), and a counter past its limit shows the limit, not `4 / 3`.
#[test]
fn under_alert_run_warns_what_alert_does_and_counters_show_their_limit() {
    let repo = guarded("on_trip: {action: alert}\n");
    let log = "cargo/assert-count/plain.log";
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    40\n}\n");
    let first = run_log(&repo, log, 101);
    assert!(!first.stderr.contains("warning"), "{}", first.stderr);
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    let second = run_log(&repo, log, 101);
    assert_eq!(
        line(&second.stderr, "loopguard: warning"),
        "loopguard: warning (same_error): the same failure (cargo: counts_words_in_file, assertion `left == right` failed) in 2 iterations in a row; one more opens the breaker (on_trip.action is alert: commits go on) — change approach, or ask the user",
        "{}",
        second.stderr
    );
    for answer in [43, 44] {
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{\n    {answer}\n}}\n"),
        );
        run_log(&repo, log, 101);
    }
    let status = lg(&repo).arg("status").run().ok().stdout;
    assert_eq!(
        line(&status, "same_error"),
        "  same_error        4 (limit 3)              failing test runs in a row with the same failure  <-",
        "{status}"
    );
}

/// A second `init` says every hook is already installed, the one that waits disarmed too.
#[test]
fn a_second_init_says_already_installed() {
    let repo = guarded("");
    let again = lg(&repo).arg("init").run().ok();
    let hooks: Vec<&str> = again
        .stderr
        .lines()
        .chain(again.stdout.lines())
        .filter(|l| l.starts_with("hook "))
        .collect();
    assert_eq!(
        hooks,
        [
            "hook post-commit: already installed",
            "hook post-rewrite: already installed",
            "hook pre-commit: already installed",
            "hook pre-push: already installed",
            "hook reference-transaction: already installed (armed only while a breaker is open)",
        ],
        "{again:?}"
    );
}

/// The edges' reasons a harness gives (`event --edge NAME --reason`) are in the run's
/// report: each edge, how often it was taken without progress, its latest reasons.
#[test]
fn the_run_report_shows_each_edges_reasons() {
    let repo = guarded("");
    for reason in [
        "the planner asked for the same file",
        "the planner asked again",
    ] {
        lg(&repo)
            .args(["event", "--edge", "plan_to_act", "--reason", reason])
            .run()
            .ok();
    }
    let text = lg(&repo).args(["report", "--text"]).run().ok().stdout;
    let edges: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("edge "))
        .take(3)
        .collect();
    assert_eq!(
        edges,
        [
            "edge plan_to_act: taken twice without progress",
            "  - the planner asked for the same file",
            "  - the planner asked again",
        ],
        "{text}"
    );
    let md = lg(&repo).args(["report", "--markdown"]).run().ok().stdout;
    assert!(
        md.contains("\n## Edges\n\n- **plan\\_to\\_act**: taken twice without progress\n  - the planner asked for the same file\n  - the planner asked again\n"),
        "{md}"
    );
}

/// A run that has no iterations yet (a harness's events only) says so in a sentence in its
/// markdown and HTML reports, instead of a table with a header and no rows.
#[test]
fn a_run_without_iterations_says_so_instead_of_an_empty_table() {
    let repo = guarded("");
    lg(&repo)
        .args([
            "event",
            "--edge",
            "plan_to_act",
            "--reason",
            "the planner asked",
        ])
        .run()
        .ok();
    let md = lg(&repo).args(["report", "--markdown"]).run().ok().stdout;
    assert!(
        md.ends_with("\n## Recent iterations\n\nNo iterations yet.\n"),
        "{md}"
    );
    assert!(!md.contains("| # |"), "{md}");
    let html = lg(&repo).args(["report", "--html"]).run().ok().stdout;
    assert!(
        html.contains("<h2>Iterations</h2>\n<p>No iterations yet.</p>\n"),
        "{html}"
    );
    assert!(!html.contains("<th>#</th>"), "{html}");
}

/// `loopguard resume` says what decides as the rule that tripped recovers (its
/// descriptor): after a loop in the code (three empty commits, `stagnation`) the next
/// attempt's progress; after a loop of the same failure the next test run, where the same
/// failure again opens it again (`tests/it/journey.rs`); `resume --session` the same for
/// a session's tool calls. It said "progress closes the breaker, none opens it again" of
/// every trip.
#[test]
fn resume_says_what_decides_as_the_rule_that_tripped_recovers() {
    let repo = guarded("");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    let resumed = lg(&repo).arg("resume").run().ok().stdout;
    assert_eq!(
        resumed.trim_end(),
        "breaker half-open: the agent may commit again; the next attempt decides: progress closes the breaker, another round of the same opens it again"
    );
    let again = lg(&repo).arg("resume").run().ok().stdout;
    assert_eq!(
        again.trim_end(),
        "breaker already half-open: the next attempt decides: progress closes the breaker, another round of the same opens it again"
    );
    let repo = project("claude");
    looping_session(&repo, "sess-resumed");
    let resumed = lg(&repo)
        .args(["resume", "--session", "sess-resumed"])
        .by_a_person()
        .run()
        .ok()
        .stdout;
    assert_eq!(
        resumed.trim_end(),
        "breaker half-open: the agent's tool calls go through again; the next tool call with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again"
    );
}

/// Tests run on uncommitted changes are named by their working tree, whole:
/// `worktree-<tree>`, not `worktre`.
#[test]
fn a_working_tree_iteration_keeps_its_name() {
    let repo = guarded("");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    lg(&repo)
        .args(["run", "--"])
        .args(replay_log(&fixture("cargo/assert-count/plain.log"), 101))
        .run();
    let text = lg(&repo).args(["report", "--text"]).run().ok().stdout;
    assert!(text.contains(" worktree-"), "{text}");
    assert!(!text.contains("worktre "), "{text}");
}

/// A Claude Code transcript that opens with the user's prompt: the replay says the new
/// episode came at the start, and prints every line of a multi-line answer as its own
/// line (no `^J`).
#[test]
fn a_replay_says_where_a_first_prompt_came_and_prints_answers_line_by_line() {
    let repo = project_with("claude", None);
    let transcript = repo.path().join("transcript.jsonl");
    std::fs::write(&transcript, "").unwrap();
    let mut a = Agent::new(&repo, "claude", "sess-replay");
    a.transcript = Some(transcript.clone());
    a.prompt("the word count is wrong, fix it");
    a.pytest("pytest -q", FAIL);
    a.edit("src/wc.py", STUCK, "    return len(s) - 1");
    a.pytest("pytest -q", FAIL);
    a.edit(
        "src/wc.py",
        "    return len(s) - 1",
        "    return len(s.strip()) - 1",
    );
    a.pytest("pytest -q", FAIL);
    let out = lg(&repo).args(["replay"]).arg(&transcript).run().stdout;
    assert!(!out.contains("^J"), "{out}");
    assert!(
        out.contains(
            "\na new episode (a person's turn) at the start (before the first tool call)\n"
        ),
        "{out}"
    );
    assert!(out.contains("\n    rule: same_error\n"), "{out}");
    assert!(
        out.contains(
            "\n    - a person lets the agent try again: `loopguard resume --session sess-replay`"
        ),
        "{out}"
    );
}

/// CI warns one push before a trip, in the sticky comment and in the step summary: what
/// repeats, and that one more fails the check.
#[test]
fn ci_warns_one_push_before_a_trip_in_its_comment_and_summary() {
    use crate::support::ci::{CONFIG, Project, SAME, sticky_body};
    use crate::support::github_fake::FakeGitHub;
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let mut last = None;
    for (i, (body, log)) in SAME.iter().take(2).enumerate() {
        let head = p.attempt(body, &format!("Fix word counting, try {}", i + 1));
        gh.add_pr(p.pr(7, &head));
        last = Some(p.ci_on_push(&gh, &head, log));
    }
    let out = last.unwrap();
    assert_eq!(out.outputs["state"], "closed", "{out:#?}");
    let warning = "- `same_error`: the same failure \\(cargo: counts\\_words\\_in\\_file, assertion \\`left == right\\` failed\\) in 2 iterations in a row; one more opens the breaker and fails this check — change approach, or ask the user";
    let comment = sticky_body(&gh, 7);
    assert!(
        comment.contains(&format!("**Warnings:**\n\n{warning}\n")),
        "{comment}"
    );
    assert!(
        out.summary
            .contains(&format!("**Warnings:**\n\n{warning}\n")),
        "{}",
        out.summary
    );
}

/// Words for one: a single claim of completion is no row of them, and a return to an
/// earlier tree once is "once" (they said "1 iteration in a row claim" and "1 times").
#[test]
fn one_is_said_as_one() {
    let repo = guarded("");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    run_log(&repo, "cargo/assert-count/plain.log", 101);
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Done: the word count is fixed, all tests pass");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("loopguard: warning (false_completion): 1 iteration claims completion "),
        "{stderr}"
    );
    assert!(!stderr.contains("in a row claim"), "{stderr}");

    let repo = guarded("");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    let base = repo.commit("Try 42");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    43\n}\n");
    repo.commit("Try 43");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Back to 42");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("loopguard: warning (oscillation): the code returned to an earlier state once in the last "),
        "{stderr}"
    );
    assert!(stderr.contains(&base[..7]), "{stderr}");
}
