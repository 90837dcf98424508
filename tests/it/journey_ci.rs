//! A maintainer's first hour with the GitHub Action (issue 27, item 3): a project of a few
//! hundred commits with merges, renames, reverts and a submodule (written with `git
//! fast-import`), the recommended `.loopguard.yml` and the workflow of
//! `examples/workflows/pull-request.yml` on it, and an agent that opens a PR and loops.
//! Each CI run is the real binary in a runner's checkout (the synthetic merge commit of
//! `refs/pull/7/merge`, the whole history fetched), against the fake GitHub, fed the real
//! runner logs of tests/fixtures/logs: the first run of a healthy PR, pushes that fail the
//! same way, the warning one push before the trip, the trip (label, sticky comment,
//! stuck-loop issue, the failed step, the dashboard's row), the agent pushing again while
//! the breaker is open, a maintainer's resume (the label taken off, read from the PR's
//! timeline), a relapse (new code, the same failure: open again, not "recovered"), a
//! second resume and the recovery (the label off, the issue closed, the dashboard's row
//! healthy).
//!
//! Every line a person reads — the step's log, its outputs and summary, the PR's labels,
//! loopguard's comment, the stuck-loop issue and the dashboard — goes into one transcript,
//! compared with tests/snapshots/journey-ci.md: each text in full the first time, then what
//! each edit changed (`-`/`+` lines); the agent's commits are written `<c1>`, `<c2>`, …, the
//! base `<base>`, the workflow-command fence `<fence>`. The journey runs twice at once:
//! without a state key, as the `pull_request` workflow has it, and with one (`state-key`),
//! which seals the state in the comment; a person reads the same either way, but for the
//! log's line saying there is no key.

use std::time::Instant;

use jiff::{SignedDuration, Timestamp};

use crate::journey::real_size;
use crate::support::TestRepo;
use crate::support::ci::{
    BRANCH, CONFIG, COPILOT, CiStep, LABEL, Outcome, Project, log_path, log_text, payload,
};
use crate::support::github_fake::{BOT_LOGIN, FakeGitHub, JobSpec, RunSpec};
use crate::support::snapshots::assert_snapshot;

const PR: u64 = 7;
const TITLE: &str = "Fix word counting";
const PASS: &str = "cargo/passing/plain.log";
/// The same failing test with the same assertion, as different runs print it.
const SAME: [&str; 6] = [
    "cargo/assert-count/plain.log",
    "cargo/assert-count/shifted.log",
    "cargo/assert-count/color.log",
    "cargo/assert-count/gha.log",
    "cargo/assert-count/threads1-backtrace.log",
    "cargo/assert-count/extra.log",
];
/// The line the log has on every run without a key.
const NO_KEY: &str = "    no LOOPGUARD_STATE_KEY: ";
/// The hidden lines of loopguard's comment and issues (marker, state, seal).
const HIDDEN: &str = "<!-- loopguard:";

fn lib(body: &str) -> String {
    format!("pub fn count_words(s: &str) -> usize {{\n    {body}\n}}\n")
}

fn visible(body: &str) -> String {
    let lines: Vec<&str> = body.lines().filter(|l| !l.starts_with(HIDDEN)).collect();
    lines.join("\n")
}

/// What changed from `old` to `new`, line by line: `- ` removed, `+ ` added, in order.
fn diff(old: &str, new: &str) -> Vec<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    // The longest common subsequence, from the end.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(format!("- {}", a[i]).trim_end().to_owned());
            i += 1;
        } else {
            out.push(format!("+ {}", b[j]).trim_end().to_owned());
            j += 1;
        }
    }
    out
}

/// The agent's PR, its repository (the agent's clone, `origin` of the runner's checkout),
/// GitHub, and what a person has read so far.
struct Journey {
    p: Project,
    gh: FakeGitHub,
    /// The runner's checkout: `actions/checkout` with `fetch-depth: 0`.
    checkout: TestRepo,
    sealed: bool,
    /// The clock of GitHub and the runner.
    now: Timestamp,
    lines: Vec<String>,
    /// Each text as a person last read it (the summary, the comment, an issue), by name.
    read: Vec<(String, String)>,
    labels: Vec<String>,
    /// The head before the last push (the `before` of `synchronize`).
    before: String,
    dashboard_runs: u64,
}

impl Journey {
    fn new(sealed: bool) -> Journey {
        let built = Instant::now();
        let (repo, n) = real_size(300);
        eprintln!(
            "journey_ci: {n} commits written with git fast-import in {:.2?}",
            built.elapsed()
        );
        let now: Timestamp = "2026-11-25T12:00:00Z".parse().unwrap();
        // The maintainer sets the Action up as the README says: the recommended config
        // and the pull-request workflow of the examples.
        repo.set_now(now.as_second() - 3600);
        repo.author("Ada Maintainer", "ada@example.com");
        repo.write(".loopguard.yml", CONFIG);
        let workflow = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/workflows/pull-request.yml");
        repo.write(
            ".github/workflows/ci.yml",
            std::fs::read_to_string(workflow).unwrap(),
        );
        let base = repo.commit("Guard agent PRs with loopguard");
        let checkout = TestRepo::clone_from(&repo, &[]);
        repo.checkout_new(BRANCH);
        repo.author(COPILOT.0, COPILOT.1);
        Journey {
            before: base.clone(),
            p: Project {
                repo,
                base,
                attempts: Vec::new(),
            },
            gh: FakeGitHub::start_blocking(),
            checkout,
            sealed,
            now,
            lines: Vec::new(),
            read: Vec::new(),
            labels: Vec::new(),
            dashboard_runs: 0,
        }
    }

    fn say(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    /// `text` as the transcript writes it: commits named `<cN>` and `<base>`, the
    /// workflow-command fence's token `<fence>`.
    fn names(&self, text: &str) -> String {
        let mut text = text.to_owned();
        if let Some(at) = text.find("::stop-commands::") {
            let token: String = text[at + 17..]
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .collect();
            if !token.is_empty() {
                text = text.replace(&token, "<fence>");
            }
        }
        let mut names: Vec<(String, String)> = self
            .p
            .attempts
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), format!("<c{}>", i + 1)))
            .collect();
        names.push((self.p.base.clone(), "<base>".to_owned()));
        for len in [40, 10, 7] {
            for (id, name) in &names {
                text = text.replace(&id[..len], name);
            }
        }
        text
    }

    /// Shows `text` under `what`, indented.
    fn show(&mut self, what: &str, text: &str) {
        self.say(what.to_owned());
        let text = self.names(text);
        self.lines.extend(
            text.lines()
                .map(|l| format!("    {l}").trim_end().to_owned()),
        );
    }

    /// Shows the text `name` (`title` above it): in full the first time, then what
    /// changed; nothing when nothing did.
    fn show_changes(&mut self, name: &str, title: &str, text: &str) {
        let text = self.names(text);
        match self.read.iter().position(|(n, _)| n == name) {
            None => {
                self.show(&format!("{title}:"), &text);
                self.read.push((name.to_owned(), text));
            }
            Some(k) if self.read[k].1 == text => {}
            Some(k) => {
                let changes = diff(&self.read[k].1, &text);
                self.say(format!("{title}, edited:"));
                self.lines.extend(
                    changes
                        .iter()
                        .map(|l| format!("    {l}").trim_end().to_owned()),
                );
                self.read[k].1 = text;
            }
        }
    }

    fn at(&self, after: SignedDuration) -> String {
        (self.now + after)
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }

    /// The agent commits `body` as the counter and pushes, a few minutes after the last
    /// step; its tests print `log`.
    fn push(&mut self, body: &str, message: &str, log: &str) -> String {
        self.now += SignedDuration::from_mins(6);
        self.p.repo.set_now(self.now.as_second() - 60);
        self.p.repo.write("src/wc.rs", lib(body));
        let head = self.p.repo.commit(message);
        self.p.attempts.push(head.clone());
        self.gh.add_pr(self.p.pr(PR, &head).title(TITLE));
        let short = self.names(&head);
        let tests = if log == PASS { "pass" } else { "fail" };
        self.say(format!(
            "\n## the agent pushes {short} \"{message}\"; its tests {tests} ({log})"
        ));
        head
    }

    /// GitHub runs the PR's workflow on `head` now (`actor` started it); its `test` job
    /// passes or fails with `log` in 4 minutes. The run's id.
    fn workflow_run(&self, head: &str, log: &str, actor: &str) -> u64 {
        let id = self.gh.next_run_id();
        let mut run = RunSpec::new(id, head)
            .head(BRANCH, None)
            .started_by("pull_request", actor)
            .created(&self.at(SignedDuration::ZERO))
            .timing(
                &self.at(SignedDuration::ZERO),
                &self.at(SignedDuration::from_mins(4)),
            );
        run.pull_requests = vec![PR];
        let run = if log == PASS {
            run.conclusion(Some("success")).job(JobSpec::succeeded(
                id + 50_000,
                "test",
                &log_text(log),
            ))
        } else {
            run.job(JobSpec::failed(id + 50_000, "test", &log_text(log)))
        };
        self.gh.add_run(run);
        id
    }

    /// The runner's checkout of `refs/pull/7/merge`: the PR's head merged into its base,
    /// the whole history fetched.
    fn check_out(&self, head: &str) {
        let c = &self.checkout;
        c.git(&["fetch", "-q", "origin"]);
        c.git(&["checkout", "-q", "--detach", &self.p.base]);
        let message = format!("Merge {head} into {}", self.p.base);
        c.git(&["merge", "-q", "--no-ff", "-m", &message, head]);
    }

    /// The `loopguard` job of the workflow run `run` on `head`, triggered by `event`
    /// (`pull_request`'s action), with the test job's log, when the test job is done.
    fn ci(&mut self, event: &str, head: &str, log: &str, run: u64) -> Outcome {
        self.now += SignedDuration::from_mins(4);
        self.check_out(head);
        let body = payload(
            &format!("pull_request.{event}.json"),
            &[
                ("{{HEAD_SHA}}", head),
                ("{{BASE_SHA}}", &self.p.base),
                ("{{BEFORE}}", &self.before),
            ],
        );
        let step = CiStep::new(&self.gh, &self.checkout)
            .event("pull_request", &body)
            .env("GITHUB_RUN_ID", &run.to_string())
            .env("LOOPGUARD_NOW", &self.at(SignedDuration::ZERO))
            .arg("ci")
            .args(["--log".to_owned(), log_path(log)]);
        let out = if self.sealed {
            step
        } else {
            step.without_key()
        }
        .run();
        self.before = head.to_owned();
        self.say(format!(
            "$ loopguard ci --log {log}  (pull_request {event}, run {run}): exit {}",
            out.code
        ));
        self.step_log(&out);
        let outputs: Vec<String> = out
            .outputs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        self.show_changes("outputs", "outputs", &outputs.join("\n"));
        self.show_changes("summary", "step summary", &out.summary);
        self.pr_changes();
        out
    }

    /// The step's log: stdout, then stderr.
    fn step_log(&mut self, out: &Outcome) {
        self.show("log (stdout):", &out.stdout);
        if !out.stderr.is_empty() {
            self.show("log (stderr):", &out.stderr);
        }
    }

    /// What changed on the PR and the issues a person looks at: the PR's labels,
    /// loopguard's comment (only ever one), the issues.
    fn pr_changes(&mut self) {
        let labels = self.gh.labels(PR);
        if labels != self.labels {
            self.say(format!("PR #{PR} labels: [{}]", labels.join(", ")));
            self.labels = labels;
        }
        let comments = self.gh.comments_on(PR);
        assert!(comments.len() <= 1, "one comment, edited: {comments:#?}");
        for c in comments {
            assert_eq!(c.author.as_deref(), Some(BOT_LOGIN));
            let title = format!("PR #{PR} loopguard's comment");
            self.show_changes("comment", &title, &visible(&c.body));
        }
        for issue in self.gh.issues() {
            let title = format!(
                "issue #{} [{}] ({}): {}",
                issue.number,
                issue.labels.join(", "),
                issue.state,
                issue.title
            );
            self.show_changes(
                &format!("issue {}", issue.number),
                &title,
                &visible(&issue.body),
            );
        }
    }

    /// The dashboard workflow's hourly run (with the key, from the default branch).
    fn dashboard(&mut self) -> Outcome {
        self.now += SignedDuration::from_mins(1);
        self.dashboard_runs += 1;
        let out = CiStep::new(&self.gh, &self.checkout)
            .event("schedule", r#"{"schedule": "17 * * * *"}"#)
            .env(
                "GITHUB_RUN_ID",
                &(770_000 + self.dashboard_runs).to_string(),
            )
            .env("LOOPGUARD_NOW", &self.at(SignedDuration::ZERO))
            .arg("dashboard")
            .run();
        self.say(format!(
            "\n## the dashboard's hourly run\n$ loopguard dashboard  (schedule): exit {}",
            out.code
        ));
        self.step_log(&out);
        self.show_changes("dashboard summary", "step summary", &out.summary);
        self.pr_changes();
        out
    }

    /// A maintainer takes the label off in the web UI; GitHub runs the workflow again on
    /// the same head (`unlabeled`), its tests failing with `log`.
    fn resume(&mut self, head: &str, log: &str) -> Outcome {
        self.gh.remove_label(PR, LABEL);
        self.labels = self.gh.labels(PR);
        self.say(format!(
            "\n## a maintainer takes the {LABEL} label off PR #{PR}; its tests fail ({log})"
        ));
        self.now += SignedDuration::from_mins(1);
        let run = self.workflow_run(head, log, "maintainer");
        self.ci("unlabeled", head, log, run)
    }

    /// The agent pushes `body`; CI runs on it.
    fn push_and_ci(&mut self, body: &str, message: &str, log: &str, event: &str) -> Outcome {
        let head = self.push(body, message, log);
        let run = self.workflow_run(&head, log, "Copilot");
        self.ci(event, &head, log, run)
    }

    /// The issues other than the dashboard.
    fn stuck_issues(&self) -> Vec<crate::support::github_fake::FakeIssue> {
        self.gh
            .issues()
            .into_iter()
            .filter(|i| !i.body.starts_with("<!-- loopguard:dashboard -->"))
            .collect()
    }
}

/// New code for each of the agent's tries, all failing the same way.
const TRIES: [&str; 5] = [
    "s.split(' ').filter(|w| w.len() > 1).count()",
    "s.split_whitespace().filter(|w| w.len() >= 2).count()",
    "s.split(' ').filter(|w| w.len() > 1).count() + 0",
    "s.split_whitespace().filter(|w| w.chars().count() > 1).count()",
    "s.split_ascii_whitespace().filter(|w| w.len() > 1).count()",
];

fn journey(sealed: bool) -> Vec<String> {
    let mut j = Journey::new(sealed);
    let started = Instant::now();
    let state = |out: &Outcome| (out.code, out.outputs["state"].clone());

    // The agent opens its PR; the tests pass.
    let out = j.push_and_ci(
        "s.split_whitespace().count()",
        "Count words",
        PASS,
        "opened",
    );
    assert_eq!(state(&out), (0, "closed".into()));

    // Then it loops: new code each push, the same failure; a warning, then the trip.
    for (i, body) in TRIES[..3].iter().enumerate() {
        let message = format!("Fix the word count, try {}", i + 1);
        let out = j.push_and_ci(body, &message, SAME[i], "synchronize");
        let tripped = i == 2;
        assert_eq!(out.code, i32::from(tripped), "{out:#?}");
        assert_eq!(out.outputs["tripped"], tripped.to_string());
    }
    assert_eq!(j.gh.labels(PR), [LABEL]);
    let stuck = j.stuck_issues();
    assert!(stuck.len() == 1 && stuck[0].state == "open", "{stuck:#?}");
    j.dashboard();

    // The agent pushes again while the breaker is open: still stuck.
    let out = j.push_and_ci(
        TRIES[3],
        "Fix the word count, try 4",
        SAME[3],
        "synchronize",
    );
    assert_eq!(state(&out), (1, "open".into()));

    // A maintainer lets it try again; new code fails the same way: open again.
    let head = j.p.attempts.last().unwrap().clone();
    let out = j.resume(&head, SAME[3]);
    assert_eq!(state(&out), (0, "half_open".into()));
    assert!(j.gh.labels(PR).is_empty());
    let out = j.push_and_ci(
        TRIES[4],
        "Fix the word count, try 5",
        SAME[4],
        "synchronize",
    );
    assert_eq!(state(&out), (1, "open".into()));
    assert_eq!(j.gh.labels(PR), [LABEL]);
    assert_eq!(j.stuck_issues()[0].state, "open");

    // Resumed again; the agent fixes the bug: recovered.
    let head = j.p.attempts.last().unwrap().clone();
    let out = j.resume(&head, SAME[5]);
    assert_eq!(state(&out), (0, "half_open".into()));
    let body = "s.split_whitespace().filter(|w| !w.is_empty()).count()";
    let out = j.push_and_ci(body, "Count words by whitespace", PASS, "synchronize");
    assert_eq!(state(&out), (0, "closed".into()));
    assert!(j.gh.labels(PR).is_empty());
    let stuck = j.stuck_issues();
    assert!(stuck.len() == 1 && stuck[0].state == "closed", "{stuck:#?}");
    j.dashboard();
    eprintln!(
        "journey_ci: 9 CI runs and 2 dashboard runs ({}) took {:.2?}",
        if sealed { "sealed" } else { "no key" },
        started.elapsed()
    );
    j.lines
}

#[test]
fn a_maintainers_first_hour_with_the_action() {
    let (plain, sealed) = std::thread::scope(|s| {
        let sealed = s.spawn(|| journey(true));
        (journey(false), sealed.join().unwrap())
    });
    // Without a key the log says so on every run but the first (which says there is no
    // state yet), and an earlier head's failure is read again from its workflow run, whose
    // test job it names as where it came from (with a key: the log this run was given);
    // a person reads nothing else different.
    let said_no_key = |l: &&String| l.starts_with(NO_KEY);
    assert_eq!(plain.iter().filter(said_no_key).count(), 8);
    let from_edited =
        |l: &String| l.starts_with("    - - **From:**") || l.starts_with("    + - **From:**");
    let mut without: Vec<String> = Vec::new();
    for l in &plain {
        if said_no_key(&l) {
            // Its heading too, when it was the only line under it.
            if without.last().is_some_and(|h| h == "log (stderr):") {
                without.pop();
            }
            continue;
        }
        if !from_edited(l) {
            without.push(l.clone());
        }
    }
    let sealed: Vec<String> = sealed.into_iter().filter(|l| !from_edited(l)).collect();
    let differs = diff(&without.join("\n"), &sealed.join("\n"));
    assert!(
        differs.is_empty(),
        "sealed, against without a key:\n{}",
        differs.join("\n")
    );
    assert_snapshot("journey-ci.md", &(plain.join("\n") + "\n"));
}
