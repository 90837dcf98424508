//! cmocka's standard output (`cmocka_run_group_tests`, its default message output).
//!
//! A group runs between `[==========] Running N test(s).` and `[==========] N test(s)
//! run.` (cmocka 1.1.6 and later put the group's name before `Running`). Each test is
//! `[ RUN      ] name`, what failed (`[  ERROR   ] --- 0x4 != 0x3`, a `fail_msg`'s `ERROR:
//! message`, `[   LINE   ] --- file:line: error: Failure!`, `Test failed with exception:
//! Segmentation fault(11)`, a crash) and `[  FAILED  ] name` or `[       OK ] name`; the
//! group's list repeats the failing ones. The lines look like GoogleTest's, whose parser
//! leaves a cmocka group alone. The id is the test, the message the first error line of
//! its run; a test running when the output ended (an abort: cmocka catches no SIGABRT)
//! crashed.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};
use regex::Regex;
use std::sync::LazyLock;

pub(crate) const RUNNER: Descriptor = Descriptor { name: "cmocka" };

pub(crate) const TRIGGERS: &[&str] = &[
    "[==========] ",
    "[ RUN      ] ",
    "[  FAILED  ] ",
    "[  ERROR   ] ",
    "[       OK ] ",
];

/// The line that opens a cmocka group, and the one that closes it.
pub(crate) static GROUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[==========\] (?:\S+: )?(?:Running \d+ test\(s\)|\d+ test\(s\) run)\.$")
        .expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct CmockaParser {
    /// Inside a group.
    running: bool,
    /// The test whose `[ RUN      ]` line came last and has no verdict yet, and the first
    /// error line of its run.
    test: Option<(String, Option<String>, FailureKind)>,
}

/// Whether `text` opens a cmocka group.
pub(crate) fn opens_group(text: &str) -> bool {
    text.contains("Running ") && GROUP.is_match(text)
}

impl LineParser for CmockaParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if text.starts_with("[==========] ") && GROUP.is_match(text) {
            out.saw(Runner::Cmocka);
            self.running = opens_group(text);
            return;
        }
        if !self.running {
            return;
        }
        if let Some(name) = text.strip_prefix("[ RUN      ] ") {
            self.test = Some((name.trim().to_string(), None, FailureKind::Test));
        } else if let Some(name) = text.strip_prefix("[  FAILED  ] ") {
            let name = name.trim();
            match self.test.take() {
                Some((test, message, kind)) if test == name => {
                    out.fail(Runner::Cmocka, kind, &test, message.as_deref());
                }
                other => {
                    self.test = other;
                    if !name.contains("test(s)") {
                        out.fail(Runner::Cmocka, FailureKind::Test, name, None);
                    }
                }
            }
        } else if let Some(name) = text
            .strip_prefix("[  ERROR   ] ")
            .filter(|n| !n.starts_with("--- "))
        {
            // A test that could not run (its setup failed): an error of the test.
            if let Some((test, message, _)) = self.test.take_if(|(t, _, _)| t == name.trim()) {
                out.fail(
                    Runner::Cmocka,
                    FailureKind::Error,
                    &test,
                    message.as_deref(),
                );
            }
        } else if text.starts_with("[       OK ] ") || text.starts_with("[  SKIPPED ] ") {
            self.test = None;
        } else if let Some((_, message, kind)) = &mut self.test {
            let error = text
                .strip_prefix("[  ERROR   ] --- ")
                .or_else(|| text.strip_prefix("ERROR: "))
                .or_else(|| text.strip_prefix("Could not run test: "))
                .map(|e| e.split_once("[   LINE   ]").map_or(e, |(e, _)| e).trim());
            if let Some(error) = error.filter(|e| !e.is_empty()) {
                if error.starts_with("Test failed with exception") {
                    *kind = FailureKind::Crash;
                }
                message.get_or_insert_with(|| cut_message(error));
            }
        }
    }

    fn wants_every_line(&self) -> bool {
        self.test.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        if let Some((test, message, _)) = self.test.take() {
            let message = message.unwrap_or_else(|| "crashed".to_string());
            out.fail(Runner::Cmocka, FailureKind::Crash, &test, Some(&message));
        }
        self.running = false;
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    const LOG: &str = "[==========] Running 3 test(s).\n[ RUN      ] test_total\n\
        [  ERROR   ] --- 0x4 != 0x3\n[   LINE   ] --- cm.c:8: error: Failure!\n[  FAILED  ] test_total\n\
        [ RUN      ] test_pass\n[       OK ] test_pass\n[ RUN      ] test_open\n\
        ERROR: cannot read /tmp/wc-ADH1fm/words.txt\n[  ERROR   ] --- [   LINE   ] --- cm.c:34: error: Failure!\n\
        [  FAILED  ] test_open\n[ RUN      ] test_crash\n\
        [  ERROR   ] --- Test failed with exception: Segmentation fault(11)\n[  FAILED  ] test_crash\n\
        [==========] 3 test(s) run.\n[  PASSED  ] 1 test(s).\n[  FAILED  ] 2 test(s), listed below:\n\
        [  FAILED  ] test_total\n[  FAILED  ] test_open\n[  FAILED  ] test_crash\n\n 2 FAILED TEST(S)\n";

    #[test]
    fn errors_of_a_test_run_are_its_message() {
        let fp = fingerprint_as(LOG, Runner::Cmocka);
        let t = triples(&fp);
        assert_eq!(t.len(), 3, "{}", fp.render_text());
        assert_eq!(t[0].0, "test_crash");
        assert_eq!(t[0].1, FailureKind::Crash);
        assert_eq!(t[1].0, "test_open");
        assert!(t[1].2.starts_with("cannot read <tmp>"), "{t:?}");
        assert_eq!(t[2].0, "test_total");
        assert!(fp.failures.iter().all(|f| f.runner == Runner::Cmocka));
    }

    #[test]
    fn an_abort_and_a_passing_group() {
        let log = "[==========] Running 2 test(s).\n[ RUN      ] counts\n\
            tests.bin: src/wc.c:16: count: Assertion `n != 3' failed.\n";
        let fp = fingerprint_as(log, Runner::Cmocka);
        assert_eq!(triples(&fp), [("counts", FailureKind::Crash, "crashed")]);
        let setup = "[==========] Running 1 test(s).\n[ RUN      ] totals\n\
            Could not run test: Test setup failed\n[  ERROR   ] totals\n[==========] 1 test(s) run.\n";
        let fp = fingerprint_as(setup, Runner::Cmocka);
        assert_eq!(
            triples(&fp),
            [("totals", FailureKind::Error, "Test setup failed")]
        );
        let passing = "[==========] count: Running 1 test(s).\n[ RUN      ] a\n[       OK ] a\n\
            [==========] count: 1 test(s) run.\n[  PASSED  ] 1 test(s).\n";
        assert_eq!(fingerprint_as(passing, Runner::Cmocka).signature, None);
    }
}
