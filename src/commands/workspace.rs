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
//! (or its journal); for a branch with no run yet, the
//! run it continues: walking first parents from its tip, the nearest commit some run knows
//! decides — a recorded commit of a run whose breaker is not closed is continued (its
//! breaker, counters and config carry over); a commit where a run started, or a commit of a
//! closed run, starts a run of its own there.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use jiff::Timestamp;

use crate::breaker::{Event, EventKind, State};
use crate::config::{CONFIG_FILE, Config, TripAction};
use crate::error::{ConfigFileError, StoreError};
use crate::git::{Head, Repo};
use crate::iteration::{CommitId, Iteration, IterationKind};
use crate::report::{Status, markdown};
use crate::run::{PinSource, PinnedConfig, Run, judge_seen};
use crate::store::{
    Change, Durability, Loaded, Locked, Peeked, StartRecord, Store, branch_key_bytes,
};

use super::{Ctx, content_hash};

/// Most commits a rebuild or the search for a branch's start walks.
const WALK_LIMIT: usize = 10_000;
/// Most commits one catch-up records: as many as any budget allows
/// ([`crate::config::MAX_BUDGET_ITERATIONS`]).
const CATCH_UP_LIMIT: usize = crate::config::MAX_BUDGET_ITERATIONS as usize;
/// Newest commits of a catch-up read with their change (the older ones by their header).
const CATCH_UP_EVIDENCE: usize = 256;

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
    pin_next: RefCell<Option<PinnedConfig>>,
    /// The current branch's run as `open` read it, for the first reader that asks (a hook
    /// reads it once, not twice); dropped by any write.
    opened: RefCell<Option<BranchRun>>,
}

/// The working-tree config that is not in force.
#[derive(Debug, Clone)]
pub struct Ignored {
    /// Its digest, `missing`, or `unreadable` (what the event dedupes on).
    pub what: String,
    /// Why it is not the config in force, for people.
    pub why: String,
}

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
            pin_next: RefCell::new(None),
            opened: RefCell::new(None),
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
        *ws.opened.borrow_mut() = Some(current);
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

    /// Says on stderr that the working-tree config is ignored, and why.
    pub fn warn_ignored(&self) {
        if let Some(ig) = &self.ignored {
            self.ctx.ui.warn_hint(
                &self.ignored_message(ig),
                "the config a run started with stays in force: a person changes it with `loopguard reset --accept-config`",
            );
        }
    }

    fn ignored_message(&self, ig: &Ignored) -> String {
        let pinned = self.pin.as_ref().map_or_else(String::new, |p| {
            let at = p
                .commit
                .as_ref()
                .map(|c| format!(" at {}", c.short()))
                .unwrap_or_default();
            format!(" (the config in force: {}{at})", p.source.as_str())
        });
        // The reason may quote the file, which anyone could have written.
        format!(
            "{}; the {CONFIG_FILE} in the working tree is ignored{pinned}",
            crate::sanitize::printable(&ig.why)
        )
    }

    /// The working-tree file as a pinned config (`init`, `reset --accept-config`): it must
    /// be a valid config (exit 2 naming the file, line and key otherwise).
    pub fn pin_worktree(&self, source: PinSource) -> Result<PinnedConfig> {
        let path = self.config_path();
        let bytes = crate::config_file::read(&path)?;
        if let Some(b) = &bytes {
            Config::parse_bytes(b, &path)?;
        }
        let text = bytes.map(|b| String::from_utf8(b).expect("a config that parses is UTF-8"));
        Ok(PinnedConfig {
            sha256: text.as_deref().map(|t| content_hash(t.as_bytes())),
            text,
            commit: self.head.id.clone(),
            source,
            at: self.now(),
        })
    }

    /// New runs start with `pin` (a person's act: `init`, `reset --accept-config`).
    pub fn pin_new_runs(&self, pin: PinnedConfig) {
        *self.pin_next.borrow_mut() = Some(pin);
    }

    /// The config `pin` holds.
    pub fn parse_pin(&self, pin: &PinnedConfig) -> Result<Config> {
        let Some(text) = &pin.text else {
            return Ok(Config::default());
        };
        let mut config =
            Config::parse(text, &self.config_path()).map_err(|error| ConfigFileError::Pinned {
                source_name: pin.source.as_str(),
                error,
            })?;
        if let Some(guarded) = self.guarded_workflows(&config, pin) {
            config.rules.constraint.guard(guarded);
        }
        Ok(config)
    }

    /// The workflows to protect under `config`: those that run loopguard at the commit `pin`
    /// came from, the tree trusted with the config (as the base is in CI), so an agent that
    /// edits a workflow to drop loopguard trips `constraint` whatever the edited file says.
    fn guarded_workflows(&self, config: &Config, pin: &PinnedConfig) -> Option<Vec<String>> {
        let commit = pin
            .commit
            .as_ref()
            .filter(|_| config.rules.constraint.guard_workflows)?;
        match super::guarded_workflows_at(&self.repo, commit.as_str()) {
            Ok(guarded) => Some(guarded),
            Err(e) => {
                self.ctx.ui.warn_hint(
                    &format!(
                        "the commit the config in force came from ({}) cannot be read ({e}): the workflows that run loopguard are not protected, only rules.constraint.protected",
                        commit.short()
                    ),
                    "a person pins the config again with `loopguard reset --accept-config`",
                );
                None
            }
        }
    }

    /// The config a run is judged by: its pinned one (the workspace's when it is the same).
    pub fn config_of(&self, run: &Run) -> Result<Config> {
        match &run.pinned_config {
            Some(pin)
                if self.pin.as_ref().map(|p| (&p.sha256, &p.commit))
                    != Some((&pin.sha256, &pin.commit)) =>
            {
                self.parse_pin(pin)
            }
            _ => Ok(self.config.clone()),
        }
    }

    /// The config committed at `commit` (none there: the defaults).
    fn committed_pin(&self, commit: Option<&CommitId>, source: PinSource) -> PinnedConfig {
        let text = commit
            .and_then(|c| self.repo.blob_at(c.as_str(), CONFIG_FILE).ok().flatten())
            .and_then(|b| String::from_utf8(b).ok())
            .filter(|t| Config::parse(t, &self.config_path()).is_ok());
        PinnedConfig {
            sha256: text.as_deref().map(|t| content_hash(t.as_bytes())),
            text,
            commit: commit.cloned(),
            source,
            at: self.now(),
        }
    }

    /// The config in force when the branch's run says none (its state cannot be read):
    /// the one its start record keeps, else the one last set up or accepted here, else
    /// the file as committed at HEAD.
    fn fallback_pin(&self) -> PinnedConfig {
        self.store
            .read_start(&self.key)
            .and_then(|s| s.pinned_config)
            .or_else(|| self.store.accepted_config())
            .unwrap_or_else(|| self.committed_pin(self.head.id.as_ref(), PinSource::Committed))
    }

    /// Whether the working-tree file is the config in force, and why not.
    fn compare_worktree(&self, pin: &PinnedConfig) -> Option<Ignored> {
        let path = self.config_path();
        match crate::config_file::read(&path) {
            Err(e) => Some(Ignored {
                what: "unreadable".to_owned(),
                why: e.to_string(),
            }),
            Ok(None) => pin.text.is_some().then(|| Ignored {
                what: "missing".to_owned(),
                why: format!("there is no {CONFIG_FILE} in the working tree"),
            }),
            Ok(Some(bytes)) => {
                let sha = content_hash(&bytes);
                if pin.sha256.as_deref() == Some(sha.as_str()) {
                    return None;
                }
                let why = match Config::parse_bytes(&bytes, &path) {
                    Ok(_) => format!(
                        "{} differs from the config in force",
                        super::shown(&path, &self.ctx.dir).display()
                    ),
                    Err(e) => e.to_string(),
                };
                Some(Ignored { what: sha, why })
            }
        }
    }

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
        let pin = self.pin_next.borrow().clone().or_else(|| {
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
            && let Some(opened) = self.opened.borrow_mut().take()
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
    fn start_on(
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
        let next = self.pin_next.borrow().clone();
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
    fn first_parent(&self, id: &CommitId) -> Option<CommitId> {
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
    fn start_run(&self, now: Timestamp) -> Result<Run> {
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

    /// Locks the store, finishes what a writer that died left, loads (or starts, or
    /// rebuilds) the run, lets `f` change it (with the locked store, for what else it
    /// writes), and writes it with the events `f` returns, as one change (see `store`), as
    /// durably as `durability` says. Nothing is written when `f` fails.
    pub fn with_run<T>(
        &self,
        now: Timestamp,
        durability: Durability,
        f: impl FnOnce(&mut Run, &Locked<'_>) -> Result<(T, Vec<Event>)>,
    ) -> Result<T> {
        let waited = self.ctx.settings.lock_timeout;
        match self.with_run_within(now, waited, durability, f)? {
            Some(value) => Ok(value),
            None => Err(StoreError::Locked {
                path: self.store.dir().join("lock"),
                waited,
            }
            .into()),
        }
    }

    /// [`Workspace::with_run`], waiting at most `wait` for the store's lock: `None` when
    /// another holds it that long (nothing was done).
    pub fn with_run_within<T>(
        &self,
        now: Timestamp,
        wait: std::time::Duration,
        durability: Durability,
        f: impl FnOnce(&mut Run, &Locked<'_>) -> Result<(T, Vec<Event>)>,
    ) -> Result<Option<T>> {
        self.opened.borrow_mut().take();
        let store = match self.store.lock(wait) {
            Ok(locked) => locked,
            Err(StoreError::Locked { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let tag = crate::store::tag_of(now);
        let recovered = store.recover(&self.key, &tag).map_err(StoreError::io(
            "finish the change a loopguard that stopped left in",
            &self.store.journal_path(&self.key),
        ))?;
        for why in &recovered.set_aside {
            self.warn(why);
        }
        if recovered.applied {
            // A change a writer that died left may have opened a breaker.
            let open = self.store.open_keys().map_or(true, |k| !k.is_empty());
            self.arm_or_say(open);
        }
        let (before, mut run) = self.load_or_start(&store, now, &tag)?;
        if run.pinned_config.is_none() {
            run.pinned_config = self.pin.clone();
        }
        let mut events = Vec::new();
        if let Some(ig) = &self.ignored {
            events.extend(run.config_ignored(&ig.what, self.ignored_message(ig), now));
        }
        let (value, more) = f(&mut run, &store)?;
        events.extend(more);
        if before.as_ref().map(Run::saved) != Some(run.saved()) || !events.is_empty() {
            self.commit(&store, &run, before.as_ref(), &events, durability)?;
        }
        Ok(Some(value))
    }

    /// Tells the pre-commit shim that HEAD is a commit `run` knows (recorded, or where it
    /// started), so the next pre-commit need not start loopguard while no breaker may be
    /// open: `<git dir>/loopguard-recorded` holds `refs/heads/<branch> <commit>`, compared
    /// with HEAD's loose ref (hooks/loopguard-shim). A hint, written in place and never
    /// synced (a commit pays for the store's own syncs, not for this): lost, or read half
    /// written, it only makes the shim start loopguard. Never given for a run whose breaker
    /// is not closed (the hint is taken back): the markers alone then stand between a
    /// commit and pre-commit's gate, and an agent can delete them.
    pub fn mark_recorded(&self, run: &Run) {
        let path = self.repo.git_dir().join("loopguard-recorded");
        if run.is_open() {
            let _ = std::fs::remove_file(&path);
            return;
        }
        let (Some(name), Some(head)) = (&self.head.branch_name, &self.head.id) else {
            return;
        };
        if !run.knows(head) {
            return;
        }
        let mut line = b"refs/heads/".to_vec();
        line.extend_from_slice(name);
        line.push(b' ');
        line.extend_from_slice(head.as_str().as_bytes());
        line.push(b'\n');
        if std::fs::read(&path).ok().as_deref() != Some(line.as_slice()) {
            let _ = crate::safe_fs::write_hint(&path, &line);
        }
    }

    /// The current branch's run as stored, and the run to change: the stored one, else one
    /// started now, else — its file was unusable and set aside — the run rebuilt from git
    /// (its start record says where it started).
    fn load_or_start(
        &self,
        store: &Locked<'_>,
        now: Timestamp,
        tag: &str,
    ) -> Result<(Option<Run>, Run)> {
        let path = store.run_path(&self.key);
        match store
            .load_run(&self.key, tag)
            .map_err(StoreError::io("read", &path))?
        {
            Loaded::Found(run) => Ok((Some((*run).clone()), *run)),
            Loaded::Missing => Ok((None, self.start_run(now)?)),
            Loaded::SetAside { kept, why } => {
                self.warn(&format!(
                    "{why}; it was kept as {} and the run is rebuilt from git history",
                    kept.display()
                ));
                Ok((None, self.rebuild(now)?))
            }
        }
    }

    /// Writes `run` and `events` as one change: with its start record when the run (or
    /// its config) is new, and its report when it ended.
    fn commit(
        &self,
        store: &Locked<'_>,
        run: &Run,
        before: Option<&Run>,
        events: &[Event],
        durability: Durability,
    ) -> Result<()> {
        let start = before
            .is_none_or(|b| b.id != run.id || b.pinned_config != run.pinned_config)
            .then(|| StartRecord::of(run));
        let report = events
            .iter()
            .any(|e| ends_run(e.kind))
            .then(|| self.render_report(run, events))
            .transpose()?;
        let change = Change {
            run,
            events,
            calls: &[],
            start,
            report,
        };
        // The gate of every ref update is armed before an open run can be read.
        if run.is_open() {
            self.arm_or_say(true);
        }
        store
            .commit(&self.key, change, durability)
            .map_err(StoreError::io("write", store.dir()))?;
        // Disarmed when this change closed the run (or started one) and no marker is left: a
        // commit that changes nothing about the breaker pays nothing for it. (Left armed by
        // a crash in between, it only costs time; `init` decides again.)
        if !run.is_open()
            && before.is_none_or(Run::is_open)
            && self.store.open_keys().is_ok_and(|k| k.is_empty())
        {
            self.arm_or_say(false);
        }
        Ok(())
    }

    /// [`Self::arm_reference_transaction`] where a run is written: a hooks directory that
    /// cannot be written never keeps a trip from being recorded (pre-commit and pre-push
    /// still refuse what it blocks, and `status` names the hook that does not guard); an
    /// arming that failed is said, a disarming that failed only costs time.
    fn arm_or_say(&self, armed: bool) {
        if let Err(e) = self.arm_reference_transaction(armed)
            && armed
        {
            self.warn(&format!(
                "{e:#}: reference-transaction is not armed, so ref updates that are not commits are not judged until `loopguard init` arms it"
            ));
        }
    }

    /// Arms or disarms the `reference-transaction` shim
    /// ([`crate::hooks::arm_reference_transaction`]).
    pub fn arm_reference_transaction(&self, armed: bool) -> Result<()> {
        let dir = self.repo.hooks_dir();
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        let own_hooks = self.repo.common_dir().join("hooks");
        // The repository's own: `.git/hooks` itself, not a link to a directory other
        // repositories may share.
        let own = canonical(&dir) == canonical(&own_hooks)
            && std::fs::symlink_metadata(&own_hooks).is_ok_and(|m| m.is_dir());
        crate::hooks::arm_reference_transaction(
            &dir,
            &crate::hooks::chained_dir(self.store.dir()),
            own,
            armed,
        )
        .map_err(|source| {
            crate::error::HookError::Install {
                dir: dir.clone(),
                source,
            }
            .into()
        })
    }

    /// The report of `run` after `events` (the log so far and these).
    pub(super) fn render_report(&self, run: &Run, events: &[Event]) -> Result<(String, String)> {
        let (mut log, _) = self.store.read_events(&self.key).unwrap_or_default();
        log.extend(events.iter().cloned());
        let config = self.config_of(run)?;
        let s = status_of(&config, run, &log, self.now());
        Ok((run.id.clone(), markdown::report(&s)))
    }

    /// A run that `finish` ended is kept in `runs/ended/` and a new one starts: the next
    /// commit or event belongs to a new session.
    pub fn restart_if_finished(
        &self,
        store: &Locked<'_>,
        run: &mut Run,
        now: Timestamp,
    ) -> Result<()> {
        if !run.is_finished() {
            return Ok(());
        }
        store.keep_ended(run)?;
        *run = self.next_run(run, now);
        Ok(())
    }

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
        let mut chain: Vec<CommitId> = Vec::new();
        let mut next = from;
        let reached = loop {
            let Some(id) = next.take() else {
                // The root: reached when the run started before the first commit.
                break run.start_commit.is_none();
            };
            if run.knows(&id) {
                break true;
            }
            if chain.len() == CATCH_UP_LIMIT {
                break false;
            }
            next = self.first_parent(&id);
            chain.push(id);
        };
        if chain.is_empty() {
            return Ok((Missed::default(), None));
        }
        let why = if chain.len() == CATCH_UP_LIMIT && !reached {
            Some(format!(
                "more than {CATCH_UP_LIMIT} commits before HEAD were made without a hook recording them: the newest {CATCH_UP_LIMIT} are recorded, which spends any budget"
            ))
        } else if !reached {
            Some(format!(
                "{} commit(s) before HEAD do not lead back to what the run recorded (its history was replaced): they are recorded as they are",
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
            Some(start) => self.first_parents_to(head, start, limit)?,
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

    /// The commits after `start` up to `head` by first parents, oldest first, at most the
    /// `limit` newest (all of the branch's when `start` is not on the way).
    fn first_parents_to(
        &self,
        head: &CommitId,
        start: &CommitId,
        limit: usize,
    ) -> Result<Vec<CommitId>> {
        let mut chain = Vec::new();
        let mut next = Some(head.clone());
        while let Some(id) = next {
            if &id == start || chain.len() == WALK_LIMIT {
                break;
            }
            next = self.first_parent(&id);
            chain.push(id);
        }
        chain.truncate(limit);
        chain.reverse();
        Ok(chain)
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

/// Whether a run with this breaker is continued by a branch started from its commits: it
/// is not closed (open, half-open or aborted) and not finished.
fn continues(run: &Run) -> bool {
    run.breaker().state() != State::Closed && !run.is_finished()
}

/// Events after which the run's report is written.
fn ends_run(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::Trip | EventKind::Reopen | EventKind::Finish | EventKind::Escalate
    )
}
