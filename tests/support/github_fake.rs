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

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use regex::Regex;
use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The login that writes made through the fake are authored by (a workflow token's).
pub const BOT_LOGIN: &str = "github-actions[bot]";
const FILES_PER_PAGE: usize = 300;
const ENTERPRISE_PREFIX: &str = "/api/v3";

// ---- seeds ---------------------------------------------------------------------------

/// A changed file of a seeded commit.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSpec {
    pub filename: String,
    /// `added`, `removed`, `modified`, `renamed`.
    pub status: String,
    pub additions: u64,
    pub deletions: u64,
    pub patch: Option<String>,
    pub previous_filename: Option<String>,
}

impl FileSpec {
    pub fn modified(filename: &str, additions: u64, deletions: u64) -> Self {
        FileSpec {
            filename: filename.into(),
            status: "modified".into(),
            additions,
            deletions,
            patch: Some(format!("@@ -1,{deletions} +1,{additions} @@\n")),
            previous_filename: None,
        }
    }

    pub fn added(filename: &str, additions: u64) -> Self {
        FileSpec {
            status: "added".into(),
            ..FileSpec::modified(filename, additions, 0)
        }
    }

    pub fn removed(filename: &str, deletions: u64) -> Self {
        FileSpec {
            status: "removed".into(),
            ..FileSpec::modified(filename, 0, deletions)
        }
    }

    pub fn patch(mut self, patch: &str) -> Self {
        self.patch = Some(patch.into());
        self
    }
}

/// A seeded commit.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitSpec {
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
    pub fn new(sha: &str, message: &str) -> Self {
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

    pub fn author(mut self, name: &str, email: &str, login: Option<&str>) -> Self {
        self.author_name = name.into();
        self.author_email = email.into();
        self.author_login = login.map(Into::into);
        self
    }

    pub fn tree(mut self, tree: &str) -> Self {
        self.tree = tree.into();
        self
    }

    pub fn parent(mut self, sha: &str) -> Self {
        self.parents.push(sha.into());
        self
    }

    pub fn files(mut self, files: Vec<FileSpec>) -> Self {
        self.files = files;
        self
    }

    pub fn date(mut self, date: &str) -> Self {
        self.date = date.into();
        self
    }
}

/// A seeded pull request.
#[derive(Debug, Clone, PartialEq)]
pub struct PrSpec {
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
}

impl PrSpec {
    pub fn new(number: u64, head_sha: &str) -> Self {
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
        }
    }

    /// The head lives in `owner/name` (a fork).
    pub fn fork(mut self, full_name: &str) -> Self {
        self.head_repo = Some(full_name.into());
        self
    }

    /// The fork the head lived in was deleted.
    pub fn deleted_fork(mut self) -> Self {
        self.head_repo = Some(String::new());
        self
    }

    pub fn head_ref(mut self, head_ref: &str) -> Self {
        self.head_ref = head_ref.into();
        self
    }

    pub fn base(mut self, base_ref: &str, base_sha: &str) -> Self {
        self.base_ref = base_ref.into();
        self.base_sha = base_sha.into();
        self
    }

    pub fn user(mut self, login: Option<&str>) -> Self {
        self.user = login.map(Into::into);
        self
    }

    pub fn commits(mut self, commits: Vec<CommitSpec>) -> Self {
        self.commits = commits;
        self
    }
}

/// Where a job's log is.
#[derive(Debug, Clone, PartialEq)]
pub enum LogSpec {
    Text(String),
    /// The logs endpoint answers 404.
    Missing,
    /// The logs endpoint answers 410 (logs past retention).
    Expired,
}

/// A seeded job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    pub id: u64,
    pub name: String,
    pub conclusion: Option<String>,
    pub log: LogSpec,
}

impl JobSpec {
    pub fn failed(id: u64, name: &str, log: &str) -> Self {
        JobSpec {
            id,
            name: name.into(),
            conclusion: Some("failure".into()),
            log: LogSpec::Text(log.into()),
        }
    }

    pub fn succeeded(id: u64, name: &str, log: &str) -> Self {
        JobSpec {
            conclusion: Some("success".into()),
            ..JobSpec::failed(id, name, log)
        }
    }

    pub fn log(mut self, log: LogSpec) -> Self {
        self.log = log;
        self
    }
}

/// A seeded workflow run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
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
}

impl RunSpec {
    pub fn new(id: u64, head_sha: &str) -> Self {
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
        }
    }

    pub fn conclusion(mut self, conclusion: Option<&str>) -> Self {
        self.conclusion = conclusion.map(Into::into);
        self
    }

    pub fn event(mut self, event: &str) -> Self {
        self.event = event.into();
        self
    }

    pub fn workflow(mut self, workflow_id: u64, name: &str) -> Self {
        self.workflow_id = workflow_id;
        self.name = name.into();
        self
    }

    pub fn head(mut self, branch: &str, repo: Option<&str>) -> Self {
        self.head_branch = branch.into();
        self.head_repo = repo.map(Into::into);
        self
    }

    pub fn for_pr(mut self, number: u64) -> Self {
        self.pull_requests.push(number);
        self
    }

    pub fn job(mut self, job: JobSpec) -> Self {
        self.jobs.push(job);
        self
    }

    pub fn created_at(mut self, at: &str) -> Self {
        self.created_at = at.into();
        self
    }
}

/// An answer injected instead of the real one.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
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
pub struct FakeComment {
    pub id: u64,
    pub issue: u64,
    pub author: Option<String>,
    pub body: String,
    pub created_at: String,
    pub updated_at: String,
}

/// An issue as the fake stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeIssue {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub state: String,
    pub author: Option<String>,
    pub labels: Vec<String>,
}

/// Which server a request reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Api,
    Blob,
}

/// One request the fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
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
    pub fn is_write(&self) -> bool {
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
    issues: BTreeMap<u64, FakeIssue>,
    files: BTreeMap<(String, String), Vec<u8>>,
    faults: Vec<FaultRule>,
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
pub struct FakeGitHub {
    api: MockServer,
    blobs: MockServer,
    state: Arc<Mutex<State>>,
    // Last: the servers above are dropped before the runtime that started them.
    runtime: Option<tokio::runtime::Runtime>,
}

impl FakeGitHub {
    /// Starts the fake from async code.
    pub async fn start() -> Self {
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
            blobs,
            state,
            runtime: None,
        }
    }

    /// Starts the fake from sync code (tests that drive a blocking client or a binary).
    pub fn start_blocking() -> Self {
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
    pub fn uri(&self) -> String {
        self.api.uri()
    }

    /// The API root as GitHub Enterprise Server has it (`…/api/v3`).
    pub fn enterprise_uri(&self) -> String {
        format!("{}{ENTERPRISE_PREFIX}", self.api.uri())
    }

    /// The blob host job logs redirect to.
    pub fn blob_uri(&self) -> String {
        self.blobs.uri()
    }

    /// `owner/name` served (default `octo-org/widgets`).
    pub fn repository(&self) -> String {
        self.lock().full_name()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().expect("the fake's lock is not poisoned")
    }

    // -- seeding: builder style (`with_*`) and on a shared fake (`add_*`) -------------

    pub fn with_repo(self, owner: &str, name: &str) -> Self {
        {
            let mut s = self.lock();
            s.owner = owner.into();
            s.name = name.into();
        }
        self
    }

    pub fn with_pr(self, pr: PrSpec) -> Self {
        self.add_pr(pr);
        self
    }

    pub fn add_pr(&self, pr: PrSpec) {
        let mut s = self.lock();
        for c in &pr.commits {
            s.commits.insert(c.sha.clone(), c.clone());
        }
        s.prs.insert(pr.number, pr);
    }

    /// Moves a PR's head to a new commit (appended to its commits).
    pub fn push_commit(&self, pr: u64, commit: CommitSpec) {
        let mut s = self.lock();
        s.commits.insert(commit.sha.clone(), commit.clone());
        let pr = s.prs.get_mut(&pr).expect("push_commit: the PR is seeded");
        pr.head_sha = commit.sha.clone();
        pr.commits.push(commit);
    }

    pub fn with_commit(self, commit: CommitSpec) -> Self {
        self.lock().commits.insert(commit.sha.clone(), commit);
        self
    }

    pub fn with_run(self, run: RunSpec) -> Self {
        self.add_run(run);
        self
    }

    pub fn add_run(&self, run: RunSpec) {
        self.lock().runs.push(run);
    }

    pub fn with_label(self, name: &str) -> Self {
        self.lock().ensure_repo_label(name);
        self
    }

    pub fn with_issue_labels(self, issue: u64, labels: &[&str]) -> Self {
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
    pub fn add_comment(&self, issue: u64, author: Option<&str>, body: &str) -> u64 {
        let mut s = self.lock();
        let id = s.next_id();
        let now = now_rfc3339();
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

    pub fn with_comment(self, issue: u64, author: Option<&str>, body: &str) -> Self {
        self.add_comment(issue, author, body);
        self
    }

    /// An open issue; returns its number.
    pub fn add_issue(&self, author: Option<&str>, title: &str, body: &str, labels: &[&str]) -> u64 {
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
    pub fn with_file(self, git_ref: &str, path: &str, content: &[u8]) -> Self {
        self.lock()
            .files
            .insert((git_ref.into(), path.into()), content.to_vec());
        self
    }

    /// `GET /user` answers this login (a PAT); by default it answers 403 like a
    /// workflow's installation token.
    pub fn with_user(self, login: &str) -> Self {
        self.lock().user = Some(login.into());
        self
    }

    /// The author of writes (default `github-actions[bot]`).
    pub fn with_bot_login(self, login: &str) -> Self {
        self.lock().bot_login = login.into();
        self
    }

    /// The next `n` requests with `method` whose path (without `/api/v3`) matches
    /// `path_regex` get `fault` instead of their answer.
    pub fn fail_next(&self, method: &str, path_regex: &str, fault: Fault, n: usize) -> &Self {
        self.lock().faults.push(FaultRule {
            method: method.to_ascii_uppercase(),
            path: Regex::new(path_regex).expect("fail_next: a valid regex"),
            fault,
            remaining: n,
        });
        self
    }

    // -- inspection -------------------------------------------------------------------

    pub fn comments(&self) -> Vec<FakeComment> {
        self.lock().comments.clone()
    }

    pub fn comments_on(&self, issue: u64) -> Vec<FakeComment> {
        self.comments()
            .into_iter()
            .filter(|c| c.issue == issue)
            .collect()
    }

    pub fn issues(&self) -> Vec<FakeIssue> {
        self.lock().issues.values().cloned().collect()
    }

    /// Label names on an issue or PR.
    pub fn labels(&self, issue: u64) -> Vec<String> {
        self.lock()
            .issue_labels
            .get(&issue)
            .cloned()
            .unwrap_or_default()
    }

    /// A person takes `label` off an issue or PR (as the web UI does, not through the
    /// recorded API).
    pub fn remove_label(&self, issue: u64, label: &str) {
        if let Some(labels) = self.lock().issue_labels.get_mut(&issue) {
            labels.retain(|l| l != label);
        }
    }

    /// Names of the repository's labels.
    pub fn repo_labels(&self) -> Vec<String> {
        self.lock().repo_labels.keys().cloned().collect()
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// Requests other than GET.
    pub fn writes(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.is_write())
            .collect()
    }

    pub fn clear_requests(&self) {
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
    match (method, parts.as_slice()) {
        ("GET", ["pulls"]) => {
            let state = ctx.query("state").unwrap_or_else(|| "open".into());
            let head = ctx.query("head");
            let items = s
                .prs
                .values()
                .filter(|p| state == "all" || p.state == state)
                .filter(|p| {
                    head.as_deref().is_none_or(|h| {
                        let owner = head_owner(p, s);
                        h == format!("{owner}:{}", p.head_ref)
                    })
                })
                .map(|p| pr_json(s, p))
                .collect();
            paged(ctx, items, None)
        }
        ("GET", ["pulls", n]) => match n.parse().ok().and_then(|n: u64| s.prs.get(&n)) {
            Some(pr) => ok(pr_json(s, pr)),
            None => error(404, "Not Found"),
        },
        ("GET", ["pulls", n, "commits"]) => match n.parse().ok().and_then(|n: u64| s.prs.get(&n)) {
            Some(pr) => {
                let items = pr
                    .commits
                    .iter()
                    .take(250)
                    .map(|c| commit_json(s, c, false))
                    .collect();
                paged(ctx, items, None)
            }
            None => error(404, "Not Found"),
        },
        ("GET", ["commits", sha]) => match s.commits.get(*sha) {
            Some(c) => commit_page(s, ctx, c),
            None => error(422, "No commit found for SHA: unknown"),
        },
        ("GET", ["commits", sha, "pulls"]) => {
            if !s.commits.contains_key(*sha) {
                return error(422, "No commit found for SHA");
            }
            // GitHub lists PRs of the base repository whose commits include it; a fork's
            // commit is not found this way, which is why callers fall back to listing.
            let items = s
                .prs
                .values()
                .filter(|p| p.head_repo.is_none() && p.commits.iter().any(|c| c.sha == *sha))
                .map(|p| pr_json(s, p))
                .collect();
            paged(ctx, items, None)
        }
        ("GET", ["actions", "runs"]) => runs_page(s, ctx, None),
        ("GET", ["actions", "workflows", id, "runs"]) => runs_page(s, ctx, id.parse().ok()),
        ("GET", ["actions", "runs", id]) => match s.runs.iter().find(|r| id.parse() == Ok(r.id)) {
            Some(run) => ok(run_json(s, run)),
            None => error(404, "Not Found"),
        },
        ("GET", ["actions", "runs", id, "jobs"]) => {
            match s.runs.iter().find(|r| id.parse() == Ok(r.id)) {
                Some(run) => {
                    let items = run.jobs.iter().map(|j| job_json(s, run, j)).collect();
                    paged(ctx, items, Some("jobs"))
                }
                None => error(404, "Not Found"),
            }
        }
        ("GET", ["actions", "jobs", id, "logs"]) => {
            let job = s
                .runs
                .iter()
                .flat_map(|r| &r.jobs)
                .find(|j| id.parse() == Ok(j.id));
            match job.map(|j| &j.log) {
                Some(LogSpec::Text(_)) => ResponseTemplate::new(302).insert_header(
                    "location",
                    format!(
                        "{}/logs/{id}?sv=2021-08-06&se=2026-11-25T10%3A10%3A00Z&sig=c2lnbmF0dXJl",
                        s.blob_uri
                    )
                    .as_str(),
                ),
                Some(LogSpec::Expired) => error(410, "Gone"),
                Some(LogSpec::Missing) | None => error(404, "Not Found"),
            }
        }
        ("GET", ["labels", name]) => {
            let name = decode(name);
            if s.repo_labels.contains_key(&name) {
                ok(s.label_json(&name))
            } else {
                error(404, "Not Found")
            }
        }
        ("POST", ["labels"]) => {
            let body = ctx.body();
            let Some(name) = body["name"].as_str().map(str::to_owned) else {
                return error(422, "Validation Failed");
            };
            if s.repo_labels.contains_key(&name) {
                return ResponseTemplate::new(422).set_body_json(json!({
                    "message": "Validation Failed",
                    "errors": [{"resource": "Label", "code": "already_exists", "field": "name"}],
                    "documentation_url": "https://docs.github.com/rest/issues/labels#create-a-label",
                    "status": "422"
                }));
            }
            let id = s.next_id();
            let color = body["color"].as_str().unwrap_or("ededed").to_owned();
            let description = body["description"].as_str().map(str::to_owned);
            s.repo_labels.insert(name.clone(), (id, color, description));
            created(s.label_json(&name))
        }
        ("GET", ["issues", n, "labels"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let names = s.issue_labels.get(&n).cloned().unwrap_or_default();
            let items = names.iter().map(|l| s.label_json(l)).collect();
            paged(ctx, items, None)
        }
        ("POST", ["issues", n, "labels"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            if !s.prs.contains_key(&n) && !s.issues.contains_key(&n) {
                return error(404, "Not Found");
            }
            let wanted: Vec<String> = ctx.body()["labels"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            for name in &wanted {
                // Adding a label the repository lacks creates it, as GitHub does.
                s.ensure_repo_label(name);
            }
            let entry = s.issue_labels.entry(n).or_default();
            for name in wanted {
                if !entry.contains(&name) {
                    entry.push(name);
                }
            }
            let names = entry.clone();
            ok(Value::Array(
                names.iter().map(|l| s.label_json(l)).collect(),
            ))
        }
        ("DELETE", ["issues", n, "labels", name]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let name = decode(name);
            let entry = s.issue_labels.entry(n).or_default();
            if let Some(at) = entry.iter().position(|l| *l == name) {
                entry.remove(at);
                let names = entry.clone();
                ok(Value::Array(
                    names.iter().map(|l| s.label_json(l)).collect(),
                ))
            } else {
                error(404, "Label does not exist")
            }
        }
        ("GET", ["issues", n, "comments"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let since = ctx
                .query("since")
                .and_then(|t| t.parse::<jiff::Timestamp>().ok());
            let items = s
                .comments
                .iter()
                .filter(|c| c.issue == n)
                .filter(|c| {
                    since.is_none_or(|t| {
                        c.updated_at
                            .parse::<jiff::Timestamp>()
                            .is_ok_and(|u| u >= t)
                    })
                })
                .map(|c| comment_json(s, c))
                .collect();
            paged(ctx, items, None)
        }
        ("POST", ["issues", n, "comments"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            if !s.prs.contains_key(&n) && !s.issues.contains_key(&n) {
                return error(404, "Not Found");
            }
            let Some(body) = ctx.body()["body"].as_str().map(str::to_owned) else {
                return error(422, "Validation Failed");
            };
            if body.chars().count() > 65_536 {
                return error(422, "Body is too long (maximum is 65536 characters)");
            }
            let id = s.next_id();
            let now = now_rfc3339();
            let comment = FakeComment {
                id,
                issue: n,
                author: Some(s.bot_login.clone()),
                body,
                created_at: now.clone(),
                updated_at: now,
            };
            let json = comment_json(s, &comment);
            s.comments.push(comment);
            created(json)
        }
        ("PATCH", ["issues", "comments", id]) => {
            let id: u64 = id.parse().unwrap_or(0);
            let Some(body) = ctx.body()["body"].as_str().map(str::to_owned) else {
                return error(422, "Validation Failed");
            };
            if body.chars().count() > 65_536 {
                return error(422, "Body is too long (maximum is 65536 characters)");
            }
            let Some(at) = s.comments.iter().position(|c| c.id == id) else {
                return error(404, "Not Found");
            };
            s.comments[at].body = body;
            s.comments[at].updated_at = now_rfc3339();
            let comment = s.comments[at].clone();
            ok(comment_json(s, &comment))
        }
        ("GET", ["issues"]) => {
            let state = ctx.query("state").unwrap_or_else(|| "open".into());
            let labels: Vec<String> = ctx
                .query("labels")
                .map(|l| l.split(',').map(str::to_owned).collect())
                .unwrap_or_default();
            // The issues API lists PRs too (with a `pull_request` key), newest first.
            // Every fake issue counts as updated now, so `since` keeps them all.
            let mut items: Vec<(u64, Value)> = s
                .issues
                .values()
                .filter(|i| state == "all" || i.state == state)
                .filter(|i| labels.iter().all(|l| i.labels.contains(l)))
                .map(|i| (i.number, issue_json(s, i)))
                .collect();
            items.extend(
                s.prs
                    .values()
                    .filter(|p| state == "all" || p.state == state)
                    .filter(|p| {
                        let on = s.issue_labels.get(&p.number).cloned().unwrap_or_default();
                        labels.iter().all(|l| on.contains(l))
                    })
                    .map(|p| (p.number, pr_as_issue_json(s, p))),
            );
            items.sort_by_key(|item| std::cmp::Reverse(item.0));
            paged(ctx, items.into_iter().map(|(_, v)| v).collect(), None)
        }
        ("POST", ["issues"]) => {
            let body = ctx.body();
            let Some(title) = body["title"].as_str().map(str::to_owned) else {
                return error(422, "Validation Failed");
            };
            let text = body["body"].as_str().unwrap_or_default().to_owned();
            if text.chars().count() > 65_536 {
                return error(422, "Body is too long (maximum is 65536 characters)");
            }
            let labels: Vec<String> = body["labels"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            for l in &labels {
                s.ensure_repo_label(l);
            }
            let number = s.next_number();
            let issue = FakeIssue {
                number,
                title,
                body: text,
                state: "open".into(),
                author: Some(s.bot_login.clone()),
                labels,
            };
            let json = issue_json(s, &issue);
            s.issues.insert(number, issue);
            created(json)
        }
        ("PATCH", ["issues", n]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let body = ctx.body();
            let labels: Option<Vec<String>> = body["labels"].as_array().map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            });
            if let Some(labels) = &labels {
                for l in labels {
                    s.ensure_repo_label(l);
                }
            }
            let Some(issue) = s.issues.get_mut(&n) else {
                return error(404, "Not Found");
            };
            if let Some(t) = body["title"].as_str() {
                issue.title = t.into();
            }
            if let Some(b) = body["body"].as_str() {
                issue.body = b.into();
            }
            if let Some(st) = body["state"].as_str() {
                issue.state = st.into();
            }
            if let Some(labels) = labels {
                issue.labels = labels;
            }
            let issue = issue.clone();
            ok(issue_json(s, &issue))
        }
        ("GET", ["contents", ..]) => {
            let path = decode(&parts[1..].join("/"));
            let git_ref = ctx.query("ref").unwrap_or_else(|| "main".into());
            let Some(bytes) = s.files.get(&(git_ref.clone(), path.clone())).cloned() else {
                // A directory: the entries directly in it, without content.
                let prefix = format!("{path}/");
                let entries: Vec<_> = s
                    .files
                    .iter()
                    .filter(|((r, p), _)| *r == git_ref && p.starts_with(&prefix))
                    .filter(|((_, p), _)| !p[prefix.len()..].contains('/'))
                    .map(|((_, p), bytes)| {
                        json!({
                            "type": "file", "size": bytes.len(), "name": &p[prefix.len()..],
                            "path": p, "sha": format!("blob-{}", bytes.len()),
                        })
                    })
                    .collect();
                if entries.is_empty() {
                    return error(404, "Not Found");
                }
                return ok(json!(entries));
            };
            let accept = ctx
                .req
                .headers
                .get("accept")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            if accept.contains("raw") {
                return ResponseTemplate::new(200).set_body_raw(bytes, "application/octet-stream");
            }
            let large = bytes.len() > 1_000_000;
            let content = if large {
                String::new()
            } else {
                // GitHub wraps the base64 at 60 columns.
                use base64::Engine;
                let packed = base64::engine::general_purpose::STANDARD.encode(&bytes);
                packed
                    .as_bytes()
                    .chunks(60)
                    .map(|c| String::from_utf8_lossy(c).into_owned() + "\n")
                    .collect()
            };
            ok(json!({
                "type": "file", "encoding": if large { "none" } else { "base64" },
                "size": bytes.len(), "name": path.rsplit('/').next(), "path": path,
                "content": content, "sha": format!("blob-{}", bytes.len()),
                "url": format!("https://api.github.com/repos/{}/contents/{path}?ref={git_ref}", s.full_name()),
                "download_url": null
            }))
        }
        _ => error(404, "Not Found"),
    }
}

fn enc(value: &str) -> String {
    const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(value, UNRESERVED).to_string()
}

fn decode(segment: &str) -> String {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8_lossy()
        .into_owned()
}

fn head_owner(pr: &PrSpec, s: &State) -> String {
    match &pr.head_repo {
        Some(full) if !full.is_empty() => full.split('/').next().unwrap_or_default().to_owned(),
        Some(_) => String::new(),
        None => s.owner.clone(),
    }
}

fn commit_page(s: &State, ctx: &Ctx<'_>, c: &CommitSpec) -> ResponseTemplate {
    let page = ctx
        .query("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let mut body = commit_json(s, c, true);
    let files: Vec<Value> = c
        .files
        .iter()
        .skip((page - 1) * FILES_PER_PAGE)
        .take(FILES_PER_PAGE)
        .map(file_json)
        .collect();
    body["files"] = Value::Array(files);
    let last = c.files.len().div_ceil(FILES_PER_PAGE).max(1);
    let r = ok(body);
    if page < last {
        r.insert_header(
            "link",
            format!(
                "<{}>; rel=\"next\", <{}>; rel=\"last\"",
                ctx.page_url(page + 1),
                ctx.page_url(last)
            )
            .as_str(),
        )
    } else {
        r
    }
}

fn runs_page(s: &State, ctx: &Ctx<'_>, workflow: Option<u64>) -> ResponseTemplate {
    let head_sha = ctx.query("head_sha");
    let event = ctx.query("event");
    let status = ctx.query("status");
    let mut runs: Vec<&RunSpec> = s
        .runs
        .iter()
        .filter(|r| workflow.is_none_or(|w| r.workflow_id == w))
        .filter(|r| head_sha.as_deref().is_none_or(|h| r.head_sha == h))
        .filter(|r| event.as_deref().is_none_or(|e| r.event == e))
        .filter(|r| {
            status
                .as_deref()
                .is_none_or(|st| r.status == st || r.conclusion.as_deref() == Some(st))
        })
        .collect();
    // Newest first, as GitHub lists them.
    runs.sort_by_key(|run| std::cmp::Reverse(run.id));
    let items = runs.into_iter().map(|r| run_json(s, r)).collect();
    paged(ctx, items, Some("workflow_runs"))
}

// ---- payloads --------------------------------------------------------------------------

fn login_id(login: &str) -> u64 {
    login
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        % 100_000_000
}

fn user_json(login: &str) -> Value {
    let id = login_id(login);
    json!({
        "login": login, "id": id, "node_id": format!("U_{id}"),
        "avatar_url": format!("https://avatars.githubusercontent.com/u/{id}?v=4"),
        "gravatar_id": "", "url": format!("https://api.github.com/users/{login}"),
        "html_url": format!("https://github.com/{login}"),
        "type": if login.ends_with("[bot]") { "Bot" } else { "User" },
        "user_view_type": "public", "site_admin": false
    })
}

fn opt_user(login: Option<&str>) -> Value {
    login.map_or(Value::Null, user_json)
}

fn repo_json(full_name: &str, fork: bool) -> Value {
    let (owner, name) = full_name.split_once('/').unwrap_or(("ghost", full_name));
    let id = login_id(full_name);
    json!({
        "id": id, "node_id": format!("R_{id}"), "name": name, "full_name": full_name,
        "private": false, "owner": user_json(owner),
        "html_url": format!("https://github.com/{full_name}"),
        "description": null, "fork": fork,
        "url": format!("https://api.github.com/repos/{full_name}"),
        "default_branch": "main", "visibility": "public"
    })
}

fn pr_json(s: &State, p: &PrSpec) -> Value {
    let full = s.full_name();
    let head_repo = match &p.head_repo {
        None => repo_json(&full, false),
        Some(f) if f.is_empty() => Value::Null,
        Some(f) => repo_json(f, true),
    };
    let head_owner = head_owner(p, s);
    let labels: Vec<Value> = s
        .issue_labels
        .get(&p.number)
        .map(|ls| ls.iter().map(|l| s.label_json(l)).collect())
        .unwrap_or_default();
    json!({
        "url": format!("https://api.github.com/repos/{full}/pulls/{}", p.number),
        "id": 1_000_000 + p.number, "node_id": format!("PR_{}", p.number),
        "html_url": format!("https://github.com/{full}/pull/{}", p.number),
        "number": p.number, "state": p.state, "locked": false, "title": p.title,
        "user": opt_user(p.user.as_deref()), "body": p.body,
        "labels": labels, "milestone": null, "draft": false,
        "created_at": "2026-11-25T09:00:00Z", "updated_at": "2026-11-25T10:00:00Z",
        "closed_at": null, "merged_at": null,
        "merge_commit_sha": format!("merge{}", p.head_sha),
        "assignee": null, "assignees": [], "requested_reviewers": [], "requested_teams": [],
        "head": {
            "label": format!("{head_owner}:{}", p.head_ref), "ref": p.head_ref, "sha": p.head_sha,
            "user": if head_owner.is_empty() { Value::Null } else { user_json(&head_owner) },
            "repo": head_repo
        },
        "base": {
            "label": format!("{}:{}", s.owner, p.base_ref), "ref": p.base_ref, "sha": p.base_sha,
            "user": user_json(&s.owner), "repo": repo_json(&full, false)
        },
        "author_association": "CONTRIBUTOR", "auto_merge": null, "active_lock_reason": null,
        "merged": false, "mergeable": null, "comments": 0, "review_comments": 0,
        "commits": p.commits.len(), "additions": 0, "deletions": 0, "changed_files": 0
    })
}

fn pr_as_issue_json(s: &State, p: &PrSpec) -> Value {
    let full = s.full_name();
    json!({
        "id": 2_000_000 + p.number, "number": p.number, "title": p.title,
        "user": opt_user(p.user.as_deref()), "state": p.state, "body": p.body,
        "labels": s.issue_labels.get(&p.number).map(|ls| ls.iter().map(|l| s.label_json(l)).collect::<Vec<_>>()).unwrap_or_default(),
        "html_url": format!("https://github.com/{full}/pull/{}", p.number),
        "pull_request": {
            "url": format!("https://api.github.com/repos/{full}/pulls/{}", p.number),
            "html_url": format!("https://github.com/{full}/pull/{}", p.number),
            "merged_at": null
        }
    })
}

fn commit_json(s: &State, c: &CommitSpec, with_stats: bool) -> Value {
    let full = s.full_name();
    let signature = json!({"name": c.author_name, "email": c.author_email, "date": c.date});
    let mut v = json!({
        "sha": c.sha, "node_id": format!("C_{}", c.sha),
        "commit": {
            "author": signature, "committer": signature, "message": c.message,
            "tree": {"sha": c.tree, "url": format!("https://api.github.com/repos/{full}/git/trees/{}", c.tree)},
            "url": format!("https://api.github.com/repos/{full}/git/commits/{}", c.sha),
            "comment_count": 0,
            "verification": {"verified": false, "reason": "unsigned", "signature": null, "payload": null}
        },
        "url": format!("https://api.github.com/repos/{full}/commits/{}", c.sha),
        "html_url": format!("https://github.com/{full}/commit/{}", c.sha),
        "author": opt_user(c.author_login.as_deref()),
        "committer": user_json("web-flow"),
        "parents": c.parents.iter().map(|p| json!({"sha": p, "url": format!("https://api.github.com/repos/{full}/commits/{p}")})).collect::<Vec<_>>()
    });
    if with_stats {
        let additions: u64 = c.files.iter().map(|f| f.additions).sum();
        let deletions: u64 = c.files.iter().map(|f| f.deletions).sum();
        v["stats"] =
            json!({"total": additions + deletions, "additions": additions, "deletions": deletions});
    }
    v
}

fn file_json(f: &FileSpec) -> Value {
    let mut v = json!({
        "sha": format!("blob-{}", f.filename.len()), "filename": f.filename, "status": f.status,
        "additions": f.additions, "deletions": f.deletions, "changes": f.additions + f.deletions,
        "blob_url": "https://github.com/blob", "raw_url": "https://github.com/raw",
        "contents_url": "https://api.github.com/contents"
    });
    if let Some(patch) = &f.patch {
        v["patch"] = json!(patch);
    }
    if let Some(prev) = &f.previous_filename {
        v["previous_filename"] = json!(prev);
    }
    v
}

fn run_json(s: &State, r: &RunSpec) -> Value {
    let full = s.full_name();
    let head_full = r.head_repo.clone().unwrap_or_else(|| full.clone());
    let prs: Vec<Value> = r
        .pull_requests
        .iter()
        .filter_map(|n| s.prs.get(n))
        .map(|p| {
            json!({
                "url": format!("https://api.github.com/repos/{full}/pulls/{}", p.number),
                "id": 1_000_000 + p.number, "number": p.number,
                "head": {"ref": p.head_ref, "sha": r.head_sha, "repo": {"id": 1, "url": "", "name": s.name}},
                "base": {"ref": p.base_ref, "sha": p.base_sha, "repo": {"id": 1, "url": "", "name": s.name}}
            })
        })
        .collect();
    json!({
        "id": r.id, "name": r.name, "node_id": format!("WFR_{}", r.id),
        "head_branch": r.head_branch, "head_sha": r.head_sha,
        "path": ".github/workflows/ci.yml", "display_title": "Agent PR",
        "run_number": r.id % 1000, "run_attempt": 1, "event": r.event,
        "status": r.status, "conclusion": r.conclusion, "workflow_id": r.workflow_id,
        "check_suite_id": r.id + 5, "url": format!("https://api.github.com/repos/{full}/actions/runs/{}", r.id),
        "html_url": format!("https://github.com/{full}/actions/runs/{}", r.id),
        "pull_requests": prs, "created_at": r.created_at, "updated_at": r.created_at,
        "actor": user_json("Copilot"), "triggering_actor": user_json("Copilot"),
        "run_started_at": r.created_at,
        "jobs_url": format!("https://api.github.com/repos/{full}/actions/runs/{}/jobs", r.id),
        "logs_url": format!("https://api.github.com/repos/{full}/actions/runs/{}/logs", r.id),
        "head_commit": null,
        "repository": repo_json(&full, false),
        "head_repository": repo_json(&head_full, head_full != full)
    })
}

fn job_json(s: &State, r: &RunSpec, j: &JobSpec) -> Value {
    let full = s.full_name();
    json!({
        "id": j.id, "run_id": r.id, "workflow_name": r.name, "head_branch": r.head_branch,
        "run_url": format!("https://api.github.com/repos/{full}/actions/runs/{}", r.id),
        "run_attempt": 1, "node_id": format!("CR_{}", j.id), "head_sha": r.head_sha,
        "url": format!("https://api.github.com/repos/{full}/actions/jobs/{}", j.id),
        "html_url": format!("https://github.com/{full}/actions/runs/{}/job/{}", r.id, j.id),
        "status": "completed", "conclusion": j.conclusion,
        "created_at": r.created_at, "started_at": r.created_at, "completed_at": r.created_at,
        "name": j.name,
        "steps": [
            {"name": "Set up job", "status": "completed", "conclusion": "success", "number": 1},
            {"name": "Run tests", "status": "completed", "conclusion": j.conclusion, "number": 2}
        ],
        "labels": ["ubuntu-latest"], "runner_id": null, "runner_name": null
    })
}

fn comment_json(s: &State, c: &FakeComment) -> Value {
    let full = s.full_name();
    json!({
        "id": c.id, "node_id": format!("IC_{}", c.id),
        "url": format!("https://api.github.com/repos/{full}/issues/comments/{}", c.id),
        "html_url": format!("https://github.com/{full}/pull/{}#issuecomment-{}", c.issue, c.id),
        "body": c.body, "user": opt_user(c.author.as_deref()),
        "created_at": c.created_at, "updated_at": c.updated_at,
        "issue_url": format!("https://api.github.com/repos/{full}/issues/{}", c.issue),
        "author_association": "NONE", "performed_via_github_app": null
    })
}

fn issue_json(s: &State, i: &FakeIssue) -> Value {
    let full = s.full_name();
    json!({
        "id": 3_000_000 + i.number, "node_id": format!("I_{}", i.number),
        "url": format!("https://api.github.com/repos/{full}/issues/{}", i.number),
        "html_url": format!("https://github.com/{full}/issues/{}", i.number),
        "number": i.number, "state": i.state, "title": i.title, "body": i.body,
        "user": opt_user(i.author.as_deref()),
        "labels": i.labels.iter().map(|l| s.label_json(l)).collect::<Vec<_>>(),
        "assignee": null, "assignees": [], "milestone": null, "locked": false,
        "comments": 0, "closed_at": null,
        "created_at": "2026-11-25T10:00:00Z", "updated_at": now_rfc3339(),
        "author_association": "NONE", "state_reason": null
    })
}

/// The distinct paths (without query) requested, for quick assertions.
pub fn paths(requests: &[RecordedRequest]) -> BTreeSet<String> {
    requests
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}
