//! Pull requests and commits.

use super::client::{Call, GitHubClient, Paged};
use super::encode;
use super::error::GitHubError;
use super::paging::{PageShape, next_link};
use super::permissions::Permission;
use super::types::{Commit, CommitFile, PullRequest, Review};
use crate::iteration::CommitId;

impl GitHubClient {
    /// `GET /repos/{o}/{r}/pulls/{number}` — 1 request.
    pub fn pull_request(&self, number: u64) -> Result<PullRequest, GitHubError> {
        let call = Call::get(
            format!("{}/pulls/{number}", self.repo_path()),
            Permission::PullRequestsRead,
        );
        let reply = self.send(&call, &[])?;
        self.decode(&call, &reply)
    }

    /// The PR's commits, oldest first (GitHub lists at most 250) —
    /// `GET /repos/{o}/{r}/pulls/{number}/commits`, 1 request per 100 commits.
    pub fn pull_request_commits(&self, number: u64) -> Result<Vec<Commit>, GitHubError> {
        let path = format!("{}/pulls/{number}/commits", self.repo_path());
        self.list(&path, PageShape::Array, Permission::PullRequestsRead)
    }

    /// The PR's reviews, oldest first — `GET /repos/{o}/{r}/pulls/{number}/reviews`, 1
    /// request per 100 reviews.
    pub fn pull_request_reviews(&self, number: u64) -> Result<Vec<Review>, GitHubError> {
        let path = format!("{}/pulls/{number}/reviews", self.repo_path());
        self.list(&path, PageShape::Array, Permission::PullRequestsRead)
    }

    /// The commits of `head` since its merge base with `base`, oldest first (at most 250)
    /// — `GET /repos/{o}/{r}/compare/{base}...{head}`, 1 request per 100 commits; `None`
    /// when GitHub no longer has `head` (404: force-pushed away and collected).
    pub fn compare_commits(
        &self,
        base: &CommitId,
        head: &CommitId,
    ) -> Result<Option<Vec<Commit>>, GitHubError> {
        let path = format!(
            "{}/compare/{}...{}",
            self.repo_path(),
            encode::component(base.as_str()),
            encode::component(head.as_str())
        );
        match self.get_paged(
            &path,
            PageShape::Field("commits"),
            Permission::ContentsRead,
            &[404],
        )? {
            Paged::Items(commits) => Ok(Some(commits)),
            Paged::Status(_) => Ok(None),
        }
    }

    /// One commit with all its changed files — `GET /repos/{o}/{r}/commits/{sha}`,
    /// 1 request per 300 files (GitHub's page size for files; 3,000 files at most).
    pub fn commit(&self, sha: &CommitId) -> Result<Commit, GitHubError> {
        let mut call = Call::get(
            format!(
                "{}/commits/{}",
                self.repo_path(),
                encode::component(sha.as_str())
            ),
            Permission::ContentsRead,
        );
        let reply = self.send(&call, &[])?;
        let mut commit: Commit = self.decode(&call, &reply)?;
        let mut next = reply
            .headers
            .get("link")
            .and_then(|v| v.to_str().ok())
            .and_then(next_link);
        let mut pages = 1;
        while let Some(url) = next {
            pages += 1;
            if pages > 10 {
                break;
            }
            self.check_same_origin(&call, &url)?;
            call.path = url;
            let reply = self.send(&call, &[])?;
            #[derive(serde::Deserialize)]
            struct FilesPage {
                #[serde(default, deserialize_with = "super::types::nullable")]
                files: Vec<CommitFile>,
            }
            let page: FilesPage = self.decode(&call, &reply)?;
            if page.files.is_empty() {
                break;
            }
            commit.files.extend(page.files);
            next = reply
                .headers
                .get("link")
                .and_then(|v| v.to_str().ok())
                .and_then(next_link);
        }
        Ok(commit)
    }

    /// PRs GitHub associates with a commit — `GET /repos/{o}/{r}/commits/{sha}/pulls`,
    /// 1 request per 100 PRs. An unknown commit (404/422) gives an empty list.
    pub fn pull_requests_for_commit(
        &self,
        sha: &CommitId,
    ) -> Result<Vec<PullRequest>, GitHubError> {
        let path = format!(
            "{}/commits/{}/pulls",
            self.repo_path(),
            encode::component(sha.as_str())
        );
        match self.get_paged(
            &path,
            PageShape::Array,
            Permission::PullRequestsRead,
            &[404, 422],
        )? {
            Paged::Items(items) => Ok(items),
            Paged::Status(_) => Ok(Vec::new()),
        }
    }

    /// Open PRs, optionally only those from `head` (`owner:branch`) —
    /// `GET /repos/{o}/{r}/pulls?state=open`, 1 request per 100 PRs.
    pub fn open_pull_requests(&self, head: Option<&str>) -> Result<Vec<PullRequest>, GitHubError> {
        let mut path = format!("{}/pulls?state=open", self.repo_path());
        if let Some(head) = head {
            path.push_str("&head=");
            path.push_str(&encode::component(head));
        }
        self.list(&path, PageShape::Array, Permission::PullRequestsRead)
    }

    /// The open PRs whose head is `sha`. `workflow_run.pull_requests` is empty for fork
    /// PRs, so this asks the commit's PRs first (1 request), then the open PRs from
    /// `head_hint` (`(fork owner, branch)`, 1 request), then every open PR (1 request
    /// per 100), stopping at the first that finds one.
    pub fn find_pull_requests_for_head(
        &self,
        sha: &CommitId,
        head_hint: Option<(&str, &str)>,
    ) -> Result<Vec<PullRequest>, GitHubError> {
        let is_open_at = |pr: &PullRequest| &pr.head.sha == sha && pr.is_open();
        let found: Vec<_> = self
            .pull_requests_for_commit(sha)?
            .into_iter()
            .filter(is_open_at)
            .collect();
        if !found.is_empty() {
            return Ok(found);
        }
        if let Some((owner, branch)) = head_hint {
            let found: Vec<_> = self
                .open_pull_requests(Some(&format!("{owner}:{branch}")))?
                .into_iter()
                .filter(is_open_at)
                .collect();
            if !found.is_empty() {
                return Ok(found);
            }
        }
        Ok(self
            .open_pull_requests(None)?
            .into_iter()
            .filter(is_open_at)
            .collect())
    }
}
