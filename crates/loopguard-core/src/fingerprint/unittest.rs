//! Python's `unittest` (`python -m unittest`, `discover`, `-v`, `-b`).
//!
//! Each failure is a block: a line of `=`, `FAIL: NAME (WHERE)` or `ERROR: NAME (WHERE)`, a
//! line of `-`, the traceback. Python 3.11 writes `WHERE` as `module.Class.test`, older
//! ones as `module.Class`; a failing `subTest` adds its parameters (`(text='x')`). The id is
//! `module.Class.test` (plus the parameters) either way. A module that does not import is
//! `ERROR: pkg.mod (unittest.loader._FailedTest...)`: an error of the module itself, as
//! are errors of `setUpClass`/`setUpModule` and their teardowns.
//!
//! The message is the exception the traceback ends with: the first unindented line after
//! the last `Traceback (most recent call last):` (frames and source lines are indented),
//! else the block's first line (an assertion without a traceback).

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "unittest" };

pub(crate) const TRIGGERS: &[&str] = &["FAIL: ", "ERROR: ", "Ran "];

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:FAIL|ERROR): (\S+) \(([\w.]+)\)(?: \((.*)\))?$").expect("because it is valid")
});
static RAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Ran \d+ tests? in ").expect("because it is valid"));

/// unittest's block rules are 70 characters wide; any run of 20 or more counts.
fn is_rule(text: &str, c: u8) -> bool {
    text.len() >= 20 && text.bytes().all(|b| b == c)
}

#[derive(Debug, Default)]
pub(crate) struct UnittestParser {
    block: Option<Block>,
}

#[derive(Debug)]
struct Block {
    id: String,
    kind: FailureKind,
    /// The `-` rule under the header has been seen: the body follows.
    body: bool,
    first_line: Option<String>,
    in_traceback: bool,
    exception: Option<String>,
}

impl LineParser for UnittestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(block) = &mut self.block {
            if !block.body {
                if is_rule(text, b'-') {
                    block.body = true;
                    return;
                }
                // A docstring line (`-v` on older Pythons) before the rule.
                if !is_rule(text, b'=')
                    && !text.starts_with("FAIL: ")
                    && !text.starts_with("ERROR: ")
                {
                    return;
                }
            } else if !is_rule(text, b'=') && !is_rule(text, b'-') {
                block.line(text);
                return;
            }
            self.close(out);
        }
        if let Some(c) = (text.starts_with("FAIL: ") || text.starts_with("ERROR: "))
            .then(|| HEADER.captures(text))
            .flatten()
        {
            out.saw(Runner::Unittest);
            self.block = Some(Block::new(&c[1], &c[2], c.get(3).map(|m| m.as_str())));
        } else if text.starts_with("Ran ") && RAN.is_match(text) {
            out.saw(Runner::Unittest);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.block.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
    }
}

impl UnittestParser {
    fn close(&mut self, out: &mut Collector) {
        if let Some(b) = self.block.take() {
            let message = b.exception.or(b.first_line);
            out.fail(Runner::Unittest, b.kind, &b.id, message.as_deref());
        }
    }
}

impl Block {
    fn new(name: &str, place: &str, params: Option<&str>) -> Self {
        let failed_import = place.starts_with("unittest.loader._FailedTest");
        let fixture = [
            "setUpClass",
            "tearDownClass",
            "setUpModule",
            "tearDownModule",
        ]
        .contains(&name)
            || name.starts_with("setUpClass ")
            || name.starts_with("setUpModule ");
        let (id, kind) = if failed_import {
            (name.to_string(), FailureKind::Error)
        } else if fixture {
            (format!("{place}.{name}"), FailureKind::Error)
        } else {
            // 3.11+: `module.Class.test`; before: `module.Class`.
            let class = place
                .strip_suffix(name)
                .and_then(|p| p.strip_suffix('.'))
                .unwrap_or(place);
            (format!("{class}.{name}"), FailureKind::Test)
        };
        let id = match params {
            Some(p) => format!("{id} ({p})"),
            None => id,
        };
        Block {
            id,
            kind,
            body: false,
            first_line: None,
            in_traceback: false,
            exception: None,
        }
    }

    fn line(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if text.starts_with("Traceback (most recent call last):") {
            self.in_traceback = true;
            self.exception = None;
            return;
        }
        let indented = text.starts_with(' ') || text.starts_with('\t');
        if self.in_traceback {
            if indented {
                return;
            }
            self.in_traceback = false;
            self.exception = Some(cut_message(text));
            return;
        }
        if self.first_line.is_none() && !indented {
            self.first_line = Some(cut_message(text));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    const RULE_EQ: &str = "======================================================================";
    const RULE_DASH: &str =
        "----------------------------------------------------------------------";

    fn block(header: &str, body: &str) -> String {
        format!("{RULE_EQ}\n{header}\n{RULE_DASH}\n{body}\n")
    }

    #[test]
    fn failures_errors_and_their_exceptions() {
        let log = format!(
            "EF.\n{}{}{RULE_DASH}\nRan 3 tests in 0.001s\n\nFAILED (failures=1, errors=1)\n",
            block(
                "ERROR: test_reads (tests.test_x.ReadTest.test_reads)",
                "Traceback (most recent call last):\n  File \"/tmp/x/tests/test_x.py\", line 9, in test_reads\n    d[\"retry\"]\n    ~^^^^^^^^^\nKeyError: 'retry'\n"
            ),
            block(
                "FAIL: test_count (tests.test_x.CountTest)",
                "Traceback (most recent call last):\n  File \"/tmp/x/tests/test_x.py\", line 4, in test_count\n    self.assertEqual(4, 3)\nAssertionError: 4 != 3\n"
            ),
        );
        let fp = fingerprint_as(log, Runner::Unittest);
        assert_eq!(
            triples(&fp),
            [
                (
                    "tests.test_x.CountTest.test_count",
                    FailureKind::Test,
                    "AssertionError: <n> != <n>"
                ),
                (
                    "tests.test_x.ReadTest.test_reads",
                    FailureKind::Test,
                    "KeyError: 'retry'"
                ),
            ]
        );
    }

    #[test]
    fn a_module_that_does_not_import_is_its_own_error() {
        let log = block(
            "ERROR: tests.test_parse (unittest.loader._FailedTest.tests.test_parse)",
            "ImportError: Failed to import test module: tests.test_parse\nTraceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    import wordcount_v2\nModuleNotFoundError: No module named 'wordcount_v2'\n",
        );
        let fp = fingerprint_as(log, Runner::Unittest);
        assert_eq!(
            triples(&fp),
            [(
                "tests.test_parse",
                FailureKind::Error,
                "ModuleNotFoundError: No module named 'wordcount_v2'"
            )]
        );
    }

    #[test]
    fn subtests_keep_their_parameters() {
        let old = block(
            "FAIL: test_pairs (tests.t.CountTest) (text='v2 utf8')",
            "Traceback (most recent call last):\n  File \"t.py\", line 1, in test_pairs\nAssertionError: 2 != 3\n",
        );
        let new = block(
            "FAIL: test_pairs (tests.t.CountTest.test_pairs) (text='v2 utf8')",
            "Traceback (most recent call last):\n  File \"t.py\", line 1, in test_pairs\n    x\n    ^\nAssertionError: 2 != 3\n",
        );
        let (a, b) = (
            fingerprint_bytes(old.as_bytes()),
            fingerprint_bytes(new.as_bytes()),
        );
        assert_eq!(a.signature, b.signature);
        assert_eq!(
            a.failures[0].id,
            "tests.t.CountTest.test_pairs (text='v2 utf8')"
        );
    }

    #[test]
    fn a_passing_run_names_unittest() {
        let fp = fingerprint_bytes(b"....\n----------------------------------------------------------------------\nRan 4 tests in 0.001s\n\nOK\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Unittest));
    }
}
