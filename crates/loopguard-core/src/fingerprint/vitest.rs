//! Vitest output.
//!
//! After `⎯⎯ Failed Tests N ⎯⎯` (or `Failed Suites`), each failure is a
//! ` FAIL  file > describe > test` line followed by the error line; a suite that failed to
//! load is ` FAIL  file [ file ]`. The id is `file > describe > test` (or the file), as the
//! JUnit reporter's classname and name give it.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner, runner::Descriptor};

pub(crate) const RUNNER: Descriptor = Descriptor { name: "vitest" };

pub(crate) const TRIGGERS: &[&str] = &["\u{23af}", "FAIL", "pass", "fail"];

#[derive(Debug, Default)]
pub(crate) struct VitestParser {
    in_failures: bool,
    pending: Option<(String, FailureKind)>,
}

impl LineParser for VitestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let trimmed = line.text.trim();
        if let Some((id, kind)) = &self.pending {
            if trimmed.is_empty() {
                return;
            }
            let kind = if trimmed.contains("Test timed out in") {
                FailureKind::Timeout
            } else {
                *kind
            };
            out.fail(Runner::Vitest, kind, id, Some(trimmed));
            self.pending = None;
            return;
        }
        if trimmed.starts_with('\u{23af}') {
            if trimmed.contains(" Failed Tests ") || trimmed.contains(" Failed Suites ") {
                self.in_failures = true;
                out.saw(Runner::Vitest);
            }
        } else if trimmed.starts_with("Test Files ") || trimmed.starts_with("RUN  v") {
            self.in_failures = false;
            out.saw(Runner::Vitest);
        } else if self.in_failures
            && let Some(rest) = trimmed.strip_prefix("FAIL ")
        {
            let rest = rest.trim();
            self.pending = Some(match rest.split_once(" [ ") {
                Some((file, _)) => (file.trim().to_string(), FailureKind::Error),
                None => (rest.to_string(), FailureKind::Test),
            });
        }
    }

    fn wants_every_line(&self) -> bool {
        self.pending.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        if let Some((id, kind)) = self.pending.take() {
            out.fail(Runner::Vitest, kind, &id, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn failed_tests_and_suites() {
        let log = " \u{276f} test/a.test.js (2 tests | 1 failed)\n   \u{00d7} count > three 3ms\n\n\u{23af}\u{23af} Failed Suites 1 \u{23af}\u{23af}\n\n FAIL  test/b.test.js [ test/b.test.js ]\nError: Cannot find module '../src/x.js'\n\u{23af}\u{23af} Failed Tests 1 \u{23af}\u{23af}\n\n FAIL  test/a.test.js > count > three\nAssertionError: expected 4 to be 3 // Object.is equality\n\n Test Files  2 failed (2)\n";
        let fp = fingerprint_as(log.as_bytes(), Runner::Vitest);
        assert_eq!(
            triples(&fp),
            [
                (
                    "test/a.test.js > count > three",
                    FailureKind::Test,
                    "AssertionError: expected <n> to be <n> // Object.is equality"
                ),
                (
                    "test/b.test.js",
                    FailureKind::Error,
                    "Error: Cannot find module '../src/x.js'"
                ),
            ]
        );
    }

    #[test]
    fn fail_lines_outside_the_failure_report_are_not_vitests() {
        let log = " FAIL  something > else\nAssertionError: x\n Test Files  1 passed (1)\n";
        assert!(
            fingerprint_bytes(log.as_bytes())
                .failures
                .iter()
                .all(|f| f.runner != Runner::Vitest)
        );
    }
}
