//! `node --test`, spec reporter (a terminal's default) and TAP reporter (the default
//! elsewhere).
//!
//! Spec: `▶ suite` opens a suite, `✖ name (3ms)` is a failure whose error follows on the
//! next, deeper line (`AssertionError [ERR_ASSERTION]: ...`), indented two spaces per
//! level; a suite's own `✖` only repeats its tests'. TAP: `# Subtest: name` and `not ok N -
//! name`, four spaces per level, with a YAML block (`type: 'suite'`, `failureType`,
//! `error`, `name`). Both name a failure `suite > test` and its error `Name: message` (the
//! code in brackets dropped, as TAP keeps it apart), so the two reporters agree. A test
//! file that fails to load is a failure of the file, whose error is the one its process
//! printed (`Error: Cannot find module ...`) before it. The closing `✖ failing tests:`
//! list repeats the failures without their suites: it is left alone.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "node" };

pub(crate) const TRIGGERS: &[&str] = &[
    "\u{2716}",
    "\u{25b6}",
    "\u{2139} ",
    "# Subtest: ",
    "not ok",
    "# tests ",
    "TAP version",
    "Error: ",
    "Error [",
];

/// Deeper than this, suites are not told apart (a bounded stack).
const MAX_DEPTH: usize = 32;

/// `✖ name (3.2ms)`: one space after the mark. gotestsum's package lines put two there
/// (`✖  ./pkg (31ms)`): they are not a test of node's.
static SPEC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)(\u{25b6}|\u{2716}) (\S.*?)(?: \([\d.]+m?s\))?$")
        .expect("because it is valid")
});
static TAP_NOT_OK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)not ok \d+ - (.+?)(?: # .*)?$").expect("because it is valid")
});
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:Uncaught )?([A-Z]\w*)(?: \[[^\]]*\])?: (.*)$").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct NodeTestParser {
    /// Suite names by depth.
    suites: Vec<String>,
    /// The spec failure whose error line comes next: (id, depth).
    spec_pending: Option<(String, usize)>,
    /// The TAP failure whose YAML block follows.
    tap: Option<TapFailure>,
    /// After `✖ failing tests:`.
    done: bool,
    /// The last error a test file's process printed.
    process_error: Option<String>,
}

#[derive(Debug, Default)]
struct TapFailure {
    id: String,
    in_block: bool,
    /// A multi-line `error: |-` value: its first line comes next.
    error_block: bool,
    suite: bool,
    timeout: bool,
    error: Option<String>,
    name: Option<String>,
}

impl LineParser for NodeTestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        if self.done {
            return;
        }
        let text = line.text.trim_end();
        if self.tap.is_some() && self.tap_line(text, out) {
            return;
        }
        if let Some((id, depth)) = self.spec_pending.take() {
            let trimmed = text.trim();
            if trimmed.is_empty() {
                self.spec_pending = Some((id, depth));
                return;
            }
            let indent = text.len() - text.trim_start().len();
            if indent > depth * 2 && !SPEC.is_match(text) {
                let (kind, message) = self.error_of(trimmed);
                out.fail(Runner::Node, kind, &id, Some(&message));
                return;
            }
            out.fail(Runner::Node, FailureKind::Test, &id, None);
        }
        let trimmed = text.trim_start();
        if trimmed.starts_with("\u{2716} failing tests:") {
            self.done = true;
            return;
        }
        if let Some(c) = SPEC.captures(text) {
            out.saw(Runner::Node);
            let depth = (c[1].len() / 2).min(MAX_DEPTH);
            let name = c[3].to_string();
            if &c[2] == "\u{25b6}" {
                self.open(depth, name);
            } else if self.suites.get(depth) == Some(&name) {
                // The suite's own line: its tests are the failures.
                self.suites.truncate(depth);
            } else {
                self.spec_pending = Some((self.path(depth, &name), depth));
            }
            return;
        }
        if let Some(name) = trimmed.strip_prefix("# Subtest: ") {
            out.saw(Runner::Node);
            let depth = ((text.len() - trimmed.len()) / 4).min(MAX_DEPTH);
            self.open(depth, name.to_string());
            return;
        }
        if let Some(c) = TAP_NOT_OK.captures(text) {
            let depth = (c[1].len() / 4).min(MAX_DEPTH);
            if self.suites.get(depth).is_none_or(|s| s != &c[2]) {
                // Not after its `# Subtest:`: not node's TAP.
                return;
            }
            self.tap = Some(TapFailure {
                id: self.path(depth, &c[2]),
                ..TapFailure::default()
            });
            return;
        }
        if trimmed.starts_with("\u{2139} tests ") || trimmed.starts_with("# tests ") {
            out.saw(Runner::Node);
            return;
        }
        // What a test file's process printed before it failed: `Error: ...` at the start
        // of a line (TAP puts `# ` before it).
        let printed = trimmed.strip_prefix("# ").unwrap_or(text);
        if let Some(c) = ERROR_LINE.captures(printed)
            && c[1].ends_with("Error")
        {
            self.process_error = Some(cut_message(&format!("{}: {}", &c[1], &c[2])));
        }
    }

    fn wants_every_line(&self) -> bool {
        self.spec_pending.is_some() || self.tap.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        if let Some((id, _)) = self.spec_pending.take() {
            out.fail(Runner::Node, FailureKind::Test, &id, None);
        }
        self.close_tap(out);
    }
}

impl NodeTestParser {
    fn open(&mut self, depth: usize, name: String) {
        self.suites.truncate(depth);
        if self.suites.len() == depth {
            self.suites.push(name);
        }
    }

    fn path(&self, depth: usize, name: &str) -> String {
        let mut parts: Vec<&str> = self.suites.iter().take(depth).map(String::as_str).collect();
        parts.push(name);
        parts.join(" > ")
    }

    /// A failure's error line, as both reporters can give it: `Name: message`.
    fn error_of(&self, line: &str) -> (FailureKind, String) {
        let quoted = line.len() >= 2 && line.starts_with('\'') && line.ends_with('\'');
        let value = if quoted {
            &line[1..line.len() - 1]
        } else {
            line
        };
        if value.starts_with("test timed out after") {
            return (FailureKind::Timeout, value.to_string());
        }
        if quoted && value == "test failed" {
            // A test file that failed to load: its process said why.
            let why = self
                .process_error
                .clone()
                .unwrap_or_else(|| value.to_string());
            return (FailureKind::Error, why);
        }
        let message = match ERROR_LINE.captures(value) {
            Some(c) => format!("{}: {}", &c[1], &c[2]),
            None => value.to_string(),
        };
        (FailureKind::Test, cut_message(&message))
    }

    /// One line of a TAP failure's YAML block; `false` when the block is over and the line
    /// is someone else's.
    fn tap_line(&mut self, text: &str, out: &mut Collector) -> bool {
        let Some(f) = &mut self.tap else { return false };
        let trimmed = text.trim();
        if !f.in_block {
            if trimmed == "---" {
                f.in_block = true;
                return true;
            }
            // node's `not ok` always carries its YAML block (`duration_ms` at least): one
            // without is another producer's TAP (Perl's subtests under `prove -v`).
            self.tap = None;
            return false;
        }
        if trimmed == "..." {
            self.close_tap(out);
            return true;
        }
        if f.error_block {
            if !trimmed.is_empty() {
                f.error = Some(trimmed.to_string());
                f.error_block = false;
            }
            return true;
        }
        if let Some(value) = trimmed.strip_prefix("error: ") {
            if value == "|-" || value == "|" || value == ">-" {
                f.error_block = true;
            } else {
                f.error = Some(yaml_scalar(value));
            }
        } else if let Some(value) = trimmed.strip_prefix("name: ") {
            f.name = Some(yaml_scalar(value));
        } else if trimmed == "type: 'suite'" || trimmed == "failureType: 'subtestsFailed'" {
            f.suite = true;
        } else if trimmed == "failureType: 'testTimeoutFailure'" {
            f.timeout = true;
        }
        true
    }

    fn close_tap(&mut self, out: &mut Collector) {
        let Some(f) = self.tap.take() else { return };
        if f.suite {
            return;
        }
        let error = f.error.unwrap_or_default();
        let (kind, message) = if f.timeout || error.starts_with("test timed out after") {
            (FailureKind::Timeout, error)
        } else if error == "test failed" && f.name.is_none() {
            let why = self.process_error.clone().unwrap_or(error);
            (FailureKind::Error, why)
        } else {
            let name = f.name.as_deref().unwrap_or("Error");
            (FailureKind::Test, format!("{name}: {error}"))
        };
        out.fail(Runner::Node, kind, &f.id, Some(&cut_message(&message)));
    }
}

/// A YAML scalar as node writes it: `'it''s'`, `"say \"x\""`, or bare.
fn yaml_scalar(value: &str) -> String {
    let v = value.trim();
    if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        v[1..v.len() - 1].replace("''", "'")
    } else if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        v[1..v.len() - 1]
            .replace("\\\"", "\"")
            .replace("\\\\", "\\")
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    const SPEC: &str = "\u{25b6} countWords\n  \u{2716} counts three words (22.8ms)\n    AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n    \n    4 !== 3\n    \n  \u{2714} counts \"a b\" (0.6ms)\n\u{2716} countWords (57.1ms)\n\u{25b6} firstWord\n  \u{2716} finds the first word (5.0ms)\n    TypeError [Error]: Cannot read properties of null (reading 'toUpperCase')\n\n\u{2716} firstWord (6ms)\nnode:internal/modules/cjs/loader:1210\nError: Cannot find module '../src/wordcount-v2'\n\u{2716} /tmp/x/test/parse.test.js (724.3ms)\n  'test failed'\n\n\u{2139} tests 4\n\u{2139} fail 3\n\n\u{2716} failing tests:\n\n\u{2716} counts three words (22.8ms)\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n";

    const TAP: &str = "TAP version 13\n# Error: Cannot find module '../src/wordcount-v2'\n# Subtest: /tmp/x/test/parse.test.js\nnot ok 1 - /tmp/x/test/parse.test.js\n  ---\n  duration_ms: 596.6\n  failureType: 'testCodeFailure'\n  exitCode: 1\n  error: 'test failed'\n  code: 'ERR_TEST_FAILURE'\n  ...\n# Subtest: countWords\n    # Subtest: counts three words\n    not ok 1 - counts three words\n      ---\n      duration_ms: 11.2\n      failureType: 'testCodeFailure'\n      error: |-\n        Expected values to be strictly equal:\n        \n        4 !== 3\n      code: 'ERR_ASSERTION'\n      name: 'AssertionError'\n      ...\n    # Subtest: counts \"a b\"\n    ok 2 - counts \"a b\"\n    1..2\nnot ok 2 - countWords\n  ---\n  type: 'suite'\n  failureType: 'subtestsFailed'\n  error: '1 subtest failed'\n  ...\n# Subtest: firstWord\n    # Subtest: finds the first word\n    not ok 1 - finds the first word\n      ---\n      error: \"Cannot read properties of null (reading 'toUpperCase')\"\n      code: 'ERR_TEST_FAILURE'\n      name: 'TypeError'\n      ...\n    1..1\nnot ok 3 - firstWord\n  ---\n  type: 'suite'\n  ...\n1..3\n# tests 4\n# fail 3\n";

    #[test]
    fn spec_and_tap_name_the_same_failures() {
        let spec = fingerprint_as(SPEC, Runner::Node);
        assert_eq!(
            triples(&spec),
            [
                (
                    "countWords > counts three words",
                    FailureKind::Test,
                    "AssertionError: Expected values to be strictly equal:"
                ),
                (
                    "firstWord > finds the first word",
                    FailureKind::Test,
                    "TypeError: Cannot read properties of null (reading 'toUpperCase')"
                ),
                (
                    "test/parse.test.js",
                    FailureKind::Error,
                    "Error: Cannot find module '../src/wordcount-v2'"
                ),
            ]
        );
        let tap = fingerprint_as(TAP, Runner::Node);
        assert_eq!(triples(&spec), triples(&tap));
        assert_eq!(spec.signature, tap.signature);
    }

    #[test]
    fn timeouts() {
        let log = "\u{2716} waits (100.5ms)\n  'test timed out after 100ms'\n";
        let fp = fingerprint_as(log, Runner::Node);
        assert_eq!(
            triples(&fp),
            [("waits", FailureKind::Timeout, "test timed out after <dur>")]
        );
    }

    #[test]
    fn gotestsums_package_lines_are_not_tests() {
        // gotestsum's default format: a package that failed, one that passed, one with no
        // tests. None of them is a test of `node --test`.
        let log =
            "\u{2716}  . (31ms)\n\u{2713}  internal/report (cached)\n\u{2205}  internal/empty\n";
        let fp = crate::fingerprint::fingerprint_bytes(log.as_bytes());
        assert!(
            fp.failures.iter().all(|f| f.runner != Runner::Node),
            "{}",
            fp.render_text()
        );
        assert_ne!(fp.runner, Some(Runner::Node));
    }
}
