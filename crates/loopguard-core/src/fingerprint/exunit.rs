//! Elixir's ExUnit (`mix test`, `--trace`, any seed).
//!
//! Each failure is `  N) test NAME (Module)` (or `doctest ...`), the test's `file:line`,
//! then the error: `** (ErrorModule) message` for an exception, `Assertion with == failed`
//! or another assertion's first line. `Module: failure on setup_all callback` fails the
//! whole module. A test file that does not compile is `== Compilation error in file F ==`
//! with `** (CompileError) ...`: a build failure of that file.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "exunit" };

pub(crate) const TRIGGERS: &[&str] = &[
    ") test ",
    ") doctest ",
    ": failure on setup_all",
    "Compilation error in file",
    " tests, ",
    " test, ",
    "Finished in ",
];

static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+\d+\) ((?:test|doctest) .+ \([\w.]+\))$").expect("because it is valid")
});
static SETUP_ALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+\d+\) ([\w.]+): failure on setup_all callback").expect("because it is valid")
});
static COMPILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^== Compilation error in file (\S+) ==$").expect("because it is valid")
});
static LOCATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\S+\.exs?:\d+$").expect("because it is valid"));
/// The directory `@tag :tmp_dir` gives a test: `tmp/<Module>/<test name>-<hash>/` under
/// the project, wherever the project is.
static TMP_DIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(^|[\s"'(])[^\s"'()]*?\btmp[/\\]+[A-Z][\w.]*[/\\]+[^/\\\s"']+[/\\]+"#)
        .expect("because it is valid")
});
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d+ (?:tests?|doctests?|propert(?:y|ies))(?:, \d+ \w+)*, \d+ failures?")
        .expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct ExunitParser {
    /// The failure whose error line comes next.
    pending: Option<(String, FailureKind)>,
}

impl LineParser for ExunitParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        let trimmed = text.trim_start();
        if let Some((id, kind)) = &self.pending {
            if trimmed.is_empty() || LOCATION.is_match(trimmed) {
                return;
            }
            if !is_header(text) {
                let kind = if trimmed.starts_with("** (ExUnit.TimeoutError)") {
                    FailureKind::Timeout
                } else {
                    *kind
                };
                let message = TMP_DIR.replace_all(trimmed, "${1}<tmp>/");
                let message = cut_message(&message);
                out.fail(Runner::Exunit, kind, id, Some(&message));
                self.pending = None;
                return;
            }
            out.fail(Runner::Exunit, *kind, id, None);
            self.pending = None;
        }
        if let Some(c) = text.contains(")").then(|| ENTRY.captures(text)).flatten() {
            out.saw(Runner::Exunit);
            self.pending = Some((c[1].to_string(), FailureKind::Test));
        } else if let Some(c) = SETUP_ALL.captures(text) {
            out.saw(Runner::Exunit);
            self.pending = Some((format!("setup_all ({})", &c[1]), FailureKind::Error));
        } else if let Some(c) = COMPILE.captures(trimmed) {
            self.pending = Some((c[1].to_string(), FailureKind::Build));
        } else if SUMMARY.is_match(trimmed) || is_finished(trimmed) {
            out.saw(Runner::Exunit);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.pending.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        if let Some((id, kind)) = self.pending.take() {
            out.fail(Runner::Exunit, kind, &id, None);
        }
    }
}

/// `Finished in 0.2 seconds (0.2s async, 0.00s sync)` (older: `(0.02s on load, ...)`);
/// RSpec's `Finished in` says `(files took ...)`.
fn is_finished(trimmed: &str) -> bool {
    trimmed.starts_with("Finished in ")
        && (trimmed.contains("s async") || trimmed.contains("s on load"))
}

fn is_header(text: &str) -> bool {
    ENTRY.is_match(text) || SETUP_ALL.is_match(text) || COMPILE.is_match(text.trim_start())
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn assertions_exceptions_and_timeouts() {
        let log = "\n\n  1) test count_words/1 counts three words (WordcountTest)\n     test/wordcount_test.exs:5\n     Assertion with == failed\n     code:  assert Wordcount.count_words(\"one two three\") == 3\n     left:  4\n     right: 3\n     stacktrace:\n       test/wordcount_test.exs:6: (test)\n\n\n  2) test first word (WordcountTest)\n     test/wordcount_test.exs:18\n     ** (FunctionClauseError) no function clause matching in String.upcase/2\n\n  3) test slow (SlowTest)\n     test/slow_test.exs:3\n     ** (ExUnit.TimeoutError) test timed out after 100ms. You can change the timeout:\n\nFinished in 0.2 seconds (0.2s async, 0.00s sync)\n8 tests, 3 failures\n\nRandomized with seed 869586\n";
        let fp = fingerprint_as(log, Runner::Exunit);
        assert_eq!(
            triples(&fp),
            [
                (
                    "test count_words/1 counts three words (WordcountTest)",
                    FailureKind::Test,
                    "Assertion with == failed"
                ),
                (
                    "test first word (WordcountTest)",
                    FailureKind::Test,
                    "** (FunctionClauseError) no function clause matching in String.upcase/<n>"
                ),
                (
                    "test slow (SlowTest)",
                    FailureKind::Timeout,
                    "** (ExUnit.TimeoutError) test timed out after <dur>. You can change the timeout:"
                ),
            ]
        );
    }

    #[test]
    fn setup_all_and_compile_errors() {
        let log = "  1) ParseTest: failure on setup_all callback, all tests have been invalidated\n     ** (RuntimeError) no sentences\n\n== Compilation error in file test/other_test.exs ==\n** (CompileError) test/other_test.exs:3: undefined function nope/0\n";
        let fp = fingerprint_as(log, Runner::Exunit);
        assert_eq!(
            triples(&fp),
            [
                (
                    "setup_all (ParseTest)",
                    FailureKind::Error,
                    "** (RuntimeError) no sentences"
                ),
                (
                    "test/other_test.exs",
                    FailureKind::Build,
                    "** (CompileError) test/other_test.exs: undefined function nope/<n>"
                ),
            ]
        );
    }

    #[test]
    fn a_tests_tmp_dir_is_a_temp_dir_wherever_the_project_is() {
        let message = |path: &str| {
            let log = format!(
                "  1) test reads (WcTest)\n     test/wc_test.exs:3\n     ** (File.Error) could not read file \"{path}/settings.ini\": no such file or directory\n"
            );
            fingerprint_bytes(log.as_bytes()).failures[0]
                .message
                .clone()
        };
        let m = message("/home/runner/work/wc/wc/tmp/WcTest/test-reads-1a2b3c4d");
        assert_eq!(
            m,
            "** (File.Error) could not read file \"<tmp>/settings.ini\": no such file or directory"
        );
        assert_eq!(
            m,
            message("/tmp/lg.x/run.y/wc/tmp/WcTest/test-reads-9f8e7d6c")
        );
        assert_eq!(m, message(r"D:\a\wc\wc\tmp\WcTest\test-reads-1a2b3c4d"));
    }

    #[test]
    fn a_passing_run_names_exunit() {
        let fp = fingerprint_bytes(b"....\nFinished in 0.03 seconds (0.00s async, 0.03s sync)\n4 tests, 0 failures\n\nRandomized with seed 1\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Exunit));
    }
}
