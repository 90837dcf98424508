//! Text from outside — job and run names, branch names, PR titles, commit messages, logs —
//! printed by loopguard is shown, never obeyed: in CI no line of it starts a workflow
//! command outside a stop-commands fence; on a terminal no control character of it reaches
//! the screen raw (docs/contract.md, "Untrusted text").

use crate::support::ci::*;
use crate::support::github_fake::{FakeGitHub, JobSpec, LogSpec, RunSpec};
use crate::support::gitrepo::TestRepo;

/// A line break and a workflow command, as a name may carry them.
const CMD: &str = "\n::error::injected";

#[test]
fn hostile_names_from_github_start_no_workflow_command() {
    // A fork PR judged under `workflow_run`: the history, the runs, the jobs and their
    // logs all come from the API, with every name hostile.
    let mut p = Project::new(CONFIG);
    let mut heads = Vec::new();
    for (i, body) in ["s.len()", "s.len() + 0", "s.len() + 1 - 1"]
        .iter()
        .enumerate()
    {
        let message = format!("::error::subject {i}\n\n::warning::body\n  ::notice::indented");
        heads.push(p.attempt(body, &message));
    }
    let checkout = TestRepo::new();
    checkout.write("README.md", "widgets\n");
    checkout.commit("Default branch");
    let branch = format!("main{CMD}-branch");
    let gh = FakeGitHub::start_blocking()
        .with_file(&p.base, ".loopguard.yml", CONFIG.as_bytes())
        .with_pr(
            p.pr(9, &heads[2])
                .fork("someone/widgets")
                .head_ref(&branch)
                .title(&format!("Fix{CMD}-title")),
        );
    for (i, head) in heads.iter().enumerate() {
        let id = 5000 + i as u64;
        gh.add_run(
            RunSpec::new(id, head)
                .workflow(161335, &format!("CI{CMD}-run-name"))
                .head(&branch, Some("someone/widgets"))
                .job(JobSpec::succeeded(id * 10, &format!("lint{CMD}-ok"), "ok"))
                .job(JobSpec::failed(
                    id * 10 + 1,
                    &format!("test{CMD}-job\r::error::cr"),
                    &log_text(SAME_JOB_LOG),
                ))
                .job(
                    JobSpec::failed(id * 10 + 2, &format!("expired{CMD}-expired"), "")
                        .log(LogSpec::Expired),
                ),
        );
    }
    let json = |s: &str| serde_json::to_string(s).unwrap();
    let event = payload(
        "workflow_run.completed.fork.json",
        &[
            ("\"{{RUN_ID}}\"", "5002"),
            ("{{HEAD_SHA}}", &heads[2]),
            (
                "\"name\": \"CI\"",
                &format!("\"name\": {}", json(&format!("CI{CMD}-event"))),
            ),
            (
                "\"head_branch\": \"main\"",
                &format!("\"head_branch\": {}", json(&branch)),
            ),
            (
                "\"display_title\": \"Fix word counting\"",
                &format!("\"display_title\": {}", json(&format!("Fix{CMD}-display"))),
            ),
        ],
    );
    let out = run_ci(&gh, &checkout, "workflow_run", &event, &[]);
    assert_eq!(out.code, 1, "{out:#?}");
    // The names were there to be shown: the expired job is noted on stderr.
    assert!(out.stderr.contains("expired"), "{}", out.stderr);
    assert_no_command_outside_fence("stdout", &out.stdout);
    assert_no_command_outside_fence("stderr", &out.stderr);
    for (what, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(!text.contains('\r'), "{what}: a raw CR: {text:?}");
    }
}

#[test]
fn a_config_error_quoting_the_agents_text_starts_no_workflow_command() {
    // On a push, the config is read at the commit before it: on an agent's branch, one the
    // agent wrote. Its error quotes the bad values.
    let bad = "paths:\n  tests: [\"ok/**\", \"x\\n::error::glob-injected[\"]\nrules:\n  edge_loop:\n    edges: {\"e\\n::error::key-injected\": 0}\n";
    let mut p = Project::new(CONFIG);
    p.repo.write(".loopguard.yml", bad);
    let before = p.attempt("s.len()", "Plant a config");
    let head = p.attempt("s.len() + 0", "Try again");
    let event = payload(
        "push.json",
        &[("{{HEAD_SHA}}", &head), ("{{BEFORE}}", &before)],
    );
    let gh = FakeGitHub::start_blocking();
    let out = run_ci(&gh, &p.repo, "push", &event, &[]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains(".loopguard.yml"), "{}", out.stderr);
    assert!(
        out.stderr.contains("injected"),
        "the value is shown: {}",
        out.stderr
    );
    assert_no_command_outside_fence("stdout", &out.stdout);
    assert_no_command_outside_fence("stderr", &out.stderr);
}

/// Escape sequences that would erase the line above and rewrite the window title, a bare
/// CR, DEL, a C1 control (CSI) and a bidi override.
const HOSTILE: &str = "Fix\u{1b}[2K\r\u{1b}[1A\u{1b}]0;pwned\u{7} it\u{7f}\u{9b}2J \u{202e}txt.exe";

/// Control characters no terminal output of loopguard may carry raw.
#[track_caller]
fn assert_shown_not_executed(what: &str, text: &str) {
    for (i, c) in text.char_indices() {
        let bad = matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if bad {
            // Some context around it, cut at character boundaries.
            let from = (0..=i.saturating_sub(40))
                .rev()
                .find(|&b| text.is_char_boundary(b))
                .unwrap_or(0);
            let to = ((i + 40).min(text.len())..=text.len())
                .find(|&b| text.is_char_boundary(b))
                .unwrap_or(text.len());
            panic!("{what}: a raw {c:?} at byte {i}: {:?}", &text[from..to]);
        }
    }
}

#[test]
fn escape_codes_in_commit_messages_are_shown_never_executed() {
    let repo = crate::support::guarded(
        "rules:\n  stagnation: {threshold: 2}\nreport:\n  dir: reports\n  issues_file: ISSUES.md\n",
    );
    let branch = "fix-\u{202e}gnp.exe";
    repo.checkout_new(branch);
    repo.commit_empty(&format!("{HOSTILE}\n\nbody {HOSTILE}"));
    repo.tick();
    let trip = repo.try_git(&["commit", "-q", "--allow-empty", "-m", HOSTILE]);
    let trip_stderr = String::from_utf8_lossy(&trip.stderr).into_owned();
    assert!(
        trip_stderr.contains("the breaker opened (stagnation)"),
        "{trip_stderr}"
    );
    assert!(
        trip_stderr.contains("^["),
        "the escape is shown: {trip_stderr}"
    );
    assert_shown_not_executed("the trip message", &trip_stderr);

    let refusal = crate::support::lg(&repo)
        .args(["hook", "pre-commit"])
        .run()
        .code(1);
    assert!(refusal.stderr.contains("refused"), "{}", refusal.stderr);
    assert_shown_not_executed("the pre-commit refusal", &refusal.stderr);
    let push = crate::support::lg(&repo)
        .args(["hook", "pre-push", "origin", "https://example.com/r.git"])
        .stdin(format!(
            "refs/heads/{branch} {} refs/heads/{branch} {}\n",
            repo.head(),
            "0".repeat(40)
        ))
        .run()
        .code(1);
    assert_shown_not_executed("the pre-push refusal", &push.stderr);

    for args in [
        &["status"][..],
        &["status", "--json"],
        &["report"],
        &["report", "--text"],
        &["report", "--json"],
        &["report", "--html"],
        &["check", "--range", "main..HEAD"],
    ] {
        let out = crate::support::lg(&repo).args(args).run();
        assert!(out.code.is_some(), "{args:?}: {out:?}");
        assert_shown_not_executed(&format!("{args:?} stdout"), &out.stdout);
        assert_shown_not_executed(&format!("{args:?} stderr"), &out.stderr);
    }
    let json = crate::support::status(&repo);
    assert!(
        json.to_string().contains("\\u001b[2K"),
        "JSON escapes the text rather than dropping it: {json}"
    );

    let mut files = Vec::new();
    for dir in [
        repo.path().join(".git/loopguard/reports"),
        repo.path().join("reports"),
    ] {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            files.push(entry.unwrap().path());
        }
    }
    files.push(repo.path().join("ISSUES.md"));
    assert!(files.len() >= 3, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        assert_shown_not_executed(&f.display().to_string(), &text);
    }
}

#[test]
fn escape_codes_in_test_logs_are_shown_never_executed() {
    // A failing test whose message carries the escapes: its first error and its id reach the
    // trip message, status, the report and the report file.
    let repo = crate::support::guarded("report:\n  dir: reports\n");
    let log = repo.path().join("hostile.log");
    // A CR in a log is a progress line overwritten (what a terminal shows is what is
    // parsed): the rest of the escapes stay in the line.
    let escapes = HOSTILE.replace('\r', "");
    let real =
        std::fs::read_to_string(crate::support::fixture("pytest/assert-count/quiet.log")).unwrap();
    let hostile = real
        .replace("assert 4 == 3", &escapes)
        .replace("test_counts_three_words", &format!("test_counts{escapes}"));
    assert_ne!(real, hostile);
    std::fs::write(&log, hostile).unwrap();
    let mut last = None;
    for i in 0..3 {
        repo.append("src/lib.rs", &format!("// attempt {i}\n"));
        let out = crate::support::lg(&repo)
            .args(["run", "--"])
            .args(crate::support::replay_log(&log, 1))
            .run();
        // The test command's own output passes through as it printed it; what loopguard
        // says about it is shown, not obeyed.
        assert_shown_not_executed("run's stderr", &out.stderr);
        last = Some(out);
    }
    let trip = last.unwrap().code(86);
    assert!(trip.stderr.contains("same_error"), "{}", trip.stderr);
    let s = crate::support::status(&repo);
    assert_eq!(s["rule"], "same_error", "{s}");
    // The fingerprinter drops the escape sequences a terminal would have swallowed; the
    // bidi override is text, kept (escaped on the wire: the loop below reads it raw).
    assert!(
        s["looping_failure"]["first_error"]
            .as_str()
            .unwrap()
            .contains('\u{202e}'),
        "{s}"
    );
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["report"],
        &["report", "--text"],
        &["report", "--json"],
        &["report", "--html"],
    ] {
        let out = crate::support::lg(&repo).args(args).run();
        assert!(out.code.is_some(), "{args:?}: {out:?}");
        assert_shown_not_executed(&format!("{args:?} stdout"), &out.stdout);
        assert_shown_not_executed(&format!("{args:?} stderr"), &out.stderr);
    }
    let reports: Vec<_> = std::fs::read_dir(repo.path().join("reports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!reports.is_empty());
    for f in reports {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.contains("test_counts"), "{}: {text}", f.display());
        assert_shown_not_executed(&f.display().to_string(), &text);
    }
}
