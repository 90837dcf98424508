//! `bun test`.
//!
//! Each file's tests follow a `test/x.test.js:` line; a failing test shows the code around
//! the failure, the error (`error: message`, `TypeError: ...`) and the stack, and then its
//! result line `(fail) suite > test [1.2ms]` — the error comes before the test it belongs
//! to. A file that does not load is `# Unhandled error between tests` with the error
//! between two rules: an error of that file. A timeout is noted under its `(fail)` line.
//! The id is `file > suite > test`.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "bun" };

// Coloured, `bun test v1.2` has a colour code before the `v`, and results are `✓`/`✗`.
pub(crate) const TRIGGERS: &[&str] = &["bun test ", "(fail) ", "\u{2717} ", "Ran "];

/// `(fail) suite > test [1.2ms]`; coloured, `✗ suite > test [1.2ms]` (`✓` passes).
static RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\(pass\)|\(fail\)|\(skip\)|\(todo\)|\u{2713}|\u{2717}|\u{00bb}) (.+?)(?: \[[\d.]+m?s\])?$",
    )
    .expect("because it is valid")
});
static FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+\.[cm]?[jt]sx?):$").expect("because it is valid"));
static ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:error: .+|[A-Z]\w*(?:Error|Exception): .*|[A-Z]\w*(?:Error|Exception))$")
        .expect("because it is valid")
});
static RAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Ran \d+ tests? across \d+ files?\.").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct BunParser {
    /// Between the `bun test` banner and `Ran N tests`.
    running: bool,
    file: Option<String>,
    /// The error shown since the last result, for the next `(fail)`.
    error: Option<String>,
    /// In `# Unhandled error between tests`.
    unhandled: bool,
    /// The last `(fail)`, whose timeout note may follow.
    last_fail: Option<String>,
}

impl LineParser for BunParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if text.starts_with("bun test v") {
            // (coloured too: the cleaned line reads the same)
            out.saw(Runner::Bun);
            self.running = true;
            return;
        }
        if RAN.is_match(text) {
            out.saw(Runner::Bun);
            self.running = false;
            return;
        }
        if let Some(id) = self.last_fail.take()
            && text.contains("timed out after")
        {
            let note = text.trim().trim_start_matches('^').trim();
            out.fail(Runner::Bun, FailureKind::Timeout, &id, Some(note));
            return;
        }
        if let Some(c) = RESULT.captures(text) {
            out.saw(Runner::Bun);
            let error = self.error.take();
            if !matches!(&c[1], "(fail)" | "\u{2717}") {
                return;
            }
            let id = match &self.file {
                Some(file) => format!("{file} > {}", &c[2]),
                None => c[2].to_string(),
            };
            if error.is_none() {
                self.last_fail = Some(id.clone());
            }
            out.fail(Runner::Bun, FailureKind::Test, &id, error.as_deref());
            return;
        }
        if !self.running {
            return;
        }
        if let Some(c) = FILE.captures(text) {
            self.file = Some(c[1].to_string());
            self.error = None;
            return;
        }
        if text.starts_with("# Unhandled error between tests") {
            self.unhandled = true;
            return;
        }
        if self.error.is_none() && ERROR.is_match(text) {
            let message = text.strip_prefix("error: ").unwrap_or(text);
            let message = cut_message(message);
            if self.unhandled {
                self.unhandled = false;
                let id = self.file.as_deref().unwrap_or("bun test");
                out.fail(Runner::Bun, FailureKind::Error, id, Some(&message));
            } else {
                self.error = Some(message);
            }
        }
    }

    fn wants_every_line(&self) -> bool {
        self.running || self.last_fail.is_some()
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn errors_come_before_their_tests() {
        let log = "bun test v1.4.5 (a7733435c)\n\ntest/parse.test.js:\n\n# Unhandled error between tests\n-------------------------------\nerror: Cannot find module '../src/wordcount-v2' from '/tmp/x/test/parse.test.js'\n-------------------------------\n\ntest/wordcount.test.js:\n 9 |   it('counts three words', () => {\n10 |     assert.equal(countWords('one two three'), 3);\n                ^\nAssertionError: Expected values to be strictly equal:\n\n4 !== 3\n\n      at <anonymous> (/tmp/x/test/wordcount.test.js:10:12)\n(fail) countWords > counts three words [25.77ms]\n(pass) countWords > counts \"a b\" [0.10ms]\n29 |     throw new Error('fixtures source unavailable');\n                                                      ^\nerror: fixtures source unavailable\n      at <anonymous> (/tmp/x/test/wordcount.test.js:29:50)\n(fail) readWords > reads a file [0.06ms]\n(fail) slow > waits [5001.00ms]\n  ^ this test timed out after 5000ms.\n\n 1 pass\n 3 fail\nRan 4 tests across 2 files. [351.00ms]\n";
        let fp = fingerprint_as(log, Runner::Bun);
        assert_eq!(
            triples(&fp),
            [
                (
                    "test/parse.test.js",
                    FailureKind::Error,
                    "Cannot find module '../src/wordcount-v2' from 'test/parse.test.js'"
                ),
                (
                    "test/wordcount.test.js > countWords > counts three words",
                    FailureKind::Test,
                    "AssertionError: Expected values to be strictly equal:"
                ),
                (
                    "test/wordcount.test.js > readWords > reads a file",
                    FailureKind::Test,
                    "fixtures source unavailable"
                ),
                (
                    "test/wordcount.test.js > slow > waits",
                    FailureKind::Timeout,
                    "this test timed out after <dur>."
                ),
            ]
        );
    }

    #[test]
    fn coloured_results() {
        let plain = "bun test v1.4.5 (a7733435c)\n\nx.test.js:\nerror: boom\n(fail) a > b [0.1ms]\nRan 1 test across 1 file. [1.00ms]\n";
        let coloured = "\x1b[0m\x1b[1mbun test \x1b[0m\x1b[2mv1.4.5 (a7733435c)\x1b[0m\n\nx.test.js:\nerror: boom\n\x1b[0m\x1b[31m\u{2717}\x1b[0m \x1b[0ma\x1b[2m >\x1b[0m\x1b[1m b\x1b[0m \x1b[0m\x1b[2m[0.1ms\x1b[0m\x1b[2m]\x1b[0m\nRan 1 test across 1 file. [1.00ms]\n";
        let a = fingerprint_as(plain, Runner::Bun);
        assert_eq!(
            triples(&a),
            [("x.test.js > a > b", FailureKind::Test, "boom")]
        );
        assert_eq!(a.signature, fingerprint_as(coloured, Runner::Bun).signature);
    }

    #[test]
    fn a_passing_run_names_bun() {
        let fp = fingerprint_bytes(b"bun test v1.4.5 (a7733435c)\n\nx.test.js:\n(pass) a [0.1ms]\n\n 1 pass\n 0 fail\nRan 1 test across 1 file. [10.00ms]\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Bun));
    }
}
