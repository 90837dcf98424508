//! The status as markdown: the run report (`loopguard report`, `reports/<run>.md`,
//! `report.dir`), the entry of `report.issues_file`, and the pieces the GitHub renderers
//! share (the counters and iterations tables, the failure). Untrusted text goes through
//! [`crate::sanitize`]: inert in any markdown GitHub or an editor renders.

use std::fmt::Write as _;

use super::{Row, Status};
use crate::config::Unit;
use crate::iteration::TestEvidence;
use crate::rules::RuleName;
use crate::sanitize::{code_span, table_cell};

/// Untrusted text for one line of markdown: inert, bounded.
pub fn cell(s: &str) -> String {
    table_cell(s, 200)
}

/// The markdown report.
pub fn report(s: &Status) -> String {
    let mut md = String::from("# loopguard report\n\n");
    let _ = writeln!(md, "- **Status:** {}", s.run_status());
    let _ = writeln!(md, "- **Breaker:** {}", s.state);
    if let Some(run) = &s.run {
        let _ = writeln!(md, "- **Run:** {}", code_span(run, false));
    }
    if let Some(branch) = &s.branch {
        let _ = writeln!(md, "- **Branch:** {}", code_span(branch, false));
    }
    let _ = writeln!(md, "- **Profile:** {}", s.profile);
    let _ = writeln!(md, "- **{}:** {}", s.unit.heading(), s.iterations);
    if s.trips > 0 {
        let _ = writeln!(md, "- **Trips:** {}", s.trips);
    }
    if let Some(m) = &s.next_model {
        let last = if s.last_model {
            " (the last of `escalation.models`)"
        } else {
            ""
        };
        let _ = writeln!(md, "- **Model:** {}{last}", cell(m));
    }
    let next = s.next();
    if let Some(next) = &next {
        let _ = writeln!(md, "- **Now:** {}", next.now);
    }
    if let (Some(rule), Some(reason)) = (s.rule, &s.reason) {
        let _ = write!(md, "\n## Stop reason\n\n**{rule}**: {}\n", cell(reason));
        if let Some(t) = &s.looping_failure {
            md.push('\n');
            md.push_str(&failure(t));
        }
    }
    if let Some(next) = next.filter(|n| !n.ways.is_empty()) {
        md.push_str("\n## Ways out\n\n");
        for way in &next.ways {
            let _ = writeln!(md, "- {way}");
        }
    }
    if let Some(t) = &s.last_test {
        md.push_str("\n## Last test run\n\n");
        if let Some(cmd) = &t.command {
            let _ = writeln!(md, "- **Command:** {}", code_span(cmd, false));
        }
        let _ = writeln!(
            md,
            "- **Outcome:** {}",
            if t.passes() { "pass" } else { "fail" }
        );
        if let Some(sig) = &t.signature {
            let _ = writeln!(md, "- **Signature:** `{sig}`");
        }
        if let Some(e) = &t.first_error {
            let _ = writeln!(md, "- **First error:** {}", code_span(e, false));
        }
    }
    let picture = super::picture::markdown(s);
    if !picture.is_empty() {
        md.push_str("\n## The loop\n\n");
        md.push_str(&picture);
    }
    md.push_str("\n## Counters\n\n");
    md.push_str(&counters(s, false));
    let near = s.near_warnings();
    if !near.is_empty() || !s.warnings.is_empty() || !s.notes.is_empty() {
        md.push_str("\n## Warnings and notes\n\n");
        for w in &near {
            let _ = writeln!(md, "- **{}**: {}", w.rule, w.says(cell));
        }
        for w in &s.warnings {
            let _ = writeln!(md, "- **{}**: {}", w.rule, cell(&w.reason));
        }
        for n in &s.notes {
            let _ = writeln!(md, "- **{}**: {}", n.rule, cell(&n.text));
        }
    }
    md.push_str(&edges(s));
    md.push_str(&iterations(&s.rows, s.unit, 12));
    md.push_str(&events(s));
    md
}

/// The harness's edges with their latest reasons (see [`super::text::edges`]); empty when
/// there are none.
fn edges(s: &Status) -> String {
    let Some(edges) = s.edges.as_deref().filter(|e| !e.is_empty()) else {
        return String::new();
    };
    let mut md = String::from("\n## Edges\n\n");
    for e in edges {
        let _ = writeln!(
            md,
            "- **{}**: {} without progress",
            cell(&e.edge),
            super::text::taken(e.count, s.unit)
        );
        for r in &e.reasons {
            let _ = writeln!(md, "  - {}", cell(r));
        }
    }
    md
}

/// The breaker's events (the newest 20) as a markdown table; empty when there are none.
fn events(s: &Status) -> String {
    let mut md = String::new();
    if !s.transitions.is_empty() {
        md.push_str(
            "\n## Breaker events\n\n| time | attempt | event | from | to | rule | reason |\n|---|---:|---|---|---|---|---|\n",
        );
        for e in s.transitions.iter().rev().take(20).rev() {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                e.at.strftime("%Y-%m-%d %H:%M:%S"),
                s.attempt_of(e).map(|n| n.to_string()).unwrap_or_default(),
                e.kind.as_str(),
                e.from,
                e.to,
                e.rule.map(|r| r.to_string()).unwrap_or_default(),
                cell(e.reason.as_deref().unwrap_or(""))
            );
        }
    }
    md
}

/// The counters table; `mark` flags the rule that tripped.
pub fn counters(s: &Status, mark: bool) -> String {
    let mut md = String::from("| rule | count | limit | action |\n|---|---:|---|---|\n");
    for (rule, c) in &s.counters {
        let flag = if mark && Some(*rule) == s.rule {
            " ⛔"
        } else {
            ""
        };
        let action = s.actions.get(rule).map(|a| a.as_str()).unwrap_or_default();
        let _ = writeln!(
            md,
            "| `{rule}`{flag} | {} | {} | {action} |",
            c.count,
            limit(c)
        );
    }
    md
}

/// A counter's limit in words: its threshold, or the share of the window's attempts.
pub fn limit(c: &crate::rules::Counter) -> String {
    match c.limit {
        crate::rules::Limit::AtLeast(t) => t.to_string(),
        crate::rules::Limit::Share { ratio, min, of } => {
            format!("{:.0}% of {of} (once {min})", ratio * 100.0)
        }
    }
}

/// The failure that loops: signature, first error, failing tests and where they came from.
pub fn failure(t: &TestEvidence) -> String {
    let mut md = String::new();
    if let Some(sig) = &t.signature {
        let _ = writeln!(md, "- **Looping signature:** `{}`", sig.short());
    }
    if let Some(e) = &t.first_error {
        let _ = writeln!(md, "- **First error:** {}", code_span(e, false));
    }
    if let Some(f) = t.failures.as_ref().filter(|f| !f.is_empty()) {
        let ids: Vec<String> = f.iter().take(10).map(|id| code_span(id, false)).collect();
        let _ = writeln!(md, "- **Failing:** {}", ids.join(", "));
    }
    if let Some(c) = &t.command {
        let _ = writeln!(md, "- **From:** {}", code_span(c, false));
    }
    md
}

/// The tests of one row, for a table cell.
pub fn tests_cell(t: Option<&TestEvidence>) -> String {
    match t {
        None => "–".to_owned(),
        Some(t) if t.passes() => "pass".to_owned(),
        Some(t) => match (t.failing, &t.signature) {
            (Some(n), Some(s)) => {
                format!("fail ({n}) `{}`", crate::ids::prefix_chars(s.as_str(), 8))
            }
            (Some(n), None) => format!("fail ({n})"),
            (None, _) => "fail".to_owned(),
        },
    }
}

/// The newest `limit` attempts, counted in `unit`, as a markdown table; a sentence when
/// there are none (no empty table).
pub fn iterations(rows: &[Row], unit: Unit, limit: usize) -> String {
    if rows.is_empty() {
        return format!("\n## Recent {0}\n\n{1}\n", unit.many(), unit.none_yet());
    }
    let mut md = format!(
        "\n## Recent {}\n\n| # | {} | subject | files | +/- | tests | notes |\n|---:|---|---|---:|---|---|---|\n",
        unit.many(),
        unit.id_column()
    );
    for r in rows.iter().rev().take(limit).rev() {
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | {} | +{}/-{} | {} | {} |",
            r.number,
            r.id.short(),
            table_cell(&r.subject, 72),
            r.files,
            r.added,
            r.deleted,
            tests_cell(r.test.as_ref()),
            cell(&r.notes.join(", "))
        );
    }
    md
}

/// The entry `report.issues_file` gets for an aborted run.
pub fn issue_entry(s: &Status) -> String {
    let mut md = String::new();
    let status = s.terminal_status.map(|t| t.to_string()).unwrap_or_default();
    let _ = writeln!(
        md,
        "\n## {} — {status}\n",
        s.run.as_deref().unwrap_or("run")
    );
    let _ = writeln!(
        md,
        "- branch: {}",
        code_span(s.branch.as_deref().unwrap_or("(detached)"), false)
    );
    let _ = writeln!(md, "- profile: {}", s.profile);
    if let Some(rule) = s.rule {
        let _ = writeln!(md, "- rule: {rule}");
    }
    if let Some(reason) = &s.reason {
        let _ = writeln!(md, "- reason: {}", cell(reason));
    }
    let _ = writeln!(md, "- {}: {}", s.unit.many(), s.iterations);
    if let Some(t) = s.looping_failure.as_ref().or(s.last_test.as_ref()) {
        if let Some(cmd) = &t.command {
            let _ = writeln!(md, "- last test command: {}", code_span(cmd, false));
        }
        if let Some(sig) = &t.signature {
            let _ = writeln!(md, "- signature: `{sig}`");
        }
        if let Some(e) = &t.first_error {
            let _ = writeln!(md, "- first error: {}", code_span(e, false));
        }
    }
    md
}

/// The rule's name as the tables show it.
pub fn rule_code(rule: Option<RuleName>) -> String {
    format!("`{}`", rule.map_or("?", RuleName::as_str))
}
