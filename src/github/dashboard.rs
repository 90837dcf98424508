//! The endpoints `loopguard dashboard` reads besides those of `ci`: closed PRs lately, the
//! repository's issue comments since a time (every sticky comment in a few pages), one
//! issue, issues by label in any state, and a user's permission on the repository.

use super::client::{Call, GitHubClient, Paged};
use super::encode;
use super::error::GitHubError;
use super::paging::PageShape;
use super::permissions::Permission;
use super::types::{Issue, IssueComment, PullRequest};

/// What a repository-wide comment scan found.
#[derive(Debug)]
pub enum CommentScan {
    /// Every comment updated since the time asked.
    Complete(Vec<IssueComment>),
    /// The listing has more pages than the budget: read the PRs one by one instead.
    OverBudget { pages: Option<usize> },
}

impl GitHubClient {
    /// Closed PRs updated since `since`, newest first — `GET /repos/{o}/{r}/pulls?state=closed
    /// &sort=updated&direction=desc`, 1 request per 100, stopping at the first page that
    /// reaches back past `since` (a PR closed after `since` was updated after it too).
    pub fn closed_pull_requests_since(
        &self,
        since: jiff::Timestamp,
    ) -> Result<Vec<PullRequest>, GitHubError> {
        let path = format!(
            "{}/pulls?state=closed&sort=updated&direction=desc",
            self.repo_path()
        );
        let (prs, _) = self.list_pages(
            &path,
            Permission::PullRequestsRead,
            0,
            |page: &[PullRequest], _| {
                page.last()
                    .and_then(|p| p.updated_at)
                    .is_some_and(|t| t >= since)
            },
        )?;
        Ok(prs
            .into_iter()
            .filter(|p| p.updated_at.is_some_and(|t| t >= since))
            .collect())
    }

    /// Every issue and PR comment of the repository updated since `since` —
    /// `GET /repos/{o}/{r}/issues/comments?since=…&sort=updated&direction=asc`, 1 request
    /// per 100 comments — unless the listing needs more than `budget` pages: then it stops
    /// after the page that says so (`rel="last"`), or after `budget` pages.
    pub fn repo_comments_since(
        &self,
        since: jiff::Timestamp,
        budget: usize,
    ) -> Result<CommentScan, GitHubError> {
        let path = format!(
            "{}/issues/comments?sort=updated&direction=asc&since={}",
            self.repo_path(),
            encode::component(&since.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        );
        let mut read = 0;
        let mut pages = None;
        // The budget bounds the scan (it is the number of PRs, themselves a bounded
        // listing), so it may read past the client's page cap.
        let (items, unread) = self.list_pages(
            &path,
            Permission::PullRequestsRead,
            budget,
            |_: &[IssueComment], last| {
                read += 1;
                pages = pages.or(last);
                // Stop as soon as the listing is known to be longer than the budget.
                last.is_none_or(|p| p <= budget) && read < budget
            },
        )?;
        if unread {
            Ok(CommentScan::OverBudget { pages })
        } else {
            Ok(CommentScan::Complete(items))
        }
    }

    /// One issue or PR comment — `GET /repos/{o}/{r}/issues/comments/{id}`, 1 request.
    pub fn comment(&self, id: u64) -> Result<IssueComment, GitHubError> {
        let call = Call::get(
            format!("{}/issues/comments/{id}", self.repo_path()),
            Permission::PullRequestsRead,
        );
        let reply = self.send(&call, &[])?;
        self.decode(&call, &reply)
    }

    /// One issue (or PR, as an issue) — `GET /repos/{o}/{r}/issues/{n}`, 1 request.
    pub fn issue(&self, number: u64) -> Result<Issue, GitHubError> {
        let call = Call::get(
            format!("{}/issues/{number}", self.repo_path()),
            Permission::IssuesWrite,
        );
        let reply = self.send(&call, &[])?;
        self.decode(&call, &reply)
    }

    /// Issues (PRs left out) carrying `label`, in `state` (`open`, `closed`, `all`) —
    /// `GET /repos/{o}/{r}/issues?state=…&labels=…`, 1 request per 100. A label that does
    /// not exist gives an empty list.
    pub fn issues_with_label(&self, label: &str, state: &str) -> Result<Vec<Issue>, GitHubError> {
        let path = format!(
            "{}/issues?state={}&labels={}",
            self.repo_path(),
            encode::component(state),
            encode::component(label)
        );
        let issues: Vec<Issue> = match self.get_paged(
            &path,
            PageShape::Array,
            Permission::IssuesWrite,
            &[404, 422],
        )? {
            Paged::Items(items) => items,
            Paged::Status(_) => Vec::new(),
        };
        Ok(issues
            .into_iter()
            .filter(|i| !i.is_pull_request())
            .collect())
    }

    /// A user's permission on the repository (`admin`, `write`, `read`, `none`; `maintain`
    /// reads as `write`, `triage` as `read`) — `GET /repos/{o}/{r}/collaborators/{user}
    /// /permission`, 1 request. `None` when GitHub knows no such user here (404).
    pub fn permission_of(&self, login: &str) -> Result<Option<String>, GitHubError> {
        let call = Call::get(
            format!(
                "{}/collaborators/{}/permission",
                self.repo_path(),
                encode::component(login)
            ),
            Permission::None,
        );
        let reply = self.send(&call, &[404])?;
        if reply.status == 404 {
            return Ok(None);
        }
        #[derive(serde::Deserialize)]
        struct Answer {
            #[serde(default)]
            permission: Option<String>,
        }
        let answer: Answer = self.decode(&call, &reply)?;
        Ok(answer.permission)
    }
}
