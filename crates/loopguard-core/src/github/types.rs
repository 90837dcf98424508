//! GitHub's REST and webhook payloads as loopguard reads them, typed once: the API client
//! and the workflow trigger deserialize into the same structs (a `workflow_run` event
//! carries the same [`WorkflowRun`] the runs API lists).
//!
//! States and conclusions are enums (an unknown value GitHub adds later is `Other`, not an
//! error); times are [`Timestamp`]s; commit ids are [`CommitId`]s, validated when read.
//! GitHub nulls fields more often than its docs admit (`user` of a deleted account,
//! `head.repo` of a deleted fork, `body` of an empty comment, `conclusion` of a run in
//! progress), so optional things are `Option` and lists and counts fall back to empty
//! through [`nullable`].

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize};

use crate::ids::CommitId;

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PullRequestRef {
    #[serde(default, deserialize_with = "nullable")]
    pub label: String,
    #[serde(default, rename = "ref", deserialize_with = "nullable")]
    pub ref_name: String,
    pub sha: CommitId,
    #[serde(default)]
    pub user: Option<User>,
    /// `None` when the fork the PR came from was deleted.
    #[serde(default)]
    pub repo: Option<Repository>,
}

/// One event of an issue's (or PR's) timeline of changes — `GET /repos/{o}/{r}/issues/{n}/events`:
/// what happened (`labeled`, `unlabeled`, …), who did it, and the label it was about.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IssueEvent {
    #[serde(default, deserialize_with = "nullable")]
    pub event: String,
    #[serde(default)]
    pub actor: Option<User>,
    #[serde(default)]
    pub label: Option<Label>,
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

/// A pull request's or an issue's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenState {
    #[default]
    Open,
    Closed,
    #[serde(other)]
    Other,
}

/// `GET /repos/{owner}/{repo}/pulls/{number}` (and the list form, and the event's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PullRequest {
    pub number: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub state: OpenState,
    #[serde(default, deserialize_with = "nullable")]
    pub title: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<User>,
    pub head: PullRequestRef,
    pub base: PullRequestRef,
    #[serde(default, deserialize_with = "nullable")]
    pub draft: bool,
    #[serde(default)]
    pub merged: Option<bool>,
    #[serde(default)]
    pub merged_at: Option<Timestamp>,
    #[serde(default)]
    pub closed_at: Option<Timestamp>,
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
    pub created_at: Option<Timestamp>,
    #[serde(default)]
    pub updated_at: Option<Timestamp>,
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

    pub fn is_open(&self) -> bool {
        self.state == OpenState::Open
    }

    pub fn has_label(&self, name: &str) -> bool {
        self.labels.iter().any(|l| l.name == name)
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
    pub date: Option<Timestamp>,
}

/// A `{ "sha": … }` reference to a commit (a parent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitRef {
    pub sha: CommitId,
}

/// A `{ "sha": … }` reference to a tree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TreeRef {
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
    pub tree: Option<TreeRef>,
}

/// What a commit did to a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileChangeStatus {
    Added,
    Removed,
    #[default]
    Modified,
    Renamed,
    Copied,
    /// A mode or type change.
    Changed,
    Unchanged,
    #[serde(other)]
    Other,
}

/// One changed file of a commit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommitFile {
    #[serde(default, deserialize_with = "nullable")]
    pub filename: String,
    #[serde(default, deserialize_with = "nullable")]
    pub status: FileChangeStatus,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Commit {
    pub sha: CommitId,
    #[serde(default, deserialize_with = "nullable")]
    pub commit: GitCommit,
    /// The GitHub account of the author; `None` when the email matches no account.
    #[serde(default)]
    pub author: Option<User>,
    #[serde(default)]
    pub committer: Option<User>,
    #[serde(default, deserialize_with = "nullable")]
    pub parents: Vec<CommitRef>,
    /// Only in the single-commit payload; every page of it merged.
    #[serde(default, deserialize_with = "nullable")]
    pub files: Vec<CommitFile>,
    #[serde(default)]
    pub html_url: Option<String>,
}

/// A pull request as a workflow run lists it (`pull_requests`, in the API and the
/// `workflow_run` event alike).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPullRequest {
    pub number: u64,
    pub head: RunPullRequestRef,
    pub base: RunPullRequestRef,
}

/// `head`/`base` of a [`RunPullRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPullRequestRef {
    #[serde(default, rename = "ref", deserialize_with = "nullable")]
    pub ref_name: String,
    pub sha: CommitId,
}

/// Where a run or job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Queued,
    InProgress,
    Completed,
    Waiting,
    Requested,
    Pending,
    #[serde(other)]
    Other,
}

/// How a completed run or job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    Success,
    Failure,
    Neutral,
    Cancelled,
    Skipped,
    TimedOut,
    ActionRequired,
    Stale,
    StartupFailure,
    #[serde(other)]
    Other,
}

impl Conclusion {
    /// A failure whose logs say why (not a cancellation or a skip).
    pub fn is_failure(self) -> bool {
        matches!(self, Conclusion::Failure | Conclusion::TimedOut)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Neutral => "neutral",
            Conclusion::Cancelled => "cancelled",
            Conclusion::Skipped => "skipped",
            Conclusion::TimedOut => "timed_out",
            Conclusion::ActionRequired => "action_required",
            Conclusion::Stale => "stale",
            Conclusion::StartupFailure => "startup_failure",
            Conclusion::Other => "other",
        }
    }
}

/// A workflow run (the runs API, and the `workflow_run` event's `workflow_run`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowRun {
    pub id: u64,
    #[serde(default)]
    pub name: Option<String>,
    pub head_sha: CommitId,
    #[serde(default)]
    pub head_branch: Option<String>,
    /// The event that started the run (`pull_request`, `push`, `workflow_run`, …).
    #[serde(default, deserialize_with = "nullable")]
    pub event: String,
    #[serde(default)]
    pub status: Option<RunStatus>,
    /// `None` until completed.
    #[serde(default)]
    pub conclusion: Option<Conclusion>,
    #[serde(default)]
    pub workflow_id: Option<u64>,
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
    pub created_at: Option<Timestamp>,
    /// When the run's latest attempt started.
    #[serde(default)]
    pub run_started_at: Option<Timestamp>,
    /// When the run last changed (its end, once completed).
    #[serde(default)]
    pub updated_at: Option<Timestamp>,
    /// Who started the run, and who started its latest attempt (a re-run may be someone
    /// else's): GitHub's record, e.g. who edited the issue an `issues` run is about.
    #[serde(default)]
    pub actor: Option<User>,
    #[serde(default)]
    pub triggering_actor: Option<User>,
}

impl WorkflowRun {
    pub fn is_completed(&self) -> bool {
        self.status == Some(RunStatus::Completed)
    }

    /// `workflow run CI #123`, for notes and sources.
    pub fn describe(&self) -> String {
        format!(
            "workflow run {} #{}",
            self.name.as_deref().unwrap_or("?"),
            self.id
        )
    }
}

/// One step of a job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobStep {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub number: u64,
    #[serde(default)]
    pub status: Option<RunStatus>,
    #[serde(default)]
    pub conclusion: Option<Conclusion>,
}

/// A job of a workflow run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub run_id: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default)]
    pub head_sha: Option<CommitId>,
    #[serde(default)]
    pub status: Option<RunStatus>,
    #[serde(default)]
    pub conclusion: Option<Conclusion>,
    #[serde(default, deserialize_with = "nullable")]
    pub steps: Vec<JobStep>,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub started_at: Option<Timestamp>,
    #[serde(default)]
    pub completed_at: Option<Timestamp>,
}

impl Job {
    /// Whether the job's outcome is a failure worth reading the log of.
    pub fn failed(&self) -> bool {
        self.conclusion.is_some_and(Conclusion::is_failure)
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
    pub created_at: Option<Timestamp>,
    #[serde(default)]
    pub updated_at: Option<Timestamp>,
    /// `…/repos/{o}/{r}/issues/{n}`: the issue or PR it is on (repository-wide listings).
    #[serde(default)]
    pub issue_url: Option<String>,
    /// `OWNER`, `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`, `NONE`, …
    #[serde(default)]
    pub author_association: Option<String>,
}

/// A review of a pull request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Review {
    #[serde(default, deserialize_with = "nullable")]
    pub id: u64,
    /// `None` for a deleted account ("ghost").
    #[serde(default)]
    pub user: Option<User>,
    /// `APPROVED`, `CHANGES_REQUESTED`, `COMMENTED`, `PENDING`, `DISMISSED`.
    #[serde(default)]
    pub state: Option<String>,
    /// `None` while pending.
    #[serde(default)]
    pub submitted_at: Option<Timestamp>,
    #[serde(default)]
    pub author_association: Option<String>,
}

impl IssueComment {
    /// The number of the issue or PR the comment is on, from `issue_url`.
    pub fn issue_number(&self) -> Option<u64> {
        let url = self.issue_url.as_deref()?;
        let (rest, n) = url.trim_end_matches('/').rsplit_once('/')?;
        rest.ends_with("/issues").then(|| n.parse().ok()).flatten()
    }

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
    pub state: OpenState,
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default, deserialize_with = "nullable")]
    pub labels: Vec<Label>,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub pull_request: Option<serde_json::Value>,
    #[serde(default)]
    pub updated_at: Option<Timestamp>,
}

impl Issue {
    pub fn is_pull_request(&self) -> bool {
        self.pull_request.is_some()
    }

    pub fn is_open(&self) -> bool {
        self.state == OpenState::Open
    }

    pub fn author_login(&self) -> Option<&str> {
        self.user.as_ref().map(|u| u.login.as_str())
    }
}

/// A file's content (`GET /repos/{owner}/{repo}/contents/{path}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContentFile {
    #[serde(default, rename = "type", deserialize_with = "nullable")]
    pub kind: String,
    #[serde(default, deserialize_with = "nullable")]
    pub encoding: String,
    #[serde(default, deserialize_with = "nullable")]
    pub content: String,
    #[serde(default, deserialize_with = "nullable")]
    pub size: u64,
    #[serde(default)]
    pub download_url: Option<String>,
}

/// One entry of a directory listing (`GET /repos/{owner}/{repo}/contents/{dir}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DirEntry {
    #[serde(default, rename = "type", deserialize_with = "nullable")]
    pub kind: String,
    #[serde(default, deserialize_with = "nullable")]
    pub path: String,
    #[serde(default, deserialize_with = "nullable")]
    pub size: u64,
}

/// A job's log, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobLog {
    /// The log text (invalid UTF-8 replaced); `truncated` when only its tail was kept.
    Found { text: String, truncated: bool },
    /// GitHub has no log for the job: never written (404) or expired (410).
    Missing { status: u16 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_conclusions_are_enums_that_tolerate_new_values() {
        let run: WorkflowRun = serde_json::from_value(serde_json::json!({
            "id": 1, "head_sha": "abc123", "status": "completed", "conclusion": "timed_out",
            "created_at": "2026-11-25T10:00:00Z", "pull_requests": null
        }))
        .unwrap();
        assert_eq!(run.conclusion, Some(Conclusion::TimedOut));
        assert!(run.conclusion.unwrap().is_failure() && run.is_completed());
        assert_eq!(run.created_at.unwrap().to_string(), "2026-11-25T10:00:00Z");
        let odd: WorkflowRun = serde_json::from_value(serde_json::json!({
            "id": 1, "head_sha": "abc123", "status": "brand_new", "conclusion": "weird"
        }))
        .unwrap();
        assert_eq!(
            (odd.status, odd.conclusion),
            (Some(RunStatus::Other), Some(Conclusion::Other))
        );
        let bad =
            serde_json::from_value::<WorkflowRun>(serde_json::json!({"id": 1, "head_sha": "a b"}));
        assert!(bad.unwrap_err().to_string().contains("whitespace"));
    }
}
