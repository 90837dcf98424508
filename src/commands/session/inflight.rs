//! The calls in flight of each session (see `loopguard_core::session::provenance`): one
//! small file per call, `inflight/<session>/<call>.<n>` in the sessions' store, written by
//! the before-call hook that allowed the call (no lock: each call has its own file, put in
//! place whole by a link that never replaces another) and removed by the hook of its
//! result. `<n>` tells apart the same call announced twice (the hook installed twice, or
//! two calls with the same input where the harness gives no ids).
//!
//! And the harness's process of each session (`harness/<session>`), kept by the
//! before-call hook, so that a command can tell whether it runs inside one
//! ([`super::inside`]).
//!
//! None of it is synced to disk: after a crash of the machine the harness is gone too.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use loopguard_core::session::provenance::{InFlight, Process};

use crate::safe_fs::{self, Follow};
use crate::store::{Store, branch_key_bytes};

/// The most calls of one session read as in flight (a session never has this many at
/// once; a directory filled by someone else is not read to its end).
const MAX_RECORDS: usize = 256;
/// The most bytes of one record read.
const RECORD_LIMIT: u64 = 16 << 10;

/// The calls in flight of one session.
pub(super) struct Flights {
    dir: PathBuf,
}

/// A call in flight, and the file that says so.
pub(super) struct Flight {
    pub(super) path: PathBuf,
    pub(super) call: InFlight,
}

impl Flights {
    pub(super) fn of(store: &Store, key: &str) -> Flights {
        Flights {
            dir: store.dir().join("inflight").join(key),
        }
    }

    /// The file name of `call`'s `n`th record.
    fn name(call: &str, n: usize) -> String {
        format!("{}.{n}", branch_key_bytes(Some(call.as_bytes())))
    }

    /// Records `f` as in flight.
    pub(super) fn announce(&self, f: &InFlight) -> io::Result<()> {
        let bytes = serde_json::to_vec(f).map_err(io::Error::other)?;
        safe_fs::ensure_dir(&self.dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(safe_fs::TEMP_PREFIX)
            .tempfile_in(&self.dir)?;
        tmp.write_all(&bytes)?;
        for n in 0..MAX_RECORDS {
            match tmp.persist_noclobber(self.dir.join(Self::name(&f.call, n))) {
                Ok(_) => return Ok(()),
                Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => tmp = e.file,
                Err(e) => return Err(e.error),
            }
        }
        Err(io::Error::other(format!(
            "{}: {MAX_RECORDS} records of one call",
            self.dir.display()
        )))
    }

    /// Removes one record of the call `call`; whether there was one.
    pub(super) fn land(&self, call: &str) -> io::Result<bool> {
        let prefix = format!("{}.", branch_key_bytes(Some(call.as_bytes())));
        let entries = match std::fs::read_dir(&self.dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            other => other?,
        };
        for entry in entries.flatten().take(MAX_RECORDS) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let ours = name
                .strip_prefix(&prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if ours {
                match std::fs::remove_file(entry.path()) {
                    Ok(()) => return Ok(true),
                    // Another hook of the same result took it first.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(false)
    }

    /// The calls in flight (a record that cannot be read is left out, and said).
    pub(super) fn list(&self) -> (Vec<Flight>, Vec<String>) {
        let mut calls = Vec::new();
        let mut bad = Vec::new();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return (calls, bad);
        };
        for entry in entries.flatten().take(MAX_RECORDS) {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            match read_record(&path) {
                Ok(call) => calls.push(Flight { path, call }),
                Err(why) => bad.push(why),
            }
        }
        calls.sort_by_key(|f| f.call.at);
        (calls, bad)
    }

    /// The calls still in flight: those that are over although no hook said so (the
    /// harness's process is gone, or its transcript shows the result: another hook
    /// denied the call, the person interrupted it) are forgotten.
    pub(super) fn running(&self) -> Vec<Flight> {
        let (calls, _) = self.list();
        let mut tails = Tails::default();
        calls
            .into_iter()
            .filter(|f| {
                if f.over(&mut tails) {
                    let _ = std::fs::remove_file(&f.path);
                    false
                } else {
                    true
                }
            })
            .collect()
    }
}

/// The transcripts' ends, each read once.
#[derive(Default)]
struct Tails(Vec<(String, Option<String>)>);

impl Tails {
    fn of(&mut self, path: &str) -> Option<&str> {
        if let Some(i) = self.0.iter().position(|(p, _)| p == path) {
            return self.0[i].1.as_deref();
        }
        let text = safe_fs::read_tail(Path::new(path), TRANSCRIPT_TAIL)
            .ok()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        self.0.push((path.to_owned(), text));
        self.0.last().and_then(|(_, t)| t.as_deref())
    }
}

/// The most bytes of a transcript's end read to find a call's result (its calls in flight
/// are its latest).
const TRANSCRIPT_TAIL: u64 = 16 << 20;

impl Flight {
    /// Whether the call is over although no hook said so.
    fn over(&self, tails: &mut Tails) -> bool {
        if self
            .call
            .harness
            .is_some_and(|p| !super::process::alive(&p))
        {
            return true;
        }
        self.call
            .transcript
            .as_deref()
            .and_then(|t| tails.of(t))
            .is_some_and(|text| text.lines().any(|l| self.call.answered_by(l)))
    }
}

fn read_record(path: &Path) -> Result<InFlight, String> {
    let bytes = safe_fs::read_bounded(path, RECORD_LIMIT, Follow::No)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .ok_or_else(|| format!("{}: gone", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every session's calls in flight in `store`: (the session's key, the call).
pub(super) fn all(store: &Store) -> Vec<(String, Flight)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(store.dir().join("inflight")) else {
        return out;
    };
    for entry in entries.flatten().take(MAX_RECORDS) {
        let key = entry.file_name().to_string_lossy().into_owned();
        let (calls, _) = Flights::of(store, &key).list();
        out.extend(calls.into_iter().map(|c| (key.clone(), c)));
    }
    out
}

/// Whether a call of any session in `store` is still running (those over although no
/// hook said so are forgotten first).
pub(super) fn any_running(store: &Store) -> bool {
    let Ok(entries) = std::fs::read_dir(store.dir().join("inflight")) else {
        return false;
    };
    entries.flatten().take(MAX_RECORDS).any(|entry| {
        let key = entry.file_name().to_string_lossy().into_owned();
        !Flights::of(store, &key).running().is_empty()
    })
}

/// The file of the harness's process of the session `key`.
fn harness_path(store: &Store, key: &str) -> PathBuf {
    store.dir().join("harness").join(key)
}

/// Keeps `p` as the harness's process of the session `key`, when it is not already.
pub(super) fn keep_harness(store: &Store, key: &str, p: Process) -> io::Result<()> {
    let path = harness_path(store, key);
    if read_harness(&path) == Some(p) {
        return Ok(());
    }
    let bytes = serde_json::to_vec(&p).map_err(io::Error::other)?;
    safe_fs::ensure_dir(path.parent().expect("a file path has a parent"))?;
    safe_fs::write_atomic_unsynced(&path, &bytes, || {})
}

fn read_harness(path: &Path) -> Option<Process> {
    let bytes = safe_fs::read_bounded(path, RECORD_LIMIT, Follow::No).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// The harness's processes of every session in `store`: (the session's key, the process).
pub(super) fn harnesses(store: &Store) -> Vec<(String, Process)> {
    let Ok(entries) = std::fs::read_dir(store.dir().join("harness")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .take(MAX_RECORDS * 4)
        .filter_map(|e| {
            let key = e.file_name().to_string_lossy().into_owned();
            (!key.starts_with('.')).then_some(())?;
            Some((key, read_harness(&e.path())?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;
    use loopguard_core::session::CallInput;
    use serde_json::json;

    use super::*;
    use crate::settings::Clock;

    #[test]
    fn a_call_is_in_flight_from_its_announcement_to_its_result() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::sessions(tmp.path().to_owned(), Clock::System);
        let flights = Flights::of(&store, "s1");
        let mut call = CallInput::new("Bash", json!({"command": "sleep 1"}));
        call.id = Some("toolu/../1".into());
        let f = InFlight::of(&call, Timestamp::UNIX_EPOCH, None);
        // Announced twice (the hook installed twice): two records, two results.
        flights.announce(&f).unwrap();
        flights.announce(&f).unwrap();
        let (listed, bad) = flights.list();
        assert_eq!((listed.len(), bad.len()), (2, 0));
        assert_eq!(listed[0].call, f);
        assert_eq!(all(&store).len(), 2);
        assert!(flights.land(&f.call).unwrap());
        assert!(flights.land(&f.call).unwrap());
        assert!(!flights.land(&f.call).unwrap());
        assert!(flights.list().0.is_empty());
        // The harness's process is written once.
        let p = Process {
            pid: 7,
            start: 9,
            sid: 7,
        };
        keep_harness(&store, "s1", p).unwrap();
        keep_harness(&store, "s1", p).unwrap();
        assert_eq!(harnesses(&store), vec![("s1".to_owned(), p)]);
    }
}
