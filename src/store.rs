//! Local state under `<git common dir>/loopguard/`: one run per branch, an append-only
//! event log per branch, run reports.
//!
//! ```text
//! loopguard/
//!   lock                     serialises every writer (hooks may race)
//!   accepted-config.json     the config a person last set up or accepted (new branches' runs)
//!   runs/<key>.json          the run (format-versioned), written atomically
//!   runs/<key>.start         where the run started and its config (survives a corrupt run)
//!   runs/<key>.journal       a change being written: run, events and report together
//!   runs/<key>.json.corrupt-<time>   a file that could not be read, kept aside
//!   runs/<key>.json.refused-<time>   a link or special file found there, kept aside
//!   events/<key>.jsonl       every breaker transition, appended, never rewritten
//!   calls/<run-id>.jsonl     the iterations a run that keeps only its latest dropped
//!                            (a coding agent's session), appended, never rewritten
//!   reports/<run-id>.md      the report of every run that ended
//!   chained/<hook>           hooks that were installed before loopguard (see hooks.rs)
//!   open/<key>               an empty marker while that run's breaker may be open
//! ```
//!
//! `<key>` is the branch name's bytes, %-escaped ([`branch_key_bytes`]): one file per
//! branch, whatever bytes its name has. The common dir is shared by linked worktrees, so
//! their runs live side by side.
//!
//! **Crash consistency.** A change that touches more than the run file (events, a new run's
//! start, a report, dropped calls) is first written whole to the journal, atomically; then
//! the events and the calls are appended, the start and run files and the report written,
//! and the journal removed. A writer that dies anywhere leaves either nothing (the old
//! state stands) or the journal, which the next writer finishes ([`Store::recover`]) and
//! readers already take as the run; each log is appended once (the journal records its
//! length before). Every temporary file left while the lock is held is a dead writer's and
//! is removed.
//!
//! **Durability.** That holds for a crash of the machine too: every file is synced before
//! it is renamed into place and its directory after ([`safe_fs::write_atomic`]), and an
//! append is synced before it returns, so each step is on disk before the next begins — the
//! open marker before the open run, the journal before the events it appends, the events,
//! start, run and report before the journal goes. Removals are not synced (a marker too
//! many is allowed; a journal's removal reaches the disk with the next rename in `runs/`,
//! and a journal that comes back is applied again to the same effect). What a common commit
//! costs: two syncs, the run file's and its directory's (README, "Benchmarks").
//!
//! **Open markers.** The `open/` markers let the `reference-transaction` hook, which git
//! runs on every ref update, tell "no breaker is open anywhere" from one directory listing
//! in the shim, without starting loopguard. They are a superset of the open runs: every
//! write of a run sets its marker before an open run reaches disk (before the journal, or
//! before the run file when there is no journal) and clears it only after a closed run is
//! there (after the journal is applied and removed); [`Store::recover`] finishing a
//! journal does the same. A crash in between leaves a marker too many (loopguard then
//! looks and finds nothing), never one too few. A branch with no run of its own that
//! continues an open run has no marker of its own: the run it continues has one, so the
//! shim still starts loopguard.
//!
//! **Hostile files.** Nothing here follows a link out of the store, opens a FIFO or
//! device, or reads more than a bounded size (see [`crate::safe_fs`]). A run file that is
//! not a regular file is set aside and the run rebuilt; an event log that is a link or a
//! special file is set aside and a new one started.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::breaker::Event;
use crate::iteration::{CommitId, Iteration};
use crate::run::{Inherited, PinnedConfig, RUN_FORMAT, Run};
use crate::safe_fs::{self, Follow, is_refusal};
use crate::settings::Clock;

/// Most bytes of a run file (or journal) loopguard reads.
pub const RUN_LIMIT: u64 = 64 << 20;
/// Most bytes of a start file or the accepted config.
pub const SMALL_LIMIT: u64 = 4 << 20;
/// Most bytes of the end of an event log loopguard reads (older events are not read).
pub const EVENTS_LIMIT: u64 = 16 << 20;

/// The store failing, or holding what cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another loopguard held the lock for longer than this one waits.
    #[error("another loopguard holds {} for more than {}ms", path.display(), waited.as_millis())]
    Locked { path: PathBuf, waited: Duration },
    /// The file system failed while loopguard did `action` (`read`, `write`, …) in `path`.
    #[error("cannot {action} {}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A branch's state cannot be used (`why`: what is wrong with it).
    #[error("{why}")]
    Unusable { why: String },
    /// The run was gone when it was read back after a change.
    #[error("the run disappeared while it was being changed")]
    Vanished,
}

impl StoreError {
    /// How to fix it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            StoreError::Locked { .. } => Some(
                "another loopguard (a hook) is at work: try again, or raise LOOPGUARD_LOCK_TIMEOUT_MS",
            ),
            StoreError::Unusable { .. } => Some(
                "the next hook sets it aside and rebuilds the run from git history, or run `loopguard reset`",
            ),
            StoreError::Io { .. } | StoreError::Vanished => None,
        }
    }

    /// An I/O failure while doing `action` in `path`.
    pub fn io(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> StoreError {
        let path = path.to_owned();
        move |source| StoreError::Io {
            action,
            path,
            source,
        }
    }
}

pub struct Store {
    dir: PathBuf,
    /// The time of the names of files set aside.
    clock: Clock,
    /// A write point at which to crash (debug builds only; see [`Store::with_failpoint`]).
    failpoint: Option<String>,
}

/// Held while the store is locked; dropping it unlocks.
pub struct Lock {
    _file: fs::File,
}

/// What loading a run found.
#[derive(Debug)]
pub enum Loaded {
    Missing,
    Found(Box<Run>),
    /// The file could not be used; it was moved to `kept` and the run must be rebuilt.
    SetAside {
        kept: PathBuf,
        why: String,
    },
}

/// What reading a run without the lock found.
#[derive(Debug)]
pub enum Peeked {
    Missing,
    Found(Box<Run>),
    /// There is a file, but it cannot be used (corrupt, newer, a link, a FIFO, too big).
    Unusable(String),
}

/// Where a run started: kept beside the run so that a rebuild of a corrupt run starts
/// there, with the same id and config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartRecord {
    pub format: u32,
    pub run: String,
    #[serde(default)]
    pub branch: Option<String>,
    pub started_at: jiff::Timestamp,
    #[serde(default)]
    pub start_commit: Option<CommitId>,
    #[serde(default)]
    pub pinned_config: Option<PinnedConfig>,
    #[serde(default)]
    pub inherited: Option<Inherited>,
}

impl StartRecord {
    pub fn of(run: &Run) -> StartRecord {
        StartRecord {
            format: RUN_FORMAT,
            run: run.id.clone(),
            branch: run.branch.clone(),
            started_at: run.started_at,
            start_commit: run.start_commit.clone(),
            pinned_config: run.pinned_config.clone(),
            inherited: run.inherited.clone(),
        }
    }
}

/// One change to a branch's state, written as a whole ([`Store::commit`]).
pub struct Change<'a> {
    pub run: &'a Run,
    pub events: &'a [Event],
    /// Iterations the run dropped (see `Run::compact`): appended to its calls log.
    pub calls: &'a [Iteration],
    /// A new run (or a new config for it): its start record.
    pub start: Option<StartRecord>,
    /// The run ended: its report (run id, markdown).
    pub report: Option<(String, String)>,
    /// Nothing but what git gives back (the commits a hook records, their verdicts): the
    /// run file's rename is left to the file system, its directory not synced. After a
    /// crash of the machine the previous run file is there, complete, and the next hook
    /// catches its commits up again. (A commit pays one sync for its record, not two.)
    pub derivable: bool,
}

/// A change on its way to disk.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    format: u32,
    run: Run,
    #[serde(default)]
    events: Vec<Event>,
    /// The event log's length before `events` were appended.
    events_at: u64,
    /// Iterations the run dropped, for its calls log, and the log's length before them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    calls: Vec<Iteration>,
    #[serde(default)]
    calls_at: u64,
    #[serde(default)]
    start: Option<StartRecord>,
    #[serde(default)]
    report: Option<(String, String)>,
}

/// What finishing a dead writer's change did.
#[derive(Debug, Default)]
pub struct Recovered {
    /// A journal was found and applied.
    pub applied: bool,
    /// What could not be used and was moved aside.
    pub set_aside: Vec<String>,
}

impl Store {
    pub fn new(common_dir: &Path, clock: Clock) -> Store {
        Store {
            dir: common_dir.join("loopguard"),
            clock,
            failpoint: None,
        }
    }

    /// The store of the coding agents' sessions (`loopguard/sessions/`): the same layout,
    /// lock, journal and open markers as the branches' store, one run per session, apart
    /// from it (the `reference-transaction` shim looks at the branches' markers only).
    pub fn sessions(common_dir: &Path, clock: Clock) -> Store {
        Store {
            dir: common_dir.join("loopguard").join("sessions"),
            clock,
            failpoint: None,
        }
    }

    /// Crash at the write point `name` (`before-journal`, `temp-written`, `journal-written`,
    /// `events-appended`, `state-written`, `report-written`): what the crash-consistency
    /// tests use (`LOOPGUARD_FAILPOINT`). Compiled into debug builds only.
    pub fn with_failpoint(mut self, name: Option<&str>) -> Store {
        if cfg!(debug_assertions) {
            self.failpoint = name.map(str::to_owned);
        }
        self
    }

    fn crash_at(&self, point: &str) {
        if cfg!(debug_assertions) && self.failpoint.as_deref() == Some(point) {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("loopguard: failpoint {point}: crashing");
            }
            std::process::abort();
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The tag of a file set aside now.
    fn tag_now(&self) -> String {
        tag_of(self.clock.now())
    }

    /// Whether loopguard was ever used in this repository.
    pub fn exists(&self) -> bool {
        fs::symlink_metadata(&self.dir).is_ok_and(|m| m.is_dir())
    }

    /// Takes the store's lock, waiting up to `timeout` for another loopguard to finish.
    pub fn lock(&self, timeout: Duration) -> Result<Lock, StoreError> {
        let path = self.dir.join("lock");
        let failed = || StoreError::io("lock", &path);
        safe_fs::ensure_dir_durably(&self.dir).map_err(failed())?;
        let file = match open_lock(&path) {
            Err(e) if is_refusal(&e) => {
                // Something else is where the lock belongs: keep it aside, lock our own.
                set_aside(&path, "refused", &self.tag_now()).map_err(failed())?;
                open_lock(&path).map_err(failed())?
            }
            other => other.map_err(failed())?,
        };
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Lock { _file: file }),
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::Locked {
                        path,
                        waited: timeout,
                    });
                }
                Err(fs::TryLockError::Error(e)) => return Err(failed()(e)),
            }
        }
    }

    pub fn run_path(&self, key: &str) -> PathBuf {
        self.dir.join("runs").join(format!("{key}.json"))
    }

    pub fn journal_path(&self, key: &str) -> PathBuf {
        self.dir.join("runs").join(format!("{key}.journal"))
    }

    pub fn start_path(&self, key: &str) -> PathBuf {
        self.dir.join("runs").join(format!("{key}.start"))
    }

    pub fn events_path(&self, key: &str) -> PathBuf {
        self.dir.join("events").join(format!("{key}.jsonl"))
    }

    /// The calls log of the run `run_id` (see the module docs).
    pub fn calls_path(&self, run_id: &str) -> PathBuf {
        self.dir.join("calls").join(format!("{run_id}.jsonl"))
    }

    pub fn report_path(&self, run_id: &str) -> PathBuf {
        self.dir.join("reports").join(format!("{run_id}.md"))
    }

    pub fn accepted_path(&self) -> PathBuf {
        self.dir.join("accepted-config.json")
    }

    /// The marker of an open run (see the module docs).
    pub fn open_marker(&self, key: &str) -> PathBuf {
        self.dir.join("open").join(key)
    }

    /// Sets (`open`) or clears `key`'s marker. A marker is never read: whatever is there
    /// other than a link is one already; a link is replaced (never written through).
    fn mark_open(&self, key: &str, open: bool) -> io::Result<()> {
        let path = self.open_marker(key);
        let there = fs::symlink_metadata(&path);
        if open {
            return match there {
                Ok(m) if !m.file_type().is_symlink() => Ok(()),
                _ => {
                    self.ready_dir(path.parent().expect("a file path has a parent"))?;
                    safe_fs::write_atomic(&path, b"", || {})
                }
            };
        }
        match there {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Ok(m) if m.is_dir() => {
                // Not ours: kept aside under a name that is no marker.
                let kept = path.with_file_name(format!(".{key}.refused-{}", self.tag_now()));
                fs::rename(&path, kept)
            }
            _ => match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        }
    }

    /// The keys of the runs whose breaker may be open (their markers), sorted. When `open/`
    /// is not a directory of the store's own, every run's key (it cannot be trusted to say
    /// which are not).
    pub fn open_keys(&self) -> io::Result<Vec<String>> {
        let dir = self.dir.join("open");
        match fs::symlink_metadata(&dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
            Ok(m) if !m.is_dir() => return Ok(self.run_keys()),
            Ok(_) => {}
        }
        let mut keys = Vec::new();
        for entry in fs::read_dir(dir)? {
            if let Ok(name) = entry?.file_name().into_string()
                && !name.starts_with('.')
            {
                keys.push(name);
            }
        }
        keys.sort();
        Ok(keys)
    }

    /// Clears the marker of `key` once its run is gone from there (moved to another key).
    pub fn forget_open(&self, key: &str) -> io::Result<()> {
        self.mark_open(key, false)
    }

    /// Loads the run for `key` under the lock. A corrupt, future-format or special file
    /// is moved aside (never deleted) and reported, so the caller can rebuild the run from
    /// git.
    pub fn load_run(&self, key: &str, now_tag: &str) -> io::Result<Loaded> {
        let path = self.run_path(key);
        let bytes = match safe_fs::read_bounded(&path, RUN_LIMIT, Follow::No) {
            Ok(None) => return Ok(Loaded::Missing),
            Ok(Some(b)) => b,
            Err(e) if is_refusal(&e) => {
                let kept = set_aside(&path, "refused", now_tag)?;
                return Ok(Loaded::SetAside {
                    kept,
                    why: e.to_string(),
                });
            }
            Err(e) => return Err(e),
        };
        match parse_run(&bytes) {
            Ok(run) => Ok(Loaded::Found(Box::new(run))),
            Err(why) => {
                let kept = set_aside(&path, "corrupt", now_tag)?;
                Ok(Loaded::SetAside { kept, why })
            }
        }
    }

    /// Reads the run for `key` without the lock: a change a writer committed to (its
    /// journal) first, then the run file. Nothing is moved or repaired.
    pub fn peek_run(&self, key: &str) -> io::Result<Peeked> {
        if let Ok(Some(bytes)) =
            safe_fs::read_bounded(&self.journal_path(key), RUN_LIMIT, Follow::No)
            && let Ok(j) = serde_json::from_slice::<Journal>(&bytes)
            && j.run.format <= RUN_FORMAT
        {
            return Ok(Peeked::Found(Box::new(j.run)));
        }
        let path = self.run_path(key);
        match safe_fs::read_bounded(&path, RUN_LIMIT, Follow::No) {
            Ok(None) => Ok(Peeked::Missing),
            Ok(Some(bytes)) => Ok(match parse_run(&bytes) {
                Ok(run) => Peeked::Found(Box::new(run)),
                Err(why) => Peeked::Unusable(format!(
                    "{}: the state file is corrupt: {why}",
                    path.display()
                )),
            }),
            Err(e) if is_refusal(&e) => Ok(Peeked::Unusable(e.to_string())),
            Err(e) => Err(e),
        }
    }

    /// The keys that have a run file or a journal, sorted.
    fn run_keys(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(self.dir.join("runs")) else {
            return Vec::new();
        };
        let mut keys: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let key = name
                    .strip_suffix(".json")
                    .or_else(|| name.strip_suffix(".journal"))?;
                (!key.starts_with('.')).then(|| key.to_owned())
            })
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// Every branch's run that can be read (`runs/*.json`, or its journal), keyed.
    pub fn runs(&self) -> Vec<(String, Run)> {
        self.run_keys()
            .into_iter()
            .filter_map(|key| match self.peek_run(&key) {
                Ok(Peeked::Found(run)) => Some((key, *run)),
                _ => None,
            })
            .collect()
    }

    /// The start record of `key`'s run, when one can be read.
    pub fn read_start(&self, key: &str) -> Option<StartRecord> {
        let bytes =
            safe_fs::read_bounded(&self.start_path(key), SMALL_LIMIT, Follow::No).ok()??;
        serde_json::from_slice::<StartRecord>(&bytes)
            .ok()
            .filter(|s| s.format <= RUN_FORMAT)
    }

    /// The config a person last set up or accepted in this repository.
    pub fn accepted_config(&self) -> Option<PinnedConfig> {
        let bytes =
            safe_fs::read_bounded(&self.accepted_path(), SMALL_LIMIT, Follow::No).ok()??;
        serde_json::from_slice(&bytes).ok()
    }

    /// Records the config a person set up or accepted (under the lock).
    pub fn set_accepted_config(&self, pin: &PinnedConfig) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(pin).map_err(io::Error::other)?;
        self.write_atomic(&self.accepted_path(), &bytes)
    }

    /// Writes a change to `key`'s state as a whole (under the lock): see the module docs.
    pub fn commit(&self, key: &str, change: Change<'_>) -> io::Result<()> {
        self.crash_at("before-journal");
        // Compact: written on every commit, and read by the next hook.
        let run_bytes = serde_json::to_vec(change.run).map_err(io::Error::other)?;
        let open = change.run.is_open();
        if open {
            // Before the open run can be read anywhere (its journal or its file).
            self.mark_open(key, true)?;
        }
        if change.events.is_empty()
            && change.calls.is_empty()
            && change.start.is_none()
            && change.report.is_none()
        {
            // One file: its rename is all or nothing.
            let path = self.run_path(key);
            if change.derivable {
                self.ready_dir(path.parent().expect("a file path has a parent"))?;
                safe_fs::write_atomic_unsynced_rename(&path, &run_bytes, || {
                    self.crash_at("temp-written");
                })?;
            } else {
                self.write_atomic(&path, &run_bytes)?;
            }
            if !open {
                self.mark_open(key, false)?;
            }
            return Ok(());
        }
        self.ready_dir(&self.dir.join("events"))?;
        let events_at = self.events_len(key)?;
        let calls_at = if change.calls.is_empty() {
            0
        } else {
            self.log_len(&self.calls_path(&change.run.id))?
        };
        let journal = Journal {
            format: RUN_FORMAT,
            run: change.run.clone(),
            events: change.events.to_vec(),
            events_at,
            calls: change.calls.to_vec(),
            calls_at,
            start: change.start,
            report: change.report,
        };
        let bytes = serde_json::to_vec(&journal).map_err(io::Error::other)?;
        self.write_atomic(&self.journal_path(key), &bytes)?;
        self.crash_at("journal-written");
        self.apply(key, &journal, Some(run_bytes))
    }

    /// Finishes what a writer that died left (under the lock): its journal is applied, and
    /// temporary files are removed.
    pub fn recover(&self, key: &str, now_tag: &str) -> io::Result<Recovered> {
        let mut out = Recovered::default();
        self.clean_temporary_files();
        let path = self.journal_path(key);
        let bytes = match safe_fs::read_bounded(&path, RUN_LIMIT, Follow::No) {
            Ok(None) => return Ok(out),
            Ok(Some(b)) => b,
            Err(e) if is_refusal(&e) => {
                set_aside(&path, "refused", now_tag)?;
                out.set_aside.push(e.to_string());
                return Ok(out);
            }
            Err(e) => return Err(e),
        };
        match serde_json::from_slice::<Journal>(&bytes) {
            Ok(j) if j.format <= RUN_FORMAT && j.run.format <= RUN_FORMAT => {
                self.apply(key, &j, None)?;
                out.applied = true;
            }
            Ok(_) | Err(_) => {
                let kept = set_aside(&path, "corrupt", now_tag)?;
                out.set_aside.push(format!(
                    "{}: an unfinished change that cannot be read, kept as {}",
                    path.display(),
                    kept.display()
                ));
            }
        }
        Ok(out)
    }

    /// Applies a journal: events (once), start, run, report; then removes it. The run's
    /// marker is set first when it is open (a journal a writer left may predate markers)
    /// and cleared last when it is not.
    fn apply(&self, key: &str, j: &Journal, run_bytes: Option<Vec<u8>>) -> io::Result<()> {
        let open = j.run.is_open();
        if open {
            self.mark_open(key, true)?;
        }
        let log = json_lines(&j.events)?;
        if !log.is_empty() {
            self.append_once(&self.events_path(key), j.events_at, &log)?;
        }
        self.crash_at("events-appended");
        let calls = json_lines(&j.calls)?;
        if !calls.is_empty() {
            self.append_once(&self.calls_path(&j.run.id), j.calls_at, &calls)?;
        }
        self.crash_at("calls-appended");
        if let Some(start) = &j.start {
            let bytes = serde_json::to_vec_pretty(start).map_err(io::Error::other)?;
            self.write_atomic(&self.start_path(key), &bytes)?;
        }
        let run_bytes = match run_bytes {
            Some(b) => b,
            None => serde_json::to_vec(&j.run).map_err(io::Error::other)?,
        };
        self.write_atomic(&self.run_path(key), &run_bytes)?;
        self.crash_at("state-written");
        if let Some((run_id, markdown)) = &j.report {
            self.write_atomic(&self.report_path(run_id), markdown.as_bytes())?;
        }
        self.crash_at("report-written");
        match fs::remove_file(self.journal_path(key)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        if !open {
            self.mark_open(key, false)?;
        }
        Ok(())
    }

    /// The event log's length; a link or special file there is set aside first (a new log
    /// starts).
    fn events_len(&self, key: &str) -> io::Result<u64> {
        self.log_len(&self.events_path(key))
    }

    /// An append-only log's length (0 when there is none); a link or special file there is
    /// set aside first (a new log starts).
    fn log_len(&self, path: &Path) -> io::Result<u64> {
        match safe_fs::len_of(path) {
            Err(e) if is_refusal(&e) => {
                set_aside(path, "refused", &self.tag_now())?;
                Ok(0)
            }
            other => other,
        }
    }

    /// Appends `log` to the log at `path` unless it is already there at `at` (a writer
    /// that died after appending); a torn append of it is cut back first.
    fn append_once(&self, path: &Path, at: u64, log: &[u8]) -> io::Result<()> {
        self.ready_dir(path.parent().expect("a file path has a parent"))?;
        let len = self.log_len(path)?;
        let end = at + log.len() as u64;
        if len > at {
            let there = safe_fs::read_range(path, at, log.len() as u64)?;
            if len >= end && there == log {
                return Ok(());
            }
            if len < end && log.starts_with(&there) {
                safe_fs::truncate(path, at)?;
            }
        }
        match safe_fs::append(path, log) {
            Err(e) if is_refusal(&e) => {
                // Swapped for something else since: set it aside, start a new log.
                set_aside(path, "refused", &self.tag_now())?;
                safe_fs::append(path, log)
            }
            other => other,
        }
    }

    /// Removes what writers that died left: loopguard's temporary files in the
    /// directories written under the lock.
    /// Call with the lock held.
    pub fn clean_temporary_files(&self) {
        for sub in [
            "",
            "runs",
            "runs/ended",
            "events",
            "calls",
            "reports",
            "open",
        ] {
            let dir = self.dir.join(sub);
            // Only directories of the store's own: never through a link.
            let mut at = self.dir.clone();
            let real = std::iter::once(at.clone())
                .chain(Path::new(sub).components().map(|c| {
                    at.push(c);
                    at.clone()
                }))
                .all(|d| fs::symlink_metadata(&d).is_ok_and(|m| m.is_dir()));
            if !real {
                continue;
            }
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with(safe_fs::TEMP_PREFIX)
                    && entry.file_type().is_ok_and(|t| !t.is_dir())
                {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
    }

    /// Moves a finished run out of the way (`reset`), keeping it for the record.
    pub fn archive_run(&self, key: &str, run_id: &str) -> io::Result<Option<PathBuf>> {
        let path = self.run_path(key);
        if fs::symlink_metadata(&path).is_err() {
            return Ok(None);
        }
        let dest = self
            .dir
            .join("runs")
            .join("ended")
            .join(format!("{run_id}.json"));
        self.ready_dir(dest.parent().expect("has a parent"))?;
        fs::rename(&path, &dest)?;
        safe_fs::sync_dir(dest.parent().expect("has a parent"))?;
        safe_fs::sync_dir(path.parent().expect("has a parent"))?;
        if fs::symlink_metadata(self.journal_path(key)).is_err() {
            self.mark_open(key, false)?;
        }
        Ok(Some(dest))
    }

    /// Reads the end of the event log (at most [`EVENTS_LIMIT`] bytes); lines that do not
    /// parse, or a log that cannot be read (a link, a special file), are returned as
    /// messages instead of being dropped silently.
    pub fn read_events(&self, key: &str) -> io::Result<(Vec<Event>, Vec<String>)> {
        read_log(&self.events_path(key), EVENTS_LIMIT)
    }

    /// The iterations in the calls log of run `run_id`, oldest first (at most
    /// [`RUN_LIMIT`] bytes of its end), with messages for lines that do not parse.
    pub fn read_calls(&self, run_id: &str) -> io::Result<(Vec<Iteration>, Vec<String>)> {
        let path = self.calls_path(run_id);
        let (calls, bad) = read_log(&path, RUN_LIMIT)?;
        let bad = bad
            .into_iter()
            .map(|b| format!("{}: {b}", path.display()))
            .collect();
        Ok((calls, bad))
    }

    /// Writes a report (under the lock).
    pub fn write_report(&self, run_id: &str, markdown: &str) -> io::Result<PathBuf> {
        let path = self.report_path(run_id);
        self.write_atomic(&path, markdown.as_bytes())?;
        Ok(path)
    }

    /// [`write_atomic`] in the store, with the `temp-written` failpoint.
    pub fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.ready_dir(path.parent().expect("a file path has a parent"))?;
        safe_fs::write_atomic(path, bytes, || self.crash_at("temp-written"))
    }

    /// Makes sure `dir` and every directory between the store and it are directories of
    /// the store's own: one that is a link (or anything else) is set aside and made anew,
    /// so nothing is written out of the store through it.
    /// Each directory it makes is durable (it will hold state).
    pub fn ready_dir(&self, dir: &Path) -> io::Result<()> {
        self.ready(dir, safe_fs::ensure_dir_durably)
    }

    /// [`Store::ready_dir`] for what is no state (the per-iteration artifacts): nothing
    /// synced.
    pub fn ready_artifact_dir(&self, dir: &Path) -> io::Result<()> {
        self.ready(dir, safe_fs::ensure_dir)
    }

    fn ready(&self, dir: &Path, ensure: fn(&Path) -> io::Result<()>) -> io::Result<()> {
        let Ok(rel) = dir.strip_prefix(&self.dir) else {
            return ensure(dir);
        };
        ensure(&self.dir)?;
        let mut at = self.dir.clone();
        for part in rel.components() {
            at.push(part);
            match ensure(&at) {
                Err(e) if is_refusal(&e) => {
                    set_aside(&at, "refused", &self.tag_now())?;
                    ensure(&at)?;
                }
                other => other?,
            }
        }
        Ok(())
    }
}

fn parse_run(bytes: &[u8]) -> Result<Run, String> {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Err(e) => Err(format!("it is not valid JSON ({e})")),
        Ok(v) => match v.get("format").and_then(serde_json::Value::as_u64) {
            Some(f) if f > u64::from(RUN_FORMAT) => Err(format!(
                "it has format {f}, newer than this loopguard understands ({RUN_FORMAT}); upgrade loopguard to keep using it"
            )),
            _ => serde_json::from_value::<Run>(v)
                .map_err(|e| format!("it does not hold a run ({e})")),
        },
    }
}

fn open_lock(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    safe_fs::open_no_follow(path, &mut options)
}

/// A time tag for names of files kept aside.
pub fn tag_of(at: jiff::Timestamp) -> String {
    at.strftime("%Y%m%dT%H%M%S%.fZ").to_string()
}

/// One JSON line per item.
fn json_lines<T: Serialize>(items: &[T]) -> io::Result<Vec<u8>> {
    let mut log = Vec::new();
    for item in items {
        serde_json::to_writer(&mut log, item).map_err(io::Error::other)?;
        log.push(b'\n');
    }
    Ok(log)
}

/// The records of an append-only JSON-lines log, oldest first (at most `limit` bytes of its
/// end); lines that do not parse, or a log that cannot be read (a link, a special file),
/// are returned as messages (`line 3: …`) instead of being dropped silently.
fn read_log<T: serde::de::DeserializeOwned>(
    path: &Path,
    limit: u64,
) -> io::Result<(Vec<T>, Vec<String>)> {
    let bytes = match safe_fs::read_tail(path, limit) {
        Ok(Some(b)) => b,
        Ok(None) => return Ok((vec![], vec![])),
        Err(e) if is_refusal(&e) => return Ok((vec![], vec![e.to_string()])),
        Err(e) => return Err(e),
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut records = Vec::new();
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(r) => records.push(r),
            Err(e) => bad.push(format!("line {}: {e}", n + 1)),
        }
    }
    Ok((records, bad))
}

/// Moves whatever is at `path` (the link or FIFO itself, never its target) to
/// `<path>.<what>-<tag>`; returns where.
fn set_aside(path: &Path, what: &str, tag: &str) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kept = path.with_file_name(format!("{name}.{what}-{tag}"));
    fs::rename(path, &kept)?;
    Ok(kept)
}

/// Writes `bytes` to `path` so that readers see the old or the new file, never a mix (a
/// temporary file in the same directory, then a rename that replaces whatever was there).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    safe_fs::write_atomic(path, bytes, || {})
}

/// Longest key kept as the escaped name; a longer one is cut and hashed
/// ([`branch_key_bytes`]). File names hold 255 bytes, and the longest name the store
/// makes of a key adds under 60 (`.jsonl.corrupt-<time>`, a file set aside).
pub const MAX_KEY_BYTES: usize = 160;

/// A branch name as a file name: its bytes, safe ones kept, every other byte %-escaped
/// (`%` included), so the mapping is one-to-one: `feature/x` and `feature-x`, or two names
/// that differ only in bytes that are not UTF-8, stay distinct. `None` is a detached HEAD.
/// An escaped name longer than [`MAX_KEY_BYTES`] (a branch of 30 CJK characters, or of
/// many slashes) is its first 80 bytes (whole escapes), `~`, and the SHA-256 of the
/// name's bytes: every branch has a file, and `~` is never part of an escaped name.
pub fn branch_key_bytes(branch: Option<&[u8]>) -> String {
    let Some(branch) = branch else {
        return "(detached)".to_owned();
    };
    let mut out = String::with_capacity(branch.len());
    for &b in branch {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    if out.starts_with('.') {
        out.replace_range(0..1, "%2E");
    }
    if out.len() > MAX_KEY_BYTES {
        use sha2::{Digest, Sha256};
        let mut cut = 80;
        // Not inside an escape: `%` and its two digits stay together.
        while out[..cut].rfind('%').is_some_and(|p| p + 3 > cut) {
            cut -= 1;
        }
        let digest = Sha256::digest(branch);
        let mut key = out[..cut].to_owned();
        key.push('~');
        for b in digest {
            let _ = write!(key, "{b:02x}");
        }
        return key;
    }
    out
}

/// [`branch_key_bytes`] of a UTF-8 name.
pub fn branch_key(branch: Option<&str>) -> String {
    branch_key_bytes(branch.map(str::as_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;

    #[test]
    fn branch_keys_are_one_to_one_and_safe() {
        assert_eq!(branch_key(Some("main")), "main");
        assert_eq!(branch_key(Some("feature/x")), "feature%2Fx");
        assert_ne!(branch_key(Some("feature/x")), branch_key(Some("feature-x")));
        assert_eq!(branch_key(Some("..")), "%2E.");
        assert_eq!(branch_key(Some("a%2Fb")), "a%252Fb");
        assert_eq!(branch_key(None), "(detached)");
        assert_eq!(branch_key(Some("(detached)")), "%28detached%29");
        let (a, b) = (b"side\xff".as_slice(), b"side\xfe".as_slice());
        assert_eq!(branch_key_bytes(Some(a)), "side%FF");
        assert_ne!(branch_key_bytes(Some(a)), branch_key_bytes(Some(b)));

        // Long names: one file each, within a file name's 255 bytes.
        let cjk = "分支".repeat(15);
        let slashes = format!("{}x", "a/".repeat(125));
        for name in [cjk.as_str(), slashes.as_str()] {
            let key = branch_key(Some(name));
            assert!(key.len() <= MAX_KEY_BYTES, "{key}");
            assert!(key.contains('~'), "{key}");
            assert_ne!(key, branch_key(Some(&format!("{name}y"))));
        }
        let short = "a".repeat(MAX_KEY_BYTES);
        assert_eq!(branch_key(Some(&short)), short);
        // A cut never splits an escape.
        let key = branch_key(Some(&"é".repeat(40)));
        let (head, _) = key.split_once('~').unwrap();
        assert!(head.ends_with("%A9") || head.ends_with("%C3"), "{key}");
    }

    #[test]
    fn open_markers_follow_every_write_of_a_run() {
        use crate::breaker::State;
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path(), Clock::System);
        assert!(store.open_keys().unwrap().is_empty());
        let config = loopguard_core::config::Config::default();
        fn change(run: &Run) -> Change<'_> {
            Change {
                run,
                events: &[],
                calls: &[],
                start: None,
                report: None,
                derivable: false,
            }
        }
        let mut run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
        store.commit("main", change(&run)).unwrap();
        assert!(store.open_keys().unwrap().is_empty());
        let mut events = Vec::new();
        for n in 0..3 {
            let mut it = Iteration::new(format!("{n:040x}").parse().unwrap());
            it.tree = Some("t".into());
            it.parent_tree = Some("t".into());
            it.files = Some(Vec::new());
            events.extend(run.record(&config, it, Timestamp::UNIX_EPOCH).events);
        }
        assert!(run.is_open());
        // Through the journal (events with it).
        store
            .commit(
                "main",
                Change {
                    run: &run,
                    events: &events,
                    calls: &[],
                    start: Some(StartRecord::of(&run)),
                    report: None,
                    derivable: false,
                },
            )
            .unwrap();
        assert_eq!(store.open_keys().unwrap(), ["main"]);

        // A journal that a writer left, of the run closed again: finishing it clears the
        // marker; of an open run on another branch: finishing it sets the marker.
        let mut closed = run.clone();
        closed.resume(&config, Timestamp::UNIX_EPOCH).unwrap();
        assert_ne!(closed.breaker().state(), State::Open);
        for (key, r) in [("main", &closed), ("side", &run)] {
            let journal = Journal {
                format: RUN_FORMAT,
                run: r.clone(),
                events: Vec::new(),
                events_at: 0,
                calls: Vec::new(),
                calls_at: 0,
                start: None,
                report: None,
            };
            fs::write(
                store.journal_path(key),
                serde_json::to_vec(&journal).unwrap(),
            )
            .unwrap();
            assert!(store.recover(key, "t").unwrap().applied);
        }
        assert_eq!(store.open_keys().unwrap(), ["side"]);

        // Something else where a marker belongs: never written through, a marker still.
        let outside = tmp.path().join("outside");
        std::os::unix::fs::symlink(&outside, store.open_marker("main")).unwrap();
        store.commit("main", change(&run)).unwrap();
        assert!(!outside.exists());
        assert!(
            store
                .open_marker("main")
                .symlink_metadata()
                .unwrap()
                .is_file()
        );
        assert_eq!(store.open_keys().unwrap(), ["main", "side"]);

        store.archive_run("side", "r").unwrap();
        assert_eq!(store.open_keys().unwrap(), ["main"]);
    }

    #[test]
    fn corrupt_and_future_files_are_kept_aside() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path(), Clock::System);
        let run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
        let change = |run| Change {
            run,
            events: &[],
            calls: &[],
            start: None,
            report: None,
            derivable: false,
        };
        store.commit("main", change(&run)).unwrap();
        match store.load_run("main", "t").unwrap() {
            Loaded::Found(r) => assert_eq!(r.saved(), run.saved()),
            other => panic!("{other:?}"),
        }

        fs::write(store.run_path("main"), b"{\"format\": 1, \"id\": ").unwrap();
        match store.load_run("main", "t1").unwrap() {
            Loaded::SetAside { kept, why } => {
                assert!(why.contains("not valid JSON"), "{why}");
                assert_eq!(fs::read(&kept).unwrap(), b"{\"format\": 1, \"id\": ");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            store.load_run("main", "t2").unwrap(),
            Loaded::Missing
        ));

        let mut future = serde_json::to_value(&run).unwrap();
        future["format"] = 99.into();
        fs::write(store.run_path("main"), future.to_string()).unwrap();
        match store.load_run("main", "t3").unwrap() {
            Loaded::SetAside { why, .. } => assert!(why.contains("format 99"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_journal_is_what_readers_see_and_the_next_writer_finishes_once() {
        use crate::breaker::{EventKind, State};
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path(), Clock::System);
        let mut run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
        let event = run
            .config_ignored("x", "edited".into(), Timestamp::UNIX_EPOCH)
            .unwrap();
        assert_eq!(
            (event.kind, event.to),
            (EventKind::ConfigIgnored, State::Closed)
        );
        // A writer that died after its journal (and after appending the events).
        let journal = Journal {
            format: RUN_FORMAT,
            run: run.clone(),
            events: vec![event.clone()],
            events_at: 0,
            calls: Vec::new(),
            calls_at: 0,
            start: Some(StartRecord::of(&run)),
            report: Some(("r".into(), "# report\n".into())),
        };
        safe_fs::ensure_dir(&tmp.path().join("loopguard/runs")).unwrap();
        fs::write(
            store.journal_path("main"),
            serde_json::to_vec(&journal).unwrap(),
        )
        .unwrap();
        safe_fs::ensure_dir(&tmp.path().join("loopguard/events")).unwrap();
        let line = format!("{}\n", serde_json::to_string(&event).unwrap());
        fs::write(store.events_path("main"), &line).unwrap();
        let temporary = tmp
            .path()
            .join(format!("loopguard/runs/{}XyZ", safe_fs::TEMP_PREFIX));
        fs::write(&temporary, b"{").unwrap();

        match store.peek_run("main").unwrap() {
            Peeked::Found(r) => assert_eq!(r.ignored_config.as_deref(), Some("x")),
            other => panic!("{other:?}"),
        }
        let out = store.recover("main", "t").unwrap();
        assert!(out.applied);
        assert_eq!(fs::read_to_string(store.events_path("main")).unwrap(), line);
        assert!(!store.journal_path("main").exists());
        assert!(!temporary.exists());
        assert_eq!(store.read_start("main").unwrap().run, "r");
        assert_eq!(
            fs::read_to_string(store.report_path("r")).unwrap(),
            "# report\n"
        );
        // A torn append is cut back and written whole.
        fs::write(store.events_path("main"), &line[..10]).unwrap();
        fs::write(
            store.journal_path("main"),
            serde_json::to_vec(&journal).unwrap(),
        )
        .unwrap();
        store.recover("main", "t").unwrap();
        assert_eq!(fs::read_to_string(store.events_path("main")).unwrap(), line);
    }

    #[test]
    fn lock_times_out_while_held() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path(), Clock::System);
        let held = store.lock(Duration::from_secs(1)).unwrap();
        let e = store.lock(Duration::from_millis(50)).err().unwrap();
        assert!(matches!(e, StoreError::Locked { .. }), "{e}");
        assert!(e.to_string().ends_with("for more than 50ms"), "{e}");
        drop(held);
        store.lock(Duration::from_millis(50)).unwrap();
    }
}
