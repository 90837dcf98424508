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

/// A session loopguard has no state for, before its call `call`: when its transcript shows
/// earlier calls, its state is missing (deleted, or the session began before loopguard's
/// hooks). While a breaker of the repository (a session's, the branch's) is open the call
/// is refused (fail closed); otherwise it goes through, and the person is told.
pub(super) fn unknown_yet_seen(
    ws: &Workspace<'_>,
    event: &HookEvent,
    call: &CallInput,
) -> Option<Answer> {
    let path = event.transcript.as_deref()?;
    let head = crate::safe_fs::read_range(std::path::Path::new(path), 0, TRANSCRIPT_HEAD).ok()?;
    if !shows_earlier_calls(&String::from_utf8_lossy(&head), &call_key(call)) {
        return None;
    }
    let why = "loopguard has no record of this session although its transcript shows earlier tool calls (its state was deleted, or the session began before loopguard's hooks)".to_owned();
    let cwd = event.cwd.as_deref();
    Some(if super::closed::open_somewhere(ws.ctx, None, cwd) {
        Answer::Deny(format!(
            "loopguard refused this tool call: {why}, and a breaker of this repository is open, so the call does not go through (loopguard fails closed while a breaker is open). Stop calling tools and tell the user."
        ))
    } else {
        Answer::Failed(format!("{why}; it records this session from now on"))
    })
}
