//! Where parsers put what they recognise: failures (merged per runner and id), and which
//! runners showed up at all (for a passing log's `runner`).

use super::bytes::RunBytes;
use super::ghactions::CleanLine;
use super::normalize::{normalize_id, normalize_message};
use super::signature::Fingerprint;
use super::{Failure, FailureKind, Runner};
use std::collections::HashMap;

/// At most this many distinct failures are kept; a log with more still fingerprints
/// deterministically (the first ones win), in bounded memory.
pub(crate) const MAX_FAILURES: usize = 10_000;

/// At most this many distinct failing-looking lines make a generic signature (the first
/// ones: the cause comes before its consequences).
pub(crate) const MAX_GENERIC_LINES: usize = 32;

/// What every text parser is: a small state machine over clean lines.
pub(crate) trait LineParser {
    /// Handles one line. Lines reach the parser only when they hold a trigger substring
    /// ([`super::stream`]) or while some parser wants every line.
    fn line(&mut self, line: &CleanLine, out: &mut Collector);
    /// `true` while inside a block where every line matters (a failure's output).
    fn wants_every_line(&self) -> bool {
        false
    }
    /// Inside the runner's own run, while only its passing lines go by: the bytes (1 to 4)
    /// that every line it must still see holds (its failures, the end of the run, a
    /// GitHub Actions marker). The front end then looks for these bytes alone. A parser
    /// that gets a line in this state it cannot call harmless must stop narrowing.
    fn run_bytes(&self) -> Option<&'static RunBytes> {
        None
    }
    /// A line the narrowed scan found ([`Self::run_bytes`]): handles it, and says whether it
    /// was the runner's own (its failure, the end of its run), which no other parser needs.
    fn run_line(&mut self, line: &CleanLine, out: &mut Collector) -> bool {
        self.line(line, out);
        false
    }
    /// End of input: report what is still pending.
    fn finish(&mut self, _out: &mut Collector) {}
}

#[derive(Debug, Clone)]
struct Draft {
    id: String,
    kind: FailureKind,
    message: Option<String>,
    runner: Runner,
    /// From the generic fallback: dropped when any runner recognised a failure.
    fallback: bool,
    /// Withdrawn (a test that passed on a retry).
    withdrawn: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Collector {
    drafts: Vec<Draft>,
    /// (runner, id) -> index of the test failure; build/error failures are keyed with their
    /// message too, since one file can hold several compile errors.
    index: HashMap<(Runner, String, Option<String>), usize>,
    /// Runners recognised in the log, in the order first seen.
    seen: Vec<Runner>,
    /// The failing-looking lines, normalised and distinct, for the generic signature; else
    /// the last lines of the output ([`Collector::last_lines`]).
    generic: Vec<String>,
    /// A line said that tests failed (a count, a verdict).
    said_failed: bool,
    /// A draft is not the fallback's (`drafts` never loses one).
    any_specific: bool,
}

impl Collector {
    /// Records that `runner`'s output is in the log (a passing log still names its runner).
    pub(crate) fn saw(&mut self, runner: Runner) {
        if !self.seen.contains(&runner) {
            self.seen.push(runner);
        }
    }

    /// Reports a failure of test (or file) `id`. A second report of the same id fills in a
    /// missing message and can make a test failure a crash or a timeout; the first message
    /// wins, so the result does not depend on later noise.
    pub(crate) fn fail(
        &mut self,
        runner: Runner,
        kind: FailureKind,
        id: &str,
        message: Option<&str>,
    ) {
        self.report(runner, kind, id, message, false);
    }

    /// Reports an error line of the generic fallback.
    pub(crate) fn fallback(&mut self, kind: FailureKind, id: &str, message: &str) {
        self.report(Runner::Generic, kind, id, Some(message), true);
    }

    fn report(
        &mut self,
        runner: Runner,
        kind: FailureKind,
        id: &str,
        message_in: Option<&str>,
        fallback: bool,
    ) {
        self.saw(runner);
        let id = normalize_id(id);
        let per_message = matches!(kind, FailureKind::Build) || fallback;
        // A test's message is normalised only when it is kept: a failure-dense log reports
        // many tests again (a closing list) and more than are kept.
        let normalized = |m: Option<&str>| m.map(normalize_message).filter(|m| !m.is_empty());
        let mut message = None;
        if per_message {
            message = normalized(message_in);
        }
        let key = (runner, id, if per_message { message.clone() } else { None });
        if let Some(&i) = self.index.get(&key) {
            let draft = &mut self.drafts[i];
            draft.withdrawn = false;
            if draft.message.is_none() {
                draft.message = if per_message {
                    message
                } else {
                    normalized(message_in)
                };
            }
            if draft.kind == FailureKind::Test
                && matches!(kind, FailureKind::Crash | FailureKind::Timeout)
            {
                draft.kind = kind;
            }
            return;
        }
        if self.drafts.len() >= MAX_FAILURES {
            return;
        }
        if !per_message {
            message = normalized(message_in);
        }
        self.any_specific |= !fallback;
        self.index.insert(key.clone(), self.drafts.len());
        self.drafts.push(Draft {
            id: key.1,
            kind,
            message,
            runner,
            fallback,
            withdrawn: false,
        });
    }

    /// Fills in the message of an already reported test failure (no-op when there is none
    /// or it has one).
    pub(crate) fn add_message(&mut self, runner: Runner, id: &str, message: &str) {
        let key = (runner, normalize_id(id), None);
        if let Some(&i) = self.index.get(&key) {
            let draft = &mut self.drafts[i];
            if draft.message.is_none() {
                let m = normalize_message(message);
                if !m.is_empty() {
                    draft.message = Some(m);
                }
            }
        }
    }

    /// A failing-looking line, for the generic signature.
    pub(crate) fn generic_line(&mut self, line: &str) {
        if self.generic.len() >= MAX_GENERIC_LINES {
            return;
        }
        let m = normalize_message(line);
        if !m.is_empty() && !self.generic.contains(&m) {
            self.generic.push(m);
        }
    }

    /// Whether a runner reported a failure of its own (withdrawn or not): then the
    /// generic signature and the error lines are not used.
    pub(crate) fn has_specific(&self) -> bool {
        self.any_specific
    }

    /// A line said that tests failed: the run failed, and it is a test result.
    pub(crate) fn said_failed(&mut self) {
        self.said_failed = true;
    }

    /// The output's last lines, for the generic signature of a failing run with no
    /// failing-looking line.
    pub(crate) fn last_lines(&mut self, lines: &[String]) {
        if self.generic.is_empty() {
            for line in lines {
                self.generic_line(line);
            }
        }
    }

    /// Withdraws a test failure: the test passed on a retry (flaky, not failing).
    pub(crate) fn withdraw(&mut self, runner: Runner, id: &str) {
        if let Some(&i) = self.index.get(&(runner, normalize_id(id), None)) {
            self.drafts[i].withdrawn = true;
        }
    }

    /// Whether `runner` already reported test `id` (and did not withdraw it).
    pub(crate) fn has(&self, runner: Runner, id: &str) -> bool {
        self.index
            .get(&(runner, normalize_id(id), None))
            .is_some_and(|&i| !self.drafts[i].withdrawn)
    }

    pub(crate) fn into_fingerprint(self) -> Fingerprint {
        // A runner that reported a failure, even one that then passed on a retry, said what
        // happened: the error lines of its report (a flaky test's) are not another failure.
        let any_specific = self.any_specific;
        debug_assert_eq!(any_specific, self.drafts.iter().any(|d| !d.fallback));
        // A parser recognised something: a failure of its own (withdrawn or not) or a
        // runner's summary; the generic fallback's error lines alone are no test result.
        let recognised = self.drafts.iter().any(|d| !d.fallback)
            || self.seen.iter().any(|r| *r != Runner::Generic)
            || self.said_failed;
        let generic: Vec<Failure> = self.generic.into_iter().map(generic_failure).collect();
        let mut failures: Vec<Failure> = self
            .drafts
            .into_iter()
            .filter(|d| !d.withdrawn && (!d.fallback || !any_specific))
            .map(|d| Failure {
                message: d
                    .message
                    .unwrap_or_else(|| default_message(d.kind).to_string()),
                id: d.id,
                kind: d.kind,
                runner: d.runner,
            })
            .collect();
        // A failing run no runner claims (and with no error line): what it says failed.
        if failures.is_empty() && !any_specific && self.said_failed {
            failures.clone_from(&generic);
        }
        let fallback_runner = self.seen.into_iter().find(|r| *r != Runner::Generic);
        let mut fp = Fingerprint::from_failures(failures, fallback_runner);
        fp.recognised = recognised;
        fp.generic = if any_specific { Vec::new() } else { generic };
        fp
    }
}

/// One line of a generic signature (already normalised).
pub(crate) fn generic_failure(message: String) -> Failure {
    Failure {
        id: "output".to_string(),
        kind: FailureKind::Generic,
        message,
        runner: Runner::Generic,
    }
}

fn default_message(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Test => "test failed",
        FailureKind::Build => "build failed",
        FailureKind::Crash => "crashed",
        FailureKind::Timeout => "timed out",
        FailureKind::Error => "error",
        FailureKind::Generic => "failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_message_wins_and_fills_in() {
        let mut c = Collector::default();
        c.fail(Runner::Cargo, FailureKind::Test, "t", None);
        c.fail(Runner::Cargo, FailureKind::Test, "t", Some("boom 1"));
        c.fail(Runner::Cargo, FailureKind::Test, "t", Some("bang"));
        let fp = c.into_fingerprint();
        assert_eq!(fp.failures.len(), 1);
        assert_eq!(fp.failures[0].message, "boom <n>");
    }

    #[test]
    fn build_errors_per_message() {
        let mut c = Collector::default();
        c.fail(
            Runner::Cargo,
            FailureKind::Build,
            "src/lib.rs",
            Some("error[E0308]: a"),
        );
        c.fail(
            Runner::Cargo,
            FailureKind::Build,
            "src/lib.rs",
            Some("error[E0425]: b"),
        );
        c.fail(
            Runner::Cargo,
            FailureKind::Build,
            "src/lib.rs",
            Some("error[E0308]: a"),
        );
        assert_eq!(c.into_fingerprint().failures.len(), 2);
    }

    #[test]
    fn fallback_only_without_specific_failures() {
        let mut c = Collector::default();
        c.fallback(FailureKind::Error, "error", "error: something");
        assert_eq!(c.into_fingerprint().failures.len(), 1);
        let mut c = Collector::default();
        c.fallback(FailureKind::Error, "error", "error: something");
        c.fail(Runner::Go, FailureKind::Test, "TestX", Some("x"));
        let fp = c.into_fingerprint();
        assert_eq!(fp.failures.len(), 1);
        assert_eq!(fp.runner, Some(Runner::Go));
    }

    #[test]
    fn a_flaky_tests_error_line_is_no_failure_of_its_own() {
        let mut c = Collector::default();
        c.fail(
            Runner::Playwright,
            FailureKind::Test,
            "t",
            Some("Error: expect"),
        );
        c.fallback(FailureKind::Error, "error", "Error: expect(received)");
        c.withdraw(Runner::Playwright, "t");
        assert_eq!(c.into_fingerprint().signature, None);
    }

    #[test]
    fn withdrawn_failures_vanish_and_passing_logs_keep_the_runner() {
        let mut c = Collector::default();
        c.saw(Runner::Nextest);
        c.fail(
            Runner::Nextest,
            FailureKind::Test,
            "flaky",
            Some("first try fails"),
        );
        c.withdraw(Runner::Nextest, "flaky");
        assert!(!c.has(Runner::Nextest, "flaky"));
        let fp = c.into_fingerprint();
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Nextest));
    }

    #[test]
    fn crash_upgrades_a_test_failure() {
        let mut c = Collector::default();
        c.fail(Runner::Go, FailureKind::Test, "TestX", None);
        c.fail(Runner::Go, FailureKind::Crash, "TestX", Some("panic: boom"));
        let fp = c.into_fingerprint();
        assert_eq!(fp.failures[0].kind, FailureKind::Crash);
        assert_eq!(fp.failures[0].message, "panic: boom");
    }
}
