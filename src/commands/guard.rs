//! What the gates ask of every ref update and every push: does it bring a commit that
//! continues a run whose breaker blocks? Judged by the commits, never by the ref's name,
//! so a branch, detached `HEAD`, a tag, `refs/wip/*`, a stash, a push of `HEAD`, of a raw
//! sha or of `v1:refs/heads/x`, and a push into this repository from another clone all
//! meet the same question.
//!
//! A blocking run's commits are the ones it recorded (and the commit a branch continuing it
//! started from). A commit *continues* it when it is new — reachable from the ref's new
//! value and from no commit any run knows — and one of its parents is one of those
//! commits: the stuck tip and anything built on it, or on any earlier commit of the run.
//! Pushing one of the run's own commits is refused too. The commits a branch's own
//! (non-blocking) run knows are that branch's: a person who reset a branch that continued
//! the stuck run goes on from the stuck tip there.
//!
//! And the agent's new work is no fresh start while a breaker blocks: a new branch, an
//! orphan branch, detached `HEAD` (any branch without a run of its own) whose new commits
//! are the agent's (as the blocking run's `agents` decides) continues that run. A person's
//! commits (with `agents` configured) are their own.
//!
//! The walk is bounded ([`JUDGE_LIMIT`] commits): past it nothing can be told, and while a
//! breaker blocks that is refused.

use std::collections::HashSet;

use anyhow::Result;

use crate::config::{Config, TripAction};
use crate::git::{GitError, Repo};
use crate::iteration::CommitId;
use crate::run::{PinSource, Run};

use super::Workspace;

/// Most commits one judgement reads: past it the gate refuses while a breaker blocks.
pub(super) const JUDGE_LIMIT: usize = 100_000;

/// Every stored run, with what each knows, and which block now.
pub(super) struct Guard {
    runs: Vec<Known>,
    /// Every commit some run recorded, started at, or continued from.
    known: Vec<CommitId>,
}

pub(super) struct Known {
    pub(super) key: String,
    pub(super) run: Run,
    pub(super) config: Config,
    pub(super) blocks: bool,
    /// What it recorded, and where a branch continuing another run started.
    commits: HashSet<CommitId>,
}

impl Known {
    /// The run's commits, and where it started: what its branch goes on from.
    fn claims(&self, id: &CommitId) -> bool {
        self.commits.contains(id) || self.run.start_commit.as_ref() == Some(id)
    }

    /// Whether new work on this run's branch is the branch's own, not the stuck agent's
    /// while `blocking` blocks: a run a person started (`init`, `reset`), or one that was
    /// there before that breaker opened. One that started after it by itself (`loopguard
    /// run` on a new branch records a test result there) is no fresh start either.
    fn owns_new_work_despite(&self, blocking: &Known) -> bool {
        let by_a_person = self.run.pinned_config.as_ref().is_some_and(|p| {
            matches!(
                p.source,
                PinSource::Init | PinSource::Accepted | PinSource::Reset
            )
        });
        by_a_person
            || blocking
                .run
                .breaker()
                .trip()
                .is_none_or(|t| self.run.started_at < t.at)
    }
}

/// Where a commit goes.
#[derive(Clone, Copy)]
pub(super) struct Target<'g> {
    /// The run of the branch it goes to, when that branch has one of its own.
    pub(super) own: Option<&'g Known>,
    /// A place for work: a branch or detached `HEAD`, or any push (not a tag, a
    /// remote-tracking ref, notes, a stash).
    pub(super) work: bool,
}

/// Why a commit may not go there.
pub(super) enum Refusal<'g> {
    /// `commit` (`None`: the commit being made) builds on `on`, a commit of the blocking
    /// run.
    BuildsOn {
        run: &'g Known,
        commit: Option<CommitId>,
        on: CommitId,
    },
    /// `commit` is one of the blocking run's own, and it would leave by push.
    Leaves { run: &'g Known, commit: CommitId },
    /// `commit` (`None`: the commit being made) is the agent's new work outside any
    /// branch's own run.
    NewWork {
        run: &'g Known,
        commit: Option<CommitId>,
    },
    /// More than [`JUDGE_LIMIT`] commits to read.
    TooMuch { run: &'g Known },
}

impl<'g> Refusal<'g> {
    pub(super) fn run(&self) -> &'g Known {
        match self {
            Refusal::BuildsOn { run, .. }
            | Refusal::Leaves { run, .. }
            | Refusal::NewWork { run, .. }
            | Refusal::TooMuch { run } => run,
        }
    }

    /// Why, in words, for `what` (`moving refs/wip/x to 1a2b3c4`).
    pub(super) fn explain(&self, what: &str) -> String {
        match self {
            Refusal::BuildsOn { commit, on, .. } => format!(
                "{what} ({} builds on {}, a commit of the stuck run; with or without --no-verify, by any ref)",
                commit
                    .as_ref()
                    .map_or_else(|| "it".to_owned(), |c| format!("its commit {}", c.short())),
                on.short()
            ),
            Refusal::Leaves { commit, .. } => format!(
                "{what} (it sends {}, a commit of the stuck run)",
                commit.short()
            ),
            Refusal::NewWork { commit, .. } => format!(
                "{what} ({} the agent's new work: while a breaker is open the agent's commits continue the stuck run, on a new or orphan branch or detached HEAD too)",
                commit.as_ref().map_or_else(
                    || "it is".to_owned(),
                    |c| format!("its commit {} is", c.short())
                )
            ),
            Refusal::TooMuch { .. } => {
                format!("{what} (it brings more than {JUDGE_LIMIT} commits to judge)")
            }
        }
    }
}

impl Guard {
    /// Every run in the store, and which block at the workspace's now.
    pub(super) fn load(ws: &Workspace<'_>) -> Guard {
        let mut guard = Guard {
            runs: Vec::new(),
            known: Vec::new(),
        };
        for (key, run) in ws.store.runs() {
            guard.put(ws, key, run);
        }
        guard
    }

    /// `run` as the run of `key` (in place of the stored one): a run judged in memory
    /// with the commits no hook recorded.
    pub(super) fn put(&mut self, ws: &Workspace<'_>, key: String, run: Run) {
        let now = ws.now();
        // Only an open (or aborted) breaker can block; its config says whether it does.
        let config = if run.breaker().blocks(TripAction::Pause) {
            ws.config_of(&run).unwrap_or_else(|e| {
                ws.warn(&format!(
                    "the config of the run {} cannot be read ({e:#}): it is judged by the defaults",
                    run.id
                ));
                Config::default()
            })
        } else {
            Config::default()
        };
        let blocks = run
            .effective_breaker(&config, now)
            .blocks(config.on_trip.action);
        let commits: HashSet<CommitId> = run
            .iterations()
            .iter()
            .map(|it| it.id.clone())
            .chain(run.inherited.as_ref().map(|i| i.at.clone()))
            .filter(CommitId::is_object_id)
            .collect();
        self.known.extend(commits.iter().cloned());
        self.known.extend(run.start_commit.clone());
        self.known.sort();
        self.known.dedup();
        self.runs.retain(|k| k.key != key);
        self.runs.push(Known {
            key,
            run,
            config,
            blocks,
            commits,
        });
    }

    /// The stored run of `key`.
    pub(super) fn own(&self, key: &str) -> Option<&Known> {
        self.runs.iter().find(|k| k.key == key)
    }

    /// The blocking run that tripped last: the one the agent's new work continues.
    fn newest_blocking(&self) -> Option<&Known> {
        self.runs
            .iter()
            .filter(|k| k.blocks)
            .max_by_key(|k| k.run.breaker().trip().map(|t| t.at))
    }

    /// Why `new` may not go to `target`, if it may not.
    pub(super) fn judge<'g>(
        &'g self,
        repo: &Repo,
        new: &CommitId,
        target: Target<'g>,
    ) -> Result<Option<Refusal<'g>>> {
        let Some(newest) = self.newest_blocking() else {
            return Ok(None);
        };
        let blocking = || self.runs.iter().filter(|k| k.blocks);
        let fresh = match repo.new_commits(new, &self.known, JUDGE_LIMIT) {
            Ok(fresh) => fresh,
            Err(GitError::TooManyCommits { .. }) => {
                return Ok(Some(Refusal::TooMuch { run: newest }));
            }
            Err(e) => return Err(e.into()),
        };
        let claimed = |id: &CommitId| target.own.is_some_and(|o| !o.blocks && o.claims(id));
        for (commit, parents) in &fresh {
            for on in parents {
                if claimed(on) {
                    continue;
                }
                if let Some(run) = blocking().find(|k| k.commits.contains(on)) {
                    return Ok(Some(Refusal::BuildsOn {
                        run,
                        commit: Some(commit.clone()),
                        on: on.clone(),
                    }));
                }
            }
        }
        if target.work && target.own.is_none_or(|o| !o.owns_new_work_despite(newest)) {
            // Oldest first: the refusal names where the new work starts.
            for (commit, _) in fresh.iter().rev() {
                let it = repo.commit_header(commit.as_str())?;
                if newest.run.is_agents(&newest.config, &it) {
                    return Ok(Some(Refusal::NewWork {
                        run: newest,
                        commit: Some(commit.clone()),
                    }));
                }
            }
        }
        Ok(None)
    }

    /// Why pushing `local` may not go on because of what leaves: a commit of a blocking
    /// run among the commits `local` reaches and none of `there` (what the remote has, as
    /// far as this repository knows) does.
    pub(super) fn leaves(
        &self,
        repo: &Repo,
        local: &CommitId,
        there: &[CommitId],
    ) -> Result<Option<Refusal<'_>>> {
        let Some(newest) = self.newest_blocking() else {
            return Ok(None);
        };
        let leaving = match repo.new_commits(local, there, JUDGE_LIMIT) {
            Ok(leaving) => leaving,
            Err(GitError::TooManyCommits { .. }) => {
                return Ok(Some(Refusal::TooMuch { run: newest }));
            }
            Err(e) => return Err(e.into()),
        };
        for (commit, _) in leaving.iter().rev() {
            if let Some(run) = self
                .runs
                .iter()
                .find(|k| k.blocks && k.commits.contains(commit))
            {
                return Ok(Some(Refusal::Leaves {
                    run,
                    commit: commit.clone(),
                }));
            }
        }
        Ok(None)
    }

    /// Why a commit not made yet, whose parent is `head` (`None`: the first commit of an
    /// orphan or unborn branch), may not go to `target`; its author is not known yet, so
    /// only a blocking run that counts everyone's commits refuses it as new work (the
    /// `reference-transaction` gate judges the commit once it exists).
    pub(super) fn judge_child<'g>(
        &'g self,
        repo: &Repo,
        head: Option<&CommitId>,
        target: Target<'g>,
    ) -> Result<Option<Refusal<'g>>> {
        let Some(newest) = self.newest_blocking() else {
            return Ok(None);
        };
        if let Some(head) = head {
            let claimed = target.own.is_some_and(|o| !o.blocks && o.claims(head));
            if !claimed
                && let Some(run) = self
                    .runs
                    .iter()
                    .find(|k| k.blocks && k.commits.contains(head))
            {
                return Ok(Some(Refusal::BuildsOn {
                    run,
                    commit: None,
                    on: head.clone(),
                }));
            }
            if let Some(refusal) = self.judge(repo, head, target)? {
                return Ok(Some(refusal));
            }
        }
        if target.work
            && target.own.is_none_or(|o| !o.owns_new_work_despite(newest))
            && newest.run.counts_everyone(&newest.config)
        {
            return Ok(Some(Refusal::NewWork {
                run: newest,
                commit: None,
            }));
        }
        Ok(None)
    }
}
