//! What the before-call hook knows of a session's breaker, cheaply: its markers (the
//! sessions' store marks each run `open/<key>` or `closed/<key>`), checked against the
//! store, because a marker's absence alone proves nothing — a program the agent left
//! running can delete markers as fast as loopguard writes them (issue 25: the background
//! eraser). A run with neither marker, or an open marker whose run is gone while its
//! event log remains, had its state taken by something else than loopguard: tampered.

use std::io;

use loopguard_core::session::provenance::{call_key, shows_earlier_calls};
use loopguard_core::session::{Answer, CallInput, HookEvent};

use super::super::Workspace;
use crate::run::Run;
use crate::store::{Peeked, Store};

/// The most bytes of a transcript's start read for earlier calls.
const TRANSCRIPT_HEAD: u64 = 1 << 20;

/// A session's breaker, as its markers and the store tell it.
pub(super) enum Known {
    /// Marked open: its run, to judge by.
    Run(Box<Run>),
    /// Marked closed: nothing to refuse.
    Closed,
    /// Never seen: no run, no marker, no event log.
    New,
    /// Something else than loopguard changed its state: what.
    Tampered(String),
    /// Its run cannot be read: why.
    Unusable(String),
}

/// What the markers of `key` and its run say; what looks tampered with is read again
/// under the store's lock (a writer between two markers is no tampering).
pub(super) fn known(
    store: &Store,
    key: &str,
    lock_timeout: std::time::Duration,
) -> io::Result<Known> {
    match known_now(store, key)? {
        Known::Tampered(_) => {
            let _locked = store.lock(lock_timeout).map_err(io::Error::other)?;
            known_now(store, key)
        }
        other => Ok(other),
    }
}

fn known_now(store: &Store, key: &str) -> io::Result<Known> {
    let marked_open = store.open_keys()?.binary_search(&key.to_owned()).is_ok();
    if !marked_open && exists(&store.closed_marker(key))? {
        return Ok(Known::Closed);
    }
    let logged = || exists(&store.events_path(key));
    Ok(match store.peek_run(key)? {
        Peeked::Found(run) if marked_open => Known::Run(run),
        Peeked::Found(_) => Known::Tampered(
            "the markers of this session's breaker were deleted (by something else than loopguard)"
                .to_owned(),
        ),
        Peeked::Missing if logged()? => Known::Tampered(
            "the run of this session was deleted (by something else than loopguard); its event log remains"
                .to_owned(),
        ),
        Peeked::Missing => Known::New,
        Peeked::Unusable(why) => Known::Unusable(why),
    })
}

fn exists(path: &std::path::Path) -> io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Where loopguard notes each session it ever kept state for (`<key>`, empty), beside
/// the sessions' directory and out of it: a session whose whole state was deleted is
/// still known there, so it does not start again as new.
fn seen_path(store: &Store, key: &str) -> std::path::PathBuf {
    let dir = store.dir();
    dir.parent().unwrap_or(dir).join("seen").join(key)
}

/// Notes that loopguard keeps state for the session `key` (once: its first write).
pub(super) fn note_seen(store: &Store, key: &str) -> io::Result<()> {
    let path = seen_path(store, key);
    crate::safe_fs::ensure_dir(path.parent().expect("a file path has a parent"))?;
    crate::safe_fs::write_atomic_unsynced_rename(&path, b"", || {})
}

/// Whether loopguard kept state for the session `key` before: then its state missing now
/// was deleted (by something else than loopguard: it deletes none).
pub(super) fn was_seen(store: &Store, key: &str) -> bool {
    exists(&seen_path(store, key)).unwrap_or(true)
}

/// Why the state of the session `key` (gone: [`Known::New`]) was deleted, when loopguard
/// can tell it existed: it noted the session ([`note_seen`]), or the harness's transcript
/// shows calls of it made since loopguard's hooks were set up (`init`'s record; any call
/// when there is none). A missing state is then a `constraint` trip, never a fresh start.
pub(super) fn deleted(
    ws: &Workspace<'_>,
    store: &Store,
    key: &str,
    event: &HookEvent,
    call: &CallInput,
) -> Option<String> {
    if was_seen(store, key) {
        return Some(
            "the state of this session was deleted (by something else than loopguard), though loopguard kept it for its earlier calls"
                .to_owned(),
        );
    }
    let set_up = crate::guard_surface::own::last(ws.store.dir())
        .filter(|o| o.by == crate::guard_surface::own::By::Init)
        .map(|o| o.at);
    shows_calls(event, call, set_up).then(|| {
        "loopguard has no record of this session although its transcript shows tool calls made since loopguard's hooks were set up: its state was deleted (by something else than loopguard)".to_owned()
    })
}

/// Whether the transcript of `event` shows calls other than `call` made since `since`.
fn shows_calls(event: &HookEvent, call: &CallInput, since: Option<jiff::Timestamp>) -> bool {
    let Some(path) = event.transcript.as_deref() else {
        return false;
    };
    crate::safe_fs::read_range(std::path::Path::new(path), 0, TRANSCRIPT_HEAD).is_ok_and(|head| {
        shows_earlier_calls(&String::from_utf8_lossy(&head), &call_key(call), since)
    })
}

/// A session loopguard has no state for and no sign it lost any ([`deleted`]), before its
/// call `call`: when its transcript shows earlier calls, the session began before
/// loopguard's hooks. While a breaker of the repository (a session's, the branch's) is
/// open the call is refused (fail closed); otherwise it goes through, and the person is
/// told.
pub(super) fn began_before(
    ws: &Workspace<'_>,
    event: &HookEvent,
    call: &CallInput,
) -> Option<Answer> {
    if !shows_calls(event, call, None) {
        return None;
    }
    let why = "loopguard has no record of this session although its transcript shows earlier tool calls (the session began before loopguard's hooks were set up)".to_owned();
    let cwd = event.cwd.as_deref();
    Some(if super::closed::open_somewhere(ws.ctx, None, cwd) {
        Answer::Deny(format!(
            "loopguard refused this tool call: {why}, and a breaker of this repository is open, so the call does not go through (loopguard fails closed while a breaker is open). Stop calling tools and tell the user."
        ))
    } else {
        Answer::Failed(format!("{why}; it records this session from now on"))
    })
}

/// The session's run with a `constraint` trip for `why` (something else than loopguard
/// changed its state), written; once: a run [`super::with_session`] found lost and tripped
/// in this same hook is not tripped again.
pub(super) fn tamper(
    ws: &Workspace<'_>,
    config: &crate::config::Config,
    store: &Store,
    key: &str,
    event: &HookEvent,
    now: jiff::Timestamp,
    why: String,
) -> anyhow::Result<Run> {
    super::with_session(ws, config, store, key, event, now, |run| {
        let b = run.breaker();
        let now_tripped = b
            .trip()
            .is_some_and(|t| t.rule == crate::rules::RuleName::Constraint && t.at >= now);
        if b.is_open() && now_tripped {
            return Ok((run.clone(), Vec::new()));
        }
        let step = loopguard_core::session::provenance::tampered(config, run, why, now);
        Ok((run.clone(), step.events))
    })
}
