//! Renders a run for people (text, markdown) and programs (the JSON documents of
//! CONTRACT.md). Pure: values in, strings out.

use serde_json::{Value, json};

use crate::breaker::{Breaker, Event, EventKind};
use crate::config::{Config, TripAction};
use crate::iteration::{Iteration, Outcome};
use crate::rules::{Evaluation, Facts, RuleName, attempts};
use crate::sanitize::{code_span, table_cell};

/// JSON schema version of every document.
pub const SCHEMA: u32 = 1;

/// Everything a report shows.
pub struct View<'a> {
    pub config: &'a Config,
    pub run_id: Option<&'a str>,
    pub branch: Option<&'a str>,
    pub breaker: &'a Breaker,
    pub eval: &'a Evaluation,
    pub history: &'a [Iteration],
    pub events: &'a [Event],
}

impl<'a> View<'a> {
    /// The view of a stored run with `breaker` (the run's own, or with its cooldown
    /// applied).
    pub fn of_run(
        config: &'a Config,
        run: &'a crate::run::Run,
        breaker: &'a Breaker,
        eval: &'a Evaluation,
        events: &'a [Event],
    ) -> View<'a> {
        View {
            config,
            run_id: Some(&run.id),
            branch: run.branch.as_deref(),
            breaker,
            eval,
            history: &run.iterations,
            events,
        }
    }

    /// The model to use next when `on_trip.action` is `escalate`.
    pub fn next_model(&self) -> Option<&str> {
        (self.config.on_trip.action == TripAction::Escalate)
            .then(|| self.breaker.current_model(self.config))
            .flatten()
    }

    /// The status document: `status --json`, `check --json`, `replay --json`,
    /// `finish --json`. `with_history` adds the iteration records (check, replay).
    pub fn to_json(&self, with_history: bool) -> Value {
        let b = self.breaker;
        let counters: serde_json::Map<String, Value> = self
            .eval
            .counters
            .iter()
            .map(|(rule, c)| {
                (
                    rule.to_string(),
                    json!({"count": c.count, "threshold": c.threshold}),
                )
            })
            .collect();
        let open_or_half = b.state != crate::breaker::State::Closed;
        let mut doc = json!({
            "schema": SCHEMA,
            "state": b.state,
            "terminal_status": b.terminal_status,
            "rule": if open_or_half { b.rule.map(|r| r.to_string()) } else { None },
            "reason": if open_or_half { b.reason.clone() } else { None },
            "iterations": self.eval.attempts,
            "counters": counters,
            "warnings": self.eval.warnings().map(|w| json!({"rule": w.rule, "reason": w.reason})).collect::<Vec<_>>(),
            "profile": self.config.profile,
            "run": self.run_id,
            "branch": self.branch,
            "next_model": self.next_model(),
        });
        if with_history {
            doc["history"] = serde_json::to_value(self.history).expect("iterations serialise");
        }
        doc
    }

    /// One screen for `status`.
    pub fn to_text(&self) -> String {
        let b = self.breaker;
        let mut out = String::new();
        let what = match (b.state, b.terminal_status) {
            (_, Some(t)) => format!("{} ({t})", b.state),
            (s, None) => s.to_string(),
        };
        out.push_str(&format!("breaker: {what}\n"));
        if let Some(run) = self.run_id {
            out.push_str(&format!(
                "run: {run}{}\n",
                self.branch.map(|b| format!(" on {b}")).unwrap_or_default()
            ));
        }
        out.push_str(&format!(
            "iterations: {} (profile {})\n",
            self.eval.attempts, self.config.profile
        ));
        if let (Some(rule), Some(reason)) = (b.rule, &b.reason)
            && b.state != crate::breaker::State::Closed
        {
            out.push_str(&format!("rule: {rule}\nreason: {reason}\n"));
        }
        if let Some(m) = self.next_model() {
            out.push_str(&format!("next model: {m}\n"));
        }
        out.push_str("counters:\n");
        for (rule, c) in &self.eval.counters {
            let mark = if c.reached() && c.count > 0 {
                "  <-"
            } else {
                ""
            };
            out.push_str(&format!(
                "  {:<17} {:>3} / {}{mark}\n",
                rule.as_str(),
                c.count,
                c.threshold
            ));
        }
        for w in self.eval.warnings() {
            out.push_str(&format!("warning: {}: {}\n", w.rule, w.reason));
        }
        out
    }

    /// The markdown report (`report`, the run report file).
    pub fn to_markdown(&self) -> String {
        let b = self.breaker;
        let mut md = String::new();
        md.push_str("# loopguard report\n\n");
        let status = b
            .terminal_status
            .map_or_else(|| "running".to_owned(), |t| t.to_string());
        md.push_str(&format!("- **Status:** {status}\n"));
        md.push_str(&format!("- **Breaker:** {}\n", b.state));
        if let Some(run) = self.run_id {
            md.push_str(&format!("- **Run:** `{run}`\n"));
        }
        if let Some(branch) = self.branch {
            md.push_str(&format!("- **Branch:** {}\n", code_span(branch, false)));
        }
        md.push_str(&format!("- **Profile:** {}\n", self.config.profile));
        md.push_str(&format!("- **Iterations:** {}\n", self.eval.attempts));
        if let Some(m) = self.next_model() {
            md.push_str(&format!("- **Next model:** {}\n", cell_text(m)));
        }
        if let (Some(rule), Some(reason)) = (b.rule, &b.reason) {
            md.push_str(&format!(
                "\n## Stop reason\n\n**{rule}**: {}\n",
                cell_text(reason)
            ));
            if let Some(t) = self.looping_failure(rule) {
                md.push_str(&t);
            }
        }
        if let Some(t) = self.history.iter().rev().find_map(|it| it.test.as_ref()) {
            md.push_str("\n## Last test run\n\n");
            if let Some(cmd) = &t.command {
                md.push_str(&format!("- **Command:** {}\n", code_span(cmd, false)));
            }
            let outcome = if t.outcome == Outcome::Pass {
                "pass"
            } else {
                "fail"
            };
            md.push_str(&format!("- **Outcome:** {outcome}\n"));
            if let Some(sig) = &t.signature {
                md.push_str(&format!("- **Signature:** `{sig}`\n"));
            }
            if let Some(e) = &t.first_error {
                md.push_str(&format!("- **First error:** {}\n", code_span(e, false)));
            }
        }
        md.push_str(
            "\n## Counters\n\n| rule | count | threshold | action |\n|---|---:|---:|---|\n",
        );
        for (rule, c) in &self.eval.counters {
            md.push_str(&format!(
                "| {rule} | {} | {} | {} |\n",
                c.count,
                c.threshold,
                serde_json::to_value(rule.action(self.config))
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            ));
        }
        let warnings: Vec<_> = self.eval.warnings().collect();
        if !warnings.is_empty() {
            md.push_str("\n## Warnings\n\n");
            for w in warnings {
                md.push_str(&format!("- **{}**: {}\n", w.rule, cell_text(&w.reason)));
            }
        }
        md.push_str(&self.iterations_table(12));
        let transitions: Vec<&Event> = self
            .events
            .iter()
            .filter(|e| e.kind != EventKind::Warn)
            .collect();
        if !transitions.is_empty() {
            md.push_str("\n## Breaker events\n\n| time | event | from | to | rule | reason |\n|---|---|---|---|---|---|\n");
            for e in transitions.iter().rev().take(20).rev() {
                md.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} |\n",
                    e.at.strftime("%Y-%m-%d %H:%M:%S"),
                    serde_json::to_value(e.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    e.from,
                    e.to,
                    e.rule.map(|r| r.to_string()).unwrap_or_default(),
                    cell_text(e.reason.as_deref().unwrap_or(""))
                ));
            }
        }
        md
    }

    /// The failing tests and first error line of the signature that looped.
    fn looping_failure(&self, rule: RuleName) -> Option<String> {
        if rule != RuleName::SameError {
            return None;
        }
        let t = self.history.iter().rev().find_map(|it| {
            it.test
                .as_ref()
                .filter(|t| t.outcome == Outcome::Fail && t.signature.is_some())
        })?;
        let mut md = String::from("\n");
        if let Some(cmd) = &t.command {
            md.push_str(&format!("- **Command:** {}\n", code_span(cmd, false)));
        }
        if let Some(sig) = &t.signature {
            md.push_str(&format!(
                "- **Signature:** `{}`\n",
                &sig[..sig.len().min(16)]
            ));
        }
        if let Some(e) = &t.first_error {
            md.push_str(&format!("- **First error:** {}\n", code_span(e, false)));
        }
        if let Some(f) = t.failures.as_ref().filter(|f| !f.is_empty()) {
            md.push_str("- **Failing tests:**\n");
            for id in f.iter().take(10) {
                md.push_str(&format!("  - {}\n", code_span(id, false)));
            }
        }
        Some(md)
    }

    /// The recent iterations as a markdown table.
    pub fn iterations_table(&self, limit: usize) -> String {
        let facts = attempts(self.config, self.history);
        let mut md = String::from(
            "\n## Recent iterations\n\n| # | commit | subject | files | +/- | tests | notes |\n|---:|---|---|---:|---|---|---|\n",
        );
        let start = facts.len().saturating_sub(limit);
        for (n, f) in facts.iter().enumerate().skip(start) {
            let it = &self.history[f.index];
            let (files, add, del) = it.files.as_ref().map_or((0, 0, 0), |fs| {
                (
                    fs.len(),
                    fs.iter().filter_map(|f| f.added).sum::<u64>(),
                    fs.iter().filter_map(|f| f.deleted).sum::<u64>(),
                )
            });
            let tests = match &it.test {
                None => "–".to_owned(),
                Some(t) if t.outcome == Outcome::Pass => "pass".to_owned(),
                Some(t) => match (t.failing, &t.signature) {
                    (Some(n), Some(s)) => format!("fail ({n}) `{}`", &s[..s.len().min(8)]),
                    (Some(n), None) => format!("fail ({n})"),
                    (None, _) => "fail".to_owned(),
                },
            };
            md.push_str(&format!(
                "| {} | `{}` | {} | {files} | +{add}/-{del} | {tests} | {} |\n",
                n + 1,
                it.short_id(),
                cell_text(&it.subject().chars().take(72).collect::<String>()),
                notes(f)
            ));
        }
        md
    }
}

fn notes(f: &Facts) -> String {
    let mut n = Vec::new();
    if f.empty {
        n.push("empty".to_owned());
    }
    if f.whitespace_only {
        n.push("whitespace only".to_owned());
    }
    if let Some(id) = &f.returns_to {
        n.push(format!("back to tree of `{}`", &id[..id.len().min(7)]));
    }
    if let Some(id) = &f.repeats {
        n.push(format!("repeats `{}`", &id[..id.len().min(7)]));
    }
    if f.claims_done {
        n.push(
            if f.backed_by_pass {
                "claims done (tests pass)"
            } else {
                "claims done"
            }
            .to_owned(),
        );
    }
    if f.test_only {
        n.push("tests only".to_owned());
    }
    if !f.violations.is_empty() {
        n.push("constraint".to_owned());
    }
    if f.progress {
        n.push("progress".to_owned());
    }
    n.join(", ")
}

/// Untrusted text (commit subjects, reasons quoting them) for markdown: one line, inert.
fn cell_text(s: &str) -> String {
    table_cell(s, 200)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::evaluate;

    fn view_json(history: &[Iteration], breaker: &Breaker) -> Value {
        let c = Config::default();
        let e = evaluate(&c, history, 0);
        View {
            config: &c,
            run_id: Some("r1"),
            branch: Some("main"),
            breaker,
            eval: &e,
            history,
            events: &[],
        }
        .to_json(true)
    }

    #[test]
    fn json_has_the_contract_fields() {
        let history = vec![Iteration {
            id: "abc".into(),
            ..Default::default()
        }];
        let doc = view_json(&history, &Breaker::default());
        assert_eq!(doc["schema"], 1);
        assert_eq!(doc["state"], "closed");
        assert_eq!(doc["terminal_status"], Value::Null);
        assert_eq!(doc["rule"], Value::Null);
        assert_eq!(doc["reason"], Value::Null);
        assert_eq!(doc["iterations"], 1);
        assert_eq!(
            doc["counters"]["stagnation"],
            json!({"count": 0, "threshold": 3})
        );
        assert_eq!(doc["history"][0]["id"], "abc");
        for rule in [
            "stagnation",
            "same_error",
            "oscillation",
            "repeated_patch",
            "false_completion",
            "test_only",
            "budget",
            "constraint",
        ] {
            assert!(doc["counters"].get(rule).is_some(), "{rule}");
        }
    }

    #[test]
    fn cells_cannot_break_tables() {
        assert_eq!(cell_text("a|b\n<script>"), "a\\|b &lt;script&gt;");
        assert!(!cell_text("thanks @octocat").contains("@octocat"));
    }
}
