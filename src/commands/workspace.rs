//! The repository a command works in: git, config, store, and the current branch's run.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use jiff::Timestamp;

use crate::breaker::Event;
use crate::config::{CONFIG_FILE, Config};
use crate::error::Error;
use crate::git::{Head, Repo};
use crate::iteration::{Iteration, IterationKind};
use crate::report::Status;
use crate::run::{Run, judge};
use crate::store::{Loaded, Store, branch_key};

use super::Ctx;

pub struct Workspace<'c> {
    pub ctx: &'c Ctx,
    pub repo: Repo,
    /// The worktree root (`.loopguard.yml` lives here); the git dir for a bare repository.
    pub root: PathBuf,
    pub config: Config,
    pub store: Store,
    pub head: Head,
    /// The run's key in the store (the branch, escaped).
    pub key: String,
}

impl<'c> Workspace<'c> {
    /// Opens the repository the command runs in and its config (`config_path` overrides
    /// the file).
    pub fn open(ctx: &'c Ctx, config_path: Option<&Path>) -> Result<Workspace<'c>> {
        let repo = Repo::discover_with_env(&ctx.dir)?;
        let root = repo
            .workdir()
            .map_or_else(|| repo.git_dir().to_owned(), Path::to_owned);
        let config = match config_path {
            Some(p) => {
                let p = ctx.dir.join(p);
                if !p.exists() {
                    return Err(Error::input(format!(
                        "{}: no such config file; hint: pass an existing file to --config",
                        p.display()
                    ))
                    .into());
                }
                crate::config_file::load(&p)?
            }
            None => crate::config_file::load(&root.join(CONFIG_FILE))?,
        };
        let head = repo.head()?;
        let store = Store::new(repo.common_dir());
        let key = branch_key(head.branch.as_deref());
        Ok(Workspace {
            ctx,
            repo,
            root,
            config,
            store,
            head,
            key,
        })
    }

    pub fn now(&self) -> Timestamp {
        self.ctx.env.now()
    }

    pub fn warn(&self, message: &str) {
        self.ctx.ui.warn(message);
    }

    pub fn note(&self, message: &str) {
        self.ctx.ui.note(message);
    }

    pub fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// A new run for the current branch, starting at HEAD.
    pub fn new_run(&self, now: Timestamp) -> Run {
        let mut run = Run::new(
            Run::make_id(now, self.head.branch.as_deref()),
            self.head.branch.clone(),
            now,
            self.head.id.clone(),
        );
        run.trusted_config = std::fs::read(self.config_path())
            .ok()
            .map(|b| super::content_hash(&b));
        run
    }

    /// Reads the current run without locking (writers replace the file atomically).
    /// A file that cannot be used is set aside by the next writer, not here.
    pub fn read_run(&self) -> Result<Option<Run>> {
        self.read_run_of(&self.key)
    }

    /// [`Workspace::read_run`] for another branch's key.
    pub fn read_run_of(&self, key: &str) -> Result<Option<Run>> {
        let path = self.store.run_path(key);
        match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<Run>(&bytes) {
                Ok(run) if run.format <= crate::run::RUN_FORMAT => Ok(Some(run)),
                Ok(run) => Err(Error::input(format!(
                    "{}: format {} is newer than this loopguard understands; hint: upgrade loopguard",
                    path.display(),
                    run.format
                ))
                .into()),
                Err(e) => Err(Error::input(format!(
                    "{}: the state file is corrupt ({e}); hint: the next hook sets it aside and rebuilds the run from git history, or run `loopguard reset`",
                    path.display()
                ))
                .into()),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::env(format!("cannot read {}: {e}", path.display())).into()),
        }
    }

    /// Locks the store, loads (or creates, or rebuilds) the run, lets `f` change it, and
    /// saves it with the events `f` returns. Nothing is written when `f` fails.
    pub fn with_run<T>(
        &self,
        now: Timestamp,
        f: impl FnOnce(&mut Run) -> Result<(T, Vec<Event>)>,
    ) -> Result<T> {
        let _lock = self
            .store
            .lock(self.ctx.env.lock_timeout())
            .map_err(|e| Error::env(format!("cannot lock the loopguard state: {e}")))?;
        let tag = now.strftime("%Y%m%dT%H%M%S%.fZ").to_string();
        let mut exists = false;
        let mut run = match self
            .store
            .load_run(&self.key, &tag)
            .with_context(|| format!("cannot read {}", self.store.run_path(&self.key).display()))?
        {
            Loaded::Found(run) => {
                exists = true;
                *run
            }
            Loaded::Missing => self.new_run(now),
            Loaded::SetAside { kept, why } => {
                self.warn(&format!(
                    "{} could not be used: {why}; it was kept as {} and the run is rebuilt from git history",
                    self.store.run_path(&self.key).display(),
                    kept.display()
                ));
                self.rebuild(now)?
            }
        };
        let before = exists.then(|| run.clone());
        let (value, events) = f(&mut run)?;
        if before.as_ref() != Some(&run) {
            self.store.save_run(&self.key, &run).with_context(|| {
                format!("cannot write {}", self.store.run_path(&self.key).display())
            })?;
        }
        self.store
            .append_events(&self.key, &events)
            .context("cannot append to the event log")?;
        Ok(value)
    }

    /// A run that `finish` ended is kept in `runs/ended/` and a new one starts: the next
    /// commit or event belongs to a new session.
    pub fn restart_if_finished(&self, run: &mut Run, now: Timestamp) -> Result<()> {
        if !run.is_finished() {
            return Ok(());
        }
        let path = self
            .store
            .dir()
            .join("runs")
            .join("ended")
            .join(format!("{}.json", run.id));
        crate::store::write_atomic(&path, &serde_json::to_vec_pretty(run)?)?;
        *run = self.new_run(now);
        Ok(())
    }

    /// The run as git history shows it: the branch's own commits, judged from scratch as
    /// the hooks would have.
    pub fn rebuild(&self, now: Timestamp) -> Result<Run> {
        let fresh = self.new_run(now);
        let Some(head) = &self.head.id else {
            return Ok(fresh);
        };
        let limit = self.config.rules.budget.max_iterations as usize + 1;
        let ids = self
            .repo
            .branch_commits(head, self.head.branch.as_deref(), limit)?;
        let mut history = self.repo.iterations(&ids)?;
        for it in &mut history {
            self.classify_setup(&fresh, it);
        }
        let start_commit = history
            .first()
            .and_then(|it| it.parents.as_ref())
            .and_then(|p| p.first().cloned());
        let judged = judge(&self.config, history, &fresh.id, now);
        let mut run = judged.run;
        run.id = fresh.id;
        run.branch = fresh.branch;
        run.started_at = fresh.started_at;
        run.start_commit = start_commit;
        run.trusted_config = fresh.trusted_config;
        Ok(run)
    }

    /// A commit that only adds or updates `.loopguard.yml` to exactly the content the run
    /// started with is the maintainer setting the guard up, not an agent loosening it:
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
                .is_some_and(|b| &super::content_hash(&b) == trusted)
        {
            it.kind = Some(IterationKind::Context);
        }
    }

    /// The status document of a run (its cooldown applied as of now).
    pub fn status(&self, run: &Run, events: &[Event]) -> Status {
        let mut now = run.clone();
        now.tick(&self.config, self.now());
        Status::of_run(&self.config, &now, events)
    }
}
