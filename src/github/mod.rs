//! GitHub for `loopguard ci`, the shell side: the REST client ([`GitHubClient`]: transport,
//! retries, rate limits, paging, dry-run), the endpoints it calls, the trigger read from
//! the environment ([`context`]) and the Actions runtime files ([`actions_io`]). The
//! payloads themselves are typed once in the core (`loopguard_core::github`).

mod actions;
pub mod actions_io;
mod builder;
mod client;
mod contents;
pub mod context;
mod dashboard;
mod dry_run;
mod encode;
mod error;
mod issues;
mod paging;
mod permissions;
mod pulls;
pub mod retry;

pub use loopguard_core::github::{event, seal, sticky, timeline, types};

pub use actions::RunFilter;
pub use builder::GitHubClientBuilder;
pub use client::{GitHubClient, MAX_LOG_BYTES};
pub use dashboard::CommentScan;
pub use dry_run::PlannedWrite;
pub use error::{Failure, GitHubError, LinkProblem, TransportError};
pub use event::{CiContext, EventKind};
pub use issues::IssueUpdate;
pub use permissions::{Permission, permissions_hint};
// What the environment configures the client with: read, and kept secret, by the settings.
pub use crate::settings::{DEFAULT_API_URL, DEFAULT_SERVER_URL, Token};
pub use types::{
    Commit, CommitFile, Issue, IssueComment, Job, JobLog, Label, PullRequest, RepoId, User,
    WorkflowRun,
};
