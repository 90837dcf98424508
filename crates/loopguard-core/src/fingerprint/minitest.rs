//! Ruby's minitest (`rake test`, `ruby -Itest test/x_test.rb`, `-v`, any seed).
//!
//! Each failure is `  N) Failure:` or `  N) Error:`, then `Class#test_name [file:line]:`
//! (a failure) or `Class#test_name:` (an error), then the message: the assertion's first
//! line (`Expected: 3`) or the exception (`NoMethodError: undefined method ...`), then the
//! backtrace. A test file that does not load never reaches minitest: Ruby stops with
//! `test/x_test.rb:2:in 'require_relative': cannot load such file -- ... (LoadError)`,
//! which is an error of that file.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "minitest" };

pub(crate) const TRIGGERS: &[&str] = &[
    "Failure:",
    "Error:",
    " runs, ",
    "Run options:",
    "Error)",
    "Exception)",
];

static ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+\) (Failure|Error):$").expect("because it is valid"));
static NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+#\S+?)(?: \[[^\]]*\])?:$").expect("because it is valid"));
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d+ runs, \d+ assertions, \d+ failures, \d+ errors").expect("because it is valid")
});
/// Ruby's own report of an exception nobody rescued, raised while loading a test file.
static UNCAUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\S*?(?:_test|test_\w*)\.rb):\d+:in [`'][^`']*': (.+) \(([A-Z]\w*(?:::[A-Z]\w*)*)\)$",
    )
    .expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct MinitestParser {
    entry: Option<Entry>,
}

#[derive(Debug, Default)]
struct Entry {
    name: Option<String>,
    message: Option<String>,
}

impl LineParser for MinitestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(entry) = &mut self.entry {
            if entry.name.is_none() {
                match NAME.captures(text) {
                    Some(c) => entry.name = Some(c[1].to_string()),
                    None => self.entry = None,
                }
                return;
            }
            if !text.trim().is_empty() && !ENTRY.is_match(text) && !SUMMARY.is_match(text) {
                entry.message = Some(cut_message(text.trim()));
                self.close(out);
                return;
            }
            self.close(out);
        }
        if text.ends_with(':') && ENTRY.is_match(text) {
            out.saw(Runner::Minitest);
            self.entry = Some(Entry::default());
        } else if text.starts_with("Run options:") || SUMMARY.is_match(text) {
            out.saw(Runner::Minitest);
        } else if let Some(c) = text
            .ends_with(')')
            .then(|| UNCAUGHT.captures(text))
            .flatten()
        {
            out.saw(Runner::Minitest);
            let message = format!("{}: {}", &c[3], &c[2]);
            out.fail(Runner::Minitest, FailureKind::Error, &c[1], Some(&message));
        }
    }

    fn wants_every_line(&self) -> bool {
        self.entry.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
    }
}

impl MinitestParser {
    fn close(&mut self, out: &mut Collector) {
        if let Some(Entry {
            name: Some(name),
            message,
        }) = self.entry.take()
        {
            let message = message.map(|m| {
                m.strip_prefix("Minitest::UnexpectedError: ")
                    .map_or(m.clone(), str::to_string)
            });
            out.fail(
                Runner::Minitest,
                FailureKind::Test,
                &name,
                message.as_deref(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn failures_and_errors() {
        let log = "Run options: --seed 18395\n\n# Running:\n\nF.E\n\nFinished in 0.002331s, 2144.7 runs/s, 1286.8 assertions/s.\n\n  1) Failure:\nCountWordsTest#test_counts_three_words [/tmp/x/test/wordcount_test.rb:7]:\nExpected: 3\n  Actual: 4\n\n  2) Error:\nFirstWordTest#test_first_word:\nNoMethodError: undefined method `upcase' for nil:NilClass\n    /tmp/x/test/wordcount_test.rb:17:in `test_first_word'\n\n3 runs, 3 assertions, 1 failures, 1 errors, 0 skips\n";
        let fp = fingerprint_as(log, Runner::Minitest);
        assert_eq!(
            triples(&fp),
            [
                (
                    "CountWordsTest#test_counts_three_words",
                    FailureKind::Test,
                    "Expected: <n>"
                ),
                (
                    "FirstWordTest#test_first_word",
                    FailureKind::Test,
                    "NoMethodError: undefined method `upcase' for nil:NilClass"
                ),
            ]
        );
    }

    #[test]
    fn a_test_file_that_does_not_load() {
        let log = "/tmp/x/test/parse_test.rb:2:in `require_relative': cannot load such file -- /tmp/x/lib/wordcount_v2 (LoadError)\n\tfrom /tmp/x/test/parse_test.rb:2:in `<top (required)>'\nrake aborted!\n";
        let fp = fingerprint_as(log, Runner::Minitest);
        assert_eq!(
            triples(&fp),
            [(
                "test/parse_test.rb",
                FailureKind::Error,
                "LoadError: cannot load such file -- lib/wordcount_v2"
            )]
        );
    }

    #[test]
    fn a_passing_run_names_minitest() {
        let fp = fingerprint_bytes(b"Run options: --seed 1\n\n# Running:\n\n...\n\nFinished in 0.001s, 1 runs/s.\n\n3 runs, 3 assertions, 0 failures, 0 errors, 0 skips\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Minitest));
    }
}
