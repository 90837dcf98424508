//! `loopguard dashboard` end to end: agent PRs in different states made by the real
//! `loopguard ci` against the fake GitHub (tests/it/support), then the real binary keeping the
//! dashboard issue — order and rows, edited in place, resumes ticked by people with write
//! access, faults on the way — and the requests it makes for 10, 100 and 1,000 PRs.

use crate::support::ci::*;
use crate::support::github_fake::{BOT_LOGIN, FakeGitHub, Fault, JobSpec, PrSpec, RunSpec};
use serde_json::Value;

use loopguard::ci::state::{CiState, Verdict};
use loopguard::github::sticky::render_sticky;
use loopguard::github::{GitHubClient, RepoId, Token};

const MARKER: &str = "<!-- loopguard:dashboard -->";

/// One agent PR and its checkout.
struct Agent {
    p: Project,
    number: u64,
    /// `loopguard ci` runs with `LOOPGUARD_STATE_KEY` (the default).
    key: bool,
}

impl Agent {
    fn new(number: u64) -> Agent {
        let p = Project::new(CONFIG);
        // Commits four hours before the pinned clock (2026-11-25T12:00:00Z).
        p.repo.set_now(1_795_593_600);
        Agent {
            p,
            number,
            key: true,
        }
    }

    /// The agent pushes an attempt and CI runs `loopguard ci` on it with `log`.
    fn push(&mut self, gh: &FakeGitHub, body: &str, log: &str) -> Outcome {
        let n = self.p.attempts.len() + 1;
        let head = self.p.attempt(body, &format!("Fix word counting, try {n}"));
        // Its tests ran for 4 minutes (their log is what `ci` reads without the key).
        let id = self.number * 100 + n as u64;
        let mut run = RunSpec::new(id, &head)
            .head(&self.branch(), None)
            .created(&gh.person_time())
            .timing("2026-11-25T10:00:00Z", "2026-11-25T10:04:00Z");
        if !self.key {
            run = run.job(JobSpec::failed(id + 50_000, "test", &log_text(log)));
        }
        gh.add_run(run);
        self.ci(gh, &head, log)
    }

    /// Each agent works on a branch of its own.
    fn branch(&self) -> String {
        format!("{BRANCH}-{}", self.number)
    }

    fn ci(&mut self, gh: &FakeGitHub, head: &str, log: &str) -> Outcome {
        let title = format!("Agent PR {}", self.number);
        gh.add_pr(
            self.p
                .pr(self.number, head)
                .title(&title)
                .head_ref(&self.branch()),
        );
        let event = self
            .p
            .sync_event(head)
            .replace("\"number\": 7", &format!("\"number\": {}", self.number));
        let step = CiStep::new(gh, &self.p.repo)
            .event("pull_request", &event)
            .arg("ci")
            .args(["--log".to_owned(), log_path(log)]);
        if self.key { step } else { step.without_key() }.run()
    }

    fn head(&self) -> String {
        self.p.attempts.last().unwrap().clone()
    }

    /// Stuck on `same_error`: three pushes failing the same way.
    fn get_stuck(&mut self, gh: &FakeGitHub) {
        for (body, log) in &SAME[..3] {
            self.push(gh, body, log);
        }
    }
}

fn maintainer_client(gh: &FakeGitHub) -> GitHubClient {
    GitHubClient::builder()
        .api_url(gh.uri())
        .token(Token::new("ghp_maintainer0token").unwrap())
        .repo(RepoId::new("octo-org", "widgets"))
        .time_scale(0.001)
        .build()
        .unwrap()
}

/// `loopguard dashboard ARGS` as a scheduled workflow runs it.
fn dashboard(gh: &FakeGitHub, agent: &Agent, args: &[&str]) -> Outcome {
    CiStep::new(gh, &agent.p.repo)
        .event("schedule", r#"{"schedule": "17 * * * *"}"#)
        .arg("dashboard")
        .args(args)
        .run()
}

/// [`dashboard`] at the time `now`: two runs at one time show the same ages.
fn dashboard_at(gh: &FakeGitHub, agent: &Agent, now: &str) -> Outcome {
    CiStep::new(gh, &agent.p.repo)
        .event("schedule", r#"{"schedule": "17 * * * *"}"#)
        .arg("dashboard")
        .env("LOOPGUARD_NOW", now)
        .run()
}

/// `loopguard dashboard` run by the `issues: edited` event of `sender` editing the
/// dashboard from `before` to its current body.
fn dashboard_on_edit(
    gh: &FakeGitHub,
    agent: &Agent,
    issue: u64,
    before: &str,
    sender: &str,
) -> Outcome {
    let body = gh
        .issues()
        .into_iter()
        .find(|i| i.number == issue)
        .unwrap()
        .body;
    let payload = serde_json::json!({
        "action": "edited",
        "issue": {"number": issue, "title": "loopguard dashboard", "body": body, "state": "open",
                  "user": {"login": BOT_LOGIN, "id": 41898282, "type": "Bot"}},
        "changes": {"body": {"from": before}},
        "sender": {"login": sender, "id": 4242, "type": "User"},
        "repository": {"id": 1, "name": "widgets", "full_name": "octo-org/widgets"}
    });
    CiStep::new(gh, &agent.p.repo)
        .event("issues", &payload.to_string())
        .arg("dashboard")
        .run()
}

fn dashboards(gh: &FakeGitHub) -> Vec<crate::support::github_fake::FakeIssue> {
    gh.issues()
        .into_iter()
        .filter(|i| i.body.starts_with(MARKER))
        .collect()
}

fn the_dashboard(gh: &FakeGitHub) -> crate::support::github_fake::FakeIssue {
    let d = dashboards(gh);
    assert_eq!(d.len(), 1, "exactly one dashboard: {d:#?}");
    d.into_iter().next().unwrap()
}

fn sticky_state(gh: &FakeGitHub, pr: u64) -> CiState {
    match loopguard::github::sticky::parse_sticky_state::<CiState>(&sticky_body(gh, pr)) {
        loopguard::github::sticky::StickyState::Ok(s) => s,
        other => panic!("#{pr}: {other:?}"),
    }
}

/// The PR numbers of the table rows, in order, with their mark.
fn rows(body: &str) -> Vec<String> {
    body.lines()
        .filter(|l| l.starts_with("| ⛔") || l.starts_with("| ↺") || l.starts_with("| ✅"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            format!(
                "{} {}",
                cells[0].trim_start_matches("| "),
                cells[1].split(' ').next().unwrap()
            )
        })
        .collect()
}

fn tick(body: &str, pr: u64) -> String {
    body.replace(
        &format!("- [ ] <!-- loopguard:resume pr={pr} -->"),
        &format!("- [x] <!-- loopguard:resume pr={pr} -->"),
    )
}

/// Four agent PRs: #101 stuck on `same_error`, #102 half-open after a maintainer took the
/// label off, #103 healthy, #104 merged.
fn four_prs(gh: &FakeGitHub) -> Vec<Agent> {
    let mut agents: Vec<Agent> = (101..=104).map(Agent::new).collect();
    // Seed every PR first, so the issues loopguard files get numbers after them.
    for a in &mut agents {
        let head = a.p.attempt("s.len()", "Start");
        gh.add_pr(
            a.p.pr(a.number, &head)
                .title(&format!("Agent PR {}", a.number))
                .head_ref(&a.branch()),
        );
    }
    agents[0].get_stuck(gh);
    agents[1].get_stuck(gh);
    assert!(maintainer_client(gh).remove_label(102, LABEL).unwrap());
    let head = agents[1].head();
    let unlabeled = payload(
        "pull_request.unlabeled.json",
        &[("{{HEAD_SHA}}", &head), ("{{BASE_SHA}}", &agents[1].p.base)],
    )
    .replace("\"number\": 7", "\"number\": 102");
    let out = run_ci(
        gh,
        &agents[1].p.repo,
        "pull_request",
        &unlabeled,
        &["--log", &log_path(SAME_LOGS[0])],
    );
    assert_eq!(out.outputs["state"], "half_open", "{out:#?}");
    agents[2].push(gh, "s.split_whitespace().count()", PASS_LOG);
    agents[3].push(gh, "s.split_whitespace().count()", PASS_LOG);
    let merged = agents[3].head();
    gh.add_pr(
        agents[3]
            .p
            .pr(104, &merged)
            .title("Agent PR 104")
            .head_ref(&agents[3].branch())
            .closed(true, "2026-11-25T11:00:00Z"),
    );
    agents
}

#[test]
fn one_dashboard_lists_every_agent_pr_in_order_and_is_edited_in_place() {
    let gh = FakeGitHub::start_blocking();
    let mut agents = four_prs(&gh);
    assert_eq!(
        sticky_state(&gh, 101).last.unwrap().state,
        loopguard::breaker::State::Open
    );

    let out = dashboard_at(&gh, &agents[0], "2026-11-25T13:00:00Z");
    assert_eq!(out.code, 0, "{out:#?}");
    let d = the_dashboard(&gh);
    assert_eq!(d.title, "loopguard dashboard");
    assert_eq!(d.labels, ["loopguard"]);
    assert_eq!(d.author.as_deref(), Some(BOT_LOGIN));
    assert!(
        d.body.contains("**1 stuck** · 1 half-open · 1 healthy · 2 tripped in the last 7 days · 1 closed or merged lately"),
        "{}",
        d.body
    );
    assert_eq!(rows(&d.body), ["⛔ #101", "↺ #102", "✅ #103"]);
    let stuck = d.body.lines().find(|l| l.starts_with("| ⛔")).unwrap();
    for cell in [
        "Agent PR 101",
        "open for",
        "`same_error`: the same failure \\(cargo: counts\\_words\\_in\\_file",
        "| 4 |",
        "``assertion `left == right` failed``",
        "| 3 runs, 12 CI min |",
        "| 4 h ago |",
        "[run 990001](https://github.com/octo-org/widgets/actions/runs/990001)",
    ] {
        assert!(stuck.contains(cell), "{cell:?} in {stuck}");
    }
    let boxes: Vec<&str> = d.body.lines().filter(|l| l.starts_with("- [")).collect();
    assert_eq!(
        boxes,
        ["- [ ] <!-- loopguard:resume pr=101 --> #101: let the agent try again"]
    );
    let details = &d.body[d.body.find("<details>").expect("the closed PRs are folded")..];
    assert!(
        details.contains("| #104 Agent PR 104 | merged | 2 h ago | closed |"),
        "{details}"
    );
    assert!(
        out.stdout
            .contains("dashboard: 1 stuck, 1 half-open, 1 healthy, 1 closed lately"),
        "{}",
        out.stdout
    );

    // Nothing changed: the second run (at the same time) writes nothing.
    gh.clear_requests();
    dashboard_at(&gh, &agents[0], "2026-11-25T13:00:00Z");
    assert!(gh.writes().is_empty(), "{:#?}", gh.writes());
    // #103 gets stuck too: the same issue is edited, none is added.
    agents[2].push(&gh, SAME[0].0, SAME[0].1);
    agents[2].push(&gh, SAME[1].0, SAME[1].1);
    agents[2].push(&gh, SAME[2].0, SAME[2].1);
    gh.clear_requests();
    dashboard(&gh, &agents[0], &[]);
    let edited = the_dashboard(&gh);
    assert_eq!(edited.number, d.number);
    assert_eq!(rows(&edited.body), ["⛔ #101", "⛔ #103", "↺ #102"]);
    let w = writes(&gh);
    assert_eq!(
        w,
        [format!("PATCH /repos/octo-org/widgets/issues/{}", d.number)]
    );

    // A maintainer closes the dashboard: the next run opens it again, still one.
    gh.close_issue(d.number);
    dashboard(&gh, &agents[0], &[]);
    let reopened = the_dashboard(&gh);
    assert_eq!(
        (reopened.number, reopened.state.as_str()),
        (d.number, "open")
    );
}

#[test]
fn a_tick_resumes_that_pr_only_when_someone_with_write_access_ticked_it() {
    let gh = FakeGitHub::start_blocking()
        .with_permission("maintainer", "write")
        .with_permission("mallory", "read");
    let mut agents = four_prs(&gh);
    dashboard(&gh, &agents[0], &[]);
    let d = the_dashboard(&gh);
    let sticky_101 = sticky_body(&gh, 101);
    let sticky_102 = sticky_body(&gh, 102);

    // Someone without write access ticks the box (the event says who): ignored, said so,
    // the box cleared.
    let before = d.body.clone();
    gh.edit_issue_body(d.number, &tick(&before, 101));
    let out = dashboard_on_edit(&gh, &agents[0], d.number, &before, "mallory");
    assert_eq!(out.code, 0, "{out:#?}");
    let after = the_dashboard(&gh);
    assert!(
        after
            .body
            .contains("the box was ticked by mallory, who has no write access: ignored"),
        "{}",
        after.body
    );
    assert!(!after.body.contains("- [x]"), "{}", after.body);
    assert_eq!(sticky_body(&gh, 101), sticky_101, "the PR is left alone");
    assert_eq!(gh.labels(101), [LABEL]);
    let requests = gh.requests();
    assert_eq!(
        count(&requests, "GET", "/collaborators/mallory/permission"),
        1
    );

    // A maintainer ticks it: #101 is resumed exactly as removing the label does.
    let kept = sticky_state(&gh, 101);
    let before = after.body.clone();
    gh.edit_issue_body(d.number, &tick(&before, 101));
    gh.clear_requests();
    let out = dashboard_on_edit(&gh, &agents[0], d.number, &before, "maintainer");
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("resumed #101"), "{}", out.stdout);
    // The comment is read again right before the resume is written over it.
    let requests = gh.requests();
    let id = gh
        .comments_on(101)
        .into_iter()
        .find(|c| c.author.as_deref() == Some(BOT_LOGIN))
        .unwrap()
        .id;
    assert_eq!(
        count(&requests, "GET", &format!("/issues/comments/{id}")),
        1
    );
    assert_eq!(
        count(&requests, "PATCH", &format!("/issues/comments/{id}")),
        1
    );
    let state = sticky_state(&gh, 101);
    assert_eq!(
        (&state.last, &state.evidence, &state.issue),
        (&kept.last, &kept.evidence, &kept.issue),
        "all ci kept stays"
    );
    let resume = state
        .resumes
        .last()
        .expect("the resume is in the PR's state");
    assert_eq!(resume.after.as_str(), agents[0].head());
    assert_eq!(resume.by.as_deref(), Some("maintainer"));
    assert!(gh.labels(101).is_empty(), "the label comes off");
    assert!(sticky_body(&gh, 101).contains("Resumed from the loopguard dashboard** by maintainer"));
    let after = the_dashboard(&gh);
    assert_eq!(rows(&after.body), ["↺ #101", "↺ #102", "✅ #103"]);
    assert!(
        !after.body.contains("- [x]") && !after.body.contains("pr=101 -->"),
        "{}",
        after.body
    );
    // Only #101 was touched (#102's resume, a label taken off, is read from its
    // timeline by each `ci` run, not kept).
    assert_eq!(sticky_body(&gh, 102), sticky_102);

    // `ci` sees the resume: the next push that only repeats the failure reopens the
    // breaker with "no progress after resume", as after a label removal.
    let next = agents[0].p.attempt_empty("Retry CI");
    let out = agents[0].ci(&gh, &next, SAME_LOGS[1]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(
        out.outputs["reason"].starts_with("no progress after resume"),
        "{out:#?}"
    );
    assert_eq!(gh.labels(101), [LABEL]);

    // Stuck again; ticked between scheduled runs: no event says who ticked it (a token
    // with `issues: write`, the agent's too, can edit the dashboard), so it is no resume:
    // said so, the box cleared, the PR left stuck.
    dashboard(&gh, &agents[0], &[]);
    let d = the_dashboard(&gh);
    let kept = sticky_body(&gh, 101);
    gh.edit_issue_body(d.number, &tick(&d.body, 101));
    let out = dashboard(&gh, &agents[0], &[]);
    assert!(!out.stdout.contains("resumed #101"), "{out:#?}");
    assert_eq!(sticky_body(&gh, 101), kept);
    assert_eq!(gh.labels(101), [LABEL]);
    let after = the_dashboard(&gh);
    assert!(
        after.body.contains("101: the box was ticked, but no")
            && after.body.contains("event says by whom"),
        "{}",
        after.body
    );
    assert!(!after.body.contains("- [x]"), "{}", after.body);
}

#[test]
fn faults_on_the_way_change_nothing_in_the_result() {
    let gh = FakeGitHub::start_blocking();
    let agents = four_prs(&gh);
    gh.clear_requests();
    gh.fail_next("GET", r"/pulls$", Fault::Status(502), 2);
    gh.fail_next(
        "GET",
        r"/issues/comments$",
        Fault::TooManyRequests { retry_after: 1 },
        1,
    );
    gh.fail_next(
        "GET",
        r"/issues$",
        Fault::SecondaryRateLimit {
            retry_after: Some(1),
        },
        1,
    );
    gh.fail_next("POST", r"/issues$", Fault::StatusAfterApply(502), 1);
    // Both runs at one time: the dashboard's ages ("open for …") are the same.
    let out = dashboard_at(&gh, &agents[0], "2026-11-25T13:00:00Z");
    assert_eq!(out.code, 0, "{out:#?}");
    let requests = gh.requests();
    assert_eq!(
        count(&requests, "POST", "/repos/octo-org/widgets/issues"),
        1,
        "no duplicate"
    );
    let d = the_dashboard(&gh);
    assert_eq!(rows(&d.body), ["⛔ #101", "↺ #102", "✅ #103"]);
    // A run without faults finds nothing to change.
    gh.clear_requests();
    dashboard_at(&gh, &agents[0], "2026-11-25T13:00:00Z");
    assert!(gh.writes().is_empty(), "{:#?}", gh.writes());
    assert_eq!(the_dashboard(&gh).body, d.body);
}

#[test]
fn dry_run_writes_nothing_and_json_says_what_it_saw() {
    let gh = FakeGitHub::start_blocking();
    let agents = four_prs(&gh);
    gh.clear_requests();
    let out = dashboard(&gh, &agents[0], &["--dry-run", "--json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(gh.writes().is_empty(), "{:#?}", gh.writes());
    let json_line = out.stdout.lines().find(|l| l.starts_with('{')).unwrap();
    let doc: Value = serde_json::from_str(json_line).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["counts"]["stuck"], 1);
    let order: Vec<u64> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pr"].as_u64().unwrap())
        .collect();
    assert_eq!(order, [101, 102, 103, 104]);
    assert_eq!(doc["rows"][0]["rule"], "same_error");
    assert!(
        out.stdout
            .contains("dry run: 1 GitHub write(s) planned, none made"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("POST /repos/octo-org/widgets/issues: create issue \"loopguard dashboard\""),
        "{}",
        out.stdout
    );
}

// ---- request economy -----------------------------------------------------------------

/// `n` open agent PRs whose sticky comments hold a verdict (3 in 10 stuck), each with two
/// comments of people besides; and 5 PRs closed lately.
pub(crate) fn many_prs(n: u64) -> FakeGitHub {
    let gh = FakeGitHub::start_blocking();
    let head = "a".repeat(40);
    for number in 1..=n + 5 {
        let mut pr = PrSpec::new(number, &head).title(&format!("Agent PR {number}"));
        if number > n {
            pr = pr.closed(number % 2 == 0, "2026-11-25T11:00:00Z");
        }
        gh.add_pr(pr);
        let stuck = number % 10 < 3;
        let mut state = CiState::new(number);
        state.last = Some(Verdict {
            head: head.parse().unwrap(),
            state: if stuck {
                loopguard::breaker::State::Open
            } else {
                loopguard::breaker::State::Closed
            },
            rule: stuck.then_some(loopguard::rules::RuleName::SameError),
            reason: stuck.then(|| "the same failure in 3 iterations in a row".to_owned()),
            terminal_status: None,
            iterations: Some(4),
            progress_at: Some("2026-11-25T08:00:00Z".parse().unwrap()),
            tripped_at: stuck.then(|| "2026-11-25T10:00:00Z".parse().unwrap()),
            failure: None,
            run: Some(990_000 + number),
            loop_cost: None,
        });
        gh.add_comment(number, Some("octocat"), "Looks like the agent is on it.");
        gh.add_comment(
            number,
            Some(BOT_LOGIN),
            &render_sticky(&state, "### loopguard", None).unwrap(),
        );
        gh.add_comment(number, Some("maintainer"), "Thanks!");
    }
    gh
}

#[test]
fn a_long_comment_history_is_read_pr_by_pr_instead() {
    // 3 PRs in a repository whose comments since the oldest of them fill 12 pages: one
    // page tells how many there are, then each PR's comments are read.
    let gh = many_prs(3);
    for i in 0..1200 {
        gh.add_comment(900 + i % 7, Some("someone"), "chatter on an issue");
    }
    let checkout = crate::support::TestRepo::new();
    let out = CiStep::new(&gh, &checkout)
        .event("schedule", "{}")
        .args(["dashboard", "--json"])
        .run();
    assert_eq!(out.code, 0, "{out:#?}");
    let requests = gh.requests();
    assert_eq!(
        count(&requests, "GET", "/repos/octo-org/widgets/issues/comments"),
        1
    );
    for pr in 1..=8 {
        assert_eq!(
            count(&requests, "GET", &format!("/issues/{pr}/comments")),
            1,
            "#{pr}"
        );
    }
    let d = the_dashboard(&gh);
    assert_eq!(rows(&d.body).len(), 3, "{}", d.body);
}

#[test]
fn the_action_runs_the_dashboard_with_command_dashboard() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml"),
    )
    .unwrap();
    let action: Value = serde_saphyr::from_str(&text).unwrap();
    let script = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "guard")
        .and_then(|s| s["run"].as_str())
        .unwrap()
        .to_owned();
    let gh = FakeGitHub::start_blocking();
    let agents = four_prs(&gh);
    let bin = assert_cmd::cargo::cargo_bin("loopguard");
    let step = |command: &str| {
        CiStep::new(&gh, &agents[0].p.repo)
            .event("workflow_dispatch", "{}")
            .program(std::path::Path::new("bash"))
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .env("LOOPGUARD", bin.to_str().unwrap())
            .env("INPUT_COMMAND", command)
            .env("INPUT_LOG", "")
            .env("INPUT_JUNIT", "")
            .env("INPUT_CONFIG", "")
            .env("INPUT_FAIL_ON_TRIP", "true")
            .env("INPUT_DRY_RUN", "false")
            .run()
    };
    let out = step("dashboard");
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(
        rows(&the_dashboard(&gh).body),
        ["⛔ #101", "↺ #102", "✅ #103"]
    );
    let out = step("dashbord");
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr
            .contains("unknown command `dashbord`: ci or dashboard"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_hostile_login_or_title_starts_no_workflow_command() {
    let gh = FakeGitHub::start_blocking();
    let agents = four_prs(&gh);
    // The titles as a hostile PR author would write them.
    for a in &agents {
        gh.add_pr(
            a.p.pr(a.number, &a.head())
                .title(&format!("PR\n::error::title-{}\r\u{1b}[2K", a.number))
                .head_ref(&a.branch()),
        );
    }
    dashboard(&gh, &agents[0], &[]);
    let d = the_dashboard(&gh);
    let before = d.body.clone();
    gh.edit_issue_body(d.number, &tick(&before, 101));
    let sender = "mallory\n::error::sender-injected";
    let out = dashboard_on_edit(&gh, &agents[0], d.number, &before, sender);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("no write access"), "{}", out.stderr);
    assert_no_command_outside_fence("stdout", &out.stdout);
    assert_no_command_outside_fence("stderr", &out.stderr);
    assert!(!out.stderr.contains('\u{1b}'), "{}", out.stderr);
    assert!(
        !the_dashboard(&gh)
            .body
            .lines()
            .any(|l| l.trim_start().starts_with("::")),
        "the issue body neither"
    );
}

#[test]
fn without_a_key_ci_checks_a_dashboard_resume_against_the_dashboards_own_run() {
    // No LOOPGUARD_STATE_KEY anywhere: the resume the dashboard writes into the PR's
    // comment is taken only as the dashboard's own workflow run and its log back it.
    let gh = FakeGitHub::start_blocking().with_permission("maintainer", "write");
    let mut agent = Agent::new(101);
    agent.key = false;
    let head = agent.p.attempt("s.len()", "Start");
    gh.add_pr(agent.p.pr(101, &head).head_ref(&agent.branch()));
    agent.get_stuck(&gh);
    assert_eq!(gh.labels(101), [LABEL]);
    let board = |step: CiStep<'_>| step.arg("dashboard").without_key().run();
    board(CiStep::new(&gh, &agent.p.repo).event("schedule", r#"{"schedule": "17 * * * *"}"#));
    let d = the_dashboard(&gh);
    gh.edit_issue_body(d.number, &tick(&d.body, 101));
    let payload = serde_json::json!({
        "action": "edited",
        "issue": {"number": d.number, "title": "loopguard dashboard", "body": the_dashboard(&gh).body,
                  "state": "open", "user": {"login": BOT_LOGIN, "id": 41898282, "type": "Bot"}},
        "changes": {"body": {"from": d.body}},
        "sender": {"login": "maintainer", "id": 4242, "type": "User"},
        "repository": {"id": 1, "name": "widgets", "full_name": "octo-org/widgets"}
    });
    let out = board(
        CiStep::new(&gh, &agent.p.repo)
            .event("issues", &payload.to_string())
            .env("GITHUB_RUN_ID", "770001"),
    );
    assert!(
        out.stdout
            .contains("resumed #101 (ticked on the dashboard by maintainer)"),
        "{out:#?}"
    );
    // The dashboard's run as GitHub records it: started by the maintainer's edit, its
    // log holding what the step printed.
    gh.add_run(
        RunSpec::new(770001, &"d".repeat(40))
            .head("main", None)
            .created(&gh.person_time())
            .started_by("issues", "maintainer")
            .job(JobSpec::succeeded(770501, "dashboard", &out.stdout)),
    );
    // The agent re-runs CI: the resume holds, and the same failure opens it again.
    let next = agent.p.attempt_empty("Retry CI");
    let out = agent.ci(&gh, &next, SAME_LOGS[1]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(
        out.outputs["reason"].starts_with("no progress after resume"),
        "{out:#?}"
    );
    assert!(!out.stderr.contains("was edited"), "{}", out.stderr);

    // The same resume, once its run says otherwise (another PR's line in its log): it
    // is no resume, and it is said to be a forgery.
    let mut forged = sticky_state(&gh, 101);
    let mut replay = forged
        .resumes
        .last()
        .cloned()
        .expect("the dashboard's resume");
    replay.run = Some(880_555);
    forged.resumes.push(replay);
    gh.add_run(
        RunSpec::new(880_555, &"e".repeat(40))
            .head("main", None)
            .created(&gh.person_time())
            .started_by("issues", "maintainer")
            .job(JobSpec::succeeded(
                880_556,
                "dashboard",
                "resumed #102 (ticked on the dashboard by maintainer)\n",
            )),
    );
    let id = gh
        .comments_on(101)
        .into_iter()
        .find(|c| c.author.as_deref() == Some(BOT_LOGIN))
        .unwrap()
        .id;
    let agent_token = GitHubClient::builder()
        .api_url(gh.uri())
        .token(Token::new("ghs_agent0own0workflow0token000000000000").unwrap())
        .repo(RepoId::new("octo-org", "widgets"))
        .time_scale(0.001)
        .build()
        .unwrap();
    agent_token
        .update_comment(id, &render_sticky(&forged, "### loopguard", None).unwrap())
        .unwrap();
    let again = agent.p.attempt_empty("Retry CI again");
    let out = agent.ci(&gh, &again, SAME_LOGS[1]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr.contains("does not say it resumed #101"),
        "{}",
        out.stderr
    );
    assert_eq!(out.outputs["state"], "open", "{out:#?}");
}
