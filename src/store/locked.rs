//! The store, locked: the only value that can change it. [`Store::lock`] takes the lock
//! and gives a [`Locked`], which alone carries the operations that need the lock (finish a
//! dead writer's journal, load a run for a change, commit a change, write a report or the
//! accepted config); dropping it unlocks. So "under the lock" is checked by the compiler.
//! Readers that need no lock ([`Store::peek_run`], [`Store::open_keys`], …) stay on the
//! [`Store`], which a `Locked` also reads through.

use std::fs;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::breaker::Event;
use crate::iteration::Iteration;
use crate::run::{PinnedConfig, RUN_FORMAT, Run};
use crate::safe_fs::{self, Follow, is_refusal};

use super::{RUN_LIMIT, StartRecord, Store, StoreError, UNREADABLE, parse_run, set_aside};

/// The store with its lock held; dropping it unlocks.
pub struct Locked<'s> {
    store: &'s Store,
    _file: fs::File,
}

impl Deref for Locked<'_> {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.store
    }
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

/// One change to a branch's state, written as a whole ([`Locked::commit`]).
pub struct Change<'a> {
    pub run: &'a Run,
    pub events: &'a [Event],
    /// Iterations the run dropped (see `Run::compact`): appended to its calls log.
    pub calls: &'a [Iteration],
    /// A new run (or a new config for it): its start record.
    pub start: Option<StartRecord>,
    /// The run ended: its report (run id, markdown).
    pub report: Option<(String, String)>,
}

/// How durable a change is when [`Locked::commit`] returns: chosen by the writer at each
/// change, for what it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// On disk, whatever happens next: each file synced before its rename, its directory
    /// after (see the module docs).
    Synced,
    /// Nothing but what git gives back (the commits a hook records, their verdicts): a
    /// change of the run file alone leaves its rename to the file system and does not
    /// sync its directory. After a crash of the machine the previous run file is there,
    /// complete, and the next hook catches its commits up again (a commit pays one sync
    /// for its record, not two). A change that writes more (events, a start, a report,
    /// dropped calls) goes through the journal and is synced all the same.
    Derivable,
    /// Nothing synced: the journal, the logs' appends, the run file and the report are
    /// written in the same order, so a crash of loopguard anywhere still leaves the old
    /// state or the new (the journal finishes it), but a crash of the machine may lose the
    /// change, or its end. Only for what loopguard can do without: the calls of a coding
    /// agent's session whose breaker is closed before and after the change and that opens
    /// nothing (the caller says why, where it chooses this). A marker is synced whatever
    /// the durability: a marker too many is allowed, one too few never.
    Rebuildable,
}

/// A change on its way to disk (readers take its run as the branch's: [`Store::peek_run`]).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Journal {
    pub(super) format: u32,
    pub(super) run: Run,
    #[serde(default)]
    pub(super) events: Vec<Event>,
    /// The event log's length before `events` were appended.
    pub(super) events_at: u64,
    /// Iterations the run dropped, for its calls log, and the log's length before them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) calls: Vec<Iteration>,
    #[serde(default)]
    pub(super) calls_at: u64,
    #[serde(default)]
    pub(super) start: Option<StartRecord>,
    #[serde(default)]
    pub(super) report: Option<(String, String)>,
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
    /// Takes the store's lock, waiting up to `timeout` for another loopguard to finish.
    pub fn lock(&self, timeout: Duration) -> Result<Locked<'_>, StoreError> {
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
                Ok(()) => {
                    return Ok(Locked {
                        store: self,
                        _file: file,
                    });
                }
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
}

fn open_lock(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    safe_fs::open_no_follow(path, &mut options)
}

impl Locked<'_> {
    /// Loads the run for `key`. A corrupt, future-format or special file is moved aside
    /// (never deleted) and reported, so the caller can rebuild the run from git.
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

    /// Records the config a person set up or accepted.
    pub fn set_accepted_config(&self, pin: &PinnedConfig) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(pin).map_err(io::Error::other)?;
        self.write_atomic(&self.accepted_path(), &bytes)
    }

    /// Writes a change to `key`'s state as a whole (see the module docs), as durably as
    /// `durability` says.
    pub fn commit(&self, key: &str, change: Change<'_>, durability: Durability) -> io::Result<()> {
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
            match durability {
                Durability::Derivable => {
                    self.ready_dir(path.parent().expect("a file path has a parent"))?;
                    safe_fs::write_atomic_unsynced_rename(&path, &run_bytes, || {
                        self.crash_at("temp-written");
                    })?;
                }
                Durability::Rebuildable => self.write_as(&path, &run_bytes, durability)?,
                Durability::Synced => self.write_atomic(&path, &run_bytes)?,
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
        // A journal of a change that need not survive the machine need not either; the
        // others are synced (Derivable's too: more than the run file changes).
        let durability = match durability {
            Durability::Rebuildable => Durability::Rebuildable,
            Durability::Synced | Durability::Derivable => Durability::Synced,
        };
        self.write_as(&self.journal_path(key), &bytes, durability)?;
        self.crash_at("journal-written");
        self.apply(key, &journal, Some(run_bytes), durability)
    }

    /// Finishes what a writer that died left: its journal is applied, and temporary files
    /// are removed.
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
                self.apply(key, &j, None, Durability::Synced)?;
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
    /// and cleared last when it is not. Each file is written as durably as `durability`
    /// says (the markers always synced).
    fn apply(
        &self,
        key: &str,
        j: &Journal,
        run_bytes: Option<Vec<u8>>,
        durability: Durability,
    ) -> io::Result<()> {
        let open = j.run.is_open();
        if open {
            self.mark_open(key, true)?;
        }
        let log = json_lines(&j.events)?;
        if !log.is_empty() {
            self.append_once(&self.events_path(key), j.events_at, &log, durability)?;
        }
        self.crash_at("events-appended");
        let calls = json_lines(&j.calls)?;
        if !calls.is_empty() {
            self.append_once(&self.calls_path(&j.run.id), j.calls_at, &calls, durability)?;
        }
        self.crash_at("calls-appended");
        if let Some(start) = &j.start {
            let bytes = serde_json::to_vec_pretty(start).map_err(io::Error::other)?;
            self.write_as(&self.start_path(key), &bytes, durability)?;
        }
        let run_bytes = match run_bytes {
            Some(b) => b,
            None => serde_json::to_vec(&j.run).map_err(io::Error::other)?,
        };
        self.write_as(&self.run_path(key), &run_bytes, durability)?;
        self.crash_at("state-written");
        if let Some((run_id, markdown)) = &j.report {
            self.write_as(&self.report_path(run_id), markdown.as_bytes(), durability)?;
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
    fn append_once(
        &self,
        path: &Path,
        at: u64,
        log: &[u8],
        durability: Durability,
    ) -> io::Result<()> {
        let append = |path: &Path, log: &[u8]| match durability {
            Durability::Rebuildable => safe_fs::append_unsynced(path, log),
            Durability::Synced | Durability::Derivable => safe_fs::append(path, log),
        };
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
        match append(path, log) {
            Err(e) if is_refusal(&e) => {
                // Swapped for something else since: set it aside, start a new log.
                set_aside(path, "refused", &self.tag_now())?;
                append(path, log)
            }
            other => other,
        }
    }

    /// Removes what writers that died left: loopguard's temporary files in the
    /// directories written under the lock.
    fn clean_temporary_files(&self) {
        for sub in [
            "",
            "runs",
            "runs/ended",
            "events",
            "calls",
            "reports",
            "open",
            "closed",
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

    /// Keeps a run that `finish` ended in `runs/ended/<run id>.json`, for the record.
    pub fn keep_ended(&self, run: &Run) -> io::Result<PathBuf> {
        let path = self
            .dir
            .join("runs")
            .join("ended")
            .join(format!("{}.json", run.id));
        let bytes = serde_json::to_vec_pretty(run).map_err(io::Error::other)?;
        self.write_atomic(&path, &bytes)?;
        Ok(path)
    }

    /// Sets (`on`) or clears the marker of a repository loopguard cannot read
    /// ([`UNREADABLE`]); says whether one was there before.
    pub fn mark_unreadable(&self, on: bool) -> io::Result<bool> {
        let was = fs::symlink_metadata(self.open_marker(UNREADABLE)).is_ok();
        if was != on {
            self.mark_open(UNREADABLE, on)?;
        }
        Ok(was)
    }

    /// Sets (`open`) or clears `key`'s open marker (and, where closed runs are marked too,
    /// clears or sets its closed marker after: a crash leaves both, never neither).
    fn mark_open(&self, key: &str, open: bool) -> io::Result<()> {
        if !self.closed_markers {
            return self.mark(&self.open_marker(key), key, open);
        }
        let (set, clear) = if open {
            (self.open_marker(key), self.closed_marker(key))
        } else {
            (self.closed_marker(key), self.open_marker(key))
        };
        self.mark(&set, key, true)?;
        self.mark(&clear, key, false)
    }

    /// Sets or clears `key`'s marker at `path`. A marker is never read: whatever is there
    /// other than a link is one already; a link is replaced (never written through).
    fn mark(&self, path: &Path, key: &str, set: bool) -> io::Result<()> {
        let there = fs::symlink_metadata(path);
        if set {
            return match there {
                Ok(m) if !m.file_type().is_symlink() => Ok(()),
                _ => {
                    self.ready_dir(path.parent().expect("a file path has a parent"))?;
                    safe_fs::write_atomic(path, b"", || {})
                }
            };
        }
        match there {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Ok(m) if m.is_dir() => {
                // Not ours: kept aside under a name that is no marker.
                let kept = path.with_file_name(format!(".{key}.refused-{}", self.tag_now()));
                fs::rename(path, kept)
            }
            _ => match fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        }
    }

    /// Writes a report.
    pub fn write_report(&self, run_id: &str, markdown: &str) -> io::Result<PathBuf> {
        let path = self.report_path(run_id);
        self.write_atomic(&path, markdown.as_bytes())?;
        Ok(path)
    }

    /// [`safe_fs::write_atomic`] in the store, with the `temp-written` failpoint.
    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.ready_dir(path.parent().expect("a file path has a parent"))?;
        safe_fs::write_atomic(path, bytes, || self.crash_at("temp-written"))
    }

    /// [`Locked::write_atomic`], with nothing synced for a [`Durability::Rebuildable`]
    /// change.
    fn write_as(&self, path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
        if durability != Durability::Rebuildable {
            return self.write_atomic(path, bytes);
        }
        self.ready_dir(path.parent().expect("a file path has a parent"))?;
        safe_fs::write_atomic_unsynced(path, bytes, || self.crash_at("temp-written"))
    }

    /// Makes sure `dir` and every directory between the store and it are directories of
    /// the store's own: one that is a link (or anything else) is set aside and made anew,
    /// so nothing is written out of the store through it.
    /// Each directory it makes is durable (it will hold state).
    fn ready_dir(&self, dir: &Path) -> io::Result<()> {
        self.ready(dir, safe_fs::ensure_dir_durably)
    }
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
