//! bats' pretty formatter (`bats -p`, the default on a terminal): a failing test is
//! `✗ name` (after the progress redraw of its line), then `(in test file F, line N)`. The
//! failure is the same as in bats' TAP (`not ok N name`, read by [`super::tap`]): the test's
//! name, with TAP's default message, so both formatters give one signature. A `✗` line is
//! bats' only when the `(in test file` line follows it.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner};

pub(crate) const TRIGGERS: &[&str] = &["\u{2717} ", "(in test file "];

#[derive(Debug, Default)]
pub(crate) struct BatsParser {
    /// The test of the last `✗` line, until the next line the parser sees.
    crossed: Option<String>,
}

impl LineParser for BatsParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim();
        let crossed = self.crossed.take();
        if let Some((_, name)) = text.rsplit_once("\u{2717} ") {
            let name = name.trim();
            if !name.is_empty() {
                self.crossed = Some(name.to_string());
            }
        } else if text.starts_with("(in test file ")
            && let Some(name) = crossed
        {
            out.saw(Runner::Tap);
            out.fail(Runner::Tap, FailureKind::Test, &name, None);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.crossed.is_some()
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::{Runner, fingerprint_bytes};

    #[test]
    fn a_crossed_test_is_its_taps_failure() {
        let pretty = "stock.bats\n \u{2713} take removes items\n   total counts every item3/4 \u{2717} total counts every item\n   (in test file test/stock.bats, line 7)\n     `[ \"$output\" -eq 12 ]' failed\n\n4 tests, 1 failure\n";
        let tap = "1..4\nok 1 take removes items\nnot ok 3 total counts every item\n# (in test file test/stock.bats, line 7)\n#   `[ \"$output\" -eq 12 ]' failed\n";
        let a = fingerprint_bytes(pretty.as_bytes());
        assert_eq!(a.failures.len(), 1, "{}", a.render_text());
        assert_eq!(a.signature, fingerprint_bytes(tap.as_bytes()).signature);
        // A cross without bats' next line is not bats'.
        let other =
            fingerprint_bytes("\u{2717} total counts every item\nsomething else\n".as_bytes());
        assert!(
            other.failures.iter().all(|f| f.runner != Runner::Tap),
            "{}",
            other.render_text()
        );
    }
}
