//! Labels, issue comments (also the PR conversation) and issues.

use http::Method;
use serde_json::json;
use std::fmt::Write as _;

use super::client::{Call, GitHubClient};
use super::dry_run::describe_body;
use super::encode;
use super::error::GitHubError;
use super::paging::PageShape;
use super::permissions::Permission;
use super::timeline::TimelineEvent;
use super::types::{Issue, IssueComment, Label, OpenState};

/// How far back an ambiguous create looks for the object it may have made: generous, for
/// clock skew between this runner and GitHub.
const RECHECK_WINDOW: jiff::SignedDuration = jiff::SignedDuration::from_mins(10);

/// Fields of an issue to change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueUpdate {
    pub title: Option<String>,
    pub body: Option<String>,
    pub state: Option<OpenState>,
    /// Replaces every label when set.
    pub labels: Option<Vec<String>>,
}

impl GitHubClient {
    // ---- labels ------------------------------------------------------------------------

    /// A repository label — `GET /repos/{o}/{r}/labels/{name}`, 1 request; `None` if
    /// there is none.
    pub fn label(&self, name: &str) -> Result<Option<Label>, GitHubError> {
        let call = Call::get(
            format!("{}/labels/{}", self.repo_path(), encode::component(name)),
            Permission::IssuesWrite,
        );
        let reply = self.send(&call, &[404])?;
        if reply.status == 404 {
            return Ok(None);
        }
        self.decode(&call, &reply).map(Some)
    }

    /// Creates a repository label — `POST /repos/{o}/{r}/labels`, 1 request (+1 when it
    /// already exists: then the existing one is returned).
    pub fn create_label(
        &self,
        name: &str,
        color: &str,
        description: &str,
    ) -> Result<Label, GitHubError> {
        let call = Call::with_json(
            Method::POST,
            format!("{}/labels", self.repo_path()),
            &json!({"name": name, "color": color, "description": description}),
            Permission::IssuesWrite,
        );
        let planned = Label {
            name: name.to_owned(),
            color: Some(color.to_owned()),
            description: Some(description.to_owned()),
            ..Label::default()
        };
        let Some(reply) = self.write(&call, format!("create label {name:?}"), &[422])? else {
            return Ok(planned);
        };
        if reply.status == 422 {
            // `already_exists`: a concurrent run made it, or an earlier attempt did.
            return Ok(self.label(name)?.unwrap_or(planned));
        }
        self.decode(&call, &reply)
    }

    /// The label, created if missing — 1 request when it exists, 2 otherwise.
    pub fn ensure_label(
        &self,
        name: &str,
        color: &str,
        description: &str,
    ) -> Result<Label, GitHubError> {
        match self.label(name)? {
            Some(label) => Ok(label),
            None => self.create_label(name, color, description),
        }
    }

    /// Labels on an issue or PR — `GET /repos/{o}/{r}/issues/{n}/labels`, 1 request per 100.
    pub fn issue_labels(&self, issue: u64) -> Result<Vec<Label>, GitHubError> {
        let path = format!("{}/issues/{issue}/labels", self.repo_path());
        self.list(&path, PageShape::Array, Permission::PullRequestsRead)
    }

    /// Adds labels to an issue or PR (idempotent) — `POST /repos/{o}/{r}/issues/{n}/labels`,
    /// 1 request. Returns the issue's labels afterwards (in dry-run: the ones asked for).
    pub fn add_labels(&self, issue: u64, names: &[&str]) -> Result<Vec<Label>, GitHubError> {
        let call = Call::with_json(
            Method::POST,
            format!("{}/issues/{issue}/labels", self.repo_path()),
            &json!({ "labels": names }),
            Permission::PullRequestsWrite,
        );
        match self.write(&call, format!("add labels {names:?} to #{issue}"), &[])? {
            Some(reply) => self.decode(&call, &reply),
            None => Ok(names
                .iter()
                .map(|n| Label {
                    name: (*n).to_owned(),
                    ..Label::default()
                })
                .collect()),
        }
    }

    /// Removes a label from an issue or PR — `DELETE /repos/{o}/{r}/issues/{n}/labels/{name}`,
    /// 1 request. `false` when it was not there (404).
    pub fn remove_label(&self, issue: u64, name: &str) -> Result<bool, GitHubError> {
        let call = Call {
            method: Method::DELETE,
            ..Call::get(
                format!(
                    "{}/issues/{issue}/labels/{}",
                    self.repo_path(),
                    encode::component(name)
                ),
                Permission::PullRequestsWrite,
            )
        };
        match self.write(
            &call,
            format!("remove label {name:?} from #{issue}"),
            &[404],
        )? {
            Some(reply) => Ok(reply.status != 404),
            None => Ok(true),
        }
    }

    // ---- comments ----------------------------------------------------------------------

    /// Comments on an issue or PR, oldest first — `GET /repos/{o}/{r}/issues/{n}/comments`,
    /// 1 request per 100.
    pub fn issue_comments(&self, issue: u64) -> Result<Vec<IssueComment>, GitHubError> {
        let path = format!("{}/issues/{issue}/comments", self.repo_path());
        self.list(&path, PageShape::Array, Permission::PullRequestsRead)
    }

    /// An issue's or PR's timeline, oldest first — `GET /repos/{o}/{r}/issues/{n}/timeline`,
    /// 1 request per 100 entries: who commented, reviewed, took a label off or
    /// force-pushed, and when, as GitHub recorded it.
    pub fn timeline(&self, issue: u64) -> Result<Vec<TimelineEvent>, GitHubError> {
        let path = format!("{}/issues/{issue}/timeline", self.repo_path());
        self.list(&path, PageShape::Array, Permission::PullRequestsRead)
    }

    /// Comments updated since `since` (RFC 3339).
    fn issue_comments_since(
        &self,
        issue: u64,
        since: &str,
    ) -> Result<Vec<IssueComment>, GitHubError> {
        let path = format!(
            "{}/issues/{issue}/comments?since={}",
            self.repo_path(),
            encode::component(since)
        );
        self.list(&path, PageShape::Array, Permission::PullRequestsRead)
    }

    /// Creates a comment whose body contains `marker` — `POST /repos/{o}/{r}/issues/{n}/comments`,
    /// 1 request. If an attempt fails in a way that may have created it (5xx, broken
    /// connection), the comments of the last minutes are searched for this very body
    /// (marker and text: someone else's copy of the marker does not count) before sending
    /// again (+1 request each time), so a retry never duplicates it. In dry-run the returned
    /// comment has id 0.
    pub fn create_comment(
        &self,
        issue: u64,
        body: &str,
        marker: &str,
    ) -> Result<IssueComment, GitHubError> {
        debug_assert!(body.contains(marker), "the body carries its marker");
        let call = Call::with_json(
            Method::POST,
            format!("{}/issues/{issue}/comments", self.repo_path()),
            &json!({ "body": body }),
            Permission::PullRequestsWrite,
        );
        if self.record_if_dry(
            &call,
            format!("create comment on #{issue}, {}", describe_body(body)),
        ) {
            return Ok(IssueComment {
                body: body.to_owned(),
                ..IssueComment::default()
            });
        }
        let since = recheck_since();
        self.create_once(
            &call,
            |reply| self.decode(&call, reply),
            |client| {
                Ok(client
                    .issue_comments_since(issue, &since)?
                    .into_iter()
                    .find(|c| c.body.contains(marker) && c.body.trim_end() == body.trim_end()))
            },
        )
    }

    /// Replaces a comment's body — `PATCH /repos/{o}/{r}/issues/comments/{id}`, 1 request.
    pub fn update_comment(&self, comment_id: u64, body: &str) -> Result<IssueComment, GitHubError> {
        let call = Call::with_json(
            Method::PATCH,
            format!("{}/issues/comments/{comment_id}", self.repo_path()),
            &json!({ "body": body }),
            Permission::PullRequestsWrite,
        );
        match self.write(
            &call,
            format!("update comment {comment_id}, {}", describe_body(body)),
            &[],
        )? {
            Some(reply) => self.decode(&call, &reply),
            None => Ok(IssueComment {
                id: comment_id,
                body: body.to_owned(),
                ..IssueComment::default()
            }),
        }
    }

    // ---- issues ------------------------------------------------------------------------

    /// Open issues (PRs left out) carrying `label` — `GET /repos/{o}/{r}/issues?state=open
    /// &labels=…`, 1 request per 100. A label that does not exist gives an empty list.
    pub fn open_issues_with_label(&self, label: &str) -> Result<Vec<Issue>, GitHubError> {
        self.issues_with_label(label, "open")
    }

    /// Open issues whose body contains `marker`, narrowed to `label` when given. This
    /// lists instead of using the search API: search is eventually consistent (an issue
    /// made seconds ago is not found) and does not index HTML comments.
    pub fn find_issues_with_marker(
        &self,
        marker: &str,
        label: Option<&str>,
    ) -> Result<Vec<Issue>, GitHubError> {
        let issues = match label {
            Some(label) => self.open_issues_with_label(label)?,
            None => {
                let path = format!("{}/issues?state=open", self.repo_path());
                self.list::<Issue>(&path, PageShape::Array, Permission::IssuesWrite)?
                    .into_iter()
                    .filter(|i| !i.is_pull_request())
                    .collect()
            }
        };
        Ok(issues
            .into_iter()
            .filter(|i| i.body.contains(marker))
            .collect())
    }

    /// Creates an issue whose body contains `marker` — `POST /repos/{o}/{r}/issues`,
    /// 1 request; an ambiguous failure re-checks recent issues for `marker` first (+1
    /// request), so a retry never duplicates it. In dry-run the returned issue has number 0.
    pub fn create_issue(
        &self,
        title: &str,
        body: &str,
        labels: &[&str],
        marker: &str,
    ) -> Result<Issue, GitHubError> {
        debug_assert!(body.contains(marker), "the body carries its marker");
        let call = Call::with_json(
            Method::POST,
            format!("{}/issues", self.repo_path()),
            &json!({ "title": title, "body": body, "labels": labels }),
            Permission::IssuesWrite,
        );
        if self.record_if_dry(
            &call,
            format!(
                "create issue {title:?} labelled {labels:?}, {}",
                describe_body(body)
            ),
        ) {
            return Ok(Issue {
                title: title.to_owned(),
                body: body.to_owned(),
                state: OpenState::Open,
                ..Issue::default()
            });
        }
        let since = recheck_since();
        self.create_once(
            &call,
            |reply| self.decode(&call, reply),
            |client| {
                let path = format!(
                    "{}/issues?state=open&since={}",
                    client.repo_path(),
                    encode::component(&since)
                );
                Ok(client
                    .list::<Issue>(&path, PageShape::Array, Permission::IssuesWrite)?
                    .into_iter()
                    .find(|i| {
                        !i.is_pull_request()
                            && i.body.contains(marker)
                            && i.body.trim_end() == body.trim_end()
                            && i.title == title
                    }))
            },
        )
    }

    /// Changes an issue — `PATCH /repos/{o}/{r}/issues/{n}`, 1 request.
    pub fn update_issue(&self, number: u64, update: &IssueUpdate) -> Result<Issue, GitHubError> {
        let mut fields = serde_json::Map::new();
        if let Some(title) = &update.title {
            fields.insert("title".into(), json!(title));
        }
        if let Some(body) = &update.body {
            fields.insert("body".into(), json!(body));
        }
        if let Some(state) = &update.state {
            fields.insert("state".into(), json!(state));
        }
        if let Some(labels) = &update.labels {
            fields.insert("labels".into(), json!(labels));
        }
        let call = Call::with_json(
            Method::PATCH,
            format!("{}/issues/{number}", self.repo_path()),
            &serde_json::Value::Object(fields),
            Permission::IssuesWrite,
        );
        let mut summary = format!("update issue #{number}");
        if let Some(state) = update.state {
            let state = if state == OpenState::Closed {
                "closed"
            } else {
                "open"
            };
            let _ = write!(summary, ", state {state}");
        }
        if let Some(body) = &update.body {
            let _ = write!(summary, ", {}", describe_body(body));
        }
        match self.write(&call, summary, &[])? {
            Some(reply) => self.decode(&call, &reply),
            None => Ok(Issue {
                number,
                title: update.title.clone().unwrap_or_default(),
                body: update.body.clone().unwrap_or_default(),
                state: update.state.unwrap_or(OpenState::Open),
                ..Issue::default()
            }),
        }
    }
}

/// The `since` of an ambiguous create's re-check, taken before the first attempt: by the
/// system's clock, which GitHub's timestamps are compared with.
fn recheck_since() -> String {
    let since = crate::settings::wall_clock()
        .checked_sub(RECHECK_WINDOW)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    since.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}
