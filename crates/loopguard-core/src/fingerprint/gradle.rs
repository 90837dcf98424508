//! Gradle's console (`gradle test`, `./gradlew build`, any project of a multi-project
//! build), with any `testLogging`.
//!
//! Each failing test is `CountTest > countsThreeWords FAILED` (JUnit 5 adds `()`, a
//! parameterized test its invocation: `CountTest > countsEach(String, int) > [3] a b c
//! FAILED`), then the exception, indented: in the default short format only its class and
//! where it was thrown (`    java.lang.AssertionError at CountTest.java:8`), with
//! `exceptionFormat 'full'` its class and message (`    java.lang.AssertionError:
//! expected:<3> but was:<4>`) and the stack. The message is the exception's class: the
//! one part every format prints, so a failure gives one signature whatever the build's
//! `testLogging` (matched at the test level, README.md). `N tests completed, M failed`
//! closes the task's tests; `BUILD SUCCESSFUL in 4s` says a build passed.
//!
//! A task that fails before its tests (`Execution failed for task ':compileJava'`) is
//! left to the compiler's own error lines (the generic signature).

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "gradle" };

pub(crate) const TRIGGERS: &[&str] = &[" FAILED", " tests completed, ", "BUILD "];

/// A failing test: a JVM class name, then ` > ` and the test's name (and invocation).
static TEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([\p{L}_$][\p{L}\p{N}_$.]*(?: > .+?)+) FAILED$").expect("because it is valid")
});
/// The exception's class, at the start of its line (short or full format).
static EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+([\p{L}_$][\p{L}\p{N}_$]*(?:\.[\p{L}_$][\p{L}\p{N}_$]*)*)(?::| at |$)")
        .expect("because it is valid")
});
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d+ tests? completed, (\d+) failed").expect("because it is valid")
});
static BUILD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^BUILD (?:SUCCESSFUL|FAILED) in \d").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct GradleParser {
    /// The failing test whose exception line comes next.
    pending: Option<String>,
}

impl LineParser for GradleParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(id) = self.pending.take() {
            let exception = EXCEPTION.captures(text);
            let message = exception
                .as_ref()
                .map(|c| c.get(1).map_or("", |m| m.as_str()));
            out.fail(Runner::Gradle, FailureKind::Test, &id, message);
            if exception.is_some() {
                return;
            }
        }
        if let Some(c) = text
            .ends_with(" FAILED")
            .then(|| TEST.captures(text))
            .flatten()
        {
            out.saw(Runner::Gradle);
            self.pending = Some(c[1].to_string());
        } else if let Some(c) = SUMMARY.captures(text) {
            out.saw(Runner::Gradle);
            if &c[1] != "0" {
                out.said_failed();
            }
        } else if BUILD.is_match(text) {
            out.saw(Runner::Gradle);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.pending.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        if let Some(id) = self.pending.take() {
            out.fail(Runner::Gradle, FailureKind::Test, &id, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn short_and_full_exceptions_give_one_signature() {
        let short = "> Task :test\n\nFirstTest > firstWord FAILED\n    org.junit.ComparisonFailure at FirstTest.java:8\n\nCountTest > countsEach(String, int) > [3] a b c d, 4 FAILED\n    org.opentest4j.AssertionFailedError at CountTest.java:23\n\n4 tests completed, 2 failed\n\n> Task :test FAILED\n\nFAILURE: Build failed with an exception.\n\nBUILD FAILED in 8s\n";
        let full = ":test\n\nFirstTest > firstWord FAILED\n    org.junit.ComparisonFailure: expected:<hello[]> but was:<hello[!]>\n        at org.junit.Assert.assertEquals(Assert.java:117)\n\nCountTest > blankIsZero PASSED\n\nCountTest > countsEach(String, int) > [3] a b c d, 4 FAILED\n    org.opentest4j.AssertionFailedError: expected: <4> but was: <5>\n        at CountTest.countsEach(CountTest.java:23)\n\n5 tests completed, 2 failed\n:test FAILED\n";
        let fp = fingerprint_as(short, Runner::Gradle);
        assert_eq!(
            triples(&fp),
            [
                (
                    "CountTest > countsEach(String, int) > [3] a b c d, 4",
                    FailureKind::Test,
                    "org.opentest4j.AssertionFailedError"
                ),
                (
                    "FirstTest > firstWord",
                    FailureKind::Test,
                    "org.junit.ComparisonFailure"
                ),
            ]
        );
        assert_eq!(fingerprint_as(full, Runner::Gradle).signature, fp.signature);
    }

    #[test]
    fn a_task_line_is_no_test() {
        let fp = fingerprint_bytes(
            b"> Task :compileJava FAILED\n:compileJava FAILED\nBUILD FAILED in 2s\n",
        );
        assert!(fp.failures.iter().all(|f| f.runner != Runner::Gradle));
    }

    #[test]
    fn a_passing_build_names_gradle() {
        let fp = fingerprint_bytes(
            b"> Task :test\n\nBUILD SUCCESSFUL in 5s\n4 actionable tasks: 4 executed\n",
        );
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Gradle));
    }
}
