//! What the runners' table tests share.

use super::{FailureKind, Fingerprint, Runner, fingerprint_bytes};

/// The fingerprint of `log`, which must be recognised as `runner`'s.
#[track_caller]
pub(super) fn fingerprint_as(log: impl AsRef<[u8]>, runner: Runner) -> Fingerprint {
    let fp = fingerprint_bytes(log.as_ref());
    assert_eq!(fp.runner, Some(runner));
    fp
}

/// Each failure as (id, kind, message), in order.
pub(super) fn triples(fp: &Fingerprint) -> Vec<(&str, FailureKind, &str)> {
    fp.failures
        .iter()
        .map(|f| (f.id.as_str(), f.kind, f.message.as_str()))
        .collect()
}
