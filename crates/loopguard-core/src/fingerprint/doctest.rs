//! doctest's console reporter (plain, `--success`, `--minimal`, `--order-by=rand`,
//! `--duration`, colour).
//!
//! Each test that reports something gets a block after a rule of `=`: `file:line:`, its
//! suite (`TEST SUITE: name`, when it has one), `TEST CASE:  name`, the subcases it was in
//! (indented below it), a blank line, then its assertions: `file:line: ERROR: ...` and
//! `file:line: FATAL ERROR: ...` fail (`test case THREW exception: ...`, `test case
//! CRASHED: SIGSEGV ...`, a crash), with `values:` and `logged:` lines below; `SUCCESS:`
//! (`--success`) and `WARNING:` do not. The id is the suite, the test case and its subcases
//! joined by ` / `; the message, the first failing assertion's lines. The run ends with
//! `[doctest] test cases: ...` and `[doctest] Status: FAILURE!` (or `SUCCESS!`).

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::normalize::cut_message;
use super::{FailureKind, Runner, runner::Descriptor};

pub(crate) const RUNNER: Descriptor = Descriptor { name: "doctest" };

pub(crate) const TRIGGERS: &[&str] = &["TEST CASE:  ", "TEST SUITE: ", "[doctest] "];

/// Lines of a failing assertion that make its message.
const MESSAGE_LINES: usize = 6;

#[derive(Debug, Default)]
pub(crate) struct DoctestParser {
    /// The suite named just before the test case.
    suite: Option<String>,
    /// The test case being reported, and whether its subcase lines are still coming.
    test: Option<(Vec<String>, bool)>,
    /// Inside a failing assertion: its lines so far, and its kind.
    block: Option<(Vec<String>, FailureKind)>,
}

impl LineParser for DoctestParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if let Some(suite) = text.strip_prefix("TEST SUITE: ") {
            self.end_case(out);
            self.suite = Some(suite.trim().to_string());
            return;
        }
        if let Some(name) = text.strip_prefix("TEST CASE:  ") {
            self.end_case(out);
            let mut names: Vec<String> = self.suite.take().into_iter().collect();
            names.push(name.trim().to_string());
            self.test = Some((names, true));
            return;
        }
        if let Some(summary) = text.strip_prefix("[doctest] ") {
            self.end_case(out);
            self.suite = None;
            if summary.starts_with("test cases:") || summary.starts_with("Status: ") {
                out.saw(Runner::Doctest);
            }
            if summary.starts_with("Status: FAILURE") {
                out.said_failed();
            }
            return;
        }
        let Some((names, subcases)) = &mut self.test else {
            return;
        };
        if *subcases {
            match text.strip_prefix("  ") {
                Some(subcase) if !subcase.trim().is_empty() => names.push(subcase.trim().into()),
                _ => *subcases = false,
            }
            return;
        }
        if text.len() >= 20 && text.bytes().all(|b| b == b'=') {
            return self.end_case(out);
        }
        if let Some((lines, _)) = &mut self.block {
            if let Some(more) = text.strip_prefix("  ")
                && !more.trim().is_empty()
            {
                if lines.len() < MESSAGE_LINES {
                    lines.push(more.trim().to_string());
                }
                return;
            }
            self.report(out);
        }
        if let Some((kind, message)) = failing_assertion(text) {
            self.block = Some((vec![message.to_string()], kind));
        }
    }

    fn wants_every_line(&self) -> bool {
        self.test.is_some()
    }

    fn finish(&mut self, out: &mut Collector) {
        self.end_case(out);
    }
}

impl DoctestParser {
    fn end_case(&mut self, out: &mut Collector) {
        self.report(out);
        self.test = None;
    }

    fn report(&mut self, out: &mut Collector) {
        let (Some((lines, kind)), Some((names, _))) = (self.block.take(), &self.test) else {
            return;
        };
        out.fail(
            Runner::Doctest,
            kind,
            &names.join(" / "),
            Some(&cut_message(&lines.join(" "))),
        );
    }
}

/// `file:line: ERROR: what` or `file(line): FATAL ERROR: what` (MSVC's places): the kind and
/// what failed.
fn failing_assertion(text: &str) -> Option<(FailureKind, &str)> {
    let (place, what) = text
        .split_once(": FATAL ERROR: ")
        .or_else(|| text.split_once(": ERROR: "))?;
    let line_number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let placed = place
        .rsplit_once(':')
        .is_some_and(|(file, n)| !file.is_empty() && line_number(n))
        || place
            .strip_suffix(')')
            .and_then(|p| p.rsplit_once('('))
            .is_some_and(|(file, n)| !file.is_empty() && line_number(n));
    if !placed {
        return None;
    }
    let kind = if what.starts_with("test case CRASHED") {
        FailureKind::Crash
    } else {
        FailureKind::Test
    };
    Some((kind, what))
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::testing::{fingerprint_as, triples};
    use crate::fingerprint::{FailureKind, Runner};

    const RULE: &str =
        "===============================================================================";

    fn log() -> String {
        format!(
            "[doctest] doctest version is \"2.4.9\"\n[doctest] run with \"--help\" for options\n{RULE}\n\
             doc.cpp:6:\nTEST CASE:  totals the stock\n\n\
             doc.cpp:6: FATAL ERROR: REQUIRE( total(3) == 3 ) is NOT correct!\n  values: REQUIRE( 4 == 3 )\n\n{RULE}\n\
             doc.cpp:8:\nTEST CASE:  throws\n\ndoc.cpp:8: ERROR: test case THREW exception: cannot open /tmp/x1/report.csv\n\n{RULE}\n\
             doc.cpp:9:\nTEST SUITE: inv\nTEST CASE:  sections\n  inner one\n\n\
             doc.cpp:9: SUCCESS: CHECK( 1 == 1 ) is correct!\n  values: CHECK( 1 == 1 )\n\n\
             doc.cpp:10: ERROR: CHECK( std::string(\"a\") == \"b\" ) is NOT correct!\n  values: CHECK( a == b )\n\n{RULE}\n\
             doc.cpp:12:\nTEST CASE:  crashes\n\ndoc.cpp:12: FATAL ERROR: test case CRASHED: SIGSEGV - Segmentation violation signal\n\n{RULE}\n\
             [doctest] test cases: 5 | 1 passed | 4 failed | 0 skipped\n[doctest] assertions: 3 | 1 passed | 2 failed |\n\
             [doctest] Status: FAILURE!\n"
        )
    }

    #[test]
    fn failing_assertions_name_their_suite_test_and_subcases() {
        let fp = fingerprint_as(log(), Runner::Doctest);
        let t = triples(&fp);
        assert_eq!(t.len(), 4, "{}", fp.render_text());
        assert_eq!(t[0].0, "crashes");
        assert_eq!(t[0].1, FailureKind::Crash);
        assert_eq!(t[1].0, "inv / sections / inner one");
        assert!(t[1].2.starts_with("CHECK("), "{t:?}");
        assert!(t[1].2.contains("values: CHECK( a == b )"), "{t:?}");
        assert_eq!(t[2].0, "throws");
        assert!(t[2].2.starts_with("test case THREW exception: cannot open"));
        assert_eq!(t[3].0, "totals the stock");
    }

    #[test]
    fn minimal_output_is_the_same_failure_and_passing_is_none() {
        let minimal: String = log()
            .lines()
            .filter(|l| !l.contains("version is") && !l.contains("--help"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            fingerprint_as(minimal, Runner::Doctest).signature,
            fingerprint_as(log(), Runner::Doctest).signature
        );
        let passing = "[doctest] doctest version is \"2.4.9\"\n[doctest] run with \"--help\" for options\n\
            [doctest] test cases: 1 | 1 passed | 0 failed | 3 skipped\n[doctest] Status: SUCCESS!\n";
        assert_eq!(fingerprint_as(passing, Runner::Doctest).signature, None);
    }
}
