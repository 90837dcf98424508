//! The decisions of `loopguard ci` that are not the judgement itself: whether a PR may be
//! written to, where the config comes from, which commits of a PR need reading from the
//! API, which earlier workflow runs count as evidence, and how the state is made to fit in
//! the comment. Pure: the shell asks, these answer.

use std::collections::HashMap;

use super::evidence::{passed, unread_failure};
use super::records::{iteration_from_commit, iteration_from_listed_commit};
use super::state::CiState;
use crate::config::Config;
use crate::github::event::{CiContext, EventKind};
use crate::github::seal::{Binding, StateKey};
use crate::github::sticky::{StickyError, render_sticky};
use crate::github::types::{Commit, Conclusion, PullRequest, WorkflowRun};
use crate::ids::CommitId;
use crate::iteration::{Iteration, TestEvidence};
use crate::rules::attempts;

/// Colour and description of the label loopguard puts on a stuck PR.
pub const LABEL_COLOR: &str = "b60205";
pub const LABEL_DESCRIPTION: &str = "loopguard: the agent on this PR is stuck in a loop";
/// Colour and description of the label of stuck-loop issues.
pub const ISSUE_LABEL_COLOR: &str = "5319e7";
pub const ISSUE_LABEL_DESCRIPTION: &str = "loopguard: stuck-loop reports";
/// Largest state (encoded) the comment carries before old records are shed.
pub const STATE_BUDGET: usize = 40_000;

/// Whether this run may write to the PR (label, comment, issue), and if not, what to tell
/// the reader.
pub fn pr_writes(ctx: &CiContext, pr: Option<&PullRequest>) -> (bool, Option<String>) {
    match pr {
        None => (false, None),
        Some(_) if ctx.event == EventKind::PullRequest && ctx.is_fork => (
            false,
            Some("this PR comes from a fork, whose workflow token is read-only: loopguard reports here only; run it from a `workflow_run` workflow to label, comment and file issues".to_owned()),
        ),
        Some(pr) if !pr.is_open() => (false, None),
        Some(_) => (true, None),
    }
}

/// Where the config is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// The PR's base commit, or the commit before a push.
    Base(CommitId),
    /// The base branch, when no base commit is known.
    BaseBranch(String),
    /// A push that created a branch: nothing before it to trust but the branch itself
    /// (said in a note).
    Head(CommitId),
}

pub fn config_source(ctx: &CiContext, pr: Option<&PullRequest>) -> ConfigSource {
    if let Some(sha) = pr
        .map(|p| p.base.sha.clone())
        .or_else(|| ctx.base_sha.clone())
    {
        return ConfigSource::Base(sha);
    }
    match pr
        .map(|p| p.base.ref_name.clone())
        .or_else(|| ctx.base_ref.clone())
    {
        Some(r) if !r.is_empty() => ConfigSource::BaseBranch(r),
        _ => ConfigSource::Head(ctx.head_sha.clone()),
    }
}

/// `(owner, branch)` of the head, to find a fork's PR by its branch.
pub fn head_hint(ctx: &CiContext) -> Option<(String, String)> {
    let owner = ctx.head_repo.as_deref()?.split('/').next()?.to_owned();
    Some((owner, ctx.head_ref.clone()?))
}

/// Iterations of evidence the state keeps: twice the window and the head, enough for
/// every rule to look back.
pub fn keep_evidence(config: &Config) -> usize {
    2 * config.window as usize + 1
}

/// How each listed commit of a PR becomes a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordSource {
    /// The state already has its record.
    Kept,
    /// Older than the window: the listing says enough (counted, not read).
    Listed,
    /// In the window: read the commit with its files.
    Fetch,
}

/// The PR's commits up to `head` from the API: the listing for all, each commit's files
/// only for those the window needs and the state has no record of. `fetch` reads one
/// commit with its files.
pub fn api_history<E>(
    config: &Config,
    listed: Vec<Commit>,
    head: &CommitId,
    state: &CiState,
    mut fetch: impl FnMut(&CommitId) -> Result<Commit, E>,
) -> Result<Vec<Iteration>, E> {
    // Only the PR's own line is judged: what a merge brought in is carried by the merge.
    let listed = super::derive::own_line(listed, head);
    let read_from = listed.len().saturating_sub(2 * config.window as usize);
    let mut trees: HashMap<CommitId, String> = HashMap::new();
    let mut out = Vec::with_capacity(listed.len());
    for (i, c) in listed.iter().enumerate() {
        let parent_tree = c.parents.first().and_then(|p| trees.get(&p.sha)).cloned();
        let source = match state.records.get(&c.sha) {
            Some(r) if r.files.is_some() || i < read_from => RecordSource::Kept,
            _ if i < read_from => RecordSource::Listed,
            _ => RecordSource::Fetch,
        };
        let it = match source {
            RecordSource::Kept => Iteration {
                parent_tree: parent_tree.clone(),
                ..state.records[&c.sha].clone()
            },
            RecordSource::Listed => iteration_from_listed_commit(c, parent_tree.as_deref()),
            RecordSource::Fetch => {
                iteration_from_commit(&fetch(&c.sha)?, parent_tree.as_deref(), &config.tests)
            }
        };
        if let Some(t) = &it.tree {
            trees.insert(it.id.clone(), t.clone());
        }
        out.push(it);
    }
    Ok(out)
}

/// The earlier heads whose evidence is worth rebuilding from their workflow runs when the
/// state does not hold it: the newest attempts of the window, newest first, except those
/// whose runs were looked at already and gave none.
pub fn wanted_evidence(
    config: &Config,
    history: &[Iteration],
    head: &CommitId,
    state: &CiState,
) -> Vec<CommitId> {
    attempts(config, history)
        .iter()
        .rev()
        .map(|f| history[f.index].id.clone())
        .filter(|id| {
            id != head && !state.evidence.contains_key(id) && !state.without_evidence.contains(id)
        })
        .take(config.window as usize)
        .collect()
}

/// Of an earlier head's workflow runs, the one whose tests count: completed, not a
/// `workflow_run` (loopguard's own), not this run nor the one that triggered it; the
/// newest.
pub fn run_that_counts(
    runs: &[WorkflowRun],
    current: Option<u64>,
    triggering: Option<u64>,
) -> Option<&WorkflowRun> {
    runs.iter()
        .filter(|r| Some(r.id) != current && Some(r.id) != triggering)
        .filter(|r| r.event != "workflow_run" && r.is_completed())
        .max_by_key(|r| r.id)
}

/// What a completed run's conclusion says about its tests.
#[derive(Debug, Clone, PartialEq)]
pub enum RunVerdict {
    /// It passed: no log needs reading.
    Passed(TestEvidence),
    /// It failed: read the failed jobs' logs.
    ReadFailedJobs,
    /// Cancelled, skipped, still running…: no evidence (the note says why).
    NoEvidence(String),
}

pub fn run_verdict(run: &WorkflowRun) -> RunVerdict {
    let name = run.describe();
    match run.conclusion {
        Some(Conclusion::Success) => RunVerdict::Passed(passed(&name)),
        Some(c) if c.is_failure() => RunVerdict::ReadFailedJobs,
        Some(c) => RunVerdict::NoEvidence(format!(
            "{name} ended {}: no test evidence from it",
            c.as_str()
        )),
        None => RunVerdict::NoEvidence(format!(
            "{name} ended without a conclusion: no test evidence from it"
        )),
    }
}

/// The evidence of a failed run, from the evidence of its failed jobs' logs (`None`:
/// nothing readable), `source` naming them.
pub fn failed_run_evidence(read: Option<TestEvidence>, source: &str) -> TestEvidence {
    read.filter(|e| e.signature.is_some())
        .unwrap_or_else(|| unread_failure(source))
}

/// The sticky comment's body: the visible text and the state (sealed with `seal_with`
/// when there is a key), the state made small enough first (old records' files, then old
/// records, shed oldest first).
pub fn sticky_body(
    state: &mut CiState,
    visible: &str,
    order: &[CommitId],
    seal_with: Option<(&StateKey, Binding<'_>)>,
) -> Result<String, StickyError> {
    loop {
        let encoded = serde_json::to_vec(state).map_or(0, |v| v.len() * 4 / 3);
        if encoded > STATE_BUDGET && state.shed(order) {
            continue;
        }
        match render_sticky(state, visible, seal_with) {
            Ok(body) => return Ok(body),
            Err(_) if state.shed(order) => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::id;

    fn run(id_: u64, event: &str, status: &str, conclusion: Option<&str>) -> WorkflowRun {
        serde_json::from_value(serde_json::json!({
            "id": id_, "head_sha": "abc1", "event": event, "status": status,
            "conclusion": conclusion, "name": "CI"
        }))
        .unwrap()
    }

    #[test]
    fn which_run_counts() {
        let runs = [
            run(1, "pull_request", "completed", Some("failure")),
            run(2, "pull_request", "completed", Some("success")),
            run(3, "workflow_run", "completed", Some("success")),
            run(4, "pull_request", "in_progress", None),
            run(5, "pull_request", "completed", Some("failure")),
        ];
        assert_eq!(run_that_counts(&runs, None, None).map(|r| r.id), Some(5));
        assert_eq!(run_that_counts(&runs, Some(5), None).map(|r| r.id), Some(2));
        assert_eq!(
            run_that_counts(&runs, Some(5), Some(2)).map(|r| r.id),
            Some(1)
        );
    }

    #[test]
    fn what_a_conclusion_says() {
        assert!(matches!(
            run_verdict(&run(1, "push", "completed", Some("success"))),
            RunVerdict::Passed(_)
        ));
        assert_eq!(
            run_verdict(&run(1, "push", "completed", Some("timed_out"))),
            RunVerdict::ReadFailedJobs
        );
        assert_eq!(
            run_verdict(&run(1, "push", "completed", Some("cancelled"))),
            RunVerdict::NoEvidence(
                "workflow run CI #1 ended cancelled: no test evidence from it".into()
            )
        );
        let unread = failed_run_evidence(None, "workflow run CI #1");
        assert!(unread.fails() && unread.signature.is_none());
    }

    #[test]
    fn state_is_shed_to_fit() {
        let mut state = CiState::new(1);
        let order: Vec<CommitId> = (0..400).map(|i| id(&format!("c{i:04}"))).collect();
        for c in &order {
            let mut r = Iteration::new(c.clone());
            r.message = Some("x".repeat(200));
            r.files = Some(vec![crate::iteration::FileChange {
                path: "src/some/long/path/to/a/file.rs".into(),
                ..Default::default()
            }]);
            state.records.insert(c.clone(), r);
        }
        let body = sticky_body(&mut state, "visible", &order, None).unwrap();
        assert!(body.len() < crate::sanitize::COMMENT_LIMIT);
        assert!(
            state.records.values().take(10).all(|r| r.files.is_none()),
            "oldest shed first"
        );
    }
}
