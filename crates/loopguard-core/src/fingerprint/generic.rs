//! The fallback for tools no parser knows: error-looking lines, and the generic signature.
//!
//! Error lines are used only when no runner recognised a failure (see [`super::collect`]).
//! Recognised:
//! `error: ...` / `error[CODE]: ...` / `ERROR: ...`, `fatal: ...`, exception lines
//! (`ValueError: ...`, `java.lang.IllegalStateException: ...`), `file:line:col: error: ...`
//! (compilers), `FAIL: ...`, and `##[error]` annotations. Never the runner's own
//! `Process completed with exit code N`, make's `*** [target] Error 2`, or counts such as
//! `0 errors`.
//!
//! The generic signature is what a failing run no parser claims (no failure of a runner's,
//! no error line) is known by: its *failing-looking lines* ([`failing_looking`]: a failure
//! word — `FAIL`, `failed`, `Error`, `assert`, `expected`, `panicked`, `Traceback`, `not
//! ok`, `✗` — as a word of its own, not inside a test's name, on a line that does not also
//! say it passed), each normalised like every message, as a set: the order of tests, extra
//! passing output, colour and the CI's wrapping leave it alone. A run is failing when its
//! exit status says so ([`super::Fingerprint::with_exit_code`]) or when a line says some
//! tests failed ([`says_failed`]: `1 failed`, `Failures: 2`, `FAILED (errors=1)`, a
//! `FAILED` verdict), which also makes it a test result.

use super::collect::{Collector, LineParser};
use super::failure::FailureKind;
use super::ghactions::{CleanLine, Marker};
use super::runner::Descriptor;
use aho_corasick::AhoCorasick;
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "generic" };

pub(crate) const TRIGGERS: &[&str] = &[
    "rror",
    "ERROR",
    "FAIL",
    "fatal",
    "FATAL",
    "Exception",
    "fail",
    "Fail",
    "ssert",
    "xpected",
    "panic",
    "Traceback",
    "not ok",
    "\u{2717}",
    "\u{2716}",
    "\u{2718}",
];

/// Error lines kept: the first ones are the cause, the rest usually consequences.
const MAX_GENERIC: usize = 20;

static ERROR_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(error|ERROR|Error)(\[[\w-]+\])?|(fatal|FATAL|Fatal)(?: error)?|(FAIL|FAILED)):\s*(\S.*)$")
        .expect("because it is valid")
});
static EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:Uncaught )?([A-Za-z_$][\w$.]*(?:Error|Exception))(?::\s+\S.*)?$")
        .expect("because it is valid")
});
static COMPILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+?):\d+(?::\d+)?:\s*(?:fatal )?error:\s*(\S.*)$").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct GenericParser {
    found: usize,
}

impl LineParser for GenericParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim();
        if text.is_empty() || line.marker == Marker::Other {
            return;
        }
        // Once a runner reported a failure of its own, the generic signature and the
        // verdicts are never used (`Collector::into_fingerprint`); error lines still take
        // their places among the failures kept.
        let wanted = !out.has_specific();
        if !wanted && self.found >= MAX_GENERIC
            || line.marker != Marker::Error && !may_fail(text)
            || is_runner_noise(text)
        {
            return;
        }
        if wanted && says_failed(text) {
            out.said_failed();
        }
        if wanted && (line.marker == Marker::Error || failing_looking(text)) {
            out.generic_line(text);
        }
        if self.found >= MAX_GENERIC {
            return;
        }
        let id = if line.marker == Marker::Error {
            Some("error".to_string())
        } else {
            error_id(text)
        };
        if let Some(id) = id {
            self.found += 1;
            out.fallback(FailureKind::Error, &id, text);
        }
    }
}

/// The kind of error a line reports (`error`, `error[E0599]`, `fatal`, `ValueError`, a
/// compiler's file), or `None` when the line is not an error line.
fn error_id(text: &str) -> Option<String> {
    let starts_like_error = matches!(text.as_bytes().first(), Some(b'e' | b'E' | b'f' | b'F'));
    if let Some(c) = starts_like_error
        .then(|| ERROR_PREFIX.captures(text))
        .flatten()
    {
        let id = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
            (Some(_), Some(code), _, _) => format!("error{}", code.as_str()),
            (Some(_), None, _, _) => "error".to_string(),
            (_, _, Some(_), _) => "fatal".to_string(),
            _ => "FAIL".to_string(),
        };
        return (!is_count(&c[5])).then_some(id);
    }
    if let Some(c) = text
        .contains("error:")
        .then(|| COMPILER.captures(text))
        .flatten()
    {
        return Some(c[1].to_string());
    }
    if !text.contains("Error") && !text.contains("Exception") {
        return None;
    }
    EXCEPTION.captures(text).map(|c| c[1].to_string())
}

/// Words that make a line a candidate wherever they stand: the failure words that need no
/// word of their own (`ValueError`, `FAILED`, `✗`), and what a count of zero takes out of a
/// line (`xfailed`, `expected failures`: the words around it then join differently).
/// ASCII case-insensitive, a superset of what the regexes read.
static ANYWHERE: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([
            "fail", "xpass", "xpected", "not ok", "error:", "\u{2717}", "\u{2716}", "\u{2718}",
        ])
        .expect("because the words are valid")
});

/// `Error` and `Exception` ending a word (`ValueError`), case as the regexes read them.
static ANYWHERE_CASED: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::new(["Error", "Exception"]).expect("because the words are valid")
});

/// The failure words that count only as words of their own (`error`, not `thiserror` nor
/// `error-chain`), ASCII case-insensitive.
static STEMS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(["error", "fatal", "panic", "traceback", "assert"])
        .expect("because the words are valid")
});

/// Whether `text` (trimmed) can be failing-looking, say that tests failed or be an error
/// line: a necessary condition of [`failing_looking`], [`says_failed`] and [`error_id`],
/// read from the bytes with no regex. Build noise holds the generic triggers without a
/// failure word (`Compiling thiserror v1.0.69`, `error-chain`): only the lines it lets
/// through pay for the regexes. Where a byte is not ASCII it lets the line through (a
/// Unicode letter may or may not end a word for the regexes).
pub(crate) fn may_fail(text: &str) -> bool {
    let bytes = text.as_bytes();
    let starts =
        |word: &[u8]| bytes.len() >= word.len() && bytes[..word.len()].eq_ignore_ascii_case(word);
    ANYWHERE.is_match(bytes)
        || ANYWHERE_CASED.is_match(bytes)
        || starts(b"error")
        || starts(b"fatal")
        || zero_by_a_separator(bytes)
        || STEMS
            .find_iter(bytes)
            .any(|m| stands_alone(bytes, m.start(), m.end()))
}

/// A `0` that a count of zero can hold (`0 errors`, `errors: 0`): beside a space, `:`, `=`
/// or a byte that is not ASCII (Unicode spaces).
fn zero_by_a_separator(bytes: &[u8]) -> bool {
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) || b >= 0x80;
    memchr::memchr_iter(b'0', bytes).any(|i| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        before.is_some_and(|b| space(b) || b == b':' || b == b'=')
            || bytes.get(i + 1).is_some_and(|&b| space(b))
    })
}

/// Whether the word starting with the stem at `bytes[start..end]` is a word of its own
/// as [`has_failure_word`] reads it: not inside a longer word, not joined to a name by
/// `.`, `/`, `-` or `::` (a `:` alone may start a count, `errors:1`).
fn stands_alone(bytes: &[u8], start: usize, mut end: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let joins = |b: u8| matches!(b, b'.' | b'/' | b'-');
    if start > 0 {
        let before = bytes[start - 1];
        let joined = start >= 2
            && (joins(before) && word(bytes[start - 2])
                || before == b':' && bytes[start - 2] == b':');
        if word(before) || joined {
            return false;
        }
    }
    while end < bytes.len() && word(bytes[end]) {
        end += 1;
    }
    let (Some(&after), next) = (bytes.get(end), bytes.get(end + 1).copied()) else {
        return true;
    };
    let joined = joins(after) && next.is_some_and(word)
        || matches!(after, b'.' | b'/' | b'-' | b':') && next == Some(b':');
    after >= 0x80 || !joined
}

/// Lines that only say that something (already reported) failed.
fn is_runner_noise(text: &str) -> bool {
    text.contains("Process completed with exit code")
        || text.contains("*** [")
        || text.starts_with("npm ERR!")
        || text.starts_with("error: test failed, to rerun")
        || text.starts_with("error: doctest failed, to rerun")
        || text.starts_with("error: could not compile")
        || text.starts_with("error: test run failed")
        || text.starts_with("error: Recipe `")
        || text.starts_with("error: build failed")
        || text.starts_with("error: 1 target failed")
}

/// A failure word standing as a word of its own (`test_error_case` is a name, `thiserror` a
/// crate); the words a count of zero makes harmless are [`ZERO_COUNT`]'s.
static FAILURE_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:FAIL(?:ED|URES?|ING)?|[Ff]ail(?:ed|ures?|ing|s)?|ERRORS?|[Ee]rrors?|\w*(?:Error|Exception)|FATAL|[Ff]atal|panic(?:ked)?|Traceback|[Aa]ssert\w*|[Ee]xpected|not ok)\b|[\u{2717}\u{2716}\u{2718}]",
    )
    .expect("because it is valid")
});

/// A count of no failures, and what says a test was expected to fail (`expected failures`,
/// `xfailed`): taken out of a line before its failure words are looked for.
static ZERO_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b0\s+(?:tests?\s+)?(?:failed|failing|failures?|errors?|fail)\b|\b(?:failed|failing|failures?|errors?|fail)\s*[:=]\s*0\b|expected\s+failures?|\bx(?:fail(?:ed)?|passed)\b",
    )
    .expect("because it is valid")
});

/// A word that says the line's test passed (`test_errors PASSED`, `✓ reports errors`).
static PASS_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:PASS(?:ED)?|ok|OK|passed)\b|[\u{2713}\u{2714}\u{221a}]")
        .expect("because it is valid")
});

/// Counts of failed tests above zero (`1 failed`, `2 failing`, `Failures: 1`,
/// `failures=1`, `errors=1`), and a verdict (`FAILED`, `FAIL`, `FAILURES!`, `BUILD FAILED`)
/// on a short line of its own.
static FAILED_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b[1-9]\d*\s+(?:tests?\s+)?(?:failed|failing|failures?)\b|\b(?:failed|failing|failures?|errors)\s*[:=]\s*[1-9]",
    )
    .expect("because it is valid")
});

/// Whether `text` has a failure word that is not a count of zero, on a line that does not
/// say it passed (unless a count says something failed).
pub(crate) fn failing_looking(text: &str) -> bool {
    if !FAILURE_WORD.is_match(text) {
        return false;
    }
    let text = ZERO_COUNT.replace_all(text, "");
    has_failure_word(&text)
        && (!PASS_WORD.is_match(&text) || text.contains("not ok") || FAILED_COUNT.is_match(&text))
}

/// Whether a failure word stands in `text` as a word, not as a part of a name joined by
/// `.`, `/`, `::` or `-` (`Stock.Errors`, `tests::errors`, `errors/parse.rs`,
/// `error-chain`: a test's or a file's name, which passing output prints too).
fn has_failure_word(text: &str) -> bool {
    let bytes = text.as_bytes();
    let joins = |b: u8| matches!(b, b'.' | b'/' | b'-');
    let name_char = |b: Option<&u8>| b.is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_');
    FAILURE_WORD.find_iter(text).any(|m| {
        let (start, end) = (m.start(), m.end());
        let joined_before = start >= 2
            && (joins(bytes[start - 1]) && name_char(bytes.get(start - 2))
                || bytes[start - 1] == b':' && bytes[start - 2] == b':');
        let joined_after = bytes.get(end).is_some_and(|&b| joins(b) || b == b':')
            && (name_char(bytes.get(end + 1)) || bytes.get(end + 1) == Some(&b':'));
        !joined_before && !joined_after
    })
}

/// Whether `text` says that tests failed: a count above zero or a `FAIL`/`FAILED` verdict
/// on a line of at most four words.
pub(crate) fn says_failed(text: &str) -> bool {
    if FAILED_COUNT.is_match(text) && FAILED_COUNT.is_match(&ZERO_COUNT.replace_all(text, "")) {
        return true;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    words.len() <= 4
        && words.iter().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            matches!(w, "FAIL" | "FAILED" | "FAILURE" | "FAILURES")
        })
}

/// `0 errors`, `none`: a count or nothing, not an error.
fn is_count(rest: &str) -> bool {
    let rest = rest.trim();
    rest.is_empty()
        || rest.eq_ignore_ascii_case("none")
        || rest.bytes().next().is_some_and(|b| b.is_ascii_digit()) && !rest.contains(' ')
        || rest.starts_with("0 ")
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    fn generic(log: &str) -> Vec<(String, String)> {
        let fp = fingerprint_bytes(log.as_bytes());
        assert!(
            fp.failures
                .iter()
                .all(|f| f.runner == Runner::Generic && f.kind == FailureKind::Error)
        );
        fp.failures.into_iter().map(|f| (f.id, f.message)).collect()
    }

    #[test]
    fn error_looking_lines() {
        assert_eq!(
            generic(
                "building\nerror: linker `cc` not found\nValueError: bad input 3\nsrc/x.c:3:5: error: unknown type name 'foo'\nfatal: not a git repository\n"
            ),
            [
                ("ValueError".into(), "ValueError: bad input <n>".into()),
                ("error".into(), "error: linker `cc` not found".into()),
                ("fatal".into(), "fatal: not a git repository".into()),
                (
                    "src/x.c".into(),
                    "src/x.c: error: unknown type name 'foo'".into()
                ),
            ]
        );
    }

    #[test]
    fn never_the_runners_exit_code_nor_counts() {
        let log = "2026-11-25T10:00:00.1Z ##[error]Process completed with exit code 1.\n\
            Error: Process completed with exit code 2.\nmake: *** [Makefile:3: test] Error 2\n\
            ERROR: 0\nerrors: none\ntest result: ok. 0 passed; 0 failed\nno errors found\n";
        assert_eq!(generic(log), Vec::<(String, String)>::new());
        assert_eq!(fingerprint_bytes(log.as_bytes()).signature, None);
    }

    /// The generic signature of `log` from a run that exited 1.
    fn failed(log: &str) -> crate::fingerprint::Fingerprint {
        fingerprint_bytes(log.as_bytes()).with_exit_code(1)
    }

    #[test]
    fn a_failing_run_no_parser_claims_is_known_by_its_failing_lines() {
        let log = "== stock suite ==\nchecking totals\nstock_test.c:12: check failed: total() == 12\n\
            \x20 total() is 11\nchecking error_case ... ok\nchecking takes: FAIL, 3 left over\n";
        let fp = failed(log);
        assert!(fp.failures.iter().all(|f| f.kind == FailureKind::Generic));
        let messages: Vec<&str> = fp.failures.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "checking takes: FAIL, <n> left over",
                "stock_test.c: check failed: total() == <n>"
            ],
            "{}",
            fp.render_text()
        );
        // Colour, another order, passing tests around it, other lines: the same.
        let other = format!(
            "checking errors ... ok\n\x1b[0;31m{}\x1b[m",
            log.replace(":12:", ":17:").replace("is 11", "is 10")
        );
        assert_eq!(failed(&other).signature, fp.signature);
        // Another failing check is another failure.
        assert_ne!(
            failed(&log.replace("takes", "gives")).signature,
            fp.signature
        );
        // Without a failing status, and no line saying tests failed: nothing.
        assert_eq!(fingerprint_bytes(log.as_bytes()).signature, None);
        // A passing status changes nothing.
        assert_eq!(
            fingerprint_bytes(log.as_bytes())
                .with_exit_code(0)
                .signature,
            None
        );
    }

    #[test]
    fn a_line_saying_tests_failed_is_a_failing_test_result() {
        for (log, says) in [
            ("1 test, 1 failure\n", true),
            ("3 examples, 0 failures\n", false),
            ("Ran 3 tests\n\nFAILED (failures=1)\n", true),
            ("OK (expected failures=1)\n", false),
            ("2 passed, 1 xfailed in 0.1s\n", false),
            (
                "Synthesis: Tested: 3 | Passing: 2 | Failing: 1 | Crashing: 0\n",
                true,
            ),
            ("0% tests passed, 1 tests failed out of 1\n", true),
            ("BUILD FAILED in 2s\n", true),
            ("test handles_FAILED_status ... ok\n", false),
            ("Tests:       0 failed, 4 passed, 4 total\n", false),
        ] {
            let fp = fingerprint_bytes(log.as_bytes());
            assert_eq!(
                fp.signature.is_some(),
                says,
                "{log:?}: {}",
                fp.render_text()
            );
            assert_eq!(super::says_failed(log.trim()), says, "{log:?}");
        }
    }

    #[test]
    fn a_failing_run_with_no_failing_line_is_known_by_its_last_lines() {
        let log = "building\nstep 3 of 4\nsegmentation violation at 0x7ffd1234\n";
        let fp = failed(log);
        assert_eq!(fp.failures.len(), 3, "{}", fp.render_text());
        assert_eq!(fp.failures[0].kind, FailureKind::Generic);
        assert_ne!(
            failed("building\nstep 3 of 4\nbus error\n").signature,
            fp.signature
        );
        let silent = fingerprint_bytes(b"").with_exit_code(2);
        assert_eq!(silent.failures[0].message, "no output, exit status 2");
        // A runner's failure is never replaced.
        let cargo = "test a ... FAILED\n";
        let fp = fingerprint_bytes(cargo.as_bytes());
        assert_eq!(fp.with_exit_code(101).failures[0].kind, FailureKind::Test);
    }

    #[test]
    fn passing_lines_are_not_failing_looking() {
        for line in [
            "test_error_message PASSED",
            "\u{2713} reports errors (2 ms)",
            "[       OK ] Parser.Error (0 ms)",
            "Compiling thiserror v1.0.69",
            "ok 3 - reports failures",
            "errors: 0",
        ] {
            assert!(!super::failing_looking(line), "{line}");
        }
        for line in [
            "AssertionError: assert 3 == 4",
            "not ok 3 - reports failures",
            "1 failed, 2 passed",
            "thread 'main' panicked at src/main.rs:3:5:",
            "\u{2716} totals the stock",
        ] {
            assert!(super::failing_looking(line), "{line}");
        }
    }

    /// What the regexes would read in a line `may_fail` turns away.
    fn read_by_the_regexes(text: &str) -> bool {
        super::says_failed(text) || super::failing_looking(text) || super::error_id(text).is_some()
    }

    #[test]
    fn build_noise_is_turned_away_before_the_regexes() {
        for line in [
            "Compiling thiserror v1.0.69",
            "Downloaded error-chain v0.12.4",
            "Downloading https://files.example.org/packages/error-chain-1.2.3.tar.gz (12 kB)",
            "Compiling panic-halt v0.2.0",
            "src/errors/mod.rs",
            "tests::errors::parses ... ok",
        ] {
            assert!(!super::may_fail(line), "{line}");
            assert!(!read_by_the_regexes(line), "{line}");
        }
        for line in [
            "error: linker `cc` not found",
            "errors:1",
            "fatal:x",
            "thread 'main' panicked at src/main.rs:3:5:",
            "Traceback (most recent call last):",
            "assertion failed",
            "ValueError: bad",
            "0 errors-x.fatal",
        ] {
            assert!(super::may_fail(line), "{line}");
        }
    }

    /// Words and pieces of words the regexes read, and what stands between them.
    const PIECES: &[&str] = &[
        "error",
        "Error",
        "ERROR",
        "errors",
        "fatal",
        "FATAL",
        "panic",
        "panicked",
        "Traceback",
        "assert",
        "Assertion",
        "expected",
        "fail",
        "FAILED",
        "failures",
        "xfailed",
        "xpassed",
        "not ok",
        "ok",
        "PASSED",
        "passed",
        "Exception",
        "this",
        "chain",
        "0",
        "1",
        "12",
        " ",
        "  ",
        "-",
        ".",
        "/",
        ":",
        "::",
        "=",
        "_",
        "[E0425]",
        "(",
        ")",
        "\u{2717}",
        "\u{2713}",
        "\u{e9}",
        "\u{a0}",
        "tests",
        "test ",
        "x",
    ];

    proptest::proptest! {
        #[test]
        fn what_may_fail_turns_away_the_regexes_would_not_read(
            parts in proptest::collection::vec(0..PIECES.len(), 1..10)
        ) {
            let line: String = parts.iter().map(|&i| PIECES[i]).collect();
            let text = line.trim();
            proptest::prop_assert!(super::may_fail(text) || !read_by_the_regexes(text), "{text:?}");
        }
    }

    #[test]
    fn annotations_count() {
        assert_eq!(
            generic("##[error]Unable to resolve action `actions/chekout@v4`\n"),
            [(
                "error".into(),
                "Unable to resolve action `actions/chekout@v4`".into()
            )]
        );
    }
}
