//! `go test` output (plain and `-v`), Go panics and timeouts, and go build errors.
//!
//! `--- FAIL: TestX (0.00s)` names a failure; `TestX/sub` a subtest (its parent, failing
//! only because of it, is left out). The error is the test's first log line
//! (`    x_test.go:12: got 4, want 3`): after the FAIL line without `-v`, before it with `-v`
//! (where `=== RUN`/`=== CONT` lines say which test is talking). `panic:` after a FAIL line
//! is that test crashing; `panic: test timed out` lists the running tests. Build errors are
//! `./file.go:20:9: message` lines before `FAIL pkg [build failed]`.
//!
//! `go test -json` (test2json) wraps the `-v` output in events: each `output` event's text
//! is read as the line it wraps, and only where the text front end would hand that line on
//! (it holds a trigger, or the parser is inside a block), so `-json` and `-v` name the same
//! failures with the same messages.

use super::collect::{Collector, LineParser, MAX_FAILURES};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "go" };

/// `=== RUN` and its kin are found by `= RUN`: a trigger that starts `==` would be a
/// candidate at every byte of a rule (`=====`, pytest's and many tools'), and each one
/// compared, in the scan for the next trigger and in the search for a line's owners.
pub(crate) const TRIGGERS: &[&str] = &[
    "FAIL", "panic", ".go:", "= RUN", "= CONT", "= NAME", "= PAUSE", "ok  \t", JSON_OK,
];

/// A package's `ok` line inside a `-json` output event (its tab escaped); every other line
/// the parser needs holds one of the triggers above in JSON too.
const JSON_OK: &str = "\"Output\":\"ok  \\t";

/// What the parser reads of a test2json event: its action and the output it wraps.
#[derive(serde::Deserialize)]
struct Event {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Output")]
    output: Option<String>,
}

static BUILD_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+\.go):\d+(?::\d+)?: (.+)$").expect("because it is valid"));
static PANIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^panic: (.+?)(?: \[recovered\])?$").expect("because it is valid")
});
static PACKAGE_FAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^FAIL\s+(\S+)(?:\s+\[([a-z ]+)\]|\s+[\d.]+s)?$").expect("because it is valid")
});
static TEST_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[\w./-]+\.((?:Test|Example|Fuzz)\w*)\(").expect("because it is valid")
});
static RUNNING_TEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+(Test\S*|Example\S*|Fuzz\S*|Benchmark\S*) \(.*\)$")
        .expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct GoParser {
    /// The test `=== RUN`/`=== CONT` last named (`-v`).
    current: Option<String>,
    /// First log line per test seen before its FAIL line (`-v`).
    early_messages: HashMap<String, String>,
    /// The FAIL line whose output (deeper indented lines) may follow, and its indent.
    after_fail: Option<(String, usize)>,
    /// The last processed line was this test's FAIL line (a `panic:` right after is its).
    just_failed: Option<String>,
    /// Failing tests and whether they have their own message.
    failed: BTreeMap<String, bool>,
    /// A panic not tied to a test yet: (message, kind).
    orphan_panic: Option<(String, FailureKind)>,
    /// After `panic: test timed out`: the `running tests:` list (Go >= 1.20) or the
    /// goroutine dump (a `pkg.TestX(...)` frame) names the test.
    timed_out: bool,
    timeout_named: bool,
    /// In the goroutine dump: the current goroutine's test frame, and whether it is a
    /// parallel test still paused (not the one that hung).
    frame_test: Option<String>,
    frame_paused: bool,
    /// A failure was reported since the last package result (`ok  pkg`, `FAIL pkg`).
    reported_in_package: bool,
}

/// go's own result line of a package that ran, `FAIL\tpkg\t0.003s`: tabs and a duration
/// (jest's `FAIL src/x.test.js` has neither).
fn is_package_result(text: &str) -> bool {
    let mut fields = text.split('\t');
    let (Some("FAIL"), Some(package), Some(time), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return false;
    };
    !package.is_empty()
        && time
            .strip_suffix('s')
            .is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// The message of a package whose test binary failed without a failing test: it died (a
/// signal, `os.Exit` in a test) before `go test` could name one. Without `-v` go adds
/// `exit status 3`, with `-v` it does not, so the message says only what both show.
const DIED: &str = "the test binary failed without a failing test";

impl LineParser for GoParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        if line.text.starts_with("{\"") && self.json_line(&line.text, out) {
            return;
        }
        self.text_line(line, out);
    }

    fn wants_every_line(&self) -> bool {
        self.after_fail.is_some() || self.just_failed.is_some() || self.timed_out
    }

    fn finish(&mut self, out: &mut Collector) {
        self.finish_run(out);
    }
}

impl GoParser {
    /// A test2json event: the lines its output wraps, each read as the text front end
    /// would hand it on. `false` when the line is no event.
    fn json_line(&mut self, text: &str, out: &mut Collector) -> bool {
        let Ok(event) = serde_json::from_str::<Event>(text) else {
            return false;
        };
        out.saw(Runner::Go);
        let Some(output) = event.output.filter(|_| event.action == "output") else {
            return true;
        };
        for wrapped in output.lines() {
            if self.wants_every_line()
                || TRIGGERS[..TRIGGERS.len() - 1]
                    .iter()
                    .any(|t| wrapped.contains(t))
            {
                let inner = CleanLine {
                    text: wrapped.to_string(),
                    ..CleanLine::default()
                };
                // test2json frames a test's output with `=== CONT`/`=== NAME` lines of its
                // own, one even between a FAIL line and the panic that `-v` prints right
                // after it: the panic is still the failed test's.
                let failed = self.just_failed.clone();
                let framing = wrapped.starts_with("=== CONT") || wrapped.starts_with("=== NAME");
                self.text_line(&inner, out);
                if framing {
                    self.just_failed = failed;
                }
            }
        }
        true
    }

    fn text_line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        let just_failed = self.just_failed.take();

        if let Some((id, indent)) = &self.after_fail {
            let deeper = text.len() - text.trim_start().len() > *indent;
            if deeper && !is_fail_line(text) {
                if let Some(log) = log_line(text) {
                    let id = id.clone();
                    self.message(out, &id, log);
                }
                return;
            }
            self.after_fail = None;
        }

        let go_file = text.contains(".go:");
        if let Some((indent, id)) = fail_line(text) {
            let id = id.to_string();
            out.saw(Runner::Go);
            self.fail(out, FailureKind::Test, &id, None);
            if self.failed.len() < MAX_FAILURES {
                self.failed.entry(id.clone()).or_insert(false);
            }
            if let Some(m) = self.early_messages.remove(&id) {
                self.message(out, &id, &m);
            }
            self.after_fail = Some((id.clone(), indent));
            self.just_failed = Some(id);
        } else if let Some(test) = run_line(text) {
            self.current = Some(test.to_string());
        } else if let Some(log) = go_file.then(|| log_line(text)).flatten() {
            if let Some(current) = &self.current
                && self.early_messages.len() < MAX_FAILURES
            {
                self.early_messages
                    .entry(current.clone())
                    .or_insert_with(|| log.to_string());
            }
        } else if let Some(c) = text
            .starts_with("panic: ")
            .then(|| PANIC.captures(text))
            .flatten()
        {
            let message = format!("panic: {}", &c[1]);
            let kind = if c[1].starts_with("test timed out") {
                self.timed_out = true;
                self.timeout_named = false;
                FailureKind::Timeout
            } else {
                FailureKind::Crash
            };
            match just_failed {
                Some(id) if kind == FailureKind::Crash => {
                    self.fail(out, kind, &id, Some(&message));
                    self.mark_message(&id);
                }
                _ => self.orphan_panic = Some((message, kind)),
            }
        } else if self.timed_out && text == "running tests:" {
            // The list of tests that were running follows.
        } else if self.timed_out && !self.timeout_named && self.dump_line(text, out) {
            // A line of the goroutine dump after a timeout.
        } else if let Some(c) = text
            .starts_with("FAIL")
            .then(|| PACKAGE_FAIL.captures(text))
            .flatten()
        {
            let bracket = c.get(2).is_some();
            self.package_failed(&c[1], bracket, text, out);
        } else if let Some(c) = go_file.then(|| BUILD_ERROR.captures(text)).flatten() {
            let file = c[1].strip_prefix("./").unwrap_or(&c[1]);
            self.fail(out, FailureKind::Build, file, Some(&c[2]));
        } else if text.starts_with("ok  \t") || text.starts_with("ok  ") {
            out.saw(Runner::Go);
            self.reported_in_package = false;
        }
    }

    fn finish_run(&mut self, out: &mut Collector) {
        // A parent test fails because its subtest failed: the subtest is the failure.
        for (id, has_message) in &self.failed {
            let prefix = format!("{id}/");
            let has_failed_subtest = self
                .failed
                .range(prefix.clone()..)
                .next()
                .is_some_and(|(other, _)| other.starts_with(&prefix));
            if !has_message && has_failed_subtest {
                out.withdraw(Runner::Go, id);
            }
        }
    }
}

fn is_fail_line(text: &str) -> bool {
    fail_line(text).is_some()
}

/// `    --- FAIL: TestX/sub (0.00s)`: its indent and the test (read by hand, as the two
/// below: a failure-dense log has a few of these lines per test).
fn fail_line(text: &str) -> Option<(usize, &str)> {
    let rest = text.trim_start_matches(char::is_whitespace);
    let indent = text.len() - rest.len();
    let (id, time) = rest.strip_prefix("--- FAIL: ")?.split_once(' ')?;
    (!id.is_empty() && time.starts_with('(') && time.ends_with(')')).then_some((indent, id))
}

/// `=== RUN   TestX` (`CONT`, `NAME`, `PAUSE`): the test.
fn run_line(text: &str) -> Option<&str> {
    let (verb, test) = text.strip_prefix("=== ")?.split_once(char::is_whitespace)?;
    let test = test.trim_start_matches(char::is_whitespace);
    let named = !test.is_empty() && !test.contains(char::is_whitespace);
    (matches!(verb, "RUN" | "CONT" | "NAME" | "PAUSE") && named).then_some(test)
}

/// `    x_test.go:12: message`, indented: the log line without its indent.
fn log_line(text: &str) -> Option<&str> {
    let rest = text.trim_start_matches(char::is_whitespace);
    if rest.len() == text.len() {
        return None;
    }
    let (place, _) = rest.split_once(": ")?;
    let (file, line) = place.rsplit_once(':')?;
    let file_ok = file.len() > 3 && file.ends_with(".go") && !file.contains(char::is_whitespace);
    (file_ok && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())).then_some(rest)
}

impl GoParser {
    /// Follows the goroutine dump after `panic: test timed out` to name the test that hung:
    /// the `running tests:` list when Go prints one, else the goroutine with a test frame
    /// that is not paused in `t.Parallel`. Returns whether the line was part of the dump.
    fn dump_line(&mut self, text: &str, out: &mut Collector) -> bool {
        let named = if let Some(c) = RUNNING_TEST.captures(text) {
            Some(c[1].to_string())
        } else if text.starts_with("goroutine ") {
            self.frame_test = None;
            self.frame_paused = false;
            return true;
        } else if let Some(c) = TEST_FRAME.captures(text) {
            self.frame_test.get_or_insert_with(|| c[1].to_string());
            return true;
        } else if text.contains("testing.(*T).Parallel(") {
            self.frame_paused = true;
            return true;
        } else if text.is_empty() && !self.frame_paused {
            self.frame_test.take()
        } else {
            return text.starts_with('\t') || text == "running tests:";
        };
        let Some(test) = named else { return true };
        if let Some((message, kind)) = &self.orphan_panic {
            out.fail(Runner::Go, *kind, &test, Some(message));
            self.reported_in_package = true;
            self.failed.insert(test, true);
            self.timeout_named = true;
        }
        true
    }

    /// go's `FAIL pkg ...` line: a pending panic is the package's; a package whose test
    /// binary failed without a failing test died.
    fn package_failed(&mut self, package: &str, bracket: bool, text: &str, out: &mut Collector) {
        out.saw(Runner::Go);
        if self.timed_out && !self.timeout_named {
            // The dump's last goroutine ends at the package's FAIL line.
            self.dump_line("", out);
        }
        self.timed_out = false;
        // Only go's own result ends its package (not another runner's `FAIL file`).
        let ran = is_package_result(text);
        let reported = self.reported_in_package;
        if ran || bracket {
            self.reported_in_package = false;
        }
        if let Some((message, kind)) = self.orphan_panic.take()
            && !self.timeout_named
        {
            out.fail(Runner::Go, kind, package, Some(&message));
        } else if !reported && ran {
            // `FAIL\tpkg\t0.01s` (not `[build failed]`) and no test failed.
            out.fail(Runner::Go, FailureKind::Crash, package, Some(DIED));
        }
    }

    /// Reports a failure of the package being run.
    fn fail(&mut self, out: &mut Collector, kind: FailureKind, id: &str, message: Option<&str>) {
        out.fail(Runner::Go, kind, id, message);
        self.reported_in_package = true;
    }

    fn message(&mut self, out: &mut Collector, id: &str, message: &str) {
        out.add_message(Runner::Go, id, message);
        self.mark_message(id);
    }

    fn mark_message(&mut self, id: &str) {
        if let Some(has_message) = self.failed.get_mut(id) {
            *has_message = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::{FailureKind, Runner, fingerprint_bytes};

    fn failures(log: &str) -> Vec<(String, FailureKind, String)> {
        let fp = fingerprint_bytes(log.as_bytes());
        fp.failures
            .into_iter()
            .map(|f| (f.id, f.kind, f.message))
            .collect()
    }

    #[test]
    fn a_package_that_failed_without_a_failing_test_is_a_crash() {
        let died = |pkg: &str| {
            (
                pkg.to_string(),
                FailureKind::Crash,
                "the test binary failed without a failing test".to_string(),
            )
        };
        // os.Exit in a test, without and with -v; then a package that passes.
        let log = "exit status 3\nFAIL\texample.com/a\t0.003s\nok  \texample.com/b\t0.002s\nFAIL\n";
        assert_eq!(failures(log), [died("example.com/a")]);
        let log = "=== RUN   TestFirst\n--- PASS: TestFirst (0.00s)\n=== RUN   TestMiddle\n\
            FAIL\texample.com/a\t0.008s\nFAIL\n";
        assert_eq!(failures(log), [died("example.com/a")]);
        // A package whose tests failed, or that did not build, is no death; nor is the
        // next package after one whose test failed.
        let log = "--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\nFAIL\nFAIL\texample.com/a\t0.01s\n\
            ok  \texample.com/b\t0.01s\nFAIL\n";
        assert_eq!(failures(log).len(), 1);
        assert_eq!(failures(log)[0].1, FailureKind::Test);
        let log =
            "# example.com/a\n./a.go:3:2: undefined: x\nFAIL\texample.com/a [build failed]\nFAIL\n";
        assert!(failures(log).iter().all(|f| f.1 == FailureKind::Build));
        // Another runner's FAIL lines are no package of go's.
        for line in [
            "FAIL __tests__/wordcount.test.js",
            "FAIL src/x.test.js (5.12 s)",
        ] {
            assert!(!super::is_package_result(line), "{line}");
            // Only the generic signature of a line that says something failed.
            let fp = fingerprint_bytes(format!("{line}\n").as_bytes());
            assert_ne!(fp.runner, Some(Runner::Go), "{line}");
            assert!(fp.failures.iter().all(|f| f.kind == FailureKind::Generic));
        }
        assert!(super::is_package_result("FAIL\texample.com/a\t0.003s"));
    }

    #[test]
    fn json_events_are_the_verbose_lines_they_wrap() {
        let verbose = "=== RUN   TestA\n    a_test.go:14: got 4, want 3\n--- FAIL: TestA (0.00s)\n=== RUN   TestB\n--- PASS: TestB (0.00s)\nFAIL\nFAIL\texample.com/a\t0.005s\n";
        let event = |action: &str, test: &str, output: &str| {
            let mut e = serde_json::json!({"Time": "2026-11-25T10:00:00.123456789Z", "Action": action, "Package": "example.com/a"});
            if !test.is_empty() {
                e["Test"] = test.into();
            }
            if !output.is_empty() {
                e["Output"] = format!("{output}\n").into();
            }
            format!("{e}\n")
        };
        let mut json = event("start", "", "");
        for l in verbose.lines() {
            json += &event("output", "TestA", l);
        }
        json += &event("fail", "TestA", "");
        json += &event("fail", "", "");
        assert_eq!(failures(&json), failures(verbose));
        assert_eq!(failures(&json).len(), 1);
        let passing = event("output", "", "ok  \texample.com/a\t0.003s") + &event("pass", "", "");
        let fp = fingerprint_bytes(passing.as_bytes());
        assert_eq!((fp.signature, fp.runner), (None, Some(Runner::Go)));
    }

    #[test]
    fn plain_and_verbose_agree() {
        let plain = "--- FAIL: TestA (0.00s)\n    a_test.go:12: got 4, want 3\n--- FAIL: TestB (0.00s)\n    --- FAIL: TestB/v2 (0.00s)\n        a_test.go:28: got \"v2\"\nFAIL\nFAIL\texample.com/a\t0.006s\nFAIL\n";
        let verbose = "=== RUN   TestA\n=== PAUSE TestA\n=== RUN   TestB\n=== CONT  TestA\n    a_test.go:14: got 4, want 3\n--- FAIL: TestA (0.00s)\n=== RUN   TestB/v2\n=== CONT  TestB/v2\n    a_test.go:30: got \"v2\"\n--- FAIL: TestB (0.00s)\n    --- PASS: TestB/x (0.00s)\n    --- FAIL: TestB/v2 (0.00s)\nFAIL\nFAIL\texample.com/a\t0.005s\n";
        let expected = vec![
            (
                "TestA".to_string(),
                FailureKind::Test,
                "a_test.go: got <n>, want <n>".to_string(),
            ),
            (
                "TestB/v2".to_string(),
                FailureKind::Test,
                "a_test.go: got \"v2\"".to_string(),
            ),
        ];
        assert_eq!(failures(plain), expected);
        assert_eq!(failures(verbose), expected);
    }

    #[test]
    fn panics_crash_their_test() {
        let log = "--- FAIL: TestA (0.00s)\npanic: assignment to entry in nil map [recovered]\n\tpanic: assignment to entry in nil map\n\ngoroutine 6 [running]:\nexample.com/a.TestA(0xc000007860)\n\t/tmp/x/a_test.go:11 +0x5b\nFAIL\texample.com/a\t0.007s\n";
        assert_eq!(
            failures(log),
            [(
                "TestA".into(),
                FailureKind::Crash,
                "panic: assignment to entry in nil map".into()
            )]
        );
    }

    #[test]
    fn timeouts_name_the_running_tests() {
        let log = "panic: test timed out after 1s\nrunning tests:\n\tTestSlow (1s)\n\ngoroutine 1 [running]:\nFAIL\texample.com/a\t1.012s\n";
        assert_eq!(
            failures(log),
            [(
                "TestSlow".into(),
                FailureKind::Timeout,
                "panic: test timed out after <dur>".into()
            )]
        );
    }

    #[test]
    fn build_errors() {
        let log = "# example.com/a [example.com/a.test]\n./a.go:20:9: invalid operation: w + 1 (mismatched types string and untyped int)\nFAIL\texample.com/a [build failed]\nFAIL\n";
        assert_eq!(
            failures(log),
            [(
                "a.go".into(),
                FailureKind::Build,
                "invalid operation: w + <n> (mismatched types string and untyped int)".into()
            )]
        );
    }

    #[test]
    fn passing_packages_are_no_failure() {
        let log = "=== RUN   TestFailover\n--- PASS: TestFailover (0.00s)\nPASS\nok  \texample.com/a\t0.010s\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(Runner::Go));
    }
}
