//! The fallback for tools no parser knows: error-looking lines.
//!
//! Used only when no runner recognised a failure (see [`super::collect`]). Recognised:
//! `error: ...` / `error[CODE]: ...` / `ERROR: ...`, `fatal: ...`, exception lines
//! (`ValueError: ...`, `java.lang.IllegalStateException: ...`), `file:line:col: error: ...`
//! (compilers), `FAIL: ...`, and `##[error]` annotations. Never the runner's own
//! `Process completed with exit code N`, make's `*** [target] Error 2`, or counts such as
//! `0 errors`.

use super::collect::{Collector, LineParser};
use super::failure::FailureKind;
use super::ghactions::{CleanLine, Marker};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const TRIGGERS: &[&str] = &["rror", "ERROR", "FAIL", "fatal", "FATAL", "Exception"];

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
        if self.found >= MAX_GENERIC {
            return;
        }
        let text = line.text.trim();
        if text.is_empty() || is_runner_noise(text) {
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
