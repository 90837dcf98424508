//! GitHub for `loopguard ci`: the REST client ([`GitHubClient`]), the trigger
//! ([`event::CiContext`]), the Actions runtime files and log ([`actions_io`]), untrusted-text
//! sanitising ([`sanitize`]) and loopguard's own comment and issue ([`sticky`]).
//!
//! `client` and the endpoint files (`pulls`, `actions`, `issues`, `contents`) are shell:
//! network, a clock for backoff. `event::parse_event`, `sanitize`, `sticky`, `retry`'s
//! decisions and `actions_io`'s formatting are pure and table-tested.

mod actions;
pub mod actions_io;
mod builder;
mod client;
mod contents;
mod dry_run;
mod encode;
pub mod event;
mod issues;
mod paging;
mod permissions;
mod pulls;
pub mod retry;
pub mod sticky;
mod token;
pub mod types;

pub use actions::RunFilter;
pub use builder::GitHubClientBuilder;
pub use client::{
    DEFAULT_API_URL, DEFAULT_SERVER_URL, GitHubClient, MAX_LOG_BYTES, TIME_SCALE_ENV,
};
pub use dry_run::PlannedWrite;
pub use event::{CiContext, EventKind};
pub use issues::IssueUpdate;
pub use permissions::{Permission, permissions_hint};
pub use token::Token;
pub use types::{
    Commit, CommitFile, Issue, IssueComment, Job, JobLog, Label, PullRequest, RepoId, User,
    WorkflowRun,
};
