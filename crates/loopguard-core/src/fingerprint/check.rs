//! Check, the C unit testing framework (`srunner_run_all` with `CK_NORMAL`, `CK_VERBOSE` or
//! `CK_ENV` and `CK_VERBOSITY`; forked or `CK_FORK=no`).
//!
//! Each failing test is one line, `file:line:F:tcase:test:iteration: message` (`E` for an
//! error: `(after this point) Received signal 11 (Segmentation fault)`, a crash; `Test
//! timeout expired`, a timeout), after the run's `N%: Checks: N, Failures: N, Errors: N`;
//! a checked fixture's setup that failed is `S`, an error of the test; verbose output adds
//! `...:P:tcase:test:0: Passed` lines. The id is `tcase:test` (a loop
//! test's iteration is left out: its message tells iterations apart), the message what the
//! line says after the place.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "check" };

pub(crate) const TRIGGERS: &[&str] = &[":F:", ":E:", ":S:", "%: Checks: "];

/// `file:line:F:tcase:test:iteration: message`.
static RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\S.*?:\d+:([FES]):([^:\s]+):([^:\s]+):\d+: (.*)$").expect("because it is valid")
});
/// `80%: Checks: 5, Failures: 1, Errors: 0`.
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d+%: Checks: \d+, Failures: (\d+), Errors: (\d+)$").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct CheckParser;

impl LineParser for CheckParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim();
        if let Some(c) = SUMMARY.captures(text) {
            out.saw(Runner::Check);
            if &c[1] != "0" || &c[2] != "0" {
                out.said_failed();
            }
            return;
        }
        let Some(c) = RESULT.captures(text) else {
            return;
        };
        let message = c[4].trim();
        let kind = if &c[1] == "S" {
            FailureKind::Error
        } else if &c[1] == "F" {
            FailureKind::Test
        } else if message.contains("Received signal") {
            FailureKind::Crash
        } else if message.starts_with("Test timeout expired") {
            FailureKind::Timeout
        } else {
            FailureKind::Error
        };
        let id = format!("{}:{}", &c[2], &c[3]);
        out.fail(Runner::Check, kind, &id, Some(&cut_message(message)));
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn failing_lines_name_their_case_and_test() {
        let log = "Running suite(s): Stock\n25%: Checks: 4, Failures: 2, Errors: 1\n\
            chk.c:5:F:Core:test_total:0: Assertion 'total(3) == 3' failed: total(3) == 4, 3 == 3\n\
            chk.c:7:F:Core:test_msg:0: cannot open /tmp/x1/r.csv\n\
            chk.c:8:E:Core:test_crash:0: (after this point) Received signal 11 (Segmentation fault)\n\
            chk.c:9:P:Core:test_pass:0: Passed\n";
        let fp = fingerprint_as(log, Runner::Check);
        let t = triples(&fp);
        assert_eq!(t.len(), 3, "{}", fp.render_text());
        assert_eq!(t[0].0, "Core:test_crash");
        assert_eq!(t[0].1, FailureKind::Crash);
        assert_eq!(t[2].0, "Core:test_total");
        assert!(
            t[2].2.starts_with("Assertion 'total(<n>) == <n>' failed"),
            "{t:?}"
        );
        let setup = "20%: Checks: 5, Failures: 1, Errors: 0\ntests.c:11:S:stock:totals:0: database is locked\n";
        let fp = fingerprint_as(setup, Runner::Check);
        assert_eq!(
            triples(&fp).first().copied(),
            Some(("stock:totals", FailureKind::Error, "database is locked"))
        );
    }

    #[test]
    fn a_passing_run_and_lines_that_are_not_checks() {
        let fp = fingerprint_as(
            "Running suite(s): Stock\n100%: Checks: 4, Failures: 0, Errors: 0\n",
            Runner::Check,
        );
        assert_eq!(fp.signature, None);
        let other = fingerprint_bytes(b"see http://x:F:y:z:0: nothing\nA:F:B\n");
        assert!(other.failures.iter().all(|f| f.runner != Runner::Check));
    }
}
