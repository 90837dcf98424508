//! A fake GitHub for tests: a wiremock server that answers GitHub's real REST paths with
//! realistic payloads, backed by in-memory state the test seeds and inspects, plus a second
//! server playing the log blob host that job-log requests redirect to.
//!
//! ```ignore
//! #[path = "support/github_fake.rs"]
//! mod github_fake;
//! use github_fake::{FakeGitHub, PrSpec, CommitSpec, RunSpec, JobSpec, Fault};
//!
//! let gh = FakeGitHub::start_blocking()
//!     .with_pr(PrSpec::new(7, "head1").commits(vec![CommitSpec::new("head1", "fix")]))
//!     .with_run(RunSpec::new(100, "head1").failed_job(JobSpec::failed(200, "test", "log text")));
//! gh.fail_next("POST", r"/issues/\d+/comments$", Fault::Status(502), 1);
//! // point GITHUB_API_URL at gh.uri(), run, then:
//! assert_eq!(gh.comments().len(), 1);
//! ```
//!
//! Paths are served at the root and under `/api/v3` (GitHub Enterprise): use
//! [`FakeGitHub::enterprise_uri`] for the latter.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

mod actions;
mod comments;
mod issues;
mod labels;
mod payloads;
mod pulls;
mod repos;
mod timeline;

use payloads::*;

use regex::Regex;
use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The login that writes made through the fake are authored by (a workflow token's).
pub(crate) const BOT_LOGIN: &str = "github-actions[bot]";
const FILES_PER_PAGE: usize = 300;
const ENTERPRISE_PREFIX: &str = "/api/v3";

// ---- seeds ---------------------------------------------------------------------------

/// A changed file of a seeded commit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileSpec {
    pub filename: String,
    /// `added`, `removed`, `modified`, `renamed`.
    pub status: String,
    pub additions: u64,
    pub deletions: u64,
    pub patch: Option<String>,
    pub previous_filename: Option<String>,
}

impl FileSpec {
    pub(crate) fn modified(filename: &str, additions: u64, deletions: u64) -> Self {
        FileSpec {
            filename: filename.into(),
            status: "modified".into(),
            additions,
            deletions,
            patch: Some(format!("@@ -1,{deletions} +1,{additions} @@\n")),
            previous_filename: None,
        }
    }

    pub(crate) fn added(filename: &str, additions: u64) -> Self {
        FileSpec {
            status: "added".into(),
            ..FileSpec::modified(filename, additions, 0)
        }
    }

    pub(crate) fn removed(filename: &str, deletions: u64) -> Self {
        FileSpec {
            status: "removed".into(),
            ..FileSpec::modified(filename, 0, deletions)
        }
    }
}

/// A seeded commit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CommitSpec {
    pub sha: String,
    pub message: String,
    pub author_name: String,
    pub author_email: String,
    /// The GitHub account of the author; `None` serves `"author": null`.
    pub author_login: Option<String>,
    pub tree: String,
    pub parents: Vec<String>,
    pub files: Vec<FileSpec>,
    pub date: String,
}

impl CommitSpec {
    pub(crate) fn new(sha: &str, message: &str) -> Self {
        CommitSpec {
            sha: sha.into(),
            message: message.into(),
            author_name: "Copilot".into(),
            author_email: "198982749+Copilot@users.noreply.github.com".into(),
            author_login: Some("Copilot".into()),
            tree: format!("tree-{sha}"),
            parents: Vec::new(),
            files: Vec::new(),
            date: "2026-11-25T10:00:00Z".into(),
        }
    }

    pub(crate) fn author(mut self, name: &str, email: &str, login: Option<&str>) -> Self {
        self.author_name = name.into();
        self.author_email = email.into();
        self.author_login = login.map(Into::into);
        self
    }

    pub(crate) fn tree(mut self, tree: &str) -> Self {
        self.tree = tree.into();
        self
    }

    pub(crate) fn parent(mut self, sha: &str) -> Self {
        self.parents.push(sha.into());
        self
    }

    pub(crate) fn files(mut self, files: Vec<FileSpec>) -> Self {
        self.files = files;
        self
    }

    pub(crate) fn date(mut self, date: &str) -> Self {
        self.date = date.into();
        self
    }
}

/// A seeded pull request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PrSpec {
    pub number: u64,
    pub title: String,
    pub body: Option<String>,
    pub state: String,
    /// `None` serves `"user": null` (a deleted account).
    pub user: Option<String>,
    pub head_sha: String,
    pub head_ref: String,
    /// `owner/name` of the head repository; `None` is a deleted fork (`"repo": null`).
    pub head_repo: Option<String>,
    pub base_sha: String,
    pub base_ref: String,
    /// Oldest first; commits are also served by `GET …/commits/{sha}`.
    pub commits: Vec<CommitSpec>,
    pub created_at: String,
    pub updated_at: String,
    /// When it was closed, and whether by a merge (`state` is then `closed`).
    pub closed: Option<(bool, String)>,
}

impl PrSpec {
    pub(crate) fn new(number: u64, head_sha: &str) -> Self {
        PrSpec {
            number,
            title: format!("Agent PR {number}"),
            body: None,
            state: "open".into(),
            user: Some("Copilot".into()),
            head_sha: head_sha.into(),
            head_ref: format!("copilot/fix-{number}"),
            head_repo: None,
            base_sha: "base0000000000000000000000000000000000000".into(),
            base_ref: "main".into(),
            commits: Vec::new(),
            created_at: "2026-11-25T09:00:00Z".into(),
            updated_at: "2026-11-25T10:00:00Z".into(),
            closed: None,
        }
    }

    pub(crate) fn title(mut self, title: &str) -> Self {
        self.title = title.into();
        self
    }

    /// Closed (merged or not) at `at`, which is also when it was last updated.
    pub(crate) fn closed(mut self, merged: bool, at: &str) -> Self {
        self.state = "closed".into();
        self.closed = Some((merged, at.into()));
        self.updated_at = at.into();
        self
    }

    /// The head lives in `owner/name` (a fork).
    pub(crate) fn fork(mut self, full_name: &str) -> Self {
        self.head_repo = Some(full_name.into());
        self
    }

    /// The fork the head lived in was deleted.
    pub(crate) fn deleted_fork(mut self) -> Self {
        self.head_repo = Some(String::new());
        self
    }

    pub(crate) fn head_ref(mut self, head_ref: &str) -> Self {
        self.head_ref = head_ref.into();
        self
    }

    pub(crate) fn base(mut self, base_ref: &str, base_sha: &str) -> Self {
        self.base_ref = base_ref.into();
        self.base_sha = base_sha.into();
        self
    }

    pub(crate) fn user(mut self, login: Option<&str>) -> Self {
        self.user = login.map(Into::into);
        self
    }

    pub(crate) fn commits(mut self, commits: Vec<CommitSpec>) -> Self {
        self.commits = commits;
        self
    }
}

/// Where a job's log is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LogSpec {
    Text(String),
    /// The logs endpoint answers 404.
    Missing,
    /// The logs endpoint answers 410 (logs past retention).
    Expired,
}

/// A seeded job.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JobSpec {
    pub id: u64,
    pub name: String,
    pub conclusion: Option<String>,
    pub log: LogSpec,
}

impl JobSpec {
    pub(crate) fn failed(id: u64, name: &str, log: &str) -> Self {
        JobSpec {
            id,
            name: name.into(),
            conclusion: Some("failure".into()),
            log: LogSpec::Text(log.into()),
        }
    }

    pub(crate) fn succeeded(id: u64, name: &str, log: &str) -> Self {
        JobSpec {
            conclusion: Some("success".into()),
            ..JobSpec::failed(id, name, log)
        }
    }

    pub(crate) fn log(mut self, log: LogSpec) -> Self {
        self.log = log;
        self
    }
}

/// A seeded workflow run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunSpec {
    pub id: u64,
    pub name: String,
    pub workflow_id: u64,
    pub head_sha: String,
    pub head_branch: String,
    /// `owner/name`; `None`: the fake's own repository.
    pub head_repo: Option<String>,
    pub event: String,
    pub status: String,
    pub conclusion: Option<String>,
    /// PR numbers listed in `pull_requests` (leave empty for fork PRs, as GitHub does).
    pub pull_requests: Vec<u64>,
    pub jobs: Vec<JobSpec>,
    pub created_at: String,
    /// `run_started_at` and `updated_at` (both `created_at` unless set).
    pub run_started_at: Option<String>,
    pub updated_at: Option<String>,
    /// The attempts before the latest (a re-run makes one): `run_started_at` and
    /// `updated_at` of each, served at `…/runs/{id}/attempts/{n}`.
    pub earlier_attempts: Vec<(String, String)>,
    /// Who started the run (`actor`, `triggering_actor`).
    pub actor: String,
}

impl RunSpec {
    pub(crate) fn new(id: u64, head_sha: &str) -> Self {
        RunSpec {
            id,
            name: "CI".into(),
            workflow_id: 161335,
            head_sha: head_sha.into(),
            head_branch: "copilot/fix".into(),
            head_repo: None,
            event: "pull_request".into(),
            status: "completed".into(),
            conclusion: Some("failure".into()),
            pull_requests: Vec::new(),
            jobs: Vec::new(),
            created_at: "2026-11-25T10:00:00Z".into(),
            run_started_at: None,
            updated_at: None,
            earlier_attempts: Vec::new(),
            actor: "Copilot".into(),
        }
    }

    /// Created (and started) at `at` (RFC 3339): when GitHub saw the push it ran for.
    pub(crate) fn created(mut self, at: &str) -> Self {
        self.created_at = at.into();
        self
    }

    /// Started by `event` (`pull_request`, `issues`, …), by `actor`.
    pub(crate) fn started_by(mut self, event: &str, actor: &str) -> Self {
        self.event = event.into();
        self.actor = actor.into();
        self
    }

    /// The run started at `started` (RFC 3339) and last changed at `updated`.
    pub(crate) fn timing(mut self, started: &str, updated: &str) -> Self {
        self.run_started_at = Some(started.into());
        self.updated_at = Some(updated.into());
        self
    }

    /// Re-run: an attempt before the latest that started at `started` and last changed
    /// at `updated`.
    pub(crate) fn earlier_attempt(mut self, started: &str, updated: &str) -> Self {
        self.earlier_attempts.push((started.into(), updated.into()));
        self
    }

    pub(crate) fn conclusion(mut self, conclusion: Option<&str>) -> Self {
        self.conclusion = conclusion.map(Into::into);
        self
    }

    pub(crate) fn workflow(mut self, workflow_id: u64, name: &str) -> Self {
        self.workflow_id = workflow_id;
        self.name = name.into();
        self
    }

    pub(crate) fn head(mut self, branch: &str, repo: Option<&str>) -> Self {
        self.head_branch = branch.into();
        self.head_repo = repo.map(Into::into);
        self
    }

    pub(crate) fn job(mut self, job: JobSpec) -> Self {
        self.jobs.push(job);
        self
    }
}

/// An answer injected instead of the real one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fault {
    /// This status with a GitHub-style JSON message (`502`, `404`, `410`, …).
    Status(u16),
    /// The request is applied (a write happens), then this status is answered: the
    /// ambiguous failure a retried create must not duplicate.
    StatusAfterApply(u16),
    /// 429 with `Retry-After: secs`.
    TooManyRequests { retry_after: u64 },
    /// 403 "You have exceeded a secondary rate limit", with `Retry-After` when given.
    SecondaryRateLimit { retry_after: Option<u64> },
    /// 403 with `x-ratelimit-remaining: 0` and a reset `reset_in` seconds from now.
    PrimaryRateLimit { reset_in: u64 },
    /// 403 "Resource not accessible by integration" (a missing `permissions:` entry).
    NotAccessibleByIntegration,
}

// ---- state ---------------------------------------------------------------------------

/// A comment as the fake stores it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FakeComment {
    pub id: u64,
    pub issue: u64,
    pub author: Option<String>,
    pub body: String,
    pub created_at: String,
    pub updated_at: String,
}

/// An issue as the fake stores it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FakeIssue {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub state: String,
    pub author: Option<String>,
    pub labels: Vec<String>,
}

/// Which server a request reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    Api,
    Blob,
}

/// One request the fake received.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecordedRequest {
    pub host: Host,
    pub method: String,
    /// Without the `/api/v3` prefix.
    pub path: String,
    pub query: Option<String>,
    /// The `Authorization` header, if one was sent.
    pub authorization: Option<String>,
    pub body: String,
}

impl RecordedRequest {
    pub(crate) fn is_write(&self) -> bool {
        self.method != "GET" && self.method != "HEAD"
    }
}

struct FaultRule {
    method: String,
    path: Regex,
    fault: Fault,
    remaining: usize,
}

#[derive(Default)]
struct State {
    owner: String,
    name: String,
    api_uri: String,
    blob_uri: String,
    bot_login: String,
    /// `GET /user` answers this login; `None`: 403 like an installation token.
    user: Option<String>,
    prs: BTreeMap<u64, PrSpec>,
    commits: BTreeMap<String, CommitSpec>,
    runs: Vec<RunSpec>,
    repo_labels: BTreeMap<String, (u64, String, Option<String>)>,
    issue_labels: BTreeMap<u64, Vec<String>>,
    comments: Vec<FakeComment>,
    /// Submitted reviews: (PR, reviewer, state, submitted at).
    reviews: Vec<(u64, String, String, String)>,
    issues: BTreeMap<u64, FakeIssue>,
    files: BTreeMap<(String, String), Vec<u8>>,
    faults: Vec<FaultRule>,
    /// `GET …/collaborators/{user}/permission` answers (`maintainer` writes); anyone else
    /// reads `read`.
    permissions: BTreeMap<String, String>,
    /// `GET …/issues/{n}/events` and the timeline: (event, label, actor, at), oldest first.
    label_events: BTreeMap<u64, Vec<(String, String, String, String)>>,
    /// The timeline's `head_ref_force_pushed` entries: (actor, at, new head), oldest first.
    force_pushes: BTreeMap<u64, Vec<(String, String, String)>>,
    /// Who a token acts as (`Authorization: Bearer …`); any other token is the bot.
    tokens: BTreeMap<String, String>,
    /// The time of the next workflow step (see [`FakeGitHub::step_time`]).
    clock: Option<jiff::Timestamp>,
    /// When the last thing a person did between two steps happened.
    last_act: Option<jiff::Timestamp>,
    requests: Vec<RecordedRequest>,
    next_id: u64,
    ratelimit_remaining: u64,
}

impl State {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn next_number(&self) -> u64 {
        let prs = self.prs.keys().max().copied().unwrap_or(0);
        let issues = self.issues.keys().max().copied().unwrap_or(0);
        prs.max(issues) + 1
    }

    fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    /// When something a person (or a write) does between two steps happens: half a minute
    /// after the last step, and each a second after the one before, in the order the test
    /// does them (a review, then a push: the push is after the review).
    fn person_time(&mut self) -> String {
        let next = self.clock.unwrap_or_else(jiff::Timestamp::now);
        let mut at = next - jiff::SignedDuration::from_secs(30);
        if let Some(last) = self.last_act.filter(|l| *l >= at) {
            at = last + jiff::SignedDuration::from_secs(1);
        }
        self.last_act = Some(at);
        at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    }

    /// Who a request's token acts as.
    fn acting(&self, req: &Request) -> String {
        let token = req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("token "))
            })
            .unwrap_or_default();
        self.tokens
            .get(token)
            .cloned()
            .unwrap_or_else(|| self.bot_login.clone())
    }

    fn label_json(&self, name: &str) -> Value {
        let (id, color, description) =
            self.repo_labels
                .get(name)
                .cloned()
                .unwrap_or((0, "ededed".into(), None));
        json!({
            "id": id, "node_id": format!("LA_{id}"),
            "url": format!("https://api.github.com/repos/{}/labels/{name}", self.full_name()),
            "name": name, "color": color, "default": false, "description": description
        })
    }

    fn ensure_repo_label(&mut self, name: &str) {
        if !self.repo_labels.contains_key(name) {
            let id = self.next_id();
            self.repo_labels
                .insert(name.into(), (id, "ededed".into(), None));
        }
    }
}

// ---- the fake ------------------------------------------------------------------------

/// The fake GitHub: an API server and a blob server sharing one state.
pub(crate) struct FakeGitHub {
    api: MockServer,
    /// Serves the log downloads the API redirects to; kept so that it lives as long as the API.
    _blobs: MockServer,
    state: Arc<Mutex<State>>,
    // Last: the servers above are dropped before the runtime that started them.
    runtime: Option<tokio::runtime::Runtime>,
}

impl FakeGitHub {
    /// Starts the fake from async code.
    pub(crate) async fn start() -> Self {
        let api = MockServer::start().await;
        let blobs = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            owner: "octo-org".into(),
            name: "widgets".into(),
            api_uri: api.uri(),
            blob_uri: blobs.uri(),
            bot_login: BOT_LOGIN.into(),
            next_id: 1000,
            ratelimit_remaining: 5000,
            permissions: [("maintainer".to_owned(), "write".to_owned())].into(),
            tokens: [("ghp_maintainer0token".to_owned(), "maintainer".to_owned())].into(),
            clock: Some("2026-11-25T12:00:00Z".parse().expect("a valid time")),
            ..State::default()
        }));
        Mock::given(any())
            .respond_with(Router {
                state: state.clone(),
                host: Host::Api,
            })
            .mount(&api)
            .await;
        Mock::given(any())
            .respond_with(Router {
                state: state.clone(),
                host: Host::Blob,
            })
            .mount(&blobs)
            .await;
        FakeGitHub {
            api,
            _blobs: blobs,
            state,
            runtime: None,
        }
    }

    /// Starts the fake from sync code (tests that drive a blocking client or a binary).
    pub(crate) fn start_blocking() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a test can start a tokio runtime");
        let mut fake = runtime.block_on(FakeGitHub::start());
        fake.runtime = Some(runtime);
        fake
    }

    /// The API root, for `GITHUB_API_URL`.
    pub(crate) fn uri(&self) -> String {
        self.api.uri()
    }

    /// The API root as GitHub Enterprise Server has it (`…/api/v3`).
    pub(crate) fn enterprise_uri(&self) -> String {
        format!("{}{ENTERPRISE_PREFIX}", self.api.uri())
    }

    /// `owner/name` served (default `octo-org/widgets`).
    pub(crate) fn repository(&self) -> String {
        self.lock().full_name()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().expect("the fake's lock is not poisoned")
    }

    // -- seeding: builder style (`with_*`) and on a shared fake (`add_*`) -------------

    pub(crate) fn with_pr(self, pr: PrSpec) -> Self {
        self.add_pr(pr);
        self
    }

    pub(crate) fn add_pr(&self, pr: PrSpec) {
        let mut s = self.lock();
        for c in &pr.commits {
            s.commits.insert(c.sha.clone(), c.clone());
        }
        // A new head that does not hold the old one was force-pushed: the timeline says so.
        let forced = s.prs.get(&pr.number).is_some_and(|old| {
            old.head_sha != pr.head_sha && !pr.commits.iter().any(|c| c.sha == old.head_sha)
        });
        if forced {
            let at = s.person_time();
            let actor = pr.user.clone().unwrap_or_else(|| "ghost".into());
            s.force_pushes
                .entry(pr.number)
                .or_default()
                .push((actor, at, pr.head_sha.clone()));
        }
        s.prs.insert(pr.number, pr);
    }

    /// The time of the next workflow step, and the clock moved a minute on: each step of
    /// a test happens a minute after the one before (2026-11-25T12:00:00Z first), and what
    /// people do between two steps half a minute after the first.
    pub(crate) fn step_time(&self) -> String {
        let mut s = self.lock();
        let now = s.clock.unwrap_or_else(jiff::Timestamp::now);
        s.clock = Some(now + jiff::SignedDuration::from_mins(1));
        now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    }

    /// A step ran at `at` (a test pinned its clock): GitHub's clock is the runner's, so
    /// what happens next happens after it (the next step a minute later).
    pub(crate) fn observe_step(&self, at: &str) {
        let Ok(at) = at.parse::<jiff::Timestamp>() else {
            return;
        };
        self.lock().clock = Some(at + jiff::SignedDuration::from_mins(1));
    }

    /// When something done now between two steps happens (see [`FakeGitHub::step_time`]).
    pub(crate) fn person_time(&self) -> String {
        self.lock().person_time()
    }

    pub(crate) fn with_commit(self, commit: CommitSpec) -> Self {
        self.lock().commits.insert(commit.sha.clone(), commit);
        self
    }

    pub(crate) fn with_run(self, run: RunSpec) -> Self {
        self.add_run(run);
        self
    }

    pub(crate) fn add_run(&self, run: RunSpec) {
        self.lock().runs.push(run);
    }

    /// Whether a run of commit `sha` was seeded.
    pub(crate) fn has_run_for(&self, sha: &str) -> bool {
        self.lock().runs.iter().any(|r| r.head_sha == sha)
    }

    /// An id for one more run, after every seeded one.
    pub(crate) fn next_run_id(&self) -> u64 {
        let s = self.lock();
        s.runs.iter().map(|r| r.id).max().unwrap_or(0).max(880_000) + 1
    }

    pub(crate) fn with_issue_labels(self, issue: u64, labels: &[&str]) -> Self {
        {
            let mut s = self.lock();
            for l in labels {
                s.ensure_repo_label(l);
            }
            s.issue_labels
                .insert(issue, labels.iter().map(|l| (*l).to_owned()).collect());
        }
        self
    }

    /// A comment by `author` (`None`: a deleted account); returns its id.
    pub(crate) fn add_comment(&self, issue: u64, author: Option<&str>, body: &str) -> u64 {
        let mut s = self.lock();
        let id = s.next_id();
        let now = s.person_time();
        s.comments.push(FakeComment {
            id,
            issue,
            author: author.map(Into::into),
            body: body.into(),
            created_at: now.clone(),
            updated_at: now,
        });
        id
    }

    /// A review of `pr` by `reviewer` (`APPROVED`, `CHANGES_REQUESTED`, `COMMENTED`),
    /// submitted `at` (RFC 3339).
    pub(crate) fn add_review(&self, pr: u64, reviewer: &str, state: &str, at: &str) {
        let mut s = self.lock();
        s.reviews
            .push((pr, reviewer.into(), state.into(), at.into()));
    }

    pub(crate) fn with_comment(self, issue: u64, author: Option<&str>, body: &str) -> Self {
        self.add_comment(issue, author, body);
        self
    }

    /// An open issue; returns its number.
    pub(crate) fn add_issue(
        &self,
        author: Option<&str>,
        title: &str,
        body: &str,
        labels: &[&str],
    ) -> u64 {
        let mut s = self.lock();
        for l in labels {
            s.ensure_repo_label(l);
        }
        let number = s.next_number();
        s.issues.insert(
            number,
            FakeIssue {
                number,
                title: title.into(),
                body: body.into(),
                state: "open".into(),
                author: author.map(Into::into),
                labels: labels.iter().map(|l| (*l).to_owned()).collect(),
            },
        );
        number
    }

    /// A file served by the contents API at `git_ref` (branch name or sha).
    pub(crate) fn with_file(self, git_ref: &str, path: &str, content: &[u8]) -> Self {
        self.lock()
            .files
            .insert((git_ref.into(), path.into()), content.to_vec());
        self
    }

    /// `GET /user` answers this login (a PAT); by default it answers 403 like a
    /// workflow's installation token.
    pub(crate) fn with_user(self, login: &str) -> Self {
        self.lock().user = Some(login.into());
        self
    }

    /// `login`'s permission on the repository (`admin`, `write`, `read`, `none`).
    pub(crate) fn with_permission(self, login: &str, permission: &str) -> Self {
        self.lock()
            .permissions
            .insert(login.into(), permission.into());
        self
    }

    /// Someone edits an issue's body in the web UI (ticks a box, say).
    pub(crate) fn edit_issue_body(&self, number: u64, body: &str) {
        let mut s = self.lock();
        let issue = s
            .issues
            .get_mut(&number)
            .expect("edit_issue_body: the issue exists");
        issue.body = body.into();
    }

    /// Closes an issue as a maintainer would.
    pub(crate) fn close_issue(&self, number: u64) {
        let mut s = self.lock();
        let issue = s
            .issues
            .get_mut(&number)
            .expect("close_issue: the issue exists");
        issue.state = "closed".into();
    }

    /// The author of writes (default `github-actions[bot]`).
    pub(crate) fn with_bot_login(self, login: &str) -> Self {
        self.lock().bot_login = login.into();
        self
    }

    /// The next `n` requests with `method` whose path (without `/api/v3`) matches
    /// `path_regex` get `fault` instead of their answer.
    pub(crate) fn fail_next(
        &self,
        method: &str,
        path_regex: &str,
        fault: Fault,
        n: usize,
    ) -> &Self {
        self.lock().faults.push(FaultRule {
            method: method.to_ascii_uppercase(),
            path: Regex::new(path_regex).expect("fail_next: a valid regex"),
            fault,
            remaining: n,
        });
        self
    }

    // -- inspection -------------------------------------------------------------------

    pub(crate) fn comments(&self) -> Vec<FakeComment> {
        self.lock().comments.clone()
    }

    pub(crate) fn comments_on(&self, issue: u64) -> Vec<FakeComment> {
        self.comments()
            .into_iter()
            .filter(|c| c.issue == issue)
            .collect()
    }

    pub(crate) fn issues(&self) -> Vec<FakeIssue> {
        self.lock().issues.values().cloned().collect()
    }

    /// Label names on an issue or PR.
    pub(crate) fn labels(&self, issue: u64) -> Vec<String> {
        self.lock()
            .issue_labels
            .get(&issue)
            .cloned()
            .unwrap_or_default()
    }

    /// A person takes `label` off an issue or PR (as the web UI does, not through the
    /// recorded API).
    /// `maintainer` (who has write access) takes `label` off `issue` in the web UI.
    pub(crate) fn remove_label(&self, issue: u64, label: &str) {
        self.remove_label_as(issue, label, "maintainer");
    }

    /// `login` takes `label` off `issue` in the web UI (an `unlabeled` event names them).
    pub(crate) fn remove_label_as(&self, issue: u64, label: &str, login: &str) {
        let mut s = self.lock();
        if let Some(labels) = s.issue_labels.get_mut(&issue) {
            labels.retain(|l| l != label);
        }
        let at = s.person_time();
        s.label_events.entry(issue).or_default().push((
            "unlabeled".into(),
            label.into(),
            login.into(),
            at,
        ));
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// Requests other than GET.
    pub(crate) fn writes(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_write)
            .collect()
    }

    pub(crate) fn clear_requests(&self) {
        self.lock().requests.clear();
    }
}

// ---- routing -------------------------------------------------------------------------

struct Router {
    state: Arc<Mutex<State>>,
    host: Host,
}

impl Respond for Router {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut s = self.state.lock().expect("the fake's lock is not poisoned");
        let raw_path = req.url.path().to_owned();
        let (prefix, path) = match raw_path.strip_prefix(ENTERPRISE_PREFIX) {
            Some(rest) if self.host == Host::Api => (ENTERPRISE_PREFIX, rest.to_owned()),
            _ => ("", raw_path.clone()),
        };
        let method = req.method.as_str().to_owned();
        s.requests.push(RecordedRequest {
            host: self.host,
            method: method.clone(),
            path: path.clone(),
            query: req.url.query().map(Into::into),
            authorization: req
                .headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(Into::into),
            body: String::from_utf8_lossy(&req.body).into_owned(),
        });
        if self.host == Host::Blob {
            return blob(&s, req, &path);
        }
        s.ratelimit_remaining = s.ratelimit_remaining.saturating_sub(1);
        let fault = s
            .faults
            .iter_mut()
            .find(|f| f.remaining > 0 && f.method == method && f.path.is_match(&path))
            .map(|f| {
                f.remaining -= 1;
                f.fault.clone()
            });
        let ctx = Ctx {
            req,
            base: s.api_uri.clone(),
            prefix,
            path: &path,
        };
        match fault {
            None => with_rate_headers(route(&mut s, &ctx), &s),
            Some(Fault::StatusAfterApply(status)) => {
                let _applied = route(&mut s, &ctx);
                with_rate_headers(error(status, "Server Error"), &s)
            }
            // It sets its own rate-limit headers.
            Some(fault @ Fault::PrimaryRateLimit { .. }) => fault_response(&fault),
            Some(fault) => with_rate_headers(fault_response(&fault), &s),
        }
    }
}

struct Ctx<'a> {
    req: &'a Request,
    /// The API server's own root (wiremock's `Request::url` names no real host).
    base: String,
    prefix: &'static str,
    path: &'a str,
}

impl Ctx<'_> {
    fn query(&self, key: &str) -> Option<String> {
        self.req
            .url
            .query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    }

    /// This request's URL on the real server, with `page` set to `page`.
    fn page_url(&self, page: usize) -> String {
        let mut query: Vec<String> = self
            .req
            .url
            .query_pairs()
            .filter(|(k, _)| k != "page")
            .map(|(k, v)| format!("{}={}", enc(&k), enc(&v)))
            .collect();
        query.push(format!("page={page}"));
        format!(
            "{}{}{}?{}",
            self.base,
            self.prefix,
            self.path,
            query.join("&")
        )
    }

    fn body(&self) -> Value {
        serde_json::from_slice(&self.req.body).unwrap_or(Value::Null)
    }
}

fn blob(s: &State, req: &Request, path: &str) -> ResponseTemplate {
    // Signed blob URLs refuse a bearer token, as the real storage does.
    if req.headers.contains_key("authorization") {
        return ResponseTemplate::new(400)
            .set_body_string("Authorization header is not allowed with a signed URL");
    }
    let job_id: Option<u64> = path.strip_prefix("/logs/").and_then(|id| id.parse().ok());
    let log = job_id.and_then(|id| {
        s.runs
            .iter()
            .flat_map(|r| &r.jobs)
            .find(|j| j.id == id)
            .map(|j| j.log.clone())
    });
    match log {
        Some(LogSpec::Text(text)) => {
            ResponseTemplate::new(200).set_body_raw(text.into_bytes(), "text/plain")
        }
        _ => ResponseTemplate::new(404).set_body_string("BlobNotFound"),
    }
}

fn fault_response(fault: &Fault) -> ResponseTemplate {
    match fault {
        Fault::Status(status) | Fault::StatusAfterApply(status) => {
            let message = match status {
                404 => "Not Found",
                410 => "Gone",
                422 => "Validation Failed",
                _ => "Server Error",
            };
            error(*status, message)
        }
        Fault::TooManyRequests { retry_after } => error(429, "Too Many Requests")
            .insert_header("retry-after", retry_after.to_string().as_str()),
        Fault::SecondaryRateLimit { retry_after } => {
            let r = error(
                403,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
            );
            match retry_after {
                Some(secs) => r.insert_header("retry-after", secs.to_string().as_str()),
                None => r,
            }
        }
        Fault::PrimaryRateLimit { reset_in } => {
            error(403, "API rate limit exceeded for installation ID 1234.")
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header(
                    "x-ratelimit-reset",
                    (unix_now() + reset_in).to_string().as_str(),
                )
        }
        Fault::NotAccessibleByIntegration => error(403, "Resource not accessible by integration"),
    }
}

fn error(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": status.to_string()
    }))
}

fn ok(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

fn created(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(201).set_body_json(body)
}

fn with_rate_headers(r: ResponseTemplate, s: &State) -> ResponseTemplate {
    let reset = (unix_now() + 3600).to_string();
    let remaining = s.ratelimit_remaining.to_string();
    let used = (5000 - s.ratelimit_remaining).to_string();
    r.insert_header("x-ratelimit-limit", "5000")
        .insert_header("x-ratelimit-remaining", remaining.as_str())
        .insert_header("x-ratelimit-reset", reset.as_str())
        .insert_header("x-ratelimit-used", used.as_str())
        .insert_header("x-ratelimit-resource", "core")
        .insert_header("x-github-api-version-selected", "2022-11-28")
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs()
}

fn now_rfc3339() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Serves one page of `items` with GitHub's `Link` header.
fn paged(ctx: &Ctx<'_>, items: Vec<Value>, wrap: Option<&str>) -> ResponseTemplate {
    let per_page = ctx
        .query("per_page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let page = ctx
        .query("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let total = items.len();
    let last = total.div_ceil(per_page).max(1);
    let slice: Vec<Value> = items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect();
    let body = match wrap {
        Some(field) => json!({ "total_count": total, field: slice }),
        None => Value::Array(slice),
    };
    let mut links = Vec::new();
    let link = |p: usize, rel: &str| format!("<{}>; rel=\"{rel}\"", ctx.page_url(p));
    if page > 1 {
        links.push(link(page - 1, "prev"));
    }
    if page < last {
        links.push(link(page + 1, "next"));
        links.push(link(last, "last"));
    }
    if page > 1 {
        links.push(link(1, "first"));
    }
    let r = ok(body);
    if links.is_empty() {
        r
    } else {
        r.insert_header("link", links.join(", ").as_str())
    }
}

fn route(s: &mut State, ctx: &Ctx<'_>) -> ResponseTemplate {
    let method = ctx.req.method.as_str();
    if ctx.path == "/user" && method == "GET" {
        return match &s.user {
            Some(login) => ok(user_json(login)),
            None => error(403, "Resource not accessible by integration"),
        };
    }
    let repo_prefix = format!("/repos/{}/{}", s.owner, s.name);
    let Some(rest) = ctx.path.strip_prefix(&repo_prefix) else {
        return error(404, "Not Found");
    };
    let parts: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    let areas: [Area; 7] = [
        timeline::route,
        pulls::route,
        actions::route,
        labels::route,
        comments::route,
        issues::route,
        repos::route,
    ];
    areas
        .iter()
        .find_map(|area| area(s, ctx, method, &parts))
        .unwrap_or_else(|| error(404, "Not Found"))
}

/// One API area's routes: `None` when the path is not one of them.
type Area = fn(&mut State, &Ctx<'_>, &str, &[&str]) -> Option<ResponseTemplate>;
