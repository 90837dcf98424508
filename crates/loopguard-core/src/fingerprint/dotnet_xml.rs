//! The XML reports of xUnit.net (v2 format, `<assemblies>`) and NUnit 3 (`<test-run>`).
//!
//! xUnit.net: `<test name="Ns.Class.Method" result="Fail">` with `<failure><message>`; an
//! `<errors><error name=".." type="assembly-cleanup">` is an error outside the tests.
//! NUnit: `<test-case name="Method(3)" fullname="Ns.Class.Method(3)" result="Failed">`
//! with `<failure><message>`; suites only sum up their cases. Ids are the names
//! `dotnet test` shows for the same tests (xUnit.net's full name; NUnit's test name), and
//! the message is the first line of `<message>`, so a run's console and its report agree.

use super::collect::Collector;
use super::signature::Fingerprint;
use super::trx::{first_line, push_bounded};
use super::xml::{XmlSink, attr};
use super::{FailureKind, Runner};

/// Which report: the element names differ, the reading does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Xunit,
    Nunit,
}

#[derive(Debug)]
pub(crate) struct DotnetXmlReport {
    dialect: Dialect,
    collector: Collector,
    case: Option<Case>,
    in_message: bool,
}

#[derive(Debug)]
struct Case {
    id: String,
    kind: FailureKind,
    /// NUnit's label, the message when the failure has none (a timeout's).
    label: Option<String>,
    message: Vec<u8>,
}

impl DotnetXmlReport {
    pub(crate) fn new(dialect: Dialect) -> Self {
        DotnetXmlReport {
            dialect,
            collector: Collector::default(),
            case: None,
            in_message: false,
        }
    }

    pub(crate) fn finish(mut self) -> Fingerprint {
        self.end_case();
        self.collector.into_fingerprint()
    }

    fn end_case(&mut self) {
        if let Some(c) = self.case.take() {
            let message = first_line(&c.message).or(c.label);
            self.collector
                .fail(Runner::Dotnet, c.kind, &c.id, message.as_deref());
        }
    }

    /// The element that holds one test, and whether it failed.
    fn case_of(&self, name: &str, attrs: &[(String, String)]) -> Option<Case> {
        match (self.dialect, name) {
            (Dialect::Xunit, "test") if attr(attrs, "result") == Some("Fail") => Some(Case {
                id: attr(attrs, "name")?.to_string(),
                kind: FailureKind::Test,
                label: None,
                message: Vec::new(),
            }),
            // Failures outside the tests: a fixture's or an assembly's cleanup.
            (Dialect::Xunit, "error") => Some(Case {
                id: attr(attrs, "name")
                    .or_else(|| attr(attrs, "type"))?
                    .to_string(),
                kind: FailureKind::Error,
                label: None,
                message: Vec::new(),
            }),
            (Dialect::Nunit, "test-case") if attr(attrs, "result") == Some("Failed") => {
                let label = attr(attrs, "label").filter(|l| *l != "Error" && !l.is_empty());
                let timeout = label.is_some_and(|l| l.contains("Timeout"));
                Some(Case {
                    id: attr(attrs, "name")?.to_string(),
                    kind: if timeout {
                        FailureKind::Timeout
                    } else {
                        FailureKind::Test
                    },
                    label: label.map(str::to_string),
                    message: Vec::new(),
                })
            }
            _ => None,
        }
    }
}

impl XmlSink for DotnetXmlReport {
    fn start(&mut self, name: &str, attrs: &[(String, String)], self_closing: bool) {
        if matches!(name, "assemblies" | "assembly" | "test-run") {
            self.collector.saw(Runner::Dotnet);
            return;
        }
        if let Some(case) = self.case_of(name, attrs) {
            self.end_case();
            self.case = Some(case);
            if self_closing {
                self.end_case();
            }
            return;
        }
        if name == "message" && self.case.is_some() {
            self.in_message = !self_closing;
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "test" | "test-case" | "error" => self.end_case(),
            "message" => self.in_message = false,
            _ => {}
        }
    }

    fn text(&mut self, bytes: &[u8]) {
        if self.in_message
            && let Some(c) = &mut self.case
        {
            push_bounded(&mut c.message, bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    #[test]
    fn xunit_tests_and_errors() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?>
<assemblies timestamp="11/25/2026 10:00:00">
  <assembly name="/src/Wc.Tests/bin/Debug/net8.0/Wc.Tests.dll" test-framework="xUnit.net 2.9.2.0" total="3" passed="1" failed="1">
    <errors>
      <error type="assembly-cleanup" name="Wc.Tests.DbFixture">
        <failure exception-type="System.IO.IOException"><message><![CDATA[System.IO.IOException : The process cannot access the file]]></message></failure>
      </error>
    </errors>
    <collection total="2" passed="1" failed="1" name="Test collection for Wc.Tests.WordCountTests">
      <test name="Wc.Tests.WordCountTests.CountsThreeWords" type="Wc.Tests.WordCountTests" method="CountsThreeWords" time="0.0050000" result="Fail">
        <failure exception-type="Xunit.Sdk.EqualException">
          <message><![CDATA[Assert.Equal() Failure: Values differ
Expected: 3
Actual:   4]]></message>
          <stack-trace><![CDATA[   at Wc.Tests.WordCountTests.CountsThreeWords() in /src/WordCountTests.cs:line 12]]></stack-trace>
        </failure>
      </test>
      <test name="Wc.Tests.WordCountTests.Passes" result="Pass" />
    </collection>
  </assembly>
</assemblies>"#;
        let fp = fingerprint_as(xml, Runner::Dotnet);
        assert_eq!(
            triples(&fp),
            [
                (
                    "Wc.Tests.DbFixture",
                    FailureKind::Error,
                    "System.IO.IOException : The process cannot access the file"
                ),
                (
                    "Wc.Tests.WordCountTests.CountsThreeWords",
                    FailureKind::Test,
                    "Assert.Equal() Failure: Values differ"
                ),
            ]
        );
    }

    #[test]
    fn nunit_cases_not_suites() {
        let xml = r#"<?xml version="1.0" encoding="utf-8" standalone="no"?>
<test-run id="0" testcasecount="3" result="Failed" total="3" passed="1" failed="2">
  <test-suite type="TestFixture" name="WordCountTests" fullname="Wc.Tests.WordCountTests" result="Failed">
    <failure><message><![CDATA[One or more child tests had errors]]></message></failure>
    <test-case name="CountsThreeWords" fullname="Wc.Tests.WordCountTests.CountsThreeWords" result="Failed">
      <failure>
        <message><![CDATA[  Expected: 3
  But was:  4
]]></message>
      </failure>
    </test-case>
    <test-case name="Slow" fullname="Wc.Tests.WordCountTests.Slow" result="Failed" label="Test exceeded Timeout value 100ms.">
      <failure />
    </test-case>
    <test-case name="Passes" fullname="Wc.Tests.WordCountTests.Passes" result="Passed" />
  </test-suite>
</test-run>"#;
        let fp = fingerprint_as(xml, Runner::Dotnet);
        assert_eq!(
            triples(&fp),
            [
                ("CountsThreeWords", FailureKind::Test, "Expected: <n>"),
                (
                    "Slow",
                    FailureKind::Timeout,
                    "Test exceeded Timeout value <dur>."
                ),
            ]
        );
    }
}
