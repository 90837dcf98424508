//! TRX, the test report of VSTest (`--logger trx`) and of Microsoft.Testing.Platform's TRX
//! extension.
//!
//! Each `<UnitTestResult testName=".." outcome="Failed">` is a failure; its
//! `<ErrorInfo><Message>` holds the message, whose first line is the error (as
//! `dotnet test`'s console shows it under `Error Message:`). `testName` is the name the
//! console shows, so a run's console and its TRX agree. `Timeout` is a timeout,
//! `Aborted`/`Error` an error.

use super::collect::Collector;
use super::signature::Fingerprint;
use super::xml::{XmlSink, attr};
use super::{FailureKind, Runner};

/// The message text kept per result: its first line is what counts.
pub(crate) const MAX_MESSAGE_BYTES: usize = 4096;

#[derive(Debug, Default)]
pub(crate) struct TrxReport {
    collector: Collector,
    result: Option<Result>,
    in_message: bool,
}

#[derive(Debug)]
struct Result {
    id: String,
    kind: FailureKind,
    message: Vec<u8>,
}

impl TrxReport {
    pub(crate) fn finish(mut self) -> Fingerprint {
        self.end_result();
        self.collector.into_fingerprint()
    }

    fn end_result(&mut self) {
        if let Some(r) = self.result.take() {
            let message = first_line(&r.message);
            self.collector
                .fail(Runner::Dotnet, r.kind, &r.id, message.as_deref());
        }
    }
}

/// The first non-blank line of a message, trimmed.
pub(crate) fn first_line(bytes: &[u8]) -> Option<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// Appends message text, bounded.
pub(crate) fn push_bounded(buf: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_MESSAGE_BYTES.saturating_sub(buf.len());
    buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

impl XmlSink for TrxReport {
    fn start(&mut self, name: &str, attrs: &[(String, String)], self_closing: bool) {
        match name {
            "TestRun" => self.collector.saw(Runner::Dotnet),
            "UnitTestResult" => {
                self.end_result();
                let kind = match attr(attrs, "outcome").unwrap_or("") {
                    "Failed" => FailureKind::Test,
                    "Timeout" => FailureKind::Timeout,
                    "Aborted" | "Error" => FailureKind::Error,
                    _ => return,
                };
                let id = attr(attrs, "testName").unwrap_or("").to_string();
                self.result = Some(Result {
                    id,
                    kind,
                    message: Vec::new(),
                });
                if self_closing {
                    self.end_result();
                }
            }
            "Message" if self.result.is_some() => self.in_message = !self_closing,
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "UnitTestResult" => self.end_result(),
            "Message" => self.in_message = false,
            _ => {}
        }
    }

    fn text(&mut self, bytes: &[u8]) {
        if self.in_message
            && let Some(r) = &mut self.result
        {
            push_bounded(&mut r.message, bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    #[test]
    fn failed_results_and_their_first_message_line() {
        let trx = r#"<?xml version="1.0" encoding="utf-8"?>
<TestRun id="5b1f0f8e-2d1c-4c4e-9a57-0c4d2b7e9a11" name="runner@fv-az 2026-11-25 10:00:00" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <Results>
    <UnitTestResult executionId="1" testId="2" testName="Wc.Tests.WordCountTests.CountsThreeWords" computerName="fv-az123-456" duration="00:00:00.0050000" outcome="Failed">
      <Output>
        <ErrorInfo>
          <Message>Assert.Equal() Failure: Values differ&#xD;
Expected: 3&#xD;
Actual:   4</Message>
          <StackTrace>   at Wc.Tests.WordCountTests.CountsThreeWords() in /src/WordCountTests.cs:line 12</StackTrace>
        </ErrorInfo>
      </Output>
    </UnitTestResult>
    <UnitTestResult executionId="3" testId="4" testName="Wc.Tests.WordCountTests.Passes" outcome="Passed" />
    <UnitTestResult executionId="5" testId="6" testName="Slow" outcome="Timeout" />
  </Results>
</TestRun>"#;
        let fp = fingerprint_as(trx, Runner::Dotnet);
        assert_eq!(
            triples(&fp),
            [
                ("Slow", FailureKind::Timeout, "timed out"),
                (
                    "Wc.Tests.WordCountTests.CountsThreeWords",
                    FailureKind::Test,
                    "Assert.Equal() Failure: Values differ"
                ),
            ]
        );
    }
}
