//! The workflow's trigger: `GITHUB_EVENT_NAME`, the payload at `GITHUB_EVENT_PATH`, and the
//! other `GITHUB_*` variables, reduced to the plain [`CiContext`] CI mode works from.
//!
//! Each event's payload is deserialized once into a typed struct made of the same types the
//! API client reads ([`PullRequest`], [`WorkflowRun`]); an error names the field's path.
//! The PR head commit is always taken from the payload, never `GITHUB_SHA`, which for
//! `pull_request` is the synthetic merge commit. Pure: the shell reads the variables and
//! the file.

use std::path::PathBuf;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::types::{Label, PullRequest, RepoId, Repository, User, WorkflowRun, nullable};
use crate::error::EventError;
use crate::ids::CommitId;

/// The events CI mode knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    PullRequest,
    PullRequestTarget,
    WorkflowRun,
    Push,
    /// Any other event (`workflow_dispatch`, `schedule`, …): no PR, report only.
    Other(String),
}

impl EventKind {
    pub fn from_name(name: &str) -> Self {
        match name {
            "pull_request" => EventKind::PullRequest,
            "pull_request_target" => EventKind::PullRequestTarget,
            "workflow_run" => EventKind::WorkflowRun,
            "push" => EventKind::Push,
            other => EventKind::Other(other.to_owned()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            EventKind::PullRequest => "pull_request",
            EventKind::PullRequestTarget => "pull_request_target",
            EventKind::WorkflowRun => "workflow_run",
            EventKind::Push => "push",
            EventKind::Other(name) => name,
        }
    }
}

/// The `GITHUB_*` variables CI mode reads besides the payload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionsVars {
    pub event_name: String,
    pub event_path: Option<PathBuf>,
    /// `owner/name`.
    pub repository: Option<String>,
    /// `GITHUB_SHA`: for PR events the merge commit, so only a fallback.
    pub sha: Option<String>,
    pub git_ref: Option<String>,
    pub run_id: Option<u64>,
    pub run_attempt: Option<u64>,
    pub actor: Option<String>,
    pub api_url: Option<String>,
    pub server_url: Option<String>,
}

impl ActionsVars {
    /// The variables, read through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let number = |name: &str| var(name).and_then(|v| v.trim().parse().ok());
        ActionsVars {
            event_name: var("GITHUB_EVENT_NAME").unwrap_or_default(),
            event_path: var("GITHUB_EVENT_PATH").map(PathBuf::from),
            repository: var("GITHUB_REPOSITORY"),
            sha: var("GITHUB_SHA"),
            git_ref: var("GITHUB_REF"),
            run_id: number("GITHUB_RUN_ID"),
            run_attempt: number("GITHUB_RUN_ATTEMPT"),
            actor: var("GITHUB_ACTOR"),
            api_url: var("GITHUB_API_URL"),
            server_url: var("GITHUB_SERVER_URL"),
        }
    }
}

/// `pull_request` and `pull_request_target`.
#[derive(Debug, Clone, Deserialize)]
pub struct PullRequestEvent {
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub number: Option<u64>,
    pub pull_request: PullRequest,
    /// For `labeled`/`unlabeled`.
    #[serde(default)]
    pub label: Option<Label>,
    #[serde(default)]
    pub sender: Option<User>,
    #[serde(default)]
    pub repository: Option<Repository>,
}

/// `workflow_run`.
#[derive(Debug, Clone, Deserialize)]
pub struct WorkflowRunEvent {
    #[serde(default)]
    pub action: Option<String>,
    pub workflow_run: WorkflowRun,
    #[serde(default)]
    pub sender: Option<User>,
    #[serde(default)]
    pub repository: Option<Repository>,
}

/// `push`.
#[derive(Debug, Clone, Deserialize)]
pub struct PushEvent {
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub before: String,
    #[serde(default, deserialize_with = "nullable")]
    pub after: String,
    #[serde(default)]
    pub sender: Option<User>,
    #[serde(default)]
    pub repository: Option<Repository>,
}

/// `issues` (what `loopguard dashboard` reads of an `edited` event on its issue: who
/// edited it, and the body before the edit).
#[derive(Debug, Clone, Deserialize)]
pub struct IssuesEvent {
    #[serde(default)]
    pub action: Option<String>,
    pub issue: super::types::Issue,
    #[serde(default)]
    pub changes: Option<IssueChanges>,
    #[serde(default)]
    pub sender: Option<User>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct IssueChanges {
    #[serde(default)]
    pub body: Option<ChangedText>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChangedText {
    #[serde(default, deserialize_with = "nullable")]
    pub from: String,
}

impl IssuesEvent {
    /// The payload, its errors naming the field.
    pub fn parse(payload: &str) -> Result<IssuesEvent, EventError> {
        self::payload("GITHUB_EVENT_PATH (the `issues` payload)", payload)
    }

    /// The body before this edit, when the edit changed the body.
    pub fn body_before(&self) -> Option<&str> {
        self.changes
            .as_ref()?
            .body
            .as_ref()
            .map(|b| b.from.as_str())
    }
}

/// Any other event: only what every payload has.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct OtherEvent {
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub sender: Option<User>,
    #[serde(default)]
    pub repository: Option<Repository>,
}

/// What CI mode needs to know about the trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct CiContext {
    pub event: EventKind,
    /// The payload's `action` (`opened`, `synchronize`, `unlabeled`, `completed`, …).
    pub action: Option<String>,
    pub repo: RepoId,
    /// `None` for `push`, for other events, and for a `workflow_run` of a fork PR (the
    /// payload does not say; look it up by head SHA).
    pub pr_number: Option<u64>,
    /// The commit under test: the PR head (never the merge commit), the run's head, or
    /// the pushed commit.
    pub head_sha: CommitId,
    pub head_ref: Option<String>,
    /// `owner/name` of the head repository; `None` when a fork was deleted.
    pub head_repo: Option<String>,
    pub base_sha: Option<CommitId>,
    pub base_ref: Option<String>,
    /// The head lives in another repository (or its fork is gone).
    pub is_fork: bool,
    /// For `labeled`/`unlabeled`: the label's name.
    pub label: Option<String>,
    /// Login of the account that triggered the event.
    pub sender: Option<String>,
    pub run_id: Option<u64>,
    pub run_attempt: Option<u64>,
    /// The run that triggered a `workflow_run` workflow.
    pub workflow_run: Option<WorkflowRun>,
}

/// An all-zero sha: `before` of a new branch, `after` of a deleted one.
fn is_null_sha(sha: &str) -> bool {
    !sha.is_empty() && sha.bytes().all(|b| b == b'0')
}

fn branch_of(git_ref: &str) -> String {
    git_ref
        .strip_prefix("refs/heads/")
        .unwrap_or(git_ref)
        .to_owned()
}

/// Deserializes the payload as `T`, naming the field that is wrong.
fn payload<T: DeserializeOwned>(source: &str, text: &str) -> Result<T, EventError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            return EventError::NotJson {
                file: source.to_owned(),
                line: inner.line(),
                column: inner.column(),
                reason: without_position(&inner),
            };
        }
        EventError::Unexpected {
            file: source.to_owned(),
            at: Some(path).filter(|p| p != "."),
            // The path says more than the position in a one-line payload.
            reason: without_position(&inner),
        }
    })
}

/// serde_json's message without the " at line L column C" it ends with.
fn without_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    message
        .strip_suffix(&suffix)
        .map_or_else(|| message.clone(), str::to_owned)
}

/// Reduces the variables and the payload text to a [`CiContext`].
pub fn parse_event(vars: &ActionsVars, payload_text: &str) -> Result<CiContext, EventError> {
    let source = match &vars.event_path {
        Some(path) => format!("GITHUB_EVENT_PATH ({})", path.display()),
        None => "event payload".to_owned(),
    };
    if vars.event_name.is_empty() {
        return Err(EventError::Unset {
            name: "GITHUB_EVENT_NAME",
            detail: String::new(),
        });
    }
    let event = EventKind::from_name(&vars.event_name);
    let common: OtherEvent = payload(&source, payload_text)?;
    let repo_name = vars
        .repository
        .clone()
        .or_else(|| common.repository.as_ref().map(|r| r.full_name.clone()))
        .filter(|n| !n.is_empty())
        .ok_or_else(|| EventError::Unset {
            name: "GITHUB_REPOSITORY",
            detail: " and the payload has no `repository.full_name`".to_owned(),
        })?;
    let repo: RepoId = repo_name.parse().map_err(|e: String| EventError::Invalid {
        name: "GITHUB_REPOSITORY".to_owned(),
        reason: e.to_string(),
    })?;
    let mut ctx = CiContext {
        event: event.clone(),
        action: common.action.clone(),
        repo,
        pr_number: None,
        head_sha: CommitId::new("0").expect("a valid placeholder"),
        head_ref: None,
        head_repo: None,
        base_sha: None,
        base_ref: None,
        is_fork: false,
        label: None,
        sender: common.sender.as_ref().map(|u| u.login.clone()),
        run_id: vars.run_id,
        run_attempt: vars.run_attempt,
        workflow_run: None,
    };
    match event {
        EventKind::PullRequest | EventKind::PullRequestTarget => {
            pull_request(&mut ctx, payload(&source, payload_text)?, &repo_name);
        }
        EventKind::WorkflowRun => {
            workflow_run(&mut ctx, payload(&source, payload_text)?, &repo_name);
        }
        EventKind::Push => {
            push(
                &mut ctx,
                payload(&source, payload_text)?,
                vars,
                &source,
                repo_name,
            )?;
        }
        EventKind::Other(_) => {
            ctx.head_sha = fallback_sha(vars, &event, "")?;
            ctx.head_ref = vars.git_ref.as_deref().map(branch_of);
        }
    }
    Ok(ctx)
}

/// `pull_request` and `pull_request_target`: the PR's head, never the merge commit.
fn pull_request(ctx: &mut CiContext, e: PullRequestEvent, repo_name: &str) {
    let pr = e.pull_request;
    ctx.pr_number = Some(e.number.unwrap_or(pr.number));
    ctx.head_sha = pr.head.sha.clone();
    ctx.head_ref = Some(pr.head.ref_name.clone()).filter(|r| !r.is_empty());
    ctx.base_sha = Some(pr.base.sha.clone());
    ctx.base_ref = Some(pr.base.ref_name.clone()).filter(|r| !r.is_empty());
    ctx.head_repo = pr.head.repo.as_ref().map(|r| r.full_name.clone());
    let base_repo = pr
        .base
        .repo
        .as_ref()
        .map_or(repo_name, |r| r.full_name.as_str());
    ctx.is_fork = ctx.head_repo.as_deref() != Some(base_repo);
    ctx.label = e.label.map(|l| l.name);
}

/// `workflow_run`: the triggering run's head, and the PR whose head it is.
fn workflow_run(ctx: &mut CiContext, e: WorkflowRunEvent, repo_name: &str) {
    let run = e.workflow_run;
    ctx.head_sha = run.head_sha.clone();
    ctx.head_ref = run.head_branch.clone();
    ctx.head_repo = run.head_repository.as_ref().map(|r| r.full_name.clone());
    ctx.is_fork = ctx.head_repo.as_deref().is_some_and(|h| h != repo_name);
    // The run's PR list holds every open PR whose head is this branch; the one whose head
    // is this very commit is the one under test.
    let pr = run
        .pull_requests
        .iter()
        .find(|pr| pr.head.sha == run.head_sha)
        .or(run.pull_requests.first());
    if let Some(pr) = pr {
        ctx.pr_number = Some(pr.number);
        ctx.base_sha = Some(pr.base.sha.clone());
        ctx.base_ref = Some(pr.base.ref_name.clone()).filter(|r| !r.is_empty());
    }
    ctx.workflow_run = Some(run);
}

/// `push`: the pushed commit (`after`), and what was there before.
fn push(
    ctx: &mut CiContext,
    e: PushEvent,
    vars: &ActionsVars,
    source: &str,
    repo_name: String,
) -> Result<(), EventError> {
    ctx.head_sha = match Some(e.after).filter(|s| !s.is_empty() && !is_null_sha(s)) {
        Some(sha) => CommitId::new(sha).map_err(|err| EventError::Invalid {
            name: format!("{source}: `after`"),
            reason: err.to_string(),
        })?,
        None => fallback_sha(vars, &ctx.event, " in `after`")?,
    };
    ctx.base_sha = Some(e.before)
        .filter(|s| !s.is_empty() && !is_null_sha(s))
        .and_then(|s| CommitId::new(s).ok());
    ctx.head_ref = e
        .git_ref
        .or_else(|| vars.git_ref.clone())
        .map(|r| branch_of(&r));
    ctx.head_repo = Some(repo_name);
    Ok(())
}

/// `GITHUB_SHA`, for events whose payload carries no head commit (`what`: where it was
/// looked for).
fn fallback_sha(vars: &ActionsVars, event: &EventKind, what: &str) -> Result<CommitId, EventError> {
    let sha = vars.sha.clone().ok_or_else(|| EventError::Unset {
        name: "GITHUB_SHA",
        detail: format!(" (event `{}` carries no head commit{what})", event.name()),
    })?;
    CommitId::new(sha).map_err(|e| EventError::Invalid {
        name: "GITHUB_SHA".to_owned(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn vars(event: &str) -> ActionsVars {
        ActionsVars {
            event_name: event.into(),
            event_path: Some("/tmp/event.json".into()),
            repository: Some("octo-org/widgets".into()),
            sha: Some("merge000".into()),
            git_ref: Some("refs/pull/7/merge".into()),
            run_id: Some(99),
            ..ActionsVars::default()
        }
    }

    fn pr_payload(head_repo: Value) -> Value {
        json!({
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "head": {"ref": "agent/fix", "sha": "head111", "repo": head_repo},
                "base": {"ref": "main", "sha": "base222", "repo": {"full_name": "octo-org/widgets"}},
                "user": null,
                "body": null
            },
            "repository": {"full_name": "octo-org/widgets"},
            "sender": {"login": "copilot-swe-agent[bot]"}
        })
    }

    #[test]
    fn pull_request_uses_the_head_not_the_merge_commit() {
        let payload = pr_payload(json!({"full_name": "octo-org/widgets"}));
        let ctx = parse_event(&vars("pull_request"), &payload.to_string()).unwrap();
        assert_eq!(ctx.event, EventKind::PullRequest);
        assert_eq!(ctx.pr_number, Some(7));
        assert_eq!(ctx.head_sha, "head111");
        assert_eq!(ctx.base_sha.as_ref().map(CommitId::as_str), Some("base222"));
        assert_eq!(ctx.base_ref.as_deref(), Some("main"));
        assert_eq!(ctx.head_ref.as_deref(), Some("agent/fix"));
        assert!(!ctx.is_fork);
        assert_eq!(ctx.sender.as_deref(), Some("copilot-swe-agent[bot]"));
        assert_eq!(ctx.action.as_deref(), Some("synchronize"));
    }

    #[test]
    fn fork_and_deleted_fork() {
        let payload = pr_payload(json!({"full_name": "someone/widgets", "fork": true}));
        let ctx = parse_event(&vars("pull_request_target"), &payload.to_string()).unwrap();
        assert!(ctx.is_fork);
        assert_eq!(ctx.head_repo.as_deref(), Some("someone/widgets"));
        let payload = pr_payload(Value::Null);
        let ctx = parse_event(&vars("pull_request"), &payload.to_string()).unwrap();
        assert!(
            ctx.is_fork,
            "a deleted fork is still not the base repository"
        );
        assert_eq!(ctx.head_repo, None);
    }

    #[test]
    fn a_bad_payload_names_the_field() {
        let mut payload = pr_payload(Value::Null);
        payload["pull_request"]["head"]["sha"] = Value::Null;
        let err = parse_event(&vars("pull_request"), &payload.to_string()).unwrap_err();
        assert!(matches!(err, EventError::Unexpected { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "GITHUB_EVENT_PATH (/tmp/event.json): unexpected payload at `pull_request.head.sha`: invalid type: null, expected a string"
        );
        let err = parse_event(&vars("pull_request"), r#"{"number": 1}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "GITHUB_EVENT_PATH (/tmp/event.json): unexpected payload: missing field `pull_request`"
        );
        payload["pull_request"]["head"]["sha"] = json!("a\u{1b}[2K");
        let err = parse_event(&vars("pull_request"), &payload.to_string()).unwrap_err();
        assert!(
            err.to_string()
                .contains("`pull_request.head.sha`: contains whitespace or a control character"),
            "{err}"
        );
    }

    #[test]
    fn invalid_json_names_line_and_column() {
        let err = parse_event(&vars("push"), "{\n  \"after\": }").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("GITHUB_EVENT_PATH (/tmp/event.json):2:"),
            "{err}"
        );
    }

    #[test]
    fn workflow_run_same_repo_and_fork() {
        let payload = json!({
            "action": "completed",
            "workflow_run": {
                "id": 555, "workflow_id": 12, "name": "CI", "event": "pull_request",
                "head_sha": "head111", "head_branch": "agent/fix", "conclusion": "failure",
                "status": "completed", "run_attempt": 2,
                "head_repository": {"full_name": "octo-org/widgets"},
                "pull_requests": [
                    {"number": 3, "head": {"ref": "agent/fix", "sha": "older00"}, "base": {"ref": "main", "sha": "b0b0"}},
                    {"number": 7, "head": {"ref": "agent/fix", "sha": "head111"}, "base": {"ref": "main", "sha": "base222"}}
                ]
            },
            "repository": {"full_name": "octo-org/widgets"}
        });
        let ctx = parse_event(&vars("workflow_run"), &payload.to_string()).unwrap();
        assert_eq!(ctx.pr_number, Some(7));
        assert_eq!(ctx.head_sha, "head111");
        assert_eq!(ctx.base_sha.as_ref().map(CommitId::as_str), Some("base222"));
        assert!(!ctx.is_fork);
        let run = ctx.workflow_run.unwrap();
        assert_eq!(
            (run.id, run.workflow_id, run.run_attempt),
            (555, Some(12), Some(2))
        );
        assert_eq!(
            run.conclusion,
            Some(super::super::types::Conclusion::Failure)
        );
        assert_eq!(run.event, "pull_request");

        let payload = json!({
            "workflow_run": {
                "id": 556, "event": "pull_request", "head_sha": "fork999",
                "head_branch": "main", "conclusion": null, "pull_requests": [],
                "head_repository": {"full_name": "someone/widgets"}
            }
        });
        let ctx = parse_event(&vars("workflow_run"), &payload.to_string()).unwrap();
        assert_eq!(
            ctx.pr_number, None,
            "fork PRs are not listed: look them up by sha"
        );
        assert!(ctx.is_fork);
        assert_eq!(ctx.head_sha, "fork999");
        assert_eq!(ctx.workflow_run.unwrap().conclusion, None);
    }

    #[test]
    fn push_and_other_events() {
        let payload = json!({
            "ref": "refs/heads/main",
            "before": "0000000000000000000000000000000000000000",
            "after": "abc123",
            "head_commit": null
        });
        let ctx = parse_event(&vars("push"), &payload.to_string()).unwrap();
        assert_eq!(ctx.head_sha, "abc123");
        assert_eq!(ctx.base_sha, None, "a new branch has no before");
        assert_eq!(ctx.head_ref.as_deref(), Some("main"));
        assert_eq!(ctx.pr_number, None);

        let ctx = parse_event(&vars("workflow_dispatch"), "{}").unwrap();
        assert_eq!(ctx.event, EventKind::Other("workflow_dispatch".into()));
        assert_eq!(ctx.head_sha, "merge000");
    }

    #[test]
    fn variables() {
        let vars = ActionsVars::from_lookup(|name| match name {
            "GITHUB_EVENT_NAME" => Some("pull_request".into()),
            "GITHUB_EVENT_PATH" => {
                Some("/home/runner/work/_temp/_github_workflow/event.json".into())
            }
            "GITHUB_RUN_ID" => Some("123456789".into()),
            "GITHUB_RUN_ATTEMPT" => Some("x".into()),
            "GITHUB_SHA" => Some(" ".into()),
            _ => None,
        });
        assert_eq!(vars.event_name, "pull_request");
        assert_eq!(vars.run_id, Some(123_456_789));
        assert_eq!(vars.run_attempt, None, "not a number: unknown");
        assert_eq!(vars.sha, None, "blank: unset");
        assert!(vars.event_path.is_some());
    }

    #[test]
    fn labeled_event_carries_the_label() {
        let mut payload = pr_payload(json!({"full_name": "octo-org/widgets"}));
        payload["action"] = json!("unlabeled");
        payload["label"] = json!({"name": "loopguard:stuck"});
        let ctx = parse_event(&vars("pull_request"), &payload.to_string()).unwrap();
        assert_eq!(ctx.label.as_deref(), Some("loopguard:stuck"));
    }
}
