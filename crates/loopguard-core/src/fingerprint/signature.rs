//! Hashing failures into a signature, and the `fingerprint` text (its `--json` document is
//! `Fingerprint::to_json`, in `documents`).

use super::{Failure, FailureKind, Runner};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Hashed into every failure: bump it whenever parsing or normalisation changes what a
/// failure hashes to, so signatures from two versions never compare equal by accident.
pub const FINGERPRINT_VERSION: &str = "loopguard-fingerprint-v3";

/// The sha256 (64 hex digits) of one failure: version tag, kind, id and message, each
/// terminated by NUL so no two field splits hash alike. The runner is left out: the same
/// failure seen by cargo test and by nextest (or in their JUnit reports) is one failure.
pub fn failure_hash(failure: &Failure) -> String {
    let mut h = Sha256::new();
    for part in [
        FINGERPRINT_VERSION,
        failure.kind.as_str(),
        failure.id.as_str(),
        failure.message.as_str(),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The failures of one run and their signature.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fingerprint {
    /// sha256 of the sorted set of failure hashes; `None` exactly when `failures` is empty.
    pub signature: Option<String>,
    /// The runner most failures came from (ties: the first in [`Runner::ALL`] order); for a
    /// passing log the runner recognised in it, if any.
    pub runner: Option<Runner>,
    /// Sorted by id, kind, message; one entry per distinct failure.
    pub failures: Vec<Failure>,
    /// A test runner's output was recognised — a failure one of the parsers knows, a
    /// runner's summary, JUnit XML — not only error-looking lines of the generic fallback
    /// (`error: no such command: tset`). Output without it is no test result.
    pub recognised: bool,
    /// The input held nothing but whitespace (a command that printed nothing).
    pub silent: bool,
    /// The generic signature's failures, for a failing run no parser claims: the
    /// failing-looking lines of the output, else its last lines (kind
    /// [`FailureKind::Generic`]). [`Fingerprint::with_exit_code`] takes them when the exit
    /// status says the run failed and nothing else was found; empty when a runner reported
    /// a failure.
    pub generic: Vec<Failure>,
}

impl Fingerprint {
    /// Builds the fingerprint of a set of failures: sorts, deduplicates, hashes.
    /// `fallback_runner` is reported when there is no failure to take the runner from.
    pub fn from_failures(mut failures: Vec<Failure>, fallback_runner: Option<Runner>) -> Self {
        failures.sort_by(|a, b| {
            (&a.id, a.kind, &a.message, a.runner).cmp(&(&b.id, b.kind, &b.message, b.runner))
        });
        failures.dedup_by(|b, a| a.id == b.id && a.kind == b.kind && a.message == b.message);
        let runner = dominant_runner(&failures).or(fallback_runner);
        // What only the generic fallback makes: error failures of runner `generic` (tsc's
        // are build failures). The parsers say it exactly; see `Collector`.
        let recognised = fallback_runner.is_some_and(|r| r != Runner::Generic)
            || failures
                .iter()
                .any(|f| f.runner != Runner::Generic || f.kind != FailureKind::Error);
        Fingerprint {
            signature: signature_of(&failures),
            runner,
            failures,
            recognised,
            silent: false,
            generic: Vec::new(),
        }
    }

    /// The fingerprint of a run that exited with `code`: a failing run (not 0) in which no
    /// failure was found is known by what its output says failed (the generic signature),
    /// or, when it printed nothing, by its exit status. A passing status changes nothing.
    pub fn with_exit_code(mut self, code: i32) -> Fingerprint {
        if code == 0 || !self.failures.is_empty() {
            return self;
        }
        let mut failures = std::mem::take(&mut self.generic);
        if failures.is_empty() {
            failures.push(super::collect::generic_failure(format!(
                "no output, exit status {code}"
            )));
        }
        let fp = Fingerprint::from_failures(failures.clone(), self.runner);
        Fingerprint {
            generic: failures,
            recognised: self.recognised,
            silent: self.silent,
            ..fp
        }
    }

    /// `true` when no failure was found (a passing log).
    pub fn is_pass(&self) -> bool {
        self.failures.is_empty()
    }

    /// One run whose evidence is several logs / JUnit files: the union of their failures,
    /// with the signature computed over that union.
    pub fn combine(parts: impl IntoIterator<Item = Fingerprint>) -> Fingerprint {
        let mut failures = Vec::new();
        let mut generic = Vec::new();
        let mut fallback = None;
        let (mut recognised, mut silent) = (false, true);
        for part in parts {
            fallback = fallback.or(part.runner);
            recognised |= part.recognised;
            silent &= part.silent;
            failures.extend(part.failures);
            generic.extend(part.generic);
        }
        // A part's generic signature stands only when no part found a failure of its own.
        if failures.iter().any(|f| f.kind != FailureKind::Generic) {
            failures.retain(|f| f.kind != FailureKind::Generic);
            generic.clear();
        }
        let mut fp = Fingerprint::from_failures(failures, fallback);
        fp.recognised = recognised;
        fp.silent = silent;
        fp.generic = generic;
        fp
    }

    /// Human output of `loopguard fingerprint`. Every line but the first two is indented, so
    /// no text taken from a log can start a line (no `::` workflow command).
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        match &self.signature {
            Some(sig) => {
                let _ = writeln!(out, "signature: {sig}");
            }
            None => out.push_str("signature: none (no failure found)\n"),
        }
        if let Some(runner) = self.runner {
            let _ = writeln!(out, "runner: {runner}");
        }
        if !self.failures.is_empty() {
            let _ = writeln!(out, "failures: {}", self.failures.len());
            for f in &self.failures {
                let _ = writeln!(out, "  {:<7} {}", f.kind.as_str(), f.id);
                if !f.message.is_empty() {
                    let _ = writeln!(out, "          {}", f.message);
                }
            }
        }
        out
    }
}

fn signature_of(failures: &[Failure]) -> Option<String> {
    if failures.is_empty() {
        return None;
    }
    let mut hashes: Vec<String> = failures.iter().map(failure_hash).collect();
    hashes.sort();
    hashes.dedup();
    let mut h = Sha256::new();
    h.update(FINGERPRINT_VERSION.as_bytes());
    for hash in &hashes {
        h.update(b"\n");
        h.update(hash.as_bytes());
    }
    Some(hex(&h.finalize()))
}

fn dominant_runner(failures: &[Failure]) -> Option<Runner> {
    let mut counts: BTreeMap<Runner, usize> = BTreeMap::new();
    for f in failures {
        *counts.entry(f.runner).or_default() += 1;
    }
    // max_by_key keeps the last maximum; iterate in reverse so ties go to the first runner.
    counts
        .into_iter()
        .rev()
        .max_by_key(|&(_, n)| n)
        .map(|(r, _)| r)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn failure(id: &str, message: &str, runner: Runner) -> Failure {
        Failure {
            id: id.into(),
            kind: FailureKind::Test,
            message: message.into(),
            runner,
        }
    }

    #[test]
    fn no_failure_no_signature() {
        let fp = Fingerprint::from_failures(vec![], Some(Runner::Pytest));
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Pytest));
        assert_eq!(fp.to_json()["signature"], Value::Null);
        assert!(fp.render_text().contains("no failure"));
    }

    #[test]
    fn order_and_duplicates_do_not_change_the_signature() {
        let a = failure("a", "boom", Runner::Cargo);
        let b = failure("b", "bang", Runner::Cargo);
        let one = Fingerprint::from_failures(vec![a.clone(), b.clone()], None);
        let two = Fingerprint::from_failures(vec![b.clone(), a.clone(), b.clone()], None);
        assert_eq!(one.signature, two.signature);
        assert_eq!(two.failures.len(), 2);
        assert_eq!(one.signature.as_ref().unwrap().len(), 64);
    }

    #[test]
    fn every_field_but_the_runner_matters() {
        let base = failure("a", "boom", Runner::Cargo);
        let sig = |f: &Failure| Fingerprint::from_failures(vec![f.clone()], None).signature;
        let mut other = base.clone();
        other.runner = Runner::Nextest;
        assert_eq!(sig(&base), sig(&other));
        for change in [
            |f: &mut Failure| f.id.push('x'),
            |f: &mut Failure| f.message.push('x'),
            |f: &mut Failure| f.kind = FailureKind::Build,
        ] {
            let mut other = base.clone();
            change(&mut other);
            assert_ne!(sig(&base), sig(&other));
        }
        // Field boundaries are part of the hash.
        let split1 = failure("ab", "c", Runner::Cargo);
        let split2 = failure("a", "bc", Runner::Cargo);
        assert_ne!(sig(&split1), sig(&split2));
    }

    #[test]
    fn combine_is_the_union() {
        let a = failure("a", "boom", Runner::Jest);
        let b = failure("b", "bang", Runner::Pytest);
        let both = Fingerprint::from_failures(vec![a.clone(), b.clone()], None);
        let combined = Fingerprint::combine([
            Fingerprint::from_failures(vec![a.clone()], None),
            Fingerprint::from_failures(vec![b.clone(), a.clone()], None),
            Fingerprint::from_failures(vec![], Some(Runner::Go)),
        ]);
        assert_eq!(combined.signature, both.signature);
        assert_eq!(combined.failures.len(), 2);
        let passing = Fingerprint::combine([Fingerprint::from_failures(vec![], Some(Runner::Go))]);
        assert_eq!(passing.signature, None);
        assert_eq!(passing.runner, Some(Runner::Go));
    }

    #[test]
    fn runner_is_the_most_frequent_then_the_first() {
        let fp = Fingerprint::from_failures(
            vec![
                failure("a", "x", Runner::Pytest),
                failure("b", "x", Runner::Go),
                failure("c", "x", Runner::Go),
            ],
            None,
        );
        assert_eq!(fp.runner, Some(Runner::Go));
        let tie = Fingerprint::from_failures(
            vec![
                failure("a", "x", Runner::Pytest),
                failure("b", "x", Runner::Cargo),
            ],
            None,
        );
        assert_eq!(tie.runner, Some(Runner::Cargo));
    }

    #[test]
    fn json_is_the_contract_document() {
        let fp = Fingerprint::from_failures(
            vec![failure(
                "test_demo.py::test_counts_three_words",
                "AssertionError: assert <n> == <n>",
                Runner::Pytest,
            )],
            None,
        );
        let v = fp.to_json();
        assert_eq!(v["schema"], 1);
        assert_eq!(v["runner"], "pytest");
        assert_eq!(v["signature"].as_str().unwrap().len(), 64);
        assert_eq!(
            v["failures"][0],
            serde_json::json!({"id": "test_demo.py::test_counts_three_words", "kind": "test",
                   "message": "AssertionError: assert <n> == <n>"})
        );
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4);
    }

    #[test]
    fn text_output_never_starts_a_line_with_log_text() {
        let fp = Fingerprint::from_failures(
            vec![failure(
                "::error::x",
                "::set-output name=a::b",
                Runner::Generic,
            )],
            None,
        );
        for line in fp.render_text().lines().skip(3) {
            assert!(line.starts_with("  "), "{line:?}");
        }
    }
}
