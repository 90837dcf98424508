//! cargo-nextest output.
//!
//! Status lines: `FAIL [   0.006s] (1/5) BINARY TEST` (older versions without the
//! counter), `TRY 2 FAIL [...]` for retries, `SIGSEGV`/`ABORT`/`TIMEOUT [...]`, and the
//! test's captured output below (`  stdout ───` / `  stderr ───` with the lines indented,
//! or `--- STDERR: BINARY TEST ---` in older versions).
//!
//! Retries: a test counts as failing when its last attempt failed. A test that failed and
//! then passed on a retry (`TRY 2 PASS`, listed as `FLAKY`) is flaky, not failing: it is
//! left out, and a run whose only failures were flaky is a pass (signature `null`).
//!
//! The id is the test name without the binary id, as `cargo test` shows it, so the same
//! failure gives the same signature from both runners.

use super::cargo::PanicMessage;
use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "nextest" };

// Single words: colour codes split `FAIL [` into `FAIL\x1b[0m [` on the raw line.
pub(crate) const TRIGGERS: &[&str] = &["FAIL", "TRY", "SIG", "ABORT", "TIMEOUT", "pass"];

static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:TRY (\d+) )?(FAIL|PASS|FLAKY(?: \d+/\d+)?|TIMEOUT|ABORT|SIG[A-Z]+|LEAK-FAIL|LEAK|SLOW|SKIP) \[[^\]]*\]\s+(?:\([^)]*\)\s+)?(\S+) (\S.*?)\s*$",
    )
    .expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct NextestParser {
    /// The failing test whose captured output follows.
    capturing: Option<Capture>,
}

#[derive(Debug)]
struct Capture {
    test: String,
    kind: FailureKind,
    message: PanicMessage,
    /// The message when the output shows no panic (timeouts, signals).
    default: Option<String>,
}

impl LineParser for NextestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.as_str();
        let status = is_status_shaped(text)
            .then(|| STATUS.captures(text))
            .flatten();
        if status.is_none() && self.capturing.is_some() {
            if ends_output(text) {
                self.flush(out);
            } else if let Some(capture) = &mut self.capturing {
                capture.message.line(text);
                return;
            }
        }
        if text.trim_start().starts_with("Summary [") {
            out.saw(Runner::Nextest);
        }
        let Some(c) = status else { return };
        self.flush(out);
        out.saw(Runner::Nextest);
        let test = c[4].to_string();
        let kind = match &c[2] {
            "FAIL" | "LEAK-FAIL" => FailureKind::Test,
            "TIMEOUT" => FailureKind::Timeout,
            "ABORT" => FailureKind::Crash,
            s if s.starts_with("SIG") => FailureKind::Crash,
            s if s == "PASS" || s.starts_with("FLAKY") => {
                // A pass after failed tries: flaky, not failing.
                if c.get(1).is_some() || s.starts_with("FLAKY") {
                    out.withdraw(Runner::Nextest, &test);
                }
                return;
            }
            _ => return,
        };
        let message = match kind {
            FailureKind::Timeout => Some("timed out".to_string()),
            FailureKind::Crash => Some(format!("killed by {}", &c[2])),
            FailureKind::Test | FailureKind::Build | FailureKind::Error | FailureKind::Generic => {
                None
            }
        };
        if out.has(Runner::Nextest, &test) {
            // A later try or the closing summary: the first report keeps its message.
            out.fail(Runner::Nextest, kind, &test, message.as_deref());
            return;
        }
        // A crash or timeout still prefers the panic message when there is one (`flush`).
        self.capturing = Some(Capture {
            test,
            kind,
            message: PanicMessage::default(),
            default: message,
        });
    }

    fn wants_every_line(&self) -> bool {
        self.capturing.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.flush(out);
    }
}

impl NextestParser {
    fn flush(&mut self, out: &mut Collector) {
        if let Some(c) = self.capturing.take() {
            let message = c.message.take().or(c.default);
            out.fail(Runner::Nextest, c.kind, &c.test, message.as_deref());
        }
    }
}

/// Every status line has its duration in brackets: `FAIL [   0.006s]`.
fn is_status_shaped(text: &str) -> bool {
    text.contains(" [") && text.contains("s]")
}

/// The end of a test's captured output: the run's separator, its summary, or its end.
fn ends_output(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("────")
        || t.starts_with("------------")
        || t.starts_with("Summary [")
        || t.starts_with("error: ")
        || t.starts_with("Cancelling")
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    const FAIL: &str = "    Starting 2 tests across 1 binary\n        FAIL [   0.006s] (1/2) wc tests::a\n  stdout ───\n\n    running 1 test\n    test tests::a ... FAILED\n\n  stderr ───\n\n    thread 'tests::a' (9) panicked at src/lib.rs:3:9:\n    boom\n\n        PASS [   0.007s] (2/2) wc tests::b\n────────────\n     Summary [   0.022s] 2 tests run: 1 passed, 1 failed, 0 skipped\n        FAIL [   0.006s] (1/2) wc tests::a\nerror: test run failed\n";

    #[test]
    fn failure_with_its_panic() {
        let fp = fingerprint_bytes(FAIL.as_bytes());
        assert_eq!(fp.runner, Some(Runner::Nextest));
        assert_eq!(fp.failures.len(), 1);
        assert_eq!(fp.failures[0].id, "tests::a");
        assert_eq!(fp.failures[0].message, "boom");
    }

    #[test]
    fn old_output_format() {
        let log = "        FAIL [   0.006s] wc tests::a\n\n--- STDOUT:              wc tests::a ---\nrunning 1 test\n--- STDERR:              wc tests::a ---\nthread 'tests::a' panicked at 'boom', src/lib.rs:3:9\n\n------------\n     Summary [   0.022s] 1 test run: 0 passed, 1 failed\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.failures[0].message, "boom");
    }

    #[test]
    fn flaky_is_not_failing_but_a_failed_last_try_is() {
        let flaky = "  TRY 1 FAIL [   0.008s] (───) wc::cli flaky\n  stderr ───\n    thread 'flaky' (1) panicked at tests/cli.rs:37:9:\n    first try fails\n\n  TRY 2 PASS [   0.008s] (6/6) wc::cli flaky\n────────────\n     Summary [   0.033s] 6 tests run: 6 passed (1 flaky), 0 skipped\n   FLAKY 2/3 [   0.008s] (6/6) wc::cli flaky\n";
        let fp = fingerprint_bytes(flaky.as_bytes());
        assert_eq!(fp.signature, None, "{fp:?}");
        assert_eq!(fp.runner, Some(Runner::Nextest));
        let failing = flaky
            .replace("TRY 2 PASS", "TRY 2 FAIL")
            .replace("   FLAKY 2/3", "  TRY 2 FAIL");
        let fp = fingerprint_bytes(failing.as_bytes());
        assert_eq!(fp.failures.len(), 1);
        assert_eq!(fp.failures[0].message, "first try fails");
    }

    #[test]
    fn timeouts_and_signals() {
        let log = "     TIMEOUT [  60.002s] wc tests::slow\n     SIGSEGV [   0.100s] wc tests::segv\n────────────\n";
        let fp = fingerprint_bytes(log.as_bytes());
        let kinds: Vec<_> = fp
            .failures
            .iter()
            .map(|f| (f.id.as_str(), f.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("tests::segv", FailureKind::Crash),
                ("tests::slow", FailureKind::Timeout)
            ]
        );
    }
}
