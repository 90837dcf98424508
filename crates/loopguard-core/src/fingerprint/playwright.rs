//! Playwright Test, `list`, `line` and `dot` reporters (its JUnit report is JUnit's).
//!
//! Every reporter prints the same failure report: `  1) [project] › tests/x.spec.ts:3:5 ›
//! suite › title ───`, the error on the first line below (`Error: expect(received)...`,
//! `Test timeout of 500ms exceeded.`), and `Retry #1 ───` sections for the retries. The
//! closing summary lists `N failed` and `N flaky` tests: a flaky test (it passed on a
//! retry) is no failure. A test file that does not load stops the run before it starts:
//! `Error: ...` with `   at x.spec.ts:2` below names the file.
//!
//! The id is the header's title with its `:line:col` dropped (the normaliser does it), so
//! a shifted test is the same test.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "playwright" };

/// The run's header, `Running 7 tests using 2 workers`, is found by its middle: other tools
/// print `Running ...` lines too (cargo one per test binary), and in colour the count
/// stands in its own escapes (`Running \e[22m7\e[2m tests using`).
pub(crate) const TRIGGERS: &[&str] = &[
    " \u{203a} ",
    " tests using ",
    " test using ",
    " failed",
    " flaky",
    " passed (",
    "Error: ",
];

/// Lines after a bare `Error:` within which a load error names its file.
const LOAD_ERROR_WINDOW: u8 = 12;

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s{2}\d+\) (\S.* \u{203a} .+?)\s*\u{2500}*$").expect("because it is valid")
});
static RUNNING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Running \d+ tests? using \d+ workers?").expect("because it is valid")
});
static COUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s{2}\d+ (failed|flaky|passed|skipped|did not run|interrupted)\b")
        .expect("because it is valid")
});
static LISTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s{4}(\S.* \u{203a} .+?)\s*\u{2500}*$").expect("because it is valid")
});
static LOAD_AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {3}at (\S+\.[cm]?[jt]sx?):\d+$").expect("because it is valid"));

#[derive(Debug, Default)]
pub(crate) struct PlaywrightParser {
    /// The failure whose error comes next, or whose retries are being shown.
    failure: Option<(String, Option<String>)>,
    /// In the closing summary: listing flaky tests (`true`) or others.
    listing: Option<bool>,
    /// A top-level `Error:` line and the lines left in which a file may be named.
    load_error: Option<(String, u8)>,
}

impl LineParser for PlaywrightParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some((message, left)) = &mut self.load_error {
            if let Some(c) = LOAD_AT.captures(text) {
                let message = std::mem::take(message);
                out.fail(
                    Runner::Playwright,
                    FailureKind::Error,
                    &c[1],
                    Some(&message),
                );
                self.load_error = None;
                return;
            }
            *left -= 1;
            if *left == 0 {
                self.load_error = None;
            }
        }
        // Cheap tests first (what each pattern cannot match without): most lines that
        // reach here are some other tool's `Running ...` or `... failed`.
        if let Some(c) = text
            .contains(" \u{203a} ")
            .then(|| HEADER.captures(text))
            .flatten()
        {
            self.close(out);
            out.saw(Runner::Playwright);
            self.listing = None;
            self.failure = Some((c[1].to_string(), None));
            return;
        }
        if let Some(c) = is_count_like(text).then(|| COUNT.captures(text)).flatten() {
            self.close(out);
            out.saw(Runner::Playwright);
            self.listing = Some(&c[1] == "flaky");
            return;
        }
        if let Some(flaky) = self.listing {
            match LISTED.captures(text) {
                Some(c) if flaky => out.withdraw(Runner::Playwright, &c[1]),
                Some(_) => {}
                None => self.listing = None,
            }
            return;
        }
        let running = text.strip_prefix("Running ");
        if running.is_some_and(|n| n.starts_with(char::is_numeric)) && RUNNING.is_match(text) {
            out.saw(Runner::Playwright);
            return;
        }
        let trimmed = text.trim();
        if let Some((_, message)) = &mut self.failure {
            if message.is_none()
                && !trimmed.is_empty()
                && !trimmed.starts_with("Error Context:")
                && !trimmed.starts_with("Retry #")
            {
                *message = Some(cut_message(trimmed));
            }
            return;
        }
        if text.starts_with("Error: ") {
            self.load_error = Some((cut_message(text), LOAD_ERROR_WINDOW));
        }
    }

    fn wants_every_line(&self) -> bool {
        self.failure.is_some() || self.listing.is_some() || self.load_error.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
    }
}

/// Two whitespace characters and a number: what a closing count (`  3 passed (2.1s)`)
/// starts with, and cargo's `     Running ...` does not.
fn is_count_like(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(char::is_whitespace)
        && chars.next().is_some_and(char::is_whitespace)
        && chars.next().is_some_and(char::is_numeric)
}

impl PlaywrightParser {
    fn close(&mut self, out: &mut Collector) {
        if let Some((id, message)) = self.failure.take() {
            let kind = match &message {
                Some(m) if m.starts_with("Test timeout of ") => FailureKind::Timeout,
                _ => FailureKind::Test,
            };
            out.fail(Runner::Playwright, kind, &id, message.as_deref());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    const REPORT: &str = "\nRunning 5 tests using 1 worker\n\n  \u{2718}  1 tests/wc.spec.js:3:3 \u{203a} count \u{203a} counts three words (21ms)\n\n  1) tests/wc.spec.js:3:3 \u{203a} count \u{203a} counts three words \u{2500}\u{2500}\u{2500}\n\n    Error: expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 4\n\n    Error Context: test-results/x/error-context.md\n\n    Retry #1 \u{2500}\u{2500}\u{2500}\n\n    Error: expect(received).toBe(expected) // Object.is equality\n\n  2) tests/parse.spec.js:4:1 \u{203a} first word \u{2500}\u{2500}\n\n    Test timeout of 500ms exceeded.\n\n  3) tests/flaky.spec.js:6:1 \u{203a} passes on a retry \u{2500}\u{2500}\n\n    Error: expect(received).toBe(expected) // Object.is equality\n\n  2 failed\n    tests/wc.spec.js:3:3 \u{203a} count \u{203a} counts three words \u{2500}\u{2500}\n    tests/parse.spec.js:4:1 \u{203a} first word \u{2500}\u{2500}\n  1 flaky\n    tests/flaky.spec.js:6:1 \u{203a} passes on a retry \u{2500}\u{2500}\n  2 passed (2.1s)\n";

    #[test]
    fn the_report_without_flaky_tests() {
        let fp = fingerprint_as(REPORT, Runner::Playwright);
        assert_eq!(
            triples(&fp),
            [
                (
                    "tests/parse.spec.js \u{203a} first word",
                    FailureKind::Timeout,
                    "Test timeout of <dur> exceeded."
                ),
                (
                    "tests/wc.spec.js \u{203a} count \u{203a} counts three words",
                    FailureKind::Test,
                    "Error: expect(received).toBe(expected) // Object.is equality"
                ),
            ]
        );
    }

    #[test]
    fn a_test_file_that_does_not_load() {
        let log = "Error: Cannot find module '../src/wordcount-v2'\nRequire stack:\n- /tmp/x/tests/parse.spec.js\n\n   at parse.spec.js:2\n\n> 2 | const { firstWord } = require('../src/wordcount-v2');\n";
        let fp = fingerprint_as(log, Runner::Playwright);
        assert_eq!(
            triples(&fp),
            [(
                "parse.spec.js",
                FailureKind::Error,
                "Error: Cannot find module '../src/wordcount-v2'"
            )]
        );
    }

    #[test]
    fn a_passing_run_names_playwright() {
        let fp = fingerprint_bytes(
            b"\nRunning 3 tests using 1 worker\n\n\xc2\xb7\xc2\xb7\xc2\xb7\n\n  3 passed (1.2s)\n",
        );
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Playwright));
    }

    #[test]
    fn the_header_alone_names_playwright_plain_coloured_and_singular() {
        for header in [
            &b"Running 1 test using 1 worker\n"[..],
            b"\x1b[2mRunning \x1b[22m7\x1b[2m tests using \x1b[22m2\x1b[2m workers\x1b[22m\n",
        ] {
            let fp = fingerprint_bytes(header);
            assert_eq!(fp.runner, Some(Runner::Playwright), "{header:?}");
        }
        // Another tool's `Running ...` is not.
        let fp = fingerprint_bytes(b"     Running unittests src/lib.rs (target/debug/deps/a-01)\n");
        assert_eq!(fp.runner, None);
    }
}
