//! Runs from git history: the commits no hook recorded, caught up ([`Workspace::catch_up`]),
//! a run rebuilt from where it started ([`Workspace::rebuild`]), and what a commit is to a
//! run (a cherry-pick that moves recorded work, the maintainer setting the guard up).

use anyhow::Result;
use jiff::Timestamp;

use crate::breaker::Event;
use crate::config::{CONFIG_FILE, Config};
use crate::error::StoreError;
use crate::iteration::{CommitId, Iteration, IterationKind};
use crate::run::{Run, judge_seen};
use crate::store::branch_key_bytes;

use super::super::content_hash;
use super::{BranchRun, WALK_LIMIT, Workspace};

/// Most commits one catch-up records: as many as any budget allows
/// ([`crate::config::MAX_BUDGET_ITERATIONS`]).
const CATCH_UP_LIMIT: usize = crate::config::MAX_BUDGET_ITERATIONS as usize;
/// Newest commits of a catch-up read with their change (the older ones by their header).
const CATCH_UP_EVIDENCE: usize = 256;

/// Commits no hook recorded, oldest first: the older ones read by their header only, the
/// newest with their change ([`Workspace::catch_up`]).
#[derive(Debug, Default)]
pub struct Missed {
    pub unread: Vec<Iteration>,
    pub read: Vec<Iteration>,
}

impl Missed {
    pub fn len(&self) -> usize {
        self.unread.len() + self.read.len()
    }

    /// Records them into `run`, as the hooks record commits; the events.
    pub fn record(self, config: &Config, run: &mut Run, now: Timestamp) -> Vec<Event> {
        let mut events = Vec::new();
        if let Some(out) = run.record_unread(config, self.unread, now) {
            events.extend(out.events);
        }
        for it in self.read {
            events.extend(run.record_local(config, it, now).events);
        }
        events
    }
}

impl Workspace<'_> {
    /// Commits made after the run's last recorded one that no hook recorded (hooks off,
    /// `--no-verify` on a merge, a crash, a held lock), from `from` back, oldest first.
    /// Follows first parents to the nearest commit the run knows (recorded, or where it
    /// started), so a merge brings in the merge commit (context), not the other branch's
    /// commits. Cheap in the usual case: `from` is already known and nothing is read.
    ///
    /// Nothing is left out silently. A history that does not lead back to the run
    /// (replaced, or an orphan under the branch's name) is recorded as it is; past
    /// [`CATCH_UP_LIMIT`] commits (as many as any budget allows:
    /// `budget.max_iterations` is at most that) the newest that many are recorded, which
    /// spends any budget. The newest [`CATCH_UP_EVIDENCE`] are read with their change, the
    /// older ones by their header (they count; the rules' window looks at the newest), so a
    /// catch-up of thousands of commits stays within a hook's deadline.
    pub fn catch_up(&self, run: &Run, from: Option<CommitId>) -> Result<Missed> {
        let (missed, why) = self.unrecorded(run, from)?;
        if let Some(why) = why {
            self.warn(&why);
        }
        if missed.len() > 0 {
            self.note(&format!(
                "loopguard: {} commit(s) that no hook recorded are recorded now",
                missed.len()
            ));
        }
        Ok(missed)
    }

    /// Catches up the commits before `from` that no hook recorded, into `run`
    /// ([`Workspace::catch_up`], [`Run::record_unread`], [`Run::record_local`]); the events.
    pub fn record_missed(
        &self,
        run: &mut Run,
        from: Option<CommitId>,
        now: Timestamp,
    ) -> Result<Vec<Event>> {
        let missed = self.catch_up(run, from)?;
        let before = run.recorded();
        let events = missed.record(&self.config, run, now);
        self.say_past_the_gates(run, run.recorded() - before);
        Ok(events)
    }

    /// Says which of the `n` iterations `run` recorded last came past the gates (committed
    /// while its breaker blocked: a hook that did not run, or the store edited): they count
    /// as attempts and mend nothing, and no push of them leaves.
    pub fn say_past_the_gates(&self, run: &Run, n: usize) {
        let its = run.iterations();
        let past: Vec<&Iteration> = its[its.len().saturating_sub(n)..]
            .iter()
            .filter(|it| it.around_gates)
            .collect();
        let Some(last) = past.last() else {
            return;
        };
        let what = match past.len() {
            1 => format!("{} was", last.id.short()),
            k => format!("{k} commits (the last {}) were", last.id.short()),
        };
        self.warn(&format!(
            "{what} committed while the breaker is open, past the gates (a hook that did not run, or the store edited): counted as attempts that mend nothing; no push of them leaves"
        ));
    }

    /// What [`Workspace::catch_up`] would record, and what to say about it, with nothing
    /// said.
    pub fn unrecorded(
        &self,
        run: &Run,
        from: Option<CommitId>,
    ) -> Result<(Missed, Option<String>)> {
        let (mut chain, reached) = self.repo.first_parents_after(
            run.start_commit.as_ref(),
            from,
            CATCH_UP_LIMIT,
            |id| run.knows(id),
        )?;
        if chain.is_empty() {
            return Ok((Missed::default(), None));
        }
        let why = if chain.len() == CATCH_UP_LIMIT && !reached {
            Some(format!(
                "more than {CATCH_UP_LIMIT} commits before HEAD were made without a hook recording them: the newest {CATCH_UP_LIMIT} are recorded, which spends any budget"
            ))
        } else if !reached {
            Some(format!(
                "{} commit(s) before HEAD do not lead back to what the run recorded or started from (its history was replaced): they are recorded as they are",
                chain.len()
            ))
        } else {
            None
        };
        chain.reverse();
        let split = chain.len().saturating_sub(CATCH_UP_EVIDENCE);
        let mut missed = Missed::default();
        for id in &chain[..split] {
            let mut it = self.repo.commit_header(id.as_str())?;
            // Only the subject: thousands of these are kept in the run.
            it.message = it
                .message
                .as_deref()
                .and_then(|m| m.lines().next())
                .map(|l| l.chars().take(200).collect());
            missed.unread.push(it);
        }
        missed.read = self.repo.iterations(&chain[split..])?;
        for it in missed.unread.iter_mut().chain(&mut missed.read) {
            self.classify_setup(run, it);
        }
        Ok((missed, why))
    }

    /// `run` with the commits up to HEAD that no hook recorded, recorded in memory
    /// (nothing is written), and how many: what the next hook judges.
    pub fn with_unrecorded(&self, mut run: Run) -> Result<(Run, usize)> {
        let Some(head) = self.head.id.clone() else {
            return Ok((run, 0));
        };
        if run.knows(&head) {
            return Ok((run, 0));
        }
        let (missed, _) = self.unrecorded(&run, Some(head))?;
        let n = missed.len();
        missed.record(&self.config, &mut run, self.now());
        Ok((run, n))
    }

    /// The run as git history shows it, judged from scratch as the hooks would have: from
    /// where it started (its start record, which survives a corrupt run file) to HEAD,
    /// with the same id and config.
    pub fn rebuild(&self, now: Timestamp) -> Result<Run> {
        self.rebuild_branch(self.head.branch_name.as_deref(), self.head.id.as_ref(), now)
    }

    /// [`Workspace::rebuild`] for branch `name` at `tip`.
    pub fn rebuild_branch(
        &self,
        name: Option<&[u8]>,
        tip: Option<&CommitId>,
        now: Timestamp,
    ) -> Result<Run> {
        let key = branch_key_bytes(name);
        let fresh = match self.store.read_start(&key) {
            Some(s) => {
                let mut run = Run::new(s.run, s.branch, s.started_at, s.start_commit);
                run.trusted_config = s.pinned_config.as_ref().and_then(|p| p.sha256.clone());
                run.pinned_config = s.pinned_config;
                run.inherited = s.inherited;
                run
            }
            None => {
                self.warn(
                    "where the run started is not recorded (its start record is gone or unreadable): the rebuild takes the branch's own commits",
                );
                match self.start_on(name, tip, now)? {
                    BranchRun::Own(r) | BranchRun::Continues(r) | BranchRun::Fresh(r) => {
                        let mut run = *r;
                        run.start_commit = None;
                        run
                    }
                    BranchRun::Unusable(why) => return Err(StoreError::Unusable { why }.into()),
                }
            }
        };
        let Some(head) = tip else {
            return Ok(fresh);
        };
        let config = self.config_of(&fresh)?;
        let limit = config.rules.budget.max_iterations as usize + 1;
        let ids = match &fresh.start_commit {
            Some(start) => {
                // After the start, up to HEAD: at most the `limit` newest.
                let (mut chain, _) = self.repo.first_parents_after(
                    Some(start),
                    Some(head.clone()),
                    WALK_LIMIT,
                    |id| id == start,
                )?;
                chain.truncate(limit);
                chain.reverse();
                chain
            }
            None => self.repo.branch_commits(
                head,
                name.map(String::from_utf8_lossy).as_deref(),
                limit,
            )?,
        };
        let mut history = self.repo.iterations(&ids)?;
        for it in &mut history {
            self.classify_setup(&fresh, it);
        }
        // Every step now: a commit's own time is what its author wrote, and a backdated
        // trip would be past its cooldown the moment the run is rebuilt.
        let judged = judge_seen(&config, history, &fresh.id, now, |_| Some(now));
        let mut run = judged.run;
        let fresh = fresh.into_saved();
        run.id = fresh.id;
        run.branch = fresh.branch;
        run.started_at = fresh.started_at;
        run.start_commit = fresh.start_commit;
        run.trusted_config = fresh.trusted_config;
        run.pinned_config = fresh.pinned_config;
        run.inherited = fresh.inherited;
        Ok(run)
    }

    /// Whether a cherry-pick `it` moves work some run recorded (a commit of another branch,
    /// or one a reset took off this one): that is a rewrite, not a new attempt. It is
    /// found by its patch id among the recorded commits that `it`'s parent does not
    /// already have; any other cherry-pick (of a commit made with the hooks off, of an
    /// empty commit, of a patch this branch has already) is an attempt like a commit.
    pub fn moves_recorded_work(&self, run: &Run, it: &Iteration) -> bool {
        let Some(patch) = &it.patch_id else {
            return false;
        };
        let parent = it.parents.as_ref().and_then(|p| p.first());
        let others = self.store.runs().into_iter().map(|(_, r)| r);
        std::iter::once(run.clone())
            .chain(others)
            .flat_map(|r| r.iterations().to_vec())
            .filter(|old| old.patch_id.as_ref() == Some(patch) && old.id.is_object_id())
            .any(|old| {
                parent.is_none_or(|p| {
                    !self
                        .repo
                        .is_ancestor(old.id.as_str(), p.as_str())
                        .unwrap_or(true)
                })
            })
    }

    /// A commit that only adds or updates `.loopguard.yml` to exactly the content the run
    /// is judged by is the maintainer setting the guard up, not an agent loosening it:
    /// context.
    pub fn classify_setup(&self, run: &Run, it: &mut Iteration) {
        let Some(trusted) = &run.trusted_config else {
            return;
        };
        let only_config = it
            .files
            .as_ref()
            .is_some_and(|f| !f.is_empty() && f.iter().all(|c| c.path == CONFIG_FILE));
        if only_config
            && self
                .repo
                .blob_at(it.id.as_str(), CONFIG_FILE)
                .ok()
                .flatten()
                .is_some_and(|b| &content_hash(&b) == trusted)
        {
            it.kind = Some(IterationKind::Context);
        }
    }
}
