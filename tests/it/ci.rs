//! `loopguard ci` end to end: the real binary, a real git repository built here, real
//! `cargo test` logs (tests/fixtures/github/logs, made by its generate.sh), real-shaped
//! event payloads (tests/fixtures/github/events), and the wiremock GitHub of
//! tests/it/support/github_fake.rs standing in for the API.

use crate::support::ci::*;
use std::path::{Path, PathBuf};

use crate::support::github_fake::{
    BOT_LOGIN, CommitSpec, FakeGitHub, Fault, FileSpec, JobSpec, LogSpec, PrSpec, RunSpec,
};
use crate::support::gitrepo::TestRepo;
use loopguard::github::{GitHubClient, RepoId, Token};

#[test]
fn three_runs_with_the_same_failure_trip_and_a_fourth_updates_in_place() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let mut last = None;
    for (i, (body, log)) in SAME.iter().enumerate() {
        let head = p.attempt(body, &format!("Fix word counting, try {}", i + 1));
        gh.add_pr(p.pr(7, &head));
        // The tests of each push ran for 4 minutes (a run of another branch does not count);
        // the first push's were re-run: an attempt of 2 minutes before.
        let start = format!("2026-11-25T1{i}:00:00Z");
        let mut run = RunSpec::new(6000 + i as u64, &head)
            .head(BRANCH, None)
            .timing(&start, &start.replace(":00:00Z", ":04:00Z"));
        if i == 0 {
            run = run.earlier_attempt("2026-11-25T09:50:00Z", "2026-11-25T09:52:00Z");
        }
        gh.add_run(run);
        gh.add_run(
            RunSpec::new(7000 + i as u64, &"f".repeat(40))
                .timing("2026-11-25T09:00:00Z", "2026-11-25T09:30:00Z"),
        );
        let out = p.ci_on_push(&gh, &head, log);
        match i {
            0 | 1 => {
                assert_eq!(out.code, 0, "{out:#?}");
                assert_eq!(out.outputs["tripped"], "false");
                assert_eq!(out.outputs["state"], "closed");
                assert!(gh.labels(7).is_empty());
                assert!(gh.issues().is_empty());
                // The state lives in the comment from the first run on; the second run
                // of the same failure is one short of the trip, and the headline says so.
                let headline = ["loopguard: no loop", "loopguard: warning — `same_error`"][i];
                assert!(
                    sticky_body(&gh, 7).contains(headline),
                    "{}",
                    sticky_body(&gh, 7)
                );
            }
            _ => {
                assert_eq!(out.code, 1, "{out:#?}");
                assert_eq!(out.outputs["tripped"], "true");
                assert_eq!(out.outputs["state"], "open");
                assert_eq!(out.outputs["rule"], "same_error");
                assert_eq!(out.outputs["terminal-status"], "aborted_stuck");
                assert!(
                    out.outputs["reason"].starts_with("the same failure (cargo: "),
                    "{out:#?}"
                );
                assert_eq!(out.outputs["signature"].len(), 64);
                assert_eq!(out.outputs["next-model"], "");
                assert_eq!(gh.labels(7), [LABEL]);
                let issues = gh.issues();
                assert_eq!(issues.len(), 1, "{issues:#?}");
                let issue = &issues[0];
                assert_eq!(issue.state, "open");
                assert_eq!(
                    issue.title,
                    "loopguard: PR #7 is stuck in a loop (same_error)"
                );
                assert!(issue.body.starts_with("<!-- loopguard:issue pr=7 -->"));
                assert!(
                    issue.body.contains("- **Rule:** `same_error`"),
                    "{}",
                    issue.body
                );
                assert!(issue.body.contains("counts_three_words"), "{}", issue.body);
                assert!(issue.body.contains("- **From:**"), "{}", issue.body);
                assert!(issue.body.contains(&p.attempts[0][..7]), "commits involved");
                assert_eq!(issue.labels, ["loopguard"]);
                let comment = sticky_body(&gh, 7);
                assert!(
                    comment.contains("### loopguard: stuck loop — `same_error`"),
                    "{comment}"
                );
                assert!(comment.contains("| `same_error` ⛔ |"), "{comment}");
                // What the loop cost in CI, from the runs' own timings, the re-run's first
                // attempt included.
                let cost = format!(
                    "**What the loop cost:** {} runs, {} CI minutes since its first repeated failure ({})",
                    i + 2,
                    4 * (i + 1) + 2,
                    &p.attempts[0][..7]
                );
                assert!(comment.contains(&cost), "{comment}");
                assert!(comment.contains("## Recent iterations"), "{comment}");
                assert!(comment.contains(&format!("Stuck-loop issue: #{}", issue.number)));
                assert!(
                    out.summary
                        .contains("## loopguard: stuck loop — `same_error`")
                );
                assert!(
                    out.stdout
                        .lines()
                        .any(|l| l.starts_with("::error title=loopguard%3A same_error::")),
                    "{}",
                    out.stdout
                );
                if let Some(previous) = &last {
                    assert_ne!(previous, &comment, "the fourth run updates the comment");
                }
                last = Some(comment);
            }
        }
    }
    // Four runs: one comment created then edited, one issue created then edited, one label.
    let w = writes(&gh);
    assert_eq!(
        w.iter()
            .filter(|x| x.ends_with("/issues/7/comments"))
            .count(),
        1,
        "{w:#?}"
    );
    assert_eq!(
        w.iter()
            .filter(|x| *x == "POST /repos/octo-org/widgets/issues")
            .count(),
        1
    );
    assert!(
        w.iter()
            .any(|x| x.starts_with("PATCH /repos/octo-org/widgets/issues/")
                && !x.contains("comments")),
        "{w:#?}"
    );
    assert_eq!(
        w.iter().filter(|x| x.ends_with("/issues/7/labels")).count(),
        1,
        "{w:#?}"
    );
    // The fourth run's issue body names four commits and the fourth head.
    let issue = &gh.issues()[0];
    assert!(issue.body.contains(&p.attempts[3][..10]), "{}", issue.body);
}

#[test]
fn a_pr_making_progress_never_trips() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let steps = [
        ("s.split(' ').filter(|w| w.len() > 1).count()", SAME_LOGS[0]),
        ("s.split(' ').count()", OTHER_LOG),
        ("s.split(' ').filter(|w| !w.is_empty()).count()", OTHER_LOG),
        ("s.split_whitespace().count()", PASS_LOG),
        ("s.split_whitespace().count() // tidy", PASS_LOG),
    ];
    for (i, (body, log)) in steps.iter().enumerate() {
        let head = p.attempt(body, &format!("Counting, step {}", i + 1));
        gh.add_pr(p.pr(7, &head));
        let out = p.ci_on_push(&gh, &head, log);
        assert_eq!(out.code, 0, "step {i}: {out:#?}");
        assert_eq!(out.outputs["tripped"], "false");
    }
    assert!(gh.labels(7).is_empty());
    assert!(gh.issues().is_empty());
    let body = sticky_body(&gh, 7);
    assert!(body.contains("loopguard: no loop"), "{body}");
    assert!(
        body.contains("| 5 |"),
        "five iterations in the table: {body}"
    );
}

#[test]
fn a_config_change_on_the_pr_head_is_ignored_and_trips_constraint() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    // The agent loosens its guard: no constraint rule, no PR channels.
    p.repo.write(
        ".loopguard.yml",
        "rules:\n  constraint: {action: off}\n  same_error: {threshold: 50}\non_trip:\n  notify: [summary]\n",
    );
    let head = p.attempt("s.split_whitespace().count()", "Relax the guard");
    gh.add_pr(p.pr(7, &head));
    let out = p.ci_on_push(&gh, &head, PASS_LOG);
    assert_eq!(out.code, 1, "{out:#?}");
    assert_eq!(out.outputs["rule"], "constraint");
    assert_eq!(out.outputs["terminal-status"], "aborted_constraint");
    assert!(out.outputs["reason"].contains(".loopguard.yml"), "{out:#?}");
    // The base's notify list was used: label, comment and issue are there.
    assert_eq!(gh.labels(7), [LABEL]);
    assert_eq!(gh.issues().len(), 1);
    assert!(sticky_body(&gh, 7).contains("`constraint`"));
}

/// The base's workflows: one runs loopguard, one only tests.
const GUARD_WORKFLOW: (&str, &str) = (
    ".github/workflows/guard.yml",
    "on: pull_request\njobs:\n  guard:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: loopguard/loopguard@v1\n",
);
const TEST_WORKFLOW: (&str, &str) = (
    ".github/workflows/test.yml",
    "on: pull_request\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo test\n",
);

#[test]
fn a_workflow_that_runs_loopguard_is_protected_and_other_ci_changes_are_a_note() {
    // Another workflow: a note in the comment and the summary, no trip.
    let mut p = Project::with_files(CONFIG, &[GUARD_WORKFLOW, TEST_WORKFLOW]);
    let gh = FakeGitHub::start_blocking();
    p.repo.write(TEST_WORKFLOW.0, "on: push\njobs: {}\n");
    let head = p.attempt("s.split_whitespace().count()", "Run the tests on push");
    gh.add_pr(p.pr(7, &head));
    let out = p.ci_on_push(&gh, &head, PASS_LOG);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(out.outputs["state"], "closed");
    assert!(
        out.summary.contains(".github/workflows/test.yml"),
        "{}",
        out.summary
    );
    assert!(sticky_body(&gh, 7).contains("CI configuration"));

    // The workflow that runs loopguard: constraint, even after the agent removed
    // loopguard from it (what counts is the base's version).
    let mut p = Project::with_files(CONFIG, &[GUARD_WORKFLOW, TEST_WORKFLOW]);
    let gh = FakeGitHub::start_blocking();
    p.repo
        .write(GUARD_WORKFLOW.0, "on: pull_request\njobs: {}\n");
    let head = p.attempt("s.split_whitespace().count()", "Simplify CI");
    gh.add_pr(p.pr(7, &head));
    let out = p.ci_on_push(&gh, &head, PASS_LOG);
    assert_eq!(out.code, 1, "{out:#?}");
    assert_eq!(out.outputs["rule"], "constraint");
    assert!(
        out.outputs["reason"].contains(".github/workflows/guard.yml"),
        "{out:#?}"
    );
}

#[test]
fn without_the_base_in_the_checkout_the_workflows_are_read_once_per_base() {
    let mut p = Project::with_files(CONFIG, &[GUARD_WORKFLOW, TEST_WORKFLOW]);
    p.repo
        .write(GUARD_WORKFLOW.0, "on: pull_request\njobs: {}\n");
    let head = p.attempt("s.split_whitespace().count()", "Simplify CI");
    let gh = FakeGitHub::start_blocking()
        .with_file(&p.base, ".loopguard.yml", CONFIG.as_bytes())
        .with_file(&p.base, GUARD_WORKFLOW.0, GUARD_WORKFLOW.1.as_bytes())
        .with_file(&p.base, TEST_WORKFLOW.0, TEST_WORKFLOW.1.as_bytes());
    gh.add_pr(p.pr(7, &head));
    let shallow = TestRepo::clone_from(&p.repo, &["--depth", "1", "--branch", BRANCH]);
    let event = p.sync_event(&head);
    let out = run_ci(
        &gh,
        &shallow,
        "pull_request",
        &event,
        &["--log", &log_path(PASS_LOG)],
    );
    assert_eq!(out.outputs["rule"], "constraint", "{out:#?}");
    assert_eq!(
        count(
            &gh.requests(),
            "GET",
            "/contents/.github/workflows/guard.yml"
        ),
        1
    );
    gh.clear_requests();
    let again = run_ci(
        &gh,
        &shallow,
        "pull_request",
        &event,
        &["--log", &log_path(PASS_LOG)],
    );
    assert_eq!(again.outputs["rule"], "constraint", "{again:#?}");
    let listed = gh
        .requests()
        .iter()
        .filter(|r| r.path.contains("/contents/.github"))
        .count();
    assert_eq!(listed, 0, "the second run reads them from its state");
}

#[test]
fn a_fork_pr_under_workflow_run_is_found_by_head_and_judged_from_job_logs() {
    // The privileged workflow checks out the default branch only: the PR's commits are
    // not in it, and no sticky comment exists yet, so history and earlier evidence come
    // from the API (PR commits, commit files, workflow runs of earlier heads, job logs).
    let mut p = Project::new(CONFIG);
    let mut heads = Vec::new();
    for (body, _) in &SAME[..3] {
        heads.push(p.attempt(body, "Fix word counting"));
    }
    let checkout = TestRepo::new();
    checkout.write("README.md", "widgets\n");
    checkout.commit("Default branch");
    let gh = FakeGitHub::start_blocking()
        .with_file(&p.base, ".loopguard.yml", CONFIG.as_bytes())
        .with_pr(p.pr(9, &heads[2]).fork("someone/widgets").head_ref("main"));
    for (i, head) in heads.iter().enumerate() {
        let id = 5000 + i as u64;
        gh.add_run(
            RunSpec::new(id, head)
                .head("main", Some("someone/widgets"))
                .job(JobSpec::succeeded(id * 10, "lint", "ok"))
                .job(JobSpec::failed(
                    id * 10 + 1,
                    "test",
                    &log_text(SAME_JOB_LOG),
                )),
        );
    }
    let event = payload(
        "workflow_run.completed.fork.json",
        &[("\"{{RUN_ID}}\"", "5002"), ("{{HEAD_SHA}}", &heads[2])],
    );
    let out = run_ci(&gh, &checkout, "workflow_run", &event, &[]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert_eq!(out.outputs["rule"], "same_error");
    assert_eq!(gh.labels(9), [LABEL]);
    assert_eq!(gh.issues().len(), 1);
    let comment = sticky_body(&gh, 9);
    assert!(
        comment.contains("job test"),
        "the evidence names its job: {comment}"
    );
    let requests = gh.requests();
    assert_eq!(count(&requests, "GET", "/pulls/9/commits"), 1);
    assert_eq!(count(&requests, "GET", "/actions/runs/5002/jobs"), 1);
    // Only the failed jobs' logs are read, one per run.
    assert_eq!(count(&requests, "GET", "/logs"), 3, "{requests:#?}");
    // The contents API gave the base's config.
    assert_eq!(count(&requests, "GET", "/contents/.loopguard.yml"), 1);
}

#[test]
fn a_shallow_checkout_reads_history_from_the_api_and_a_steady_run_is_cheap() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let mut head = String::new();
    // Ten iterations, each a different failure or a pass: no trip.
    for i in 0..10 {
        let (body, log) = if i % 2 == 0 {
            (format!("s.split(' ').count() + {i} - {i}"), OTHER_LOG)
        } else {
            (
                format!("s.split_whitespace().count() + {i} - {i}"),
                PASS_LOG,
            )
        };
        head = p.attempt(&body, &format!("Iteration {i}"));
        let _ = log;
    }
    gh.add_pr(p.pr(7, &head));
    // This very run, in progress: its workflow is where earlier heads' runs are looked up.
    let mut this_run = RunSpec::new(990001, &head).conclusion(None);
    this_run.status = "in_progress".into();
    gh.add_run(this_run);
    let gh = gh.with_file(&p.base, ".loopguard.yml", CONFIG.as_bytes());
    let shallow = TestRepo::clone_from(&p.repo, &["--depth", "1", "--branch", BRANCH]);
    let event = p.sync_event(&head);
    let first = run_ci(
        &gh,
        &shallow,
        "pull_request",
        &event,
        &["--log", &log_path(PASS_LOG)],
    );
    assert_eq!(first.code, 0, "{first:#?}");
    let requests = gh.requests();
    assert_eq!(count(&requests, "GET", "/pulls/7/commits"), 1);
    // Every commit's files were read once (the checkout has none of them).
    for sha in &p.attempts {
        assert_eq!(
            count(&requests, "GET", &format!("/commits/{sha}")),
            1,
            "{sha}"
        );
    }
    let body = sticky_body(&gh, 7);
    assert!(body.contains("| 10 |"), "ten iterations: {body}");

    // Steady state: the same run again. The comment's state holds the records and the
    // evidence: no commit is read again and nothing is written.
    gh.clear_requests();
    let again = run_ci(
        &gh,
        &shallow,
        "pull_request",
        &event,
        &["--log", &log_path(PASS_LOG)],
    );
    assert_eq!(again.code, 0, "{again:#?}");
    let requests = gh.requests();
    let list: Vec<String> = requests
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(gh.writes().is_empty(), "{list:#?}");
    assert!(
        requests.len() <= 10,
        "steady state: {} requests: {list:#?}",
        requests.len()
    );
    assert_eq!(
        requests.len(),
        5,
        "pull, commits, config, timeline, comments: {list:#?}"
    );
    println!(
        "steady-state requests (API history, 10 iterations): {}",
        requests.len()
    );
}

#[test]
fn a_steady_run_with_full_history_in_the_checkout_is_cheaper_still() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let mut head = String::new();
    for i in 0..10 {
        head = p.attempt(
            &format!("s.split_whitespace().count() + {i} - {i}"),
            &format!("Iteration {i}"),
        );
    }
    gh.add_pr(p.pr(7, &head));
    let mut this_run = RunSpec::new(990001, &head).conclusion(None);
    this_run.status = "in_progress".into();
    gh.add_run(this_run);
    let event = p.sync_event(&head);
    let first = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &event,
        &["--log", &log_path(PASS_LOG)],
    );
    assert_eq!(first.code, 0, "{first:#?}");
    gh.clear_requests();
    let again = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &event,
        &["--log", &log_path(PASS_LOG)],
    );
    assert_eq!(again.code, 0);
    let requests = gh.requests();
    assert!(gh.writes().is_empty());
    assert_eq!(
        requests.len(),
        3,
        "pull, timeline and comments: {requests:#?}"
    );
    println!(
        "steady-state requests (git history, 10 iterations): {}",
        requests.len()
    );
}

#[test]
fn removing_the_label_resumes_and_the_next_push_decides() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let mut head = String::new();
    for (i, (body, log)) in SAME[..3].iter().enumerate() {
        head = p.attempt(body, &format!("Try {i}"));
        gh.add_pr(p.pr(7, &head));
        p.ci_on_push(&gh, &head, log);
    }
    assert_eq!(gh.labels(7), [LABEL]);
    // A maintainer takes the label off.
    let maintainer = GitHubClient::builder()
        .api_url(gh.uri())
        .token(Token::new("ghp_maintainer0token").unwrap())
        .repo(RepoId::new("octo-org", "widgets"))
        .time_scale(0.001)
        .build()
        .unwrap();
    assert!(maintainer.remove_label(7, LABEL).unwrap());
    let event = payload(
        "pull_request.unlabeled.json",
        &[("{{HEAD_SHA}}", &head), ("{{BASE_SHA}}", &p.base)],
    );
    let out = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &event,
        &["--log", &log_path(SAME_LOGS[0])],
    );
    assert_eq!(out.code, 0, "half-open does not fail the step: {out:#?}");
    assert_eq!(out.outputs["state"], "half_open");
    assert!(gh.labels(7).is_empty());
    assert!(sticky_body(&gh, 7).contains("half-open"));

    // The agent only re-runs CI (an empty commit) and fails the same way: open again,
    // label back. (A code change would have been progress: half-open closes on it.)
    let next = p.attempt_empty("Retry CI");
    gh.add_pr(p.pr(7, &next));
    let out = p.ci_on_push(&gh, &next, SAME_LOGS[1]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(
        out.outputs["reason"].starts_with("no progress after resume"),
        "{out:#?}"
    );
    assert_eq!(gh.labels(7), [LABEL]);

    // Then it fixes the bug: the breaker closes, the label comes off, the issue closes.
    let fixed = p.attempt("s.split_whitespace().count()", "Fix it for real");
    gh.add_pr(p.pr(7, &fixed));
    let out = p.ci_on_push(&gh, &fixed, PASS_LOG);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(out.outputs["state"], "closed");
    assert!(gh.labels(7).is_empty());
    let body = sticky_body(&gh, 7);
    assert!(body.contains("### loopguard: recovered"), "{body}");
    assert!(body.contains("the tests pass at"), "{body}");
    let issues = gh.issues();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].state, "closed");
    assert!(
        issues[0].body.contains("**Status:** recovered"),
        "{}",
        issues[0].body
    );
}

#[test]
fn after_a_resume_new_code_failing_the_same_way_opens_it_again_as_the_comment_said() {
    // Issue 27: after a maintainer's resume, a push of new code that failed the same way
    // was "Recovered" and the stuck-loop issue closed, right after the comment had said
    // that another round of the same opens the breaker again.
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let mut head = String::new();
    for (i, (body, log)) in SAME[..3].iter().enumerate() {
        head = p.attempt(body, &format!("Try {i}"));
        gh.add_pr(p.pr(7, &head));
        p.ci_on_push(&gh, &head, log);
    }
    gh.remove_label(7, LABEL);
    let event = payload(
        "pull_request.unlabeled.json",
        &[("{{HEAD_SHA}}", &head), ("{{BASE_SHA}}", &p.base)],
    );
    let out = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &event,
        &["--log", &log_path(SAME_LOGS[0])],
    );
    assert_eq!(out.outputs["state"], "half_open", "{out:#?}");
    let said = sticky_body(&gh, 7);
    let promise = "**What now:** the next push with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again.";
    assert!(said.contains(promise), "{said}");

    // New code, the same failure: what the comment said happens.
    let next = p.attempt(SAME[3].0, "Try another way");
    gh.add_pr(p.pr(7, &next));
    let out = p.ci_on_push(&gh, &next, SAME_LOGS[1]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert_eq!(out.outputs["state"], "open");
    assert_eq!(out.outputs["rule"], "same_error");
    assert!(
        out.outputs["reason"]
            .starts_with("the same failure after resume (tripped before: the same failure"),
        "{out:#?}"
    );
    let body = sticky_body(&gh, 7);
    assert!(!body.contains("recovered"), "{body}");
    assert!(body.contains("### loopguard: stuck loop"), "{body}");
    assert_eq!(gh.labels(7), [LABEL]);
    let issues = gh.issues();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].state, "open", "the stuck-loop issue stays open");
    assert!(
        issues[0].body.contains("**Status:** stuck"),
        "{}",
        issues[0].body
    );

    // Resumed again, then new code whose tests pass: recovered, and said so.
    gh.remove_label(7, LABEL);
    let fixed = p.attempt("s.split_whitespace().count()", "Fix it for real");
    gh.add_pr(p.pr(7, &fixed));
    let out = p.ci_on_push(&gh, &fixed, PASS_LOG);
    assert_eq!(out.outputs["state"], "closed", "{out:#?}");
    let body = sticky_body(&gh, 7);
    assert!(
        body.contains(&format!(
            "**Recovered:** the tests pass at {}, after the resume",
            &fixed[..7]
        )),
        "{body}"
    );
    assert_eq!(gh.issues()[0].state, "closed");
}

#[test]
fn a_review_by_a_maintainer_between_two_runs_is_a_new_episode() {
    // Two attempts fail the same way; someone reviews; the third fails the same way too.
    // A maintainer's review is a person's turn: the loop counters start again. A review by
    // someone who may not write to the repository is not.
    for (reviewer, permission, trips) in [("maintainer", "write", false), ("visitor", "read", true)]
    {
        let mut p = Project::new(CONFIG);
        let gh = FakeGitHub::start_blocking().with_permission(reviewer, permission);
        let mut outs = Vec::new();
        for (i, (body, log)) in SAME[..3].iter().enumerate() {
            if i == 2 {
                // Between the second run and the third push.
                gh.add_review(7, reviewer, "CHANGES_REQUESTED", &gh.person_time());
            }
            let head = p.attempt(body, &format!("Try {i}"));
            gh.add_pr(p.pr(7, &head));
            outs.push(p.ci_on_push(&gh, &head, log));
        }
        let last = outs.last().unwrap();
        if trips {
            assert_eq!(last.code, 1, "{reviewer}: {last:#?}");
            assert_eq!(last.outputs["rule"], "same_error");
        } else {
            assert_eq!(last.code, 0, "{reviewer}: {last:#?}");
            assert_eq!(last.outputs["state"], "closed");
            let body = sticky_body(&gh, 7);
            assert!(
                body.contains("| 3 |"),
                "the budget counts all three: {body}"
            );
        }
    }
}

#[test]
fn hostile_log_text_comes_out_inert() {
    let config = "rules:\n  same_error: {threshold: 1}\non_trip:\n  notify: [summary, label, comment, issue]\n";
    let mut p = Project::new(config);
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt("s.split_whitespace().count()", "Add a test cc @org/team");
    gh.add_pr(p.pr(7, &head));
    let out = p.ci_on_push(&gh, &head, "hostile.log");
    assert_eq!(out.code, 1, "{out:#?}");
    let comment = sticky_body(&gh, 7);
    let issue = gh.issues()[0].body.clone();
    for (what, text) in [
        ("comment", &comment),
        ("issue", &issue),
        ("summary", &out.summary),
    ] {
        assert!(
            text.contains("add-mask"),
            "{what} quotes the failure: {text}"
        );
        assert!(!text.contains("@org/team"), "{what} mentions: {text}");
        assert!(text.contains(&format!("@{ZWSP}org/team")), "{what}: {text}");
        for line in text.lines() {
            assert!(!line.trim_start().starts_with("::"), "{what}: {line}");
        }
    }
    // On the log, the text is fenced by stop-commands; outside the fence only loopguard's
    // own annotation starts with `::`.
    let mut fenced = false;
    let mut token = String::new();
    for line in out.stdout.lines() {
        if let Some(t) = line.strip_prefix("::stop-commands::") {
            fenced = true;
            token = format!("::{t}::");
        } else if fenced && line == token {
            fenced = false;
        } else if !fenced && line.starts_with("::") {
            assert!(line.starts_with("::error title=loopguard"), "{line}");
            assert!(!line.contains("::add-mask::"), "{line}");
        }
    }
    assert!(!out.outputs["reason"].is_empty());
}

#[test]
fn server_errors_and_rate_limits_are_retried_without_duplicates() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    gh.fail_next("GET", r"/pulls/7$", Fault::Status(502), 2);
    gh.fail_next(
        "POST",
        r"/issues/7/comments$",
        Fault::StatusAfterApply(502),
        1,
    );
    gh.fail_next(
        "GET",
        r"/issues/7/comments$",
        Fault::TooManyRequests { retry_after: 2 },
        1,
    );
    let out = p.ci_on_push(&gh, &head, SAME_LOGS[0]);
    assert_eq!(out.code, 0, "{out:#?}");
    let requests = gh.requests();
    assert_eq!(
        count(&requests, "GET", "/pulls/7"),
        3,
        "two 502s, then the answer"
    );
    // The comment was created by the attempt that answered 502; the retry found it.
    assert_eq!(gh.comments_on(7).len(), 1);
    assert_eq!(count(&requests, "POST", "/issues/7/comments"), 1);
}

#[test]
fn a_missing_permission_fails_with_the_permissions_hint() {
    let mut p = Project::new(
        "rules:\n  same_error: {threshold: 1}\non_trip:\n  notify: [summary, issue]\n",
    );
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    gh.fail_next("GET", r"/issues$", Fault::NotAccessibleByIntegration, 1);
    let out = p.ci_on_push(&gh, &head, SAME_LOGS[0]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr
            .contains("Resource not accessible by integration"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("issues: write   # missing"),
        "{}",
        out.stderr
    );
    // The step's own outputs were written before GitHub refused.
    assert_eq!(out.outputs["tripped"], "true");
}

#[test]
fn an_expired_log_is_noted_and_judged_as_an_unread_failure() {
    let mut p = Project::new(CONFIG);
    let head = p.attempt(SAME[0].0, "Try 1");
    let checkout = TestRepo::new();
    checkout.write("README.md", "widgets\n");
    checkout.commit("Default branch");
    let gh = FakeGitHub::start_blocking()
        .with_file(&p.base, ".loopguard.yml", CONFIG.as_bytes())
        .with_pr(p.pr(9, &head).fork("someone/widgets").head_ref("main"))
        .with_run(
            RunSpec::new(6000, &head)
                .head("main", Some("someone/widgets"))
                .job(JobSpec::failed(60001, "test", "").log(LogSpec::Expired)),
        );
    let event = payload(
        "workflow_run.completed.fork.json",
        &[("\"{{RUN_ID}}\"", "6000"), ("{{HEAD_SHA}}", &head)],
    );
    let out = run_ci(&gh, &checkout, "workflow_run", &event, &[]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(
        out.summary.contains("is expired \\(410\\)"),
        "{}",
        out.summary
    );
    assert!(out.stderr.contains("expired (410)"), "{}", out.stderr);
    assert_eq!(out.outputs["signature"], "");
}

#[test]
fn push_reports_only_and_dry_run_writes_nothing() {
    let mut p = Project::new(
        "rules:\n  same_error: {threshold: 1}\non_trip:\n  notify: [summary, label, comment, issue]\n",
    );
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    let event = payload(
        "push.json",
        &[("{{HEAD_SHA}}", &head), ("{{BEFORE}}", &p.base)],
    );
    let out = run_ci(
        &gh,
        &p.repo,
        "push",
        &event,
        &["--log", &log_path(SAME_LOGS[0])],
    );
    assert_eq!(out.code, 1, "{out:#?}");
    assert_eq!(out.outputs["rule"], "same_error");
    assert!(
        gh.requests().is_empty(),
        "a push with the history in the checkout needs no API: {:#?}",
        gh.requests()
    );

    gh.add_pr(p.pr(7, &head));
    let out = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &p.sync_event(&head),
        &["--log", &log_path(SAME_LOGS[0]), "--dry-run"],
    );
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(gh.writes().is_empty(), "{:#?}", gh.writes());
    assert!(out.stdout.contains("dry run: "), "{}", out.stdout);
    for planned in [
        "POST /repos/octo-org/widgets/issues/7/labels",
        "POST /repos/octo-org/widgets/issues:",
        "POST /repos/octo-org/widgets/issues/7/comments",
    ] {
        assert!(out.stdout.contains(planned), "{planned}: {}", out.stdout);
    }
}

#[test]
fn bad_input_names_the_problem() {
    let mut p = Project::new("rules:\n  same_error: {threshold: 0}\n");
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    let out = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &p.sync_event(&head),
        &["--log", "nope.log"],
    );
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr.contains(".loopguard.yml@"),
        "the config, at the base: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains("rules.same_error.threshold"),
        "{}",
        out.stderr
    );

    let mut p = Project::new(CONFIG);
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    let out = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &p.sync_event(&head),
        &["--log", "nope.log"],
    );
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr.contains("nope.log: no such file"),
        "{}",
        out.stderr
    );
}

/// The steps of action.yml.
fn action_steps() -> Vec<serde_json::Value> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let action: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    action["runs"]["steps"].as_array().unwrap().clone()
}

#[test]
fn the_action_never_interpolates_into_its_scripts() {
    let steps = action_steps();
    let scripts: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert_eq!(scripts.len(), 3);
    for run in scripts {
        assert!(
            !run.contains("${{"),
            "inputs go through env:, never into run: {run}"
        );
    }
    for step in &steps {
        if let Some(uses) = step["uses"].as_str() {
            let (_, reference) = uses.split_once('@').unwrap();
            assert_eq!(reference.len(), 40, "pinned by commit sha: {uses}");
        }
    }
}

#[test]
fn the_action_passes_multiline_inputs_and_fail_on_trip_decides() {
    let script = action_steps()
        .into_iter()
        .find(|s| s["id"] == "guard")
        .and_then(|s| s["run"].as_str().map(str::to_owned))
        .unwrap();
    let mut p = Project::new(
        "rules:\n  same_error: {threshold: 1}\non_trip:\n  notify: [summary, label]\n",
    );
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    let bin = assert_cmd::cargo::cargo_bin("loopguard");
    let bash = PathBuf::from("bash");
    let logs = format!(
        "\n{}\n  \n{}\n",
        log_path(SAME_LOGS[0]),
        log_path(SAME_LOGS[1])
    );
    let step = |fail_on_trip: &str, dry_run: &str| {
        CiStep::new(&gh, &p.repo)
            .event("pull_request", &p.sync_event(&head))
            .program(&bash)
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .env("LOOPGUARD", bin.to_str().unwrap())
            .env("INPUT_LOG", &logs)
            .env("INPUT_JUNIT", "")
            .env("INPUT_CONFIG", "")
            .env("INPUT_FAIL_ON_TRIP", fail_on_trip)
            .env("INPUT_DRY_RUN", dry_run)
            .run()
    };
    let out = step("false", "true");
    assert_eq!(out.code, 0, "fail-on-trip off: the step passes: {out:#?}");
    assert_eq!(out.outputs["tripped"], "true");
    assert!(out.stdout.contains("fail-on-trip is off"), "{}", out.stdout);
    assert!(gh.writes().is_empty(), "dry-run: {:#?}", gh.writes());
    let out = step("true", "false");
    assert_eq!(out.code, 1, "{out:#?}");
    assert_eq!(gh.labels(7), [LABEL]);
    // Both logs were read: the evidence names them.
    assert!(out.summary.contains("plain.log, "), "{}", out.summary);
}

#[test]
fn only_the_agents_commits_are_attempts() {
    // Two agent attempts and a maintainer's commit, all failing the same way: with the
    // known agent identities in the PR, the maintainer's commit is context, so two
    // attempts in a row do not reach the threshold of three.
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let first = p.attempt(SAME[0].0, "Fix counting");
    gh.add_pr(p.pr(7, &first));
    p.ci_on_push(&gh, &first, SAME_LOGS[0]);
    p.repo.author("Maintainer", "maintainer@example.com");
    let human = p.attempt(SAME[1].0, "Review suggestion");
    gh.add_pr(p.pr(7, &human));
    let out = p.ci_on_push(&gh, &human, SAME_LOGS[1]);
    assert_eq!(out.code, 0, "{out:#?}");
    p.repo.author(COPILOT.0, COPILOT.1);
    let second = p.attempt(SAME[2].0, "Fix counting again");
    gh.add_pr(p.pr(7, &second));
    let out = p.ci_on_push(&gh, &second, SAME_LOGS[2]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.summary.contains("**Iterations:** 2"), "{}", out.summary);
    assert!(gh.labels(7).is_empty());
}

#[test]
fn a_fork_pr_under_pull_request_only_reports() {
    let mut p = Project::new(
        "rules:\n  same_error: {threshold: 1}\non_trip:\n  notify: [summary, label, comment, issue]\n",
    );
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head).fork("someone/widgets"));
    let mut event: serde_json::Value = serde_json::from_str(&p.sync_event(&head)).unwrap();
    event["pull_request"]["head"]["repo"]["full_name"] = "someone/widgets".into();
    let out = run_ci(
        &gh,
        &p.repo,
        "pull_request",
        &event.to_string(),
        &["--log", &log_path(SAME_LOGS[0])],
    );
    assert_eq!(out.code, 1, "the step still fails: {out:#?}");
    assert!(gh.writes().is_empty(), "{:#?}", gh.writes());
    assert!(out.summary.contains("workflow\\_run"), "{}", out.summary);
}

#[test]
fn github_enterprise_api_urls_work() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    let bin = assert_cmd::cargo::cargo_bin("loopguard");
    let api = gh.enterprise_uri();
    let out = CiStep::new(&gh, &p.repo)
        .event("pull_request", &p.sync_event(&head))
        .program(&bin)
        .args(["ci", "--log", &log_path(SAME_LOGS[0])])
        .env("GITHUB_API_URL", &api)
        .env("GITHUB_SERVER_URL", "https://ghe.example.com")
        .run();
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(gh.comments_on(7).len(), 1);
}

#[test]
fn a_large_pr_keeps_its_comment_within_githubs_limit() {
    // 45 agent commits of 40 files each, served by the API only: the records do not all fit
    // in a comment, so the oldest shed their file lists; the body stays within 65,536
    // characters (the fake refuses longer ones) and its state stays readable.
    let config = "rules:\n  budget: {max_iterations: 200}\non_trip:\n  notify: [summary, label, comment, issue]\n";
    let base = "b".repeat(40);
    let mut commits = Vec::new();
    let mut parent = base.clone();
    for i in 0..45u32 {
        let sha = format!("{:040x}", 0xc0ffee00u64 + u64::from(i));
        let files = (0..40)
            .map(|f| {
                FileSpec::modified(
                    &format!("src/{}/module_{i}_{f}.rs", "deeply/nested/path".repeat(4)),
                    3,
                    1,
                )
            })
            .collect();
        commits.push(
            CommitSpec::new(&sha, &format!("Iteration {i}"))
                .tree(&format!("{:040x}", 0x7eee00u64 + u64::from(i)))
                .parent(&parent)
                .files(files),
        );
        parent = sha;
    }
    let head = parent.clone();
    let gh = FakeGitHub::start_blocking()
        .with_file(&base, ".loopguard.yml", config.as_bytes())
        .with_pr(
            PrSpec::new(7, &head)
                .base("main", &base)
                .head_ref(BRANCH)
                .commits(commits),
        );
    let checkout = TestRepo::new();
    checkout.write("README.md", "widgets\n");
    checkout.commit("Default branch");
    let event = payload(
        "pull_request.synchronize.json",
        &[
            ("{{HEAD_SHA}}", &head),
            ("{{BASE_SHA}}", &base),
            ("{{BEFORE}}", &base),
        ],
    );
    let out = run_ci(
        &gh,
        &checkout,
        "pull_request",
        &event,
        &["--log", &log_path(PASS_LOG)],
    );
    assert_eq!(out.code, 0, "{out:#?}");
    let body = sticky_body(&gh, 7);
    assert!(body.encode_utf16().count() <= 65_536);
    let loopguard::github::sticky::StickyState::Ok(state) =
        loopguard::github::sticky::parse_sticky_state::<serde_json::Value>(&body)
    else {
        panic!("the state is readable: {body}")
    };
    let records = state["records"].as_object().unwrap();
    let with_files = records
        .values()
        .filter(|r| r.get("files").is_some())
        .count();
    assert!(
        with_files < 45,
        "the oldest records were shed: {with_files}"
    );
    assert!(
        records[&head].get("files").is_some(),
        "the newest kept theirs"
    );
    assert!(body.contains("| 45 |"), "{body}");
}

#[test]
fn the_sticky_comment_is_found_by_marker_and_author_and_a_corrupt_one_is_mended() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    // Someone else forges loopguard's comment, with a state that would claim a resume.
    let forged_state =
        r#"{"pr":7,"resumes":[{"after":"x","at":"2026-01-01T00:00:00Z"}],"labelled":true}"#;
    use base64::Engine;
    let forged = format!(
        "<!-- loopguard:sticky -->\n<!-- loopguard:state v1 {} -->\n\nall good",
        base64::engine::general_purpose::STANDARD.encode(forged_state)
    );
    gh.add_comment(7, Some("mallory"), &forged);
    // And loopguard's own comment carries a state that no longer decodes.
    let own = gh.add_comment(
        7,
        Some(BOT_LOGIN),
        "<!-- loopguard:sticky -->\n<!-- loopguard:state v1 %%%not-base64%%% -->\n\nold",
    );
    let out = p.ci_on_push(&gh, &head, SAME_LOGS[0]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("could not be read"), "{}", out.stderr);
    let comments = gh.comments_on(7);
    assert_eq!(comments.len(), 2, "no new comment: {comments:#?}");
    let mended = comments.iter().find(|c| c.id == own).unwrap();
    assert!(
        mended.body.contains("loopguard: no loop"),
        "{}",
        mended.body
    );
    let forged_now = comments.iter().find(|c| c.id != own).unwrap();
    assert_eq!(
        forged_now.body, forged,
        "someone else's comment is never touched"
    );
}

#[test]
fn escalation_hands_out_the_next_model() {
    let mut p = Project::new(
        "rules:\n  same_error: {threshold: 1}\non_trip:\n  action: escalate\n  notify: [summary, comment]\n",
    );
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head));
    let out = p.ci_on_push(&gh, &head, SAME_LOGS[0]);
    assert_eq!(
        out.code, 0,
        "escalated: closed on the next model, the step passes: {out:#?}"
    );
    assert_eq!(out.outputs["state"], "closed");
    assert_eq!(out.outputs["tripped"], "false");
    assert_eq!(out.outputs["next-model"], "sonnet");
    assert!(sticky_body(&gh, 7).contains("escalated — the next model is `sonnet`"));
}

#[test]
fn pull_request_target_from_a_fork_writes_with_its_token() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let head = p.attempt(SAME[0].0, "Try 1");
    gh.add_pr(p.pr(7, &head).fork("someone/widgets"));
    let mut event: serde_json::Value = serde_json::from_str(&p.sync_event(&head)).unwrap();
    event["pull_request"]["head"]["repo"]["full_name"] = "someone/widgets".into();
    let out = run_ci(
        &gh,
        &p.repo,
        "pull_request_target",
        &event.to_string(),
        &["--log", &log_path(SAME_LOGS[0])],
    );
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(gh.comments_on(7).len(), 1);
}

#[test]
fn a_personal_token_trusts_its_own_comments() {
    // With a personal token, comments are authored by its user (not github-actions[bot]):
    // loopguard asks `GET /user` who that is, and finds its comment again.
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking()
        .with_user("octo-guard")
        .with_bot_login("octo-guard");
    let bin = assert_cmd::cargo::cargo_bin("loopguard");
    for (body, log) in &SAME[..2] {
        let head = p.attempt(body, "Try");
        gh.add_pr(p.pr(7, &head));
        let out = CiStep::new(&gh, &p.repo)
            .event("pull_request", &p.sync_event(&head))
            .program(&bin)
            .args(["ci", "--log", &log_path(log)])
            .env("GITHUB_TOKEN", "ghp_personal0token0value0123456789abcdef")
            .run();
        assert_eq!(out.code, 0, "{out:#?}");
        assert!(!out.stderr.contains("ghp_personal"), "{}", out.stderr);
    }
    let comments = gh.comments_on(7);
    assert_eq!(comments.len(), 1, "{comments:#?}");
    assert!(comments[0].body.contains("| 2 |"), "{}", comments[0].body);
}

/// A .NET run's reports go where JUnit XML goes (`--junit`, the Action's `junit` input) and
/// are told apart by their content, not their names: a TRX and an xUnit.net v2 XML file,
/// both called `results.xml`, then the console of the same failure, are one failure three
/// times, and the third run trips `same_error`.
#[test]
fn dotnet_reports_through_junit_are_the_runs_evidence() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    let console = "dotnet/xunit-assert-count/vstest.log";
    let want =
        loopguard::fingerprint::fingerprint_bytes(&std::fs::read(log_file(console)).unwrap())
            .signature
            .expect("the console shows the failure");
    let reports = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    for (i, report) in ["report.trx", "xunit.xml"].iter().enumerate() {
        let dir = reports.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let copy = dir.join("results.xml");
        std::fs::copy(
            log_file(&format!("dotnet/xunit-assert-count/{report}")),
            &copy,
        )
        .unwrap();
        args.push(["--junit".to_owned(), copy.display().to_string()]);
    }
    args.push(["--log".to_owned(), log_path(console)]);
    for (i, args) in args.iter().enumerate() {
        let head = p.attempt(SAME[i].0, &format!("Fix the total, try {}", i + 1));
        gh.add_pr(p.pr(7, &head));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_ci(&gh, &p.repo, "pull_request", &p.sync_event(&head), &args);
        assert_eq!(out.outputs["signature"], want, "{args:?}: {out:#?}");
        assert_eq!(out.outputs["tripped"], (i == 2).to_string(), "{out:#?}");
    }
    assert_eq!(gh.labels(7), [LABEL]);
}
