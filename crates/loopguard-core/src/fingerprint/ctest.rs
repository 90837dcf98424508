//! CMake's `ctest`, with and without `--output-on-failure`, `-V`, `-j`.
//!
//! A result line names each test: `2/4 Test #2: wc_first ......***Failed    0.01 sec`
//! (`***Exception: SegFault`, `Subprocess aborted`, `***Timeout`, `***Not Run`); the
//! closing list repeats the failing ones (`  1 - wc_count (Failed)`). The test is the id;
//! what it printed tells two failures of one test apart, so the message is the first line
//! of its output when the log shows it (below the result line with
//! `--output-on-failure`, before it as `N: line` with `-V`), else the status ctest gives.

use super::collect::{Collector, LineParser, MAX_FAILURES};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "ctest" };

pub(crate) const TRIGGERS: &[&str] =
    &[" Test #", "Test project ", "tests passed, ", "tests FAILED"];

static RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*\d+/\d+ Test\s+#(\d+): (\S+) \.*\s*(\S.*?)\s+[\d.]+ sec")
        .expect("because it is valid")
});
static LISTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+ - (\S+) \(([^)]+)\)$").expect("because it is valid"));
/// `-V` prefixes what test N prints with `N: `.
static VERBOSE_OUTPUT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+): (.*)$").expect("because it is valid"));

#[derive(Debug, Default)]
pub(crate) struct CtestParser {
    /// Between `Test project` and the closing summary.
    running: bool,
    /// The failed test whose `--output-on-failure` output may follow: (id, kind, status).
    output_of: Option<(String, FailureKind, String)>,
    /// `-V`: the first line each test number printed.
    verbose_first: HashMap<String, String>,
    /// In `The following tests FAILED:`.
    in_list: bool,
    /// `-V`: output comes before results, never after.
    verbose: bool,
}

impl LineParser for CtestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(c) = RESULT.captures(text) {
            self.flush(out);
            out.saw(Runner::Ctest);
            self.running = true;
            let status = status_of(&c[3]);
            let Some(kind) = kind_of(&status) else { return };
            let id = c[2].to_string();
            match self.verbose_first.remove(&c[1]) {
                Some(first) => out.fail(Runner::Ctest, kind, &id, Some(&first)),
                None if self.verbose => out.fail(Runner::Ctest, kind, &id, Some(&status)),
                None => self.output_of = Some((id, kind, status)),
            }
            return;
        }
        let trimmed = text.trim();
        if let Some((id, kind, status)) = self.output_of.take() {
            let message = if is_ctest_line(trimmed) || trimmed.is_empty() {
                status
            } else {
                cut_message(trimmed)
            };
            out.fail(Runner::Ctest, kind, &id, Some(&message));
        }
        if text.starts_with("Test project ") {
            out.saw(Runner::Ctest);
            self.running = true;
        } else if trimmed.starts_with("The following tests FAILED:") {
            self.in_list = true;
        } else if trimmed.contains("tests passed, ") {
            out.saw(Runner::Ctest);
        } else if self.in_list {
            match LISTED.captures(text) {
                Some(c) => {
                    if let Some(kind) = kind_of(&c[2]) {
                        out.fail(Runner::Ctest, kind, &c[1], Some(&c[2]));
                    }
                }
                None => {
                    self.in_list = false;
                    self.running = false;
                }
            }
        } else if self.running
            && let Some(c) = VERBOSE_OUTPUT.captures(text)
            && {
                self.verbose |= c[2].starts_with("Test command: ");
                true
            }
            && !c[2].trim().is_empty()
            && !c[2].starts_with("Test command: ")
            && !c[2].starts_with("Working Directory: ")
            && !c[2].starts_with("Environment variables:")
            && !c[2].starts_with("Test timeout computed to be")
            && !c[2].starts_with(' ')
            && self.verbose_first.len() < MAX_FAILURES
        {
            self.verbose_first
                .entry(c[1].to_string())
                .or_insert_with(|| cut_message(c[2].trim()));
        }
    }

    fn wants_every_line(&self) -> bool {
        self.running || self.output_of.is_some() || self.in_list
    }

    fn finish(&mut self, out: &mut Collector) {
        self.flush(out);
    }
}

impl CtestParser {
    fn flush(&mut self, out: &mut Collector) {
        if let Some((id, kind, status)) = self.output_of.take() {
            out.fail(Runner::Ctest, kind, &id, Some(&status));
        }
    }
}

/// ctest's own lines between results: what a test printed is anything else.
fn is_ctest_line(trimmed: &str) -> bool {
    trimmed.starts_with("Start ")
        || RESULT.is_match(trimmed)
        || trimmed
            .strip_prefix("test ")
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

/// The status of a result line without ctest's `***` marks: `***Failed` is `Failed`,
/// `Subprocess aborted***Exception:` is `Subprocess aborted`.
fn status_of(raw: &str) -> String {
    let status = raw.trim().trim_start_matches('*').trim();
    match status.split_once("***") {
        Some((head, _)) if !head.trim().is_empty() => head.trim().to_string(),
        _ => status.replace("***", " ").trim().to_string(),
    }
}

/// What a status says failed; `None` for a pass (or a skip).
fn kind_of(status: &str) -> Option<FailureKind> {
    Some(match status {
        "Passed" => return None,
        s if s.starts_with("Skipped") || s == "Not Run (Disabled)" => return None,
        "Failed" => FailureKind::Test,
        "Timeout" => FailureKind::Timeout,
        "Not Run" => FailureKind::Error,
        s if s.starts_with("Exception")
            || s.starts_with("SEGFAULT")
            || s.contains("aborted")
            || s.starts_with("OTHER_FAULT")
            || s.starts_with("ILLEGAL")
            || s.starts_with("NUMERICAL") =>
        {
            FailureKind::Crash
        }
        _ => FailureKind::Test,
    })
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    const OUTPUT_ON_FAILURE: &str = "Test project /tmp/x/build\n    Start 1: wc_count\n1/3 Test #1: wc_count .........................***Failed    0.00 sec\nt_count.cpp:4: CHECK_EQ(count_words(\"one two three\"), 3) failed\n\n    Start 2: wc_ok\n2/3 Test #2: wc_ok ............................   Passed    0.00 sec\n    Start 3: wc_segv\n3/3 Test #3: wc_segv ..........................***Exception: SegFault  0.01 sec\n\n33% tests passed, 2 tests failed out of 3\n\nTotal Test time (real) =   0.02 sec\n\nThe following tests FAILED:\n\t  1 - wc_count (Failed)\n\t  3 - wc_segv (SEGFAULT)\nErrors while running CTest\n";

    #[test]
    fn results_and_what_the_tests_printed() {
        let fp = fingerprint_as(OUTPUT_ON_FAILURE, Runner::Ctest);
        assert_eq!(
            triples(&fp),
            [
                (
                    "wc_count",
                    FailureKind::Test,
                    "t_count.cpp: CHECK_EQ(count_words(\"one two three\"), <n>) failed"
                ),
                ("wc_segv", FailureKind::Crash, "Exception: SegFault"),
            ]
        );
    }

    #[test]
    fn verbose_output_comes_before_the_result() {
        let log = "Test project /tmp/x/build\n1: Test command: /tmp/x/build/t_count\n1: Working Directory: /tmp/x/build\n1: Test timeout computed to be: 5\n1: t_count.cpp:4: CHECK_EQ(count_words(\"one two three\"), 3) failed\n1/1 Test #1: wc_count .........................***Failed    0.00 sec\n\n0% tests passed, 1 tests failed out of 1\n";
        let fp = fingerprint_as(log, Runner::Ctest);
        let plain = fingerprint_bytes(OUTPUT_ON_FAILURE.as_bytes());
        assert_eq!(fp.failures[0], plain.failures[0]);
    }

    #[test]
    fn statuses_without_their_marks() {
        assert_eq!(super::status_of("***Failed"), "Failed");
        assert_eq!(
            super::status_of("***Exception: SegFault"),
            "Exception: SegFault"
        );
        assert_eq!(
            super::status_of("Subprocess aborted***Exception:"),
            "Subprocess aborted"
        );
        assert_eq!(super::status_of("  Passed"), "Passed");
    }

    #[test]
    fn a_passing_run_names_ctest() {
        let fp = fingerprint_bytes(b"Test project /tmp/x/build\n    Start 1: wc_ok\n1/1 Test #1: wc_ok ..........   Passed    0.00 sec\n\n100% tests passed, 0 tests failed out of 1\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Ctest));
    }
}
