//! `cargo test` / libtest output, and rustc compile errors from any cargo command.
//!
//! libtest prints `test NAME ... FAILED` as tests finish, then one `---- NAME stdout ----`
//! section per failure with the captured output (the panic), then the `failures:` list of
//! names. Doc tests are named `src/lib.rs - item (line N)`. rustc errors are
//! `error[E0308]: message` followed by ` --> file:line:col`.
//!
//! Only unindented lines count: nextest shows libtest's output of each test indented, and
//! that belongs to [`super::nextest`].

use super::bytes::RunBytes;
use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "cargo" };

pub(crate) const TRIGGERS: &[&str] = &[
    "FAILED",
    "fail",
    "panic",
    "error",
    "running ",
    "successfully: `",
];

/// Inside a test binary's run that has shown no failure yet, the only lines cargo still
/// needs hold one of these: `F` (`test x ... FAILED`, the `F` of `-q`'s progress),
/// `;` (`test result: ok. 3 passed; 0 failed; ...`, the run's end), `` ` `` (cargo's
/// ``error: test failed, to rerun pass `--lib` `` and ``process didn't exit successfully:
/// `...` (signal: 6, ...)``: the binary died before its end) and `#` (a GitHub Actions
/// marker: another step).
static RUN_BYTES: RunBytes = RunBytes::new(b"F;`#");

static RESULT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^test (.+?)(?: - should panic)? \.\.\. FAILED$").expect("because it is valid")
});
/// libtest's terse format (`cargo test -q`): `NAME --- FAILED`.
static TERSE_RESULT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+(?: - .+?)?) --- FAILED$").expect("because it is valid"));
static SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^---- (.+?) std(?:out|err) ----$").expect("because it is valid"));
static RUSTC_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^error(?:\[E\d{4}\])?: (.+)$").expect("because it is valid"));
static RUSTC_ARROW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--> (.+?):\d+:\d+$").expect("because it is valid"));

#[derive(Debug, Default)]
pub(crate) struct CargoParser {
    state: State,
    /// After `running N tests`, until a line other than passing noise shows up.
    passing_run: bool,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Idle,
    /// Inside `---- NAME stdout ----`: the first panic message names the failure.
    Section { id: String, message: PanicMessage },
    /// After `failures:`: either sections or the list of failing names follow.
    FailureList,
    /// After a rustc `error...:` line, waiting for its ` --> file` line.
    RustcError { message: String, lines: u8 },
}

impl LineParser for CargoParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.as_str();
        match &mut self.state {
            State::Section { id, message } => {
                if text.starts_with("---- ")
                    || text == "failures:"
                    || text.starts_with("test result: ")
                {
                    let id = std::mem::take(id);
                    let message = std::mem::take(message).take();
                    out.fail(Runner::Cargo, FailureKind::Test, &id, message.as_deref());
                    self.state = State::Idle;
                } else {
                    message.line(text);
                    return;
                }
            }
            State::FailureList => {
                if let Some(name) = text.strip_prefix("    ") {
                    if !name.starts_with(' ') && !name.is_empty() {
                        out.fail(Runner::Cargo, FailureKind::Test, name, None);
                    }
                    return;
                }
                if text.is_empty() {
                    return;
                }
                self.state = State::Idle;
            }
            State::RustcError { message, lines } => {
                if let Some(c) = RUSTC_ARROW.captures(text) {
                    let message = std::mem::take(message);
                    out.fail(Runner::Cargo, FailureKind::Build, &c[1], Some(&message));
                    self.state = State::Idle;
                    return;
                }
                *lines += 1;
                if *lines > 2 {
                    self.state = State::Idle;
                }
            }
            State::Idle => {}
        }
        self.idle_line(text, out);
    }

    fn wants_every_line(&self) -> bool {
        !matches!(self.state, State::Idle)
    }

    fn run_bytes(&self) -> Option<&'static RunBytes> {
        self.passing_run.then_some(&RUN_BYTES)
    }

    fn run_line(&mut self, line: &CleanLine, out: &mut Collector) -> bool {
        self.line(line, out);
        // The run's end and its failures are libtest's; anything else may be another's.
        let text = line.text.as_str();
        text.starts_with("test result: ") || is_failed_result(text) || text.ends_with(" --- FAILED")
    }

    fn finish(&mut self, out: &mut Collector) {
        if let State::Section { id, message } = std::mem::take(&mut self.state) {
            out.fail(
                Runner::Cargo,
                FailureKind::Test,
                &id,
                message.take().as_deref(),
            );
        }
    }
}

impl CargoParser {
    fn idle_line(&mut self, text: &str, out: &mut Collector) {
        // Any line but the harness's own header ends the narrowed scan: it may be a
        // failure, and the next lines then need every trigger.
        self.passing_run = is_run_header(text);
        // Cheap byte tests first: most lines that reach here are no cargo line at all.
        if let Some(c) = text
            .starts_with("---- ")
            .then(|| SECTION.captures(text))
            .flatten()
        {
            self.state = State::Section {
                id: c[1].to_string(),
                message: PanicMessage::default(),
            };
        } else if let Some(c) = is_failed_result(text)
            .then(|| RESULT_LINE.captures(text))
            .flatten()
        {
            out.fail(Runner::Cargo, FailureKind::Test, &c[1], None);
        } else if let Some(c) = text
            .ends_with(" --- FAILED")
            .then(|| TERSE_RESULT.captures(text))
            .flatten()
        {
            out.fail(Runner::Cargo, FailureKind::Test, &c[1], None);
        } else if text == "failures:" {
            self.state = State::FailureList;
        } else if text.starts_with("test result: ") {
            out.saw(Runner::Cargo);
        } else if let Some((binary, cause)) = died(text) {
            out.fail(Runner::Cargo, FailureKind::Crash, binary, Some(cause));
        } else if let Some(c) = text
            .starts_with("error")
            .then(|| RUSTC_ERROR.captures(text))
            .flatten()
            && !is_cargo_summary_error(&c[1])
        {
            self.state = State::RustcError {
                message: text.to_string(),
                lines: 0,
            };
        }
    }
}

/// libtest's `running 3 tests` (`running 1 test`).
fn is_run_header(text: &str) -> bool {
    text.strip_prefix("running ")
        .and_then(|rest| {
            rest.strip_suffix(" tests")
                .or_else(|| rest.strip_suffix(" test"))
        })
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn is_failed_result(text: &str) -> bool {
    text.starts_with("test ") && text.ends_with("FAILED")
}

/// A test binary (or a doc test's rustdoc) that died before it printed its result: cargo's
/// ``process didn't exit successfully: `PATH ARGS` (CAUSE)``, as the binary's name (its
/// build hash and `.exe` cut) and the cause (`signal: 6, SIGABRT: process abort signal`,
/// `exit status: 3`, Windows' `exit code: 0xc0000005, STATUS_ACCESS_VIOLATION`). A binary
/// whose tests failed exits with 101 after printing them: that is no death. Nor is a
/// process other than a test's (a build script's, `cargo run`'s).
fn died(text: &str) -> Option<(&str, &str)> {
    // The line's first backtick opens the command (a byte search: this runs on every line
    // cargo gets, a substring search's setup cost more than the rest of the line's work).
    let tick = memchr::memchr(b'`', text.as_bytes())?;
    if !text[..tick].ends_with("process didn't exit successfully: ") {
        return None;
    }
    let (command, cause) = text[tick + 1..].split_once("` (")?;
    let cause = cause.strip_suffix(')')?;
    if matches!(cause, "exit status: 101" | "exit code: 101") {
        return None;
    }
    // A test binary lives in `target/<profile>/deps/`; the path before it may hold spaces
    // (a checkout in `My Projects`), the binary's own name cannot.
    let file = match ["/deps/", "\\deps\\"]
        .iter()
        .find_map(|d| command.rfind(d).map(|i| i + d.len()))
    {
        Some(start) => command[start..].split(' ').next()?,
        None => {
            let program = command.split(' ').next()?;
            let file = program.rsplit(['/', '\\']).next()?;
            if file.strip_suffix(".exe").unwrap_or(file) != "rustdoc" {
                return None;
            }
            file
        }
    };
    let file = file.strip_suffix(".exe").unwrap_or(file);
    let name = match file.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name
        }
        _ => file,
    };
    Some((name, cause))
}

/// cargo's own closing lines repeat that something failed; they name no failure.
fn is_cargo_summary_error(message: &str) -> bool {
    [
        "could not compile",
        "test failed, to rerun",
        "doctest failed, to rerun",
        "aborting due to",
        "build failed",
        "target failed",
        "targets failed",
        "Recipe `",
    ]
    .iter()
    .any(|s| message.contains(s))
}

/// Finds the first error line in a Rust test's output: the panic message (both the
/// `panicked at LOCATION:\nMESSAGE` form of Rust >= 1.73 and the older
/// `panicked at 'MESSAGE', LOCATION`), `Error: ...` from a test returning `Err`, a rustc
/// error of a doc test, or libtest's `should_panic` notes.
#[derive(Debug, Default)]
pub(crate) struct PanicMessage {
    found: Option<String>,
    /// The previous line was `thread '...' panicked at LOCATION:`.
    after_panic: bool,
    /// A weaker candidate, used when no panic shows up.
    fallback: Option<String>,
}

static PANIC_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^thread '[^']*'(?: \(\d+\))? panicked at '(.*)', \S+$")
        .expect("because it is valid")
});
static PANIC_NEW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^thread '[^']*'(?: \(\d+\))? panicked at \S+?:$").expect("because it is valid")
});

impl PanicMessage {
    /// Offers one line of output (indentation already removed by the caller if any).
    pub(crate) fn line(&mut self, text: &str) {
        if self.found.is_some() {
            return;
        }
        let t = text.trim();
        if self.after_panic {
            if !t.is_empty() {
                self.found = Some(t.to_string());
                self.after_panic = false;
            }
            return;
        }
        if PANIC_NEW.is_match(t) {
            self.after_panic = true;
        } else if let Some(c) = PANIC_OLD.captures(t) {
            self.found = Some(c[1].to_string());
        } else if self.fallback.is_none()
            && (t.starts_with("Error: ")
                || t.starts_with("error[E")
                || t.starts_with("error: ")
                || t.starts_with("note: test did not panic as expected")
                || t.starts_with("note: panic did not contain expected string"))
        {
            self.fallback = Some(t.to_string());
        }
    }

    pub(crate) fn take(self) -> Option<String> {
        self.found.or(self.fallback)
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::{FailureKind, fingerprint_bytes};

    fn failures(log: &str) -> Vec<(String, FailureKind, String)> {
        fingerprint_bytes(log.as_bytes())
            .failures
            .into_iter()
            .map(|f| (f.id, f.kind, f.message))
            .collect()
    }

    #[test]
    fn panic_in_a_section() {
        let log = "running 2 tests\ntest a::b ... FAILED\ntest a::c ... ok\n\nfailures:\n\n\
            ---- a::b stdout ----\n\nthread 'a::b' (77) panicked at src/lib.rs:3:9:\n\
            assertion `left == right` failed\n  left: 4\n right: 3\n\n\nfailures:\n    a::b\n\n\
            test result: FAILED. 1 passed; 1 failed; 0 ignored\n";
        assert_eq!(
            failures(log),
            [(
                "a::b".into(),
                FailureKind::Test,
                "assertion `left == right` failed".into()
            )]
        );
    }

    #[test]
    fn old_panic_format() {
        let log = "failures:\n\n---- t stdout ----\nthread 't' panicked at 'called `Option::unwrap()` on a `None` value', src/lib.rs:3:9\n\nfailures:\n    t\n";
        assert_eq!(
            failures(log)[0].2,
            "called `Option::unwrap()` on a `None` value"
        );
    }

    #[test]
    fn should_panic_and_result_errors() {
        let log = "failures:\n\n---- t stdout ----\nnote: test did not panic as expected at src/lib.rs:54:8\n\
            ---- u stdout ----\nError: \"bad config\"\n\nfailures:\n    t\n    u\n";
        let f = failures(log);
        assert_eq!(f[0].2, "note: test did not panic as expected at src/lib.rs");
        assert_eq!(f[1].2, "Error: \"bad config\"");
    }

    #[test]
    fn rustc_errors_are_build_failures_and_summaries_are_not() {
        let log = "error[E0308]: mismatched types\n  --> src/lib.rs:11:5\n   |\n\
            error: could not compile `x` (lib) due to 1 previous error\n\
            error[E0425]: cannot find value `y` in this scope\n --> src/main.rs:2:5\n";
        assert_eq!(
            failures(log),
            [
                (
                    "src/lib.rs".into(),
                    FailureKind::Build,
                    "error[E0308]: mismatched types".into()
                ),
                (
                    "src/main.rs".into(),
                    FailureKind::Build,
                    "error[E0425]: cannot find value `y` in this scope".into()
                ),
            ]
        );
    }

    #[test]
    fn terse_quiet_results() {
        // `cargo test -q` prints `NAME --- FAILED` instead of `test NAME ... FAILED`.
        let log = "running 1 test\ntests::counts_three_words --- FAILED\n\nfailures:\n\n\
            ---- tests::counts_three_words stdout ----\n\
            thread 'tests::counts_three_words' (9830) panicked at src/lib.rs:3:47:\n\
            assertion `left == right` failed\n  left: 4\n right: 3\n\nfailures:\n    tests::counts_three_words\n\n\
            test result: FAILED. 0 passed; 1 failed; 0 ignored\n";
        let f = failures(log);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "tests::counts_three_words");
        assert_eq!(f[0].2, "assertion `left == right` failed");
        assert_eq!(
            fingerprint_bytes(log.as_bytes()).runner,
            Some(crate::fingerprint::Runner::Cargo)
        );
    }

    #[test]
    fn passing_summary_is_no_failure() {
        let log =
            "running 3 tests\ntest a ... ok\ntest result: ok. 3 passed; 0 failed; 0 ignored\n";
        let fp = fingerprint_bytes(log.as_bytes());
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, Some(crate::fingerprint::Runner::Cargo));
        // Test names that contain the words are still passing tests.
        let log =
            "test it_reports_failures ... ok\ntest error_paths ... ok\ntest result: ok. 0 failed\n";
        assert_eq!(fingerprint_bytes(log.as_bytes()).signature, None);
    }

    #[test]
    fn a_test_binary_that_died_is_a_crash_of_that_binary() {
        use super::died;
        assert_eq!(
            died(
                "  process didn't exit successfully: `/w/target/debug/deps/wordcount-a07f0cfb7275c93a --test-threads=1` (signal: 6, SIGABRT: process abort signal)"
            ),
            Some(("wordcount", "signal: 6, SIGABRT: process abort signal"))
        );
        assert_eq!(
            died(
                r"  process didn't exit successfully: `D:\a\w\w\target\debug\deps\cli-05ffad2ebf2bf229.exe` (exit code: 0xc0000005, STATUS_ACCESS_VIOLATION)"
            ),
            Some(("cli", "exit code: 0xc0000005, STATUS_ACCESS_VIOLATION"))
        );
        assert_eq!(
            died(
                "  process didn't exit successfully: `rustdoc --edition=2021 --test src/lib.rs` (signal: 11, SIGSEGV: invalid memory reference)"
            ),
            Some(("rustdoc", "signal: 11, SIGSEGV: invalid memory reference"))
        );
        // Failed tests make libtest exit with 101 after it printed them: no death.
        assert_eq!(
            died(
                "  process didn't exit successfully: `/w/target/debug/deps/wordcount-a07f0cfb7275c93a` (exit status: 101)"
            ),
            None
        );
        // A checkout whose path holds a space.
        assert_eq!(
            died(
                "  process didn't exit successfully: `/Users/me/My Projects/wc/target/debug/deps/wordcount-a07f0cfb7275c93a` (signal: 11, SIGSEGV: invalid memory reference)"
            ),
            Some(("wordcount", "signal: 11, SIGSEGV: invalid memory reference"))
        );
        // Not a test's process: a build script, `cargo run`.
        assert_eq!(
            died(
                "  process didn't exit successfully: `/w/target/debug/build/ring-0b1c2d3e4f5a6b7c/build-script-build` (exit status: 1)"
            ),
            None
        );
        assert_eq!(
            died("  process didn't exit successfully: `target/debug/app` (exit status: 2)"),
            None
        );
    }

    #[test]
    fn a_death_inside_a_long_passing_run_is_found() {
        // The narrowed scan of a passing run must still reach cargo's lines about the death.
        let mut log = String::from("running 5001 tests\n");
        log.extend((0..5000).map(|i| format!("test tests::case_{i} ... ok\n")));
        log += "error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit \
            successfully: `/w/target/debug/deps/app-0123456789abcdef` (signal: 11, SIGSEGV: \
            invalid memory reference)\n";
        assert_eq!(
            failures(&log),
            [(
                "app".into(),
                FailureKind::Crash,
                "signal: <n>, SIGSEGV: invalid memory reference".into()
            )]
        );
    }

    #[test]
    fn indented_libtest_output_is_not_cargos() {
        let log = "    test t ... FAILED\n    failures:\n        t\n";
        assert!(
            failures(log)
                .iter()
                .all(|f| f.0 != "t" || f.2 != "test failed")
        );
    }
}
