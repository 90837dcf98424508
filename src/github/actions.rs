//! Workflow runs, their jobs, and job logs.

use super::client::{Call, GitHubClient, MAX_LOG_BYTES};
use super::encode;
use super::error::GitHubError;
use super::paging::PageShape;
use super::permissions::Permission;
use super::types::{Job, JobLog, WorkflowRun};
use crate::iteration::CommitId;

/// Which workflow runs to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFilter {
    /// Only runs of this commit.
    pub head_sha: Option<CommitId>,
    /// Only runs of this workflow (its numeric id, `workflow_run.workflow_id`).
    pub workflow_id: Option<u64>,
    /// Only runs of commits on this branch (`head_branch`; a fork's branch for its PRs).
    pub branch: Option<String>,
    /// Only runs triggered by this event (`pull_request`, `push`, …).
    pub event: Option<String>,
    /// `completed`, `success`, `failure`, …
    pub status: Option<String>,
}

impl RunFilter {
    pub fn head_sha(sha: CommitId) -> Self {
        RunFilter {
            head_sha: Some(sha),
            ..RunFilter::default()
        }
    }
}

impl GitHubClient {
    /// Workflow runs matching `filter`, newest first — `GET /repos/{o}/{r}/actions/runs`
    /// (or `…/actions/workflows/{id}/runs`), 1 request per 100 runs.
    pub fn workflow_runs(&self, filter: &RunFilter) -> Result<Vec<WorkflowRun>, GitHubError> {
        let mut path = match filter.workflow_id {
            Some(id) => format!("{}/actions/workflows/{id}/runs", self.repo_path()),
            None => format!("{}/actions/runs", self.repo_path()),
        };
        let mut query = Vec::new();
        if let Some(sha) = &filter.head_sha {
            query.push(format!("head_sha={}", encode::component(sha.as_str())));
        }
        if let Some(branch) = &filter.branch {
            query.push(format!("branch={}", encode::component(branch)));
        }
        if let Some(event) = &filter.event {
            query.push(format!("event={}", encode::component(event)));
        }
        if let Some(status) = &filter.status {
            query.push(format!("status={}", encode::component(status)));
        }
        if !query.is_empty() {
            path.push('?');
            path.push_str(&query.join("&"));
        }
        self.list(
            &path,
            PageShape::Field("workflow_runs"),
            Permission::ActionsRead,
        )
    }

    /// One workflow run — `GET /repos/{o}/{r}/actions/runs/{id}`, 1 request.
    pub fn workflow_run(&self, run_id: u64) -> Result<WorkflowRun, GitHubError> {
        let call = Call::get(
            format!("{}/actions/runs/{run_id}", self.repo_path()),
            Permission::ActionsRead,
        );
        let reply = self.send(&call, &[])?;
        self.decode(&call, &reply)
    }

    /// One attempt of a workflow run (a re-run makes another) —
    /// `GET /repos/{o}/{r}/actions/runs/{id}/attempts/{attempt}`, 1 request. The run as it
    /// was in that attempt: its `run_started_at` and `updated_at` are the attempt's.
    pub fn workflow_run_attempt(
        &self,
        run_id: u64,
        attempt: u64,
    ) -> Result<WorkflowRun, GitHubError> {
        let call = Call::get(
            format!(
                "{}/actions/runs/{run_id}/attempts/{attempt}",
                self.repo_path()
            ),
            Permission::ActionsRead,
        );
        let reply = self.send(&call, &[])?;
        self.decode(&call, &reply)
    }

    /// The jobs of a run's latest attempt — `GET /repos/{o}/{r}/actions/runs/{id}/jobs
    /// ?filter=latest`, 1 request per 100 jobs.
    pub fn run_jobs(&self, run_id: u64) -> Result<Vec<Job>, GitHubError> {
        let path = format!(
            "{}/actions/runs/{run_id}/jobs?filter=latest",
            self.repo_path()
        );
        self.list(&path, PageShape::Field("jobs"), Permission::ActionsRead)
    }

    /// A job's log — `GET /repos/{o}/{r}/actions/jobs/{id}/logs`, which answers 302 to a
    /// short-lived blob URL on another host; that hop is sent without the token. 2
    /// requests. 404 (never written) and 410 (expired) give [`JobLog::Missing`]. Logs
    /// over 32 MiB keep their tail.
    pub fn job_log(&self, job_id: u64) -> Result<JobLog, GitHubError> {
        let call = Call {
            accept: "application/vnd.github+json",
            ..Call::get(
                format!("{}/actions/jobs/{job_id}/logs", self.repo_path()),
                Permission::ActionsRead,
            )
        };
        let reply = self.download(&call, MAX_LOG_BYTES, &[404, 410])?;
        if matches!(reply.status, 404 | 410) {
            return Ok(JobLog::Missing {
                status: reply.status,
            });
        }
        Ok(JobLog::Found {
            text: String::from_utf8_lossy(&reply.body).into_owned(),
            truncated: reply.truncated,
        })
    }
}
