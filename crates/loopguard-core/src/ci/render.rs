//! What `loopguard ci` shows: the sticky comment's visible part, the stuck-loop issue, the
//! step summary and the log text. Pure: values in, markdown out.
//!
//! Everything that came from the PR or its logs (commit subjects, rule reasons quoting them,
//! failure ids, first error lines, job names) is untrusted and goes through
//! [`crate::sanitize`]: it cannot notify anyone, link other issues, start a workflow
//! command or break the markdown around it.

use crate::agents::AgentFilter;
use crate::breaker::{Event, EventKind, State};
use crate::config::Config;
use crate::iteration::{Iteration, Outcome, TestEvidence};
use crate::report::View;
use crate::rules::{RuleName, attempts};
use crate::sanitize::{code_span, inline, neutralize};

use super::judge::Judgement;
use super::state::Verdict;

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
    pub fn between(previous: Option<&Verdict>, now: State) -> Change {
        let before = previous.map_or(State::Closed, |v| v.state);
        match (before, now) {
            (State::Open, State::Open) => Change::StillOpen,
            (_, State::Open) => Change::Tripped,
            (_, State::HalfOpen) => Change::HalfOpen,
            (State::Closed, State::Closed) => Change::Quiet,
            (_, State::Closed) => Change::Recovered,
        }
    }
}

/// Everything a rendering needs.
pub struct Report<'a> {
    pub config: &'a Config,
    /// The PR, when there is one (not for `push`).
    pub pr: Option<u64>,
    /// The commit this run judged.
    pub head: &'a str,
    pub history: &'a [Iteration],
    pub judgement: &'a Judgement,
    pub change: Change,
    /// The stuck-loop issue, when one is filed.
    pub issue: Option<u64>,
    /// Things the reader should know (a log that expired, a glob that matched nothing);
    /// untrusted.
    pub notes: &'a [String],
}

impl Report<'_> {
    fn state(&self) -> State {
        self.judgement.breaker.state
    }

    fn rule(&self) -> Option<RuleName> {
        (self.state() != State::Closed)
            .then_some(self.judgement.breaker.rule)
            .flatten()
    }

    fn short_head(&self) -> String {
        self.head.chars().take(10).collect()
    }

    /// The model an escalation handed out, when that is the latest transition.
    fn escalated_to(&self) -> Option<&str> {
        let last = self
            .judgement
            .events
            .iter()
            .rfind(|e| e.kind != EventKind::Warn)?;
        (last.kind == EventKind::Escalate && self.state() == State::HalfOpen)
            .then(|| self.judgement.breaker.current_model(self.config))
            .flatten()
    }

    fn headline(&self) -> String {
        if let Some(model) = self.escalated_to() {
            return format!(
                "loopguard: escalated — the next model is {}",
                code_span(model, false)
            );
        }
        match (self.state(), self.change) {
            (State::Open, _) => format!(
                "loopguard: stuck loop — `{}`",
                self.rule().map_or("?", RuleName::as_str)
            ),
            (State::HalfOpen, _) => "loopguard: half-open — the next push decides".to_owned(),
            (State::Closed, Change::Recovered) => "loopguard: recovered".to_owned(),
            (State::Closed, _) => "loopguard: no loop".to_owned(),
        }
    }

    /// The common body: status, reason, failure, counters, iterations.
    fn body(&self, heading: &str) -> String {
        let b = &self.judgement.breaker;
        let mut md = format!("{heading} {}\n\n", self.headline());
        if let (Some(rule), Some(reason)) = (self.rule(), &b.reason) {
            md.push_str(&format!(
                "**Stop reason** (`{rule}`): {}\n\n",
                inline(reason)
            ));
        }
        let status = match b.terminal_status {
            Some(t) if self.state() == State::Open => format!("`{}` ({t})", self.state()),
            _ => format!("`{}`", self.state()),
        };
        md.push_str(&format!(
            "**Breaker:** {status} · **Iterations:** {} · **Head:** `{}`\n",
            self.judgement.evaluation.attempts,
            self.short_head()
        ));
        if let Some(model) = self.view().next_model() {
            md.push_str(&format!("**Next model:** {}\n", inline(model)));
        }
        if let Some(failure) = self.looping_failure() {
            md.push('\n');
            md.push_str(&failure);
        }
        md.push('\n');
        md.push_str(&self.what_now());
        md.push_str(&self.counters());
        md.push_str(&self.iterations_table());
        if !self.notes.is_empty() {
            md.push_str("\n**Notes:**\n\n");
            for n in self.notes {
                md.push_str(&format!("- {}\n", inline(n)));
            }
        }
        md
    }

    fn what_now(&self) -> String {
        let label = inline(&self.config.github.label);
        match (self.state(), self.rule()) {
            (State::Open, Some(RuleName::Constraint)) => format!(
                "**What now:** the agent changed what guards it (the protected paths, or test skips or deletions). A maintainer reviews the change and removes the `{label}` label to let the agent go on.\n"
            ),
            (State::Open, _) if self.judgement.breaker.aborted => {
                "**What now:** the run was aborted (`on_trip.action: abort`); a maintainer takes over.\n".to_owned()
            }
            (State::Open, _) => format!(
                "**What now:** a push that mends the failure (tests pass, or a different failure) closes the breaker by itself. Removing the `{label}` label lets the agent try again: the next push decides.\n"
            ),
            (State::HalfOpen, _) if self.escalated_to().is_some() => {
                "**What now:** hand the task to the next model (the `next-model` output). Progress closes the breaker; another round of the same escalates again, or on the last model stops the agent.\n".to_owned()
            }
            (State::HalfOpen, _) => {
                "**What now:** the next push decides: progress closes the breaker, another round of the same opens it again.\n".to_owned()
            }
            (State::Closed, _) if self.change == Change::Recovered => {
                format!("**Recovered:** {}\n", self.recovery())
            }
            (State::Closed, _) => String::new(),
        }
    }

    /// How the breaker closed, from the last close event.
    fn recovery(&self) -> String {
        let close = self
            .judgement
            .events
            .iter()
            .rev()
            .find(|e| e.kind == EventKind::Close);
        let Some(Event {
            iteration: Some(id),
            ..
        }) = close
        else {
            return "the history no longer shows a loop (rewritten, or the rules changed)"
                .to_owned();
        };
        let short: String = id.chars().take(10).collect();
        let test = self
            .history
            .iter()
            .find(|it| &it.id == id)
            .and_then(|it| it.test.as_ref());
        match test {
            Some(t) if t.outcome == Outcome::Pass => format!("the tests pass at `{short}`"),
            Some(_) => format!("the failure changed at `{short}`"),
            None => format!("the code moved on at `{short}`"),
        }
    }

    /// The newest failing evidence, for the rules a failure trips.
    fn failing_evidence(&self) -> Option<&TestEvidence> {
        self.history.iter().rev().find_map(|it| {
            it.test
                .as_ref()
                .filter(|t| t.outcome == Outcome::Fail && t.signature.is_some())
        })
    }

    fn looping_failure(&self) -> Option<String> {
        if !matches!(
            self.rule(),
            Some(RuleName::SameError | RuleName::FalseCompletion)
        ) {
            return None;
        }
        let t = self.failing_evidence()?;
        Some(failure_lines(t))
    }

    fn counters(&self) -> String {
        let mut md = String::from("\n| rule | count | threshold |\n|---|---:|---:|\n");
        for (rule, c) in &self.judgement.evaluation.counters {
            let mark = if Some(*rule) == self.rule() {
                " ⛔"
            } else {
                ""
            };
            md.push_str(&format!(
                "| `{rule}`{mark} | {} | {} |\n",
                c.count, c.threshold
            ));
        }
        md
    }

    fn view<'v>(&'v self) -> View<'v> {
        View {
            config: self.config,
            run_id: None,
            branch: None,
            breaker: &self.judgement.breaker,
            eval: &self.judgement.evaluation,
            history: self.history,
            events: &self.judgement.events,
        }
    }

    /// The iterations table of `report.rs`, over a copy of the history whose subjects are
    /// made safe (and whose derived claims and kinds are pinned, so the copy judges alike).
    fn iterations_table(&self) -> String {
        let safe = display_history(self.config, self.history);
        let view = View {
            history: &safe,
            ..self.view()
        };
        neutralize(&view.iterations_table(TABLE_ROWS))
    }

    /// The visible part of the sticky comment.
    pub fn comment(&self) -> String {
        let mut md = self.body("###");
        if let Some(n) = self.issue {
            md.push_str(&format!("\nStuck-loop issue: #{n}\n"));
        }
        md
    }

    /// The step summary.
    pub fn summary(&self) -> String {
        let mut md = self.body("##");
        if let Some(pr) = self.pr {
            md.push_str(&format!("\nPull request: #{pr}\n"));
        }
        md.push('\n');
        md
    }

    /// The stuck-loop issue: title and body (without the marker).
    pub fn issue(&self, pr: u64) -> (String, String) {
        let rule = self.judgement.breaker.rule.map_or("?", RuleName::as_str);
        let title = format!("loopguard: PR #{pr} is stuck in a loop ({rule})");
        let b = &self.judgement.breaker;
        let mut md = String::new();
        let status = match (self.state(), self.change) {
            (State::Open, _) => format!("**Status:** stuck (`{}`)", self.state()),
            (State::HalfOpen, _) => {
                "**Status:** half-open: a maintainer let the agent try again".to_owned()
            }
            (State::Closed, _) => format!("**Status:** recovered: {}", self.recovery()),
        };
        md.push_str(&format!(
            "loopguard stopped the agent on #{pr}.\n\n{status}\n\n"
        ));
        md.push_str(&format!("- **Pull request:** #{pr}\n"));
        md.push_str(&format!("- **Rule:** `{rule}`\n"));
        let reason = b.first_reason.as_ref().or(b.reason.as_ref());
        if let Some(reason) = reason {
            md.push_str(&format!("- **Reason:** {}\n", inline(reason)));
        }
        if let Some(t) = b.terminal_status {
            md.push_str(&format!("- **Terminal status:** `{t}`\n"));
        }
        md.push_str(&format!("- **Head:** `{}`\n", self.short_head()));
        if let Some(t) = self.failing_evidence() {
            md.push_str(&failure_lines(t));
        }
        md.push_str("\n### Commits involved\n\n");
        for it in self.involved() {
            let subject: String = it.subject().chars().take(80).collect();
            md.push_str(&format!("- `{}` {}\n", it.short_id(), inline(&subject)));
        }
        md.push_str(&self.iterations_table());
        (title, md)
    }

    /// The attempts the tripping rule counted: the newest `count` of them (the violating
    /// ones for `constraint`).
    fn involved(&self) -> Vec<&Iteration> {
        let facts = attempts(self.config, self.history);
        let rule = self.judgement.breaker.rule;
        if rule == Some(RuleName::Constraint) {
            return facts
                .iter()
                .filter(|f| !f.violations.is_empty())
                .map(|f| &self.history[f.index])
                .take(INVOLVED_ROWS)
                .collect();
        }
        let count = rule
            .and_then(|r| self.judgement.evaluation.counters.get(&r))
            .map_or(1, |c| c.count as usize)
            .clamp(1, INVOLVED_ROWS);
        facts
            .iter()
            .rev()
            .take(count)
            .rev()
            .map(|f| &self.history[f.index])
            .collect()
    }

    /// The report for the log (stdout): short, plain text (printed as untrusted).
    pub fn text(&self) -> String {
        let mut out = self.view().to_text();
        if let Some(pr) = self.pr {
            out.push_str(&format!("pull request: #{pr}\n"));
        }
        out.push_str(&format!("head: {}\n", self.head));
        for n in self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }
}

/// Signature, first error, failing tests and where they came from.
fn failure_lines(t: &TestEvidence) -> String {
    let mut md = String::new();
    if let Some(sig) = &t.signature {
        md.push_str(&format!(
            "- **Looping signature:** `{}`\n",
            &sig[..sig.len().min(16)]
        ));
    }
    if let Some(e) = &t.first_error {
        md.push_str(&format!("- **First error:** {}\n", code_span(e, false)));
    }
    if let Some(f) = t.failures.as_ref().filter(|f| !f.is_empty()) {
        let ids: Vec<String> = f.iter().take(10).map(|id| code_span(id, false)).collect();
        md.push_str(&format!("- **Failing:** {}\n", ids.join(", ")));
    }
    if let Some(c) = &t.command {
        md.push_str(&format!("- **From:** {}\n", code_span(c, false)));
    }
    md
}

/// A copy of `history` for display: each message reduced to a safe subject, with the
/// claim of completion and the kind pinned from the original.
pub fn display_history(config: &Config, history: &[Iteration]) -> Vec<Iteration> {
    let filter = AgentFilter::for_history(config, history);
    history
        .iter()
        .map(|it| {
            let mut copy = it.clone();
            copy.kind = Some(filter.kind(config, it));
            copy.claims_done =
                Some(it.claims_done.unwrap_or_else(|| {
                    it.message.as_deref().is_some_and(|m| config.claims_done(m))
                }));
            copy.message = Some(safe_subject(it.subject()));
            copy
        })
        .collect()
}

/// A subject for `report.rs`'s table cells, which escape `|`, `<`, `>` and newlines
/// themselves: everything else that markdown or GitHub would act on is made inert here.
fn safe_subject(subject: &str) -> String {
    let text = neutralize(subject);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '~' | '{' | '}' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ci::judge::judge;
    use crate::iteration::FileChange;

    const ZWSP: char = '\u{200B}';

    fn history(subject: &str, first_error: &str, n: usize) -> Vec<Iteration> {
        (1..=n)
            .map(|i| Iteration {
                id: format!("{i:040}"),
                tree: Some(format!("t{i}")),
                parent_tree: Some(format!("t{}", i - 1)),
                files: Some(vec![FileChange {
                    path: "src/lib.rs".into(),
                    added: Some(2),
                    deleted: Some(1),
                    ..FileChange::default()
                }]),
                message: Some(format!("{subject} {i}")),
                test: Some(TestEvidence {
                    outcome: Outcome::Fail,
                    signature: Some("9f2c".repeat(16)),
                    failing: Some(1),
                    runner: Some("cargo".into()),
                    command: Some("target/test.log".into()),
                    first_error: Some(first_error.into()),
                    failures: Some(vec!["tests::counts_three_words".into()]),
                }),
                ..Iteration::default()
            })
            .collect()
    }

    fn report<'a>(
        config: &'a Config,
        history: &'a [Iteration],
        judgement: &'a Judgement,
        change: Change,
    ) -> Report<'a> {
        Report {
            config,
            pr: Some(7),
            head: &history.last().unwrap().id,
            history,
            judgement,
            change,
            issue: Some(12),
            notes: &[],
        }
    }

    #[test]
    fn change_table() {
        let v = |state| Verdict {
            head: "h".into(),
            state,
            rule: None,
            reason: None,
            terminal_status: None,
        };
        let cases = [
            (None, State::Closed, Change::Quiet),
            (None, State::Open, Change::Tripped),
            (Some(State::Open), State::Open, Change::StillOpen),
            (Some(State::HalfOpen), State::Open, Change::Tripped),
            (Some(State::Open), State::HalfOpen, Change::HalfOpen),
            (Some(State::Open), State::Closed, Change::Recovered),
            (Some(State::HalfOpen), State::Closed, Change::Recovered),
            (Some(State::Closed), State::Closed, Change::Quiet),
        ];
        for (before, now, want) in cases {
            let prev = before.map(v);
            assert_eq!(
                Change::between(prev.as_ref(), now),
                want,
                "{before:?} {now:?}"
            );
        }
    }

    #[test]
    fn a_trip_shows_reason_rule_counters_failure_and_iterations() {
        let c = Config::default();
        let h = history("Fix counting", "assertion `left == right` failed", 3);
        let j = judge(&c, &h, &[], jiff::Timestamp::UNIX_EPOCH);
        let r = report(&c, &h, &j, Change::Tripped);
        let md = r.comment();
        assert!(
            md.starts_with("### loopguard: stuck loop — `same_error`"),
            "{md}"
        );
        assert!(
            md.contains("**Stop reason** (`same_error`): the same failure"),
            "{md}"
        );
        assert!(md.contains("| `same_error` ⛔ | 3 | 3 |"), "{md}");
        assert!(
            md.contains("- **Looping signature:** `9f2c9f2c9f2c9f2c`"),
            "{md}"
        );
        assert!(
            md.contains("- **First error:** ``assertion `left == right` failed``"),
            "{md}"
        );
        assert!(md.contains("## Recent iterations"), "{md}");
        assert!(md.contains("Fix counting 3"), "{md}");
        assert!(md.contains("Stuck-loop issue: #12"), "{md}");

        let (title, body) = r.issue(7);
        assert_eq!(title, "loopguard: PR #7 is stuck in a loop (same_error)");
        assert!(body.contains("- **Rule:** `same_error`"), "{body}");
        assert!(body.contains("- **From:** `target/test.log`"), "{body}");
        assert_eq!(
            body.matches("\n- `").count(),
            3,
            "three commits involved: {body}"
        );
    }

    #[test]
    fn untrusted_text_is_inert_everywhere() {
        let c = Config::default();
        let h = history(
            "cc @org/team ![x](https://t.example/p.png) | fixes #3",
            "::add-mask::x @org/team",
            3,
        );
        let j = judge(&c, &h, &[], jiff::Timestamp::UNIX_EPOCH);
        let notes = vec!["job @org/team: log expired".to_owned()];
        let r = Report {
            notes: &notes,
            ..report(&c, &h, &j, Change::Tripped)
        };
        let (_, issue) = r.issue(7);
        for md in [r.comment(), r.summary(), issue] {
            assert!(!md.contains("@org"), "{md}");
            assert!(md.contains(&format!("@{ZWSP}org/team")), "{md}");
            assert!(!md.contains("#3"), "{md}");
            assert!(!md.contains("![x]"), "{md}");
            for line in md.lines() {
                assert!(!line.trim_start().starts_with("::"), "{line}");
            }
        }
    }

    #[test]
    fn recovery_and_quiet() {
        let c = Config::default();
        let mut h = history("Fix", "boom", 3);
        let mut pass = h[2].clone();
        pass.id = format!("{:040}", 4);
        pass.tree = Some("t4".into());
        pass.parent_tree = Some("t3".into());
        pass.test = Some(TestEvidence {
            outcome: Outcome::Pass,
            ..TestEvidence::default()
        });
        h.push(pass);
        let j = judge(&c, &h, &[], jiff::Timestamp::UNIX_EPOCH);
        assert_eq!(j.breaker.state, State::Closed);
        let r = report(&c, &h, &j, Change::Recovered);
        let md = r.comment();
        assert!(md.starts_with("### loopguard: recovered"), "{md}");
        assert!(
            md.contains("**Recovered:** the tests pass at `0000000000`"),
            "{md}"
        );
        assert!(!md.contains("Stop reason"), "{md}");
        let (_, body) = r.issue(7);
        assert!(
            body.contains("**Status:** recovered: the tests pass"),
            "{body}"
        );

        let quiet = history("Fix", "boom", 1);
        let j = judge(&c, &quiet, &[], jiff::Timestamp::UNIX_EPOCH);
        let md = report(&c, &quiet, &j, Change::Quiet).summary();
        assert!(md.starts_with("## loopguard: no loop"), "{md}");
        assert!(md.contains("Pull request: #7"), "{md}");
    }

    #[test]
    fn an_escalation_names_the_next_model() {
        let mut c = Config::default();
        c.on_trip.action = crate::config::TripAction::Escalate;
        let h = history("Fix", "boom", 3);
        let j = judge(&c, &h, &[], jiff::Timestamp::UNIX_EPOCH);
        assert_eq!(j.breaker.state, State::HalfOpen);
        let md = report(&c, &h, &j, Change::HalfOpen).comment();
        assert!(
            md.starts_with("### loopguard: escalated — the next model is `sonnet`"),
            "{md}"
        );
        assert!(md.contains("**Next model:** sonnet"), "{md}");
        assert!(md.contains("next-model"), "{md}");
    }

    #[test]
    fn display_copy_judges_alike() {
        let c = Config::default();
        let mut h = history("All tests pass, done", "boom", 2);
        h[0].message = Some("x\n\nCo-authored-by: Claude <noreply@anthropic.com>".into());
        h[1].author = Some("Jane <jane@example.com>".into());
        let safe = display_history(&c, &h);
        let a = attempts(&c, &h);
        let b = attempts(&c, &safe);
        assert_eq!(a.len(), b.len());
        assert_eq!(
            a.iter().map(|f| f.claims_done).collect::<Vec<_>>(),
            b.iter().map(|f| f.claims_done).collect::<Vec<_>>()
        );
        assert_eq!(
            safe_subject("a_b [c](d) &#64;"),
            "a\\_b \\[c\\]\\(d\\) &amp;\\#\u{200B}64;"
        );
    }
}
