//! PHPUnit, default output and `--testdox`.
//!
//! Default: `There were 2 errors:` / `There was 1 failure:` (and warnings, which fail a run
//! too), then `N) Ns\FooTest::testMethod` (`with data set "name" (args)` for a data
//! provider's case) and the message on the next line. `--testdox` prints the class as
//! `Foo (Ns\Foo)` and each failing test as ` ✘ Method name` with the message in a `│`
//! box below. The id is the one both show alike: the class without its `Test` suffix and
//! the method named as testdox names it (`Ns\Foo: Counts three words`), so the two
//! outputs of one failure give one signature.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "phpunit" };

pub(crate) const TRIGGERS: &[&str] = &["PHPUnit ", "There w", "Tests: ", "OK (", "\u{2718}"];

static SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^There (?:was|were) \d+ (error|failure|warning)s?:$").expect("because it is valid")
});
static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\d+\) ([^\s:]+)::(\w+)(?: with data set (#\d+|"(?:[^"\\]|\\.)*"))?"#)
        .expect("because it is valid")
});
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:Tests: \d+, Assertions: \d+|OK \(\d+ tests?, \d+ assertions?\))")
        .expect("because it is valid")
});
static TESTDOX_CLASS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\S.* \(([\w\\]+)\)$").expect("because it is valid"));

#[derive(Debug, Default)]
pub(crate) struct PhpunitParser {
    /// Between the version banner and the summary: every line (testdox class headers have
    /// no trigger).
    running: bool,
    /// `--testdox`: the class of the tests listed now.
    testdox_class: Option<String>,
    /// Inside `There were N errors:` (the kind) or a testdox entry.
    section: Option<FailureKind>,
    entry: Option<(String, FailureKind, Option<String>)>,
}

impl LineParser for PhpunitParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if text.starts_with("PHPUnit ") && text.contains(" by Sebastian Bergmann") {
            self.close(out);
            out.saw(Runner::Phpunit);
            self.running = true;
            return;
        }
        if SUMMARY.is_match(text) || text == "FAILURES!" || text == "ERRORS!" {
            self.close(out);
            out.saw(Runner::Phpunit);
            self.section = None;
            self.running = text == "FAILURES!" || text == "ERRORS!";
            return;
        }
        if let Some(c) = SECTION.captures(text) {
            self.close(out);
            out.saw(Runner::Phpunit);
            self.running = true;
            // An error is an exception in a test, as testdox shows it too: a test failure.
            self.section = Some(match &c[1] {
                "warning" => FailureKind::Error,
                _ => FailureKind::Test,
            });
            return;
        }
        if let Some(kind) = self.section {
            if let Some(c) = ENTRY.captures(text) {
                self.close(out);
                let class = c[1].strip_suffix("Test").unwrap_or(&c[1]);
                let mut id = format!("{class}: {}", prettify_method(&c[2]));
                if let Some(set) = c.get(3) {
                    id.push_str(" with ");
                    id.push_str(set.as_str().trim_matches('"'));
                }
                self.entry = Some((id, kind, None));
            } else if text == "--" {
                self.close(out);
            } else if let Some((_, _, message)) = &mut self.entry
                && message.is_none()
                && !text.trim().is_empty()
            {
                *message = Some(cut_message(text.trim()));
            }
            return;
        }
        // Testdox lines only inside PHPUnit's run: `✘` is Playwright's too.
        if self.running {
            self.testdox_line(text, out);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.running || self.section.is_some() || self.entry.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
    }
}

impl PhpunitParser {
    fn close(&mut self, out: &mut Collector) {
        if let Some((id, kind, message)) = self.entry.take() {
            out.fail(Runner::Phpunit, kind, &id, message.as_deref());
        }
    }

    fn testdox_line(&mut self, text: &str, out: &mut Collector) {
        if let Some(c) = TESTDOX_CLASS.captures(text) {
            self.close(out);
            self.testdox_class = Some(c[1].to_string());
            return;
        }
        let trimmed = text.trim_start();
        if let Some(name) = trimmed.strip_prefix("\u{2718} ") {
            self.close(out);
            let class = self.testdox_class.as_deref().unwrap_or("");
            // PHPUnit does not say in testdox whether it was an error or a failure; the
            // message does: an exception's class, or an assertion's words.
            self.entry = Some((
                format!("{class}: {}", testdox_name(name.trim())),
                FailureKind::Test,
                None,
            ));
            return;
        }
        // The box around the message: `│` plain; `┐ ├ │ ╵ ┴` coloured.
        if let Some(rest) =
            trimmed.strip_prefix(['\u{2502}', '\u{251c}', '\u{2510}', '\u{2575}', '\u{2534}'])
        {
            if let Some((_, _, message)) = &mut self.entry
                && message.is_none()
                && !rest.trim().is_empty()
            {
                *message = Some(cut_message(rest.trim()));
            }
            return;
        }
        if !trimmed.is_empty() {
            self.close(out);
        }
    }
}

/// A testdox name with its data set as the default output names it: `with data set
/// "versions"` (plain) and `with versions` (coloured, spaces shown as `·`) are both `with
/// versions`.
fn testdox_name(name: &str) -> String {
    let name = name.replace('\u{00b7}', " ");
    match name.split_once(" with data set ") {
        Some((method, set)) => format!("{method} with {}", set.trim_matches('"')),
        None => name,
    }
}

/// PHPUnit's testdox name of a test method: `testCountsThreeWords` -> `Counts three
/// words`, `test_reads_config` -> `Reads config`, digits set apart (`testV2Parser` -> `V 2
/// parser`), as `NamePrettifier::prettifyTestMethod` writes them.
fn prettify_method(name: &str) -> String {
    let name = name
        .strip_prefix("test_")
        .or_else(|| name.strip_prefix("test"))
        .unwrap_or(name);
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return String::new();
    };
    let name: String = first.to_uppercase().chain(chars).collect();
    if name.contains('_') {
        return name.replace('_', " ").trim().to_string();
    }
    let mut out = String::with_capacity(name.len() + 8);
    let mut was_numeric = false;
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push(' ');
            out.push(c.to_ascii_lowercase());
        } else {
            let numeric = c.is_ascii_digit();
            if !was_numeric && numeric {
                out.push(' ');
                was_numeric = true;
            }
            if was_numeric && !numeric {
                was_numeric = false;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::prettify_method;
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn method_names_as_testdox_writes_them() {
        assert_eq!(
            prettify_method("testCountsThreeWords"),
            "Counts three words"
        );
        assert_eq!(prettify_method("test_reads_config"), "Reads config");
        assert_eq!(prettify_method("itParsesV2"), "It parses v 2");
    }

    const DEFAULT: &str = "PHPUnit 9.6.7 by Sebastian Bergmann and contributors.\n\nE.F\n\nThere was 1 error:\n\n1) Wc\\Tests\\WordcountTest::testFirstWord\nTypeError: strtoupper(): Argument #1 ($string) must be of type string, null given\n\n/tmp/x/tests/WordcountTest.php:30\n\n--\n\nThere was 1 failure:\n\n1) Wc\\Tests\\WordcountTest::testCountsPairs with data set \"versions\" ('v2 utf8', 3)\nFailed asserting that 2 is identical to 3.\n\n/tmp/x/tests/WordcountTest.php:19\n\nERRORS!\nTests: 3, Assertions: 2, Errors: 1, Failures: 1.\n";

    const TESTDOX: &str = "PHPUnit 9.6.7 by Sebastian Bergmann and contributors.\n\nWordcount (Wc\\Tests\\Wordcount)\n \u{2718} Counts pairs with data set \"versions\"\n   \u{2502}\n   \u{2502} Failed asserting that 2 is identical to 3.\n   \u{2502}\n   \u{2502} /tmp/x/tests/WordcountTest.php:19\n   \u{2502}\n\n \u{2714} Counts three words\n \u{2718} First word\n   \u{2502}\n   \u{2502} TypeError: strtoupper(): Argument #1 ($string) must be of type string, null given\n   \u{2502}\n\nTime: 00:00.028, Memory: 6.00 MB\n\nERRORS!\nTests: 3, Assertions: 2, Errors: 1, Failures: 1.\n";

    #[test]
    fn default_and_testdox_give_one_signature() {
        let default = fingerprint_as(DEFAULT, Runner::Phpunit);
        assert_eq!(
            triples(&default),
            [
                (
                    "Wc\\Tests\\Wordcount: Counts pairs with versions",
                    FailureKind::Test,
                    "Failed asserting that <n> is identical to <n>."
                ),
                (
                    "Wc\\Tests\\Wordcount: First word",
                    FailureKind::Test,
                    "TypeError: strtoupper(): Argument #<n> ($string) must be of type string, null given"
                ),
            ]
        );
        let testdox = fingerprint_as(TESTDOX, Runner::Phpunit);
        assert_eq!(triples(&default), triples(&testdox));
        assert_eq!(default.signature, testdox.signature);
    }

    #[test]
    fn a_passing_run_names_phpunit() {
        let fp = fingerprint_bytes(b"PHPUnit 9.6.7 by Sebastian Bergmann and contributors.\n\n...   3 / 3 (100%)\n\nTime: 00:00.006, Memory: 4.00 MB\n\nOK (3 tests, 3 assertions)\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Phpunit));
    }
}
