//! JUnit XML reports: Maven Surefire / Gradle, pytest `--junitxml`, jest-junit, vitest's
//! junit reporter, nextest.
//!
//! A `<testcase>` with a `<failure>` (kind test) or `<error>` (kind error) is a failure;
//! one with only `<flakyFailure>`/`<flakyError>` passed on a rerun and is not. The
//! producer is recognised from the root's `name` (`nextest-run`, `pytest tests`,
//! `jest tests`, `vitest tests`); for those, ids and messages are built the way the
//! producer's text log shows them, so a run's JUnit report and its log give one signature.
//! Any other producer is runner `junit`, with `classname.name` ids.

use super::cargo::PanicMessage;
use super::collect::Collector;
use super::jest::jest_id;
use super::pytest::SectionMessage;
use super::signature::Fingerprint;
use super::stream::MAX_LINE_BYTES;
use super::xml::{XmlSink, attr};
use super::{FailureKind, Runner, runner::Descriptor};

pub(crate) const RUNNER: Descriptor = Descriptor { name: "junit" };

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Producer {
    #[default]
    Unknown,
    Nextest,
    Pytest,
    Jest,
    Vitest,
    Other,
}

impl Producer {
    fn from_root_name(name: &str) -> Self {
        match name {
            "nextest-run" => Producer::Nextest,
            "pytest tests" | "pytest" => Producer::Pytest,
            "jest tests" => Producer::Jest,
            "vitest tests" => Producer::Vitest,
            _ => Producer::Other,
        }
    }

    fn runner(self) -> Runner {
        match self {
            Producer::Nextest => Runner::Nextest,
            Producer::Pytest => Runner::Pytest,
            Producer::Jest => Runner::Jest,
            Producer::Vitest => Runner::Vitest,
            Producer::Unknown | Producer::Other => Runner::Junit,
        }
    }
}

/// A JUnit report being read ([`super::report`] hands it the XML events).
#[derive(Debug, Default)]
pub(crate) struct JunitReport {
    producer: Producer,
    collector: Collector,
    case: Option<Case>,
}

#[derive(Debug, Default)]
struct Case {
    classname: String,
    name: String,
    /// The first `<failure>`/`<error>`: its kind and what its body said.
    failure: Option<(FailureKind, Body)>,
    /// Inside that element now.
    in_failure: bool,
}

/// The message of a `<failure>`/`<error>`: its attributes and its text, read line by line.
#[derive(Debug, Default)]
struct Body {
    message_attr: Option<String>,
    type_attr: Option<String>,
    line: Vec<u8>,
    first_line: Option<String>,
    panic: PanicMessage,
    section: SectionMessage,
}

impl Body {
    fn text(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.push(&rest[..i]);
            self.end_line();
            rest = &rest[i + 1..];
        }
        self.push(rest);
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = MAX_LINE_BYTES.saturating_sub(self.line.len());
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn end_line(&mut self) {
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        let trimmed = line.trim();
        // jest-junit opens a suite error with jest's own `● Test suite failed to run` title.
        if self.first_line.is_none() && !trimmed.is_empty() && !trimmed.starts_with('\u{25cf}') {
            self.first_line = Some(trimmed.to_string());
        }
        self.panic.line(&line);
        self.section.line(line.trim_end());
    }

    fn message(mut self, producer: Producer) -> Option<String> {
        if !self.line.is_empty() {
            self.end_line();
        }
        let attr_first_line = self
            .message_attr
            .as_deref()
            .and_then(|m| m.lines().map(str::trim).find(|l| !l.is_empty()))
            .map(str::to_string);
        match producer {
            Producer::Nextest => self.panic.take().or(attr_first_line),
            Producer::Pytest => self.section.message().or(attr_first_line),
            Producer::Jest => self.first_line.or(attr_first_line).map(|m| {
                // jest-junit gives the stack's first line, `Error: message` for a plain
                // `Error`; jest's log shows the message alone (other types keep their name).
                match m.strip_prefix("Error: ") {
                    Some(rest) => rest.to_string(),
                    None => m,
                }
            }),
            Producer::Vitest => self.first_line.or(attr_first_line),
            Producer::Unknown | Producer::Other => {
                let typed = match (attr_first_line, self.type_attr) {
                    (Some(m), Some(t)) if !m.contains(&t) && !t.is_empty() => {
                        Some(format!("{t}: {m}"))
                    }
                    (Some(m), _) => Some(m),
                    (None, Some(t)) if !t.is_empty() => Some(t),
                    (None, _) => None,
                };
                typed.or(self.first_line)
            }
        }
    }
}

impl XmlSink for JunitReport {
    fn start(&mut self, name: &str, attrs: &[(String, String)], self_closing: bool) {
        match name {
            "testsuites" | "testsuite" if self.producer == Producer::Unknown => {
                self.producer = Producer::from_root_name(attr(attrs, "name").unwrap_or(""));
                self.collector.saw(self.producer.runner());
            }
            "testcase" => {
                self.end_case();
                let case = Case {
                    classname: attr(attrs, "classname").unwrap_or("").to_string(),
                    name: attr(attrs, "name").unwrap_or("").to_string(),
                    ..Case::default()
                };
                self.case = Some(case);
                if self_closing {
                    self.end_case();
                }
            }
            "failure" | "error" => {
                let Some(case) = &mut self.case else { return };
                if case.failure.is_some() {
                    return;
                }
                // vitest reports a file that failed to load as a case named after the file.
                let suite_failed = self.producer == Producer::Vitest && case.name == case.classname;
                let kind =
                    if (name == "error" && self.producer != Producer::Nextest) || suite_failed {
                        FailureKind::Error
                    } else {
                        FailureKind::Test
                    };
                let body = Body {
                    message_attr: attr(attrs, "message").map(str::to_string),
                    type_attr: attr(attrs, "type").map(str::to_string),
                    ..Body::default()
                };
                case.failure = Some((kind, body));
                case.in_failure = !self_closing;
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "testcase" => self.end_case(),
            "failure" | "error" => {
                if let Some(case) = &mut self.case {
                    case.in_failure = false;
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, bytes: &[u8]) {
        if let Some(Case {
            failure: Some((_, body)),
            in_failure: true,
            ..
        }) = &mut self.case
        {
            body.text(bytes);
        }
    }
}

impl JunitReport {
    pub(crate) fn finish(mut self) -> Fingerprint {
        self.end_case();
        self.collector.into_fingerprint()
    }

    fn end_case(&mut self) {
        let Some(case) = self.case.take() else { return };
        let Some((kind, body)) = case.failure else {
            return;
        };
        let producer = self.producer;
        let id = case_id(producer, &case.classname, &case.name, kind);
        let message = body.message(producer);
        self.collector
            .fail(producer.runner(), kind, &id, message.as_deref());
    }
}

/// The id the producer's text log gives the same test.
fn case_id(producer: Producer, classname: &str, name: &str, kind: FailureKind) -> String {
    let classname = classname.trim();
    let name = name.trim();
    match producer {
        Producer::Nextest => name.to_string(),
        Producer::Pytest => pytest_node_id(classname, name, kind),
        Producer::Jest => jest_id(name),
        Producer::Vitest if name == classname || classname.is_empty() => name.to_string(),
        Producer::Vitest => format!("{classname} > {name}"),
        Producer::Unknown | Producer::Other if classname.is_empty() => name.to_string(),
        Producer::Unknown | Producer::Other => format!("{classname}.{name}"),
    }
}

/// `tests.test_x` + `test_y` -> `tests/test_x.py::test_y`; trailing `Test*` parts of the
/// classname are classes (`tests.test_x.TestC` -> `tests/test_x.py::TestC::test_y`). A
/// collection error has an empty classname and the module as name: its id is the path.
fn pytest_node_id(classname: &str, name: &str, kind: FailureKind) -> String {
    if classname.is_empty() {
        let path = format!("{}.py", name.replace('.', "/"));
        return if kind == FailureKind::Error {
            path
        } else {
            name.to_string()
        };
    }
    let parts: Vec<&str> = classname.split('.').collect();
    let module_len = parts
        .iter()
        .rposition(|p| !p.starts_with("Test"))
        .map_or(parts.len(), |i| i + 1);
    let mut id = format!("{}.py", parts[..module_len].join("/"));
    for class in &parts[module_len..] {
        id.push_str("::");
        id.push_str(class);
    }
    id.push_str("::");
    id.push_str(name);
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::fingerprint_bytes;
    use crate::fingerprint::testing::{fingerprint_as, triples};

    #[test]
    fn surefire_report() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.WordCountTest" tests="3" failures="1" errors="1">
  <testcase name="countsThreeWords" classname="com.example.WordCountTest" time="0.01">
    <failure message="expected: &lt;3&gt; but was: &lt;4&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <3> but was: <4>
	at com.example.WordCountTest.countsThreeWords(WordCountTest.java:12)
]]></failure>
  </testcase>
  <testcase name="readsFile" classname="com.example.WordCountTest">
    <error message="/tmp/junit123/words.txt (No such file or directory)" type="java.io.FileNotFoundException"/>
  </testcase>
  <testcase name="flaky" classname="com.example.WordCountTest">
    <flakyFailure message="boom" type="java.lang.AssertionError"/>
  </testcase>
  <testcase name="passes" classname="com.example.WordCountTest"/>
</testsuite>"#;
        let fp = fingerprint_as(xml, Runner::Junit);
        assert_eq!(
            triples(&fp),
            [
                (
                    "com.example.WordCountTest.countsThreeWords",
                    FailureKind::Test,
                    "org.opentest4j.AssertionFailedError: expected: <<n>> but was: <<n>>"
                ),
                (
                    "com.example.WordCountTest.readsFile",
                    FailureKind::Error,
                    "java.io.FileNotFoundException: <tmp>/words.txt (No such file or directory)"
                ),
            ]
        );
    }

    #[test]
    fn passing_report_names_its_producer() {
        let fp = fingerprint_bytes(br#"<testsuites name="pytest tests"><testsuite name="pytest"><testcase classname="t" name="test_failure_modes"/></testsuite></testsuites>"#);
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Pytest));
    }

    #[test]
    fn pytest_ids() {
        assert_eq!(
            pytest_node_id("tests.test_x", "test_y[v2 utf8-3]", FailureKind::Test),
            "tests/test_x.py::test_y[v2 utf8-3]"
        );
        assert_eq!(
            pytest_node_id("tests.test_x.TestC", "test_y", FailureKind::Test),
            "tests/test_x.py::TestC::test_y"
        );
        assert_eq!(
            pytest_node_id("", "tests.test_parse", FailureKind::Error),
            "tests/test_parse.py"
        );
    }
}
