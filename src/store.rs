//! Local state under `<git common dir>/loopguard/`: one run per branch, an append-only
//! event log per branch, run reports.
//!
//! ```text
//! loopguard/
//!   lock                     serialises every writer (hooks may race)
//!   runs/<branch>.json       the run (format-versioned), written atomically
//!   runs/<branch>.json.corrupt-<time>   a file that could not be read, kept aside
//!   events/<branch>.jsonl    every breaker transition, appended, never rewritten
//!   reports/<run-id>.md      the report of every run that ended
//!   chained/<hook>           hooks that were installed before loopguard (see hooks.rs)
//!   open/<branch>            an empty marker while that run's breaker is open
//! ```
//!
//! The `open/` markers let the `reference-transaction` hook, which git runs on every ref
//! update, tell "no breaker is open anywhere" from one directory listing in the shim,
//! without starting loopguard. They are a superset of the open runs: a marker is written
//! before a run is saved open and removed after it is saved closed, so a crash between the
//! two leaves a marker too many (loopguard then looks and finds nothing), never one too
//! few.
//!
//! The common dir is shared by linked worktrees, so their runs live side by side, keyed by
//! branch.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::breaker::Event;
use crate::run::{RUN_FORMAT, Run};

pub struct Store {
    dir: PathBuf,
}

/// Held while the store is locked; dropping it unlocks.
pub struct Lock {
    _file: File,
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

impl Store {
    pub fn new(common_dir: &Path) -> Store {
        Store {
            dir: common_dir.join("loopguard"),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether loopguard was ever used in this repository.
    pub fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    /// Takes the store's lock, waiting up to `timeout` for another loopguard to finish.
    pub fn lock(&self, timeout: Duration) -> io::Result<Lock> {
        fs::create_dir_all(&self.dir)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("lock"))?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Lock { _file: file }),
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "another loopguard holds {} for more than {:?}",
                            self.dir.join("lock").display(),
                            timeout
                        ),
                    ));
                }
                Err(fs::TryLockError::Error(e)) => return Err(e),
            }
        }
    }

    pub fn run_path(&self, key: &str) -> PathBuf {
        self.dir.join("runs").join(format!("{key}.json"))
    }

    pub fn events_path(&self, key: &str) -> PathBuf {
        self.dir.join("events").join(format!("{key}.jsonl"))
    }

    /// Loads the run for `key`. A corrupt or future-format file is moved aside (never
    /// deleted) and reported, so the caller can rebuild the run from git.
    pub fn load_run(&self, key: &str, now_tag: &str) -> io::Result<Loaded> {
        let path = self.run_path(key);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Loaded::Missing),
            Err(e) => return Err(e),
        };
        let why = match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Err(e) => format!("it is not valid JSON ({e})"),
            Ok(v) => match v.get("format").and_then(serde_json::Value::as_u64) {
                Some(f) if f > u64::from(RUN_FORMAT) => format!(
                    "it has format {f}, newer than this loopguard understands ({RUN_FORMAT}); upgrade loopguard to keep using it"
                ),
                _ => match serde_json::from_value::<Run>(v) {
                    Ok(run) => return Ok(Loaded::Found(Box::new(run))),
                    Err(e) => format!("it does not hold a run ({e})"),
                },
            },
        };
        let kept = path.with_file_name(format!("{key}.json.corrupt-{now_tag}"));
        fs::rename(&path, &kept)?;
        Ok(Loaded::SetAside { kept, why })
    }

    /// Writes the run atomically: a temporary file in the same directory, then a rename.
    /// The run's `open/` marker is set before an open run is written and cleared after a
    /// closed one is.
    pub fn save_run(&self, key: &str, run: &Run) -> io::Result<()> {
        let path = self.run_path(key);
        let bytes = serde_json::to_vec_pretty(run).map_err(io::Error::other)?;
        if run.is_open() {
            self.mark_open(key, true)?;
        }
        write_atomic(&path, &bytes)?;
        if !run.is_open() {
            self.mark_open(key, false)?;
        }
        Ok(())
    }

    /// The marker of an open run (see the module docs).
    pub fn open_marker(&self, key: &str) -> PathBuf {
        self.dir.join("open").join(key)
    }

    fn mark_open(&self, key: &str, open: bool) -> io::Result<()> {
        let path = self.open_marker(key);
        if open {
            fs::create_dir_all(path.parent().expect("has a parent"))?;
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map(drop)
        } else {
            match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            }
        }
    }

    /// The keys of the runs whose breaker may be open (their markers), sorted.
    pub fn open_keys(&self) -> io::Result<Vec<String>> {
        let entries = match fs::read_dir(self.dir.join("open")) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut keys = Vec::new();
        for entry in entries {
            if let Ok(name) = entry?.file_name().into_string() {
                keys.push(name);
            }
        }
        keys.sort();
        Ok(keys)
    }

    /// Sets every run's marker from its state file (`init`: stores written before the
    /// markers existed). Files that cannot be read are marked, to be looked at.
    pub fn sync_open_markers(&self) -> io::Result<()> {
        let entries = match fs::read_dir(self.dir.join("runs")) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            if !entry.file_type()?.is_file() {
                continue;
            }
            let open = fs::read(entry.path())
                .ok()
                .and_then(|b| serde_json::from_slice::<Run>(&b).ok())
                .is_none_or(|run| run.is_open());
            self.mark_open(key, open)?;
        }
        Ok(())
    }

    /// Moves a finished run out of the way (`reset`), keeping it for the record.
    pub fn archive_run(&self, key: &str, run_id: &str) -> io::Result<Option<PathBuf>> {
        let path = self.run_path(key);
        if !path.exists() {
            return Ok(None);
        }
        let dest = self
            .dir
            .join("runs")
            .join("ended")
            .join(format!("{run_id}.json"));
        fs::create_dir_all(dest.parent().expect("has a parent"))?;
        fs::rename(&path, &dest)?;
        self.mark_open(key, false)?;
        Ok(Some(dest))
    }

    /// Appends events, one JSON object per line, in one write.
    pub fn append_events(&self, key: &str, events: &[Event]) -> io::Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let path = self.events_path(key);
        fs::create_dir_all(path.parent().expect("has a parent"))?;
        let mut buf = Vec::new();
        for e in events {
            serde_json::to_writer(&mut buf, e).map_err(io::Error::other)?;
            buf.push(b'\n');
        }
        let mut f = OpenOptions::new().create(true).append(true).open(&path)?;
        f.write_all(&buf)
    }

    /// Reads the event log; lines that do not parse are returned as errors with their
    /// line number instead of being dropped.
    pub fn read_events(&self, key: &str) -> io::Result<(Vec<Event>, Vec<String>)> {
        let text = match fs::read_to_string(self.events_path(key)) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((vec![], vec![])),
            Err(e) => return Err(e),
        };
        let mut events = Vec::new();
        let mut bad = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(line) {
                Ok(e) => events.push(e),
                Err(e) => bad.push(format!("line {}: {e}", n + 1)),
            }
        }
        Ok((events, bad))
    }

    pub fn write_report(&self, run_id: &str, markdown: &str) -> io::Result<PathBuf> {
        let path = self.dir.join("reports").join(format!("{run_id}.md"));
        write_atomic(&path, markdown.as_bytes())?;
        Ok(path)
    }
}

/// Writes `bytes` to `path` so that readers see the old or the new file, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().expect("a file path has a parent");
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A branch name as a file name: safe characters kept, everything else %-escaped, so
/// `feature/x` and `feature-x` stay distinct.
pub fn branch_key(branch: Option<&str>) -> String {
    match branch {
        Some(branch) => branch_key_bytes(branch.as_bytes()),
        None => "(detached)".to_owned(),
    }
}

/// [`branch_key`] of a branch name as git has it: bytes, which need not be UTF-8.
pub fn branch_key_bytes(branch: &[u8]) -> String {
    let mut out = String::with_capacity(branch.len());
    for &b in branch {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.starts_with('.') {
        out.replace_range(0..1, "%2E");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;

    #[test]
    fn branch_keys_are_distinct_and_safe() {
        assert_eq!(branch_key(Some("main")), "main");
        assert_eq!(branch_key(Some("feature/x")), "feature%2Fx");
        assert_ne!(branch_key(Some("feature/x")), branch_key(Some("feature-x")));
        assert_eq!(branch_key(Some("..")), "%2E.");
        assert_eq!(branch_key(None), "(detached)");
        assert_eq!(branch_key_bytes(b"side\xff"), "side%FF");
        assert_ne!(branch_key_bytes(b"side\xff"), branch_key_bytes(b"side\xfe"));
    }

    #[test]
    fn open_markers_follow_the_saved_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        assert!(store.open_keys().unwrap().is_empty());
        let config = loopguard_core::config::Config::default();
        let mut run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
        store.save_run("main", &run).unwrap();
        assert!(store.open_keys().unwrap().is_empty());
        for n in 0..3 {
            let mut it = crate::iteration::Iteration::new(format!("{n:040x}").parse().unwrap());
            it.tree = Some("t".into());
            it.parent_tree = Some("t".into());
            it.files = Some(Vec::new());
            run.record(&config, it, Timestamp::UNIX_EPOCH);
        }
        assert!(run.is_open());
        store.save_run("main", &run).unwrap();
        assert_eq!(store.open_keys().unwrap(), ["main"]);

        // A store from before the markers: init puts them back.
        fs::remove_file(store.open_marker("main")).unwrap();
        store.sync_open_markers().unwrap();
        assert_eq!(store.open_keys().unwrap(), ["main"]);

        store.archive_run("main", "r").unwrap();
        assert!(store.open_keys().unwrap().is_empty());
    }

    #[test]
    fn corrupt_and_future_files_are_kept_aside() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
        store.save_run("main", &run).unwrap();
        match store.load_run("main", "t").unwrap() {
            Loaded::Found(r) => assert_eq!(*r, run),
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
    fn lock_times_out_while_held() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let held = store.lock(Duration::from_secs(1)).unwrap();
        let e = store.lock(Duration::from_millis(50)).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        drop(held);
        store.lock(Duration::from_millis(50)).unwrap();
    }
}
