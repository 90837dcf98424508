//! GoogleTest's console (a test binary run directly: plain, `--gtest_brief`, colour,
//! `--gtest_shuffle`, `--gtest_print_time=0`, `--gtest_repeat`).
//!
//! A failing check prints a block, `file:line: Failure` (`unknown file: Failure` for an
//! exception) and the check's lines (`Expected equality of these values:`, the values), and
//! the test ends with `[  FAILED  ] Suite.Test (N ms)`; `--gtest_brief` prints the same
//! block and verdict without the `[ RUN      ]` lines around them. The message is the first
//! block's lines joined (the values are normalised away like every value). The closing list
//! repeats `[  FAILED  ] Suite.Test`; parametrized and typed tests add `, where GetParam() =
//! ...` (left out: the id names the instance). A test that was running when the output
//! ended without the run's closing `[==========] ... ran.` crashed (an abort, a signal).

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};

pub(crate) const RUNNER: Descriptor = Descriptor { name: "gtest" };

pub(crate) const TRIGGERS: &[&str] = &["[ RUN      ]", "[  FAILED  ]", ": Failure", "[==========]"];

/// Lines of a failure block that make its message.
const MESSAGE_LINES: usize = 4;

#[derive(Debug, Default)]
pub(crate) struct GtestParser {
    /// The test whose `[ RUN      ]` line came last and has no verdict yet.
    running: Option<String>,
    /// Inside a failure block: its lines so far.
    block: Option<Vec<String>>,
    /// The message of the last block, for the verdict that follows it.
    message: Option<String>,
}

impl LineParser for GtestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(block) = &mut self.block {
            if !text.starts_with('[') {
                let trimmed = text.trim();
                if !trimmed.is_empty() && block.len() < MESSAGE_LINES {
                    block.push(trimmed.to_string());
                }
                return;
            }
            let lines = self.block.take().unwrap_or_default();
            if self.message.is_none() {
                self.message = Some(cut_message(&lines.join(" ")));
            }
        }
        if let Some(test) = text.strip_prefix("[ RUN      ] ") {
            out.saw(Runner::Gtest);
            self.running = Some(test.trim().to_string());
            self.message = None;
        } else if let Some(rest) = text.strip_prefix("[  FAILED  ] ") {
            self.verdict(rest, out);
        } else if text.starts_with("[==========] ") {
            out.saw(Runner::Gtest);
            if text.ends_with(" total)") || text.contains(" ran.") {
                self.running = None;
            }
        } else if is_failure_line(text) {
            self.block = Some(Vec::new());
        }
    }

    fn wants_every_line(&self) -> bool {
        self.block.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.block = None;
        if let Some(test) = self.running.take() {
            out.fail(Runner::Gtest, FailureKind::Crash, &test, None);
        }
    }
}

impl GtestParser {
    /// `[  FAILED  ] Suite.Test (N ms)`, `[  FAILED  ] Suite.Test` (the closing list, or
    /// without times), not `[  FAILED  ] 2 tests, listed below:`.
    fn verdict(&mut self, rest: &str, out: &mut Collector) {
        let rest = rest.trim();
        if rest.starts_with(|c: char| c.is_ascii_digit()) && rest.contains(" test") {
            out.saw(Runner::Gtest);
            return;
        }
        let head = rest.split_once(", where ").map_or(rest, |(id, _)| id);
        let id = head
            .strip_suffix(" ms)")
            .and_then(|h| h.rsplit_once(" ("))
            .map_or(head, |(id, _)| id)
            .trim();
        if id.is_empty() || id.contains(' ') {
            return;
        }
        out.saw(Runner::Gtest);
        if self.running.as_deref() == Some(id) {
            self.running = None;
        }
        out.fail(
            Runner::Gtest,
            FailureKind::Test,
            id,
            self.message.take().as_deref(),
        );
    }
}

/// `file:line: Failure`, `unknown file: Failure`, `file(line): Failure` (MSVC's).
fn is_failure_line(text: &str) -> bool {
    let Some(place) = text.strip_suffix(": Failure") else {
        return false;
    };
    place == "unknown file"
        || place.rsplit_once(':').is_some_and(|(file, line)| {
            !file.is_empty() && line.bytes().all(|b| b.is_ascii_digit())
        })
        || place.ends_with(')') && place.contains('(')
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    const PLAIN: &str = "Running main() from ./googletest/src/gtest_main.cc\n\
        [==========] Running 3 tests from 2 test suites.\n\
        [ RUN      ] CountWords.CountsThreeWords\n\
        tests/count_test.cc:5: Failure\nExpected equality of these values:\n  count_words(\"one two three\")\n    Which is: 4\n  3\n\
        [  FAILED  ] CountWords.CountsThreeWords (0 ms)\n\
        [ RUN      ] CountWords.BlankIsZero\n[       OK ] CountWords.BlankIsZero (0 ms)\n\
        [ RUN      ] Read.File\nunknown file: Failure\nC++ exception with description \"cannot open /tmp/wc-a1b2/x\" thrown in the test body.\n\
        [  FAILED  ] Read.File (1 ms)\n\
        [==========] 3 tests from 2 test suites ran. (1 ms total)\n[  PASSED  ] 1 test.\n\
        [  FAILED  ] 2 tests, listed below:\n[  FAILED  ] CountWords.CountsThreeWords\n[  FAILED  ] Read.File\n\n 2 FAILED TESTS\n";

    #[test]
    fn failure_blocks_name_their_test() {
        let fp = fingerprint_as(PLAIN, Runner::Gtest);
        let t = triples(&fp);
        assert_eq!(t.len(), 2, "{}", fp.render_text());
        assert_eq!(t[0].0, "CountWords.CountsThreeWords");
        assert_eq!(t[0].1, FailureKind::Test);
        assert!(
            t[0].2.starts_with("Expected equality of these values:"),
            "{t:?}"
        );
        assert_eq!(t[1].0, "Read.File");
        assert!(
            t[1].2.starts_with("C++ exception with description"),
            "{t:?}"
        );
    }

    #[test]
    fn brief_output_is_the_same_failure() {
        let brief: String = PLAIN
            .lines()
            .filter(|l| !l.starts_with("[ RUN") && !l.starts_with("[       OK"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            fingerprint_as(&brief, Runner::Gtest).signature,
            fingerprint_as(PLAIN, Runner::Gtest).signature
        );
    }

    #[test]
    fn a_test_running_when_the_output_ends_crashed() {
        let log = "[==========] Running 2 tests from 1 test suite.\n[ RUN      ] A.B\n[       OK ] A.B (0 ms)\n\
            [ RUN      ] A.C\ntests.bin: x.cpp:3: int f(): Assertion `n' failed.\n";
        let fp = fingerprint_as(log, Runner::Gtest);
        assert_eq!(triples(&fp), [("A.C", FailureKind::Crash, "crashed")]);
    }

    #[test]
    fn parametrized_ids_and_a_passing_run() {
        let log = "[ RUN      ] Sizes/Grow.Doubles/1\nx.cc:9: Failure\nValue of: grow(GetParam())\n  Actual: false\nExpected: true\n\
            [  FAILED  ] Sizes/Grow.Doubles/1, where GetParam() = 4 (0 ms)\n\
            [==========] 1 test from 1 test suite ran. (0 ms total)\n";
        let fp = fingerprint_as(log, Runner::Gtest);
        assert_eq!(triples(&fp)[0].0, "Sizes/Grow.Doubles/1");
        let passing = "[==========] Running 1 test from 1 test suite.\n[ RUN      ] A.B\n[       OK ] A.B (0 ms)\n\
            [==========] 1 test from 1 test suite ran. (0 ms total)\n[  PASSED  ] 1 test.\n";
        let fp = fingerprint_as(passing, Runner::Gtest);
        assert_eq!(fp.signature, None);
    }
}
