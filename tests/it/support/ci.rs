//! CI scenarios: a repository with an agent branch ([`Project`]), the GitHub Actions step
//! that runs `loopguard ci` against the fake GitHub ([`CiStep`] → [`Outcome`]), real event
//! payloads (tests/fixtures/github/events) and real runner logs.
//!
//! ```ignore
//! let mut p = Project::new(CONFIG);
//! let gh = FakeGitHub::start_blocking();
//! let head = p.attempt("s.len()", "Try 1");
//! gh.add_pr(p.pr(7, &head));
//! let out = CiStep::new(&gh, &p.repo).event("pull_request", &p.sync_event(&head))
//!     .args(["ci", "--log", &log_path(SAME_LOGS[0])]).run();
//! assert_eq!(out.outputs["state"], "closed");
//! ```

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::github_fake::{
    BOT_LOGIN, CommitSpec, FakeGitHub, FileSpec, JobSpec, PrSpec, RecordedRequest, RunSpec,
};
use super::gitrepo::TestRepo;

pub(crate) const TOKEN: &str = "ghs_ci0test0SECRET0token0value0123456789";
/// `LOOPGUARD_STATE_KEY` of the steps (an environment secret only loopguard's own
/// workflows get): set unless a step is run [`CiStep::without_key`].
pub(crate) const STATE_KEY: &str =
    "f3c1e0a9b8d74c2e9a6b5d4c3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f";
pub(crate) const ZWSP: char = '\u{200B}';
pub(crate) const COPILOT: (&str, &str) = ("Copilot", "198982749+Copilot@users.noreply.github.com");
pub(crate) const BRANCH: &str = "copilot/fix-word-count";
pub(crate) const LABEL: &str = "loopguard:stuck";
/// The config of the base branch in most tests: every PR channel on.
pub(crate) const CONFIG: &str = "on_trip:\n  notify: [summary, label, comment, issue]\n";

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/github")
}

/// A log: `runner/scenario/file` from the real runner logs of tests/fixtures/logs, or a
/// file name from tests/fixtures/github/logs.
pub(crate) fn log_file(name: &str) -> PathBuf {
    if name.contains('/') {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/logs")
            .join(name)
    } else {
        fixtures().join("logs").join(name)
    }
}

pub(crate) fn log_path(name: &str) -> String {
    log_file(name).display().to_string()
}

pub(crate) fn log_text(name: &str) -> String {
    std::fs::read_to_string(log_file(name)).unwrap()
}

/// `cargo test` failing `counts_three_words` with the same assertion, as four different
/// runs print it (plain, other line numbers, colour, backtrace).
pub(crate) const SAME_LOGS: [&str; 4] = [
    "cargo/assert-count/plain.log",
    "cargo/assert-count/shifted.log",
    "cargo/assert-count/color.log",
    "cargo/assert-count/threads1-backtrace.log",
];
/// Different code each time, the same failing test with the same error.
pub(crate) const SAME: [(&str, &str); 4] = [
    ("s.split(' ').filter(|w| w.len() > 1).count()", SAME_LOGS[0]),
    (
        "s.split_whitespace().filter(|w| w.len() >= 2).count()",
        SAME_LOGS[1],
    ),
    (
        "s.split(' ').filter(|w| w.len() > 1).count() + 0",
        SAME_LOGS[0],
    ),
    (
        "s.split_whitespace().filter(|w| w.chars().count() > 1).count()",
        SAME_LOGS[1],
    ),
];

/// The same failure in a GitHub Actions job log.
pub(crate) const SAME_JOB_LOG: &str = "cargo/assert-count/gha.log";
pub(crate) const OTHER_LOG: &str = "cargo/two-failures/plain.log";
pub(crate) const PASS_LOG: &str = "cargo/passing/plain.log";

/// An event payload fixture with its placeholders filled.
pub(crate) fn payload(name: &str, fill: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(fixtures().join("events").join(name)).unwrap();
    for (k, v) in fill {
        text = text.replace(k, v);
    }
    text
}

/// What one run of `loopguard ci` left.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// `-1` when a signal ended it (or [`CiStep::kill_after`] did).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub outputs: BTreeMap<String, String>,
    pub summary: String,
    /// From start to exit.
    pub elapsed: Duration,
    /// [`CiStep::kill_after`] had to end it.
    pub killed: bool,
}

/// Reads a `GITHUB_OUTPUT` file (`name<<DELIMITER\nvalue\nDELIMITER\n` entries).
pub(crate) fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let (name, delimiter) = line.split_once("<<").expect("heredoc entries only");
        let mut value = Vec::new();
        for l in lines.by_ref() {
            if l == delimiter {
                break;
            }
            value.push(l);
        }
        out.insert(name.to_owned(), value.join("\n"));
    }
    out
}

/// Runs `loopguard ci ARGS` in `checkout` as a GitHub Actions step would.
pub(crate) fn run_ci(
    gh: &FakeGitHub,
    checkout: &TestRepo,
    event: &str,
    payload: &str,
    args: &[&str],
) -> Outcome {
    CiStep::new(gh, checkout)
        .event(event, payload)
        .arg("ci")
        .args(args)
        .run()
}

/// [`run_ci`] at the time `now` (RFC 3339).
pub(crate) fn run_ci_at(
    gh: &FakeGitHub,
    checkout: &TestRepo,
    event: &str,
    payload: &str,
    args: &[&str],
    now: &str,
) -> Outcome {
    CiStep::new(gh, checkout)
        .event(event, payload)
        .arg("ci")
        .args(args.iter().copied())
        .env("LOOPGUARD_NOW", now)
        .run()
}

/// One step of a job triggered by an event: the Actions variables and runtime files set,
/// the API at the fake, the clock pinned. By default it runs the `loopguard` binary.
pub(crate) struct CiStep<'a> {
    gh: &'a FakeGitHub,
    checkout: &'a TestRepo,
    event: String,
    payload: String,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    kill_after: Option<Duration>,
    /// `--test-knobs` before the arguments (loopguard only): the knobs set here count.
    test_knobs: bool,
    /// `LOOPGUARD_STATE_KEY`, if any.
    key: Option<String>,
}

impl<'a> CiStep<'a> {
    pub(crate) fn new(gh: &'a FakeGitHub, checkout: &'a TestRepo) -> Self {
        CiStep {
            gh,
            checkout,
            event: "pull_request".to_owned(),
            payload: "{}".to_owned(),
            program: assert_cmd::cargo::cargo_bin("loopguard"),
            args: Vec::new(),
            env: Vec::new(),
            kill_after: None,
            test_knobs: true,
            key: Some(STATE_KEY.to_owned()),
        }
    }

    /// Without `LOOPGUARD_STATE_KEY`: the state in loopguard's comment is not trusted, and
    /// what could relax the breaker is derived from the runs and the timeline.
    pub(crate) fn without_key(mut self) -> Self {
        self.key = None;
        self
    }

    /// With this `LOOPGUARD_STATE_KEY` (another repository's, a leaked one…).
    pub(crate) fn key(mut self, key: &str) -> Self {
        self.key = Some(key.to_owned());
        self
    }

    /// Without `--test-knobs`: as the Action runs loopguard, where the knobs in the
    /// environment are not honoured.
    pub(crate) fn without_test_knobs(mut self) -> Self {
        self.test_knobs = false;
        self
    }

    /// The API at `url` instead of the fake (a misbehaving server).
    pub(crate) fn api(self, url: &str) -> Self {
        self.env("GITHUB_API_URL", url)
    }

    /// Kills the step when it runs longer than `limit` (the outcome says `killed`): for
    /// tests of what must end by itself.
    pub(crate) fn kill_after(mut self, limit: Duration) -> Self {
        self.kill_after = Some(limit);
        self
    }

    /// The event that triggered the job, and its payload (`GITHUB_EVENT_PATH`).
    pub(crate) fn event(mut self, name: &str, payload: &str) -> Self {
        name.clone_into(&mut self.event);
        payload.clone_into(&mut self.payload);
        self
    }

    /// Another program than `loopguard` (a shell script of the action, say).
    pub(crate) fn program(mut self, program: &Path) -> Self {
        self.program = program.to_owned();
        self
    }

    pub(crate) fn arg(mut self, arg: &str) -> Self {
        self.args.push(arg.to_owned());
        self
    }

    pub(crate) fn args<S: AsRef<str>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub(crate) fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    pub(crate) fn run(self) -> Outcome {
        let tmp = tempfile::tempdir().unwrap();
        let event_path = tmp.path().join("event.json");
        let output = tmp.path().join("output");
        let summary = tmp.path().join("summary");
        std::fs::write(&event_path, &self.payload).unwrap();
        let mut cmd = std::process::Command::new(&self.program);
        self.checkout.apply_env(&mut cmd);
        for (k, _) in std::env::vars() {
            if k.starts_with("GITHUB_") || k.starts_with("RUNNER_") || k.starts_with("LOOPGUARD_") {
                cmd.env_remove(k);
            }
        }
        cmd.current_dir(self.checkout.path())
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_API_URL", self.gh.uri())
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("GITHUB_REPOSITORY", self.gh.repository())
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_EVENT_NAME", &self.event)
            .env("GITHUB_EVENT_PATH", &event_path)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_RUN_ID", "990001")
            .env("GITHUB_SHA", "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed")
            .env("LOOPGUARD_GITHUB_TIME_SCALE", "0.001")
            .env("NO_COLOR", "1");
        // Each step a minute after the one before, as the fake GitHub's clock says, unless
        // the test pins it.
        match self.env.iter().find(|(k, _)| k == "LOOPGUARD_NOW") {
            Some((_, now)) => self.gh.observe_step(now),
            None => {
                cmd.env("LOOPGUARD_NOW", self.gh.step_time());
            }
        }
        if let Some(key) = &self.key {
            cmd.env("LOOPGUARD_STATE_KEY", key);
        }
        // In a GitHub Actions job the knobs come from the command line only.
        if self.test_knobs && self.program == assert_cmd::cargo::cargo_bin("loopguard") {
            cmd.arg("--test-knobs");
        }
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let start = Instant::now();
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let drain = |mut pipe: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                String::from_utf8_lossy(&bytes).into_owned()
            })
        };
        let out_thread = drain(Box::new(child.stdout.take().unwrap()));
        let err_thread = drain(Box::new(child.stderr.take().unwrap()));
        let mut killed = false;
        let status = loop {
            if self.kill_after.is_none() {
                break child.wait().unwrap();
            }
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if self.kill_after.is_some_and(|limit| start.elapsed() > limit) {
                let _ = child.kill();
                killed = true;
                break child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let elapsed = start.elapsed();
        let outcome = Outcome {
            code: status.code().unwrap_or(-1),
            stdout: out_thread.join().unwrap(),
            stderr: err_thread.join().unwrap(),
            outputs: parse_outputs(&std::fs::read_to_string(&output).unwrap_or_default()),
            summary: std::fs::read_to_string(&summary).unwrap_or_default(),
            elapsed,
            killed,
        };
        assert!(
            !outcome.stdout.contains(TOKEN) && !outcome.stderr.contains(TOKEN),
            "the token leaked: {outcome:?}"
        );
        outcome
    }
}

/// The fake's view of a commit of `repo`, as the commits API would serve it.
pub(crate) fn commit_spec(repo: &TestRepo, sha: &str) -> CommitSpec {
    let field = |fmt: &str| repo.git(&["log", "-1", &format!("--format={fmt}"), sha]);
    let mut spec = CommitSpec::new(sha, field("%B").trim_end())
        .author(&field("%an"), &field("%ae"), None)
        .tree(&repo.tree(sha))
        .date(&field("%cI"));
    for p in field("%P").split_whitespace() {
        spec = spec.parent(p);
    }
    let mut files = Vec::new();
    let numstat = repo.git(&["diff-tree", "-r", "--no-commit-id", "--numstat", sha]);
    let status = repo.git(&["diff-tree", "-r", "--no-commit-id", "--name-status", sha]);
    for (num, st) in numstat.lines().zip(status.lines()) {
        let mut n = num.split('\t');
        let added: u64 = n.next().unwrap().parse().unwrap_or(0);
        let deleted: u64 = n.next().unwrap().parse().unwrap_or(0);
        let path = n.next().unwrap();
        let diff = repo.git(&["diff-tree", "-p", "-r", "--no-commit-id", sha, "--", path]);
        let patch = diff.find("@@").map(|at| format!("{}\n", &diff[at..]));
        let mut f = match st.chars().next() {
            Some('A') => FileSpec::added(path, added),
            Some('D') => FileSpec::removed(path, deleted),
            _ => FileSpec::modified(path, added, deleted),
        };
        f.patch = patch;
        files.push(f);
    }
    spec.files(files)
}

/// A repository whose `main` holds the word counter and `config`, and an agent branch.
pub(crate) struct Project {
    pub repo: TestRepo,
    pub base: String,
    pub attempts: Vec<String>,
}

impl Project {
    pub(crate) fn new(config: &str) -> Project {
        Project::with_files(config, &[])
    }

    /// [`Project::new`] with more files on `main` (workflows, say).
    pub(crate) fn with_files(config: &str, files: &[(&str, &str)]) -> Project {
        let repo = TestRepo::new();
        repo.author("Maintainer", "maintainer@example.com");
        repo.write(".loopguard.yml", config);
        for (path, content) in files {
            repo.write(path, content);
        }
        repo.write(
            "src/lib.rs",
            "pub fn count_words(s: &str) -> usize {\n    s.len()\n}\n",
        );
        let base = repo.commit("Word counter");
        repo.checkout_new(BRANCH);
        repo.author(COPILOT.0, COPILOT.1);
        Project {
            repo,
            base,
            attempts: Vec::new(),
        }
    }

    /// The agent commits another version of the counter.
    pub(crate) fn attempt(&mut self, body: &str, message: &str) -> String {
        self.repo.write(
            "src/lib.rs",
            format!("pub fn count_words(s: &str) -> usize {{\n    {body}\n}}\n"),
        );
        let sha = self.repo.commit(message);
        self.attempts.push(sha.clone());
        sha
    }

    /// The agent pushes an empty commit (to re-run CI).
    pub(crate) fn attempt_empty(&mut self, message: &str) -> String {
        let sha = self.repo.commit_empty(message);
        self.attempts.push(sha.clone());
        sha
    }

    /// The PR as the fake serves it, its head at `head`.
    pub(crate) fn pr(&self, number: u64, head: &str) -> PrSpec {
        let upto = self.attempts.iter().position(|a| a == head).unwrap();
        PrSpec::new(number, head)
            .base("main", &self.base)
            .head_ref(BRANCH)
            .commits(
                self.attempts[..=upto]
                    .iter()
                    .map(|sha| commit_spec(&self.repo, sha))
                    .collect(),
            )
    }

    /// `loopguard ci --log LOG` on the push of `head` to the PR (`pull_request`
    /// synchronize), LOG a runner log fixture.
    pub(crate) fn ci_on_push(&self, gh: &FakeGitHub, head: &str, log: &str) -> Outcome {
        self.pushed(gh, head, log);
        run_ci(
            gh,
            &self.repo,
            "pull_request",
            &self.sync_event(head),
            &["--log", &log_path(log)],
        )
    }

    /// The push of `head` as GitHub records it, when the test seeded no run of it: the
    /// PR's workflow ran on it right away, its test job failing with `log` (or passing).
    pub(crate) fn pushed(&self, gh: &FakeGitHub, head: &str, log: &str) {
        if gh.has_run_for(head) {
            return;
        }
        let run = RunSpec::new(gh.next_run_id(), head)
            .head(BRANCH, None)
            .created(&gh.person_time());
        let run = if log == PASS_LOG {
            run.conclusion(Some("success"))
        } else {
            run.job(JobSpec::failed(
                gh.next_run_id() + 50_000,
                "test",
                &log_text(log),
            ))
        };
        gh.add_run(run);
    }

    pub(crate) fn sync_event(&self, head: &str) -> String {
        payload(
            "pull_request.synchronize.json",
            &[
                ("{{HEAD_SHA}}", head),
                ("{{BASE_SHA}}", &self.base),
                ("{{BEFORE}}", &self.base),
            ],
        )
    }
}

pub(crate) fn writes(gh: &FakeGitHub) -> Vec<String> {
    gh.writes()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

pub(crate) fn count(requests: &[RecordedRequest], method: &str, suffix: &str) -> usize {
    requests
        .iter()
        .filter(|r| r.method == method && r.path.ends_with(suffix))
        .count()
}

pub(crate) fn sticky_body(gh: &FakeGitHub, pr: u64) -> String {
    let ours: Vec<_> = gh
        .comments_on(pr)
        .into_iter()
        .filter(|c| c.author.as_deref() == Some(BOT_LOGIN))
        .collect();
    assert_eq!(ours.len(), 1, "exactly one loopguard comment: {ours:#?}");
    ours[0].body.clone()
}

/// Asserts that no line of `text` (a step's stdout or stderr) would start a workflow
/// command — `::` or the legacy `##[` at the line's start, after optional whitespace —
/// outside a `::stop-commands::TOKEN` … `::TOKEN::` fence, except loopguard's own
/// annotation (`::error title=loopguard…`) and the fence itself.
#[track_caller]
pub(crate) fn assert_no_command_outside_fence(what: &str, text: &str) {
    let mut end: Option<String> = None;
    for line in text.lines() {
        let body = line.trim_start();
        if let Some(token) = &end {
            if line == token {
                end = None;
            }
            continue;
        }
        if let Some(t) = body.strip_prefix("::stop-commands::") {
            end = Some(format!("::{t}::"));
            continue;
        }
        let command = body.starts_with("::") || body.starts_with("##[");
        assert!(
            !command || line.starts_with("::error title=loopguard"),
            "{what}: a workflow command outside the fence: {line:?}\n{text}"
        );
    }
    assert!(end.is_none(), "{what}: a fence left open:\n{text}");
}
