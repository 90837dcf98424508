//! The status for a terminal: `status`, `check`, `replay`, the hooks' refusals and what a
//! trip tells the agent. Every piece of untrusted text goes through
//! [`sanitize::printable`]: control characters are shown, never executed.

use std::fmt::Write as _;

use super::{Status, WayOut};
use crate::breaker::{Event, EventKind, State};
use crate::config::TripAction;
use crate::sanitize::printable;

/// One screen for `status`.
pub fn status(s: &Status) -> String {
    let mut out = String::new();
    let what = match s.terminal_status {
        Some(t) => format!("{} ({t})", s.state),
        None => s.state.to_string(),
    };
    let _ = writeln!(out, "breaker: {what}");
    if s.guarded == Some(false) {
        out.push_str(&unguarded(&s.missing_hooks, s.some_hooks));
    }
    if let Some(run) = &s.run {
        let on = s
            .branch
            .as_deref()
            .map(|b| format!(" on {}", printable(b)))
            .unwrap_or_default();
        let _ = writeln!(out, "run: {run}{on}");
    }
    let _ = writeln!(out, "iterations: {} (profile {})", s.iterations, s.profile);
    if let (Some(rule), Some(reason)) = (s.rule, &s.reason) {
        let _ = writeln!(out, "rule: {rule}\nreason: {}", printable(reason));
    }
    if let Some(m) = &s.next_model {
        let _ = writeln!(out, "next model: {}", printable(m));
    }
    out.push_str("counters:\n");
    for (rule, c) in &s.counters {
        let mark = if c.reached() { "  <-" } else { "" };
        let _ = writeln!(
            out,
            "  {:<17} {:<24} {}{mark}",
            rule.as_str(),
            c.describe(),
            rule.descriptor().counts
        );
    }
    for w in &s.warnings {
        let _ = writeln!(out, "warning: {}: {}", w.rule, printable(&w.reason));
    }
    for n in &s.notes {
        let _ = writeln!(out, "note: {}: {}", n.rule, printable(&n.text));
    }
    out
}

/// What `status` says when hooks do not guard the repository.
fn unguarded(missing: &[String], some: bool) -> String {
    if !some {
        "guard: not guarded: loopguard's hooks are not installed here, so nothing refuses a \
         commit or a push; run `loopguard init`\n"
            .to_owned()
    } else {
        format!(
            "guard: not guarded: the hooks {} do not run loopguard; run `loopguard init` to install them\n",
            missing.join(", ")
        )
    }
}

/// `check` and `replay`: the status, then every trip and recovery along the history.
pub fn verdict(s: &Status) -> String {
    let mut out = status(s);
    for e in &s.transitions {
        let at = e
            .iteration
            .as_ref()
            .map_or_else(|| "the end".to_owned(), |id| id.short().to_owned());
        let what = match e.kind {
            EventKind::Trip => "tripped",
            EventKind::Reopen => "reopened",
            EventKind::Close => "closed",
            EventKind::Cooldown => "half-open (cooldown)",
            EventKind::Resume => "resumed",
            EventKind::Escalate => "escalated",
            EventKind::Finish => "finished",
            EventKind::Episode => "a new episode (a person's turn)",
            EventKind::Reset | EventKind::Warn | EventKind::ConfigIgnored => continue,
        };
        let rule = e.rule.map(|r| format!(" ({r})")).unwrap_or_default();
        let _ = writeln!(out, "{what} at {at}{rule}");
    }
    out
}

/// What the agent reads when a hook refuses a commit or push.
pub fn refusal(s: &Status, branch: &str, what: &str) -> String {
    let mut msg = format!(
        "loopguard: refused: the breaker is open on {}: the agent is stuck; {what} is refused.\n",
        printable(branch)
    );
    let _ = writeln!(
        msg,
        "  rule:   {}",
        s.rule.map(|r| r.to_string()).unwrap_or_default()
    );
    let _ = writeln!(
        msg,
        "  reason: {}",
        printable(s.reason.as_deref().unwrap_or(""))
    );
    msg.push_str(&ways_out(s, "  "));
    if let Some(m) = &s.next_model {
        let _ = writeln!(msg, "  model: {}", printable(m));
    }
    msg.trim_end().to_owned()
}

/// What one change did to the breaker, for the agent (stderr): trips, closings,
/// escalations and warnings, and what happens now.
pub fn announce(events: &[Event], s: &Status) -> Vec<String> {
    let mut lines = Vec::new();
    for e in events {
        let rule = e.rule.map(|r| r.to_string()).unwrap_or_default();
        let reason = printable(e.reason.as_deref().unwrap_or(""));
        match e.kind {
            EventKind::Warn => lines.push(format!("loopguard: warning: {rule}: {reason}")),
            EventKind::Close => lines.push(format!("loopguard: the breaker is closed again: {reason}")),
            EventKind::Trip | EventKind::Reopen => {
                lines.push(format!("loopguard: the breaker opened ({rule}): {reason}"));
            }
            EventKind::Escalate => lines.push(format!(
                "loopguard: {reason}; it starts with fresh counters (the budget still counts the whole run)"
            )),
            EventKind::Episode => lines.push(format!("loopguard: a new episode: {reason}")),
            EventKind::Resume
            | EventKind::Cooldown
            | EventKind::Reset
            | EventKind::Finish
            | EventKind::ConfigIgnored => {}
        }
    }
    let tripped = events.iter().any(|e| e.kind.opens());
    let escalated = events.iter().any(|e| e.kind == EventKind::Escalate);
    if tripped && !escalated {
        lines.push(what_now(s));
    }
    lines
}

/// What happens after a trip, by `on_trip.action`, and the ways out.
pub fn what_now(s: &Status) -> String {
    let head = if s.aborted {
        "loopguard: the run is aborted: commits and pushes are refused"
    } else {
        match (s.action, s.state) {
            (_, State::Closed | State::HalfOpen) => {
                return "loopguard: the next iteration decides".to_owned();
            }
            (TripAction::Alert, State::Open) => {
                "loopguard: on_trip.action is alert: commits go on, and the breaker stays open"
            }
            (TripAction::Escalate, State::Open)
                if s.rule.is_none_or(crate::breaker::Breaker::escalates) =>
            {
                "loopguard: the last model of escalation.models is stuck too: commits and pushes are refused"
            }
            (TripAction::Pause | TripAction::Abort | TripAction::Escalate, State::Open) => {
                "loopguard: commits and pushes are refused"
            }
        }
    };
    format!("{head}\n{}", ways_out(s, "  ").trim_end())
}

/// The ways out of the open breaker (see [`super::WayOut`]), one a line, each indented by
/// `indent`: what the agent can do first, then what only a person does.
pub fn ways_out(s: &Status, indent: &str) -> String {
    let mut out = format!("{indent}ways out:\n");
    for way in &s.ways_out {
        let line = match way {
            WayOut::TestsChange => {
                "change the code and run the tests with `loopguard run -- <test command>`: a run that passes, or fails differently, closes the breaker (a re-run of the same code does not)".to_owned()
            }
            WayOut::NewCommit => {
                "a commit that really changes the code closes the breaker (not a return to an earlier tree or patch, not whitespace, not tests alone)".to_owned()
            }
            WayOut::HarnessProgress => {
                "the harness reports progress on its edges (`loopguard event --edge NAME --progress`)".to_owned()
            }
            WayOut::Cooldown => match s.cooldown {
                Some(c) => format!(
                    "after the cooldown ({}) the next attempt decides",
                    crate::config::format_duration(c)
                ),
                None => "after the cooldown the next attempt decides".to_owned(),
            },
            WayOut::Resume => {
                "a person lets the agent try again: `loopguard resume` (the next attempt must make progress, or the breaker opens again)".to_owned()
            }
            WayOut::Reset => "a person starts a new run: `loopguard reset`".to_owned(),
        };
        let _ = writeln!(out, "{indent}- {line}");
    }
    out
}

/// The recent attempts as plain text (the interactive prompt's help).
pub fn iterations(s: &Status, limit: usize) -> String {
    let mut out = String::from("recent iterations:\n");
    for r in s.rows.iter().rev().take(limit).rev() {
        let tests = match &r.test {
            None => "-".to_owned(),
            Some(t) if t.passes() => "pass".to_owned(),
            Some(t) => match t.failing {
                Some(n) => format!("fail ({n})"),
                None => "fail".to_owned(),
            },
        };
        let subject: String = r.subject.chars().take(50).collect();
        let _ = writeln!(
            out,
            "  {:>3} {} {:<50} {:>3} files +{}/-{} {tests} {}",
            r.number,
            r.id.short(),
            printable(&subject),
            r.files,
            r.added,
            r.deleted,
            r.notes.join(", ")
        );
    }
    out
}
