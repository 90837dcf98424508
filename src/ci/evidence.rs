//! Test evidence from fingerprints: what a CI run's logs say about its commit.
//!
//! Pure: the shell reads the files and the job logs and hands in their fingerprints.

use crate::fingerprint::Fingerprint;
use crate::iteration::{Outcome, TestEvidence};

/// Failing test ids kept per iteration: enough to name them, bounded so the sticky
/// comment's state stays small.
pub const MAX_FAILURE_IDS: usize = 10;
/// Longest first error line kept, in characters.
pub const MAX_FIRST_ERROR: usize = 300;

/// The evidence a fingerprint gives, `source` naming the logs or jobs it came from.
/// `None` when nothing in the input was recognised as test output (an empty log, a log of
/// something that ran no tests): that is no evidence, not a pass.
pub fn evidence_from_fingerprint(fp: &Fingerprint, source: &str) -> Option<TestEvidence> {
    if fp.failures.is_empty() && fp.runner.is_none() {
        return None;
    }
    let outcome = if fp.failures.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Fail
    };
    let first_error = fp
        .failures
        .iter()
        .map(|f| f.message.trim())
        .find(|m| !m.is_empty())
        .map(|m| bounded(m, MAX_FIRST_ERROR));
    let failures: Vec<String> = fp
        .failures
        .iter()
        .map(|f| bounded(&f.id, 200))
        .filter(|id| !id.is_empty())
        .take(MAX_FAILURE_IDS)
        .collect();
    Some(TestEvidence {
        outcome,
        signature: fp.signature.clone(),
        failing: (outcome == Outcome::Fail).then_some(fp.failures.len() as u64),
        runner: fp.runner.map(|r| r.as_str().to_owned()),
        command: Some(bounded(source, 200)),
        first_error,
        failures: (!failures.is_empty()).then_some(failures),
    })
}

/// Evidence for a run GitHub says failed whose logs could not be read (expired, never
/// written): a failure without a signature, which breaks a same-error streak rather than
/// extending it.
pub fn unread_failure(source: &str) -> TestEvidence {
    TestEvidence {
        outcome: Outcome::Fail,
        command: Some(bounded(source, 200)),
        ..TestEvidence::default()
    }
}

/// Evidence for a run GitHub says succeeded (no log needs reading).
pub fn passed(source: &str) -> TestEvidence {
    TestEvidence {
        outcome: Outcome::Pass,
        command: Some(bounded(source, 200)),
        ..TestEvidence::default()
    }
}

fn bounded(text: &str, max_chars: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    match flat.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::fingerprint_bytes;

    const CARGO_FAIL: &str = "\
running 2 tests
test tests::adds ... ok
test tests::counts_three_words ... FAILED

failures:

---- tests::counts_three_words stdout ----

thread 'tests::counts_three_words' panicked at src/lib.rs:12:9:
assertion `left == right` failed
  left: 2
 right: 3
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::counts_three_words

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
";

    const CARGO_PASS: &str = "\
running 1 test
test tests::adds ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
";

    #[test]
    fn failing_log_gives_a_failure_with_its_signature() {
        let fp = fingerprint_bytes(CARGO_FAIL.as_bytes());
        let t = evidence_from_fingerprint(&fp, "test.log").unwrap();
        assert_eq!(t.outcome, Outcome::Fail);
        assert_eq!(t.signature, fp.signature);
        assert_eq!(t.signature.as_deref().map(str::len), Some(64));
        assert_eq!(t.failing, Some(1));
        assert_eq!(t.runner.as_deref(), Some("cargo"));
        assert_eq!(t.command.as_deref(), Some("test.log"));
        let ids = t.failures.unwrap();
        assert!(ids[0].contains("counts_three_words"), "{ids:?}");
        assert!(t.first_error.is_some());
    }

    #[test]
    fn passing_log_passes_and_nothing_recognised_is_no_evidence() {
        let fp = fingerprint_bytes(CARGO_PASS.as_bytes());
        let t = evidence_from_fingerprint(&fp, "test.log").unwrap();
        assert_eq!(
            (t.outcome, t.signature, t.failing),
            (Outcome::Pass, None, None)
        );
        let empty = fingerprint_bytes(b"");
        assert_eq!(evidence_from_fingerprint(&empty, "empty.log"), None);
    }

    #[test]
    fn text_is_bounded_and_flat() {
        assert_eq!(bounded("a\nb\u{1b}c", 10), "a b c");
        assert_eq!(bounded(&"x".repeat(20), 5), "xxxxx…");
        assert_eq!(unread_failure("job test").signature, None);
        assert_eq!(passed("job test").outcome, Outcome::Pass);
    }
}
