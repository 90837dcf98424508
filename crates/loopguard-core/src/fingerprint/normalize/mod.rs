//! Normalisation: strip what changes between two runs of the same failure, keep what tells
//! two failures apart.
//!
//! Changes between runs (removed or replaced by a placeholder):
//!
//! - temp directories, wherever the OS or the tool puts them (`/tmp`, macOS's
//!   `/var/folders/../T`, Windows' `%TEMP%`, the runner's `_temp`) and the random names made
//!   in them: tempfile's `.tmpXXXXXX`, `mktemp`'s `tmp.XXXXXXXXXX`, Python's `tmpXXXXXXXX`,
//!   pytest's `pytest-of-USER/pytest-N`, Go's `TestName123456789/001`, `mkdtemp`'s `wc-AbC123`,
//!   long digit runs (Go's `CreateTemp`, Java's `createTempFile`). Kept: the file's own name,
//!   and its directory when that is not a made-up one;
//! - the CI workspace prefix, the machine-specific head of absolute paths (kept: the last two
//!   components), `file:line:col` positions;
//! - UUIDs, timestamps (RFC 3339 and ISO forms, `2026-11-26 06:41:02,123`, syslog's
//!   `Nov 26 06:41:02`, HTTP and `Date.toString` dates, Unix epoch seconds and milliseconds),
//!   memory addresses and object ids (`0x7f..`, Java's `Object@1b6d3586`), hashes,
//!   durations (`1.5ms`, `2 seconds`, ISO 8601's `PT0.25S`);
//! - what property-testing tools draw at random: seeds (`seed: -123`, `@seed(..)`,
//!   `--hypothesis-seed=`, `QUICKCHECK_SEED=`), fast-check's replay `path`, and the
//!   counterexample after proptest's `minimal failing input:`, Hypothesis'
//!   `Falsifying example:`, quickcheck's `Arguments:`, fast-check's `Counterexample:` and
//!   `testing/quick`'s `failed on input`;
//! - in messages, every number (values, thread ids, PIDs, ports, IPv4 addresses).
//!
//! Kept: test names, error types, message words, identifiers and versions with digits
//! (`v2`, `v1.2.3`, `utf8`, `E0308`, `TS2322`, `x86_64`, `test_port_8080_config`), because
//! a word only counts as a number when it is nothing but digits and dots.
//!
//! The patterns are [`guarded`] (a regex behind the texts every match contains); the ones for
//! paths and positions are in [`paths`], those for values, times and random draws in
//! [`values`].

mod guarded;
mod paths;
mod values;

use paths::{DOCTEST_LINE, normalize_paths};
use regex::Captures;
use std::borrow::Cow;
use values::{
    CALENDAR_DATE, COUNTEREXAMPLE, DIGIT_RUN, DURATION, HEX_ADDRESS, HEX_WORD, JAVA_IDENTITY,
    NUMBER_WORD, REPLAY_PATH, REPRODUCE_BLOB, SEED, TIMESTAMP, UUID, epoch_or_digits, hash_or_word,
    number_or_name,
};

/// Messages are cut to this many characters.
pub(super) const MAX_MESSAGE_CHARS: usize = 200;
/// Ids are cut to this many characters.
pub(super) const MAX_ID_CHARS: usize = 300;

/// Normalises a first error line (see the module docs), to one line of at most
/// [`MAX_MESSAGE_CHARS`] characters.
pub fn normalize_message(line: &str) -> String {
    let s = single_line(line);
    let s = COUNTEREXAMPLE.replace(&s, |c: &Captures| match c.name("marker") {
        Some(marker) => format!("{} <input>", marker.as_str()),
        None => format!("{} {}(<input>)", &c["example"], &c["test"]),
    });
    let s = SEED.replace_all(&s, "${1}<seed>");
    let s = REPLAY_PATH.replace_all(&s, "path: \"<path>\"");
    let s = REPRODUCE_BLOB.replace_all(&s, "@reproduce_failure(<blob>)");
    let s = UUID.replace_all(&s, "<uuid>");
    let s = CALENDAR_DATE.replace_all(&s, "<time>");
    let s = TIMESTAMP.replace_all(&s, "<time>");
    let s = normalize_paths(&s);
    let s = HEX_ADDRESS.replace_all(&s, "0x<hex>");
    let s = JAVA_IDENTITY.replace_all(&s, |c: &Captures| {
        if c[2].bytes().any(|b| b.is_ascii_digit()) {
            format!("{}@<hex>", &c[1])
        } else {
            c[0].to_string()
        }
    });
    let s = HEX_WORD.replace_all(&s, |c: &Captures| hash_or_word(&c[0]));
    let s = DURATION.replace_all(&s, "<dur>");
    // Numbers first: a dotted run of them (`0.1064007072.1888485378.210053`, an Erlang
    // reference) is one value whatever its digits; epoch-like runs are then left only
    // inside names.
    let s = NUMBER_WORD.replace_all(&s, |c: &Captures| number_or_name(&c[0]));
    let s = DIGIT_RUN.replace_all(&s, |c: &Captures| epoch_or_digits(&c[0]));
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

/// What a parser holds of a message line until it reports it: its first
/// `2 * MAX_MESSAGE_CHARS` characters, room for what normalisation strips (paths, positions)
/// before it cuts the message to [`MAX_MESSAGE_CHARS`].
pub(crate) fn cut_message(s: &str) -> String {
    truncate_chars(s, 2 * MAX_MESSAGE_CHARS)
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((end, _)) => s[..end].trim_end().to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests;
