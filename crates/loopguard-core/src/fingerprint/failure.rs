//! What a fingerprint is made of: failures, their kind, and the runner they came from.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

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

/// The tool whose output a failure was recognised in (docs/contract.md, `fingerprint --json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Runner {
    /// `cargo test` / libtest, and rustc errors from any cargo command.
    Cargo,
    Nextest,
    Pytest,
    Jest,
    Vitest,
    Mocha,
    /// `go test`, and go build errors.
    Go,
    /// JUnit XML whose producer is not one of the runners above (Maven Surefire, Gradle...).
    Junit,
    /// Error-looking lines of any other tool, and TypeScript's `tsc`.
    Generic,
    /// `dotnet test` (VSTest and Microsoft.Testing.Platform), TRX, xUnit.net and NUnit XML.
    Dotnet,
    /// `node --test` (spec and TAP reporters).
    Node,
    /// Playwright Test.
    Playwright,
    /// `bun test`.
    Bun,
    /// `deno test`.
    Deno,
    /// Python's `unittest`.
    Unittest,
    Rspec,
    Minitest,
    Phpunit,
    /// Elixir's ExUnit (`mix test`).
    Exunit,
    /// CMake's `ctest`.
    Ctest,
    /// TAP from `prove` (Perl's harness) or any TAP producer.
    Tap,
    /// GoogleTest's console.
    Gtest,
}

impl Runner {
    pub const ALL: [Runner; 22] = [
        Runner::Cargo,
        Runner::Nextest,
        Runner::Pytest,
        Runner::Jest,
        Runner::Vitest,
        Runner::Mocha,
        Runner::Go,
        Runner::Junit,
        Runner::Generic,
        Runner::Dotnet,
        Runner::Node,
        Runner::Playwright,
        Runner::Bun,
        Runner::Deno,
        Runner::Unittest,
        Runner::Rspec,
        Runner::Minitest,
        Runner::Phpunit,
        Runner::Exunit,
        Runner::Ctest,
        Runner::Tap,
        Runner::Gtest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Runner::Cargo => "cargo",
            Runner::Nextest => "nextest",
            Runner::Pytest => "pytest",
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
            Runner::Mocha => "mocha",
            Runner::Go => "go",
            Runner::Junit => "junit",
            Runner::Generic => "generic",
            Runner::Dotnet => "dotnet",
            Runner::Node => "node",
            Runner::Playwright => "playwright",
            Runner::Bun => "bun",
            Runner::Deno => "deno",
            Runner::Unittest => "unittest",
            Runner::Rspec => "rspec",
            Runner::Minitest => "minitest",
            Runner::Phpunit => "phpunit",
            Runner::Exunit => "exunit",
            Runner::Ctest => "ctest",
            Runner::Tap => "tap",
            Runner::Gtest => "gtest",
        }
    }
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A runner name that is not one of [`Runner::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRunner(pub String);

impl fmt::Display for UnknownRunner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown runner {:?} (expected one of ", self.0)?;
        for (i, r) in Runner::ALL.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{r}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownRunner {}

impl FromStr for Runner {
    type Err = UnknownRunner;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Runner::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRunner(s.to_string()))
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
    fn runner_round_trips_through_its_name() {
        for r in Runner::ALL {
            assert_eq!(r.to_string().parse::<Runner>().unwrap(), r);
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::Value::String(r.to_string())
            );
        }
        let err = "spec".parse::<Runner>().unwrap_err();
        assert!(err.to_string().contains("\"spec\""));
        assert!(err.to_string().contains("cargo, nextest"), "{err}");
        assert!(err.to_string().ends_with("ctest, tap, gtest)"), "{err}");
    }

    #[test]
    fn kind_serialises_lowercase() {
        assert_eq!(
            serde_json::to_string(&FailureKind::Timeout).unwrap(),
            "\"timeout\""
        );
        assert_eq!(FailureKind::Build.to_string(), "build");
    }
}
