//! A branch's run (see the module docs of `workspace`): its own, the open run it continues
//! because it was branched from one of that run's commits, or the one it would start.

use std::collections::HashMap;

use anyhow::Result;
use jiff::Timestamp;

use crate::breaker::State;
use crate::config::{Config, TripAction};
use crate::error::StoreError;
use crate::iteration::CommitId;
use crate::run::{PinSource, PinnedConfig, Run};
use crate::store::{Peeked, branch_key_bytes};

use super::{WALK_LIMIT, Workspace};

/// A branch's run, for reading.
#[derive(Debug)]
pub enum BranchRun {
    /// The branch's own run.
    Own(Box<Run>),
    /// The branch has no run yet and continues this one (already renamed for it).
    Continues(Box<Run>),
    /// The branch has no run yet; this is the run it would start.
    Fresh(Box<Run>),
    /// Its state cannot be used: why.
    Unusable(String),
}

impl BranchRun {
    /// The run, when there is one to judge by (not a fresh start).
    pub fn into_run(self) -> Option<Run> {
        match self {
            BranchRun::Own(r) | BranchRun::Continues(r) => Some(*r),
            BranchRun::Fresh(_) | BranchRun::Unusable(_) => None,
        }
    }
}

/// Where a branch with no run of its own meets the runs there are.
struct Fork {
    commit: CommitId,
    /// Index into the runs searched.
    run: usize,
    /// The commit is a recorded iteration of that run (not only where it started).
    recorded: bool,
}

impl Workspace<'_> {
    /// A run for `branch` (display form) starting at `start`, judged by `pin`.
    fn fresh_run(
        &self,
        now: Timestamp,
        branch: Option<String>,
        start: Option<CommitId>,
        pin: Option<PinnedConfig>,
    ) -> Run {
        let mut run = Run::new(Run::make_id(now, branch.as_deref()), branch, now, start);
        run.trusted_config = pin.as_ref().and_then(|p| p.sha256.clone());
        run.pinned_config = pin;
        run
    }

    /// The run the current branch starts now (it has none): the run it continues, or a
    /// run of its own.
    pub fn new_run(&self, now: Timestamp) -> Result<Run> {
        match self.start_on(self.head.branch_name.as_deref(), self.head.id.as_ref(), now)? {
            BranchRun::Own(r) | BranchRun::Continues(r) | BranchRun::Fresh(r) => Ok(*r),
            BranchRun::Unusable(why) => Err(StoreError::Unusable { why }.into()),
        }
    }

    /// A new run for the current branch that takes over from `old` (reset, finish): its
    /// config carries over unless a person pinned another.
    pub fn next_run(&self, old: &Run, now: Timestamp) -> Run {
        let pin = self.pin_next.clone().or_else(|| {
            old.pinned_config.clone().map(|mut p| {
                p.source = PinSource::Reset;
                p
            })
        });
        self.fresh_run(now, self.head.branch.clone(), self.head.id.clone(), pin)
    }

    /// What the current branch's run is now (read from disk, no lock).
    pub fn current(&self) -> Result<BranchRun> {
        self.run_of_branch(self.head.branch_name.as_deref(), self.head.id.as_ref())
    }

    /// The run of branch `name` (its bytes; `None`: detached HEAD) whose tip is `tip`,
    /// for reading: its own, the one it continues, or the one it would start (see the
    /// module docs). Nothing is written.
    pub fn run_of_branch(&self, name: Option<&[u8]>, tip: Option<&CommitId>) -> Result<BranchRun> {
        if name == self.head.branch_name.as_deref()
            && tip == self.head.id.as_ref()
            && let Some(opened) = self.opened.take()
        {
            return Ok(opened);
        }
        let key = branch_key_bytes(name);
        match self
            .store
            .peek_run(&key)
            .map_err(StoreError::io("read", &self.store.run_path(&key)))?
        {
            Peeked::Found(run) => return Ok(BranchRun::Own(run)),
            Peeked::Unusable(why) => return Ok(BranchRun::Unusable(why)),
            Peeked::Missing => {}
        }
        self.start_on(name, tip, self.now())
    }

    /// The run a branch with no run of its own starts: see the module docs.
    pub(super) fn start_on(
        &self,
        name: Option<&[u8]>,
        tip: Option<&CommitId>,
        now: Timestamp,
    ) -> Result<BranchRun> {
        let key = branch_key_bytes(name);
        let branch = name.map(|n| String::from_utf8_lossy(n).into_owned());
        let runs: Vec<Run> = self
            .store
            .runs()
            .into_iter()
            .filter(|(k, _)| *k != key)
            .map(|(_, r)| r)
            .collect();
        let fork = match tip {
            Some(tip) => self.fork_point(tip, &runs)?,
            None => None,
        };
        let next = self.pin_next.clone();
        let repository = |found: Option<&Run>| {
            found
                .and_then(|r| r.pinned_config.clone())
                .or_else(|| self.store.accepted_config())
                .map(|mut p| {
                    p.source = PinSource::Repository;
                    p
                })
        };
        // New work: the branch has commits past where it meets the runs (a branch cut at
        // a commit some run knows brings nothing new).
        let blocking = match (&fork, tip) {
            (Some(f), _) if f.recorded && continues(&runs[f.run]) => None,
            (Some(f), Some(tip)) if &f.commit == tip => None,
            (_, Some(tip)) => self.continued_by_agents_work(&runs, tip, now)?,
            (_, None) => None,
        };
        Ok(match fork {
            Some(f) if f.recorded && continues(&runs[f.run]) => BranchRun::Continues(Box::new(
                runs[f.run].continued_as(Run::make_id(now, branch.as_deref()), branch, f.commit),
            )),
            _ if let Some(run) = blocking => {
                let at = fork.map_or_else(|| tip.cloned(), |f| Some(f.commit));
                BranchRun::Continues(Box::new(run.continued_as(
                    Run::make_id(now, branch.as_deref()),
                    branch,
                    at.expect("a tip was judged"),
                )))
            }
            Some(f) => {
                let pin = next
                    .or_else(|| repository(Some(&runs[f.run])))
                    .unwrap_or_else(|| self.committed_pin(Some(&f.commit), PinSource::Committed));
                BranchRun::Fresh(Box::new(self.fresh_run(
                    now,
                    branch,
                    Some(f.commit),
                    Some(pin),
                )))
            }
            None => {
                let pin = next
                    .or_else(|| repository(None))
                    .unwrap_or_else(|| self.committed_pin(tip, PinSource::Committed));
                BranchRun::Fresh(Box::new(self.fresh_run(
                    now,
                    branch,
                    tip.cloned(),
                    Some(pin),
                )))
            }
        })
    }

    /// The run a branch with no run of its own continues because its tip is the agent's
    /// work while that run's breaker blocks (the one that tripped last): a new branch, an
    /// orphan branch or detached `HEAD` is no fresh start for a stuck agent. A person's
    /// commit (with `agents` configured) starts a run of its own.
    fn continued_by_agents_work<'r>(
        &self,
        runs: &'r [Run],
        tip: &CommitId,
        now: Timestamp,
    ) -> Result<Option<&'r Run>> {
        let mut blocking: Vec<(&Run, Config)> = Vec::new();
        for run in runs
            .iter()
            .filter(|r| r.breaker().blocks(TripAction::Pause))
        {
            let config = self.config_of(run).unwrap_or_default();
            if run
                .effective_breaker(&config, now)
                .blocks(config.on_trip.action)
            {
                blocking.push((run, config));
            }
        }
        let Some((run, config)) = blocking
            .into_iter()
            .max_by_key(|(r, _)| r.breaker().trip().map(|t| t.at))
        else {
            return Ok(None);
        };
        let it = self.repo.commit_header(tip.as_str())?;
        Ok(run.is_agents(&config, &it).then_some(run))
    }

    /// Walking first parents from `tip`, the nearest commit one of `runs` recorded or
    /// started at.
    fn fork_point(&self, tip: &CommitId, runs: &[Run]) -> Result<Option<Fork>> {
        let mut known: HashMap<&CommitId, (usize, bool)> = HashMap::new();
        for (i, run) in runs.iter().enumerate() {
            if let Some(start) = &run.start_commit {
                known.entry(start).or_insert((i, false));
            }
        }
        for (i, run) in runs.iter().enumerate() {
            for it in run.iterations() {
                let entry = known.entry(&it.id).or_insert((i, true));
                // Several runs recorded it (one continues another): the one not closed.
                if !entry.1 || (!continues(&runs[entry.0]) && continues(run)) {
                    *entry = (i, true);
                }
            }
        }
        if known.is_empty() {
            return Ok(None);
        }
        let mut id = tip.clone();
        for _ in 0..WALK_LIMIT {
            if let Some(&(run, recorded)) = known.get(&id) {
                return Ok(Some(Fork {
                    commit: id,
                    run,
                    recorded,
                }));
            }
            match self.first_parent(&id) {
                Some(p) => id = p,
                None => break,
            }
        }
        Ok(None)
    }

    /// The first parent of `id`; `None` for a root, and at a shallow boundary or a
    /// missing commit (the walk ends there, as in git).
    pub(super) fn first_parent(&self, id: &CommitId) -> Option<CommitId> {
        self.repo.parents(id).ok()?.into_iter().next()
    }

    /// Reads the current branch's run without locking (writers replace files atomically).
    /// A state that cannot be used is an input error saying why (the next hook sets it
    /// aside and rebuilds the run).
    pub fn read_run(&self) -> Result<Option<Run>> {
        match self.current()? {
            BranchRun::Unusable(why) => Err(StoreError::Unusable { why }.into()),
            other => Ok(other.into_run()),
        }
    }

    /// The stored run (or the one the branch continues), or the run it would start.
    pub fn run_or_new(&self) -> Result<Run> {
        match self.read_run()? {
            Some(run) => Ok(run),
            None => self.new_run(self.now()),
        }
    }

    /// The run the current branch starts now: from its start, or the one it continues.
    pub(super) fn start_run(&self, now: Timestamp) -> Result<Run> {
        let run = self.new_run(now)?;
        if let Some(from) = &run.inherited {
            let branch = self.head.branch.as_deref().unwrap_or("(detached HEAD)");
            self.note(&format!(
                "loopguard: {} starts from {} of the run {} ({}), whose breaker is {}: it continues that run",
                crate::sanitize::printable(branch),
                from.at.short(),
                from.run,
                crate::sanitize::printable(from.branch.as_deref().unwrap_or("(detached)")),
                run.breaker().state()
            ));
        }
        Ok(run)
    }
}

/// Whether a run with this breaker is continued by a branch started from its commits: it
/// is not closed (open, half-open or aborted) and not finished.
fn continues(run: &Run) -> bool {
    run.breaker().state() != State::Closed && !run.is_finished()
}
