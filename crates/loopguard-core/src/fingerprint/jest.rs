//! Jest output.
//!
//! `FAIL path/to/x.test.js` opens a file's report; each failure is a `● describe › test`
//! block whose first line is the error (`expect(received).toBe(expected)`, `TypeError: ...`).
//! `● Test suite failed to run` is the file failing to load (syntax or import error).
//!
//! The id is the describe path and test title joined by spaces, as jest-junit names its
//! test cases, so the text log and the JUnit report of one run give one signature.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner, runner::Descriptor};

pub(crate) const RUNNER: Descriptor = Descriptor { name: "jest" };

pub(crate) const TRIGGERS: &[&str] = &["FAIL", "\u{25cf} ", "pass", "fail"];

#[derive(Debug, Default)]
pub(crate) struct JestParser {
    file: Option<String>,
    /// The `●` block whose error line comes next.
    pending: Option<(String, FailureKind)>,
}

impl LineParser for JestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        let trimmed = text.trim_start();
        if let Some((id, kind)) = &self.pending {
            if trimmed.is_empty() {
                return;
            }
            if !trimmed.starts_with('\u{25cf}') {
                let kind = if trimmed.contains("Exceeded timeout of") {
                    FailureKind::Timeout
                } else {
                    *kind
                };
                out.fail(Runner::Jest, kind, id, Some(trimmed));
                self.pending = None;
                return;
            }
            out.fail(Runner::Jest, *kind, id, None);
            self.pending = None;
        }
        if let Some(title) = trimmed.strip_prefix("\u{25cf} ") {
            let title = title.trim();
            if title == "Test suite failed to run" {
                if let Some(file) = &self.file {
                    self.pending = Some((file.clone(), FailureKind::Error));
                }
            } else if self.file.is_some() {
                self.pending = Some((jest_id(title), FailureKind::Test));
            }
        } else if let Some(file) = jest_file_line(trimmed) {
            out.saw(Runner::Jest);
            self.file = Some(file.to_string());
        } else if trimmed.starts_with("Tests:") && trimmed.contains(" total") {
            out.saw(Runner::Jest);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.pending.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        if let Some((id, kind)) = self.pending.take() {
            out.fail(Runner::Jest, kind, &id, None);
        }
    }
}

/// `describe › nested › test` -> `describe nested test` (jest-junit's naming).
pub(crate) fn jest_id(title: &str) -> String {
    title
        .split(" \u{203a} ")
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `FAIL __tests__/x.test.js` (optionally with a duration): jest's per-file header. Go's
/// `FAIL\tpkg` and vitest's `FAIL  file > test` are not.
fn jest_file_line(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix("FAIL ")?;
    let path = rest.trim().split(" (").next()?.trim();
    let looks_like_test_file = path.contains('.') && !path.contains(' ') && !path.contains('\t');
    looks_like_test_file.then_some(path)
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn blocks_and_suite_failures() {
        let log = "FAIL __tests__/a.test.js\n  \u{25cf} count \u{203a} counts three words\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n\nFAIL __tests__/b.test.js\n  \u{25cf} Test suite failed to run\n\n    Cannot find module '../src/x' from '__tests__/b.test.js'\n\nTests:       1 failed, 2 passed, 3 total\n";
        let fp = fingerprint_as(log.as_bytes(), Runner::Jest);
        assert_eq!(
            triples(&fp),
            [
                (
                    "__tests__/b.test.js",
                    FailureKind::Error,
                    "Cannot find module '../src/x' from '__tests__/b.test.js'"
                ),
                (
                    "count counts three words",
                    FailureKind::Test,
                    "expect(received).toBe(expected) // Object.is equality"
                ),
            ]
        );
    }

    #[test]
    fn passing_summary_is_no_failure() {
        let log =
            "PASS __tests__/failure-modes.test.js\nTests:       0 failed, 5 passed, 5 total\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Jest));
    }
}
