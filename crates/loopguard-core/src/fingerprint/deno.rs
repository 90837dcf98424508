//! `deno test` (pretty and dot reporters, `--parallel`).
//!
//! Whatever the reporter, the run ends with ` ERRORS `: `name => ./test/x_test.ts:4:6`
//! (steps joined by ` ... `) and `error: Type: message` below, then ` FAILURES ` listing
//! them again. Before any test runs, `deno test` type-checks: `TS2322 [ERROR]: message`
//! with `at file:///.../x_test.ts:5:9` below is a build failure of that file, named as tsc
//! names it (`error TS2322: ...`). The id is `test/x_test.ts > name > step`.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "deno" };

/// `running 3 tests from ./x_test.ts` is found by ` from ./`: cargo's `running 3 tests`
/// is not deno's.
pub(crate) const TRIGGERS: &[&str] = &[
    " ERRORS ",
    " FAILURES ",
    " => ./",
    " from ./",
    "[ERROR]: ",
    " passed | ",
    " passed (",
];

static ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+?) => \./(\S+?):\d+:\d+$").expect("because it is valid"));
static TYPE_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(TS\d+) \[ERROR\]: (.+)$").expect("because it is valid"));
static AT_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+at (?:file://)?(\S+?):\d+:\d+$").expect("because it is valid")
});
static SUMMARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:ok|FAILED) \| \d+ passed").expect("because it is valid"));
static RUNNING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^running \d+ tests? from \./").expect("because it is valid"));

#[derive(Debug, Default)]
enum Section {
    #[default]
    None,
    Errors,
    Failures,
}

#[derive(Debug, Default)]
pub(crate) struct DenoParser {
    section: Section,
    /// The `ERRORS` entry whose `error:` line comes next.
    entry: Option<String>,
    /// A type-check error whose `at file:` line comes within a few lines.
    type_error: Option<(String, u8)>,
}

impl LineParser for DenoParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        let trimmed = text.trim();
        if let Some((message, left)) = self.type_error.take() {
            if let Some(c) = AT_FILE.captures(text) {
                out.fail(Runner::Deno, FailureKind::Build, &c[1], Some(&message));
                return;
            }
            if left > 1 && !TYPE_ERROR.is_match(trimmed) {
                self.type_error = Some((message, left - 1));
                return;
            }
        }
        if trimmed == "ERRORS" {
            out.saw(Runner::Deno);
            self.section = Section::Errors;
            return;
        }
        if trimmed == "FAILURES" {
            self.close(out);
            self.section = Section::Failures;
            return;
        }
        // Cheap tests first (what each pattern cannot match without): most lines that
        // reach here are another runner's `running ...` or `... passed (`.
        let summary = (trimmed.starts_with("ok |") || trimmed.starts_with("FAILED |"))
            && SUMMARY.is_match(trimmed);
        let running = trimmed.starts_with("running ") && trimmed.contains(" from ./");
        if summary || (running && RUNNING.is_match(trimmed)) {
            self.close(out);
            out.saw(Runner::Deno);
            self.section = Section::None;
            return;
        }
        if let Some(c) = trimmed
            .starts_with("TS")
            .then(|| TYPE_ERROR.captures(trimmed))
            .flatten()
        {
            let message = cut_message(&format!("error {}: {}", &c[1], &c[2]));
            self.type_error = Some((message, 12));
            return;
        }
        match self.section {
            Section::None => {}
            Section::Errors => {
                if let Some(c) = ENTRY.captures(text) {
                    self.close(out);
                    self.entry = Some(id(&c[2], &c[1]));
                } else if let Some(id) = &self.entry
                    && let Some(message) = trimmed.strip_prefix("error: ")
                {
                    let kind = if message.contains("timed out") {
                        FailureKind::Timeout
                    } else {
                        FailureKind::Test
                    };
                    out.fail(Runner::Deno, kind, id, Some(&cut_message(message)));
                    self.entry = None;
                }
            }
            Section::Failures => {
                if let Some(c) = ENTRY.captures(text) {
                    out.fail(Runner::Deno, FailureKind::Test, &id(&c[2], &c[1]), None);
                }
            }
        }
    }

    fn wants_every_line(&self) -> bool {
        !matches!(self.section, Section::None) || self.type_error.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
    }
}

impl DenoParser {
    fn close(&mut self, out: &mut Collector) {
        if let Some(id) = self.entry.take() {
            out.fail(Runner::Deno, FailureKind::Test, &id, None);
        }
    }
}

/// `test/x_test.ts > test > step` from the file and deno's `test ... step`.
fn id(file: &str, name: &str) -> String {
    format!("{file} > {}", name.replace(" ... ", " > "))
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn the_errors_section() {
        let log = "running 3 tests from ./test/wordcount_test.ts\ncountWords ...\n  counts three words ... FAILED (3ms)\ncountWords ... FAILED (due to 1 failed step) (193ms)\nreads a file ... FAILED (4ms)\n\n ERRORS \n\ncountWords ... counts three words => ./test/wordcount_test.ts:5:11\nerror: AssertionError: Expected values to be strictly equal:\n\n4 !== 3\n\n    at file:///tmp/x/test/wordcount_test.ts:6:12\n\nreads a file => ./test/wordcount_test.ts:19:6\nerror: NotFound: No such file or directory (os error 2): readfile '/tmp/wc-6c3a834e40d4a8a6/words.txt'\n\n FAILURES \n\ncountWords ... counts three words => ./test/wordcount_test.ts:5:11\nreads a file => ./test/wordcount_test.ts:19:6\n\nFAILED | 0 passed (3 steps) | 2 failed (1 step) (1s)\n\nerror: Test failed\n";
        let fp = fingerprint_as(log, Runner::Deno);
        assert_eq!(
            triples(&fp),
            [
                (
                    "test/wordcount_test.ts > countWords > counts three words",
                    FailureKind::Test,
                    "AssertionError: Expected values to be strictly equal:"
                ),
                (
                    "test/wordcount_test.ts > reads a file",
                    FailureKind::Test,
                    "NotFound: No such file or directory (os error <n>): readfile '<tmp>/words.txt'"
                ),
            ]
        );
    }

    #[test]
    fn type_check_errors_are_build_failures() {
        let log = "Check test/parse_test.ts\nTS2322 [ERROR]: Type 'string | null' is not assignable to type 'number'.\n  Type 'null' is not assignable to type 'number'.\n  const n: number = firstWord(\"x\");\n        ^\n    at file:///tmp/x/test/parse_test.ts:5:9\n\nerror: Type checking failed.\n";
        let fp = fingerprint_as(log, Runner::Deno);
        assert_eq!(
            triples(&fp),
            [(
                "test/parse_test.ts",
                FailureKind::Build,
                "error TS2322: Type 'string | null' is not assignable to type 'number'."
            )]
        );
    }

    #[test]
    fn a_passing_run_names_deno() {
        let fp = fingerprint_bytes(b"running 1 test from ./test/x_test.ts\na ... ok (1ms)\n\nok | 1 passed | 0 failed (12ms)\n\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Deno));
    }
}
