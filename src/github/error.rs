//! What can go wrong talking to GitHub, as values: the transport's failures (a timeout
//! with its request and deadline, the run's deadline, a broken connection), GitHub's
//! answers (a refused token, a missing permission, a rate limit, any other status), and
//! the files of the Actions runtime. Each names the request (`METHOD /path`) and says how
//! to fix it in [`GitHubError::hint`]; `crate::error` maps each variant to its exit code.
//! Text that came from GitHub is scrubbed of the token before it is put in one.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use loopguard_core::github::sticky::StickyError;

use super::client::{human, status_text};
use super::permissions::{Permission, permissions_hint};
use super::retry::GiveUp;
use crate::settings::{REQUEST_DEADLINE_ENV, RUN_DEADLINE_ENV};

/// How one attempt of a request failed before GitHub answered it whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// No complete answer within `deadline`; `run` is the run's deadline when that is what
    /// cut the attempt short.
    TimedOut {
        deadline: Duration,
        run: Option<Duration>,
    },
    /// The run's deadline (`run`) had passed before the attempt.
    RunOver { run: Duration },
    /// The connection failed (the error and its causes, on one line).
    Failed(String),
    /// The answer was larger than loopguard reads.
    TooLarge { limit: usize },
    /// The request could not be made (a URL that is not one).
    Invalid(String),
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::TimedOut { run: Some(run), .. } => {
                write!(f, "no complete answer before {}", run_deadline(*run))
            }
            TransportError::TimedOut {
                deadline,
                run: None,
            } => write!(f, "no complete answer within {}", human(*deadline)),
            TransportError::RunOver { run } => write!(f, "{} has passed", run_deadline(*run)),
            TransportError::Failed(why) => f.write_str(why),
            TransportError::TooLarge { limit } => write!(f, "response larger than {limit} bytes"),
            TransportError::Invalid(why) => write!(f, "invalid request: {why}"),
        }
    }
}

impl TransportError {
    /// Whether the run's deadline is what ended it.
    fn ended_by_the_run(&self) -> bool {
        matches!(
            self,
            TransportError::RunOver { .. } | TransportError::TimedOut { run: Some(_), .. }
        )
    }
}

/// What the last attempt of a request met, when a retry would have come next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    Transport(TransportError),
    /// A status the retry policy retries (5xx, a rate limit), and why it does.
    Status {
        status: u16,
        cause: &'static str,
    },
    /// A status, where the answer came from someone other than GitHub's API.
    Answered {
        status: u16,
    },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Transport(t) => t.fmt(f),
            Failure::Status { status, cause } => write!(f, "{} ({cause})", status_text(*status)),
            Failure::Answered { status } => f.write_str(&status_text(*status)),
        }
    }
}

/// "the run's deadline (10m, LOOPGUARD_CI_DEADLINE)".
pub(super) fn run_deadline(run: Duration) -> String {
    format!("the run's deadline ({}, {RUN_DEADLINE_ENV})", human(run))
}

/// A request to GitHub, or a file of the Actions runtime, that failed.
#[derive(Debug, thiserror::Error)]
pub enum GitHubError {
    /// Every attempt timed out: none had a complete answer within `deadline`.
    #[error("github api: {request}: {gave_up}: no complete answer within {}", human(*deadline))]
    Timeout {
        request: String,
        deadline: Duration,
        gave_up: GiveUp,
    },
    /// The run's deadline (`deadline`) passed: before the request was sent (`last` is
    /// `None`), or after an attempt that failed with `last`, while a retry would have
    /// waited `wait` more.
    #[error("github api: {request}: {}", past_deadline(*deadline, last.as_ref(), *wait))]
    RunDeadline {
        request: String,
        deadline: Duration,
        last: Option<Failure>,
        wait: Option<Duration>,
    },
    /// The connection failed on every attempt.
    #[error("github api: {request}: {gave_up}: {failure}")]
    Connection {
        request: String,
        failure: TransportError,
        gave_up: GiveUp,
    },
    /// GitHub refused the token (401).
    #[error("github api: {request}: {}: {message}", status_text(*status))]
    Unauthorized {
        request: String,
        status: u16,
        message: String,
    },
    /// The workflow token lacks a permission (403 "Resource not accessible by
    /// integration").
    #[error("github api: {request}: 403 Forbidden: {message}{}", lacks(*permission))]
    Forbidden {
        request: String,
        message: String,
        permission: Permission,
    },
    /// A rate limit retrying could not wait out.
    #[error("github api: {request}: {}{}{} ({gave_up})", status_text(*status), colon(message), message)]
    RateLimited {
        request: String,
        status: u16,
        message: String,
        gave_up: GiveUp,
    },
    /// Any other status GitHub answered with, after the retries it allows.
    #[error("github api: {request}: {}{}{}{}", status_text(*status), colon(message), message, why(*status, gave_up))]
    Status {
        request: String,
        status: u16,
        message: String,
        gave_up: GiveUp,
    },
    /// A status the endpoint does not answer with (a listing, a download).
    #[error("github api: {request}: unexpected {}", status_text(*status))]
    UnexpectedStatus { request: String, status: u16 },
    /// The answer is not the payload the endpoint documents (`at`: the field).
    #[error("github api: {request}: unexpected payload at `{at}`: {reason}")]
    Payload {
        request: String,
        at: String,
        reason: String,
    },
    /// A listing longer than loopguard reads.
    #[error("github api: {request}: more than {pages} pages; refusing to read further")]
    TooManyPages { request: String, pages: usize },
    /// A `next` link or a redirect that cannot be followed.
    #[error("github api: {request}: {problem}")]
    BadLink {
        request: String,
        problem: LinkProblem,
    },
    /// A download (a job's log) failed where it was redirected to.
    #[error("github api: {request}: download failed: {failure} ({gave_up})")]
    Download {
        request: String,
        failure: Failure,
        gave_up: GiveUp,
    },
    /// What the contents API gave is not a file (`kind`: `dir`, `symlink`, …).
    #[error("`{path}` at `{git_ref}` is a {kind}, not a file")]
    NotAFile {
        path: String,
        git_ref: String,
        kind: String,
    },
    /// A file from the contents API whose content does not decode.
    #[error("github api: {request}: invalid base64 content: {reason}")]
    BadContent { request: String, reason: String },
    /// loopguard's state does not fit its comment (`pr`: the PR whose comment it is).
    #[error("#{pr}: {source}")]
    Sticky {
        pr: u64,
        #[source]
        source: StickyError,
    },
    /// A file of the Actions runtime (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`) cannot be
    /// written.
    #[error("{var} ({}): cannot write", path.display())]
    ActionsFile {
        var: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// An output loopguard cannot write as GitHub reads outputs.
    #[error("output `{name}`: {problem}")]
    BadOutput { name: String, problem: &'static str },
    /// The event payload file cannot be read.
    #[error("GITHUB_EVENT_PATH ({}): cannot read", path.display())]
    EventFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The trigger (the `GITHUB_*` variables and the payload) is not one loopguard reads.
    #[error(transparent)]
    Event(#[from] loopguard_core::error::EventError),
}

/// A link GitHub gave that loopguard does not follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkProblem {
    /// A `next` link that does not parse.
    InvalidNext(String),
    /// A `next` link to another host (the token goes only to the API host).
    NextLeavesHost(String),
    /// A redirect without a `location`, or past the hops loopguard follows.
    RedirectWithoutLocation,
    /// A redirect whose target does not parse.
    InvalidRedirect,
}

impl fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkProblem::InvalidNext(link) => write!(f, "invalid next link `{link}`"),
            LinkProblem::NextLeavesHost(link) => {
                write!(f, "next link leaves the API host: `{link}`")
            }
            LinkProblem::RedirectWithoutLocation => {
                f.write_str("redirect without a usable location")
            }
            LinkProblem::InvalidRedirect => f.write_str("invalid redirect target"),
        }
    }
}

impl GitHubError {
    /// How to fix it.
    pub fn hint(&self) -> Option<String> {
        let raise = || {
            Some(format!(
                "raise {RUN_DEADLINE_ENV} (e.g. 20m) when the API is only slow"
            ))
        };
        match self {
            GitHubError::Timeout { deadline, .. } => Some(format!(
                "each attempt has {} ({REQUEST_DEADLINE_ENV}); the API did not finish answering in it",
                human(*deadline)
            )),
            GitHubError::RunDeadline { .. } => raise(),
            GitHubError::Unauthorized { .. } => Some(
                "the token was refused; check the action's `token` input (GITHUB_TOKEN)".to_owned(),
            ),
            GitHubError::Forbidden { permission, .. } => Some(permissions_hint(*permission)),
            GitHubError::Status { status: 404, .. } => Some(
                "a private repository also answers 404 when the token cannot read it".to_owned(),
            ),
            GitHubError::RateLimited { .. } => Some(
                "run loopguard less often, or give it a token with its own rate limit".to_owned(),
            ),
            GitHubError::NotAFile { .. } => {
                Some("pass the path of a file in the repository".to_owned())
            }
            GitHubError::EventFile { .. } => Some(
                "`loopguard ci` runs inside a GitHub Actions job, which writes the file".to_owned(),
            ),
            GitHubError::Event(e) => e.hint().map(str::to_owned),
            GitHubError::Connection { .. }
            | GitHubError::Status { .. }
            | GitHubError::UnexpectedStatus { .. }
            | GitHubError::Payload { .. }
            | GitHubError::TooManyPages { .. }
            | GitHubError::BadLink { .. }
            | GitHubError::Download { .. }
            | GitHubError::BadContent { .. }
            | GitHubError::Sticky { .. }
            | GitHubError::ActionsFile { .. }
            | GitHubError::BadOutput { .. } => None,
        }
    }
}

/// The message of a request the run's deadline ended.
fn past_deadline(run: Duration, last: Option<&Failure>, wait: Option<Duration>) -> String {
    let deadline = run_deadline(run);
    match (last, wait) {
        (None, _) => format!("not sent: {deadline} has passed"),
        (Some(last), Some(wait)) => format!(
            "{last}; giving up: waiting {}s more would pass {deadline}",
            wait.as_secs()
        ),
        (Some(last @ Failure::Transport(t)), None) if t.ended_by_the_run() => last.to_string(),
        (Some(last), None) => format!("{last}; {deadline} has passed"),
    }
}

fn lacks(permission: Permission) -> String {
    match permission {
        Permission::None => String::new(),
        p => format!(": the workflow token lacks `{p}`"),
    }
}

fn colon(message: &str) -> &'static str {
    if message.is_empty() { "" } else { ": " }
}

/// Why retrying stopped, for the statuses where that says something (throttles, 5xx).
fn why(status: u16, gave_up: &GiveUp) -> String {
    if status >= 429 || status == 403 {
        format!(" ({gave_up})")
    } else {
        String::new()
    }
}
