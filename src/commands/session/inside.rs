//! The commands that relax a breaker — `resume`, `reset` (`--session`, `--accept-config`),
//! `init`, `uninstall`, `event --progress`, `finish` — are a person's acts. Run inside a
//! coding agent, whatever the spelling (another `-C`, a quoted or copied binary, an alias,
//! a script), they refuse (exit 2) and tell the person to run them from their own
//! terminal. Inside means, for the sessions of every repository on this machine:
//!
//! - a session has a tool call in flight: its before-call hook allowed it, its result has
//!   not come, and it is not over (its harness's process is alive, its transcript shows no
//!   result) — the agent's shell runs the command, or the person runs it while the agent
//!   is busy (the message says which call, and to run it again once it is done);
//! - the command descends from a session's harness process (Linux: `/proc`; elsewhere only
//!   its parent is known): the agent's shell, a script or a hook it started, a command a
//!   person typed into the agent's own prompt (`!`);
//! - the command runs in the process session of a harness that is running (not suspended
//!   by the person): a program the agent left running in the background after its call.
//!
//! What is left — a program the agent started detached from its session (`setsid`) that
//! runs after its call ended — is said in README's threat model: `resume` and `reset`
//! are events in the log, with the time, whoever ran them.

use std::path::{Path, PathBuf};

use loopguard_core::session::provenance::Process;

use super::inflight::{self, Flights};
use super::process;
use crate::error::InputError;
use crate::settings::{Clock, Settings};
use crate::store::Store;

/// Refuses `command` when it runs inside a coding agent (see the module docs).
/// `common_dir` is the repository's git common directory, when there is one (its sessions
/// are looked at wherever they are kept).
pub(in crate::commands) fn refuse_inside_agent(
    settings: &Settings,
    common_dir: Option<&Path>,
    command: &'static str,
) -> Result<(), InputError> {
    let stores: Vec<Store> = dirs(settings, common_dir)
        .into_iter()
        .map(|d| Store::sessions(d, Clock::System))
        .collect();
    let refuse = |why: String| Err(InputError::InsideAgent { command, why });
    for store in &stores {
        for (key, _) in inflight::all(store) {
            if let Some(f) = Flights::of(store, &key).running().into_iter().next() {
                return refuse(format!(
                    "the agent's tool call {} started at {} and is still running; if that is the agent at work and you typed this yourself, run it again once the call is over (or after stopping the agent)",
                    f.call.describe(),
                    f.call.at.strftime("%H:%M:%S UTC"),
                ));
            }
        }
    }
    let harnesses: Vec<Process> = stores
        .iter()
        .flat_map(inflight::harnesses)
        .map(|(_, p)| p)
        .filter(process::alive)
        .collect();
    let ancestors = process::ancestors();
    if let Some(h) = harnesses.iter().find(|h| {
        ancestors
            .iter()
            .any(|a| a.pid == h.pid && (h.start == 0 || a.start == h.start))
    }) {
        return refuse(format!(
            "it was started by the agent's harness (process {}), through its shell or a program it ran",
            h.pid
        ));
    }
    let own_sid = process::stat(std::process::id()).map_or(0, |s| s.sid);
    if let Some(h) = harnesses
        .iter()
        .find(|h| own_sid != 0 && h.sid == own_sid && process::running(h))
    {
        return refuse(format!(
            "it runs in the process session of the agent's harness (process {}), which is running: a program the agent left behind",
            h.pid
        ));
    }
    Ok(())
}

/// Every sessions' store on this machine: each repository's under the state directory,
/// and `common_dir`'s own.
fn dirs(settings: &Settings, common_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(home) = &settings.state_home
        && let Ok(entries) = std::fs::read_dir(home.join("loopguard").join("repositories"))
    {
        out.extend(entries.flatten().map(|e| e.path().join("sessions")));
    }
    if let Some(c) = common_dir {
        let own = crate::store::place::sessions_dir(settings.state_home.as_deref(), c);
        if !out.contains(&own) {
            out.push(own);
        }
    }
    out
}
