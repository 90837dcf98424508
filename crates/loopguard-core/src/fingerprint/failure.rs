//! What a fingerprint is made of: failures and their kind (the runner they came from is
//! [`super::runner`]'s).

use super::Runner;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What failed. Part of each failure's hash: a test failing and the build failing are
/// different failures even with the same words.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// A test ran and failed (assertion, panic inside the test, exception).
    #[default]
    Test,
    /// The code did not compile or type-check (rustc, go build, tsc).
    Build,
    /// The test process died: a Go panic, a signal, an abort.
    Crash,
    /// A test or the run exceeded its time limit.
    Timeout,
    /// Anything else that failed: collection/import errors, fixture errors, suites that
    /// failed to load, error lines of an unknown tool.
    Error,
    /// A failing run no parser claims: what its output says failed (its failing-looking
    /// lines, else its last lines), one failure per line (see `generic`).
    Generic,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Test => "test",
            FailureKind::Build => "build",
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
            FailureKind::Error => "error",
            FailureKind::Generic => "generic",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One failure: what failed (`id`), how (`kind`), and the normalised first error line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Failure {
    /// The failing test (`tests::counts_three_words`, `tests/test_x.py::test_y`,
    /// `TestX/sub`), or for build errors the file, normalised.
    pub id: String,
    pub kind: FailureKind,
    /// The normalised first error line: one line, at most
    /// [`normalize::MAX_MESSAGE_CHARS`](super::normalize) characters.
    pub message: String,
    /// Not part of the hash: the same failure seen through two tools is the same failure.
    pub runner: Runner,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_serialises_lowercase() {
        assert_eq!(
            serde_json::to_string(&FailureKind::Timeout).unwrap(),
            "\"timeout\""
        );
        assert_eq!(FailureKind::Build.to_string(), "build");
    }
}
