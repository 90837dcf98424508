//! What `loopguard ci` shows: the sticky comment's visible part, the stuck-loop issue, the
//! step summary, the log text and the action's outputs, all from one [`Status`].
//!
//! Everything that came from the PR or its logs (commit subjects, rule reasons quoting
//! them, failure ids, first error lines, job names, notes) is untrusted and goes through
//! [`crate::sanitize`]: it cannot notify anyone, link other issues, start a workflow
//! command or break the markdown around it.

use std::fmt::{self, Write as _};

use super::markdown::{self, failure, iterations};
use super::{Row, Status, picture, text};
use crate::breaker::{EventKind, State};
use crate::ids::Signature;
use crate::rules::{Involves, Limit, RuleName};
use crate::sanitize::{code_span, inline};

/// Iteration rows shown in comments and summaries.
const TABLE_ROWS: usize = 12;
/// Commits listed as involved in an issue.
const INVOLVED_ROWS: usize = 12;

/// Where the verdict of this run stands against the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Closed before and now.
    Quiet,
    /// Open now, not open before (a trip, or a reopen after a resume).
    Tripped,
    /// Open before and now.
    StillOpen,
    /// Half-open now (a maintainer let the agent try again).
    HalfOpen,
    /// Closed now, open or half-open before.
    Recovered,
}

impl Change {
    pub fn between(before: Option<State>, now: State) -> Change {
        match (before.unwrap_or(State::Closed), now) {
            (State::Open, State::Open) => Change::StillOpen,
            (_, State::Open) => Change::Tripped,
            (_, State::HalfOpen) => Change::HalfOpen,
            (State::Closed, State::Closed) => Change::Quiet,
            (_, State::Closed) => Change::Recovered,
        }
    }
}

/// A status seen from a PR.
pub struct PrView<'a> {
    pub status: &'a Status,
    /// The PR, when there is one (not for `push`).
    pub pr: Option<u64>,
    /// The commit this run judged.
    pub head: &'a str,
    pub change: Change,
    /// The stuck-loop issue, when one is filed.
    pub issue: Option<u64>,
    /// Things the reader should know (a log that expired, a glob that matched nothing);
    /// untrusted.
    pub notes: &'a [String],
    /// While the breaker is open: what the loop cost in CI, said (`ci::cost::LoopCost`,
    /// which the report does not need to know).
    pub loop_cost: Option<&'a dyn fmt::Display>,
}

impl PrView<'_> {
    fn s(&self) -> &Status {
        self.status
    }

    fn short_head(&self) -> String {
        self.head.chars().take(10).collect()
    }

    fn headline(&self) -> String {
        let s = self.s();
        if s.escalated()
            && let Some(model) = &s.next_model
        {
            return format!(
                "loopguard: escalated — the next model is {}",
                code_span(model, false)
            );
        }
        match (s.state, self.change) {
            (State::Open, _) => format!("loopguard: stuck loop — {}", markdown::rule_code(s.rule)),
            (State::HalfOpen, _) => "loopguard: half-open — the next push decides".to_owned(),
            (State::Closed, Change::Recovered) => "loopguard: recovered".to_owned(),
            (State::Closed, _) => match s.near.first() {
                // One more of the same trips it: the headline says so, not "no loop".
                Some(near) => format!(
                    "loopguard: warning — {}",
                    markdown::rule_code(Some(near.rule))
                ),
                None => "loopguard: no loop".to_owned(),
            },
        }
    }

    /// The common body: status, reason, failure, counters, iterations.
    fn body(&self, heading: &str) -> String {
        let s = self.s();
        let mut md = format!("{heading} {}\n\n", self.headline());
        if let (Some(rule), Some(reason)) = (s.rule, &s.reason) {
            let _ = write!(md, "**Stop reason** (`{rule}`): {}\n\n", inline(reason));
        }
        let status = match s.terminal_status {
            Some(t) if s.state == State::Open => format!("`{}` ({t})", s.state),
            _ => format!("`{}`", s.state),
        };
        let _ = writeln!(
            md,
            "**Breaker:** {status} · **Iterations:** {} · **Head:** `{}`",
            s.iterations,
            self.short_head()
        );
        if let Some(model) = &s.next_model {
            let last = if s.last_model {
                " (the last of `escalation.models`)"
            } else {
                ""
            };
            let _ = writeln!(md, "**Model:** {}{last}", inline(model));
        }
        if let Some(cost) = self.loop_cost.filter(|_| s.state == State::Open) {
            let _ = writeln!(md, "**What the loop cost:** {cost}");
        }
        if let Some(t) = &s.looping_failure {
            md.push('\n');
            md.push_str(&failure(t));
        }
        // A healthy PR's comment is one line to read: the rest folded.
        let quiet = self.quiet();
        if quiet {
            md.push_str("\nNothing to do: loopguard judges each push of this PR and says here when the agent loops.\n\n<details><summary>Counters and iterations</summary>\n");
        }
        let picture = picture::markdown(s);
        if !picture.is_empty() {
            md.push('\n');
            md.push_str(&picture);
        }
        md.push('\n');
        let next = self.what_now() + &self.warnings();
        md.push_str(next.trim_start_matches('\n'));
        md.push('\n');
        md.push_str(&markdown::counters(s, true));
        md.push_str(&iterations(&s.rows, s.unit, TABLE_ROWS));
        if quiet {
            md.push_str("\n</details>\n");
        }
        let notes: Vec<String> = s
            .notes
            .iter()
            .map(|n| format!("{}: {}", n.rule, n.text))
            .chain(self.notes.iter().cloned())
            .collect();
        if !notes.is_empty() {
            md.push_str("\n**Notes:**\n\n");
            for n in notes {
                let _ = writeln!(md, "- {}", inline(&n));
            }
        }
        md
    }

    /// Nothing to say: closed as before, no warning, nothing handed over.
    fn quiet(&self) -> bool {
        let s = self.s();
        s.state == State::Closed
            && self.change == Change::Quiet
            && !s.escalated()
            && s.near.is_empty()
            && s.warnings.is_empty()
    }

    /// What comes next ([`Status::next`]), or how the breaker closed since the last run.
    fn what_now(&self) -> String {
        let s = self.s();
        if let Some(next) = s.next() {
            let mut md = format!("**What now:** {}.\n", next.now);
            if !next.ways.is_empty() {
                md.push_str("\n**Ways out:**\n\n");
                for way in &next.ways {
                    let _ = writeln!(md, "- {way}");
                }
            }
            return md;
        }
        if s.state == State::Closed && self.change == Change::Recovered {
            return format!("**Recovered:** {}\n", self.recovery());
        }
        String::new()
    }

    /// The warnings one step before a trip, then the rules that only warn.
    fn warnings(&self) -> String {
        let s = self.s();
        let mut lines: Vec<String> = s
            .near_warnings()
            .iter()
            .map(|w| format!("`{}`: {}", w.rule, w.says(inline)))
            .collect();
        lines.extend(
            s.warnings
                .iter()
                .map(|w| format!("`{}`: {}", w.rule, inline(&w.reason))),
        );
        if lines.is_empty() {
            return String::new();
        }
        let mut md = String::from("\n**Warnings:**\n\n");
        for line in lines {
            let _ = writeln!(md, "- {line}");
        }
        md
    }

    /// How the breaker closed, from the last close.
    fn recovery(&self) -> String {
        match self
            .s()
            .transitions
            .iter()
            .rev()
            .find(|e| e.kind == EventKind::Close)
        {
            Some(e) => inline(
                e.reason
                    .as_deref()
                    .unwrap_or("")
                    .trim_start_matches("recovered: "),
            ),
            None => {
                "the history no longer shows a loop (rewritten, or the rules changed)".to_owned()
            }
        }
    }

    /// The visible part of the sticky comment.
    pub fn comment(&self) -> String {
        let mut md = self.body("###");
        if let Some(n) = self.issue {
            let _ = writeln!(md, "\nStuck-loop issue: #{n}");
        }
        md
    }

    /// The step summary.
    pub fn summary(&self) -> String {
        let mut md = self.body("##");
        if let Some(pr) = self.pr {
            let _ = writeln!(md, "\nPull request: #{pr}");
        }
        md.push('\n');
        md
    }

    /// The stuck-loop issue: title and body (without the marker).
    pub fn issue(&self, pr: u64) -> (String, String) {
        let s = self.s();
        let trip = s.first_trip();
        let rule = s.rule.or(trip.and_then(|t| t.rule));
        let title = format!(
            "loopguard: PR #{pr} is stuck in a loop ({})",
            rule.map_or("?", RuleName::as_str)
        );
        let status = match s.state {
            State::Open => format!("**Status:** stuck (`{}`)", s.state),
            State::HalfOpen => {
                "**Status:** half-open: a maintainer let the agent try again".to_owned()
            }
            State::Closed => format!("**Status:** recovered: {}", self.recovery()),
        };
        let mut md = format!("loopguard stopped the agent on #{pr}.\n\n{status}\n\n");
        let _ = writeln!(md, "- **Pull request:** #{pr}");
        let _ = writeln!(md, "- **Rule:** {}", markdown::rule_code(rule));
        let reason = s
            .reason
            .clone()
            .or_else(|| trip.and_then(|t| t.reason.clone()));
        if let Some(reason) = reason {
            let _ = writeln!(md, "- **Reason:** {}", inline(&reason));
        }
        if let Some(t) = s.terminal_status {
            let _ = writeln!(md, "- **Terminal status:** `{t}`");
        }
        let _ = writeln!(md, "- **Head:** `{}`", self.short_head());
        if let Some(t) = s.looping_failure.as_ref().or(s.last_failure()) {
            md.push_str(&failure(t));
        }
        let picture = picture::markdown(s);
        if !picture.is_empty() {
            md.push_str("\n### The loop\n\n");
            md.push_str(&picture);
        }
        md.push_str("\n### Commits involved\n\n");
        for r in involved(s, rule) {
            let subject: String = r.subject.chars().take(80).collect();
            let _ = writeln!(md, "- `{}` {}", r.id.short(), inline(&subject));
        }
        md.push_str(&iterations(&s.rows, s.unit, TABLE_ROWS));
        (title, md)
    }

    /// The report for the log (stdout): short, plain text (printed as untrusted).
    pub fn text(&self) -> String {
        let mut out = text::status(self.s());
        if let Some(pr) = self.pr {
            let _ = writeln!(out, "pull request: #{pr}");
        }
        let _ = writeln!(out, "head: {}", self.head);
        for n in self.notes {
            let _ = writeln!(out, "note: {}", crate::sanitize::printable(n));
        }
        out
    }

    /// The action's outputs, in order; `signature` is this run's failure.
    pub fn outputs(&self, signature: Option<&Signature>) -> Vec<(&'static str, String)> {
        let s = self.s();
        vec![
            ("state", s.state.as_str().to_owned()),
            (
                "tripped",
                if s.state == State::Open {
                    "true"
                } else {
                    "false"
                }
                .to_owned(),
            ),
            ("rule", s.rule.map(|r| r.to_string()).unwrap_or_default()),
            ("reason", s.reason.clone().unwrap_or_default()),
            (
                "terminal-status",
                s.terminal_status.map(|t| t.to_string()).unwrap_or_default(),
            ),
            (
                "signature",
                signature.map(ToString::to_string).unwrap_or_default(),
            ),
            ("next-model", s.next_model.clone().unwrap_or_default()),
        ]
    }
}

/// The attempts the tripping rule counted, as its descriptor says ([`Involves`]): those
/// that broke it, or the loop's ([`loop_rows`]), the newest [`INVOLVED_ROWS`] of them.
fn involved(s: &Status, rule: Option<RuleName>) -> Vec<&Row> {
    match rule.map(|r| r.descriptor().involves) {
        Some(Involves::Violating) => s
            .rows
            .iter()
            .filter(|r| r.violates)
            .take(INVOLVED_ROWS)
            .collect(),
        Some(Involves::Latest) | None => {
            let rows = loop_rows(s, rule);
            rows[rows.len().saturating_sub(INVOLVED_ROWS)..]
                .iter()
                .collect()
        }
    }
}

/// The loop of this episode: the attempts the rule counted up to its trip, and every
/// one after it while the breaker stayed open or half-open (a push while open, a reopen
/// after a resume); not the push that closed it. Without the trip among the rows, the
/// newest as many as the rule counts now.
fn loop_rows(s: &Status, rule: Option<RuleName>) -> &[Row] {
    let at = |e: &crate::breaker::Event| {
        s.rows
            .iter()
            .position(|r| Some(&r.id) == e.iteration.as_ref())
    };
    let counter = rule.and_then(|r| s.counters.get(&r));
    let trip = s
        .transitions
        .iter()
        .rev()
        .find(|e| e.kind == EventKind::Trip);
    let Some(tripped) = trip.and_then(at) else {
        let count = counter.map_or(1, |c| c.count as usize).max(1);
        return &s.rows[s.rows.len().saturating_sub(count)..];
    };
    let counted = match counter.map(|c| c.limit) {
        Some(Limit::AtLeast(n)) => usize::try_from(n).unwrap_or(1),
        _ => 1,
    };
    let start = tripped + 1 - counted.clamp(1, tripped + 1);
    let closed = s
        .transitions
        .iter()
        .rev()
        .find(|e| e.kind == EventKind::Close)
        .and_then(at)
        .filter(|c| s.state == State::Closed && *c > tripped);
    &s.rows[start..closed.unwrap_or(s.rows.len())]
}
