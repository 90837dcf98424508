//! When the state in loopguard's comment is not trusted (no key, no seal, a broken seal,
//! or a sealed state older than the PR's last force-push), what it would have kept is
//! derived again from what the agent cannot edit: the PR's workflow runs say which heads
//! it had and when GitHub first saw each (`crate::ci::derive`), and the commits a
//! force-push took away are read again from the API.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use crate::ci::derive::{self as derived, Push};
use crate::ci::people::force_pushed_after;
use crate::ci::records::{iteration_from_commit, iteration_from_listed_commit};
use crate::ci::state::CiState;
use crate::ci::trust::{Trust, Why};
use crate::config::Config;
use crate::github::{PullRequest, RunFilter, WorkflowRun};
use crate::iteration::{CommitId, Iteration};

use super::{PrState, Session};

impl Session<'_> {
    /// The workflow runs of the PR's head branch (every workflow's), listed once.
    pub(super) fn pr_runs(&mut self, pr: &PullRequest) -> Result<&[WorkflowRun]> {
        if self.runs.is_none() {
            let runs = self.client.workflow_runs(&RunFilter {
                branch: Some(pr.head.ref_name.clone()).filter(|b| !b.is_empty()),
                ..RunFilter::default()
            })?;
            self.runs = Some(runs);
        }
        Ok(self.runs.as_deref().unwrap_or_default())
    }

    /// The PR's pushes: its heads and when GitHub first saw each.
    fn pushes(&self, pr: &PullRequest) -> Vec<Push> {
        self.runs
            .as_deref()
            .map(|runs| derived::pushes(runs, pr))
            .unwrap_or_default()
    }

    /// Settles how far the comment's state is trusted, and derives what it would have
    /// kept when it is not. A sealed state is stale when the PR was force-pushed since it
    /// was written and the workflow runs show heads it does not know (an older sealed
    /// state put back: what it does not know, a force-push would take away unseen); the
    /// history read with its records is read again then.
    pub(super) fn settle_trust(
        &mut self,
        pr: &PullRequest,
        config: &Config,
        history: &mut Vec<Iteration>,
        pr_state: &mut PrState,
    ) -> Result<()> {
        if pr_state.trust.is_sealed() {
            let since = pr_state
                .state
                .written_at
                .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
            if !force_pushed_after(&pr_state.timeline, since) {
                return Ok(());
            }
            self.pr_runs(pr)?;
            let state = &pr_state.state;
            let known: BTreeSet<&CommitId> = state
                .judged
                .iter()
                .chain(state.gone.iter().map(|g| &g.id))
                .chain(history.iter().map(|it| &it.id))
                .chain([&self.trigger.head_sha])
                .collect();
            let unknown = derived::unknown_heads(&self.pushes(pr), |h| known.contains(h));
            if unknown.is_empty() {
                return Ok(());
            }
            pr_state.trust = Trust::Derived(Why::Stale {
                heads: unknown.len(),
            });
            self.log_trust(&pr_state.trust.clone());
            let stale = std::mem::replace(&mut pr_state.state, CiState::new(pr.number));
            pr_state.untrusted = Some(stale);
            *history = self.history(Some(pr), config, &pr_state.state)?;
        }
        self.pr_runs(pr)?;
        self.derive_gone(pr, config, history, &mut pr_state.state)
    }

    /// The commits the PR's earlier heads had that it no longer has (a force-push took
    /// them away), as the state would have judged them: the heads the workflow runs show
    /// that the history lacks, each read back to the base (`compare`), oldest push first.
    /// The newest `2 × window` of them are read with their files (patch ids: a rebased
    /// commit is a rewrite, not one more attempt); older ones as listed.
    fn derive_gone(
        &mut self,
        pr: &PullRequest,
        config: &Config,
        history: &[Iteration],
        state: &mut CiState,
    ) -> Result<()> {
        let in_history: BTreeSet<&CommitId> = history.iter().map(|it| &it.id).collect();
        let head = self.trigger.head_sha.clone();
        let unknown =
            derived::unknown_heads(&self.pushes(pr), |h| in_history.contains(h) || *h == head);
        let mut earlier = Vec::new();
        let mut taken: BTreeSet<CommitId> = BTreeSet::new();
        for gone_head in unknown {
            let Some(listed) = self.client.compare_commits(&pr.base.sha, &gone_head)? else {
                self.note(format!(
                    "the earlier head {} is no longer on GitHub: its commits are not counted",
                    gone_head.short()
                ));
                continue;
            };
            for c in derived::own_line(listed, &gone_head) {
                if !in_history.contains(&c.sha) && taken.insert(c.sha.clone()) {
                    earlier.push(c);
                }
            }
        }
        let read_from = earlier.len().saturating_sub(2 * config.window as usize);
        let mut trees: BTreeMap<CommitId, String> = history
            .iter()
            .filter_map(|it| Some((it.id.clone(), it.tree.clone()?)))
            .collect();
        for (i, c) in earlier.iter().enumerate() {
            let parent_tree = c.parents.first().and_then(|p| trees.get(&p.sha)).cloned();
            let it = if i < read_from {
                iteration_from_listed_commit(c, parent_tree.as_deref())
            } else {
                let full = self.client.commit(&c.sha)?;
                iteration_from_commit(&full, parent_tree.as_deref(), &config.tests)
            };
            if let Some(t) = &it.tree {
                trees.insert(it.id.clone(), t.clone());
            }
            state.judged.push(it.id.clone());
            state.records.insert(it.id.clone(), it);
        }
        Ok(())
    }

    /// When each commit was first seen: when GitHub first ran a workflow on it (the PR's
    /// workflow runs, listed once), as a person's turn is placed (README, "A person's
    /// turn"); a trusted state knows the earlier ones, and lists the runs only when a
    /// commit is new to it. A commit no run shows yet is seen `now`.
    pub(super) fn note_when_seen(
        &mut self,
        pr: Option<&PullRequest>,
        pr_state: &mut PrState,
        history: &[Iteration],
        now: jiff::Timestamp,
    ) -> Result<()> {
        let pushes = match pr {
            Some(pr) if !pr_state.trust.is_sealed() || pr_state.state.sees_new(history) => {
                self.pr_runs(pr)?;
                self.pushes(pr)
            }
            _ => Vec::new(),
        };
        let pushed = derived::pushed_at(history, &pushes, now);
        if pr_state.trust.is_sealed() {
            pr_state.state.mark_seen(history, &pushed, now);
        } else {
            pr_state.state.seen = pushed;
        }
        Ok(())
    }
}
