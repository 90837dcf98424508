//! Criterion, the C and C++ testing framework (its console: plain, `--verbose`, `-j1`,
//! `--ascii`, colour).
//!
//! A failed assertion is a block, `[----] file:line: Assertion Failed` and the message's
//! lines below it (`[----]   cannot read ...`, framed by empty ones); `[----] file:line:
//! Unexpected signal caught below this line!` is a crash's. The test's verdict follows:
//! `[FAIL] suite::test: (0.01s)`, `[FAIL] suite::test: CRASH!`, `[FAIL] suite::test: Timed
//! out.`; `--verbose` adds `[RUN ]` and `[PASS]` lines. A test whose `.init` failed has no
//! verdict but `[----] Warning! The test `suite::test` crashed during its setup or
//! teardown.` after its block: an error of the test. The run ends with `[====]
//! Synthesis: Tested: N | Passing: N | Failing: N | Crashing: N`. The id is `suite::test`,
//! the message the first block since the verdict before it (tests run in parallel
//! workers, but a worker's blocks and its verdict reach the console together).

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};

pub(crate) const RUNNER: Descriptor = Descriptor { name: "criterion" };

/// Colour puts escapes inside the brackets (`[\x1b[0;31mFAIL\x1b[0m] `): the words, and the
/// lines of a block, which the parser asks for while a block is pending its verdict.
pub(crate) const TRIGGERS: &[&str] = &[
    "[----] ",
    "[FAIL] ",
    "FAIL\u{1b}[0m] ",
    ": Assertion Failed",
    "Unexpected signal caught below this line!",
    "Synthesis: Tested: ",
    " crashed during its setup or teardown.",
];

/// Lines of a block that make its message.
const MESSAGE_LINES: usize = 6;

#[derive(Debug, Default)]
pub(crate) struct CriterionParser {
    /// The blocks since the last verdict: what each said (its lines joined, else its
    /// header's words).
    blocks: Vec<String>,
    /// The lines of the block being read, and its header's words.
    block: Option<(Vec<String>, String)>,
}

impl LineParser for CriterionParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        // A block's empty lines are `[----]   `, trimmed to `[----]`.
        if text == "[----]" && self.block.is_some() {
            return;
        }
        if let Some(rest) = text.strip_prefix("[----] ") {
            if let Some(id) = setup_crash(rest) {
                self.end_block();
                return self.report(id, FailureKind::Error, out);
            }
            match (&mut self.block, rest.strip_prefix("  ")) {
                (Some((lines, _)), Some(more)) => {
                    if !more.trim().is_empty() && lines.len() < MESSAGE_LINES {
                        lines.push(more.trim().to_string());
                    }
                }
                _ => {
                    self.end_block();
                    if let Some(what) = block_header(rest) {
                        self.block = Some((Vec::new(), what.to_string()));
                    }
                }
            }
            return;
        }
        self.end_block();
        if let Some(rest) = text.strip_prefix("[FAIL] ") {
            self.verdict(rest, out);
        } else if let Some(rest) = text.strip_prefix("[====] Synthesis: ") {
            out.saw(Runner::Criterion);
            if !rest.contains("| Failing: 0 |") || !rest.trim_end().ends_with("Crashing: 0") {
                out.said_failed();
            }
            self.blocks.clear();
        }
    }

    fn wants_every_line(&self) -> bool {
        self.block.is_some() || !self.blocks.is_empty()
    }
}

impl CriterionParser {
    fn end_block(&mut self) {
        if let Some((lines, header)) = self.block.take() {
            let what = if lines.is_empty() {
                header
            } else {
                lines.join(" ")
            };
            self.blocks.push(cut_message(&what));
        }
    }

    /// `suite::test: (0.01s)`, `suite::test: CRASH!`, `suite::test: Timed out. (1.00s)`.
    fn verdict(&mut self, rest: &str, out: &mut Collector) {
        let Some((id, how)) = rest.split_once(": ") else {
            return;
        };
        if !id.contains("::") || id.contains(' ') {
            return;
        }
        out.saw(Runner::Criterion);
        let kind = if how.starts_with("CRASH") {
            FailureKind::Crash
        } else if how.starts_with("Timed out") {
            FailureKind::Timeout
        } else {
            FailureKind::Test
        };
        self.report(id, kind, out);
        self.blocks.clear();
    }

    /// A failure of test `id`, its message the first block not yet taken.
    fn report(&mut self, id: &str, kind: FailureKind, out: &mut Collector) {
        out.saw(Runner::Criterion);
        let message = (!self.blocks.is_empty()).then(|| self.blocks.remove(0));
        out.fail(Runner::Criterion, kind, id, message.as_deref());
    }
}

/// `Warning! The test `suite::test` crashed during its setup or teardown.`: the test.
fn setup_crash(rest: &str) -> Option<&str> {
    let test = rest.strip_prefix("Warning! The test `")?;
    let (id, tail) = test.split_once('`')?;
    (tail == " crashed during its setup or teardown.").then_some(id)
}

/// What a block's header says after `file:line: ` (`Assertion Failed`, `Unexpected signal
/// caught below this line!`); `None` for another `[----]` line (the banner, a log line).
fn block_header(rest: &str) -> Option<&str> {
    let (place, what) = rest.split_once(": ")?;
    let (file, line) = place.rsplit_once(':')?;
    let placed = !file.is_empty() && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit());
    placed.then_some(what.trim())
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    const LOG: &str = "[----] crit.c:8: Unexpected signal caught below this line!\n[FAIL] stock::crash: CRASH!\n\
        [----] crit.c:7: Assertion Failed\n[----]   \n[----]   cannot open /tmp/x1/r.csv\n[----]   \n\
        [FAIL] report::opens: (0.01s)\n[PASS] stock::passes: (0.02s)\n\
        [----] crit.c:4: Assertion Failed\n[----]   \n[----]   total of 3\n[----]   \n[FAIL] stock::totals: (0.01s)\n\
        [====] Synthesis: Tested: 4 | Passing: 1 | Failing: 3 | Crashing: 1 \n";

    #[test]
    fn blocks_are_the_message_of_the_verdict_after_them() {
        let fp = fingerprint_as(LOG, Runner::Criterion);
        let t = triples(&fp);
        assert_eq!(t.len(), 3, "{}", fp.render_text());
        assert_eq!(
            t[0],
            (
                "report::opens",
                FailureKind::Test,
                "cannot open <tmp>/r.csv"
            )
        );
        assert_eq!(t[1].0, "stock::crash");
        assert_eq!(t[1].1, FailureKind::Crash);
        assert_eq!(t[1].2, "Unexpected signal caught below this line!");
        assert_eq!(t[2].0, "stock::totals");
        assert_eq!(t[2].2, "total of <n>");
    }

    #[test]
    fn verbose_output_and_a_passing_run() {
        let verbose = format!(
            "[----] Criterion v2.4.1\n[====] Running 4 tests from stock:\n[RUN ] stock::crash\n{}",
            LOG.replace("[FAIL] report", "[RUN ] report::opens\n[FAIL] report")
        );
        assert_eq!(
            fingerprint_as(verbose, Runner::Criterion).signature,
            fingerprint_as(LOG, Runner::Criterion).signature
        );
        let setup = "[----] t.c:11: Assertion Failed\n[----]   \n[----]   locked\n[----]   \n\
            [----] Warning! The test `stock::totals` crashed during its setup or teardown.\n";
        let fp = fingerprint_as(setup, Runner::Criterion);
        assert_eq!(
            triples(&fp).first().copied(),
            Some(("stock::totals", FailureKind::Error, "locked"))
        );
        let passing = "[====] Synthesis: Tested: 1 | Passing: 1 | Failing: 0 | Crashing: 0 \n";
        assert_eq!(fingerprint_as(passing, Runner::Criterion).signature, None);
    }
}
