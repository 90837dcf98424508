//! The GitHub client against the wiremock fake: pagination, retries, rate limits, the
//! log redirect, permissions, idempotent creates, dry-run, token hygiene, null tolerance.

use std::time::Duration;

use crate::support::github_fake::{
    CommitSpec, FakeGitHub, Fault, FileSpec, Host, JobSpec, LogSpec, PrSpec, RunSpec,
};
use loopguard::error::exit_code_of_one;
use loopguard::github::sticky::{
    STICKY_MARKER, TrustedAuthors, find_sticky_comment, issue_marker, render_issue_body,
    render_sticky,
};
use loopguard::github::{GitHubClient, IssueUpdate, JobLog, RepoId, RunFilter, Token};
use loopguard::sanitize::{code_block, inline};

const TOKEN: &str = "ghs_test0SECRET0token0value0123456789";

fn client_for(api_url: &str, dry_run: bool) -> GitHubClient {
    GitHubClient::builder()
        .api_url(api_url)
        .server_url("https://github.com")
        .token(Token::new(TOKEN).unwrap())
        .repo(RepoId::new("octo-org", "widgets"))
        .dry_run(dry_run)
        // The real waits, a thousand times shorter: 60 s becomes 60 ms.
        .time_scale(0.001)
        .build()
        .unwrap()
}

fn client(gh: &FakeGitHub) -> GitHubClient {
    client_for(&gh.uri(), false)
}

fn commits(n: usize) -> Vec<CommitSpec> {
    (0..n)
        .map(|i| CommitSpec::new(&format!("c{i:039}"), &format!("attempt {i}")))
        .collect()
}

fn count(gh: &FakeGitHub, method: &str, path: &str) -> usize {
    gh.requests()
        .iter()
        .filter(|r| r.method == method && r.path == path)
        .count()
}

#[test]
fn pr_commits_are_paged_over_three_pages_in_order() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "head").commits(commits(250)));
    let c = client(&gh);
    let got = c.pull_request_commits(7).unwrap();
    assert_eq!(got.len(), 250);
    assert_eq!(got[0].commit.message, "attempt 0");
    assert_eq!(got[249].commit.message, "attempt 249");
    let requests = gh.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(c.requests_sent(), 3);
    for r in &requests {
        assert_eq!(r.path, "/repos/octo-org/widgets/pulls/7/commits");
        assert!(
            r.query.as_deref().unwrap().contains("per_page=100"),
            "{r:?}"
        );
        assert_eq!(
            r.authorization.as_deref(),
            Some(format!("Bearer {TOKEN}").as_str())
        );
    }
}

#[test]
fn server_errors_are_retried_with_backoff() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next("GET", r"/pulls/7$", Fault::Status(502), 2);
    let c = client(&gh);
    let pr = c.pull_request(7).unwrap();
    assert_eq!(pr.head.sha, "abc");
    assert_eq!(count(&gh, "GET", "/repos/octo-org/widgets/pulls/7"), 3);
    let waits = c.retry_waits();
    assert_eq!(waits.len(), 2);
    // Exponential with jitter over the upper half: [0.5 s, 1 s], then [1 s, 2 s].
    assert!(waits[0] >= Duration::from_millis(500) && waits[0] <= Duration::from_secs(1));
    assert!(waits[1] >= Duration::from_secs(1) && waits[1] <= Duration::from_secs(2));
}

#[test]
fn persistent_server_errors_fail_as_environment_errors_naming_the_endpoint() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next("GET", r"/pulls/7$", Fault::Status(503), 10);
    let c = client(&gh);
    let err = c.pull_request(7).unwrap_err();
    assert_eq!(exit_code_of_one(&err), 3);
    let text = err.to_string();
    assert!(
        text.contains("GET /repos/octo-org/widgets/pulls/7"),
        "{text}"
    );
    assert!(text.contains("503 Service Unavailable"), "{text}");
    assert!(text.contains("after 5 attempts"), "{text}");
    assert_eq!(count(&gh, "GET", "/repos/octo-org/widgets/pulls/7"), 5);
}

#[test]
fn too_many_requests_waits_as_retry_after_says() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next(
        "GET",
        r"/pulls/7$",
        Fault::TooManyRequests { retry_after: 7 },
        1,
    );
    let c = client(&gh);
    c.pull_request(7).unwrap();
    assert_eq!(c.retry_waits(), vec![Duration::from_secs(7)]);
}

#[test]
fn primary_rate_limit_waits_until_the_reset() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next(
        "GET",
        r"/pulls/7$",
        Fault::PrimaryRateLimit { reset_in: 30 },
        1,
    );
    let c = client(&gh);
    c.pull_request(7).unwrap();
    let waits = c.retry_waits();
    assert_eq!(waits.len(), 1);
    // reset − Date + 1 s; the fake's clock and the Date header agree to within a second.
    assert!(
        waits[0] >= Duration::from_secs(30) && waits[0] <= Duration::from_secs(32),
        "{waits:?}"
    );
}

#[test]
fn a_distant_primary_reset_fails_at_once_instead_of_holding_the_job() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next(
        "GET",
        r"/pulls/7$",
        Fault::PrimaryRateLimit { reset_in: 3000 },
        1,
    );
    let err = client(&gh).pull_request(7).unwrap_err();
    assert_eq!(exit_code_of_one(&err), 3);
    assert!(err.to_string().contains("primary rate limit"), "{err}");
    assert_eq!(count(&gh, "GET", "/repos/octo-org/widgets/pulls/7"), 1);
}

#[test]
fn secondary_rate_limit_waits_a_minute_or_what_retry_after_says() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next(
        "GET",
        r"/pulls/7$",
        Fault::SecondaryRateLimit { retry_after: None },
        2,
    );
    let c = client(&gh);
    c.pull_request(7).unwrap();
    assert_eq!(
        c.retry_waits(),
        vec![Duration::from_secs(60), Duration::from_secs(120)]
    );

    gh.fail_next(
        "GET",
        r"/pulls/7$",
        Fault::SecondaryRateLimit {
            retry_after: Some(5),
        },
        1,
    );
    let c = client(&gh);
    c.pull_request(7).unwrap();
    assert_eq!(c.retry_waits(), vec![Duration::from_secs(5)]);
}

#[test]
fn missing_permission_is_a_usage_error_with_the_permissions_hint() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next(
        "POST",
        r"/issues/7/comments$",
        Fault::NotAccessibleByIntegration,
        1,
    );
    let c = client(&gh);
    let body = format!("{STICKY_MARKER}\nhello");
    let err = c.create_comment(7, &body, STICKY_MARKER).unwrap_err();
    assert_eq!(exit_code_of_one(&err), 2);
    assert_eq!(
        err.to_string(),
        "github api: POST /repos/octo-org/widgets/issues/7/comments: 403 Forbidden: Resource not accessible by integration: the workflow token lacks `pull-requests: write`"
    );
    let text = err.hint().unwrap();
    assert!(text.contains("  permissions:\n"), "{text}");
    assert!(
        text.contains("    pull-requests: write   # missing\n"),
        "{text}"
    );
    assert!(text.contains("    actions: read\n"), "{text}");
    assert_eq!(gh.writes().len(), 1, "not retried");
    assert!(gh.comments().is_empty());

    gh.fail_next(
        "GET",
        r"/actions/runs/\d+/jobs$",
        Fault::NotAccessibleByIntegration,
        1,
    );
    let err = c.run_jobs(1).unwrap_err();
    assert!(err.to_string().contains("lacks `actions: read`"), "{err}");
}

#[test]
fn job_log_follows_the_redirect_without_the_token() {
    let gh = FakeGitHub::start_blocking().with_run(RunSpec::new(100, "abc").job(JobSpec::failed(
        200,
        "test",
        "line 1\nerror: boom\n",
    )));
    let c = client(&gh);
    let log = c.job_log(200).unwrap();
    assert_eq!(
        log,
        JobLog::Found {
            text: "line 1\nerror: boom\n".into(),
            truncated: false
        }
    );
    let requests = gh.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].host, Host::Api);
    assert_eq!(
        requests[0].path,
        "/repos/octo-org/widgets/actions/jobs/200/logs"
    );
    assert_eq!(
        requests[0].authorization.as_deref(),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(requests[1].host, Host::Blob);
    assert_eq!(requests[1].path, "/logs/200");
    assert_eq!(
        requests[1].authorization, None,
        "the token must not reach the blob host"
    );
    assert_eq!(c.requests_sent(), 2);
}

#[test]
fn blob_host_server_errors_are_retried() {
    let gh = FakeGitHub::start_blocking()
        .with_run(RunSpec::new(100, "abc").job(JobSpec::failed(200, "test", "log")));
    // A fault on the API's logs endpoint first, then the redirect works.
    gh.fail_next("GET", r"/actions/jobs/200/logs$", Fault::Status(500), 1);
    let c = client(&gh);
    assert!(matches!(c.job_log(200).unwrap(), JobLog::Found { .. }));
    assert_eq!(c.retry_waits().len(), 1);
}

#[test]
fn missing_and_expired_logs_are_typed_results() {
    let gh = FakeGitHub::start_blocking().with_run(
        RunSpec::new(100, "abc")
            .job(JobSpec::failed(201, "a", "").log(LogSpec::Expired))
            .job(JobSpec::failed(202, "b", "").log(LogSpec::Missing)),
    );
    let c = client(&gh);
    assert_eq!(c.job_log(201).unwrap(), JobLog::Missing { status: 410 });
    assert_eq!(c.job_log(202).unwrap(), JobLog::Missing { status: 404 });
    assert_eq!(c.job_log(999).unwrap(), JobLog::Missing { status: 404 });
    assert!(
        gh.requests().iter().all(|r| r.host == Host::Api),
        "no redirect followed"
    );
}

#[test]
fn a_comment_create_that_succeeded_behind_a_5xx_is_not_duplicated() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next(
        "POST",
        r"/issues/7/comments$",
        Fault::StatusAfterApply(502),
        1,
    );
    let c = client(&gh);
    let body = format!("{STICKY_MARKER}\nloopguard tripped");
    let comment = c.create_comment(7, &body, STICKY_MARKER).unwrap();
    assert_eq!(gh.comments_on(7).len(), 1, "{:?}", gh.comments());
    assert_eq!(comment.id, gh.comments_on(7)[0].id);
    assert_eq!(
        count(&gh, "POST", "/repos/octo-org/widgets/issues/7/comments"),
        1
    );
    // The re-check listed recent comments instead of resending.
    let recheck = gh
        .requests()
        .into_iter()
        .find(|r| r.method == "GET" && r.path.ends_with("/issues/7/comments"))
        .expect("a re-check");
    assert!(recheck.query.unwrap().contains("since="));

    // A 5xx that did not apply: the re-check finds nothing and the create is resent once.
    gh.fail_next("POST", r"/issues/7/comments$", Fault::Status(502), 1);
    let other = "<!-- loopguard:other -->\nsecond";
    c.create_comment(7, other, "<!-- loopguard:other -->")
        .unwrap();
    assert_eq!(gh.comments_on(7).len(), 2);
}

#[test]
fn an_issue_create_that_succeeded_behind_a_5xx_is_not_duplicated() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next("POST", r"/issues$", Fault::StatusAfterApply(500), 1);
    let c = client(&gh);
    let marker = issue_marker(7);
    let body = render_issue_body(7, "the loop");
    let issue = c
        .create_issue("loopguard: PR #7 is stuck", &body, &["loopguard"], &marker)
        .unwrap();
    assert_eq!(gh.issues().len(), 1);
    assert_eq!(issue.number, gh.issues()[0].number);
    assert_eq!(gh.issues()[0].labels, vec!["loopguard".to_owned()]);

    // Found again by marker, then updated in place.
    let found = c
        .find_issues_with_marker(&marker, Some("loopguard"))
        .unwrap();
    assert_eq!(found.len(), 1);
    let updated = c
        .update_issue(
            found[0].number,
            &IssueUpdate {
                body: Some(render_issue_body(7, "the loop, again")),
                ..IssueUpdate::default()
            },
        )
        .unwrap();
    assert!(updated.body.ends_with("the loop, again"));
    assert_eq!(gh.issues().len(), 1);
}

#[test]
fn rate_limited_writes_are_resent_without_a_recheck() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    gh.fail_next(
        "POST",
        r"/issues/7/comments$",
        Fault::SecondaryRateLimit {
            retry_after: Some(2),
        },
        1,
    );
    let c = client(&gh);
    let body = format!("{STICKY_MARKER}\nx");
    c.create_comment(7, &body, STICKY_MARKER).unwrap();
    assert_eq!(gh.comments_on(7).len(), 1);
    assert_eq!(
        gh.requests().iter().filter(|r| r.method == "GET").count(),
        0
    );
    assert_eq!(c.retry_waits(), vec![Duration::from_secs(2)]);
}

#[test]
fn dry_run_reads_but_makes_no_writes() {
    let gh = FakeGitHub::start_blocking()
        .with_pr(PrSpec::new(7, "abc"))
        .with_issue_labels(7, &["loopguard:stuck"]);
    let c = client_for(&gh.uri(), true);
    assert!(c.is_dry_run());
    let pr = c.pull_request(7).unwrap();
    assert_eq!(pr.number, 7);
    c.ensure_label("loopguard:stuck", "d73a4a", "stuck")
        .unwrap();
    c.ensure_label("loopguard", "d73a4a", "issues").unwrap();
    c.add_labels(7, &["loopguard:stuck"]).unwrap();
    assert!(c.remove_label(7, "loopguard:stuck").unwrap());
    let body = format!("{STICKY_MARKER}\n## loopguard tripped");
    let comment = c.create_comment(7, &body, STICKY_MARKER).unwrap();
    assert_eq!(comment.id, 0);
    c.update_comment(55, &body).unwrap();
    let marker = issue_marker(7);
    c.create_issue("stuck", &render_issue_body(7, "x"), &["loopguard"], &marker)
        .unwrap();
    c.update_issue(
        9,
        &IssueUpdate {
            state: Some(loopguard::github::types::OpenState::Closed),
            ..IssueUpdate::default()
        },
    )
    .unwrap();

    assert!(gh.writes().is_empty(), "{:?}", gh.writes());
    assert_eq!(gh.labels(7), vec!["loopguard:stuck".to_owned()]);
    let planned: Vec<String> = c.planned_writes().iter().map(ToString::to_string).collect();
    assert_eq!(
        planned,
        [
            r#"POST /repos/octo-org/widgets/labels: create label "loopguard""#,
            r#"POST /repos/octo-org/widgets/issues/7/labels: add labels ["loopguard:stuck"] to #7"#,
            r#"DELETE /repos/octo-org/widgets/issues/7/labels/loopguard%3Astuck: remove label "loopguard:stuck" from #7"#,
            r###"POST /repos/octo-org/widgets/issues/7/comments: create comment on #7, 46 chars, first line: "## loopguard tripped""###,
            r###"PATCH /repos/octo-org/widgets/issues/comments/55: update comment 55, 46 chars, first line: "## loopguard tripped""###,
            r#"POST /repos/octo-org/widgets/issues: create issue "stuck" labelled ["loopguard"], 32 chars, first line: "x""#,
            "PATCH /repos/octo-org/widgets/issues/9: update issue #9, state closed",
        ]
    );
    // The reads: the PR and the two labels.
    assert_eq!(gh.requests().len(), 3);
}

#[test]
fn the_token_never_shows_in_debug_errors_or_plans() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    let c = client(&gh);
    let debug = format!("{c:?}");
    assert!(!debug.contains(TOKEN), "{debug}");
    assert!(debug.contains(r#"token: Some("***")"#), "{debug}");
    assert_eq!(format!("{:?}", Token::new(TOKEN).unwrap()), "Token(***)");

    let mut messages = Vec::new();
    gh.fail_next("GET", r"/pulls/7$", Fault::Status(500), 10);
    messages.push(c.pull_request(7).unwrap_err());
    gh.fail_next("GET", r"/pulls/7$", Fault::NotAccessibleByIntegration, 1);
    messages.push(c.pull_request(7).unwrap_err());
    gh.fail_next("GET", r"/pulls/7$", Fault::Status(401), 1);
    messages.push(c.pull_request(7).unwrap_err());
    messages.push(c.pull_request(404).unwrap_err());
    // Nothing listens on port 9 of localhost: a connection error, retried, then reported.
    let unreachable = client_for("http://127.0.0.1:9", false);
    messages.push(unreachable.pull_request(7).unwrap_err());
    assert!(format!("{unreachable:?}").contains("127.0.0.1:9"));
    for err in &messages {
        let shown = format!(
            "{err} | {err:?} | {:#}",
            anyhow::Error::msg(err.to_string())
        );
        assert!(!shown.contains(TOKEN), "{shown}");
        assert!(!shown.contains("SECRET"), "{shown}");
    }
    assert_eq!(
        exit_code_of_one(&messages[2]),
        2,
        "a refused token is a configuration problem"
    );
    assert!(messages[2].to_string().contains("token"), "{}", messages[2]);
    assert_eq!(exit_code_of_one(&messages[4]), 3);
    assert!(
        messages[4]
            .to_string()
            .contains("connection error after 5 attempts"),
        "{}",
        messages[4]
    );

    let dry = client_for(&gh.uri(), true);
    let body = format!("{STICKY_MARKER}\nx");
    dry.create_comment(7, &body, STICKY_MARKER).unwrap();
    assert!(
        dry.planned_writes()
            .iter()
            .all(|w| !w.to_string().contains(TOKEN))
    );

    // Bad tokens are refused without echoing them.
    let err = Token::new("ghs_abc def").unwrap_err();
    assert!(!err.to_string().contains("abc"), "{err}");
    assert_eq!(
        Token::new("  ghs_ok\n").map(|t| format!("{t:?}")).unwrap(),
        "Token(***)"
    );
}

#[test]
fn null_fields_are_tolerated() {
    let gh = FakeGitHub::start_blocking()
        .with_pr(
            PrSpec::new(7, "abc")
                .deleted_fork()
                .user(None)
                .commits(vec![CommitSpec::new("abc", "x").author(
                    "Bot",
                    "bot@example.com",
                    None,
                )]),
        )
        .with_comment(7, None, "from a deleted account")
        .with_run(RunSpec::new(100, "abc").conclusion(None));
    let c = client(&gh);
    let pr = c.pull_request(7).unwrap();
    assert!(pr.user.is_none());
    assert!(pr.head.repo.is_none());
    assert!(pr.body.is_none());
    assert!(pr.is_fork(), "a deleted fork is not the base repository");
    let commits = c.pull_request_commits(7).unwrap();
    assert!(commits[0].author.is_none());
    assert_eq!(
        commits[0].commit.author.as_ref().unwrap().email,
        "bot@example.com"
    );
    let comments = c.issue_comments(7).unwrap();
    assert_eq!(comments[0].author_login(), None);
    let runs = c.workflow_runs(&RunFilter::head_sha(cid("abc"))).unwrap();
    assert_eq!(runs[0].conclusion, None);
    assert!(runs[0].pull_requests.is_empty());
}

#[test]
fn fork_prs_are_found_by_head_sha() {
    let gh = FakeGitHub::start_blocking()
        .with_pr(
            PrSpec::new(7, "forkhead")
                .fork("someone/widgets")
                .head_ref("main")
                .commits(vec![CommitSpec::new("forkhead", "x")]),
        )
        .with_pr(PrSpec::new(8, "other").commits(vec![CommitSpec::new("other", "y")]));
    let c = client(&gh);
    // With the head hint from `workflow_run.head_repository` and `head_branch`.
    let found = c
        .find_pull_requests_for_head(&cid("forkhead"), Some(("someone", "main")))
        .unwrap();
    assert_eq!(found.iter().map(|p| p.number).collect::<Vec<_>>(), [7]);
    assert_eq!(c.requests_sent(), 2);
    // Without it: the commit's PRs, then every open PR.
    let found = c
        .find_pull_requests_for_head(&cid("forkhead"), None)
        .unwrap();
    assert_eq!(found.len(), 1);
    // A same-repository PR is found by the first request.
    let before = c.requests_sent();
    let found = c.find_pull_requests_for_head(&cid("other"), None).unwrap();
    assert_eq!(found[0].number, 8);
    assert_eq!(c.requests_sent() - before, 1);
}

#[test]
fn runs_jobs_and_commit_files() {
    let files: Vec<FileSpec> = (0..650)
        .map(|i| FileSpec::modified(&format!("src/f{i}.rs"), 1, 1))
        .collect();
    let mut gh = FakeGitHub::start_blocking().with_commit(
        CommitSpec::new("big", "huge change")
            .files(files)
            .parent("p0"),
    );
    for run in 0..3u64 {
        let mut spec = RunSpec::new(100 + run, if run == 2 { "other" } else { "abc" })
            .workflow(if run == 1 { 9 } else { 161335 }, "CI");
        for j in 0..120u64 {
            spec = spec.job(JobSpec::succeeded(
                1000 * run + j,
                &format!("shard {j}"),
                "ok",
            ));
        }
        gh = gh.with_run(spec);
    }
    let c = client(&gh);
    let commit = c.commit(&cid("big")).unwrap();
    assert_eq!(commit.files.len(), 650);
    assert_eq!(commit.files[649].filename, "src/f649.rs");
    assert_eq!(commit.parents[0].sha, "p0");
    assert_eq!(c.requests_sent(), 3, "300 files a page");

    let runs = c.workflow_runs(&RunFilter::head_sha(cid("abc"))).unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [101, 100],
        "newest first"
    );
    let runs = c
        .workflow_runs(&RunFilter {
            workflow_id: Some(9),
            ..RunFilter::head_sha(cid("abc"))
        })
        .unwrap();
    assert_eq!(runs.iter().map(|r| r.id).collect::<Vec<_>>(), [101]);
    let run = c.workflow_run(100).unwrap();
    assert_eq!(run.workflow_id, Some(161335));

    let jobs = c.run_jobs(100).unwrap();
    assert_eq!(jobs.len(), 120);
    assert!(jobs.iter().all(|j| !j.failed()));
    let job_requests: Vec<_> = gh
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/actions/runs/100/jobs"))
        .collect();
    assert_eq!(job_requests.len(), 2);
    assert!(
        job_requests
            .iter()
            .all(|r| r.query.as_deref().unwrap().contains("filter=latest"))
    );
}

#[test]
fn labels_comments_and_the_sticky_comment() {
    let gh = FakeGitHub::start_blocking()
        .with_pr(PrSpec::new(7, "abc"))
        .with_comment(7, Some("mallory"), &format!("{STICKY_MARKER}\nspoofed"));
    let c = client(&gh);

    // Missing label: looked up, then created (2 requests); present: 1 request.
    let before = c.requests_sent();
    let label = c
        .ensure_label("loopguard:stuck", "d73a4a", "an agent loop")
        .unwrap();
    assert_eq!(label.name, "loopguard:stuck");
    assert_eq!(c.requests_sent() - before, 2);
    let before = c.requests_sent();
    c.ensure_label("loopguard:stuck", "d73a4a", "an agent loop")
        .unwrap();
    assert_eq!(c.requests_sent() - before, 1);
    // Creating one that exists (a concurrent run) returns it.
    assert_eq!(
        c.create_label("loopguard:stuck", "d73a4a", "x")
            .unwrap()
            .name,
        "loopguard:stuck"
    );

    c.add_labels(7, &["loopguard:stuck"]).unwrap();
    c.add_labels(7, &["loopguard:stuck"]).unwrap();
    assert_eq!(gh.labels(7), vec!["loopguard:stuck".to_owned()]);
    assert_eq!(c.issue_labels(7).unwrap()[0].name, "loopguard:stuck");
    assert!(c.remove_label(7, "loopguard:stuck").unwrap());
    assert!(
        !c.remove_label(7, "loopguard:stuck").unwrap(),
        "404 on remove is fine"
    );
    assert!(gh.labels(7).is_empty());

    // Our comment: found by marker and author, the spoof ignored.
    let trusted = TrustedAuthors::default();
    assert!(find_sticky_comment(&c.issue_comments(7).unwrap(), &trusted).is_none());
    let body = render_sticky(&serde_json::json!({"n": 1}), "first", None).unwrap();
    let created = c.create_comment(7, &body, STICKY_MARKER).unwrap();
    let comments = c.issue_comments(7).unwrap();
    let ours = find_sticky_comment(&comments, &trusted).unwrap();
    assert_eq!(ours.id, created.id);
    let body = render_sticky(&serde_json::json!({"n": 2}), "second", None).unwrap();
    c.update_comment(ours.id, &body).unwrap();
    assert_eq!(gh.comments_on(7).len(), 2);
    assert!(gh.comments_on(7)[1].body.ends_with("second"));
}

#[test]
fn untrusted_log_text_comes_out_inert_in_a_comment() {
    let gh = FakeGitHub::start_blocking().with_pr(PrSpec::new(7, "abc"));
    let c = client(&gh);
    let log = "::add-mask::x\n@org/team look\n```\n</details>\n| a | b |";
    let visible = format!(
        "loopguard: {}\n\n{}",
        inline("first error: @octocat broke | it"),
        code_block(log, "text")
    );
    let body = render_sticky(&serde_json::json!({}), &visible, None).unwrap();
    c.create_comment(7, &body, STICKY_MARKER).unwrap();
    let stored = &gh.comments_on(7)[0].body;
    assert!(!stored.contains("\n::add-mask"), "{stored}");
    assert!(!stored.contains("@org/team"), "{stored}");
    assert!(!stored.contains("@octocat"), "{stored}");
    assert!(stored.contains("broke \\| it"), "{stored}");
    // The fence outlasts the backticks in the log.
    assert!(stored.contains("````text\n"), "{stored}");
}

#[test]
fn contents_identity_and_enterprise_paths() {
    let big = vec![b'a'; 1_200_000];
    let gh = FakeGitHub::start_blocking()
        .with_pr(PrSpec::new(7, "abc").commits(commits(150)))
        .with_file("main", ".loopguard.yml", b"window: 5\n")
        .with_file("main", "big.bin", &big);
    let c = client(&gh);
    assert_eq!(
        c.file_at(".loopguard.yml", "main").unwrap().unwrap(),
        b"window: 5\n"
    );
    assert_eq!(c.file_at(".loopguard.yml", "agent-branch").unwrap(), None);
    assert_eq!(c.file_at("nope.yml", "main").unwrap(), None);
    assert_eq!(
        c.file_at("big.bin", "main").unwrap().unwrap().len(),
        big.len()
    );
    assert_eq!(
        c.authenticated_login().unwrap(),
        None,
        "installation tokens have no user"
    );

    // GitHub Enterprise: `https://host/api/v3`, including the next links.
    let ghes = client_for(&gh.enterprise_uri(), false);
    assert_eq!(ghes.pull_request_commits(7).unwrap().len(), 150);
    let raw: Vec<_> = gh.requests().into_iter().rev().take(2).collect();
    assert!(
        raw.iter()
            .all(|r| r.path == "/repos/octo-org/widgets/pulls/7/commits")
    );

    let gh = gh.with_user("octocat");
    assert_eq!(
        client(&gh).authenticated_login().unwrap().as_deref(),
        Some("octocat")
    );
}

#[test]
fn open_issues_with_a_label_leave_prs_out() {
    let gh = FakeGitHub::start_blocking()
        .with_pr(PrSpec::new(7, "abc"))
        .with_issue_labels(7, &["loopguard"]);
    let number = gh.add_issue(
        Some("github-actions[bot]"),
        "stuck",
        &render_issue_body(7, "x"),
        &["loopguard"],
    );
    gh.add_issue(Some("someone"), "unrelated", "text", &[]);
    let c = client(&gh);
    let issues = c.open_issues_with_label("loopguard").unwrap();
    assert_eq!(
        issues.iter().map(|i| i.number).collect::<Vec<_>>(),
        [number]
    );
    assert!(
        c.open_issues_with_label("no-such-label")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_log_over_the_cap_keeps_its_tail() {
    let filler = "ok: a passing line of output\n".repeat(1_300_000); // ~37 MiB
    let log = format!("{filler}error: the failure at the end\n");
    assert!(log.len() > loopguard::github::MAX_LOG_BYTES);
    let gh = FakeGitHub::start_blocking()
        .with_run(RunSpec::new(100, "abc").job(JobSpec::failed(200, "test", &log)));
    match client(&gh).job_log(200).unwrap() {
        JobLog::Found { text, truncated } => {
            assert!(truncated);
            assert_eq!(text.len(), loopguard::github::MAX_LOG_BYTES);
            assert!(text.ends_with("error: the failure at the end\n"));
        }
        other => panic!("{other:?}"),
    }
}

fn cid(s: &str) -> loopguard::iteration::CommitId {
    s.parse().expect("a valid commit id")
}
