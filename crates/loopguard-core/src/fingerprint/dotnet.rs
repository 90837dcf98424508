//! `dotnet test`: the console of VSTest (xUnit.net, NUnit, MSTest adapters) and of
//! Microsoft.Testing.Platform (MSTest runner, xUnit.net v3, TUnit, NUnit), and the C#/F#/VB
//! compiler and NuGet errors of the build around them. Reports (TRX, xUnit.net and NUnit
//! XML) are [`super::trx`] and [`super::dotnet_xml`].
//!
//! VSTest: `  Failed NAME [12 ms]`, then `  Error Message:` with the message on the next
//! line and `  Stack Trace:` after it (xUnit.net's adapter also says `[xUnit.net ...] NAME
//! [FAIL]`). Microsoft.Testing.Platform: `failed NAME (12ms)` (`dotnet test` adds `  from
//! X.dll (net8.0|x64)` below it), the message on the next indented line; with MSBuild's
//! integration, `X.cs(32): error test failed:` then `  NAME (12ms):` and the message. NAME
//! is what the test framework calls the test, which is what its TRX report calls it too
//! (xUnit.net: `Ns.Class.Method`; MSTest and NUnit: the method, with its arguments), so
//! the console and the report of one run agree. A test host that crashed is a crash of the
//! run. Compiler errors (`X.cs(12,5): error CS0103: ...`) are build failures of the file.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "dotnet" };

pub(crate) const TRIGGERS: &[&str] = &[
    "Failed ",
    "[FAIL]",
    "failed ",
    "error test failed",
    ": error ",
    "Test Run ",
    "Test run summary",
    "Passed!",
    "Starting test execution",
    "test run was aborted",
    "Test host process crashed",
];

/// The id of the failure of a whole run (a crashed test host).
const RUN_ID: &str = "test run";

static VSTEST_FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*Failed +(\S.*?) \[[^\]]*\d[^\]]*\]$").expect("because it is valid")
});
static XUNIT_FAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[xUnit\.net [\d:.]+\]\s+(\S.*?) \[FAIL\]$").expect("because it is valid")
});
/// The testing platform's duration: `14ms`, `6s 220ms`, `1m 02s 003ms`.
const DURATION: &str = r"(?:\d+(?:ms|h|m|s) ?)+";
static MTP_FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"^failed (\S.*?) \({DURATION}\)$")).expect("because it is valid")
});
static MSBUILD_FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"^\s*(\S.*?)\s\({DURATION}\):$")).expect("because it is valid")
});
static COMPILER_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\S.*?)(?:\(\d+,\d+(?:,\d+,\d+)?\))?\s?: error ([A-Z]{2,}\d+): (.+?)(?: \[[^\]]+\])?$",
    )
    .expect("because it is valid")
});
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?:Failed|Passed)!\s+- Failed:|Test Run (?:Failed|Successful|Aborted)\.|Test run summary: |Starting test execution)")
        .expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct DotnetParser {
    pending: Option<Pending>,
}

#[derive(Debug)]
enum Pending {
    /// VSTest's `Failed NAME`: waiting for `Error Message:` and the line after it.
    Vstest { id: String, in_message: bool },
    /// Microsoft.Testing.Platform's `failed NAME`: its message is the next indented line.
    Mtp { id: String },
    /// MSBuild's `error test failed:`: the name line comes next, then the message.
    Msbuild { id: Option<String> },
}

impl LineParser for DotnetParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        let trimmed = text.trim();
        if let Some(pending) = self.pending.take() {
            match self.pending_line(pending, text, trimmed, out) {
                Step::Keep(still) => {
                    self.pending = Some(still);
                    return;
                }
                Step::Consumed => return,
                Step::Pass => {}
            }
        }
        if let Some(c) = VSTEST_FAILED.captures(text) {
            out.saw(Runner::Dotnet);
            let id = c[1].to_string();
            out.fail(Runner::Dotnet, FailureKind::Test, &id, None);
            self.pending = Some(Pending::Vstest {
                id,
                in_message: false,
            });
        } else if let Some(c) = MTP_FAILED.captures(text) {
            out.saw(Runner::Dotnet);
            let id = c[1].to_string();
            out.fail(Runner::Dotnet, FailureKind::Test, &id, None);
            self.pending = Some(Pending::Mtp { id });
        } else if let Some(c) = XUNIT_FAIL.captures(trimmed) {
            out.fail(Runner::Dotnet, FailureKind::Test, &c[1], None);
        } else if trimmed.ends_with("error test failed:") {
            out.saw(Runner::Dotnet);
            self.pending = Some(Pending::Msbuild { id: None });
        } else if let Some(c) = trimmed
            .contains(": error ")
            .then(|| COMPILER_ERROR.captures(trimmed))
            .flatten()
        {
            let message = format!("error {}: {}", &c[2], &c[3]);
            // The same file on every OS: Windows' separators are `/` too.
            let file = c[1].replace('\\', "/");
            out.fail(Runner::Dotnet, FailureKind::Build, &file, Some(&message));
        } else if let Some(reason) = trimmed
            .split_once("The active test run was aborted. Reason: ")
            .map(|(_, r)| r)
        {
            out.fail(Runner::Dotnet, FailureKind::Crash, RUN_ID, Some(reason));
        } else if SUMMARY.is_match(trimmed) {
            out.saw(Runner::Dotnet);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.pending.is_some()
    }

    fn finish(&mut self, _out: &mut Collector) {
        self.pending = None;
    }
}

/// What one line after a failure's header did.
enum Step {
    /// More of the failure follows.
    Keep(Pending),
    /// The failure is told; the line was its.
    Consumed,
    /// The failure is told; the line is not its (the next test's, say).
    Pass,
}

impl DotnetParser {
    fn pending_line(
        &mut self,
        pending: Pending,
        text: &str,
        trimmed: &str,
        out: &mut Collector,
    ) -> Step {
        match pending {
            Pending::Vstest { id, in_message } => {
                if trimmed.is_empty() {
                    return Step::Keep(Pending::Vstest { id, in_message });
                }
                if !in_message {
                    return match trimmed {
                        "Error Message:" => Step::Keep(Pending::Vstest {
                            id,
                            in_message: true,
                        }),
                        // No message: a bare `Assert.Fail()`, or the next test.
                        _ => Step::Pass,
                    };
                }
                if trimmed == "Stack Trace:" || trimmed.starts_with("Standard Output") {
                    return Step::Pass;
                }
                let (kind, message) = kind_of(trimmed);
                out.fail(Runner::Dotnet, kind, &id, Some(&message));
                Step::Consumed
            }
            Pending::Mtp { id } => {
                let indented = text.starts_with(' ');
                if trimmed.is_empty() || indented && trimmed.starts_with("from ") {
                    return Step::Keep(Pending::Mtp { id });
                }
                if !indented || trimmed.starts_with("at ") {
                    return Step::Pass;
                }
                let (kind, message) = kind_of(trimmed);
                out.fail(Runner::Dotnet, kind, &id, Some(&message));
                Step::Consumed
            }
            Pending::Msbuild { id: None } => match MSBUILD_FAILED.captures(text) {
                Some(c) => {
                    let id = c[1].to_string();
                    out.fail(Runner::Dotnet, FailureKind::Test, &id, None);
                    Step::Keep(Pending::Msbuild { id: Some(id) })
                }
                None => Step::Pass,
            },
            Pending::Msbuild { id: Some(id) } => {
                if trimmed.is_empty() {
                    return Step::Keep(Pending::Msbuild { id: Some(id) });
                }
                let (kind, message) = kind_of(trimmed);
                out.fail(Runner::Dotnet, kind, &id, Some(&message));
                Step::Consumed
            }
        }
    }
}

/// A failure's kind from its message: a timeout says so.
fn kind_of(message: &str) -> (FailureKind, String) {
    let lower = message.to_ascii_lowercase();
    let kind = if lower.contains("exceeded execution timeout")
        || lower.contains("test timed out")
        || lower.contains("exceeded timeout value")
    {
        FailureKind::Timeout
    } else {
        FailureKind::Test
    };
    (kind, cut_message(message))
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    const VSTEST: &str = "Test run for /src/Wc.Tests/bin/Debug/net8.0/Wc.Tests.dll (.NETCoreApp,Version=v8.0)\nMicrosoft (R) Test Execution Command Line Tool Version 17.9.0 (x64)\n\nStarting test execution, please wait...\nA total of 1 test files matched the specified pattern.\n[xUnit.net 00:00:00.47]     Wc.Tests.WordCountTests.CountsThreeWords [FAIL]\n  Failed Wc.Tests.WordCountTests.CountsThreeWords [5 ms]\n  Error Message:\n   Assert.Equal() Failure: Values differ\nExpected: 3\nActual:   4\n  Stack Trace:\n     at Wc.Tests.WordCountTests.CountsThreeWords() in /src/Wc.Tests/WordCountTests.cs:line 12\n\nFailed!  - Failed:     1, Passed:     3, Skipped:     0, Total:     4, Duration: 12 ms - Wc.Tests.dll (net8.0)\n";

    const MTP: &str = "xUnit.net v3 Microsoft.Testing.Platform Runner v3.1.0+03a071627b (64-bit .NET 8.0.12)\n\nfailed Wc.Tests.WordCountTests.CountsThreeWords (14ms)\n  Assert.Equal() Failure: Values differ\n  Expected: 3\n  Actual:   4\n    at Wc.Tests.WordCountTests.CountsThreeWords() in /src/Wc.Tests/WordCountTests.cs:12\n\nTest run summary: Failed! - /src/Wc.Tests/bin/Debug/net8.0/Wc.Tests.dll (net8.0|x64)\n  total: 4\n  failed: 1\n  succeeded: 3\n  skipped: 0\n  duration: 310ms\n";

    #[test]
    fn vstest_and_the_testing_platform_agree() {
        let vstest = fingerprint_as(VSTEST, Runner::Dotnet);
        assert_eq!(
            triples(&vstest),
            [(
                "Wc.Tests.WordCountTests.CountsThreeWords",
                FailureKind::Test,
                "Assert.Equal() Failure: Values differ"
            )]
        );
        let mtp = fingerprint_as(MTP, Runner::Dotnet);
        assert_eq!(vstest.signature, mtp.signature);
    }

    #[test]
    fn dotnet_test_on_the_testing_platform_names_the_module() {
        let log = "Running tests from /src/Wc.Tests/bin/Debug/net10.0/Wc.Tests.dll (net10.0|x64)\nfailed Wc.Tests.WordCountTests.CountsThreeWords (33ms)\n  from /src/Wc.Tests/bin/Debug/net10.0/Wc.Tests.dll (net10.0|x64)\n  Assert.Equal() Failure: Values differ\n    at X() in /src/X.cs:12\n/src/Wc.Tests/bin/Debug/net10.0/Wc.Tests.dll (net10.0|x64) failed with 1 error(s) (8s 406ms)\n\nTest run summary: Failed!\n  total: 4\n  failed: 1\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.signature, fingerprint_bytes(MTP.as_bytes()).signature);
    }

    #[test]
    fn msbuild_integration_and_compiler_errors() {
        let log = "EventExtensionsTests.cs(32): error test failed:\n  Store.Tests.EventTests.appends (12ms):\n  Shouldly.ShouldAssertException : \"actual\"\n/src/Wc/WordCount.cs(12,20): error CS0103: The name 'offset' does not exist in the current context [/src/Wc/Wc.csproj]\n";
        let fp = fingerprint_as(log, Runner::Dotnet);
        assert_eq!(
            triples(&fp),
            [
                (
                    "Store.Tests.EventTests.appends",
                    FailureKind::Test,
                    "Shouldly.ShouldAssertException : \"actual\""
                ),
                (
                    "Wc/WordCount.cs",
                    FailureKind::Build,
                    "error CS0103: The name 'offset' does not exist in the current context"
                ),
            ]
        );
    }

    #[test]
    fn a_crashed_test_host_and_timeouts() {
        let log = "The active test run was aborted. Reason: Test host process crashed : Stack overflow.\n  Failed Slow [1 s]\n  Error Message:\n   Test 'Slow' exceeded execution timeout period.\n";
        let fp = fingerprint_as(log, Runner::Dotnet);
        assert_eq!(
            triples(&fp),
            [
                (
                    "Slow",
                    FailureKind::Timeout,
                    "Test 'Slow' exceeded execution timeout period."
                ),
                (
                    "test run",
                    FailureKind::Crash,
                    "Test host process crashed : Stack overflow."
                ),
            ]
        );
    }

    #[test]
    fn a_passing_run_names_dotnet() {
        let fp = fingerprint_bytes(b"Starting test execution, please wait...\nA total of 1 test files matched the specified pattern.\n\nPassed!  - Failed:     0, Passed:     4, Skipped:     0, Total:     4, Duration: 9 ms - Wc.Tests.dll (net8.0)\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Dotnet));
    }
}
