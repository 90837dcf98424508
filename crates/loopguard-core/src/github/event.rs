//! The workflow's trigger: `GITHUB_EVENT_NAME`, the payload at `GITHUB_EVENT_PATH`, and the
//! other `GITHUB_*` variables, reduced to the plain [`CiContext`] CI mode works from.
//!
//! [`parse_event`] is pure; the shell reads the variables and the payload file. The PR head commit is always taken from the payload, never `GITHUB_SHA`,
//! which for `pull_request` is the synthetic merge commit.

use std::path::PathBuf;

use serde_json::Value;

use super::types::RepoId;
use crate::error::Error;

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

/// A PR as `workflow_run.pull_requests` lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunPullRequestRef {
    pub number: u64,
    pub head_sha: Option<String>,
    pub head_ref: Option<String>,
    pub base_sha: Option<String>,
    pub base_ref: Option<String>,
}

/// The run that triggered a `workflow_run` workflow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkflowRunContext {
    pub id: u64,
    pub workflow_id: Option<u64>,
    pub name: Option<String>,
    pub head_sha: String,
    pub head_branch: Option<String>,
    /// `owner/name` of the repository the head commit lives in (the fork for fork PRs).
    pub head_repository: Option<String>,
    /// `success`, `failure`, …; `None` while it runs.
    pub conclusion: Option<String>,
    /// The event that triggered the watched run (`pull_request`, `push`, …).
    pub event: String,
    pub run_attempt: Option<u64>,
    /// Empty for fork PRs: find the PR by head SHA then.
    pub pull_requests: Vec<RunPullRequestRef>,
}

/// What CI mode needs to know about the trigger.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    pub head_sha: String,
    pub head_ref: Option<String>,
    /// `owner/name` of the head repository; `None` when a fork was deleted.
    pub head_repo: Option<String>,
    pub base_sha: Option<String>,
    pub base_ref: Option<String>,
    /// The head lives in another repository (or its fork is gone).
    pub is_fork: bool,
    /// For `labeled`/`unlabeled`: the label's name.
    pub label: Option<String>,
    /// Login of the account that triggered the event.
    pub sender: Option<String>,
    pub run_id: Option<u64>,
    pub run_attempt: Option<u64>,
    pub workflow_run: Option<WorkflowRunContext>,
}

/// A payload and the dotted path of its fields, for errors that name them.
struct Payload<'a> {
    root: &'a Value,
    source: String,
}

impl<'a> Payload<'a> {
    fn get(&self, path: &str) -> Option<&'a Value> {
        path.split('.')
            .try_fold(self.root, |v, key| v.get(key))
            .filter(|v| !v.is_null())
    }

    fn str(&self, path: &str) -> Option<String> {
        self.get(path).and_then(Value::as_str).map(str::to_owned)
    }

    fn u64(&self, path: &str) -> Option<u64> {
        self.get(path).and_then(Value::as_u64)
    }

    fn missing(&self, path: &str) -> Error {
        let what = match path
            .rsplit_once('.')
            .and_then(|(parent, _)| self.get(parent))
        {
            Some(_) => "is missing or null",
            None if path.contains('.') => "is missing (its parent is missing or null)",
            None => "is missing or null",
        };
        Error::input(format!("{}: field `{path}` {what}", self.source))
    }

    fn req_str(&self, path: &str) -> Result<String, Error> {
        self.str(path)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| self.missing(path))
    }

    fn req_u64(&self, path: &str) -> Result<u64, Error> {
        self.u64(path).ok_or_else(|| self.missing(path))
    }
}

/// An all-zero sha: `before` of a new branch, `after` of a deleted one.
fn is_null_sha(sha: &str) -> bool {
    !sha.is_empty() && sha.bytes().all(|b| b == b'0')
}

/// Reduces the variables and the payload text to a [`CiContext`].
pub fn parse_event(vars: &ActionsVars, payload_text: &str) -> Result<CiContext, Error> {
    let source = match &vars.event_path {
        Some(path) => format!("GITHUB_EVENT_PATH ({})", path.display()),
        None => "event payload".to_owned(),
    };
    let root: Value = serde_json::from_str(payload_text).map_err(|e| {
        Error::input(format!(
            "{source}:{}:{}: not valid JSON: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let p = Payload {
        root: &root,
        source,
    };
    let event_name = if vars.event_name.is_empty() {
        return Err(Error::input(
            "GITHUB_EVENT_NAME is not set\nhint: `loopguard ci` runs inside a GitHub Actions job",
        ));
    } else {
        vars.event_name.as_str()
    };
    let repo_name = vars
        .repository
        .clone()
        .or_else(|| p.str("repository.full_name"))
        .ok_or_else(|| {
            Error::input(
                "GITHUB_REPOSITORY is not set and the payload has no `repository.full_name`",
            )
        })?;
    let repo: RepoId = repo_name
        .parse()
        .map_err(|e| Error::input(format!("GITHUB_REPOSITORY: {e}")))?;
    let mut ctx = CiContext {
        event: EventKind::from_name(event_name),
        action: p.str("action"),
        repo,
        pr_number: None,
        head_sha: String::new(),
        head_ref: None,
        head_repo: None,
        base_sha: None,
        base_ref: None,
        is_fork: false,
        label: p.str("label.name"),
        sender: p.str("sender.login"),
        run_id: vars.run_id,
        run_attempt: vars.run_attempt,
        workflow_run: None,
    };
    match ctx.event {
        EventKind::PullRequest | EventKind::PullRequestTarget => {
            ctx.pr_number = Some(match p.u64("number") {
                Some(n) => n,
                None => p.req_u64("pull_request.number")?,
            });
            ctx.head_sha = p.req_str("pull_request.head.sha")?;
            ctx.head_ref = p.str("pull_request.head.ref");
            ctx.base_sha = p.str("pull_request.base.sha");
            ctx.base_ref = p.str("pull_request.base.ref");
            ctx.head_repo = p.str("pull_request.head.repo.full_name");
            let base_repo = p
                .str("pull_request.base.repo.full_name")
                .unwrap_or_else(|| repo_name.clone());
            ctx.is_fork = ctx.head_repo.as_deref() != Some(base_repo.as_str());
        }
        EventKind::WorkflowRun => {
            let run = WorkflowRunContext {
                id: p.req_u64("workflow_run.id")?,
                workflow_id: p.u64("workflow_run.workflow_id"),
                name: p.str("workflow_run.name"),
                head_sha: p.req_str("workflow_run.head_sha")?,
                head_branch: p.str("workflow_run.head_branch"),
                head_repository: p.str("workflow_run.head_repository.full_name"),
                conclusion: p.str("workflow_run.conclusion"),
                event: p.str("workflow_run.event").unwrap_or_default(),
                run_attempt: p.u64("workflow_run.run_attempt"),
                pull_requests: run_pull_requests(p.get("workflow_run.pull_requests")),
            };
            ctx.head_sha = run.head_sha.clone();
            ctx.head_ref = run.head_branch.clone();
            ctx.head_repo = run.head_repository.clone();
            ctx.is_fork = run
                .head_repository
                .as_deref()
                .is_some_and(|head| head != repo_name);
            // The run's PR list holds every open PR whose head is this branch; the one
            // whose head is this very commit is the one under test.
            let pr = run
                .pull_requests
                .iter()
                .find(|pr| pr.head_sha.as_deref() == Some(run.head_sha.as_str()))
                .or(run.pull_requests.first());
            if let Some(pr) = pr {
                ctx.pr_number = Some(pr.number);
                ctx.base_sha = pr.base_sha.clone();
                ctx.base_ref = pr.base_ref.clone();
            }
            ctx.workflow_run = Some(run);
        }
        EventKind::Push => {
            let after = p.str("after").filter(|s| !is_null_sha(s));
            ctx.head_sha = match after.or_else(|| vars.sha.clone()) {
                Some(sha) => sha,
                None => return Err(p.missing("after")),
            };
            ctx.base_sha = p.str("before").filter(|s| !is_null_sha(s));
            ctx.head_ref = p.str("ref").or_else(|| vars.git_ref.clone()).map(|r| {
                r.strip_prefix("refs/heads/")
                    .map_or(r.clone(), str::to_owned)
            });
            ctx.head_repo = Some(repo_name);
        }
        EventKind::Other(_) => {
            ctx.head_sha = vars.sha.clone().ok_or_else(|| {
                Error::input(format!(
                    "GITHUB_SHA is not set (event `{event_name}` carries no head commit)"
                ))
            })?;
            ctx.head_ref = vars.git_ref.clone().map(|r| {
                r.strip_prefix("refs/heads/")
                    .map_or(r.clone(), str::to_owned)
            });
        }
    }
    Ok(ctx)
}

fn run_pull_requests(list: Option<&Value>) -> Vec<RunPullRequestRef> {
    let Some(items) = list.and_then(Value::as_array) else {
        return Vec::new();
    };
    let text = |v: &Value, a: &str, b: &str| {
        v.get(a)
            .and_then(|x| x.get(b))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    items
        .iter()
        .filter_map(|pr| {
            Some(RunPullRequestRef {
                number: pr.get("number")?.as_u64()?,
                head_sha: text(pr, "head", "sha"),
                head_ref: text(pr, "head", "ref"),
                base_sha: text(pr, "base", "sha"),
                base_ref: text(pr, "base", "ref"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert_eq!(ctx.base_sha.as_deref(), Some("base222"));
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
    fn missing_head_sha_is_named() {
        let mut payload = pr_payload(Value::Null);
        payload["pull_request"]["head"]["sha"] = Value::Null;
        let err = parse_event(&vars("pull_request"), &payload.to_string()).unwrap_err();
        assert!(matches!(err, crate::error::Error::Input { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "GITHUB_EVENT_PATH (/tmp/event.json): field `pull_request.head.sha` is missing or null"
        );
        let err = parse_event(&vars("pull_request"), r#"{"number": 1}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("`pull_request.head.sha` is missing (its parent is missing or null)"),
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
                "run_attempt": 2,
                "head_repository": {"full_name": "octo-org/widgets"},
                "pull_requests": [
                    {"number": 3, "head": {"ref": "agent/fix", "sha": "older00"}, "base": {"ref": "main", "sha": "b0"}},
                    {"number": 7, "head": {"ref": "agent/fix", "sha": "head111"}, "base": {"ref": "main", "sha": "base222"}}
                ]
            },
            "repository": {"full_name": "octo-org/widgets"}
        });
        let ctx = parse_event(&vars("workflow_run"), &payload.to_string()).unwrap();
        assert_eq!(ctx.pr_number, Some(7));
        assert_eq!(ctx.head_sha, "head111");
        assert_eq!(ctx.base_sha.as_deref(), Some("base222"));
        assert!(!ctx.is_fork);
        let run = ctx.workflow_run.unwrap();
        assert_eq!(
            (run.id, run.workflow_id, run.run_attempt),
            (555, Some(12), Some(2))
        );
        assert_eq!(run.conclusion.as_deref(), Some("failure"));
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
