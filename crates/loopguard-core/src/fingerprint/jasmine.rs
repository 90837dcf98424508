//! Jasmine's console reporter (`jasmine`, `--parallel`, any seed, colour or not).
//!
//! After `Failures:`, each failure is `N) full name` at the start of its line (the suites'
//! descriptions and the spec's, joined by spaces; RSpec indents its entries and says
//! `Failure/Error:`), then `  Message:` and the message, indented four spaces, which may
//! take several lines (`AssertionError: Expected values to be strictly equal:`, then
//! `4 !== 3`), then `  Stack:`. An error outside any spec (`afterAll`, a file that does
//! not load) is `N) Suite error: NAME` or `N) top suite`. `N specs, M failures` closes the
//! run; `Randomized with seed N (jasmine --random=true --seed=N)` is jasmine's too.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "jasmine" };

pub(crate) const TRIGGERS: &[&str] = &["Failures:", " specs, ", " spec, ", "(jasmine --"];

static ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+\) (.+)$").expect("because it is valid"));
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d+ specs?, (\d+) failures?(?:, \d+ pending specs?)?$")
        .expect("because it is valid")
});

/// The lines of a message kept (the first ones say what failed; a diff below them is long).
const MESSAGE_LINES: usize = 4;

#[derive(Debug, Default)]
pub(crate) struct JasmineParser {
    in_failures: bool,
    entry: Option<Entry>,
}

#[derive(Debug, Default)]
struct Entry {
    id: String,
    kind: FailureKind,
    in_message: bool,
    /// A `Message:` came: the first message is the failure's.
    done: bool,
    message: Vec<String>,
}

impl LineParser for JasmineParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(c) = SUMMARY.captures(text) {
            self.close(out);
            self.in_failures = false;
            out.saw(Runner::Jasmine);
            if &c[1] != "0" {
                out.said_failed();
            }
            return;
        }
        if text == "Failures:" {
            self.close(out);
            self.in_failures = true;
            return;
        }
        if !self.in_failures {
            if text.starts_with("Randomized with seed ") && text.contains("(jasmine --") {
                out.saw(Runner::Jasmine);
            }
            return;
        }
        if let Some(c) = ENTRY.captures(text) {
            self.close(out);
            let name = &c[1];
            let kind = if name.starts_with("Suite error: ") || name == "top suite" {
                FailureKind::Error
            } else {
                FailureKind::Test
            };
            self.entry = Some(Entry {
                id: name.to_string(),
                kind,
                ..Entry::default()
            });
            return;
        }
        let Some(entry) = &mut self.entry else {
            return;
        };
        if text == "  Message:" {
            entry.in_message = !entry.done;
        } else if text == "  Stack:" || !text.starts_with("    ") && !text.is_empty() {
            entry.done |= entry.in_message;
            entry.in_message = false;
        } else if entry.in_message && entry.message.len() < MESSAGE_LINES {
            let part = text.trim();
            if !part.is_empty() {
                entry.message.push(cut_message(part));
            }
        }
    }

    fn wants_every_line(&self) -> bool {
        self.in_failures
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
    }
}

impl JasmineParser {
    fn close(&mut self, out: &mut Collector) {
        if let Some(entry) = self.entry.take() {
            out.saw(Runner::Jasmine);
            let message = entry.message.join(" ");
            let message = (!message.is_empty()).then_some(message);
            out.fail(Runner::Jasmine, entry.kind, &entry.id, message.as_deref());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn failures_with_messages_of_several_lines() {
        let log = "Randomized with seed 12431\nStarted\nF.F\n\nFailures:\n1) parse keeps digits in the first word\n  Message:\n    AssertionError: Expected values to be strictly equal:\n    \n    'utf8' !== 'v2'\n    \n  Stack:\n    error properties: Object({ generatedMessage: true })\n        at UserContext.<anonymous> (/tmp/x/test/parse.spec.js:6:12)\n        at <Jasmine>\n\n2) countWords counts three words\n  Message:\n    Expected 4 to be 3.\n  Stack:\n        at <Jasmine>\n  Message:\n    Expected 5 to be 3.\n  Stack:\n        at <Jasmine>\n\n3 specs, 2 failures\nFinished in 0.188 seconds\nRandomized with seed 12431 (jasmine --random=true --seed=12431)\n";
        let fp = fingerprint_as(log, Runner::Jasmine);
        assert_eq!(
            triples(&fp),
            [
                (
                    "countWords counts three words",
                    FailureKind::Test,
                    "Expected <n> to be <n>."
                ),
                (
                    "parse keeps digits in the first word",
                    FailureKind::Test,
                    "AssertionError: Expected values to be strictly equal: 'utf8' !== 'v2'"
                ),
            ]
        );
    }

    #[test]
    fn rspecs_entries_are_not_jasmines() {
        let log = "Failures:\n\n  1) Wordcount counts three words\n     Failure/Error: expect(count).to eq(3)\n\n       expected: 3\n            got: 4\n\nFinished in 0.01 seconds (files took 0.1 seconds to load)\n1 example, 1 failure\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.runner, Some(Runner::Rspec));
        assert!(fp.failures.iter().all(|f| f.runner == Runner::Rspec));
    }

    #[test]
    fn a_passing_run_names_jasmine() {
        let fp = fingerprint_bytes(b"Randomized with seed 1\nStarted\n.....\n\n\n5 specs, 0 failures\nFinished in 0.1 seconds\nRandomized with seed 1 (jasmine --random=true --seed=1)\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Jasmine));
    }
}
