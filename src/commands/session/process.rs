//! The processes around a hook or a command: which harness process runs the session
//! (the nearest ancestor of the hook that is not a shell), whether it is still the same
//! process, and whether a command runs inside it (its ancestry). Read from `/proc` on
//! Linux; elsewhere only the parent's id and whether a process id is alive are known (the
//! docs say what is checked where).

use loopguard_core::session::provenance::Process;

/// What `/proc/<pid>/stat` says of a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stat {
    pub(super) pid: u32,
    pub(super) comm: String,
    /// Stopped (`T`: the person suspended it, e.g. with Ctrl-Z) or traced.
    pub(super) stopped: bool,
    pub(super) ppid: u32,
    pub(super) sid: u32,
    pub(super) start: u64,
}

impl Stat {
    pub(super) fn process(&self) -> Process {
        Process {
            pid: self.pid,
            start: self.start,
            sid: self.sid,
        }
    }
}

/// The programs that only pass a hook's command on (`sh -c 'loopguard agent-hook …'`).
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox", "tcsh", "csh",
];

/// How far up an ancestry is followed (a loop in what `/proc` says stops there too).
const MAX_DEPTH: usize = 64;

#[cfg(target_os = "linux")]
pub(super) fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp session tty_nr …`: comm may hold spaces and parentheses;
    // it ends at the last `)`.
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_owned();
    let rest: Vec<&str> = text.get(close + 2..)?.split_whitespace().collect();
    Some(Stat {
        pid,
        comm,
        stopped: matches!(rest.first(), Some(&("T" | "t"))),
        ppid: rest.get(1)?.parse().ok()?,
        sid: rest.get(3)?.parse().ok()?,
        // Field 22 of stat; `rest` starts at field 3.
        start: rest.get(19)?.parse().ok()?,
    })
}

#[cfg(not(target_os = "linux"))]
pub(super) fn stat(pid: u32) -> Option<Stat> {
    // Only this process's parent is known without /proc.
    (pid == std::process::id()).then(|| Stat {
        pid,
        comm: String::new(),
        stopped: false,
        ppid: std::os::unix::process::parent_id(),
        sid: 0,
        start: 0,
    })
}

/// This process's ancestors, nearest first (its parent, …), as far as they can be read.
pub(super) fn ancestors() -> Vec<Stat> {
    let mut out: Vec<Stat> = Vec::new();
    let mut pid = std::os::unix::process::parent_id();
    while pid > 1 && out.len() < MAX_DEPTH {
        match stat(pid) {
            Some(s) => {
                pid = s.ppid;
                out.push(s);
            }
            None => {
                if out.is_empty() {
                    out.push(Stat {
                        pid,
                        comm: String::new(),
                        stopped: false,
                        ppid: 0,
                        sid: 0,
                        start: 0,
                    });
                }
                break;
            }
        }
    }
    out
}

/// The harness that runs this hook: its nearest ancestor that is not a shell.
pub(super) fn harness() -> Option<Process> {
    ancestors()
        .into_iter()
        .find(|s| !SHELLS.contains(&s.comm.as_str()))
        .map(|s| s.process())
}

/// Whether `p` is still the process that was seen (not another that took its id).
pub(super) fn alive(p: &Process) -> bool {
    match stat(p.pid) {
        Some(s) => p.start == 0 || s.start == p.start,
        // SAFETY: kill with signal 0 sends nothing; it only checks that the id exists.
        None => p.pid > 0 && unsafe { libc::kill(p.pid as libc::pid_t, 0) } == 0,
    }
}

/// Whether `p` is alive and running (not suspended by the person).
pub(super) fn running(p: &Process) -> bool {
    alive(p) && stat(p.pid).is_none_or(|s| !s.stopped)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn this_process_and_its_ancestry_are_read() {
        let me = stat(std::process::id()).expect("/proc/self");
        assert_eq!(me.ppid, std::os::unix::process::parent_id());
        assert!(me.start > 0);
        assert!(alive(&me.process()));
        let other = Process {
            start: me.start + 1,
            ..me.process()
        };
        assert!(!alive(&other), "another start time is another process");
        let up = ancestors();
        assert_eq!(up.first().map(|s| s.pid), Some(me.ppid));
    }
}
