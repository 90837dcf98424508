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
    let outcome = if fp.is_pass() {
        Outcome::Pass
    } else {
        Outcome::Fail
    };
    let mut t = TestEvidence::from_fingerprint(outcome, fp, Some(bounded(source, 200)));
    // Kept in the sticky comment for every iteration of the window: bounded.
    t.first_error = t.first_error.map(|e| bounded(&e, MAX_FIRST_ERROR));
    if let Some(ids) = &mut t.failures {
        ids.truncate(MAX_FAILURE_IDS);
        for id in ids.iter_mut() {
            *id = bounded(id, 200);
        }
    }
    Some(t)
}

/// Evidence for a run GitHub says failed whose logs could not be read (expired, never
/// written): a failure without a signature, which breaks a same-error streak rather than
/// extending it.
pub fn unread_failure(source: &str) -> TestEvidence {
    TestEvidence {
        failing: None,
        command: Some(bounded(source, 200)),
        ..TestEvidence::new(Outcome::Fail)
    }
}

/// Evidence for a run GitHub says succeeded (no log needs reading).
pub fn passed(source: &str) -> TestEvidence {
    TestEvidence {
        command: Some(bounded(source, 200)),
        ..TestEvidence::new(Outcome::Pass)
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

    // Real `cargo test` output (scripts/gen-fixtures.sh).
    const CARGO_FAIL: &str =
        include_str!("../../../../tests/fixtures/logs/cargo/assert-count/plain.log");
    const CARGO_PASS: &str =
        include_str!("../../../../tests/fixtures/logs/cargo/passing/plain.log");

    #[test]
    fn failing_log_gives_a_failure_with_its_signature() {
        let fp = fingerprint_bytes(CARGO_FAIL.as_bytes());
        let t = evidence_from_fingerprint(&fp, "test.log").unwrap();
        assert_eq!(t.outcome, Outcome::Fail);
        assert_eq!(
            t.signature.as_ref().map(crate::ids::Signature::as_str),
            fp.signature.as_deref()
        );
        assert_eq!(t.signature.as_ref().map(|s| s.as_str().len()), Some(64));
        assert_eq!(t.failing, Some(fp.failures.len() as u64));
        assert_eq!(t.runner, Some(crate::fingerprint::Runner::Cargo));
        assert_eq!(t.command.as_deref(), Some("test.log"));
        let ids = t.failures.unwrap();
        assert!(
            ids.iter().any(|i| i.contains("counts_three_words")),
            "{ids:?}"
        );
        assert!(t.first_error.is_some());
    }

    #[test]
    fn passing_log_passes_and_nothing_recognised_is_no_evidence() {
        let fp = fingerprint_bytes(CARGO_PASS.as_bytes());
        let t = evidence_from_fingerprint(&fp, "test.log").unwrap();
        assert_eq!(
            (t.outcome, t.signature, t.failing),
            (Outcome::Pass, None, Some(0))
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
