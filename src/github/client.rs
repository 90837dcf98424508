//! The GitHub REST client: synchronous HTTP (ureq, rustls) with loopguard's own retry loop,
//! rate-limit handling, pagination, redirects, deadlines and dry-run.
//!
//! Why a small client of our own rather than octocrab: loopguard needs the parts a typed
//! client hides — `Retry-After` and the rate-limit headers read on every answer, a write
//! never resent blindly after an ambiguous failure, the job-log redirect followed without
//! the token, an overall deadline per request and per run — and the payloads are typed once
//! in the core (`loopguard_core::github`), which must not depend on an HTTP stack. octocrab
//! brought tokio, hyper and tower (about 67 crates) to carry requests ureq carries alone.

use std::io::Read;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http::{HeaderMap, Method, StatusCode, Uri};
use serde::de::DeserializeOwned;

use super::dry_run::PlannedWrite;
use super::error::{Failure, GitHubError, LinkProblem, TransportError};
use super::paging::{PageShape, last_page, next_link, with_per_page};
use super::permissions::Permission;
use super::retry::{Pacer, ResponseFacts, RetryPolicy, Verdict};
use super::types::RepoId;

/// Largest JSON body read.
const MAX_JSON_BYTES: usize = 64 << 20;
/// Largest job log kept; longer logs keep their tail, where failures are summarised.
pub const MAX_LOG_BYTES: usize = 32 << 20;
/// Redirect hops followed for a job log.
const MAX_REDIRECTS: usize = 3;

/// The GitHub REST client `loopguard ci` uses: synchronous, retrying, paginating, and in
/// dry-run mode recording its writes instead of sending them.
pub struct GitHubClient {
    pub(super) agent: ureq::Agent,
    /// `Bearer …`, sent only to the API host.
    pub(super) authorization: Option<String>,
    pub(super) api_uri: Uri,
    pub(super) api_url: String,
    pub(super) server_url: String,
    /// Kept only to scrub it from error messages.
    pub(super) secret: Option<String>,
    pub(super) repo: RepoId,
    pub(super) dry_run: bool,
    pub(super) planned: Mutex<Vec<PlannedWrite>>,
    pub(super) policy: RetryPolicy,
    pub(super) pacer: Pacer,
    pub(super) page_cap: usize,
    pub(super) requests: AtomicU64,
    /// When every request and wait of this client must be over.
    pub(super) deadline: Instant,
    /// How long the run was given (for messages).
    pub(super) run_deadline: Duration,
    pub(super) request_deadline: Duration,
}

impl std::fmt::Debug for GitHubClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHubClient")
            .field("api_url", &self.api_url)
            .field("server_url", &self.server_url)
            .field("repo", &self.repo)
            .field("token", &self.secret.as_ref().map(|_| "***"))
            .field("dry_run", &self.dry_run)
            .field("requests", &self.requests_sent())
            .finish_non_exhaustive()
    }
}

/// One request as the retry loop sees it.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub method: Method,
    /// Relative to the API root, with its query; or absolute (a `next` link).
    pub path: String,
    pub body: Option<String>,
    pub accept: &'static str,
    /// The permission named when GitHub answers "not accessible by integration".
    pub permission: Permission,
}

impl Call {
    pub(crate) fn get(path: impl Into<String>, permission: Permission) -> Self {
        Call {
            method: Method::GET,
            path: path.into(),
            body: None,
            accept: "application/vnd.github+json",
            permission,
        }
    }

    pub(crate) fn with_json(
        method: Method,
        path: impl Into<String>,
        body: &serde_json::Value,
        permission: Permission,
    ) -> Self {
        Call {
            method,
            path: path.into(),
            body: Some(body.to_string()),
            accept: "application/vnd.github+json",
            permission,
        }
    }

    fn is_write(&self) -> bool {
        self.method != Method::GET && self.method != Method::HEAD
    }

    /// `METHOD /path` without the query, for messages.
    pub(super) fn label(&self) -> String {
        let path = self.path.split('?').next().unwrap_or_default();
        let path = path
            .parse::<Uri>()
            .ok()
            .filter(|u| u.authority().is_some())
            .map_or_else(|| path.to_owned(), |u| u.path().to_owned());
        format!("{} {path}", self.method)
    }
}

/// A response, read whole.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    /// Only part of the body was kept (logs keep their tail).
    pub truncated: bool,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn facts(&self) -> ResponseFacts {
        let number = |name: &str| self.header(name).and_then(|v| v.trim().parse::<u64>().ok());
        let now = self
            .header("date")
            .and_then(|d| jiff::fmt::rfc2822::parse(d).ok())
            .map(|z| z.timestamp().as_second().max(0).unsigned_abs())
            .unwrap_or_else(unix_now);
        ResponseFacts {
            status: self.status,
            retry_after: number("retry-after"),
            ratelimit_remaining: number("x-ratelimit-remaining"),
            ratelimit_reset: number("x-ratelimit-reset"),
            now,
            message: github_message(&self.body).to_lowercase(),
        }
    }
}

/// Our clock, where the answer has no `Date`: the system's, as GitHub's limits are.
fn unix_now() -> u64 {
    crate::settings::wall_clock()
        .as_second()
        .max(0)
        .unsigned_abs()
}

/// GitHub's `message` from an error body, else the start of the body; one line, bounded.
fn github_message(body: &[u8]) -> String {
    let raw = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned());
    let line: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    line.trim().to_owned()
}

/// How one attempt ended, if not with a usable reply.
pub(crate) enum AttemptError {
    Retry {
        wait: Duration,
        ambiguous: bool,
        /// What went wrong, for the message when no retry fits in the run's deadline.
        why: Failure,
    },
    /// No retry; `ambiguous` when a write may still have been applied.
    Fatal { error: GitHubError, ambiguous: bool },
}

impl GitHubClient {
    pub fn repo(&self) -> &RepoId {
        &self.repo
    }

    pub fn api_url(&self) -> &str {
        &self.api_url
    }

    pub fn server_url(&self) -> &str {
        &self.server_url
    }

    pub fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    /// The writes a dry run would have made, in order.
    pub fn planned_writes(&self) -> Vec<PlannedWrite> {
        self.planned
            .lock()
            .expect("no thread panics while holding the plan lock")
            .clone()
    }

    /// HTTP requests sent so far (every attempt, page and redirect hop counts).
    pub fn requests_sent(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// The waits the retry loop asked for so far, unscaled.
    pub fn retry_waits(&self) -> Vec<Duration> {
        self.pacer.waits()
    }

    /// `/repos/{owner}/{repo}`, the prefix of most paths.
    pub(crate) fn repo_path(&self) -> String {
        format!("/repos/{}/{}", self.repo.owner, self.repo.name)
    }

    /// Replaces the token wherever it might appear.
    fn scrub(&self, message: String) -> String {
        match &self.secret {
            Some(secret) if message.contains(secret.as_str()) => {
                message.replace(secret.as_str(), "***")
            }
            _ => message,
        }
    }

    /// The request's label and GitHub's message, scrubbed of the token.
    fn scrubbed(&self, call: &Call, message: &str) -> (String, String) {
        (self.scrub(call.label()), self.scrub(message.to_owned()))
    }

    /// Sends a request and reads the body (keeping at most `limit` bytes, the tail when
    /// `keep_tail`), with the token only when `external` is false, within the request
    /// deadline and what is left of the run's.
    fn transport(
        &self,
        call: &Call,
        external: bool,
        limit: usize,
        keep_tail: bool,
    ) -> Result<Reply, TransportError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(TransportError::RunOver {
                run: self.run_deadline,
            });
        }
        let url = if call.path.starts_with("http://") || call.path.starts_with("https://") {
            call.path.clone()
        } else {
            format!("{}{}", self.api_url, call.path)
        };
        let mut request = http::Request::builder()
            .method(call.method.clone())
            .uri(url.as_str())
            .header(http::header::ACCEPT, call.accept)
            .header("x-github-api-version", "2022-11-28")
            .header(
                http::header::USER_AGENT,
                concat!("loopguard/", env!("CARGO_PKG_VERSION")),
            );
        if !external && let Some(auth) = &self.authorization {
            request = request.header(http::header::AUTHORIZATION, auth.as_str());
        }
        if call.body.is_some() {
            request = request.header(http::header::CONTENT_TYPE, "application/json");
        }
        let request = request
            .body(call.body.clone().unwrap_or_default())
            .map_err(|e| TransportError::Invalid(e.to_string()))?;
        let deadline = self.request_deadline.min(left);
        // Said once the attempt ran out of time: its own deadline, or the run's.
        let timed_out = || TransportError::TimedOut {
            deadline,
            run: (deadline < self.request_deadline).then_some(self.run_deadline),
        };
        let config = self
            .agent
            .configure_request(request)
            .timeout_global(Some(deadline))
            .build();
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut response = self.agent.run(config).map_err(|e| match e {
            ureq::Error::Timeout(_) => timed_out(),
            e => TransportError::Failed(self.scrub(error_chain(e))),
        })?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let mut reader = response.body_mut().with_config().reader();
        let mut buf: Vec<u8> = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        let mut truncated = false;
        loop {
            let n = match reader.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return Err(timed_out()),
                Err(e) => return Err(TransportError::Failed(self.scrub(error_chain(e)))),
            };
            buf.extend_from_slice(&chunk[..n]);
            if buf.len() > limit {
                if !keep_tail {
                    return Err(TransportError::TooLarge { limit });
                }
                // Amortised: drop the head only once it is twice the budget.
                if buf.len() > 2 * limit {
                    buf.drain(..buf.len() - limit);
                }
                truncated = true;
            }
        }
        if buf.len() > limit {
            buf.drain(..buf.len() - limit);
        }
        Ok(Reply {
            status,
            headers,
            body: buf,
            truncated,
        })
    }

    /// One attempt of `call` (the `attempt`-th, 1-based). Statuses in `pass` come back as
    /// replies for the caller to interpret.
    pub(crate) fn attempt(
        &self,
        call: &Call,
        attempt: u32,
        pass: &[u16],
    ) -> Result<Reply, AttemptError> {
        if Instant::now() >= self.deadline {
            return Err(AttemptError::Fatal {
                error: GitHubError::RunDeadline {
                    request: self.scrub(call.label()),
                    deadline: self.run_deadline,
                    last: None,
                    wait: None,
                },
                ambiguous: false,
            });
        }
        if call.is_write() {
            self.pacer.before_write(self.policy.write_gap);
        }
        let reply = self
            .transport(call, false, MAX_JSON_BYTES, false)
            .map_err(|failure| self.after_transport_failure(call, attempt, failure))?;
        if (200..300).contains(&reply.status) {
            return Ok(reply);
        }
        self.after_status(call, attempt, pass, reply)
    }

    /// The verdict on an attempt that got no complete answer.
    fn after_transport_failure(
        &self,
        call: &Call,
        attempt: u32,
        failure: TransportError,
    ) -> AttemptError {
        let gave_up = match self.policy.decide_connection(attempt, fastrand::f64()) {
            Verdict::Retry { wait, .. } => {
                return AttemptError::Retry {
                    wait,
                    ambiguous: call.is_write(),
                    why: Failure::Transport(failure),
                };
            }
            Verdict::GiveUp(gave_up) => gave_up,
        };
        let request = self.scrub(call.label());
        let error = match failure {
            TransportError::TimedOut {
                deadline,
                run: None,
            } => GitHubError::Timeout {
                request,
                deadline,
                gave_up,
            },
            TransportError::TimedOut { run: Some(_), .. } | TransportError::RunOver { .. } => {
                GitHubError::RunDeadline {
                    request,
                    deadline: self.run_deadline,
                    last: Some(Failure::Transport(failure)),
                    wait: None,
                }
            }
            TransportError::Failed(_)
            | TransportError::TooLarge { .. }
            | TransportError::Invalid(_) => GitHubError::Connection {
                request,
                failure,
                gave_up,
            },
        };
        AttemptError::Fatal {
            error,
            ambiguous: call.is_write(),
        }
    }

    /// The verdict on an answer that is not a success: passed to the caller, retried, or
    /// the error it is.
    fn after_status(
        &self,
        call: &Call,
        attempt: u32,
        pass: &[u16],
        reply: Reply,
    ) -> Result<Reply, AttemptError> {
        let facts = reply.facts();
        let throttled = facts.is_primary_rate_limit()
            || facts.is_secondary_rate_limit()
            || reply.status == 429
            || (reply.status == 403 && facts.retry_after.is_some());
        // A passed status still goes through the retry rules when it is a throttle or
        // a server error: `/user` passes 403, but not a rate-limited 403.
        if pass.contains(&reply.status) && !throttled && reply.status < 500 {
            return Ok(reply);
        }
        let (request, message) = self.scrubbed(call, &github_message(&reply.body));
        let status = reply.status;
        let fatal = |error| AttemptError::Fatal {
            error,
            ambiguous: false,
        };
        if facts.is_not_accessible_by_integration() {
            return Err(fatal(GitHubError::Forbidden {
                request,
                message,
                permission: call.permission,
            }));
        }
        if status == 401 {
            return Err(fatal(GitHubError::Unauthorized {
                request,
                status,
                message,
            }));
        }
        match self.policy.decide(&facts, attempt, fastrand::f64()) {
            Verdict::Retry { wait, cause } => Err(AttemptError::Retry {
                wait,
                ambiguous: call.is_write() && cause.is_ambiguous_for_writes(),
                why: Failure::Status {
                    status,
                    cause: cause.describe(),
                },
            }),
            Verdict::GiveUp(gave_up) => Err(AttemptError::Fatal {
                error: if gave_up.is_rate_limit() {
                    GitHubError::RateLimited {
                        request,
                        status,
                        message,
                        gave_up,
                    }
                } else {
                    GitHubError::Status {
                        request,
                        status,
                        message,
                        gave_up,
                    }
                },
                ambiguous: call.is_write() && status >= 500,
            }),
        }
    }

    /// Waits before a retry, unless the wait (and a retry after it) would pass the run's
    /// deadline; `why` is what the last attempt met.
    fn wait(&self, wait: Duration, call: &Call, why: Failure) -> Result<(), GitHubError> {
        let scaled = wait.mul_f64(self.pacer.scale());
        let now = Instant::now();
        if now >= self.deadline || now + scaled > self.deadline {
            return Err(GitHubError::RunDeadline {
                request: self.scrub(call.label()),
                deadline: self.run_deadline,
                last: Some(why),
                wait: (now < self.deadline).then_some(wait),
            });
        }
        self.pacer.sleep(wait);
        Ok(())
    }

    /// Sends `call`, retrying as the policy allows; statuses in `pass` are returned.
    pub(crate) fn send(&self, call: &Call, pass: &[u16]) -> Result<Reply, GitHubError> {
        let mut attempt = 1;
        loop {
            match self.attempt(call, attempt, pass) {
                Ok(reply) => return Ok(reply),
                Err(AttemptError::Retry { wait, why, .. }) => self.wait(wait, call, why)?,
                Err(AttemptError::Fatal { error, .. }) => return Err(error),
            }
            attempt += 1;
        }
    }

    /// Sends a write, or in dry-run mode records it and returns `None`.
    pub(crate) fn write(
        &self,
        call: &Call,
        summary: String,
        pass: &[u16],
    ) -> Result<Option<Reply>, GitHubError> {
        if self.record_if_dry(call, summary) {
            return Ok(None);
        }
        self.send(call, pass).map(Some)
    }

    /// In dry-run mode, records `call` and answers `true`.
    pub(crate) fn record_if_dry(&self, call: &Call, summary: String) -> bool {
        if self.dry_run {
            self.planned
                .lock()
                .expect("no thread panics while holding the plan lock")
                .push(PlannedWrite {
                    method: call.method.to_string(),
                    path: call.path.clone(),
                    summary,
                });
        }
        self.dry_run
    }

    /// A create that must not be duplicated: after an attempt that may have been applied
    /// (5xx, broken connection), `recheck` looks for the created object before resending.
    pub(crate) fn create_once<T>(
        &self,
        call: &Call,
        decode: impl Fn(&Reply) -> Result<T, GitHubError>,
        recheck: impl Fn(&Self) -> Result<Option<T>, GitHubError>,
    ) -> Result<T, GitHubError> {
        let mut attempt = 1;
        let mut ambiguous = false;
        loop {
            if ambiguous && let Some(found) = recheck(self)? {
                return Ok(found);
            }
            match self.attempt(call, attempt, &[]) {
                Ok(reply) => return decode(&reply),
                Err(AttemptError::Retry {
                    wait,
                    ambiguous: maybe_applied,
                    why,
                }) => {
                    ambiguous |= maybe_applied;
                    self.wait(wait, call, why)?;
                }
                Err(AttemptError::Fatal {
                    error,
                    ambiguous: maybe_applied,
                }) => {
                    if (ambiguous || maybe_applied)
                        && let Some(found) = recheck(self)?
                    {
                        return Ok(found);
                    }
                    return Err(error);
                }
            }
            attempt += 1;
        }
    }

    /// Decodes a JSON reply, naming the endpoint and the field on failure.
    pub(crate) fn decode<T: DeserializeOwned>(
        &self,
        call: &Call,
        reply: &Reply,
    ) -> Result<T, GitHubError> {
        let de = &mut serde_json::Deserializer::from_slice(&reply.body);
        serde_path_to_error::deserialize(de).map_err(|e| GitHubError::Payload {
            request: self.scrub(call.label()),
            at: e.path().to_string(),
            reason: self.scrub(e.inner().to_string()),
        })
    }

    /// Every item of a paged listing (`per_page=100`, `Link: rel="next"`), bounded by
    /// the page cap.
    pub(crate) fn get_paged<T: DeserializeOwned>(
        &self,
        path: &str,
        shape: PageShape,
        permission: Permission,
        pass: &[u16],
    ) -> Result<Paged<T>, GitHubError> {
        let mut call = Call::get(with_per_page(path), permission);
        let mut items = Vec::new();
        for _ in 0..self.page_cap {
            let reply = self.send(&call, pass)?;
            if !(200..300).contains(&reply.status) {
                return Ok(Paged::Status(reply.status));
            }
            let page: Vec<T> = match shape {
                PageShape::Array => self.decode(&call, &reply)?,
                PageShape::Field(field) => {
                    let mut value: serde_json::Value = self.decode(&call, &reply)?;
                    let list = value
                        .get_mut(field)
                        .map(serde_json::Value::take)
                        .unwrap_or(serde_json::Value::Array(Vec::new()));
                    let list = if list.is_null() {
                        serde_json::Value::Array(Vec::new())
                    } else {
                        list
                    };
                    serde_path_to_error::deserialize(list).map_err(|e| GitHubError::Payload {
                        request: self.scrub(call.label()),
                        at: format!("{field}.{}", e.path()),
                        reason: self.scrub(e.inner().to_string()),
                    })?
                }
            };
            items.extend(page);
            match reply.header("link").and_then(next_link) {
                None => return Ok(Paged::Items(items)),
                Some(next) => {
                    self.check_same_origin(&call, &next)?;
                    call.path = next;
                }
            }
        }
        Err(GitHubError::TooManyPages {
            request: self.scrub(call.label()),
            pages: self.page_cap,
        })
    }

    /// A paged listing read page by page (`per_page=100`): after each page `more` is
    /// told the page's items and the number of the last page (from `rel="last"`, when
    /// GitHub gives it) and says whether to read on. Bounded by the page cap, or by
    /// `max_pages` when that is higher (a caller that bounds the listing itself). The flag
    /// says whether pages were left unread.
    pub(crate) fn list_pages<T: DeserializeOwned>(
        &self,
        path: &str,
        permission: Permission,
        max_pages: usize,
        mut more: impl FnMut(&[T], Option<usize>) -> bool,
    ) -> Result<(Vec<T>, bool), GitHubError> {
        let mut call = Call::get(with_per_page(path), permission);
        let mut items = Vec::new();
        let cap = self.page_cap.max(max_pages);
        for _ in 0..cap {
            let reply = self.send(&call, &[])?;
            let page: Vec<T> = self.decode(&call, &reply)?;
            let link = reply.header("link").map(str::to_owned);
            let last = link.as_deref().and_then(last_page);
            let go_on = more(&page, last);
            items.extend(page);
            match link.as_deref().and_then(next_link) {
                Some(next) if go_on => {
                    self.check_same_origin(&call, &next)?;
                    call.path = next;
                }
                Some(_) => return Ok((items, true)),
                None => return Ok((items, false)),
            }
        }
        Err(GitHubError::TooManyPages {
            request: self.scrub(call.label()),
            pages: cap,
        })
    }

    /// Every item of a paged listing, no status passed through.
    pub(crate) fn list<T: DeserializeOwned>(
        &self,
        path: &str,
        shape: PageShape,
        permission: Permission,
    ) -> Result<Vec<T>, GitHubError> {
        match self.get_paged(path, shape, permission, &[])? {
            Paged::Items(items) => Ok(items),
            Paged::Status(status) => Err(GitHubError::UnexpectedStatus {
                request: self.scrub(format!("GET {path}")),
                status,
            }),
        }
    }

    /// A `next` link must stay on the API host: the token goes only there.
    pub(crate) fn check_same_origin(&self, call: &Call, next: &str) -> Result<(), GitHubError> {
        let bad = |problem| GitHubError::BadLink {
            request: self.scrub(call.label()),
            problem,
        };
        let uri: Uri = next
            .parse()
            .map_err(|_| bad(LinkProblem::InvalidNext(self.scrub(next.to_owned()))))?;
        if uri.authority().is_none()
            || (uri.scheme() == self.api_uri.scheme()
                && uri.authority() == self.api_uri.authority())
        {
            Ok(())
        } else {
            Err(bad(LinkProblem::NextLeavesHost(
                self.scrub(next.to_owned()),
            )))
        }
    }

    /// Follows a redirect for a download: on the API host with the token, anywhere else
    /// without it. 5xx and connection errors are retried; `pass` statuses come back.
    pub(crate) fn download(
        &self,
        first: &Call,
        limit: usize,
        pass: &[u16],
    ) -> Result<Reply, GitHubError> {
        let mut reply = self.send(first, &[301, 302, 303, 307, 308, 404, 410])?;
        let mut hops = 0;
        let bad = |problem| GitHubError::BadLink {
            request: self.scrub(first.label()),
            problem,
        };
        while matches!(reply.status, 301 | 302 | 303 | 307 | 308) {
            hops += 1;
            let location = reply
                .header("location")
                .map(str::to_owned)
                .filter(|_| hops <= MAX_REDIRECTS)
                .ok_or_else(|| bad(LinkProblem::RedirectWithoutLocation))?;
            let target: Uri = location
                .parse()
                .map_err(|_| bad(LinkProblem::InvalidRedirect))?;
            let same_host = target.authority().is_none()
                || (target.scheme() == self.api_uri.scheme()
                    && target.authority() == self.api_uri.authority());
            let hop = Call::get(location, first.permission);
            reply = self.follow(first, &hop, !same_host, limit)?;
        }
        if (200..300).contains(&reply.status) || pass.contains(&reply.status) {
            Ok(reply)
        } else {
            Err(GitHubError::UnexpectedStatus {
                request: self.scrub(first.label()),
                status: reply.status,
            })
        }
    }

    /// One redirect hop of a download, retried on 5xx and connection errors. The host
    /// may not be GitHub's API and its URL carries a signature, so errors name only the
    /// endpoint that redirected (`first`).
    fn follow(
        &self,
        first: &Call,
        hop: &Call,
        external: bool,
        limit: usize,
    ) -> Result<Reply, GitHubError> {
        let mut attempt = 1;
        loop {
            let (verdict, failure) = match self.transport(hop, external, limit, true) {
                Ok(r) if r.status < 500 => return Ok(r),
                Ok(r) => (
                    self.policy.decide(&r.facts(), attempt, fastrand::f64()),
                    Failure::Answered { status: r.status },
                ),
                Err(e) => (
                    self.policy.decide_connection(attempt, fastrand::f64()),
                    Failure::Transport(e),
                ),
            };
            match verdict {
                Verdict::Retry { wait, .. } => self.wait(wait, first, failure)?,
                Verdict::GiveUp(gave_up) => {
                    return Err(GitHubError::Download {
                        request: self.scrub(first.label()),
                        failure,
                        gave_up,
                    });
                }
            }
            attempt += 1;
        }
    }
}

/// The result of a paged listing whose first page may answer a passed status.
pub(crate) enum Paged<T> {
    Items(Vec<T>),
    Status(u16),
}

/// A duration as the deadlines are written: `30s`, `10m`, `2h`, `90s`.
pub(super) fn human(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        format!("{}ms", d.as_millis())
    } else if secs.is_multiple_of(3600) {
        format!("{}h", secs / 3600)
    } else if secs.is_multiple_of(60) {
        format!("{}m", secs / 60)
    } else {
        format!("{secs}s")
    }
}

pub(super) fn status_text(status: u16) -> String {
    match StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(reason) => format!("{status} {reason}"),
        None => status.to_string(),
    }
}

/// An error and its causes on one line.
fn error_chain(err: impl std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(headers: &[(&str, &str)], body: &str) -> Reply {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.insert(
                http::header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        Reply {
            status: 403,
            headers: map,
            body: body.as_bytes().to_vec(),
            truncated: false,
        }
    }

    #[test]
    fn facts_read_github_headers_and_the_server_clock() {
        let r = reply(
            &[
                ("date", "Wed, 25 Nov 2026 10:00:00 GMT"),
                ("retry-after", "7"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "1795600000"),
            ],
            r#"{"message":"API rate limit exceeded for installation ID 1."}"#,
        );
        let f = r.facts();
        assert_eq!(f.now, 1_795_600_800, "the server's Date, not ours");
        assert_eq!(f.retry_after, Some(7));
        assert_eq!(f.ratelimit_remaining, Some(0));
        assert_eq!(f.ratelimit_reset, Some(1_795_600_000));
        assert_eq!(f.message, "api rate limit exceeded for installation id 1.");
        assert!(f.is_primary_rate_limit());
    }

    #[test]
    fn deadlines_are_written_as_they_are_set() {
        let cases = [(30, "30s"), (90, "90s"), (600, "10m"), (7200, "2h")];
        for (secs, shown) in cases {
            assert_eq!(human(Duration::from_secs(secs)), shown);
        }
        assert_eq!(human(Duration::from_millis(250)), "250ms");
    }

    #[test]
    fn error_messages_are_one_bounded_line() {
        assert_eq!(github_message(br#"{"message":"a\nb"}"#), "a b");
        assert_eq!(
            github_message(b"<html>\r\n502</html>"),
            "<html>  502</html>"
        );
        assert_eq!(github_message(&[b'x'; 1000]).len(), 200);
    }
}
