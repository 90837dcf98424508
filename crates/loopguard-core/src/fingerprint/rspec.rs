//! RSpec (progress, documentation and the other formatters share the failure report).
//!
//! After `Failures:`, each failure is `  N) full description`, then `Failure/Error: CODE`
//! (the source line that failed), then the error: an exception's class on a line of its
//! own (`NoMethodError:`) with its message below, or a matcher's message
//! (`expected: 3` / `got: 4`). `# ./spec/x_spec.rb:5:in ...` lines are the backtrace. A
//! file that does not load is `An error occurred while loading ./spec/x_spec.rb.` followed
//! by the same `Failure/Error` block: an error of that file. The `Pending:` section lists
//! examples that are expected to fail: not failures.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "rspec" };

pub(crate) const TRIGGERS: &[&str] = &["Failures:", " example", "An error occurred "];

static ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s{2}\d+\) (.+)$").expect("because it is valid"));
static SUMMARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+ examples?, \d+ failures?").expect("because it is valid"));
static EXCEPTION_CLASS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Z][A-Za-z0-9_]*(?:::[A-Z][A-Za-z0-9_]*)*:$").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct RspecParser {
    in_failures: bool,
    failure: Option<Failure>,
}

#[derive(Debug, Default)]
struct Failure {
    id: String,
    kind: FailureKind,
    /// After `Failure/Error:`, and after the blank line that ends the code it quotes (one
    /// line, or several below a bare `Failure/Error:`): the error follows.
    after_code: bool,
    in_error: bool,
    /// The exception class line (`NoMethodError:`) whose message is on the next line.
    class: Option<String>,
    message: Option<String>,
}

impl LineParser for RspecParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        let trimmed = text.trim_start();
        if trimmed.starts_with("Finished in ")
            || trimmed.starts_with("Failed examples:")
            || SUMMARY.is_match(trimmed)
        {
            self.close(out);
            self.in_failures = false;
            if SUMMARY.is_match(trimmed) || trimmed.contains("(files took ") {
                out.saw(Runner::Rspec);
            }
            return;
        }
        if let Some(file) = trimmed
            .strip_prefix("An error occurred while loading ")
            .and_then(|rest| rest.split_whitespace().next())
            .map(|f| f.trim_end_matches('.'))
        {
            self.close(out);
            out.saw(Runner::Rspec);
            self.in_failures = true;
            self.failure = Some(Failure {
                id: file.trim_start_matches("./").to_string(),
                kind: FailureKind::Error,
                ..Failure::default()
            });
            return;
        }
        if let Some(hook) = trimmed.strip_prefix("An error occurred in ") {
            self.close(out);
            out.saw(Runner::Rspec);
            self.in_failures = true;
            self.failure = Some(Failure {
                id: hook.trim_end_matches('.').to_string(),
                kind: FailureKind::Error,
                ..Failure::default()
            });
            return;
        }
        if trimmed == "Failures:" {
            self.close(out);
            out.saw(Runner::Rspec);
            self.in_failures = true;
            return;
        }
        if !self.in_failures {
            return;
        }
        if let Some(c) = ENTRY.captures(text) {
            self.close(out);
            self.failure = Some(Failure {
                id: c[1].trim().to_string(),
                ..Failure::default()
            });
            return;
        }
        if let Some(f) = &mut self.failure {
            f.line(trimmed);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.in_failures
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
    }
}

impl RspecParser {
    fn close(&mut self, out: &mut Collector) {
        if let Some(f) = self.failure.take() {
            let message = f.message.or(f.class);
            out.fail(Runner::Rspec, f.kind, &f.id, message.as_deref());
        }
    }
}

impl Failure {
    fn line(&mut self, trimmed: &str) {
        if self.message.is_some() || trimmed.starts_with("# ") {
            return;
        }
        if trimmed.is_empty() {
            self.in_error |= self.after_code;
            return;
        }
        if !self.after_code {
            // Aggregated failures number their parts: `1.1) Failure/Error: ...`.
            let part = trimmed
                .split_once(") ")
                .filter(|(n, _)| n.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
                .map_or(trimmed, |(_, rest)| rest);
            if part.starts_with("Failure/Error:") {
                self.after_code = true;
            }
            return;
        }
        if !self.in_error {
            return;
        }
        if let Some(class) = &self.class {
            self.message = Some(cut_message(&format!("{class} {trimmed}")));
        } else if EXCEPTION_CLASS.is_match(trimmed) {
            self.class = Some(trimmed.to_string());
        } else {
            self.message = Some(cut_message(trimmed));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn matcher_messages_and_exceptions() {
        let log = "FF.\n\nFailures:\n\n  1) Wordcount.count_words counts three words\n     Failure/Error: expect(Wordcount.count_words(\"one two three\")).to eq(3)\n\n       expected: 3\n            got: 4\n\n       (compared using ==)\n     # ./spec/wordcount_spec.rb:7:in `block (3 levels)'\n\n  2) Wordcount.first_word finds the first word\n     Failure/Error: expect(x.upcase).to eq(\"HELLO\")\n\n     NoMethodError:\n       undefined method `upcase' for nil:NilClass\n     # ./spec/wordcount_spec.rb:19\n\nFinished in 0.01 seconds (files took 0.1 seconds to load)\n3 examples, 2 failures\n\nFailed examples:\n\nrspec ./spec/wordcount_spec.rb:6 # Wordcount.count_words counts three words\n";
        let fp = fingerprint_as(log, Runner::Rspec);
        assert_eq!(
            triples(&fp),
            [
                (
                    "Wordcount.count_words counts three words",
                    FailureKind::Test,
                    "expected: <n>"
                ),
                (
                    "Wordcount.first_word finds the first word",
                    FailureKind::Test,
                    "NoMethodError: undefined method `upcase' for nil:NilClass"
                ),
            ]
        );
    }

    #[test]
    fn a_file_that_does_not_load() {
        let log = "\nAn error occurred while loading ./spec/parse_spec.rb. - Did you mean?\n                    rspec ./spec/wordcount_spec.rb\n\nFailure/Error: require_relative \"../lib/wordcount_v2\"\n\nLoadError:\n  cannot load such file -- /tmp/x/lib/wordcount_v2\n# ./spec/parse_spec.rb:1\n\nFinished in 0.0001 seconds (files took 0.1 seconds to load)\n0 examples, 0 failures, 1 error occurred outside of examples\n";
        let fp = fingerprint_as(log, Runner::Rspec);
        assert_eq!(
            triples(&fp),
            [(
                "spec/parse_spec.rb",
                FailureKind::Error,
                "LoadError: cannot load such file -- lib/wordcount_v2"
            )]
        );
    }

    #[test]
    fn pending_examples_are_no_failures() {
        let log = "..*\n\nPending: (Failures listed here are expected and do not affect your suite's status)\n\n  1) later does a thing\n     # Not yet implemented\n     Failure/Error: expect(1).to eq(2)\n\n       expected: 2\n\nFinished in 0.01 seconds (files took 0.1 seconds to load)\n3 examples, 0 failures, 1 pending\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.signature, None, "{}", fp.render_text());
        assert_eq!(fp.runner, Some(Runner::Rspec));
    }
}
