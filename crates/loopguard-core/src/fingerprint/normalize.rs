//! Normalisation: strip what changes between two runs of the same failure, keep what tells
//! two failures apart.
//!
//! Changes between runs (removed or replaced by a placeholder): the CI workspace prefix,
//! temp directories (kept: the file name), the machine-specific head of absolute paths
//! (kept: the last two components), `file:line:col` positions, UUIDs, timestamps, memory
//! addresses, hashes, durations, and in messages every standalone number (values, thread
//! ids, PIDs, ports, seeds).
//!
//! Kept: test names, error types, message words, identifiers with digits (`v2`, `utf8`,
//! `E0308`, `TS2322`, `x86_64`), because a number only counts as a value when it stands
//! alone.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::LazyLock;

/// Messages are cut to this many characters.
pub const MAX_MESSAGE_CHARS: usize = 200;
/// Ids are cut to this many characters.
pub const MAX_ID_CHARS: usize = 300;

macro_rules! regex {
    ($name:ident, $re:expr) => {
        static $name: LazyLock<Regex> =
            LazyLock::new(|| Regex::new($re).expect("because the pattern is a valid regex"));
    };
}

regex!(
    UUID,
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
);
regex!(
    TIMESTAMP,
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"
);
// Temp directories first: the GitHub runner's temp lives under its work directory.
regex!(
    TEMP_PATH,
    r#"(?:file://)?(?:(?:/private)?/(?:tmp|var/tmp|dev/shm|(var/folders/[^/\s]+/[^/\s]+/T))\b|/home/runner/work/_temp\b|[A-Za-z]:\\(?:Users\\[^\\\s]+\\AppData\\Local\\Temp|Windows\\Temp)\b)((?:[\\/][^\s'"`,;:()\[\]{}<>|]*)?)"#
);
regex!(
    WORKSPACE,
    r"(?:/home/runner/work|/Users/runner/work|/__w|[A-Za-z]:[\\/]a)[\\/][^\\/\s]+[\\/][^\\/\s]+[\\/]|/github/workspace/"
);
regex!(
    ABSOLUTE_PATH,
    r#"(^|[\s'"`(\[=])/(?:[\w.@+~-]+/)+([\w.@+~-]+/[\w.@+~-]+)"#
);
regex!(
    POSITION,
    r"(\.[A-Za-z][A-Za-z0-9]{0,9})(?::\d+){1,2}\b|(\.[A-Za-z][A-Za-z0-9]{0,9})\(\d+,\d+\)"
);
regex!(DOCTEST_LINE, r"\(line \d+\)");
regex!(HEX_ADDRESS, r"\b0x[0-9a-fA-F]+\b");
regex!(HEX_WORD, r"\b[0-9a-fA-F]{8,}\b");
regex!(
    DURATION,
    r"\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:ns|µs|us|ms|s)\b|\b\d+(?:\.\d+)? ?(?:sec|secs|seconds?|minutes?|mins?)\b"
);
regex!(NUMBER, r"\b\d+(?:\.\d+)*\b");

/// Normalises a first error line (see the module docs), to one line of at most
/// [`MAX_MESSAGE_CHARS`] characters.
pub fn normalize_message(line: &str) -> String {
    let s = single_line(line);
    let s = UUID.replace_all(&s, "<uuid>");
    let s = TIMESTAMP.replace_all(&s, "<time>");
    let s = normalize_paths(&s);
    let s = HEX_ADDRESS.replace_all(&s, "0x<hex>");
    let s = HEX_WORD.replace_all(&s, |c: &Captures| hash_or_word(&c[0]));
    let s = DURATION.replace_all(&s, "<dur>");
    let s = NUMBER.replace_all(&s, "<n>");
    truncate_chars(s.trim(), MAX_MESSAGE_CHARS)
}

/// Normalises a test id or a file id: paths and positions only; numbers in names stay.
pub fn normalize_id(id: &str) -> String {
    let s = single_line(id);
    let s = normalize_paths(&s);
    let s = DOCTEST_LINE.replace_all(&s, "(line <n>)");
    let s = UUID.replace_all(&s, "<uuid>");
    truncate_chars(s.trim(), MAX_ID_CHARS)
}

fn normalize_paths(s: &str) -> String {
    let s = TEMP_PATH.replace_all(s, |c: &Captures| temp_path(&c[2]));
    let s = WORKSPACE.replace_all(&s, "");
    let s = ABSOLUTE_PATH.replace_all(&s, "$1$2");
    let s = POSITION.replace_all(&s, |c: &Captures| {
        c.get(1).or(c.get(2)).map_or("", |m| m.as_str()).to_string()
    });
    s.into_owned()
}

/// A path under a temp directory, given what follows the temp root. Kept: the file and its
/// directory (`test/parse.test.js`, as a checkout-relative path would show them), unless
/// that directory is a made-up one (right under the temp root, as mkdtemp makes them, or
/// random-looking), then `<tmp>/file`.
fn temp_path(rest: &str) -> String {
    let parts: Vec<&str> = rest.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [] => "<tmp>".to_string(),
        [file] => format!("<tmp>/{file}"),
        [.., dir, file] if parts.len() == 2 || is_made_up_dir(dir) => format!("<tmp>/{file}"),
        [.., dir, file] => format!("{dir}/{file}"),
    }
}

/// Temp directory names that differ between runs: tempfile's `.tmpAbC123`, pytest's
/// `pytest-12`, and names ending in a random run like mkdtemp's `wc-D3HGmW` or Go's
/// `TestReadWords1234567`.
fn is_made_up_dir(name: &str) -> bool {
    if name.starts_with(".tmp") || name.starts_with("tmp") || name.starts_with("pytest-") {
        return true;
    }
    let tail = name.rsplit(['-', '_', '.']).next().unwrap_or(name);
    let upper = tail.bytes().any(|b| b.is_ascii_uppercase());
    let lower = tail.bytes().any(|b| b.is_ascii_lowercase());
    let digits = tail.bytes().filter(u8::is_ascii_digit).count();
    tail.len() >= 6 && ((upper && lower) || (digits >= 2 && digits < tail.len()))
}

/// Long hex runs with a digit are hashes (build hashes, commits); all-digit runs are left
/// to the number rule; long all-letter runs are hashes that happen to have no digit.
fn hash_or_word(word: &str) -> String {
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    if digits == word.len() || (digits == 0 && word.len() < 12) {
        word.to_string()
    } else {
        "<hash>".to_string()
    }
}

/// Control characters become spaces and runs of whitespace one space.
fn single_line(s: &str) -> Cow<'_, str> {
    let clean = !s.contains("  ")
        && !s
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() && c != ' ');
    if clean {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() || c.is_control() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    Cow::Owned(out)
}

pub(crate) fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((end, _)) => s[..end].trim_end().to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn same(a: &str, b: &str) {
        assert_eq!(normalize_message(a), normalize_message(b), "{a:?} vs {b:?}");
    }

    #[track_caller]
    fn differ(a: &str, b: &str) {
        assert_ne!(normalize_message(a), normalize_message(b), "{a:?} vs {b:?}");
    }

    #[test]
    fn values_become_placeholders() {
        assert_eq!(
            normalize_message("AssertionError: assert 4 == 3"),
            "AssertionError: assert <n> == <n>"
        );
        same(
            "index out of range [5] with length 3",
            "index out of range [7] with length 2",
        );
        same("left: 4.25", "left: 0.5");
    }

    #[test]
    fn identifiers_with_digits_stay() {
        let m = normalize_message("error[E0308]: mismatched types in v2 utf8 x86_64 TS2322 sha256");
        assert_eq!(
            m,
            "error[E0308]: mismatched types in v2 utf8 x86_64 TS2322 sha256"
        );
        differ(
            "No module named 'wordcount_v2'",
            "No module named 'wordcount_v3'",
        );
        differ(
            "FirstWord(\"v2 utf8\") = \"v2\"",
            "FirstWord(\"v2 utf8\") = \"utf8\"",
        );
    }

    #[test]
    fn message_words_and_types_stay() {
        differ("TypeError: x is undefined", "RangeError: x is undefined");
        differ(
            "assertion `left == right` failed",
            "assertion failed: is_blank(x)",
        );
    }

    #[test]
    fn temp_paths_keep_only_the_file_name() {
        assert_eq!(
            normalize_message("cannot read /tmp/.tmpAbC123/words.txt: No such file"),
            "cannot read <tmp>/words.txt: No such file"
        );
        same(
            "No such file or directory: '/tmp/pytest-of-root/pytest-44/test_reads_config0/settings.ini'",
            "No such file or directory: '/tmp/pytest-of-runner/pytest-2/test_reads_config0/settings.ini'",
        );
        assert_eq!(
            normalize_message("'/tmp/pytest-of-root/pytest-44/settings.ini'"),
            "'<tmp>/settings.ini'"
        );
        same(
            "open /tmp/wc-D3HGmW/words.txt",
            "open /tmp/wc-abcdef/words.txt",
        );
        same(
            "open /tmp/x/TestReadWords1234567/words.txt",
            "open /tmp/x/TestReadWords98765/words.txt",
        );
        same(
            "open /tmp/TestReadWords1234567/001/words.txt: no such file",
            "open /tmp/TestReadWords98/002/words.txt: no such file",
        );
        same(
            "open /var/folders/x1/abc/T/TestReadWords1/001/words.txt: no such file",
            "open /home/runner/work/_temp/TestReadWords2/001/words.txt: no such file",
        );
        same(
            r"ENOENT: open 'C:\Users\RUNNER~1\AppData\Local\Temp\wc-x1\words.txt'",
            "ENOENT: open '/tmp/wc-Zk9/words.txt'",
        );
    }

    #[test]
    fn a_checkout_in_a_temp_dir_reads_like_one_in_the_workspace() {
        same(
            "imported from '/tmp/lg-fixtures.29Z8pM/run.IrkeKvge/vitest-proj/test/parse.test.js'",
            "imported from '/home/runner/work/wc/wc/test/parse.test.js'",
        );
    }

    #[test]
    fn workspace_and_machine_paths_go() {
        same(
            "Cannot find module '/home/runner/work/wc/wc/src/missing.js'",
            "Cannot find module '/home/alice/code/wc/src/missing.js'",
        );
        same("in /__w/wc/wc/src/lib.rs", r"in D:\a\wc\wc\src/lib.rs");
        // Relative paths are names: they stay.
        differ("at src/lib.rs", "at src/main.rs");
    }

    #[test]
    fn positions_go_but_files_stay() {
        same(
            "panicked at src/lib.rs:39:9:",
            "panicked at src/lib.rs:44:9:",
        );
        same(
            "src/main.ts(3,7): error TS2322",
            "src/main.ts(8,7): error TS2322",
        );
        same("wordcount_test.go:12: got 4", "wordcount_test.go:17: got 4");
        differ("src/lib.rs:3", "src/main.rs:3");
    }

    #[test]
    fn noise_tokens_go() {
        same(
            "run 6f1c9a3e-1b2c-4d5e-8f90-a1b2c3d4e5f6 at 2026-11-25T10:00:00.123Z",
            "run 00000000-1111-2222-3333-444444444444 at 2027-01-02T23:59:59Z",
        );
        same("object at 0x7f3a2b1c", "object at 0x55d0c0de");
        same(
            "binary wordcount-a07f0cfb7275c93a",
            "binary wordcount-05ffad2ebf2bf229",
        );
        same("timed out after 2.5s", "timed out after 10ms");
        same("test timed out after 10m0s", "test timed out after 1m30s");
        same(
            "thread 'main' (27674) panicked",
            "thread 'main' (1) panicked",
        );
        same(
            "listening on 127.0.0.1:43121 pid 991",
            "listening on 127.0.0.1:8080 pid 7",
        );
        same("-test.shuffle 1764108000123", "-test.shuffle 42");
    }

    #[test]
    fn one_bounded_line() {
        let m = normalize_message("a\tb\r\n  c\u{7}d");
        assert_eq!(m, "a b c d");
        let long = "é".repeat(1000);
        assert_eq!(normalize_message(&long).chars().count(), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn ids_keep_numbers_but_not_positions() {
        assert_eq!(
            normalize_id("tests/test_wordcount.py::test_counts_parametrized[v2 utf8-2]"),
            "tests/test_wordcount.py::test_counts_parametrized[v2 utf8-2]"
        );
        assert_eq!(
            normalize_id("src/lib.rs - is_blank (line 16)"),
            "src/lib.rs - is_blank (line <n>)"
        );
        assert_eq!(normalize_id("TestFirstWord/case_1"), "TestFirstWord/case_1");
        assert_eq!(
            normalize_id("/home/runner/work/wc/wc/src/main.ts"),
            "src/main.ts"
        );
    }
}
