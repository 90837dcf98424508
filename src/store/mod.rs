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
//! state stands) or the journal, which the next writer finishes ([`Locked::recover`]) and
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
//! costs: two syncs, the run file's and its directory's (README, "Benchmarks"). A writer
//! may choose less for what it can lose with the machine ([`Durability`]): the commits a
//! hook records (git gives them back), the calls of a coding agent's session whose breaker
//! is closed (nothing synced; the markers always are).
//!
//! **Open markers.** The `open/` markers let the `reference-transaction` hook, which git
//! runs on every ref update, tell "no breaker is open anywhere" from one directory listing
//! in the shim, without starting loopguard. They are a superset of the open runs: every
//! write of a run sets its marker before an open run reaches disk (before the journal, or
//! before the run file when there is no journal) and clears it only after a closed run is
//! there (after the journal is applied and removed); [`Locked::recover`] finishing a
//! journal does the same. A crash in between leaves a marker too many (loopguard then
//! looks and finds nothing), never one too few. A branch with no run of its own that
//! continues an open run has no marker of its own: the run it continues has one, so the
//! shim still starts loopguard.
//!
//! **Hostile files.** Nothing here follows a link out of the store, opens a FIFO or
//! device, or reads more than a bounded size (see [`crate::safe_fs`]). A run file that is
//! not a regular file is set aside and the run rebuilt; an event log that is a link or a
//! special file is set aside and a new one started.

mod key;
mod locked;
pub mod place;
#[cfg(test)]
mod tests;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::breaker::Event;
use crate::iteration::{CommitId, Iteration};
use crate::run::{Inherited, PinnedConfig, RUN_FORMAT, Run};
use crate::safe_fs::{self, Follow, is_refusal};
use crate::settings::Clock;

pub use key::{MAX_KEY_BYTES, branch_key, branch_key_bytes};
use locked::Journal;
pub use locked::{Change, Durability, Loaded, Locked, Recovered};

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

/// The open marker of a repository loopguard cannot read (its refs kept as reftable,
/// after `init`): no branch's key (`branch_key_bytes` writes `%` only before two hex
/// digits). While it is there the shims send every gate to loopguard, which refuses, and
/// `reference-transaction` stays armed; the first hook that can read the repository again
/// takes it away.
pub const UNREADABLE: &str = "%unreadable";

/// The store of a repository (or of its coding agents' sessions): what can be read without
/// the lock; [`Store::lock`] gives the [`Locked`] store that changes it.
pub struct Store {
    dir: PathBuf,
    /// The time of the names of files set aside.
    clock: Clock,
    /// A write point at which to crash (debug builds only; see [`Store::with_failpoint`]).
    failpoint: Option<String>,
    /// Each run has a marker either way: `open/<key>` or `closed/<key>` (the sessions'
    /// store, whose before-call hook does not trust a marker's absence alone).
    closed_markers: bool,
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

impl Store {
    pub fn new(common_dir: &Path, clock: Clock) -> Store {
        Store {
            dir: common_dir.join("loopguard"),
            clock,
            failpoint: None,
            closed_markers: false,
        }
    }

    /// The store of the coding agents' sessions in `dir` (out of the repository, see
    /// `commands/session/place.rs`): the same layout, lock, journal and open markers as the
    /// branches' store, one run per session, apart from it (the `reference-transaction`
    /// shim looks at the branches' markers only). Its runs are marked closed too
    /// ([`Store::closed_marker`]).
    pub fn sessions(dir: PathBuf, clock: Clock) -> Store {
        Store {
            dir,
            clock,
            failpoint: None,
            closed_markers: true,
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

    /// The marker of a closed run, in a store that keeps them (the sessions'): a run
    /// whose markers are both gone had them taken by something else than loopguard.
    pub fn closed_marker(&self, key: &str) -> PathBuf {
        self.dir.join("closed").join(key)
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

    /// [`Locked::ready_dir`] for what is no state (the per-iteration artifacts): nothing
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
    /// The format alone (the rest skipped, its syntax still checked): a run's file is
    /// parsed straight into a run once its format is known, never through a
    /// `serde_json::Value` (which cost a hook as much again).
    #[derive(Deserialize)]
    struct Format {
        format: Option<serde_json::Value>,
    }
    match serde_json::from_slice::<Format>(bytes) {
        Err(e) if e.is_syntax() || e.is_eof() => Err(format!("it is not valid JSON ({e})")),
        Ok(Format {
            format: Some(serde_json::Value::Number(f)),
        }) if f.as_u64().is_some_and(|f| f > u64::from(RUN_FORMAT)) => Err(format!(
            "it has format {f}, newer than this loopguard understands ({RUN_FORMAT}); upgrade loopguard to keep using it"
        )),
        _ => serde_json::from_slice::<Run>(bytes)
            .map_err(|e| format!("it does not hold a run ({e})")),
    }
}

/// A time tag for names of files kept aside.
pub fn tag_of(at: jiff::Timestamp) -> String {
    at.strftime("%Y%m%dT%H%M%S%.fZ").to_string()
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
