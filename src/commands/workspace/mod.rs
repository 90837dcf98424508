//! The repository a command works in: git, the config in force, the store, and the runs of
//! its branches.
//!
//! **The config in force.** Locally the agent can write `.loopguard.yml` in the working
//! tree, so the file there does not decide: a run is judged by the config pinned in it when
//! it started ([`PinnedConfig`]: set up by `init`, accepted by `reset --accept-config`,
//! carried over by `reset`, taken from the run a branch continues, or for a new branch the
//! one last set up or accepted in the repository). A working-tree file that differs, or
//! cannot be read, is ignored with a warning and a `config_ignored` event; a committed
//! change to it trips `constraint`. Only before loopguard was ever used here (no store) is
//! the working-tree file the config, as it was always. `--config FILE` names a file on
//! purpose and is read as it is.
//!
//! **A branch's run** ([`Workspace::run_of_branch`]): the run stored under the branch's key
//! (or its journal); for a branch with no run yet, the run it continues: walking first
//! parents from its tip, the nearest commit some run knows decides — a recorded commit of a
//! run whose breaker is not closed is continued (its breaker, counters and config carry
//! over); a commit where a run started, or a commit of a closed run, starts a run of its
//! own there.
//!
//! By what it does: opening (here), the config in force (`config.rs`), a branch's run for
//! reading (`branch.rs`), the locked change of the current branch's run (`write.rs`:
//! [`Workspace::with_run`]), and runs from git history (`history.rs`: the catch-up of
//! commits no hook recorded, a rebuild).

mod branch;
mod config;
mod history;
mod write;

use std::cell::Cell;
use std::path::{Path, PathBuf};

use anyhow::Result;
use jiff::Timestamp;

use crate::breaker::Event;
use crate::config::{CONFIG_FILE, Config};
use crate::git::{Head, Repo};
use crate::report::Status;
use crate::run::{PinnedConfig, Run};
use crate::store::{Store, branch_key_bytes};

use super::Ctx;

pub(super) use branch::BranchRun;

/// Most commits a rebuild or the search for a branch's start walks.
const WALK_LIMIT: usize = 10_000;

/// The repository a command works in (see the module docs).
pub struct Workspace<'c> {
    pub ctx: &'c Ctx,
    pub repo: Repo,
    /// The worktree root (`.loopguard.yml` lives here); the git dir for a bare repository.
    pub root: PathBuf,
    /// The config in force (see the module docs).
    pub config: Config,
    pub store: Store,
    pub head: Head,
    /// The current branch's key in the store (its name's bytes, escaped).
    pub key: String,
    /// Where the config in force comes from; `None` with `--config`, or before loopguard
    /// was ever used here (the working-tree file).
    pub pin: Option<PinnedConfig>,
    /// The working-tree config, when it is not the config in force.
    pub ignored: Option<Ignored>,
    /// The config a new run starts with when a person pins one (`init`, `reset
    /// --accept-config`).
    pin_next: Option<PinnedConfig>,
    /// The current branch's run as `open` read it, taken by the first reader that asks (a
    /// hook reads it once, not twice); dropped by any write.
    opened: Cell<Option<BranchRun>>,
}

/// The working-tree config that is not in force.
#[derive(Debug, Clone)]
pub struct Ignored {
    /// Its digest, `missing`, or `unreadable` (what the event dedupes on).
    pub what: String,
    /// Why it is not the config in force, for people.
    pub why: String,
}

impl<'c> Workspace<'c> {
    /// Opens the repository the command runs in and the config in force (`config_path`
    /// names a file to use instead), and warns when the working-tree config is ignored.
    pub fn open(ctx: &'c Ctx, config_path: Option<&Path>) -> Result<Workspace<'c>> {
        let ws = Workspace::open_quietly(ctx, config_path)?;
        ws.warn_ignored();
        Ok(ws)
    }

    /// [`Workspace::open`] without the warning (commands that judge the file themselves).
    pub fn open_quietly(ctx: &'c Ctx, config_path: Option<&Path>) -> Result<Workspace<'c>> {
        let repo = Repo::discover_with_env(&ctx.dir)?;
        repo.readable()?;
        let root = repo
            .workdir()
            .map_or_else(|| repo.git_dir().to_owned(), Path::to_owned);
        let head = repo.head()?;
        let store = Store::new(repo.common_dir(), ctx.settings.clock)
            .with_failpoint(ctx.settings.knobs.failpoint.as_deref());
        let key = branch_key_bytes(head.branch_name.as_deref());
        let mut ws = Workspace {
            ctx,
            repo,
            root,
            config: Config::default(),
            store,
            head,
            key,
            pin: None,
            ignored: None,
            pin_next: None,
            opened: Cell::new(None),
        };
        if let Some(p) = config_path {
            ws.config = crate::config_file::load_named(&ctx.dir.join(p))?;
            return Ok(ws);
        }
        let file = ws.config_path();
        if !ws.store.exists() {
            // Nothing was ever set up here: the file is the config, as it always was.
            ws.config = crate::config_file::load(&file)?;
            return Ok(ws);
        }
        let current = ws.current()?;
        let pin = match &current {
            BranchRun::Own(run) | BranchRun::Continues(run) | BranchRun::Fresh(run) => {
                run.pinned_config.clone()
            }
            BranchRun::Unusable(_) => None,
        }
        .unwrap_or_else(|| ws.fallback_pin());
        ws.opened.set(Some(current));
        if pin.text.is_some() {
            // (No file pinned: the defaults the workspace already holds.)
            ws.config = ws.parse_pin(&pin)?;
        } else if let Some(guarded) = ws.guarded_workflows(&ws.config, &pin) {
            ws.config.rules.constraint.guard(guarded);
        }
        ws.ignored = ws.compare_worktree(&pin);
        ws.pin = Some(pin);
        Ok(ws)
    }

    pub fn now(&self) -> Timestamp {
        self.ctx.settings.now()
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

    /// The status document of a run (its cooldown applied as of now), by the workspace's
    /// config.
    pub fn status(&self, run: &Run, events: &[Event]) -> Status {
        status_of(&self.config, run, events, self.now())
    }
}

/// The status document of `run` by `config`, its cooldown applied at `now`.
pub(super) fn status_of(config: &Config, run: &Run, events: &[Event], now: Timestamp) -> Status {
    let mut at_now = run.clone();
    at_now.tick(config, now);
    Status::of_run(config, &at_now, events)
}
