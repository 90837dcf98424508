//! TAP: Perl's `prove` (plain, `-v`, `-j`, `--shuffle`) and TAP from other producers.
//!
//! `prove` shows each failing assertion through Test::More's diagnostics,
//! `#   Failed test 'NAME'` / `#   at t/x.t line N.` and what it said (`got:` /
//! `expected:`, `diag` lines); `-v` adds the TAP itself, `not ok N - NAME`. Both name the
//! failure `t/x.t: NAME`. A script that dies before its tests (`Dubious, test returned
//! 255`, `No subtests run`) is an error of the script; Perl's message names it
//! (`... at t/x.t line 3.`, a compile error's `Compilation failed in require at t/x.t`),
//! and the first line of that message is the error. Lines no script is named in are never
//! guessed at: under `-j` they come in any order.
//!
//! Other TAP (`not ok 3 - name`, a YAML block with `message:`) is read the same way; the
//! TAP of `node --test` (its `# Subtest:` lines) is [`super::nodetest`]'s. `# TODO` tests
//! are expected to fail and are no failures.

use super::collect::{Collector, LineParser, MAX_FAILURES};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::{Captures, Regex};
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "tap" };

pub(crate) const TRIGGERS: &[&str] = &[
    "not ok",
    "Failed test",
    ".t ..",
    "Result: ",
    "All tests successful",
    "Bail out!",
    "Subtest: ",
    // Perl's `MESSAGE at FILE line N.`, for the messages of scripts that died.
    ".t line ",
    ".pm line ",
    ".pl line ",
];

static NOT_OK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)not ok\b(?:\s+\d+)?(?:\s*-)?\s*(.*?)\s*$").expect("because it is valid")
});
static FAILED_TEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^#\s+Failed (?:\(TODO\) )?test(?: '(.*)')?(?: at (\S+) line \d+\.)?$")
        .expect("because it is valid")
});
static AT_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^#\s+at (\S+) line \d+\.$").expect("because it is valid"));
/// `t/x.t .. ` (`--timer` puts the time of day before it).
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\[\d\d:\d\d:\d\d\] )?(\S+\.t) \.{2,}(?: |$)").expect("because it is valid")
});
/// A script in prove's closing report: `t/x.t (Wstat: 512 (exited 2) Tests: 3 Failed: 2)`.
static REPORTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+\.t)\s+\(Wstat: \d+ \((?:exited (\d+)|[^)]*)\) Tests: \d+ Failed: (\d+)\)$")
        .expect("because it is valid")
});
static NAMES_SCRIPT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r" at (\S+\.t) line \d+\.?$").expect("because it is valid"));

#[derive(Debug, Default)]
pub(crate) struct TapParser {
    /// The script `prove` is showing (`t/x.t ..`), for `-v`'s `not ok` lines.
    script: Option<String>,
    /// Between prove's first script and `Result:`.
    running: bool,
    /// `node --test`'s TAP: not ours.
    node: bool,
    /// A `#   Failed test` whose location and diagnostics follow.
    failed: Option<Failed>,
    /// A raw `not ok` whose YAML block may follow: (id, message, in the block).
    yaml: Option<(String, Option<String>, bool)>,
    /// Lines no prove or TAP syntax explains (Perl's die messages), in a row.
    stray: Vec<String>,
    /// Per script Perl named in such lines, the first line of the last message naming it.
    messages: Vec<(String, String)>,
    /// Scripts a failed test was named in.
    named: Vec<String>,
    /// In prove's closing report: the script it is about, and whether its tests failed.
    reported: Option<(String, bool)>,
}

#[derive(Debug, Default)]
struct Failed {
    name: String,
    script: Option<String>,
    message: Option<String>,
}

impl LineParser for TapParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if text.starts_with("# Subtest: ") && self.script.is_none() {
            // node's TAP starts a top-level test so; Perl's does too (its subtest's lines
            // are indented under it), but inside a script `prove` names.
            self.node = true;
        }
        if self.node {
            return;
        }
        if self.yaml_line(text, out) {
            return;
        }
        if self.failed.is_some() {
            if self.failed_detail(text) {
                return;
            }
            self.close(out);
        }
        if let Some(c) = text
            .contains("not ok")
            .then(|| NOT_OK.captures(text))
            .flatten()
        {
            self.stray.clear();
            let name = without_timing(&c[2]).to_string();
            // An indented `not ok` is a subtest's: its parent's `not ok` follows, at the
            // script's level, and is the failure, as plain `prove` (which shows only the
            // parent's `#   Failed test`) names it too.
            if is_todo(&name) || !c[1].is_empty() {
                return;
            }
            out.saw(Runner::Tap);
            let id = self.id(&name);
            self.name_script(self.script.clone());
            out.fail(Runner::Tap, FailureKind::Test, &id, None);
            self.yaml = Some((id, None, false));
        } else if let Some(c) = FAILED_TEST.captures(text) {
            self.stray.clear();
            out.saw(Runner::Tap);
            if !text.contains("(TODO)") {
                self.failed = Some(Failed {
                    name: c.get(1).map_or("", |m| m.as_str()).to_string(),
                    script: c.get(2).map(|m| m.as_str().to_string()),
                    message: None,
                });
            }
        } else if let Some(c) = HEADER.captures(text) {
            self.stray.clear();
            out.saw(Runner::Tap);
            self.running = true;
            self.script = Some(c[1].to_string());
        } else if text.starts_with("Result: ") || text.starts_with("All tests successful") {
            out.saw(Runner::Tap);
            self.running = false;
            self.reported = None;
        } else if let Some(reason) = text.trim_start().strip_prefix("Bail out!") {
            out.fail(
                Runner::Tap,
                FailureKind::Error,
                "bail out",
                Some(reason.trim()),
            );
        } else if let Some(c) = REPORTED.captures(text) {
            self.reported_script(&c, out);
        } else if let Some((script, true)) = &self.reported
            && let Some(numbers) = text
                .trim_start()
                .strip_prefix("Failed tests:")
                .or_else(|| text.trim_start().strip_prefix("Failed test:"))
        {
            // Tests prove counted as failed but nothing named (`--merge` hides the
            // diagnostics): the script's failures, as prove numbers them.
            if !self.named.contains(script) {
                let id = format!("{script}: failed tests {}", numbers.trim());
                out.fail(Runner::Tap, FailureKind::Test, &id, None);
            }
        } else {
            self.stray_line(text);
        }
    }

    fn wants_every_line(&self) -> bool {
        self.running || self.failed.is_some() || self.yaml.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.close(out);
        self.yaml = None;
    }
}

impl TapParser {
    /// A line after prove's `Failed test` report: where it failed, or its diagnostics
    /// (`got:`/`expected:`). `false` when the line is neither and the report is over.
    fn failed_detail(&mut self, text: &str) -> bool {
        let Some(f) = &mut self.failed else {
            return false;
        };
        if let Some(c) = AT_LINE.captures(text) {
            f.script = Some(c[1].to_string());
            return true;
        }
        let Some(diag) = text.strip_prefix('#').map(str::trim) else {
            return false;
        };
        if FAILED_TEST.is_match(text) || diag.starts_with("Looks like ") {
            return false;
        }
        if !diag.is_empty() {
            f.message = Some(match f.message.take() {
                // `got:` alone says little; `expected:` completes it.
                Some(got) if got.starts_with("got:") && diag.starts_with("expected:") => {
                    cut_message(&format!("{got} {diag}"))
                }
                Some(m) => m,
                None => cut_message(diag),
            });
        }
        true
    }

    /// prove's line for a script in its closing report: a script that ran no failing test
    /// and still exited non-zero died.
    fn reported_script(&mut self, c: &Captures<'_>, out: &mut Collector) {
        self.stray.clear();
        self.running = true;
        let failed = &c[3] != "0";
        let exited = c.get(2).map_or("1", |m| m.as_str());
        let script = c[1].to_string();
        if !failed && exited != "0" {
            let message = self
                .messages
                .iter()
                .find(|(s, _)| *s == script)
                .map_or("died", |(_, m)| m.as_str())
                .to_string();
            out.fail(Runner::Tap, FailureKind::Error, &script, Some(&message));
        }
        self.reported = Some((script, failed));
    }

    fn id(&self, name: &str) -> String {
        let name = if name.is_empty() { "(unnamed)" } else { name };
        match &self.script {
            Some(script) => format!("{script}: {name}"),
            None => name.to_string(),
        }
    }

    fn name_script(&mut self, script: Option<String>) {
        if let Some(script) = script
            && !self.named.contains(&script)
            && self.named.len() < MAX_FAILURES
        {
            self.named.push(script);
        }
    }

    fn close(&mut self, out: &mut Collector) {
        if let Some(f) = self.failed.take() {
            let name = if f.name.is_empty() {
                "(unnamed)"
            } else {
                &f.name
            };
            self.name_script(f.script.clone().or_else(|| self.script.clone()));
            let id = match f.script.as_ref().or(self.script.as_ref()) {
                Some(script) => format!("{script}: {name}"),
                None => name.to_string(),
            };
            out.fail(Runner::Tap, FailureKind::Test, &id, f.message.as_deref());
        }
    }

    /// A `not ok`'s YAML block (`  ---` ... `  ...`): its `message:` is the error.
    fn yaml_line(&mut self, text: &str, out: &mut Collector) -> bool {
        let Some((id, message, inside)) = &mut self.yaml else {
            return false;
        };
        let trimmed = text.trim();
        if !*inside {
            if trimmed == "---" {
                *inside = true;
                return true;
            }
            self.yaml = None;
            return false;
        }
        if trimmed == "..." {
            if let Some(m) = message.take() {
                out.add_message(Runner::Tap, id, &m);
            }
            self.yaml = None;
        } else if message.is_none()
            && let Some(m) = trimmed
                .strip_prefix("message:")
                .or_else(|| trimmed.strip_prefix("error:"))
        {
            let m = m.trim().trim_matches(['\'', '"']);
            if !m.is_empty() && m != "|-" && m != ">-" {
                *message = Some(cut_message(m));
            }
        }
        true
    }

    /// Perl's message about a script that died names the script in one of its lines; the
    /// first line of that message (the lines in a row before) is the error. A later message
    /// naming the same script replaces an earlier one (a warning before the die).
    fn stray_line(&mut self, text: &str) {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || is_prove_line(trimmed) {
            self.stray.clear();
            return;
        }
        if self.stray.len() < 8 {
            self.stray.push(cut_message(trimmed));
        }
        if let Some(c) = NAMES_SCRIPT.captures(trimmed) {
            let first = self.stray.first().cloned().unwrap_or_default();
            let known = self.messages.len();
            match self.messages.iter_mut().find(|(s, _)| s == &c[1]) {
                // A same message's next line (`BEGIN failed--compilation aborted`) changes
                // nothing: `first` is that message's first line again.
                Some((_, m)) => *m = first,
                None if known < MAX_FAILURES => self.messages.push((c[1].to_string(), first)),
                None => {}
            }
        }
    }
}

/// prove's own report lines, which are never a script's message.
fn is_prove_line(trimmed: &str) -> bool {
    let trimmed = match trimmed.strip_prefix('[') {
        Some(rest) if rest.get(8..10) == Some("] ") => &rest[10..],
        _ => trimmed,
    };
    let tap = trimmed == "ok"
        || trimmed.starts_with("ok ")
        || trimmed.split_once("..").is_some_and(|(a, b)| {
            a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().next().is_some_and(|c| c.is_ascii_digit())
        });
    tap || HEADER.is_match(trimmed) || {
        const PREFIXES: [&str; 12] = [
            "===(",
            "Failed ",
            "Dubious,",
            "No subtests run",
            "All ",
            "Test Summary Report",
            "---",
            "Non-zero ",
            "Parse errors:",
            "Files=",
            "Wstat",
            "ok ",
        ];
        PREFIXES.iter().any(|p| trimmed.starts_with(p)) || trimmed.contains(" (Wstat: ")
    }
}

/// bats' `--timing` (`-T`) adds ` in 69ms` to each test's name: the test is the same.
fn without_timing(name: &str) -> &str {
    name.rsplit_once(" in ")
        .filter(|(_, t)| {
            t.strip_suffix("ms")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map_or(name, |(name, _)| name)
}

/// `not ok 3 - later # TODO not written yet`: expected to fail.
fn is_todo(name: &str) -> bool {
    name.split_once('#').is_some_and(|(_, directive)| {
        directive
            .trim_start()
            .to_ascii_uppercase()
            .starts_with("TODO")
    })
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    #[test]
    fn a_script_that_died_in_a_subtest_under_prove_v_is_the_scripts_error() {
        // Test::More puts a subtest's `# Subtest:` line at the parent's indent, as node's
        // TAP does: inside a script prove names, it is Perl's, and prove's report stays ours.
        let log = "t/crash.t .. \n1..3\nok 1 - first passes\n# Subtest: middle dies\n    1..1\n\
            Failed 2/3 subtests \nt/other.t .. \n1..1\nok 1 - other\nok\n\nTest Summary Report\n\
            -------------------\nt/crash.t (Wstat: 11 (Signal: SEGV) Tests: 1 Failed: 0)\n  \
            Non-zero wait status: 11\n  Parse errors: Bad plan.  You planned 3 tests but ran 1.\n\
            Files=2, Tests=2,  0 wallclock secs\nResult: FAIL\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.runner, Some(Runner::Tap));
        assert_eq!(fp.failures.len(), 1, "{:?}", fp.failures);
        assert_eq!(fp.failures[0].id, "t/crash.t");
        assert_eq!(fp.failures[0].kind, FailureKind::Error);
    }

    #[test]
    fn a_failing_subtest_is_its_parents_failure_with_and_without_v() {
        let verbose = "t/count.t .. \nok 1 - counts three words\n# Subtest: cases\n    \
            not ok 1 - counts 'a b'\n    ok 2 - counts ''\n    1..2\nnot ok 2 - cases\n1..2\n\
            Dubious, test returned 1 (wstat 256, 0x100)\nFailed 1/2 subtests \n";
        let plain = "\n    #   Failed test 'counts 'a b''\n    #   at t/count.t line 11.\n\n\
            #   Failed test 'cases'\n#   at t/count.t line 13.\n# Looks like you failed 1 test of 2.\n\
            t/count.t .. \nDubious, test returned 1 (wstat 256, 0x100)\nFailed 1/2 subtests \n";
        let (v, p) = (
            fingerprint_bytes(verbose.as_bytes()),
            fingerprint_bytes(plain.as_bytes()),
        );
        let ids = |fp: &crate::fingerprint::Fingerprint| {
            fp.failures.iter().map(|f| f.id.clone()).collect::<Vec<_>>()
        };
        assert_eq!(ids(&v), ["t/count.t: cases"], "{:?}", v.failures);
        assert_eq!(
            v.signature, p.signature,
            "{:?} vs {:?}",
            v.failures, p.failures
        );
        assert_eq!(v.runner, Some(Runner::Tap));
    }

    const PROVE: &str = "\n#   Failed test 'counts three words'\n#   at t/count.t line 7.\n#          got: '4'\n#     expected: '3'\n# Looks like you failed 1 test of 5.\nt/count.t .. \nDubious, test returned 1 (wstat 256, 0x100)\nFailed 1/5 subtests \nno sentence source configured at t/first.t line 7.\nt/first.t .. \nDubious, test returned 255 (wstat 65280, 0xff00)\nNo subtests run \n\nTest Summary Report\n-------------------\nt/count.t (Wstat: 256 (exited 1) Tests: 5 Failed: 1)\n  Failed test:  1\n  Non-zero exit status: 1\nt/first.t (Wstat: 65280 (exited 255) Tests: 0 Failed: 0)\n  Non-zero exit status: 255\n  Parse errors: No plan found in TAP output\nResult: FAIL\n";

    #[test]
    fn failed_tests_and_scripts_that_died() {
        let fp = fingerprint_as(PROVE, Runner::Tap);
        assert_eq!(
            triples(&fp),
            [
                (
                    "t/count.t: counts three words",
                    FailureKind::Test,
                    "got: '<n>' expected: '<n>'"
                ),
                (
                    "t/first.t",
                    FailureKind::Error,
                    "no sentence source configured at t/first.t line <n>."
                ),
            ]
        );
    }

    #[test]
    fn verbose_tap_names_the_same_failure() {
        let verbose = "\n#   Failed test 'counts three words'\n#   at t/count.t line 7.\n#          got: '4'\n#     expected: '3'\nt/count.t .. \nnot ok 1 - counts three words\nok 2 - counts nothing\n1..2\nDubious, test returned 1 (wstat 256, 0x100)\nResult: FAIL\n";
        let fp = fingerprint_as(verbose, Runner::Tap);
        assert_eq!(fp.failures.len(), 1, "{}", fp.render_text());
        let plain = fingerprint_bytes(PROVE.as_bytes());
        assert_eq!(fp.failures[0], plain.failures[0]);
    }

    #[test]
    fn what_only_the_closing_report_shows_is_still_a_failure() {
        // `--merge`: the diagnostics went into the TAP stream, which prove does not show.
        let log = "t/count.t .. Failed 1/5 subtests \n\nTest Summary Report\n-------------------\nt/count.t (Wstat: 256 (exited 1) Tests: 5 Failed: 1)\n  Failed test:  1\n  Non-zero exit status: 1\nFiles=1, Tests=5\nResult: FAIL\n";
        let fp = fingerprint_as(log, Runner::Tap);
        assert_eq!(
            triples(&fp),
            [(
                "t/count.t: failed tests 1",
                FailureKind::Test,
                "test failed"
            )]
        );
        // A warning naming a script that did not die is no failure of it.
        let log = "Use of uninitialized value in uc at t/first.t line 7.\nt/first.t .. ok\nAll tests successful.\nResult: PASS\n";
        assert_eq!(fingerprint_bytes(log.as_bytes()).signature, None);
    }

    #[test]
    fn bats_timing_is_no_part_of_the_name() {
        let plain = fingerprint_bytes(b"1..2\nok 1 a\nnot ok 2 total counts every item\n");
        let timed =
            fingerprint_bytes(b"1..2\nok 1 a in 3ms\nnot ok 2 total counts every item in 69ms\n");
        assert_eq!(timed.failures[0].id, "total counts every item");
        assert_eq!(timed.signature, plain.signature);
    }

    #[test]
    fn raw_tap_with_yaml_and_todo() {
        let log = "TAP version 13\n1..3\nok 1 - a\nnot ok 2 - b\n  ---\n  message: 'expected 3, got 4'\n  ...\nnot ok 3 - c # TODO later\n";
        let fp = fingerprint_as(log, Runner::Tap);
        assert_eq!(
            triples(&fp),
            [("b", FailureKind::Test, "expected <n>, got <n>")]
        );
    }

    #[test]
    fn node_tap_is_not_read_here() {
        let log =
            "TAP version 13\n# Subtest: counts\nnot ok 1 - counts\n  ---\n  error: 'x'\n  ...\n";
        assert!(
            fingerprint_bytes(log.as_bytes())
                .failures
                .iter()
                .all(|f| f.runner != Runner::Tap)
        );
    }

    #[test]
    fn a_passing_run_names_tap() {
        let fp = fingerprint_bytes(b"t/count.t .. ok\nt/first.t .. ok\nAll tests successful.\nFiles=2, Tests=6,  0 wallclock secs\nResult: PASS\n");
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Tap));
    }
}
