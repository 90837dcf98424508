//! pytest output (`-q`, `-v`, `-ra`, any `--tb` style, xdist prefixes).
//!
//! The report sections (`= FAILURES =`, `= ERRORS =`) hold one `___ NAME ___` block per
//! failure whose `E   ` lines carry the error; `ERROR at setup of NAME` marks fixture
//! errors and `ERROR collecting PATH` collection and import errors. The short test summary
//! (`FAILED path::test - message`, shown by default) names each failure by node id; its
//! message is cut to the terminal width (ending in `...`), so the message comes from the
//! section when there is one, and the summary's only when there is not.

use super::bytes::RunBytes;
use super::collect::{Collector, LineParser, MAX_FAILURES};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "pytest" };

pub(crate) const TRIGGERS: &[&str] = &[
    "FAIL",
    "ERROR",
    "pass",
    "fail",
    "error",
    "test session starts",
];

/// Inside a session (after its `= test session starts =` header) that has shown no
/// failure yet, the only lines pytest still needs hold one of these: `F` (`FAILED`, a
/// progress `F`), `R` (`ERROR`), `=` (the report's and the closing counts' rules) and
/// `#` (a GitHub Actions marker: another step). `PASSED` holds none of them.
static RUN_BYTES: RunBytes = RunBytes::new(b"FR=#");

/// E lines kept per section: the error is among the first ones.
const MAX_E_LINES: usize = 16;

static REPORT_START: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^=+ (?:FAILURES|ERRORS) =+$").expect("because it is valid"));
static SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^_{2,} (.+?) _{2,}$").expect("because it is valid"));
static LOCATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\S+:\d+: ([A-Za-z_][\w.]*)$").expect("because it is valid"));
static RULE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^=+( .* )?=+$").expect("because it is valid"));
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\[gw\d+\] (?:\[\s*\d+%\] )?)?(FAILED|ERROR) ([^\s\[(][^\s\[]*(?:\[[^\]]*\])?)(?: - (.*))?$",
    )
    .expect("because it is valid")
});
static VERBOSE_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+::\S.*?) (FAILED|ERROR)(?:\s+\[\s*\d+%\])?$").expect("because it is valid")
});
static EXCEPTION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Failed|Failure|Timeout|Interrupt|Warning|Fault)(?::|$)")
        .expect("because it is valid")
});
/// A passing `-v` result (`path::test PASSED [ 5%]`, xdist's `[gw0] [ 5%] PASSED path::test`):
/// found inside a run only when its id holds a run byte, and no reason to stop narrowing.
static PASSING_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\[gw\d+\] \[\s*\d+%\] (?:PASSED|SKIPPED|XFAIL|XPASS) [^\s\[]+::[^\s\[]+(?:\[[^\]]*\])?|[^\s\[]+::[^\s\[]+(?:\[[^\]]*\])? (?:PASSED|SKIPPED|XFAIL|XPASS)(?: \([^)]*\))?(?:\s+\[\s*\d+%\])?)$",
    )
    .expect("because it is valid")
});
static FINAL_COUNTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:=+ )?(?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)(?:, )?)+ in [\d.]+s").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct PytestParser {
    in_report: bool,
    section: Option<Section>,
    sections: Vec<Section>,
    /// Failing node ids, from the summary or `-v` lines: (id, kind, summary message).
    nodes: Vec<(String, FailureKind, Option<String>)>,
    node_index: HashMap<(String, FailureKind), usize>,
    /// After a session header, until a line other than a passing result shows up.
    passing_run: bool,
    /// After Python's `Fatal Python error: ...` (faulthandler, which pytest turns on): the
    /// process died inside a test, which pytest itself cannot report.
    fatal: Option<Fatal>,
}

/// A fatal error whose traceback is being read: the test is the frame that pytest's own
/// frames called (`most recent call first`: the last frame before the first of pytest's).
#[derive(Debug, Default)]
struct Fatal {
    message: String,
    /// The last frame outside pytest so far in the current thread's stack: its file and
    /// function.
    frame: Option<(String, String)>,
}

/// The first line of a fatal error (`Fatal Python error: Segmentation fault`), found
/// anywhere in the line: it follows the progress dots or the test's id on the same line.
/// (Its `F` is a run byte, so a narrowed session sees it.)
static FATAL_START: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("Fatal Python error: "));

#[derive(Debug, Default)]
struct Section {
    name: String,
    kind: FailureKind,
    message: SectionMessage,
}

/// The error of one failure report (a section, or a JUnit `<failure>` body): its `E` lines
/// and the raised type from the closing `path:line: Type` line.
#[derive(Debug, Default)]
pub(crate) struct SectionMessage {
    e_lines: Vec<String>,
    error_type: Option<String>,
}

impl LineParser for PytestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        self.handle(line, out);
    }

    fn wants_every_line(&self) -> bool {
        self.in_report || self.fatal.is_some()
    }

    fn run_bytes(&self) -> Option<&'static RunBytes> {
        self.passing_run.then_some(&RUN_BYTES)
    }

    /// The session's closing counts are pytest's own: no other runner needs them.
    fn run_line(&mut self, line: &CleanLine, out: &mut Collector) -> bool {
        self.handle(line, out) == Seen::ClosingCounts
    }

    fn finish(&mut self, out: &mut Collector) {
        self.fatal = None;
        self.finish_nodes(out);
    }
}

/// A frame of faulthandler's traceback, `  File "/w/tests/test_x.py", line 5 in test_crash`:
/// its file and function.
fn frame(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.rsplit_once("\", line ")?;
    let (_, function) = rest.split_once(" in ")?;
    Some((path, function.trim()))
}

/// `==== test session starts ====`, which `-q` does not print: a session that has it ends
/// with a rule (`==== 3 passed in 0.01s ====`).
fn is_session_header(text: &str) -> bool {
    text.starts_with('=') && text.contains("= test session starts =")
}

/// What a line was to pytest, where the front end needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    ClosingCounts,
    Other,
}

impl PytestParser {
    fn handle(&mut self, line: &CleanLine, out: &mut Collector) -> Seen {
        let text = line.text.trim_end();
        if self.fatal_line(text, out) {
            self.passing_run = false;
            return Seen::Other;
        }
        let passing = self.passing_run;
        let seen = self.text_line(text, out);
        // Any line but the header or a passing result ends the narrowed scan: it may be a
        // failure or the session's end (the closing counts), and the next lines then need
        // every trigger.
        self.passing_run = !self.in_report
            && seen != Seen::ClosingCounts
            && (is_session_header(text) || (passing && PASSING_RESULT.is_match(text)));
        seen
    }

    fn text_line(&mut self, text: &str, out: &mut Collector) -> Seen {
        if self.in_report {
            if let Some(c) = text
                .starts_with("__")
                .then(|| SECTION.captures(text))
                .flatten()
            {
                self.close_section();
                self.section = Some(Section::new(&c[1]));
                return Seen::Other;
            }
            if text.starts_with('=') && RULE.is_match(text) {
                self.close_section();
                self.in_report = false;
            } else {
                if let Some(section) = &mut self.section {
                    section.line(text);
                }
                return Seen::Other;
            }
        }
        let report_start = || text.contains(" FAILURES ") || text.contains(" ERRORS ");
        if text.starts_with('=') && report_start() && REPORT_START.is_match(text) {
            out.saw(Runner::Pytest);
            self.in_report = true;
        } else if let Some(c) = is_summary_shaped(text)
            .then(|| SUMMARY.captures(text))
            .flatten()
        {
            let message = c
                .get(3)
                .map(|m| m.as_str().trim_end_matches("...").trim().to_string());
            self.node(&c[2], &c[1], message);
        } else if let Some(c) = (text.contains("::") && !text.contains(" --- "))
            .then(|| VERBOSE_RESULT.captures(text))
            .flatten()
        {
            self.node(&c[1], &c[2], None);
        } else if text.contains(" in ") && FINAL_COUNTS.is_match(text) {
            out.saw(Runner::Pytest);
            return Seen::ClosingCounts;
        }
        Seen::Other
    }

    /// Reads a fatal error and its traceback; `true` for the lines that belong to it.
    fn fatal_line(&mut self, text: &str, out: &mut Collector) -> bool {
        if let Some(at) = FATAL_START.find(text.as_bytes()) {
            self.fatal = Some(Fatal {
                message: text[at..].to_string(),
                ..Fatal::default()
            });
            return true;
        }
        let Some(fatal) = &mut self.fatal else {
            return false;
        };
        match frame(text) {
            Some((path, _)) if path.contains("_pytest/") || path.contains("_pytest\\") => {
                if let Some((file, function)) = fatal.frame.take() {
                    // A node id, which pytest writes with `/` on Windows too.
                    let id = format!("{}::{function}", file.replace('\\', "/"));
                    out.fail(
                        Runner::Pytest,
                        FailureKind::Crash,
                        &id,
                        Some(&fatal.message),
                    );
                }
                self.fatal = None;
            }
            Some((path, function)) => fatal.frame = Some((path.to_string(), function.to_string())),
            // Each thread's stack starts with its own header.
            None if text.ends_with("(most recent call first):") => fatal.frame = None,
            None if text.trim().is_empty() => {}
            // The traceback ended without pytest's frames (no test's: a Python program that
            // is no pytest run, or a stack cut at its depth limit): the line is any line.
            None => {
                self.fatal = None;
                return false;
            }
        }
        true
    }

    fn finish_nodes(&mut self, out: &mut Collector) {
        self.close_section();
        let sections = std::mem::take(&mut self.sections);
        let mut by_name: HashMap<(&str, FailureKind), usize> = HashMap::new();
        for (i, s) in sections.iter().enumerate() {
            by_name.entry((s.name.as_str(), s.kind)).or_insert(i);
        }
        let mut used = vec![false; sections.len()];
        for (id, kind, summary) in std::mem::take(&mut self.nodes) {
            let found = section_names(&id)
                .iter()
                .find_map(|name| by_name.get(&(name.as_str(), kind)).copied());
            let message = match found {
                Some(i) => {
                    used[i] = true;
                    sections[i].message()
                }
                None => None,
            };
            out.fail(Runner::Pytest, kind, &id, message.or(summary).as_deref());
        }
        // Without a summary (`-rN`), the section names are all there is.
        for (section, used) in sections.iter().zip(used) {
            if !used {
                out.fail(
                    Runner::Pytest,
                    section.kind,
                    &section.name,
                    section.message().as_deref(),
                );
            }
        }
    }
}

/// `FAILED id`, `ERROR id`, or the same behind an xdist worker tag.
fn is_summary_shaped(text: &str) -> bool {
    text.starts_with("FAILED ") || text.starts_with("ERROR ") || text.starts_with("[gw")
}

impl PytestParser {
    fn close_section(&mut self) {
        if let Some(section) = self.section.take()
            && self.sections.len() < MAX_FAILURES
        {
            self.sections.push(section);
        }
    }

    fn node(&mut self, id: &str, outcome: &str, message: Option<String>) {
        let kind = if outcome == "ERROR" {
            FailureKind::Error
        } else {
            FailureKind::Test
        };
        let message = message.filter(|m| !m.is_empty());
        if let Some(&i) = self.node_index.get(&(id.to_string(), kind)) {
            let existing = &mut self.nodes[i];
            if existing.2.is_none() {
                existing.2 = message;
            }
        } else if self.nodes.len() < MAX_FAILURES {
            self.node_index
                .insert((id.to_string(), kind), self.nodes.len());
            self.nodes.push((id.to_string(), kind, message));
        }
    }
}

impl Section {
    fn new(header: &str) -> Self {
        let (kind, name) = if let Some(rest) = header
            .strip_prefix("ERROR at setup of ")
            .or_else(|| header.strip_prefix("ERROR at teardown of "))
            .or_else(|| header.strip_prefix("ERROR collecting "))
        {
            (FailureKind::Error, rest)
        } else {
            (FailureKind::Test, header)
        };
        Section {
            name: name.to_string(),
            kind,
            message: SectionMessage::default(),
        }
    }

    fn line(&mut self, text: &str) {
        self.message.line(text);
    }

    fn message(&self) -> Option<String> {
        self.message.message()
    }
}

/// The section headers a node id can have: `tests/x.py::TestC::test_y[p]` is headed
/// `TestC.test_y[p]` (or `test_y[p]`); a collection error's node is its path.
fn section_names(node: &str) -> Vec<String> {
    let mut names = vec![node.to_string()];
    if let Some((_, tail)) = node.split_once("::") {
        names.push(tail.replace("::", "."));
        if let Some(last) = tail.rsplit("::").next() {
            names.push(last.to_string());
        }
    }
    names
}

impl SectionMessage {
    pub(crate) fn line(&mut self, text: &str) {
        if let Some(rest) = text.strip_prefix('E') {
            if (rest.is_empty() || rest.starts_with(' ')) && self.e_lines.len() < MAX_E_LINES {
                let rest = rest.trim();
                if !rest.is_empty() {
                    self.e_lines.push(cut_message(rest));
                }
            }
        } else if let Some(c) = text
            .contains(": ")
            .then(|| LOCATION.captures(text))
            .flatten()
        {
            self.error_type = Some(c[1].to_string());
        }
    }

    /// The error line: the line naming the raised type, else the first exception-looking
    /// line, else the first `E` line, prefixed with the type when it lacks it.
    pub(crate) fn message(&self) -> Option<String> {
        let by_type = self.error_type.as_deref().and_then(|t| {
            self.e_lines.iter().find(|l| {
                l.strip_prefix(t)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
            })
        });
        let line = by_type
            .or_else(|| self.e_lines.iter().find(|l| EXCEPTION_LINE.is_match(l)))
            .or_else(|| self.e_lines.first())?;
        match &self.error_type {
            Some(t) if !line.starts_with(t.as_str()) && !EXCEPTION_LINE.is_match(line) => {
                Some(format!("{t}: {line}"))
            }
            _ => Some(line.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    fn failures(log: &str) -> Vec<(String, FailureKind, String)> {
        let fp = fingerprint_bytes(log.as_bytes());
        fp.failures
            .into_iter()
            .map(|f| (f.id, f.kind, f.message))
            .collect()
    }

    const REPORT: &str = "============================= test session starts ==============================\n\
collected 3 items\n\ntests/test_x.py F.E                                         [100%]\n\n\
=================================== ERRORS ===================================\n\
_______________________ ERROR at setup of test_z _______________________\n\n\
    @pytest.fixture\n    def src():\n>       raise RuntimeError(\"no source\")\nE       RuntimeError: no source\n\n\
tests/test_x.py:8: RuntimeError\n\
=================================== FAILURES ===================================\n\
_______________________ TestC.test_y[v2-3] _______________________\n\n\
    def test_y():\n>       assert count(\"a\") == 3\nE       assert 4 == 3\nE        +  where 4 = count('a')\n\n\
tests/test_x.py:7: AssertionError\n\
=========================== short test summary info ============================\n\
FAILED tests/test_x.py::TestC::test_y[v2-3] - assert 4 == 3\n\
ERROR tests/test_x.py::test_z - RuntimeError: no so...\n\
==================== 1 failed, 1 passed, 1 error in 0.05s =====================\n";

    #[test]
    fn sections_give_messages_and_the_summary_gives_ids() {
        assert_eq!(
            failures(REPORT),
            [
                (
                    "tests/test_x.py::TestC::test_y[v2-3]".into(),
                    FailureKind::Test,
                    "AssertionError: assert <n> == <n>".into()
                ),
                (
                    "tests/test_x.py::test_z".into(),
                    FailureKind::Error,
                    "RuntimeError: no source".into()
                ),
            ]
        );
    }

    #[test]
    fn summary_only_uses_its_message_without_the_ellipsis() {
        let log = "FAILED tests/test_x.py::test_y - AssertionError: assert 'fo...\n= 1 failed in 0.01s =\n";
        assert_eq!(failures(log)[0].2, "AssertionError: assert 'fo");
    }

    #[test]
    fn collection_errors_take_the_exception_line() {
        let log = "==================================== ERRORS ====================================\n\
_____________________ ERROR collecting tests/test_parse.py _____________________\n\
E     File \"/tmp/x/tests/test_parse.py\", line 11\n\
E       def test_first(sentence)\n\
E                               ^\n\
E   SyntaxError: expected ':'\n\
=========================== short test summary info ============================\n\
ERROR tests/test_parse.py\n\
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n";
        assert_eq!(
            failures(log),
            [(
                "tests/test_parse.py".into(),
                FailureKind::Error,
                "SyntaxError: expected ':'".into()
            )]
        );
    }

    #[test]
    fn unittests_closing_counts_are_no_node() {
        // Not pytest's: only the generic signature of a line that says tests failed.
        let fp = fingerprint_bytes(b"FAILED (failures=1, errors=2)\n");
        assert_ne!(fp.runner, Some(Runner::Pytest));
        assert!(fp.recognised);
        assert_eq!(
            super::super::testing::triples(&fp),
            [(
                "output",
                FailureKind::Generic,
                "FAILED (failures=<n>, errors=<n>)"
            )]
        );
    }

    #[test]
    fn passing_run_names_pytest_without_failures() {
        let log = "============ test session starts ============\ntests/test_failures.py ....  [100%]\n\
============ 4 passed in 0.01s ============\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Pytest));
    }

    #[test]
    fn verbose_and_xdist_lines_name_failures() {
        let log = "tests/test_x.py::test_a FAILED                                     [ 50%]\n\
[gw1] [ 75%] FAILED tests/test_x.py::test_b \n";
        let ids: Vec<String> = failures(log).into_iter().map(|f| f.0).collect();
        assert_eq!(ids, ["tests/test_x.py::test_a", "tests/test_x.py::test_b"]);
    }

    /// A `-v` session of `n` passing tests, without its closing rule; ids hold no run byte
    /// but every tenth (`F`).
    fn passing_session(n: usize) -> String {
        use std::fmt::Write;
        let mut log = String::from(
            "============================= test session starts =============================\n",
        );
        for i in 0..n {
            let name = if i % 10 == 0 { "Feature" } else { "case" };
            let percent = i * 100 / n;
            writeln!(
                log,
                "tests/test_m.py::test_{name}_{i} PASSED [{percent:3}%]"
            )
            .expect("because writing to a String does not fail");
        }
        log
    }

    #[test]
    fn inside_a_session_the_scan_narrows_to_the_run_bytes() {
        use crate::fingerprint::collect::{Collector, LineParser};
        use crate::fingerprint::ghactions::clean_line;
        let mut p = super::PytestParser::default();
        let mut out = Collector::default();
        let mut feed = |p: &mut super::PytestParser, line: &str| {
            p.line(&clean_line(line.as_bytes()), &mut out);
            p.run_bytes()
        };
        assert_eq!(feed(&mut p, "tests/t.py::test_a PASSED [ 5%]"), None);
        assert!(feed(&mut p, "==== test session starts ====").is_some());
        assert!(feed(&mut p, "tests/t.py::test_Foo[a=1] PASSED [ 10%]").is_some());
        assert!(feed(&mut p, "tests/t.py::test_Foo XFAIL (not yet) [ 15%]").is_some());
        assert!(feed(&mut p, "[gw0] [ 20%] PASSED tests/t.py::test_Foo").is_some());
        assert_eq!(feed(&mut p, "tests/t.py::test_b FAILED [ 25%]"), None);
        assert!(feed(&mut p, "==== test session starts ====").is_some());
        assert_eq!(feed(&mut p, "==== 3 passed in 0.01s ===="), None);
    }

    /// faulthandler's report of a process that died in `test_crash`, called by pytest.
    fn fatal(first: &str, test_file: &str) -> String {
        format!(
            "{first}\n\nCurrent thread 0x00007f07af246b80 (most recent call first):\n  \
             File \"/usr/lib/python3.11/ctypes/__init__.py\", line 519 in string_at\n  \
             File \"{test_file}\", line 5 in test_crash\n  \
             File \"/venv/lib/python3.11/site-packages/_pytest/python.py\", line 187 in pytest_pyfunc_call\n  \
             File \"/venv/lib/python3.11/site-packages/pluggy/_execution.py\", line 147 in _multicall\n"
        )
    }

    #[test]
    fn a_process_that_died_in_a_test_is_a_crash_of_that_test() {
        let crash = |log: &str| failures(log);
        let expected = [(
            "tests/test_x.py::test_crash".into(),
            FailureKind::Crash,
            "Fatal Python error: Segmentation fault".into(),
        )];
        let file = "/home/runner/work/app/app/tests/test_x.py";
        // After progress dots, after a `-v` id, and after a long passing session (whose
        // narrowed scan must still reach it).
        assert_eq!(
            crash(&fatal(
                "tests/test_x.py .Fatal Python error: Segmentation fault",
                file
            )),
            expected
        );
        assert_eq!(
            crash(&fatal(
                "tests/test_x.py::test_crash Fatal Python error: Segmentation fault",
                file
            )),
            expected
        );
        let log = passing_session(3000) + &fatal("..Fatal Python error: Segmentation fault", file);
        assert_eq!(crash(&log), expected);
        // Windows' paths.
        let windows = fatal(
            "Fatal Python error: Aborted",
            r"D:\a\app\app\tests\test_x.py",
        )
        .replace(
            "/venv/lib/python3.11/site-packages/_pytest/",
            r"C:\venv\Lib\site-packages\_pytest\",
        );
        let windows = crash(&windows);
        assert_eq!(windows.len(), 1, "{windows:?}");
        assert_eq!(
            windows[0],
            (
                "tests/test_x.py::test_crash".into(),
                FailureKind::Crash,
                "Fatal Python error: Aborted".into()
            )
        );
        // Not a test's: a Python program that is no pytest run (no pytest frame).
        let script = "Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call \
            first):\n  File \"/app/tool.py\", line 3 in main\n  File \"/app/tool.py\", line 9 in <module>\n";
        assert_eq!(crash(script), []);
        // What follows such a traceback is read as ever: a pytest run's failure.
        let then = format!(
            "{script}Segmentation fault (core dumped)\n{}",
            "tests/t.py::test_a FAILED [ 50%]\n"
        );
        assert_eq!(crash(&then)[0].0, "tests/t.py::test_a");
        // A frame of another thread's stack is never taken for the test: each stack starts
        // afresh at its header.
        let threads = "Fatal Python error: Aborted\n\nThread 0x2 (most recent call first):\n  \
            File \"/app/worker.py\", line 8 in run\n\nCurrent thread 0x1 (most recent call first):\n  \
            File \"/venv/lib/python3.11/site-packages/_pytest/main.py\", line 3 in wait\n";
        assert_eq!(crash(threads), []);
    }

    #[test]
    fn a_failure_after_a_long_passing_run_is_found() {
        let mut log = passing_session(5000);
        log += "tests/test_m.py::test_case_late FAILED [ 99%]\n\
            tests/test_m.py::test_Feature_last PASSED [100%]\n\
            =================================== FAILURES ===================================\n\
            _______________________ test_case_late _______________________\n\
            E       assert 4 == 3\n\ntests/test_m.py:7: AssertionError\n\
            =========================== short test summary info ============================\n\
            FAILED tests/test_m.py::test_case_late - assert 4 == 3\n\
            ==================== 1 failed, 5001 passed in 0.05s =====================\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.runner, Some(Runner::Pytest));
        assert_eq!(
            failures(&log),
            [(
                "tests/test_m.py::test_case_late".into(),
                FailureKind::Test,
                "AssertionError: assert <n> == <n>".into()
            )]
        );
        // `-v` alone: the result line is all there is.
        let log = passing_session(3000) + "tests/test_m.py::test_case_x ERROR [ 99%]\n";
        assert_eq!(failures(&log)[0].0, "tests/test_m.py::test_case_x");
    }

    #[test]
    fn another_runners_output_after_a_session_is_still_read() {
        // Raw TAP holds no run byte: the session's closing rule ends the narrowed scan.
        let tap = "TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n";
        let log = passing_session(1000) + "==== 1000 passed in 0.42s ====\n" + tap;
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.failures.len(), 1, "{}", fp.render_text());
        assert_eq!(
            (fp.failures[0].runner, fp.failures[0].id.as_str()),
            (Runner::Tap, "b")
        );
        // A session cut off (no closing rule): the next step's marker ends it.
        let log = passing_session(1000) + "##[group]Run prove -v\n" + tap;
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.failures.len(), 1, "{}", fp.render_text());
        assert_eq!(fp.failures[0].runner, Runner::Tap);
    }
}
