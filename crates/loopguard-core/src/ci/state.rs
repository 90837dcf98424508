//! What `loopguard ci` remembers about a PR between runs, kept in its sticky comment
//! (`github::sticky` wraps it in the marker and the versioned, base64 state line, and
//! seals it with `LOOPGUARD_STATE_KEY` when there is one).
//!
//! The breaker itself is not stored: every run judges the PR's history afresh (see
//! [`crate::run::judge`]), so a re-run, a force-push or a lost comment cannot leave a stale
//! state behind. A token that can edit comments can edit this one (its author stays
//! loopguard's), so what the state says is trusted only when its seal verifies with the
//! key (`ci::trust`); otherwise every field that could relax the breaker is derived again
//! from what the agent cannot edit (`ci::derive`, `ci::people`), and the rest is a cache.
//!
//! **Decisive** (relaxes the breaker if forged: trusted only sealed, else derived again):
//! - `evidence`, `without_evidence`: a failure emptied or changed breaks a streak
//!   (derived: the earlier heads' workflow runs and their failed jobs' logs);
//! - `records`: a record with another tree or patch breaks a loop (derived: the commits
//!   read from the API again);
//! - `resumes` (the dashboard's): a resume half-opens the breaker (derived: the
//!   dashboard's own workflow run and its log);
//! - `writers`: who may resume or take a turn (derived: asked again);
//! - `judged`, `gone`: what a force-push took away still counts (derived: the heads the
//!   PR's workflow runs show);
//! - `seen`: when each commit was first judged, which a cooldown counts from (derived:
//!   when GitHub first ran a workflow on it);
//! - `guarded`: the workflows protected at the base (derived: read again).
//!
//! **Cache** (nothing relaxes by it): `not_writers` (only ever refuses), `issue` (the
//! issue is found by its marker and author too), `last` (the previous verdict: wording
//! and the dashboard's row), `written_at`.
//!
//! A label removal and a person's turn are not kept: each run reads them from the PR's
//! timeline (`ci::people`). Maps are ordered so an unchanged state serialises to the same
//! bytes and the comment is not rewritten.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::breaker::{State, TerminalStatus};
use crate::config::Config;
use crate::ids::CommitId;
use crate::iteration::{Iteration, TestEvidence};
use crate::rules::RuleName;

/// The state of one PR.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CiState {
    pub pr: u64,
    /// Test evidence per commit id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub evidence: BTreeMap<CommitId, TestEvidence>,
    /// Iteration records per commit id, when the history came from the API.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub records: BTreeMap<CommitId, Iteration>,
    /// Heads whose workflow runs were looked at for evidence and gave none (cancelled,
    /// skipped, no run): not looked at again.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub without_evidence: BTreeSet<CommitId>,
    /// A maintainer let the agent try again from the dashboard (ticked its box), oldest
    /// first. (A label taken off is read from the PR's timeline each run.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumes: Vec<Resume>,
    /// People's turns as loopguard 0.1.0 kept them (they are read from the PR's timeline
    /// each run now): read, never written, only to check what an untrusted state claims.
    #[serde(default, skip_serializing)]
    pub turns: Vec<Resume>,
    /// Who was asked about and has write access, and who has not: asked once per PR.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writers: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_writers: Vec<String>,
    /// The stuck-loop issue filed for this PR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<IssueRef>,
    /// The verdict of the last run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Verdict>,
    /// The workflows that run loopguard at the base, as read from the API (the checkout,
    /// when it has the base, is read instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guarded: Option<GuardedWorkflows>,
    /// The ids of the PR's history judged last, oldest first: what a force-push can take
    /// away.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judged: Vec<CommitId>,
    /// Commits judged on earlier heads that a force-push took out of the PR (a squash, a
    /// reset) and that nothing in it rewrites, compacted, oldest first: they are still
    /// judged, before the PR's commits, so a rewrite erases no counter and a squashed
    /// commit is one more attempt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gone: Vec<Iteration>,
    /// When a run first judged each commit: an iteration steps no earlier (a commit's own
    /// time is what its author wrote, and a backdated trip would be past its cooldown at
    /// once), and a person's act falls after the commits seen before it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub seen: BTreeMap<CommitId, Timestamp>,
    /// When this state was written: a force-push after it may have taken away heads it
    /// does not know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_at: Option<Timestamp>,
}

/// The workflows that run loopguard in the tree of `at` (a base commit or branch).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardedWorkflows {
    pub at: String,
    pub paths: Vec<String>,
}

/// A resume: the breaker goes half-open after commit `after`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resume {
    pub after: CommitId,
    pub at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The dashboard's workflow run that wrote it (what it is checked against when the
    /// state is not sealed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u64>,
}

/// The stuck-loop issue as loopguard last wrote it: enough to tell whether it needs
/// writing again without reading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueRef {
    pub number: u64,
    /// sha256 of the title and body last written.
    pub digest: String,
    pub open: bool,
}

/// The breaker as a run left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub head: CommitId,
    pub state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_status: Option<TerminalStatus>,
    /// Attempts judged (absent in states written before the dashboard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<usize>,
    /// Commit time of the newest attempt that made progress (or of the first attempt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_at: Option<Timestamp>,
    /// When the breaker last opened (a trip or a reopen), even if it closed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tripped_at: Option<Timestamp>,
    /// The failure that loops, or the newest failure: short signature and first error
    /// (untrusted: rendered through `sanitize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureBrief>,
    /// The workflow run that last changed this state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u64>,
    /// While the breaker is open: the runs and CI minutes of the loop since its first
    /// repeated failure (sums only, so the state stays bounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_cost: Option<super::cost::LoopCost>,
}

/// A failure in a few words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureBrief {
    pub signature: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// Longest first error line a verdict keeps.
const FIRST_ERROR_CHARS: usize = 160;

impl Verdict {
    /// The verdict of a status: what the dashboard shows of the PR without judging again.
    pub fn of(head: &CommitId, s: &crate::report::Status, run: Option<u64>) -> Verdict {
        let progress_at = s
            .rows
            .iter()
            .rev()
            .find(|r| r.progress)
            .or(s.rows.first())
            .and_then(|r| r.at);
        let failure = s
            .looping_failure
            .as_ref()
            .or(s.last_failure())
            .and_then(|t| {
                Some(FailureBrief {
                    signature: t.signature.as_ref()?.short().to_owned(),
                    first_error: t
                        .first_error
                        .as_ref()
                        .map(|e| e.chars().take(FIRST_ERROR_CHARS).collect()),
                })
            });
        Verdict {
            head: head.clone(),
            state: s.state,
            rule: s.rule,
            reason: s.reason.clone(),
            terminal_status: s.terminal_status,
            iterations: Some(s.iterations),
            progress_at,
            tripped_at: s
                .transitions
                .iter()
                .rev()
                .find(|e| e.kind.opens())
                .map(|e| e.at),
            failure,
            run,
            loop_cost: None,
        }
    }
}

/// Longest commit message a cached record keeps (the claim of completion is pinned from
/// the whole message first).
const RECORD_MESSAGE_CHARS: usize = 500;

impl CiState {
    pub fn new(pr: u64) -> CiState {
        CiState {
            pr,
            ..CiState::default()
        }
    }

    /// The history to judge: the commits a force-push took away since they were judged
    /// (kept in [`CiState::gone`]), then `history`, the PR's commits now. A commit that
    /// left is kept unless one now rewrites it: the same patch (a rebase, a cherry-pick),
    /// or for an empty change the same subject. Records it has none of are kept by id (an
    /// attempt of unknown content). Remembers `history` as the one judged last.
    pub fn with_gone(&mut self, history: Vec<Iteration>) -> Vec<Iteration> {
        let now: BTreeSet<&CommitId> = history.iter().map(|it| &it.id).collect();
        let subject = |it: &Iteration| {
            it.message
                .as_deref()
                .and_then(|m| m.lines().next())
                .map(str::to_owned)
        };
        let rewrite_of = |old: &Iteration| {
            history
                .iter()
                .find(|it| match (&old.patch_id, &it.patch_id) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => subject(old).is_some() && subject(old) == subject(it),
                    _ => false,
                })
                .map(|it| it.id.clone())
        };
        for id in std::mem::take(&mut self.judged) {
            if now.contains(&id) || self.gone.iter().any(|g| g.id == id) {
                continue;
            }
            let old = self
                .records
                .remove(&id)
                .unwrap_or_else(|| Iteration::new(id.clone()));
            match rewrite_of(&old) {
                // Rewritten: its test evidence goes with it, as a local rebase keeps it.
                Some(new) => {
                    if let Some(ev) = self.evidence.remove(&id) {
                        self.evidence.entry(new).or_insert(ev);
                    }
                }
                None => self.gone.push(old),
            }
        }
        self.gone.retain(|g| !now.contains(&g.id));
        self.judged = history.iter().map(|it| it.id.clone()).collect();
        let mut all = self.gone.clone();
        all.extend(history);
        all
    }

    /// Puts onto the PR's history each commit's evidence, each dashboard resume right
    /// after the commit that was the head then, and the people's acts `placed` (label
    /// removals and turns, read from the timeline).
    pub fn apply_to(&self, history: &mut [Iteration], placed: &[super::people::Placed]) {
        use crate::iteration::{Intervention, InterventionKind};
        for it in history.iter_mut() {
            it.test = self.evidence.get(&it.id).cloned();
            let resumes = self
                .resumes
                .iter()
                .filter(|r| r.after == it.id)
                .map(|r| Intervention {
                    action: InterventionKind::Resume,
                    at: r.at,
                    by: r.by.clone(),
                });
            let acts = placed
                .iter()
                .filter(|p| p.after == it.id)
                .map(|p| p.intervention.clone());
            it.interventions.extend(resumes.chain(acts));
            it.interventions.sort_by_key(|iv| iv.at);
        }
    }

    /// Drops what no longer belongs to the PR's history (`ids`, oldest first): evidence
    /// and records of commits that a force-push removed, and evidence older than
    /// `keep_evidence` iterations, which no rule looks back to.
    pub fn retain_history(&mut self, ids: &[CommitId], keep_evidence: usize) {
        let all: BTreeSet<&CommitId> = ids.iter().collect();
        let recent: BTreeSet<&CommitId> = ids.iter().rev().take(keep_evidence).collect();
        self.evidence.retain(|id, _| recent.contains(id));
        self.without_evidence.retain(|id| recent.contains(id));
        self.records.retain(|id, _| all.contains(id));
        self.seen.retain(|id, _| all.contains(id));
        self.resumes.retain(|r| all.contains(&r.after));
    }

    /// Remembers the records of a history read from the API, compacted, so the next run
    /// need not read the commits again. A record whose files were shed stays without them:
    /// the state does not grow back every run only to be shed again.
    pub fn remember_records(&mut self, config: &Config, history: &[Iteration]) {
        for it in history
            .iter()
            .filter(|it| !self.gone.iter().any(|g| g.id == it.id))
        {
            let claims = it
                .claims_done
                .unwrap_or_else(|| it.message.as_deref().is_some_and(|m| config.claims_done(m)));
            let mut record = compact_record(it, claims);
            if self
                .records
                .get(&it.id)
                .is_some_and(|old| old.files.is_none())
            {
                record.files = None;
                record.skips_added = None;
            }
            self.records.insert(it.id.clone(), record);
        }
    }

    /// Remembers when each commit of `history` not seen before was first seen: `pushed`
    /// says when GitHub first ran a workflow on it (or a later commit), else `now`.
    pub fn mark_seen(
        &mut self,
        history: &[Iteration],
        pushed: &BTreeMap<CommitId, Timestamp>,
        now: Timestamp,
    ) {
        for it in history {
            let at = pushed.get(&it.id).copied().unwrap_or(now);
            self.seen.entry(it.id.clone()).or_insert(at);
        }
    }

    /// Whether a commit of `history` was never seen before.
    pub fn sees_new(&self, history: &[Iteration]) -> bool {
        history.iter().any(|it| !self.seen.contains_key(&it.id))
    }

    /// Makes room: drops the file lists of the oldest records first, then the oldest
    /// records. `false` when there is nothing left to drop.
    pub fn shed(&mut self, order: &[CommitId]) -> bool {
        for id in order {
            if let Some(r) = self.records.get_mut(id)
                && r.files.is_some()
            {
                r.files = None;
                r.skips_added = None;
                return true;
            }
        }
        for g in &mut self.gone {
            if g.files.is_some() || g.message.as_ref().is_some_and(|m| m.len() > 80) {
                g.files = None;
                g.skips_added = None;
                g.message = g.message.as_deref().map(|m| m.chars().take(80).collect());
                return true;
            }
        }
        for id in order {
            // The oldest commits' first sightings go with their records: the cooldown of a
            // trip among them counts from their own time then.
            let seen = self.seen.remove(id).is_some();
            if self.records.remove(id).is_some() || seen {
                return true;
            }
        }
        false
    }
}

/// A record made small for the state: the claim of completion pinned (so a shortened
/// message cannot change it), the message cut, and the derivable parent tree left out.
pub fn compact_record(it: &Iteration, claims_done: bool) -> Iteration {
    let mut r = it.clone();
    r.test = None;
    r.parent_tree = None;
    r.claims_done = Some(claims_done);
    if let Some(message) = &it.message {
        r.message = Some(cut_message(message, RECORD_MESSAGE_CHARS));
    }
    r
}

/// Cuts a message, keeping its `Co-authored-by:` trailers (they decide whose commit it is).
fn cut_message(message: &str, max_chars: usize) -> String {
    if message.chars().count() <= max_chars {
        return message.to_owned();
    }
    let head: String = message.chars().take(max_chars).collect();
    let trailers: Vec<&str> = message
        .lines()
        .filter(|l| {
            l.trim_start()
                .to_ascii_lowercase()
                .starts_with("co-authored-by:")
        })
        .collect();
    if trailers.is_empty() {
        head
    } else {
        format!("{head}\n\n{}", trailers.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iteration::Outcome;
    use crate::testing::{id, it};

    fn ids(n: usize) -> Vec<CommitId> {
        (0..n).map(|i| id(&format!("c{i}"))).collect()
    }

    #[test]
    fn serialisation_is_stable_and_small_when_empty() {
        let s = CiState::new(7);
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"pr":7}"#);
        let mut a = CiState::new(7);
        let mut b = CiState::new(7);
        for i in ["b", "a", "c"] {
            a.evidence.insert(id(i), TestEvidence::new(Outcome::Pass));
        }
        for i in ["c", "a", "b"] {
            b.evidence.insert(id(i), TestEvidence::new(Outcome::Pass));
        }
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
    }

    #[test]
    fn history_bounds_what_is_kept() {
        let mut s = CiState::new(1);
        for c in ids(5).into_iter().chain([id("gone")]) {
            s.evidence
                .insert(c.clone(), TestEvidence::new(Outcome::Fail));
            s.records.insert(c.clone(), Iteration::new(c));
        }
        s.resumes.push(Resume {
            after: id("gone"),
            at: Timestamp::UNIX_EPOCH,
            by: None,
            run: None,
        });
        s.retain_history(&ids(5), 3);
        assert_eq!(
            s.evidence.keys().cloned().collect::<Vec<_>>(),
            ids(5)[2..].to_vec()
        );
        assert_eq!(s.records.len(), 5);
        assert!(s.resumes.is_empty());
    }

    #[test]
    fn shedding_drops_files_first_then_records() {
        let mut s = CiState::new(1);
        for c in ids(2) {
            let mut record = Iteration::new(c.clone());
            record.files = Some(vec![]);
            s.records.insert(c, record);
        }
        let order = ids(2);
        assert!(s.shed(&order));
        assert_eq!(s.records[&order[0]].files, None);
        assert!(s.records[&order[1]].files.is_some());
        assert!(s.shed(&order));
        assert!(s.shed(&order));
        assert_eq!(s.records.len(), 1);
        assert!(s.shed(&order));
        assert!(!s.shed(&order));
    }

    #[test]
    fn remembered_records_stay_shed() {
        let c = Config::default();
        let record = |i: &str| Iteration {
            message: Some("All tests pass, done".into()),
            files: Some(vec![]),
            ..it(i)
        };
        let mut s = CiState::new(1);
        s.remember_records(&c, &[record("a"), record("b")]);
        assert_eq!(s.records[&id("a")].claims_done, Some(true));
        assert!(s.shed(&[id("a"), id("b")]));
        s.remember_records(&c, &[record("a"), record("b")]);
        assert_eq!(
            s.records[&id("a")].files,
            None,
            "shed files do not come back"
        );
        assert_eq!(s.records[&id("b")].files, Some(vec![]));
    }

    #[test]
    fn compact_records_keep_trailers_and_the_claim() {
        let long = format!(
            "Fix it\n\n{}\n\nCo-authored-by: Claude <noreply@anthropic.com>",
            "x".repeat(900)
        );
        let record = Iteration {
            message: Some(long),
            parent_tree: Some("p".into()),
            test: Some(TestEvidence::new(Outcome::Fail)),
            ..it("a")
        };
        let r = compact_record(&record, true);
        let m = r.message.unwrap();
        assert!(m.chars().count() < 600);
        assert!(m.ends_with("Co-authored-by: Claude <noreply@anthropic.com>"));
        assert_eq!(
            (r.claims_done, r.parent_tree, r.test),
            (Some(true), None, None)
        );
    }

    #[test]
    fn the_state_puts_evidence_and_resumes_back_on_the_history() {
        let mut s = CiState::new(1);
        s.evidence
            .insert(id("c1"), TestEvidence::new(Outcome::Pass));
        s.resumes.push(Resume {
            after: id("c1"),
            at: Timestamp::UNIX_EPOCH,
            by: Some("maintainer".into()),
            run: Some(42),
        });
        let mut h = vec![it("c0"), it("c1")];
        s.apply_to(&mut h, &[]);
        assert_eq!((h[0].test.is_some(), h[1].test.is_some()), (false, true));
        assert_eq!(h[1].interventions.len(), 1);
        assert_eq!(h[1].interventions[0].by.as_deref(), Some("maintainer"));
    }
}
