//! GitHub's payloads as loopguard reads them, typed once: the REST API's objects
//! ([`types`]), the workflow trigger ([`event`]), loopguard's own sticky comment and
//! issue ([`sticky`]) and the seal on the comment's state ([`seal`]). The client that
//! fetches them is the shell's.

pub mod event;
pub mod seal;
pub mod sticky;
pub mod timeline;
pub mod types;

pub use event::{CiContext, EventKind};
pub use types::{
    Commit, CommitFile, Issue, IssueComment, Job, JobLog, Label, PullRequest, RepoId, Review, User,
    WorkflowRun,
};
