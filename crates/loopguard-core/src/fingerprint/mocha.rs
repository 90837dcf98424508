//! Mocha output (spec, dot and the other reporters share the failure report).
//!
//! After `  N failing`, each failure is `  1) describe` with the title continued on deeper
//! lines up to one ending in `:`, then the error line. Hook failures
//! (`"before each" hook for "test"`) are errors. `Exception during run:` (serial) and the
//! `Uncaught error outside test suite` failure (`--parallel`) are the run itself failing,
//! typically a test file that does not load: both are the error `mocha run`, their message
//! without the `Uncaught ` prefix.

use super::collect::{Collector, LineParser};
use super::ghactions::{CleanLine, Marker};
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "mocha" };

pub(crate) const TRIGGERS: &[&str] = &["fail", "pass", "Exception"];

/// The id of a failure of the mocha run itself (not of one test).
const RUN_ID: &str = "mocha run";

static FAILING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s+\d+ failing$").expect("because it is valid"));
static PASSING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s+\d+ passing \(").expect("because it is valid"));
static HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s{1,4}\d+\) (.+)$").expect("because it is valid"));

#[derive(Debug, Default)]
pub(crate) struct MochaParser {
    in_report: bool,
    /// Title parts of the current failure, and whether the title is complete.
    title: Vec<String>,
    title_done: bool,
    /// Blank lines in a row: mocha closes its report with three.
    blanks: usize,
}

impl LineParser for MochaParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(rest) = text.trim_start().strip_prefix("Exception during run: ") {
            out.saw(Runner::Mocha);
            out.fail(Runner::Mocha, FailureKind::Error, RUN_ID, Some(rest));
            return;
        }
        if text.ends_with(" failing") && FAILING.is_match(text) {
            out.saw(Runner::Mocha);
            self.in_report = true;
            self.blanks = 0;
            return;
        }
        if text.contains(" passing (") && PASSING.is_match(text) {
            out.saw(Runner::Mocha);
            return;
        }
        if !self.in_report {
            return;
        }
        // Error messages and diffs can be unindented; the report ends with blank lines or
        // the next log group.
        self.blanks = if text.is_empty() { self.blanks + 1 } else { 0 };
        if self.blanks >= 3 || line.marker != Marker::None {
            self.in_report = false;
            self.title.clear();
            return;
        }
        if let Some(c) = text.contains(") ").then(|| HEADER.captures(text)).flatten() {
            self.title = vec![c[1].trim().to_string()];
            self.title_done = self.close_title();
            return;
        }
        let trimmed = text.trim();
        if self.title.is_empty() || trimmed.is_empty() {
            return;
        }
        if !self.title_done {
            self.title.push(trimmed.to_string());
            self.title_done = self.close_title();
            return;
        }
        let mut id = self.title.join(" ");
        let mut message = trimmed;
        let kind = if id == "Uncaught error outside test suite" {
            id = RUN_ID.to_string();
            message = message.strip_prefix("Uncaught ").unwrap_or(message);
            FailureKind::Error
        } else if id.contains(" hook for ") || id.contains(" hook in ") {
            FailureKind::Error
        } else if trimmed.contains("Timeout of ") && trimmed.contains("exceeded") {
            FailureKind::Timeout
        } else {
            FailureKind::Test
        };
        out.fail(Runner::Mocha, kind, &id, Some(message));
        self.title.clear();
    }

    fn wants_every_line(&self) -> bool {
        self.in_report
    }
}

impl MochaParser {
    /// A title ends with the line that ends in `:` (mocha appends it).
    fn close_title(&mut self) -> bool {
        match self.title.last_mut() {
            Some(last) if last.ends_with(':') => {
                last.pop();
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn failures_and_hooks() {
        let log = "\n  2 passing (25ms)\n  2 failing\n\n  1) countWords\n       counts three words:\n\n      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n4 !== 3\n\n      at Context.<anonymous> (test/a.spec.js:9:12)\n\n  2) readWords\n       \"before each\" hook for \"reads a file\":\n     Error: ENOENT: no such file or directory, scandir '/tmp/wc-D3HGmW/fixtures'\n      at Object.readdirSync (node:fs:1521:26)\n\n";
        let fp = fingerprint_as(log.as_bytes(), Runner::Mocha);
        assert_eq!(
            triples(&fp),
            [
                (
                    "countWords counts three words",
                    FailureKind::Test,
                    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:"
                ),
                (
                    "readWords \"before each\" hook for \"reads a file\"",
                    FailureKind::Error,
                    "Error: ENOENT: no such file or directory, scandir '<tmp>/fixtures'"
                ),
            ]
        );
    }

    #[test]
    fn passing_run() {
        let fp = fingerprint_bytes(b"  handles failing input\n    ok\n\n  5 passing (12ms)\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Mocha));
    }
}
