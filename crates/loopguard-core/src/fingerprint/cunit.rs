//! CUnit's basic interface (`CU_basic_run_tests`, normal and verbose modes).
//!
//! Normal mode names each failing test once, `Suite S, Test T had failures:`, and verbose
//! mode as it runs it, `Suite: S` then `  Test: T ...FAILED`; both list its failed
//! assertions below, `    1. file:line  - CU_ASSERT_EQUAL(a,b)`.
//! The id is `S: T` (the suite alone for a suite's failure), the message the first listed
//! assertion. A suite whose initialisation failed is `WARNING - Suite initialization failed
//! for 'S'.` (its tests do not run): an error of the suite. `Run Summary:`'s `tests` and `suites` rows say whether any failed. The silent
//! mode prints only that summary: what failed is not in the output (the generic signature
//! of a failing run reads it).

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "cunit" };

pub(crate) const TRIGGERS: &[&str] = &[
    " had failures:",
    "Suite: ",
    "  Test: ",
    "Run Summary:",
    "CUnit - A unit testing framework",
    "Suite initialization failed for '",
    "Suite cleanup failed for '",
];

/// `    1. tests.c:8  - CU_ASSERT_EQUAL(count_words("one two three"),3)`.
static ASSERTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s+\d+\. .*?:\d+\s+- (.*)$").expect("because it is valid"));
/// `Suite S, Test T had failures:` or `Suite S had failures:`.
static HAD_FAILURES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Suite (.*?)(?:, Test (.*))? had failures:$").expect("because it is valid")
});
/// A row of the run summary: `tests      5      5      3      2        0`.
static ROW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(suites|tests|asserts)\s+\d+\s+\d+\s+(?:\d+|n/a)\s+(\d+)\s+(?:\d+|n/a)$")
        .expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct CunitParser {
    /// After CUnit's banner or its `Run Summary:`: the summary rows are CUnit's.
    seen: bool,
    /// The suite of verbose mode's `Suite:` line.
    suite: Option<String>,
    /// The failing test whose assertions are listed next, until a line that is not one.
    failing: Option<String>,
    /// Inside `Run Summary:`.
    summary: bool,
}

impl LineParser for CunitParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(id) = self.failing.take() {
            if let Some(c) = ASSERTION.captures(text) {
                out.fail(
                    Runner::Cunit,
                    FailureKind::Test,
                    &id,
                    Some(&cut_message(c[1].trim())),
                );
                self.failing = Some(id);
                return;
            }
            out.fail(Runner::Cunit, FailureKind::Test, &id, None);
        }
        if self.summary {
            match ROW.captures(text.trim()) {
                Some(c) => {
                    if &c[1] != "asserts" && &c[2] != "0" {
                        out.said_failed();
                    }
                    return;
                }
                None if text.trim_start().starts_with("Type ") => return,
                None => self.summary = false,
            }
        }
        if let Some((suite, what)) = suite_failed(text) {
            out.saw(Runner::Cunit);
            out.fail(Runner::Cunit, FailureKind::Error, suite, Some(what));
        } else if text.contains("CUnit - A unit testing framework") {
            self.seen = true;
        } else if text.starts_with("Run Summary:") {
            out.saw(Runner::Cunit);
            self.summary = true;
            self.suite = None;
        } else if let Some(suite) = text.strip_prefix("Suite: ") {
            self.suite = Some(suite.trim().to_string());
        } else if let Some(c) = HAD_FAILURES.captures(text) {
            self.failing = Some(match c.get(2) {
                Some(test) => format!("{}: {}", &c[1], test.as_str()),
                None => c[1].to_string(),
            });
        } else if let (Some(test), Some(suite)) = (
            text.strip_prefix("  Test: ")
                .and_then(|t| t.strip_suffix(" ...FAILED")),
            &self.suite,
        ) {
            self.failing = Some(format!("{suite}: {test}"));
        }
    }

    fn wants_every_line(&self) -> bool {
        self.failing.is_some() || self.summary
    }

    fn finish(&mut self, out: &mut Collector) {
        if let Some(id) = self.failing.take() {
            out.fail(Runner::Cunit, FailureKind::Test, &id, None);
        }
    }
}

/// `WARNING - Suite initialization failed for 'stock'.` (or cleanup): the suite and what
/// failed.
fn suite_failed(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim().strip_prefix("WARNING - ")?;
    let (what, suite) = rest.split_once(" for '")?;
    let suite = suite.strip_suffix("'.")?;
    what.starts_with("Suite ").then_some((suite, what))
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    const SUMMARY: &str = "Run Summary:    Type  Total    Ran Passed Failed Inactive\n\
        \x20             suites      1      1    n/a      0        0\n\
        \x20              tests      3      3      1      2        0\n\
        \x20            asserts      3      3      1      2      n/a\n\nElapsed time =    0.000 seconds\n";

    #[test]
    fn normal_and_verbose_modes_are_one_failure() {
        let normal = format!(
            "\n\n     CUnit - A unit testing framework for C - Version 2.1-3\n\n\n\
             Suite Stock, Test totals had failures:\n    1. cu.c:4  - CU_ASSERT_EQUAL(total(3),3)\n\
             Suite Stock, Test opens report had failures:\n    1. cu.c:6  - CU_ASSERT_PTR_NOT_NULL_FATAL(f)\n\n{SUMMARY}"
        );
        let verbose = format!(
            "\n\n     CUnit - A unit testing framework for C - Version 2.1-3\n\n\nSuite: Stock\n\
             \x20 Test: totals ...FAILED\n    1. cu.c:14  - CU_ASSERT_EQUAL(total(3),3)\n\
             \x20 Test: passes ...passed\n\
             \x20 Test: opens report ...FAILED\n    1. cu.c:16  - CU_ASSERT_PTR_NOT_NULL_FATAL(f)\n\n{SUMMARY}"
        );
        let fp = fingerprint_as(&normal, Runner::Cunit);
        let t = triples(&fp);
        assert_eq!(t.len(), 2, "{}", fp.render_text());
        assert_eq!(t[0].0, "Stock: opens report");
        assert_eq!(
            t[1],
            (
                "Stock: totals",
                FailureKind::Test,
                "CU_ASSERT_EQUAL(total(<n>),<n>)"
            )
        );
        assert_eq!(
            fingerprint_as(&verbose, Runner::Cunit).signature,
            fp.signature
        );
    }

    #[test]
    fn a_passing_run_has_no_signature() {
        let setup = "WARNING - Suite initialization failed for 'stock'.\n";
        let fp = fingerprint_as(setup, Runner::Cunit);
        assert_eq!(
            triples(&fp),
            [("stock", FailureKind::Error, "Suite initialization failed")]
        );
        let passing = SUMMARY.replace("1      2        0", "3      0        0");
        assert_eq!(fingerprint_as(passing, Runner::Cunit).signature, None);
    }
}
