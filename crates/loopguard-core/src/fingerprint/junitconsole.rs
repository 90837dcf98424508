//! The JUnit 5 console launcher (`junit-platform-console-standalone`, any engine: Jupiter,
//! Vintage), in each of its `--details` modes.
//!
//! `tree` (the default), `summary` and `none` close with a list, `Failures (N):`, one
//! entry per failure: its display path (`  JUnit Jupiter:CountTest:countsEach(String,
//! int):[3] a b c d, 4`), its source (`    MethodSource [className = 'CountTest',
//! methodName = 'countsEach', ...]`, or `ClassSource` for a class whose `@BeforeAll`
//! failed) and the exception (`    => org.opentest4j.AssertionFailedError: expected: <3>
//! but was: <4>`). `flat` prints no list but each failure where it happens: `Finished:`
//! with the test's unique id in parentheses, then `=> Exception: ...`. `verbose` prints
//! `uniqueId: [engine:...]/...` then `caught: ...`.
//!
//! Every mode names a failure alike: `Class.method` (nested classes `Outer$Inner`, as the
//! JVM names them), and a parameterized or dynamic test's invocation `[N]`; the message is
//! the exception's first line. An aborted test (`TestAbortedException`, a failed
//! assumption) is not a failure.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor {
    name: "junitconsole",
};

pub(crate) const TRIGGERS: &[&str] = &[
    "Failures (",
    "Finished:",
    "=> Exception: ",
    "uniqueId: [engine:",
    "caught: ",
    " tests failed ",
];

static LIST: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Failures \(\d+\):$").expect("because it is valid"));
/// A source line of the list: the class and, for a method, its name.
static SOURCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^    (?:MethodSource \[className = '([^']+)', methodName = '([^']+)'|ClassSource \[className = '([^']+)')")
        .expect("because it is valid")
});
/// The invocation of a parameterized or dynamic test in a display path: `...):[3] a b c`.
static INVOCATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\):\[(\d+)\]").expect("because it is valid"));
/// `flat`'s `Finished:` line, with the unique id.
static FINISHED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Finished:\s+.* \((\[engine:[^\]]+\](?:/\[[^\]]+\])*)\)$")
        .expect("because it is valid")
});
/// One segment of a unique id: `[type:value]`.
static SEGMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[([\w-]+):([^\]]*)\]").expect("because it is valid"));
static COUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[\s*(\d+) tests failed\s*\]$").expect("because it is valid"));

#[derive(Debug, Default)]
pub(crate) struct JunitConsoleParser {
    /// Inside the `Failures (N):` list.
    in_list: bool,
    /// The entry of the list being read: its display path, then its id once its source
    /// line came.
    display: Option<String>,
    entry: Option<(String, FailureKind)>,
    /// The test whose exception comes next (`flat`'s `Finished:`, `verbose`'s `uniqueId:`).
    pending: Option<(String, FailureKind)>,
}

impl LineParser for JunitConsoleParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if self.in_list {
            self.list_line(text, out);
            return;
        }
        let trimmed = text.trim_start();
        if LIST.is_match(text) {
            out.saw(Runner::JunitConsole);
            self.in_list = true;
        } else if let Some(c) = text
            .starts_with("Finished:")
            .then(|| FINISHED.captures(text))
            .flatten()
        {
            self.pending = from_unique_id(&c[1]);
        } else if let Some(rest) = trimmed.strip_prefix("=> Exception: ") {
            self.exception(rest, out);
        } else if let Some(id) = after(trimmed, "uniqueId: ") {
            self.pending = from_unique_id(id);
        } else if let Some(rest) = after(trimmed, "caught: ") {
            self.exception(rest, out);
        } else if let Some(c) = COUNT.captures(trimmed) {
            out.saw(Runner::JunitConsole);
            if &c[1] != "0" {
                out.said_failed();
            }
        }
    }

    fn wants_every_line(&self) -> bool {
        self.in_list
    }
}

impl JunitConsoleParser {
    fn list_line(&mut self, text: &str, out: &mut Collector) {
        if text.is_empty() || text.starts_with("Test run finished") {
            self.in_list = false;
            self.display = None;
            self.entry = None;
        } else if let Some(path) = text.strip_prefix("  ").filter(|p| !p.starts_with(' ')) {
            self.display = Some(path.to_string());
            self.entry = None;
        } else if let Some(c) = SOURCE.captures(text) {
            let invocation = self
                .display
                .as_deref()
                .and_then(|d| INVOCATION.captures_iter(d).last())
                .map(|i| format!("[{}]", &i[1]));
            self.entry = Some(match (c.get(1), c.get(2), c.get(3)) {
                (Some(class), Some(method), _) => (
                    format!(
                        "{}.{}{}",
                        class.as_str(),
                        method.as_str(),
                        invocation.unwrap_or_default()
                    ),
                    FailureKind::Test,
                ),
                (_, _, Some(class)) => (class.as_str().to_string(), FailureKind::Error),
                _ => return,
            });
        } else if let Some(rest) = text.strip_prefix("    => ")
            && let Some((id, kind)) = self.entry.take()
        {
            report(&id, kind, rest, out);
        }
    }

    fn exception(&mut self, message: &str, out: &mut Collector) {
        if let Some((id, kind)) = self.pending.take() {
            out.saw(Runner::JunitConsole);
            report(&id, kind, message, out);
        }
    }
}

/// `text` after `marker`, where the marker follows the tree's drawing (`│  │     caught: `).
fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    let (before, rest) = text.split_once(marker)?;
    before
        .chars()
        .all(|c| c.is_whitespace() || matches!(c, '│' | '|'))
        .then_some(rest)
}

fn report(id: &str, kind: FailureKind, message: &str, out: &mut Collector) {
    if message.starts_with("org.opentest4j.TestAbortedException") {
        return;
    }
    let message = cut_message(message.trim());
    out.fail(Runner::JunitConsole, kind, id, Some(&message));
}

/// The id of the test (or class) a unique id names: `[class:A]/[nested-class:B]/[method:m()]`
/// is `A$B.m`, an invocation `[test-template-invocation:#3]` adds `[3]`. An engine or a
/// method's container (a template before its invocations run) is no failure of its own.
fn from_unique_id(unique: &str) -> Option<(String, FailureKind)> {
    let mut class = String::new();
    let mut method = None;
    let mut invocation = None;
    for c in SEGMENT.captures_iter(unique) {
        let value = c.get(2).map_or("", |m| m.as_str());
        match &c[1] {
            "class" => class = value.to_string(),
            "nested-class" => class = format!("{class}${value}"),
            "method" | "test-template" | "test-factory" => {
                method = Some(value.split('(').next().unwrap_or(value).to_string());
            }
            "test-template-invocation" | "dynamic-test" => {
                invocation = Some(format!("[{}]", value.trim_start_matches('#')));
            }
            _ => {}
        }
    }
    if class.is_empty() {
        return None;
    }
    Some(match method {
        Some(m) => (
            format!("{class}.{m}{}", invocation.unwrap_or_default()),
            FailureKind::Test,
        ),
        None => (class, FailureKind::Error),
    })
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    const LIST: &str = "Failures (2):\n  JUnit Jupiter:CountTest:countsEach(String, int):[3] a b c d, 4\n    MethodSource [className = 'CountTest', methodName = 'countsEach', methodParameterTypes = 'java.lang.String, int']\n    => org.opentest4j.AssertionFailedError: expected: <4> but was: <5>\n       CountTest.countsEach(CountTest.java:23)\n       [...]\n  JUnit Jupiter:StockTest\n    ClassSource [className = 'StockTest', filePosition = null]\n    => java.lang.IllegalStateException: the shelf is not stocked\n       StockTest.stock(StockTest.java:9)\n\nTest run finished after 1607 ms\n[         3 tests successful      ]\n[         1 tests failed          ]\n";

    #[test]
    fn the_failures_list() {
        let fp = fingerprint_as(LIST, Runner::JunitConsole);
        assert_eq!(
            triples(&fp),
            [
                (
                    "CountTest.countsEach[3]",
                    FailureKind::Test,
                    "org.opentest4j.AssertionFailedError: expected: <<n>> but was: <<n>>"
                ),
                (
                    "StockTest",
                    FailureKind::Error,
                    "java.lang.IllegalStateException: the shelf is not stocked"
                ),
            ]
        );
    }

    #[test]
    fn flat_and_verbose_name_a_failure_as_the_list_does() {
        let flat = "Finished:    [3] a b c d, 4 ([engine:junit-jupiter]/[class:CountTest]/[test-template:countsEach(java.lang.String, int)]/[test-template-invocation:#3])\n             => Exception: org.opentest4j.AssertionFailedError: expected: <4> but was: <5>\n             \tat CountTest.countsEach(CountTest.java:23)\nFinished:    StockTest ([engine:junit-jupiter]/[class:StockTest])\n             => Exception: java.lang.IllegalStateException: the shelf is not stocked\n[         1 tests failed          ]\n";
        let verbose = "│  │  │  ├─ [3] a b c d, 4\n│  │  │  │   uniqueId: [engine:junit-jupiter]/[class:CountTest]/[test-template:countsEach(java.lang.String, int)]/[test-template-invocation:#3]\n│  │  │  │     source: MethodSource [className = 'CountTest', methodName = 'countsEach']\n│  │  │  │     caught: org.opentest4j.AssertionFailedError: expected: <4> but was: <5>\n│  ├─ StockTest\n│  │   uniqueId: [engine:junit-jupiter]/[class:StockTest]\n│  │     caught: java.lang.IllegalStateException: the shelf is not stocked\n";
        let list = fingerprint_bytes(LIST.as_bytes());
        assert_eq!(
            fingerprint_as(flat, Runner::JunitConsole).signature,
            list.signature
        );
        assert_eq!(
            fingerprint_bytes(verbose.as_bytes()).signature,
            list.signature
        );
    }

    #[test]
    fn nested_classes_and_aborted_tests() {
        let flat = "Finished:    ok() ([engine:junit-jupiter]/[class:A]/[nested-class:B]/[method:ok()])\n             => Exception: org.opentest4j.TestAbortedException: Assumption failed\nFinished:    bad() ([engine:junit-jupiter]/[class:A]/[nested-class:B]/[method:bad()])\n             => Exception: java.lang.AssertionError: no\n";
        let fp = fingerprint_as(flat, Runner::JunitConsole);
        assert_eq!(
            triples(&fp),
            [("A$B.bad", FailureKind::Test, "java.lang.AssertionError: no")]
        );
    }

    #[test]
    fn a_passing_run_names_the_launcher() {
        let fp = fingerprint_bytes(b"Test run finished after 64 ms\n[         5 tests successful      ]\n[         0 tests failed          ]\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::JunitConsole));
    }
}
