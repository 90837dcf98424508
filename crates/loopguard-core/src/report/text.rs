//! The status for a terminal: `status`, `check`, `replay`, `report` on a terminal, the
//! hooks' refusals and what a trip tells the agent. Every piece of untrusted text goes through
//! [`crate::sanitize::printable`]: control characters are shown, never executed.

use std::fmt::Write as _;

use super::Status;
use super::session::{EdgeRow, HookAnswer};
use crate::breaker::{Event, EventKind};
use crate::config::Unit;
use crate::iteration::TestEvidence;
use crate::sanitize::printable;

/// One screen for `status`.
pub fn status(s: &Status) -> String {
    let mut out = String::new();
    let what = match s.terminal_status {
        Some(t) => format!("{} ({t})", s.state),
        None => s.state.to_string(),
    };
    let _ = writeln!(out, "breaker: {what}");
    if s.guarded == Some(false) && !s.missing_hooks.is_empty() {
        out.push_str(&unguarded(&s.missing_hooks, s.some_hooks));
    }
    for why in &s.not_guarded {
        let _ = writeln!(out, "guard: not guarded: {}", printable(why));
    }
    if let Some(run) = run_on(s) {
        let _ = writeln!(out, "run: {run}");
    }
    let _ = writeln!(
        out,
        "{}: {} (profile {})",
        s.unit.many(),
        s.iterations,
        s.profile
    );
    if let (Some(rule), Some(reason)) = (s.rule, &s.reason) {
        let _ = writeln!(out, "rule: {rule}\nreason: {}", printable(reason));
    }
    if let Some(m) = model(s) {
        let _ = writeln!(out, "model: {m}");
    }
    out.push_str("counters:\n");
    for (rule, c) in &s.counters {
        let mark = if c.reached() { "  <-" } else { "" };
        let _ = writeln!(
            out,
            "  {:<17} {:<24} {}{mark}",
            rule.as_str(),
            c.describe(),
            c.what(*rule)
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

/// `loopguard report` on a terminal: what the markdown report says, as plain text (no
/// escapes, no markup, no chart only a renderer draws).
pub fn report(s: &Status) -> String {
    let mut out = String::from("loopguard report\n\n");
    let next = s.next();
    let mut fact = |name: &str, value: &str| {
        let _ = writeln!(out, "{:<12}{value}", format!("{name}:"));
    };
    fact("status", &s.run_status());
    fact("breaker", s.state.as_str());
    if let Some(run) = run_on(s) {
        fact("run", &run);
    }
    fact("profile", s.profile.as_str());
    fact(s.unit.many(), &s.iterations.to_string());
    if s.trips > 0 {
        fact("trips", &s.trips.to_string());
    }
    if let Some(m) = model(s) {
        fact("model", &m);
    }
    if let Some(next) = &next {
        fact("now", &next.now);
    }
    if let (Some(rule), Some(reason)) = (s.rule, &s.reason) {
        let _ = writeln!(out, "\nstop reason: {rule}: {}", printable(reason));
        if let Some(t) = &s.looping_failure {
            out.push_str(&evidence(t, "looping signature"));
        }
    }
    if let Some(next) = next.filter(|n| !n.ways.is_empty()) {
        out.push_str("\nways out:\n");
        for way in &next.ways {
            let _ = writeln!(out, "  - {way}");
        }
    }
    if let Some(t) = &s.last_test {
        let outcome = if t.passes() { "pass" } else { "fail" };
        let _ = writeln!(out, "\nlast test run: {outcome}");
        out.push_str(&evidence(t, "signature"));
    }
    let points = super::picture::points(s);
    if !points.is_empty() {
        out.push_str("\nthe loop:\n");
        for line in super::picture::sparkline(&points).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out.push_str("\ncounters:\n");
    out.push_str(&counters(s));
    for w in s.near_warnings() {
        let _ = writeln!(out, "warning: {}: {}", w.rule, w.says(printable));
    }
    for w in &s.warnings {
        let _ = writeln!(out, "warning: {}: {}", w.rule, printable(&w.reason));
    }
    for n in &s.notes {
        let _ = writeln!(out, "note: {}: {}", n.rule, printable(&n.text));
    }
    let edges = edges(s.edges.as_deref().unwrap_or_default(), s.unit);
    if !edges.is_empty() {
        out.push('\n');
        out.push_str(&edges);
    }
    if !s.rows.is_empty() {
        out.push('\n');
        out.push_str(&iterations(s, 12));
    }
    if !s.transitions.is_empty() {
        out.push_str("\nbreaker events:\n");
        for e in s.transitions.iter().rev().take(20).rev() {
            let rule = e.rule.map(|r| format!(" {r}")).unwrap_or_default();
            let at = s.attempt_of(e).map(|n| format!("#{n}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "  {}  {at:>4}  {:<8}  {:<19}{rule}: {}",
                e.at.strftime("%Y-%m-%d %H:%M:%S"),
                e.kind.as_str(),
                format!("{} -> {}", e.from, e.to),
                printable(e.reason.as_deref().unwrap_or(""))
            );
        }
    }
    out
}

/// The harness's edges (a session's sub-agents, `loopguard event --edge NAME`): each with
/// how often it was taken without progress, then its latest reasons (untrusted: the
/// harness gave them). Empty when there are none.
pub fn edges(edges: &[EdgeRow], unit: Unit) -> String {
    let mut out = String::new();
    for e in edges {
        let _ = writeln!(
            out,
            "edge {}: {} without progress",
            printable(&e.edge),
            taken(e.count, unit)
        );
        for r in &e.reasons {
            let _ = writeln!(out, "  - {}", printable(r));
        }
    }
    out
}

/// How often an edge was taken: a session's sub-agent in tool calls (`3 tool calls`), a
/// branch's harness step in times (`taken twice`).
pub fn taken(n: u64, unit: Unit) -> String {
    match unit {
        Unit::ToolCall => unit.count(n).to_string(),
        Unit::Iteration => format!("taken {}", crate::config::times(n)),
    }
}

/// The facts of one test run, indented under its heading.
fn evidence(t: &TestEvidence, signature: &str) -> String {
    let mut out = String::new();
    let mut line = |name: &str, value: &str| {
        let _ = writeln!(out, "  {:<19}{value}", format!("{name}:"));
    };
    if let Some(sig) = &t.signature {
        line(signature, sig.short());
    }
    if let Some(e) = &t.first_error {
        line("first error", &printable(e));
    }
    if let Some(f) = t.failures.as_ref().filter(|f| !f.is_empty()) {
        let ids: Vec<String> = f.iter().take(10).map(|id| printable(id)).collect();
        line("failing", &ids.join(", "));
    }
    if let Some(c) = &t.command {
        line("command", &printable(c));
    }
    out
}

/// Every counter with its limit and action, one a line, the one that tripped marked.
fn counters(s: &Status) -> String {
    let mut out = String::new();
    for (rule, c) in &s.counters {
        let mark = if c.reached() { "  <-" } else { "" };
        let action = s
            .actions
            .get(rule)
            .map(|a| format!("{:<5}", a.as_str()))
            .unwrap_or_default();
        let line = format!("  {:<17} {:<20}{action}{mark}", rule.as_str(), c.describe());
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The run and the branch it is on, for a terminal.
fn run_on(s: &Status) -> Option<String> {
    let run = printable(s.run.as_deref()?);
    Some(match s.branch.as_deref() {
        Some(b) => format!("{run} on {}", printable(b)),
        None => run,
    })
}

/// The model in use under `on_trip.action: escalate`, and what follows it.
fn model(s: &Status) -> Option<String> {
    let m = printable(s.next_model.as_ref()?);
    Some(if s.last_model {
        format!("{m} (the last of escalation.models)")
    } else {
        m
    })
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
        // An event names the newest attempt when it came: none yet, it came first.
        let at = e.iteration.as_ref().map_or_else(
            || format!("the start (before the first {})", s.unit.one()),
            |id| id.short().to_owned(),
        );
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

/// What the hooks would have answered in a replay, one answer after another: the call
/// it came after (`-`: before the first), the event, then the words the model reads, line
/// by line as it reads them (untrusted: they quote the session).
pub fn answers(answers: &[HookAnswer]) -> String {
    let mut out = String::new();
    for a in answers {
        let mut lines = a.text.lines();
        let _ = writeln!(
            out,
            "{} {}: {}",
            printable(a.after.as_deref().unwrap_or("-")),
            printable(&a.event),
            printable(lines.next().unwrap_or(""))
        );
        for line in lines {
            let _ = writeln!(out, "    {}", printable(line));
        }
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
    if let Some(next) = s.next() {
        msg.push_str(&ways_out(&next.ways, "  "));
    }
    if let Some(m) = &s.next_model {
        let _ = writeln!(msg, "  model: {}", printable(m));
    }
    msg.trim_end().to_owned()
}

/// What one change did to the breaker, for the agent (stderr): trips, closings,
/// escalations and warnings, what happens now, and the warnings one step before a trip.
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
    if !tripped {
        lines.extend(s.near_warnings().iter().map(|w| w.line(printable)));
    }
    lines
}

/// What happens after a trip: where the breaker leaves the agent, and the ways out.
pub fn what_now(s: &Status) -> String {
    match s.next() {
        None => format!("loopguard: the next {} decides", s.unit.one()),
        Some(next) => {
            let mut out = format!("loopguard: {}", next.now);
            if !next.ways.is_empty() {
                out.push('\n');
                out.push_str(ways_out(&next.ways, "  ").trim_end());
            }
            out
        }
    }
}

/// The ways out (see [`super::Next`]), one a line, each indented by `indent`.
fn ways_out(ways: &[String], indent: &str) -> String {
    let mut out = format!("{indent}ways out:\n");
    for way in ways {
        let _ = writeln!(out, "{indent}- {way}");
    }
    out
}

/// The recent attempts as plain text (the prompt's help, `report` on a terminal): one
/// line each, under a header.
pub fn iterations(s: &Status, limit: usize) -> String {
    const SUBJECT: usize = 40;
    let mut out = format!("recent {}:\n", s.unit.many());
    let _ = writeln!(
        out,
        "  {:>3}  {:<7}  {:<SUBJECT$}  {:>5}  {:<11}  {:<8}  notes",
        "#",
        s.unit.id_column(),
        "subject",
        "files",
        "+/-",
        "tests"
    );
    for r in s.rows.iter().rev().take(limit).rev() {
        let tests = match &r.test {
            None => "-".to_owned(),
            Some(t) if t.passes() => "pass".to_owned(),
            Some(t) => match t.failing {
                Some(n) => format!("fail ({n})"),
                None => "fail".to_owned(),
            },
        };
        let mut subject: String = printable(&r.subject).chars().take(SUBJECT).collect();
        if r.subject.chars().count() > SUBJECT {
            subject.pop();
            subject.push('…');
        }
        let line = format!(
            "  {:>3}  {:<7}  {subject:<SUBJECT$}  {:>5}  {:<11}  {tests:<8}  {}",
            r.number,
            r.id.short(),
            r.files,
            format!("+{}/-{}", r.added, r.deleted),
            printable(&r.notes.join(", "))
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}
