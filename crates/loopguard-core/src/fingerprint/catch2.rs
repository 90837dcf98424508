//! Catch2's console reporter (v2 and v3: plain, `--success`, `--order rand`, `--durations`,
//! colour).
//!
//! A run opens with `<binary> is a Catch2 v3.x host application.` (v2: `a Catch v2.x`).
//! Each test that reports something gets a header between two rules of dashes: the test
//! case's name and, indented below it, the sections it was in, then `file:line` and a rule
//! of dots. A failed assertion is `file:line: FAILED:` and its lines up to a blank line (the
//! expression, `with expansion:` and the values, `with message:`, `due to unexpected
//! exception with message:`, `due to a fatal error condition:` and the signal, a crash).
//! The id is the test case and its sections joined by ` / `; the message, the first failed
//! assertion's lines joined (Catch2 wraps long values at 80 columns, where a value's length
//! decides: joined, the wrap is gone). The run ends with `test cases: N | ...` or `All tests
//! passed`. The compact reporter (`-r compact`) names no test and is not read here.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};

pub(crate) const RUNNER: Descriptor = Descriptor { name: "catch2" };

pub(crate) const TRIGGERS: &[&str] = &[
    " host application.",
    "Randomness seeded to: ",
    "All tests passed",
];

/// Lines of a failed assertion that make its message.
const MESSAGE_LINES: usize = 8;

/// Where the parser is in a test's header.
#[derive(Debug, Default, PartialEq, Eq)]
enum Header {
    /// Not in a header.
    #[default]
    None,
    /// After the first rule of dashes: the test's name and sections.
    Names,
    /// After the second rule: `file:line`, then the rule of dots.
    Place,
}

#[derive(Debug, Default)]
pub(crate) struct Catch2Parser {
    /// Inside a run: between the banner and the totals.
    running: bool,
    header: Header,
    /// The names of the header being read.
    names: Vec<String>,
    /// The test the last header named.
    test: Option<String>,
    /// Inside a failed assertion: its lines so far, and whether it is a crash.
    block: Option<(Vec<String>, FailureKind)>,
}

impl LineParser for Catch2Parser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if !self.running {
            // A passing run prints its totals alone.
            if text.starts_with("All tests passed (") && text.contains(" test case") {
                out.saw(Runner::Catch2);
            }
            if text.ends_with(" host application.") && text.contains(" is a Catch")
                || text.starts_with("Randomness seeded to: ")
            {
                out.saw(Runner::Catch2);
                self.running = true;
            }
            return;
        }
        if self.block.is_some() {
            if !text.trim().is_empty() && !is_rule(text, '-') && !is_rule(text, '=') {
                let (lines, kind) = self.block.as_mut().expect("checked above");
                if text.trim() == "due to a fatal error condition:" {
                    *kind = FailureKind::Crash;
                }
                if lines.len() < MESSAGE_LINES {
                    lines.push(text.trim().to_string());
                }
                return;
            }
            self.report(out);
        }
        if is_rule(text, '-') {
            self.header = match self.header {
                Header::Names => Header::Place,
                Header::None | Header::Place => {
                    self.names.clear();
                    Header::Names
                }
            };
            return;
        }
        match self.header {
            Header::Names => self.names.push(text.trim().to_string()),
            Header::Place if is_rule(text, '.') => {
                self.header = Header::None;
                self.test = Some(self.names.join(" / "));
            }
            Header::Place => {}
            Header::None if text.ends_with(": FAILED:") => {
                self.block = Some((Vec::new(), FailureKind::Test));
            }
            Header::None => self.totals(text, out),
        }
    }

    fn wants_every_line(&self) -> bool {
        self.running
    }

    fn finish(&mut self, out: &mut Collector) {
        self.report(out);
        self.running = false;
    }
}

impl Catch2Parser {
    /// Reports the failed assertion being read, if any.
    fn report(&mut self, out: &mut Collector) {
        let Some((lines, kind)) = self.block.take() else {
            return;
        };
        let Some(test) = &self.test else { return };
        out.fail(
            Runner::Catch2,
            kind,
            test,
            Some(&cut_message(&lines.join(" "))),
        );
    }

    /// `test cases: 5 | 4 passed | 1 failed`, `All tests passed (8 assertions in 5 test
    /// cases)`, `No tests ran`: the run is over.
    fn totals(&mut self, text: &str, out: &mut Collector) {
        if text.starts_with("test cases: ") && text.contains(" failed") {
            out.said_failed();
        }
        if text.starts_with("test cases: ")
            || text.starts_with("All tests passed")
            || text.starts_with("No tests ran")
        {
            self.running = false;
            self.test = None;
        }
    }
}

/// A line of one character repeated (Catch2's rules are 79 wide; a narrower console makes
/// them narrower, never this narrow).
fn is_rule(text: &str, c: char) -> bool {
    text.len() >= 20 && text.chars().all(|x| x == c)
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    const DASHES: &str =
        "-------------------------------------------------------------------------------";
    const DOTS: &str =
        "...............................................................................";

    fn header(names: &str, place: &str) -> String {
        format!("{DASHES}\n{names}\n{DASHES}\n{place}\n{DOTS}\n\n")
    }

    fn log() -> String {
        format!(
            "\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\
             tests.bin is a Catch2 v3.4.0 host application.\nRun with -? for options\n\n\
             Randomness seeded to: 1234\n\n{}\
             t.cpp:6: FAILED:\n  REQUIRE( total(3) == 3 )\nwith expansion:\n  4 == 3\n\n{}\
             t.cpp:9: FAILED:\n  CHECK( s == \"b\" )\nwith expansion:\n  \"a\" == \"b\"\n\n{}\
             t.cpp:12: FAILED:\ndue to a fatal error condition:\n  SIGSEGV - Segmentation violation signal\n\n\
             ===============================================================================\n\
             test cases: 4 | 1 passed | 3 failed\nassertions: 4 | 1 passed | 3 failed\n\n",
            header("totals the stock", "t.cpp:6"),
            header("sections\n  inner one", "t.cpp:8"),
            header("crashes", "t.cpp:11"),
        )
    }

    #[test]
    fn failed_assertions_name_their_test_and_sections() {
        let fp = fingerprint_as(log(), Runner::Catch2);
        let t = triples(&fp);
        assert_eq!(t.len(), 3, "{}", fp.render_text());
        assert_eq!(t[0].0, "crashes");
        assert_eq!(t[0].1, FailureKind::Crash);
        assert_eq!(t[1].0, "sections / inner one");
        assert!(t[1].2.starts_with("CHECK( s =="), "{t:?}");
        assert_eq!(t[2].0, "totals the stock");
        assert_eq!(t[2].1, FailureKind::Test);
    }

    #[test]
    fn a_wrapped_value_is_the_same_message() {
        let narrow = log().replace("  \"a\" == \"b\"", "  \"a\"\n  ==\n  \"b\"");
        assert_eq!(
            fingerprint_as(narrow, Runner::Catch2).signature,
            fingerprint_as(log(), Runner::Catch2).signature
        );
    }

    #[test]
    fn a_passing_run_and_rules_outside_a_run() {
        let passing = "tests.bin is a Catch v2.13.10 host application.\nRun with -? for options\n\n\
            ===============================================================================\n\
            All tests passed (8 assertions in 5 test cases)\n\n";
        let fp = fingerprint_as(passing, Runner::Catch2);
        assert_eq!(fp.signature, None);
        // Catch2's lines without its banner are nobody's.
        let alone = format!("{}t.cpp:6: FAILED:\n  x\n\n", header("a", "t.cpp:1"));
        let fp = crate::fingerprint::fingerprint_bytes(alone.as_bytes());
        assert!(fp.failures.iter().all(|f| f.runner != Runner::Catch2));
    }
}
