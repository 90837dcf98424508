//! What the state in loopguard's comment would say, derived again from what no token of
//! the agent's can edit: the PR's workflow runs (which heads it had, when GitHub first saw
//! each, what their tests said) and a dashboard's own run and log (who ticked a box, for
//! which PR). Used when the state is not sealed with the key, or is stale; see
//! [`super::state`] for which fields decide and which are a cache. Pure: the shell lists
//! the runs and reads the logs.

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::state::Resume;
use crate::github::types::{Commit, PullRequest, WorkflowRun};
use crate::ids::CommitId;
use crate::iteration::Iteration;

/// A head the PR had, and when GitHub first saw it (its first workflow run's creation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Push {
    pub head: CommitId,
    pub at: Timestamp,
}

/// The heads of `pr` that GitHub ran workflows for, oldest push first: runs of its head
/// branch in its head repository (a fork's runs name no PR), or that name the PR.
pub fn pushes(runs: &[WorkflowRun], pr: &PullRequest) -> Vec<Push> {
    let head_repo = pr.head.repo.as_ref().map(|r| r.full_name.as_str());
    let ours = |r: &WorkflowRun| {
        r.pull_requests.iter().any(|p| p.number == pr.number)
            || (r.head_branch.as_deref() == Some(pr.head.ref_name.as_str())
                && match (r.head_repository.as_ref(), head_repo) {
                    (Some(a), Some(b)) => a.full_name.eq_ignore_ascii_case(b),
                    _ => true,
                })
    };
    let mut first: BTreeMap<&CommitId, Timestamp> = BTreeMap::new();
    for r in runs.iter().filter(|r| r.event != "workflow_run" && ours(r)) {
        let Some(at) = r.created_at else { continue };
        first
            .entry(&r.head_sha)
            .and_modify(|t| *t = (*t).min(at))
            .or_insert(at);
    }
    let mut out: Vec<Push> = first
        .into_iter()
        .map(|(head, at)| Push {
            head: head.clone(),
            at,
        })
        .collect();
    out.sort_by_key(|p| p.at);
    out
}

/// The commits of a listing (a `compare` of the base and `head`, oldest first) on `head`'s
/// own line: up to `head`, what merges brought in left out (carried by the merge).
pub fn own_line(mut listed: Vec<Commit>, head: &CommitId) -> Vec<Commit> {
    if let Some(end) = listed.iter().position(|c| &c.sha == head) {
        listed.truncate(end + 1);
    }
    let parents: Vec<Vec<CommitId>> = listed
        .iter()
        .map(|c| c.parents.iter().map(|p| p.sha.clone()).collect())
        .collect();
    let keep = crate::first_parent::on_line(
        &listed.iter().zip(&parents).collect::<Vec<_>>(),
        |(c, _)| &c.sha,
        |(_, p)| Some(p.as_slice()),
    );
    let mut keep = keep.into_iter();
    listed.retain(|_| keep.next().unwrap_or(true));
    listed
}

/// When GitHub first saw each commit of `history` (oldest first): with the first push of
/// it or of a commit after it (a push brings the commits before its head). A commit no
/// push shows yet is seen `now`.
pub fn pushed_at(
    history: &[Iteration],
    pushes: &[Push],
    now: Timestamp,
) -> BTreeMap<CommitId, Timestamp> {
    let at: BTreeMap<&CommitId, Timestamp> = pushes.iter().map(|p| (&p.head, p.at)).collect();
    let mut out = BTreeMap::new();
    let mut earliest = now;
    for it in history.iter().rev() {
        if let Some(t) = at.get(&it.id) {
            earliest = earliest.min(*t);
        }
        out.insert(it.id.clone(), earliest);
    }
    out
}

/// The heads GitHub ran workflows for that `known` does not know (neither judged by the
/// state nor in the PR's history): a state that does not know them is not the newest one.
pub fn unknown_heads(pushes: &[Push], known: impl Fn(&CommitId) -> bool) -> Vec<CommitId> {
    pushes
        .iter()
        .filter(|p| !known(&p.head))
        .map(|p| p.head.clone())
        .collect()
}

/// The line a dashboard run prints for each PR it resumed, which [`dashboard_resume`]
/// looks for in that run's log.
pub fn resumed_line(pr: u64, by: &str) -> String {
    format!("resumed #{pr} (ticked on the dashboard by {by})")
}

/// Whether a dashboard's resume of PR `pr` holds, checked against the workflow run it names
/// (`run`) and that run's log (`log`): an `issues` run (an edit of the dashboard) that
/// the person it names triggered, who is no bot and not the PR's author, and whose log
/// says it resumed this PR for them. Write access is the shell's to ask. `Ok` gives when
/// it happened (the run's creation), by which it is placed.
pub fn dashboard_resume(
    resume: &Resume,
    run: &WorkflowRun,
    pr: u64,
    author: Option<&str>,
    log: &str,
) -> Result<Timestamp, String> {
    let Some(by) = resume.by.as_deref() else {
        return Err("it names no one".to_owned());
    };
    if run.event != "issues" {
        return Err(format!(
            "its workflow run #{} was started by `{}`, not by an edit of the dashboard",
            run.id, run.event
        ));
    }
    let triggered_by = run
        .triggering_actor
        .as_ref()
        .or(run.actor.as_ref())
        .map(|u| u.login.as_str());
    if !triggered_by.is_some_and(|t| t.eq_ignore_ascii_case(by)) {
        return Err(format!(
            "its workflow run #{} was started by {}, not {by}",
            run.id,
            triggered_by.unwrap_or("someone GitHub does not name")
        ));
    }
    if by.ends_with("[bot]") || author.is_some_and(|a| a.eq_ignore_ascii_case(by)) {
        return Err(format!("{by} is a bot or the PR's own author"));
    }
    let line = resumed_line(pr, by);
    if !log.lines().any(|l| log_line_is(l, &line)) {
        return Err(format!(
            "the log of its workflow run #{} does not say it resumed #{pr}",
            run.id
        ));
    }
    run.created_at
        .ok_or_else(|| format!("its workflow run #{} has no time", run.id))
}

/// Whether a job-log line is `line` as a program printed it: alone on its line, after
/// the timestamp GitHub puts first.
fn log_line_is(log_line: &str, line: &str) -> bool {
    let text = log_line.trim_end_matches(['\r', '\n']);
    let text = match text.split_once(' ') {
        Some((stamp, rest)) if stamp.parse::<Timestamp>().is_ok() => rest,
        _ => text,
    };
    text == line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{History, id, ts};

    fn run(head: &str, branch: &str, secs: i64, event: &str) -> WorkflowRun {
        serde_json::from_value(serde_json::json!({
            "id": secs, "head_sha": id(head).as_str(), "head_branch": branch, "event": event,
            "status": "completed", "conclusion": "failure",
            "created_at": ts(secs).to_string(),
            "head_repository": {"full_name": "octo-org/widgets"},
            "actor": {"login": "maintainer"}, "triggering_actor": {"login": "maintainer"}
        }))
        .unwrap()
    }

    fn pr() -> PullRequest {
        serde_json::from_value(serde_json::json!({
            "number": 7,
            "head": {"ref": "agent/fix", "sha": id("c").as_str(), "repo": {"full_name": "octo-org/widgets"}},
            "base": {"ref": "main", "sha": id("b").as_str()}
        }))
        .unwrap()
    }

    #[test]
    fn pushes_are_the_prs_heads_first_seen() {
        let runs = [
            run("a", "agent/fix", 300, "pull_request"),
            run("a", "agent/fix", 100, "pull_request"),
            run("a", "agent/fix", 50, "workflow_run"),
            run("b", "agent/fix", 200, "pull_request"),
            run("x", "main", 10, "push"),
        ];
        let p = pushes(&runs, &pr());
        let got: Vec<(CommitId, Timestamp)> = p.iter().map(|p| (p.head.clone(), p.at)).collect();
        assert_eq!(got, [(id("a"), ts(100)), (id("b"), ts(200))]);
        assert_eq!(unknown_heads(&p, |h| *h == id("a")), [id("b")]);
    }

    #[test]
    fn a_commit_is_seen_with_the_first_push_that_brought_it() {
        let h = History::new().fresh().fresh().fresh().fresh();
        let push = |i: usize, secs: i64| Push {
            head: h.its[i].id.clone(),
            at: ts(secs),
        };
        let seen = pushed_at(&h.its, &[push(1, 100), push(3, 300)], ts(999));
        let got: Vec<Timestamp> = h.its.iter().map(|it| seen[&it.id]).collect();
        assert_eq!(got, [ts(100), ts(100), ts(300), ts(300)]);
        let unseen = pushed_at(&h.its, &[push(1, 100)], ts(999));
        assert_eq!(unseen[&h.its[3].id], ts(999));
    }

    #[test]
    fn a_dashboard_resume_holds_only_as_its_run_and_log_say() {
        let resume = Resume {
            after: id("a"),
            at: ts(500),
            by: Some("maintainer".into()),
            run: Some(100),
        };
        let dash = run("main1", "main", 100, "issues");
        let log = format!(
            "2026-11-25T12:00:00.1234567Z dashboard: 1 stuck\n2026-11-25T12:00:00.2Z {}\n",
            resumed_line(7, "maintainer")
        );
        assert_eq!(
            dashboard_resume(&resume, &dash, 7, Some("Copilot"), &log),
            Ok(ts(100))
        );
        let fails = |resume: &Resume, run: &WorkflowRun, pr: u64, log: &str| {
            dashboard_resume(resume, run, pr, Some("Copilot"), log).unwrap_err()
        };
        assert!(fails(&resume, &dash, 8, &log).contains("does not say it resumed #8"));
        let by_agent = Resume {
            by: Some("Copilot".into()),
            ..resume.clone()
        };
        assert!(fails(&by_agent, &dash, 7, &log).contains("not Copilot"));
        let push = run("main1", "main", 100, "push");
        assert!(fails(&resume, &push, 7, &log).contains("not by an edit of the dashboard"));
        // Quoted inside another line (a title, a note) it is not the dashboard's line.
        let quoted = format!(
            "2026-11-25T12:00:00Z warning: {}\n",
            resumed_line(7, "maintainer")
        );
        assert!(fails(&resume, &dash, 7, &quoted).contains("does not say"));
    }
}
