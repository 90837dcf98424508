//! The slices of GitHub's REST payloads that loopguard reads.
//!
//! GitHub nulls fields more often than its docs admit (`user` of a deleted account,
//! `head.repo` of a deleted fork, `body` of an empty comment, `conclusion` of a run in
//! progress), so every field here tolerates both absence and `null`: optional things are
//! `Option`, the rest fall back to their default through [`nullable`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

/// Deserializes `null` as the type's default, for fields GitHub may null.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

/// `owner/name` of a repository.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RepoId {
    pub owner: String,
    pub name: String,
}

impl RepoId {
    pub fn new(owner: impl Into<String>, name: impl Into<String>) -> Self {
        RepoId {
            owner: owner.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for RepoId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

impl FromStr for RepoId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let valid = |part: &str| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        match s.split_once('/') {
            Some((owner, name)) if valid(owner) && valid(name) => Ok(RepoId::new(owner, name)),
            _ => Err(format!("expected `owner/name`, got `{s}`")),
        }
    }
}

/// A user or bot account.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct User {
    #[serde(default, deserialize_with = "nullable")]
    pub login: String,
    #[serde(default, deserialize_with = "nullable")]
    pub id: u64,
    /// `User`, `Bot` or `Organization`.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// A repository as embedded in other payloads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Repository {
    #[serde(default, deserialize_with = "nullable")]
    pub id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub full_name: String,
    #[serde(default)]
    pub owner: Option<User>,
    #[serde(default, deserialize_with = "nullable")]
    pub fork: bool,
    #[serde(default)]
    pub default_branch: Option<String>,
    #[serde(default)]
    pub html_url: Option<String>,
}

/// One side (head or base) of a pull request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PullRequestRef {
    #[serde(default, deserialize_with = "nullable")]
    pub label: String,
    #[serde(default, rename = "ref", deserialize_with = "nullable")]
    pub ref_name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub sha: String,
    #[serde(default)]
    pub user: Option<User>,
    /// `None` when the fork the PR came from was deleted.
    #[serde(default)]
    pub repo: Option<Repository>,
}

/// A label.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Label {
    #[serde(default, deserialize_with = "nullable")]
    pub id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

/// `GET /repos/{owner}/{repo}/pulls/{number}` (and the list form).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PullRequest {
    #[serde(default, deserialize_with = "nullable")]
    pub number: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub state: String,
    #[serde(default, deserialize_with = "nullable")]
    pub title: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default, deserialize_with = "nullable")]
    pub head: PullRequestRef,
    #[serde(default, deserialize_with = "nullable")]
    pub base: PullRequestRef,
    #[serde(default, deserialize_with = "nullable")]
    pub draft: bool,
    #[serde(default)]
    pub merged: Option<bool>,
    #[serde(default)]
    pub merge_commit_sha: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub labels: Vec<Label>,
    #[serde(default)]
    pub html_url: Option<String>,
    /// Number of commits (only in the single-PR payload).
    #[serde(default)]
    pub commits: Option<u64>,
    #[serde(default)]
    pub author_association: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}

impl PullRequest {
    /// Whether the head lives in another repository than the base. A deleted fork (no
    /// head repo) counts as a fork: its code did not come from the base repository.
    pub fn is_fork(&self) -> bool {
        match (&self.head.repo, &self.base.repo) {
            (Some(head), Some(base)) => head.full_name != base.full_name,
            (None, _) => true,
            (Some(head), None) => head.fork,
        }
    }
}

/// A git identity with a time, as in `commit.author`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GitSignature {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub email: String,
    #[serde(default)]
    pub date: Option<String>,
}

/// A `{ "sha": … }` reference (tree, parent).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShaRef {
    #[serde(default, deserialize_with = "nullable")]
    pub sha: String,
}

/// The git part of a commit payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GitCommit {
    #[serde(default, deserialize_with = "nullable")]
    pub message: String,
    #[serde(default)]
    pub author: Option<GitSignature>,
    #[serde(default)]
    pub committer: Option<GitSignature>,
    #[serde(default)]
    pub tree: Option<ShaRef>,
}

/// One changed file of a commit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommitFile {
    #[serde(default, deserialize_with = "nullable")]
    pub filename: String,
    /// `added`, `removed`, `modified`, `renamed`, `copied`, `changed`, `unchanged`.
    #[serde(default, deserialize_with = "nullable")]
    pub status: String,
    #[serde(default, deserialize_with = "nullable")]
    pub additions: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub deletions: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub changes: u64,
    #[serde(default)]
    pub previous_filename: Option<String>,
    /// The unified diff hunk; absent for binary or very large files.
    #[serde(default)]
    pub patch: Option<String>,
}

/// A commit as listed by the PR commits API, or fetched alone (then with `files`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Commit {
    #[serde(default, deserialize_with = "nullable")]
    pub sha: String,
    #[serde(default, deserialize_with = "nullable")]
    pub commit: GitCommit,
    /// The GitHub account of the author; `None` when the email matches no account.
    #[serde(default)]
    pub author: Option<User>,
    #[serde(default)]
    pub committer: Option<User>,
    #[serde(default, deserialize_with = "nullable")]
    pub parents: Vec<ShaRef>,
    /// Only in the single-commit payload; every page of it merged.
    #[serde(default, deserialize_with = "nullable")]
    pub files: Vec<CommitFile>,
    #[serde(default)]
    pub html_url: Option<String>,
}

/// A pull request as embedded in a workflow run (`pull_requests`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunPullRequest {
    #[serde(default, deserialize_with = "nullable")]
    pub number: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub head: RunPullRequestRef,
    #[serde(default, deserialize_with = "nullable")]
    pub base: RunPullRequestRef,
}

/// `head`/`base` of a [`RunPullRequest`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunPullRequestRef {
    #[serde(default, rename = "ref", deserialize_with = "nullable")]
    pub ref_name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub sha: String,
}

/// A workflow run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkflowRun {
    #[serde(default, deserialize_with = "nullable")]
    pub id: u64,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub head_sha: String,
    #[serde(default)]
    pub head_branch: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub event: String,
    /// `queued`, `in_progress`, `completed`, …
    #[serde(default)]
    pub status: Option<String>,
    /// `success`, `failure`, `cancelled`, …; `None` until completed.
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub workflow_id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub run_number: u64,
    #[serde(default)]
    pub run_attempt: Option<u64>,
    /// Empty for runs of fork PRs.
    #[serde(default, deserialize_with = "nullable")]
    pub pull_requests: Vec<RunPullRequest>,
    #[serde(default)]
    pub head_repository: Option<Repository>,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}

/// One step of a job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobStep {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub number: u64,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub conclusion: Option<String>,
}

/// A job of a workflow run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Job {
    #[serde(default, deserialize_with = "nullable")]
    pub id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub run_id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub head_sha: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub steps: Vec<JobStep>,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub completed_at: Option<String>,
}

impl Job {
    /// Whether the job's outcome is a failure worth reading the log of.
    pub fn failed(&self) -> bool {
        matches!(self.conclusion.as_deref(), Some("failure" | "timed_out"))
    }
}

/// A comment on an issue or pull request (the conversation, not a review comment).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IssueComment {
    #[serde(default, deserialize_with = "nullable")]
    pub id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub body: String,
    /// `None` for a deleted account ("ghost").
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}

impl IssueComment {
    pub fn author_login(&self) -> Option<&str> {
        self.user.as_ref().map(|u| u.login.as_str())
    }
}

/// An issue (the issues API also lists pull requests; those carry `pull_request`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Issue {
    #[serde(default, deserialize_with = "nullable")]
    pub number: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub title: String,
    #[serde(default, deserialize_with = "nullable")]
    pub body: String,
    #[serde(default, deserialize_with = "nullable")]
    pub state: String,
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default, deserialize_with = "nullable")]
    pub labels: Vec<Label>,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub pull_request: Option<serde_json::Value>,
}

impl Issue {
    pub fn is_pull_request(&self) -> bool {
        self.pull_request.is_some()
    }

    pub fn author_login(&self) -> Option<&str> {
        self.user.as_ref().map(|u| u.login.as_str())
    }
}

/// A job's log, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobLog {
    /// The log text (invalid UTF-8 replaced); `truncated` when only its tail was kept.
    Found { text: String, truncated: bool },
    /// GitHub has no log for the job: never written (404) or expired (410).
    Missing { status: u16 },
}
