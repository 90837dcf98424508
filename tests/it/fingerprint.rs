//! Table tests of the fingerprinter over real runner output.
//!
//! `tests/fixtures/logs/<runner>/<failure>/<variant>.{log,xml,trx}` comes from running the
//! real runners on the projects in `tests/fixtures/projects/` (`scripts/gen-fixtures.sh`;
//! .NET's are written from templates of the real formats, see its README). The layout is
//! the table: every variant of one failure gives one signature, different failures of a
//! runner give different signatures, `passing/` gives none.
//!
//! `tests/fixtures/logs/heldout/<runner>/...` is the held-out set: other projects
//! (`tests/fixtures/projects/heldout/`) with other failures, which the parsers were not
//! written against. It is scored, not required to be perfect: per runner, same-failure
//! recall and separation of at least [`HELD_OUT_MIN`], every passing run without a
//! signature and every failing run with one.

use loopguard::fingerprint::{
    FailureKind, Fingerprint, Fingerprinter, Runner, fingerprint_bytes, fingerprint_reader,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// Same-failure recall and separation the held-out set must reach per runner.
const HELD_OUT_MIN: f64 = 0.98;

/// The runners the held-out set must cover: every runner issue 20 added, and issue 29's.
const HELD_OUT_RUNNERS: [&str; 14] = [
    "unittest",
    "rspec",
    "minitest",
    "phpunit",
    "exunit",
    "ctest",
    "tap",
    "node",
    "playwright",
    "bun",
    "deno",
    "dotnet",
    "gtest",
    "go",
];

struct Fixture {
    runner: String,
    failure: String,
    path: PathBuf,
    bytes: Vec<u8>,
    fingerprint: Fingerprint,
}

impl Fixture {
    fn name(&self) -> String {
        self.path
            .strip_prefix(logs_root())
            .unwrap_or(&self.path)
            .display()
            .to_string()
    }
}

fn logs_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs")
}

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    entries
}

/// Every fixture under `root/<runner>/<failure>/`, READMEs and the held-out layer aside.
fn load(root: &Path) -> Vec<Fixture> {
    let mut all = Vec::new();
    for runner_dir in sorted_dir(root) {
        if !runner_dir.is_dir() || name_of(&runner_dir) == "heldout" {
            continue;
        }
        for failure_dir in sorted_dir(&runner_dir).into_iter().filter(|p| p.is_dir()) {
            for path in sorted_dir(&failure_dir) {
                let bytes = std::fs::read(&path).unwrap();
                let fingerprint = fingerprint_bytes(&bytes);
                all.push(Fixture {
                    runner: name_of(&runner_dir),
                    failure: name_of(&failure_dir),
                    path,
                    bytes,
                    fingerprint,
                });
            }
        }
    }
    all
}

static DEV: LazyLock<Vec<Fixture>> = LazyLock::new(|| load(&logs_root()));
static HELD_OUT: LazyLock<Vec<Fixture>> = LazyLock::new(|| {
    let root = logs_root().join("heldout");
    if root.is_dir() {
        load(&root)
    } else {
        Vec::new()
    }
});

/// The fixtures the parsers were written against.
fn fixtures() -> &'static [Fixture] {
    assert!(
        DEV.len() > 300,
        "only {} fixtures: run scripts/gen-fixtures.sh",
        DEV.len()
    );
    &DEV
}

fn name_of(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

fn by_failure(all: &[Fixture]) -> BTreeMap<(String, String), Vec<&Fixture>> {
    let mut map: BTreeMap<(String, String), Vec<&Fixture>> = BTreeMap::new();
    for f in all {
        map.entry((f.runner.clone(), f.failure.clone()))
            .or_default()
            .push(f);
    }
    map
}

fn describe(f: &Fixture) -> String {
    format!("{}:\n{}", f.name(), f.fingerprint.render_text())
}

#[test]
fn every_variant_of_a_failure_gives_one_signature() {
    let all = fixtures();
    for ((runner, failure), variants) in by_failure(all) {
        let first = variants[0];
        for v in &variants[1..] {
            assert_eq!(
                v.fingerprint.signature,
                first.fingerprint.signature,
                "{runner}/{failure}: variants differ\n{}\n{}",
                describe(first),
                describe(v)
            );
        }
        assert!(
            variants.len() >= 4,
            "{runner}/{failure}: only {} variants",
            variants.len()
        );
    }
}

#[test]
fn passing_runs_have_no_signature_and_failing_runs_have_one() {
    for f in fixtures() {
        if f.failure == "passing" {
            assert_eq!(f.fingerprint.signature, None, "{}", describe(f));
            assert!(f.fingerprint.failures.is_empty());
        } else {
            let sig = f
                .fingerprint
                .signature
                .as_deref()
                .unwrap_or_else(|| panic!("{}", describe(f)));
            assert_eq!(sig.len(), 64);
            assert!(sig.bytes().all(|b| b.is_ascii_hexdigit()));
        }
    }
}

#[test]
fn different_failures_of_a_runner_give_different_signatures() {
    let all = fixtures();
    let mut seen: BTreeMap<(String, String), String> = BTreeMap::new();
    for ((runner, failure), variants) in by_failure(all) {
        if failure == "passing" {
            continue;
        }
        // A failing fixture without a signature would make this test pass vacuously.
        let signatures: BTreeSet<String> = variants
            .iter()
            .map(|v| {
                v.fingerprint
                    .signature
                    .clone()
                    .unwrap_or_else(|| panic!("no signature: {}", describe(v)))
            })
            .collect();
        for sig in signatures {
            if let Some(other) = seen.insert((runner.clone(), sig), failure.clone()) {
                panic!("{runner}: {failure} and {other} give the same signature");
            }
        }
    }
}

/// One runner's score over a set of fixtures.
#[derive(Default)]
struct Score {
    fixtures: usize,
    failures: usize,
    /// Pairs of variants of one failure, and how many of them agree.
    same_pairs: usize,
    same_agree: usize,
    /// Pairs of variants of two different failures, and how many of them differ.
    different_pairs: usize,
    different_differ: usize,
    passing: usize,
    passing_null: usize,
    failing: usize,
    failing_signed: usize,
}

impl Score {
    fn recall(&self) -> f64 {
        ratio(self.same_agree, self.same_pairs)
    }

    fn separation(&self) -> f64 {
        ratio(self.different_differ, self.different_pairs)
    }
}

fn ratio(n: usize, of: usize) -> f64 {
    if of == 0 { 1.0 } else { n as f64 / of as f64 }
}

/// Scores every runner of a set: every pair of variants of a failure, every pair of
/// variants of two failures, every passing and every failing run.
fn score(all: &[Fixture]) -> BTreeMap<String, Score> {
    let groups = by_failure(all);
    let mut table: BTreeMap<String, Score> = BTreeMap::new();
    for ((runner, failure), variants) in &groups {
        let s = table.entry(runner.clone()).or_default();
        s.fixtures += variants.len();
        if failure == "passing" {
            s.passing += variants.len();
            s.passing_null += variants
                .iter()
                .filter(|v| v.fingerprint.signature.is_none())
                .count();
            continue;
        }
        s.failures += 1;
        s.failing += variants.len();
        s.failing_signed += variants
            .iter()
            .filter(|v| v.fingerprint.signature.is_some())
            .count();
        for (i, a) in variants.iter().enumerate() {
            for b in &variants[i + 1..] {
                s.same_pairs += 1;
                s.same_agree += usize::from(a.fingerprint.signature == b.fingerprint.signature);
            }
        }
    }
    let failing: Vec<(&(String, String), &Vec<&Fixture>)> =
        groups.iter().filter(|((_, f), _)| f != "passing").collect();
    for (i, ((runner, _), va)) in failing.iter().enumerate() {
        for ((other_runner, _), vb) in &failing[i + 1..] {
            if runner != other_runner {
                continue;
            }
            let s = table.get_mut(runner).expect("counted above");
            // Every variant of one against every variant of the other.
            for x in va.iter() {
                for y in vb.iter() {
                    s.different_pairs += 1;
                    s.different_differ +=
                        usize::from(x.fingerprint.signature != y.fingerprint.signature);
                }
            }
        }
    }
    table
}

fn print_table(layer: &str, table: &BTreeMap<String, Score>) {
    for (runner, s) in table {
        eprintln!(
            "{layer:<8} {runner:<10} {:>8} {:>8} {:>6.3} {:>15} {:>10.3} {:>15} {:>12} {:>14}",
            s.fixtures,
            s.failures,
            s.recall(),
            format!("{}/{}", s.same_agree, s.same_pairs),
            s.separation(),
            format!("{}/{}", s.different_differ, s.different_pairs),
            format!("{}/{}", s.passing_null, s.passing),
            format!("{}/{}", s.failing_signed, s.failing),
        );
    }
}

/// The whole table at once, per runner, for the fixtures the parsers were written against
/// (everything must hold) and for the held-out set (scored). Prints it:
/// `cargo test --test fingerprint table -- --nocapture`.
#[test]
fn table_of_pairs_per_runner() {
    let dev = score(fixtures());
    let held_out = score(&HELD_OUT);
    eprintln!(
        "{:<8} {:<10} {:>8} {:>8} {:>6} {:>15} {:>10} {:>15} {:>12} {:>14}",
        "layer",
        "runner",
        "fixtures",
        "failures",
        "recall",
        "(same pairs)",
        "separation",
        "(diff. pairs)",
        "passing null",
        "failing signed"
    );
    print_table("dev", &dev);
    print_table("held-out", &held_out);
    for (runner, s) in &dev {
        assert_eq!(s.same_agree, s.same_pairs, "{runner}: variants differ");
        assert_eq!(
            s.different_differ, s.different_pairs,
            "{runner}: failures collide"
        );
        assert_eq!(
            s.passing_null, s.passing,
            "{runner}: a passing run has a signature"
        );
        assert_eq!(
            s.failing_signed, s.failing,
            "{runner}: a failing run has none"
        );
        assert!(s.failures >= 3, "{runner}: only {} failures", s.failures);
        assert!(s.passing >= 1, "{runner}: no passing run");
    }
    for runner in HELD_OUT_RUNNERS {
        let s = held_out
            .get(runner)
            .unwrap_or_else(|| panic!("no held-out fixtures for {runner}"));
        assert!(
            s.failures >= 3 && s.passing >= 1,
            "{runner}: too few held-out fixtures"
        );
        assert!(
            s.recall() >= HELD_OUT_MIN,
            "{runner}: held-out recall {:.3}",
            s.recall()
        );
        assert!(
            s.separation() >= HELD_OUT_MIN,
            "{runner}: held-out separation {:.3}",
            s.separation()
        );
        assert_eq!(
            s.passing_null, s.passing,
            "{runner}: a held-out passing run has a signature"
        );
        assert_eq!(
            s.failing_signed, s.failing,
            "{runner}: a held-out failing run has none"
        );
    }
}

/// The generic set (`tests/fixtures/generic/`, issue 29): real output of runners no parser
/// claims, or claims in only some of its output modes (bats' TAP and not its pretty
/// formatter). Fingerprinted as `run` sees it, with the exit status the run had, every
/// failing run has a signature, every passing run none, and two failures never share one.
/// Same-failure recall across output modes is printed, not required: the generic signature
/// is the lines a mode prints (`scripts/fixtures/generic.sh`).
#[test]
fn every_failing_run_of_the_generic_set_has_a_signature() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/generic");
    let mut all = load(&root);
    assert!(all.len() >= 40, "only {} generic fixtures", all.len());
    for f in &mut all {
        let code = i32::from(f.failure != "passing");
        f.fingerprint = f.fingerprint.clone().with_exit_code(code);
        assert_eq!(
            f.fingerprint.signature.is_some(),
            f.failure != "passing",
            "{}",
            describe(f)
        );
    }
    let table = score(&all);
    print_table("generic", &table);
    for (runner, s) in &table {
        assert_eq!(
            s.failing_signed, s.failing,
            "{runner}: a failing run has none"
        );
        assert_eq!(s.passing_null, s.passing, "{runner}: a passing run has one");
        assert_eq!(
            s.different_differ, s.different_pairs,
            "{runner}: two failures share a signature"
        );
    }
}

/// The held-out set's failing runs are all recognised as their runner's, never "no
/// failure" and never only the generic fallback's.
#[test]
fn held_out_runs_are_their_runners() {
    for f in HELD_OUT.iter() {
        let expected: Runner = f.runner.parse().unwrap();
        assert_eq!(f.fingerprint.runner, Some(expected), "{}", describe(f));
        assert!(f.fingerprint.recognised, "{}", describe(f));
    }
}

#[test]
fn each_runner_is_recognised() {
    for f in fixtures() {
        let expected = match f.runner.as_str() {
            "tsc" => Runner::Generic,
            // A compile error stops nextest before it runs: rustc's errors are cargo's.
            "nextest" if f.failure == "compile-error" => Runner::Cargo,
            r => r.parse().unwrap(),
        };
        if f.failure == "passing" && f.runner == "tsc" {
            // tsc prints nothing when it passes.
            assert_eq!(f.fingerprint.runner, None, "{}", describe(f));
            continue;
        }
        assert_eq!(f.fingerprint.runner, Some(expected), "{}", describe(f));
    }
}

/// What each failure is, by runner and failure directory: (kind, id, message), sorted.
/// Every variant must give exactly this.
fn expected_failures() -> Expected {
    let mut m = Expected::new();
    expected_of_rust(&mut m);
    expected_of_volatile_parts(&mut m);
    expected_of_volatile_go(&mut m);
    expected_of_volatile_js_and_java(&mut m);
    expected_of_python(&mut m);
    expected_of_go(&mut m);
    expected_of_javascript(&mut m);
    expected_of_java_and_tsc(&mut m);
    m
}

type Expected = BTreeMap<&'static str, Vec<(FailureKind, &'static str, &'static str)>>;

fn one(
    kind: FailureKind,
    id: &'static str,
    message: &'static str,
) -> Vec<(FailureKind, &'static str, &'static str)> {
    vec![(kind, id, message)]
}

/// cargo test and nextest: the same failures.
fn expected_of_rust(m: &mut Expected) {
    use FailureKind::*;
    let assert_cargo = vec![
        (
            Test,
            "counts_words_in_file",
            "assertion `left == right` failed",
        ),
        (
            Test,
            "tests::counts_three_words",
            "assertion `left == right` failed",
        ),
    ];
    let unwrap_none = "called `Option::unwrap()` on a `None` value";
    let panic_cargo = vec![
        (Test, "counts_words_in_file", unwrap_none),
        (Test, "tests::counts_three_words", unwrap_none),
    ];
    let should_panic = vec![(
        Test,
        "tests::rejects_empty_key",
        "note: test did not panic as expected at src/lib.rs",
    )];
    let compile_error = vec![(Build, "src/lib.rs", "error[E0308]: mismatched types")];
    let missing_file = vec![(
        Test,
        "counts_words_in_file",
        "cannot read <tmp>/words.txt: No such file or directory (os error <n>)",
    )];
    let two_cargo = vec![
        (
            Test,
            "counts_words_in_file",
            "assertion `left == right` failed",
        ),
        (
            Test,
            "tests::counts_three_words",
            "assertion `left == right` failed",
        ),
        (
            Test,
            "tests::rejects_empty_key",
            "note: test did not panic as expected at src/lib.rs",
        ),
    ];
    m.insert("cargo/assert-count", assert_cargo.clone());
    m.insert("nextest/assert-count", assert_cargo);
    m.insert("cargo/panic-count", panic_cargo.clone());
    m.insert("nextest/panic-count", panic_cargo);
    m.insert("cargo/should-panic", should_panic.clone());
    m.insert("nextest/should-panic", should_panic);
    m.insert("cargo/compile-error", compile_error.clone());
    m.insert("nextest/compile-error", compile_error);
    m.insert("cargo/missing-file", missing_file.clone());
    m.insert("nextest/missing-file", missing_file);
    // A test binary that died before its result: libtest cannot say which test, cargo
    // names the binary and how it died.
    m.insert(
        "cargo/abort",
        one(
            Crash,
            "wordcount",
            "signal: <n>, SIGABRT: process abort signal",
        ),
    );
    m.insert(
        "cargo/exit-early",
        one(Crash, "wordcount", "exit status: <n>"),
    );
    m.insert("cargo/two-failures", two_cargo.clone());
    m.insert("nextest/two-failures", two_cargo);
}

/// Volatile parts of Rust and Python runs (and Go's temp dirs): what each becomes.
fn expected_of_volatile_parts(m: &mut Expected) {
    use FailureKind::*;
    let rust_volatile = [
        (
            ["cargo/tempfile", "nextest/tempfile"],
            "saves_settings_beside_the_scratch_file",
            "cannot read <tmp>/settings.toml (scratch copy <tmp>): No such file or directory (os error <n>)",
        ),
        (
            ["cargo/volatile-values", "nextest/volatile-values"],
            "reports_the_request_that_failed",
            "request <uuid> to <n>:<n> failed at <time> (epoch <n> s, <n> ms) in pid <n> on ThreadId(<n>) after <dur>, buffer at 0x<hex>: connection reset",
        ),
        (
            ["cargo/proptest", "nextest/proptest"],
            "count_is_one_more_than_the_spaces",
            "Test failed: assertion failed: `(left == right)`",
        ),
        (
            ["cargo/quickcheck", "nextest/quickcheck"],
            "the_first_word_starts_the_text",
            "[quickcheck] TEST FAILED. Arguments: <input>",
        ),
    ];
    for (keys, id, message) in rust_volatile {
        for key in keys {
            m.insert(key, vec![(Test, id, message)]);
        }
    }
    m.insert(
        "pytest/tempfile-mktemp",
        one(
            Test,
            "tests/test_report.py::test_writes_the_report",
            "AssertionError: no report at <tmp>/report.txt (scratch dir <tmp>)",
        ),
    );
    m.insert(
        "pytest/volatile-values",
        one(
            Test,
            "tests/test_request.py::test_reports_the_request_that_failed",
            "ConnectionError: request <uuid> to <n>:<n> failed in pid <n> thread <n> after <dur> with <object object at 0x<hex>>: connection reset",
        ),
    );
    m.insert(
        "pytest/timestamps",
        one(
            Test,
            "tests/test_stamps.py::test_stamps_the_log_line",
            "TimeoutError: stale entry at <time> (logged <time>, syslog <time>, http <time>, epoch <n> s, <n> ms)",
        ),
    );
    m.insert(
        "pytest/hypothesis",
        one(
            Test,
            "tests/test_props.py::test_count_is_one_more_than_the_spaces",
            "AssertionError: assert <n> == (<n> + <n>)",
        ),
    );
    m.insert(
        "pytest/hypothesis-health",
        one(
            Test,
            "tests/test_filtered.py::test_counts_seven_words",
            "FailedHealthCheck: hypothesis.errors.FailedHealthCheck: It looks like this test is filtering out a lot of inputs. <n> inputs were generated successfully, while <n> inputs were filtered out.",
        ),
    );
    m.insert(
        "go/mkdir-temp",
        one(
            Test,
            "TestWritesTheReport",
            "report_test.go: no report (scratch <tmp>/words-<n>.txt): stat <tmp>/report.txt: no such file or directory",
        ),
    );
}

fn expected_of_volatile_go(m: &mut Expected) {
    use FailureKind::*;
    m.insert(
        "go/volatile-values",
        one(
            Test,
            "TestReportsTheRequestThatFailed",
            "request_test.go: request <uuid> to <n>:<n> failed in pid <n> after <dur>, buffer at 0x<hex>: connection reset",
        ),
    );
    m.insert(
        "go/timestamps",
        one(
            Test,
            "TestStampsTheLogLine",
            "stamps_test.go: stale entry at <time> (syslog <time>, http <time>, logged <time>, epoch <n> s, <n> ms)",
        ),
    );
    m.insert(
        "go/quick",
        one(
            Test,
            "TestFirstWordIsShort",
            "props_test.go: #<n>: failed on input <input>",
        ),
    );
}

/// Volatile parts of JavaScript and Java runs.
fn expected_of_volatile_js_and_java(m: &mut Expected) {
    use FailureKind::*;
    let node_request = "request <uuid> to <n>:<n> failed at <time> (<time>, epoch <n> ms) in pid <n> after <dur>: connection reset";
    let node_request_error = "Error: request <uuid> to <n>:<n> failed at <time> (<time>, epoch <n> ms) in pid <n> after <dur>: connection reset";
    m.insert(
        "jest/volatile-values",
        one(Test, "reports the request that failed", node_request),
    );
    m.insert(
        "vitest/volatile-values",
        one(
            Test,
            "test/request.test.js > reports the request that failed",
            node_request_error,
        ),
    );
    m.insert(
        "mocha/volatile-values",
        one(
            Test,
            "request reports the request that failed",
            node_request_error,
        ),
    );
    m.insert(
        "jest/fast-check",
        one(
            Test,
            "counts the words between spaces",
            "Property failed after <n> tests",
        ),
    );
    m.insert(
        "vitest/fast-check",
        one(
            Test,
            "test/props.test.js > counts the words between spaces",
            "Error: Property failed after <n> tests",
        ),
    );
    m.insert(
        "mocha/fast-check",
        one(
            Test,
            "properties counts the words between spaces",
            "Error: Property failed after <n> tests",
        ),
    );
    m.insert(
        "junit/volatile-values",
        one(
            Error,
            "wordcount.WordCountTest.reportsTheRequestThatFailed",
            "java.lang.IllegalStateException: request <uuid> to <n>:<n> failed at <time> in pid <n> thread <n> after <dur> with java.lang.Object@<hex>: connection reset",
        ),
    );
}

fn expected_of_python(m: &mut Expected) {
    use FailureKind::*;
    // The interpreter died in a test: faulthandler's traceback names the test's frame.
    m.insert(
        "pytest/segfault",
        one(
            Crash,
            "tests/test_wordcount.py::test_reads_config",
            "Fatal Python error: Segmentation fault",
        ),
    );
    m.insert(
        "cargo/doctest",
        vec![(
            Test,
            "src/lib.rs - is_blank (line <n>)",
            "assertion failed: wordcount::is_blank(\" \\t \")",
        )],
    );
    m.insert(
        "pytest/assert-count",
        vec![(
            Test,
            "tests/test_wordcount.py::test_counts_three_words",
            "AssertionError: assert <n> == <n>",
        )],
    );
    m.insert(
        "pytest/type-error",
        vec![(
            Test,
            "tests/test_wordcount.py::test_counts_three_words",
            "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'",
        )],
    );
    m.insert(
        "pytest/fixture-error",
        vec![(
            Error,
            "tests/test_parse.py::test_first_of_sentence",
            "RuntimeError: sentence source unavailable",
        )],
    );
    m.insert(
        "pytest/collection-error",
        vec![(Error, "tests/test_parse.py", "SyntaxError: expected ':'")],
    );
    m.insert(
        "pytest/import-error",
        vec![(
            Error,
            "tests/test_parse.py",
            "ModuleNotFoundError: No module named 'wordcount_v2'",
        )],
    );
    m.insert(
        "pytest/missing-file",
        vec![(
            Test,
            "tests/test_wordcount.py::test_reads_config",
            "FileNotFoundError: [Errno <n>] No such file or directory: 'test_reads_config0/settings.ini'",
        )],
    );
    m.insert(
        "pytest/param-failure",
        vec![(
            Test,
            "tests/test_wordcount.py::test_counts_parametrized[v2 utf8-3]",
            "AssertionError: assert <n> == <n>",
        )],
    );
}

fn expected_of_go(m: &mut Expected) {
    use FailureKind::*;
    // A test called os.Exit: go names only the package.
    m.insert(
        "go/exit-early",
        one(
            Crash,
            "example.com/wordcount",
            "the test binary failed without a failing test",
        ),
    );
    m.insert(
        "go/assert-count",
        vec![(
            Test,
            "TestCountThreeWords",
            "wordcount_test.go: CountWords(\"one two three\") = <n>, want <n>",
        )],
    );
    m.insert(
        "go/panic-count",
        vec![(
            Crash,
            "TestCountThreeWords",
            "panic: assignment to entry in nil map",
        )],
    );
    m.insert(
        "go/subtest",
        vec![(
            Test,
            "TestFirstWord/v2",
            "wordcount_test.go: FirstWord(\"v2 utf8\") = \"v2\", want \"utf8\"",
        )],
    );
    m.insert(
        "go/build-error",
        vec![(
            Build,
            "wordcount.go",
            "invalid operation: words[<n>] + <n> (mismatched types string and untyped int)",
        )],
    );
    m.insert(
        "go/missing-file",
        vec![(
            Test,
            "TestReadWords",
            "wordcount_test.go: ReadWords: open <tmp>/words.txt.missing: no such file or directory",
        )],
    );
    m.insert(
        "go/timeout",
        vec![(
            Timeout,
            "TestReadWords",
            "panic: test timed out after <dur>",
        )],
    );
}

fn expected_of_javascript(m: &mut Expected) {
    use FailureKind::*;
    m.insert(
        "jest/assert-count",
        vec![(
            Test,
            "countWords counts three words",
            "expect(received).toBe(expected) // Object.is equality",
        )],
    );
    m.insert(
        "jest/type-error",
        vec![(
            Test,
            "countWords counts three words",
            "TypeError: Cannot read properties of null (reading 'length')",
        )],
    );
    m.insert(
        "jest/module-not-found",
        vec![(
            Error,
            "__tests__/parse.test.js",
            "Cannot find module '../src/wordcount-v2' from '__tests__/parse.test.js'",
        )],
    );
    m.insert(
        "vitest/assert-count",
        vec![(
            Test,
            "test/wordcount.test.js > countWords > counts three words",
            "AssertionError: expected <n> to be <n> // Object.is equality",
        )],
    );
    m.insert(
        "vitest/module-not-found",
        vec![(
            Error,
            "test/parse.test.js",
            "Error: Cannot find module '../src/wordcount-v2.js' imported from 'test/parse.test.js'",
        )],
    );
    m.insert(
        "mocha/assert-count",
        vec![(
            Test,
            "countWords counts three words",
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
        )],
    );
    m.insert(
        "mocha/hook-error",
        vec![(
            Error,
            "readWords \"before each\" hook for \"reads a file\"",
            "Error: ENOENT: no such file or directory, scandir '<tmp>/fixtures'",
        )],
    );
    m.insert(
        "mocha/require-error",
        vec![(
            Error,
            "mocha run",
            "Error: Cannot find module '../src/wordcount-v2'",
        )],
    );
}

fn expected_of_java_and_tsc(m: &mut Expected) {
    use FailureKind::*;
    m.insert(
        "junit/assert-count",
        vec![(
            Test,
            "wordcount.WordCountTest.countsThreeWords",
            "java.lang.AssertionError: expected:<<n>> but was:<<n>>",
        )],
    );
    m.insert(
        "junit/npe",
        vec![(
            Error,
            "wordcount.WordCountTest.countsThreeWords",
            "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"none\" is null",
        )],
    );
    m.insert(
        "junit/missing-file",
        vec![(
            Error,
            "wordcount.WordCountTest.readsFile",
            "java.nio.file.NoSuchFileException: <tmp>/words.txt",
        )],
    );
    m.insert(
        "tsc/type-mismatch",
        vec![(
            Build,
            "src/main.ts",
            "error TS2322: Type 'string | null' is not assignable to type 'number'.",
        )],
    );
    m.insert(
        "tsc/unknown-name",
        vec![(
            Build,
            "src/wordcount.ts",
            "error TS2304: Cannot find name 'offset'.",
        )],
    );
}

#[test]
fn failures_are_what_the_runner_reported() {
    let expected = expected_failures();
    let all = fixtures();
    let mut checked = BTreeSet::new();
    for f in all {
        let key = format!("{}/{}", f.runner, f.failure);
        let Some(want) = expected.get(key.as_str()) else {
            continue;
        };
        let got: Vec<(FailureKind, &str, &str)> = f
            .fingerprint
            .failures
            .iter()
            .map(|x| (x.kind, x.id.as_str(), x.message.as_str()))
            .collect();
        assert_eq!(&got, want, "{}", f.name());
        checked.insert(key);
    }
    let missing: Vec<_> = expected.keys().filter(|k| !checked.contains(**k)).collect();
    assert!(missing.is_empty(), "no fixtures for {missing:?}");
}

#[test]
fn cargo_test_and_nextest_agree_on_the_same_failure() {
    let all = fixtures();
    let groups = by_failure(all);
    let mut compared = 0;
    for ((runner, failure), variants) in &groups {
        if runner != "cargo" {
            continue;
        }
        if let Some(other) = groups.get(&("nextest".to_string(), failure.clone())) {
            assert_eq!(
                variants[0].fingerprint.signature,
                other[0].fingerprint.signature,
                "{failure}\n{}\n{}",
                describe(variants[0]),
                describe(other[0])
            );
            compared += 1;
        }
    }
    assert!(compared >= 6, "compared {compared}");
}

#[test]
fn any_chunking_gives_the_same_fingerprint() {
    // A cheap deterministic generator: chunk sizes from 1 byte to a few KiB.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |max: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        1 + (seed as usize) % max
    };
    for f in fixtures() {
        for max in [3, 64, 5000] {
            let mut fp = Fingerprinter::new();
            let mut rest = f.bytes.as_slice();
            while !rest.is_empty() {
                let n = next(max).min(rest.len());
                fp.feed(&rest[..n]);
                rest = &rest[n..];
            }
            assert_eq!(
                fp.finish(),
                f.fingerprint,
                "{} in chunks of up to {max}",
                f.name()
            );
        }
        let via_reader = fingerprint_reader(f.bytes.as_slice()).unwrap();
        assert_eq!(via_reader, f.fingerprint, "{}", f.name());
    }
}

/// Turns a log into a Windows runner's GitHub Actions log: BOM, timestamps, CRLF, and a
/// passing line with bytes that are not UTF-8.
fn windows_actions_log(log: &[u8]) -> Vec<u8> {
    let mut out = b"\xEF\xBB\xBF".to_vec();
    out.extend_from_slice(b"2026-11-25T10:00:00.0000000Z ##[group]Run tests\r\n");
    out.extend_from_slice(b"2026-11-25T10:00:00.0000000Z caf\xe9 \xff\xfe latin-1 noise\r\n");
    out.extend_from_slice(b"2026-11-25T10:00:00.0000000Z ##[endgroup]\r\n");
    for (i, line) in log.split(|&b| b == b'\n').enumerate() {
        // A log written on Windows already ends its lines in CRLF.
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        out.extend_from_slice(
            format!(
                "2026-11-25T10:00:{:02}.{:07}Z ",
                i % 60,
                i * 7919 % 10_000_000
            )
            .as_bytes(),
        );
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        b"2026-11-25T10:01:00.0000000Z ##[error]Process completed with exit code 1.\r\n",
    );
    out
}

#[test]
fn a_windows_actions_log_of_a_failure_is_the_same_failure() {
    for f in fixtures() {
        if f.path.extension().is_some_and(|e| e == "xml" || e == "trx")
            || f.path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("gha")
        {
            continue;
        }
        let wrapped = fingerprint_bytes(&windows_actions_log(&f.bytes));
        assert_eq!(
            wrapped.signature,
            f.fingerprint.signature,
            "{}\n{}",
            describe(f),
            wrapped.render_text()
        );
    }
}

#[test]
fn several_runners_in_one_log_and_combined_reports() {
    let read = |p: &str| std::fs::read(logs_root().join(p)).unwrap();
    let cargo = read("cargo/should-panic/plain.log");
    let pytest = read("pytest/assert-count/plain.log");
    let mut both = cargo.clone();
    both.extend_from_slice(b"\n");
    both.extend_from_slice(&pytest);
    let together = fingerprint_bytes(&both);
    let combined = Fingerprint::combine([fingerprint_bytes(&cargo), fingerprint_bytes(&pytest)]);
    assert_eq!(together.failures.len(), 2, "{}", together.render_text());
    assert_eq!(together.signature, combined.signature);
    // A log plus the run's JUnit report: the same failures, so the same signature.
    let junit = fingerprint_bytes(&read("pytest/assert-count/junit.xml"));
    let log_and_junit = Fingerprint::combine([fingerprint_bytes(&pytest), junit]);
    assert_eq!(
        log_and_junit.signature,
        fingerprint_bytes(&pytest).signature
    );
}

#[test]
fn json_document_follows_the_contract() {
    let bytes = std::fs::read(logs_root().join("pytest/assert-count/plain.log")).unwrap();
    let v = fingerprint_bytes(&bytes).to_json();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["runner"], "pytest");
    assert_eq!(v["signature"].as_str().unwrap().len(), 64);
    assert_eq!(
        v["failures"],
        serde_json::json!([{"id": "tests/test_wordcount.py::test_counts_three_words",
                            "kind": "test", "message": "AssertionError: assert <n> == <n>"}])
    );
    let passing = std::fs::read(logs_root().join("pytest/passing/plain.log")).unwrap();
    let v = fingerprint_bytes(&passing).to_json();
    assert_eq!(v["signature"], serde_json::Value::Null);
    assert_eq!(v["failures"], serde_json::json!([]));
}

/// Passing output whose words look like failures: test names, crate names, counts of zero,
/// warnings. None of it is a failure.
#[test]
fn passing_lines_that_look_like_failures_are_not_failures() {
    let log = "\
   Compiling error-chain v0.12.4
   Compiling panic-message v0.3.0
warning: unused variable: `error`
test handles_FAILED_status ... ok
test error_paths::reports_panic_message ... ok
test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s
        PASS [   0.004s] (1/2) app tests::fail_fast_is_off
     Summary [   0.010s] 2 tests run: 2 passed, 0 skipped
tests/test_errors.py::test_error_message PASSED                          [ 50%]
tests/test_failures.py::test_failure_count PASSED                        [100%]
============================== 2 passed in 0.01s ===============================
=== RUN   TestFailover
--- PASS: TestFailover (0.00s)
ok  \texample.com/failover\t0.004s
PASS __tests__/failure.test.js
  \u{2713} reports failures (3 ms)
Tests:       0 failed, 4 passed, 4 total
 \u{2713} test/errors.test.js (3 tests) 4ms
 Test Files  1 passed (1)
  \u{2714} fails gracefully
  3 passing (9ms)
Exception handling enabled
errors: 0
ERROR: 0
2026-11-25T10:00:00.0000000Z ##[error]Process completed with exit code 1.
Error: Process completed with exit code 1.
";
    let fp = fingerprint_bytes(log.as_bytes());
    assert_eq!(fp.signature, None, "{}", fp.render_text());
}

/// The runner's own exit-code line is never the failure, even when nothing else is found.
#[test]
fn the_exit_code_line_alone_is_no_failure() {
    let log = "2026-11-25T10:00:00.0000000Z ##[group]Run make test\n\
               2026-11-25T10:00:01.0000000Z ##[endgroup]\n\
               2026-11-25T10:00:02.0000000Z ##[error]Process completed with exit code 2.\n";
    assert_eq!(fingerprint_bytes(log.as_bytes()).signature, None);
    // A real error line next to it is found by the fallback.
    let log = format!("{log}2026-11-25T10:00:02.0000000Z error: linker `cc` not found\n");
    let fp = fingerprint_bytes(log.as_bytes());
    assert_eq!(fp.runner, Some(Runner::Generic));
    assert_eq!(fp.failures.len(), 1, "{}", fp.render_text());
    assert_eq!(fp.failures[0].message, "error: linker `cc` not found");
}

/// Every real runner log is a test result `run` and `ingest` record; the output of a
/// command that ran no tests is not (docs/contract.md, "Test evidence").
#[test]
fn every_runner_log_is_recognised_and_a_typo_is_not() {
    let all = fixtures();
    // `tsc` prints nothing when it passes: silence, which with exit 0 is a pass (in an
    // Actions job log, only the job's own lines are around it).
    let silent_tool = |f: &Fixture| f.runner == "tsc" && f.failure == "passing";
    let unrecognised: Vec<String> = all
        .iter()
        .filter(|f| !f.fingerprint.recognised && !silent_tool(f))
        .map(describe)
        .collect();
    assert!(unrecognised.is_empty(), "{}", unrecognised.join("\n"));
    for f in all {
        let empty = f.bytes.iter().all(u8::is_ascii_whitespace);
        assert_eq!(f.fingerprint.silent, empty, "{}", f.name());
    }

    for not_tests in [
        "error: no such command: `tset`\n\n\tDid you mean `test`?\n",
        "sh: 1: pytset: not found\n",
        "npm ERR! Missing script: \"tset\"\n",
        "Error: no test specified\n",
        "make: *** No rule to make target 'tset'.  Stop.\n",
        "zsh: command not found: got\n",
    ] {
        let fp = fingerprint_bytes(not_tests.as_bytes());
        assert!(!fp.recognised, "{not_tests:?}: {}", fp.render_text());
        assert!(!fp.silent);
    }
    let quiet = fingerprint_bytes(b" \n\t\n");
    assert!(quiet.silent && !quiet.recognised);
    // Parts combine: recognised when any is, silent when all are.
    let both = Fingerprint::combine([quiet.clone(), all[0].fingerprint.clone()]);
    assert!(both.recognised && !both.silent);
    let none = Fingerprint::combine([quiet.clone(), quiet]);
    assert!(none.silent && !none.recognised);
}

/// The fingerprint of `log` with no line skipped: the reference the scans must agree with
/// (the trigger scan, and each runner's narrowed scan inside its own run).
fn reading_every_line(log: &[u8]) -> Fingerprint {
    let mut f = Fingerprinter::reading_every_line();
    f.feed(log);
    f.finish()
}

/// The fingerprint of `log` fed in chunks of pseudo-random sizes from 1 to `max` bytes.
fn in_chunks(log: &[u8], max: usize, mut seed: u64) -> Fingerprint {
    let mut f = Fingerprinter::new();
    let mut rest = log;
    while !rest.is_empty() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let n = (1 + seed as usize % max).min(rest.len());
        f.feed(&rest[..n]);
        rest = &rest[n..];
    }
    f.finish()
}

/// Long passing runs of the runners whose scan narrows inside their own run, each closed
/// by its summary as a real run is.
fn passing_runs() -> Vec<(&'static str, Vec<u8>)> {
    let mut cargo = String::from("running 60 tests\n");
    let mut pytest = String::from(
        "============================= test session starts ==============================\n",
    );
    for i in 0..60 {
        let m = i % 7;
        writeln!(cargo, "test module_{m}::handles_case_{i:04} ... ok").unwrap();
        let percent = i * 100 / 60;
        writeln!(
            pytest,
            "tests/test_m{m}.py::test_case_{i:04}[x-1] PASSED [{percent:3}%]"
        )
        .unwrap();
    }
    cargo += "\ntest result: ok. 60 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; \
        finished in 0.01s\n\n";
    pytest += "============================== 60 passed in 0.42s ===============================\n";
    vec![
        ("cargo", cargo.into_bytes()),
        ("pytest", pytest.into_bytes()),
    ]
}

/// Each line wrapped in colour codes, and one more code inside its first word: a trigger
/// split by an escape is a trigger no more, in either scan.
fn coloured(log: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in log.split_inclusive(|&b| b == b'\n') {
        let (body, end) = match line.strip_suffix(b"\n") {
            Some(body) => (body, &b"\n"[..]),
            None => (line, &b""[..]),
        };
        let cut = body.len().min(3);
        out.extend_from_slice(b"\x1b[1m\x1b[31m");
        out.extend_from_slice(&body[..cut]);
        out.extend_from_slice(b"\x1b[0m");
        out.extend_from_slice(&body[cut..]);
        out.extend_from_slice(b"\x1b[0m");
        out.extend_from_slice(end);
    }
    out
}

/// The scans (the trigger scan, and a runner's narrowed scan inside its own run) skip no
/// line that matters: every fixture gives what reading every line gives, as it is and in
/// a log with other runners' output before and after it, as a Windows runner's Actions
/// log, in colour, cut into chunks anywhere.
///
/// Other runners' output comes between runs, where a log has it. Inside a runner's run the
/// narrowed scan reads only the runner's own lines, on purpose: anything else there is the
/// tests' own chatter (`stream.rs`, `inside_a_passing_run_only_the_runners_lines_are_read`).
#[test]
fn the_scans_skip_no_line_that_matters() {
    let runs = passing_runs();
    let all: Vec<&Fixture> = fixtures().iter().chain(HELD_OUT.iter()).collect();
    let text: Vec<&Fixture> = all
        .iter()
        .copied()
        .filter(|f| !f.path.extension().is_some_and(|e| e == "xml" || e == "trx"))
        .collect();
    for f in &all {
        assert_eq!(reading_every_line(&f.bytes), f.fingerprint, "{}", f.name());
    }
    for (i, f) in text.iter().enumerate() {
        // Another runner's log, picked by a stride through the list.
        let other = (1..text.len())
            .map(|k| text[(i + k * 37) % text.len()])
            .find(|o| o.runner != f.runner)
            .unwrap();
        {
            let (runner, run) = &runs[(i / 9) % runs.len()];
            let mut log = run.clone();
            log.extend_from_slice(&f.bytes);
            log.push(b'\n');
            log.extend_from_slice(run);
            log.extend_from_slice(&other.bytes);
            let (shape, log) = match i % 3 {
                0 => ("plain", log),
                1 => ("windows actions", windows_actions_log(&log)),
                _ => ("coloured", coloured(&log)),
            };
            let max = [7, 300, 5000][(i / 3) % 3];
            assert_eq!(
                in_chunks(&log, max, i as u64 + 1),
                reading_every_line(&log),
                "{} between {runner} runs before {}, {shape}, in chunks of up to {max}",
                f.name(),
                other.name()
            );
        }
    }
}

/// A failure right after a long passing run, with the chunk boundary at every byte of the
/// failing line and around it: the narrowed scan finds it wherever the input is cut.
#[test]
fn a_failure_at_a_chunk_boundary_inside_a_narrowed_run() {
    for (runner, run) in passing_runs() {
        // The run left open: its failure comes next.
        let open = run
            .split(|&b| b == b'\n')
            .take(61)
            .collect::<Vec<_>>()
            .join(&b'\n');
        let failure = logs_root().join(runner).join("two-failures/gha.log");
        let mut log = open.clone();
        log.push(b'\n');
        log.extend_from_slice(&std::fs::read(failure).unwrap());
        let expected = reading_every_line(&log);
        assert!(expected.signature.is_some(), "{runner}");
        let at = open.len() + first_failed(&log[open.len()..]).unwrap();
        for cut in at.saturating_sub(80)..(at + 80).min(log.len()) {
            let mut f = Fingerprinter::new();
            f.feed(&log[..cut]);
            f.feed(&log[cut..]);
            assert_eq!(f.finish(), expected, "{runner} cut at {cut}");
        }
    }
}

/// Where the first `FAILED` is.
fn first_failed(log: &[u8]) -> Option<usize> {
    log.windows(6).position(|w| w == b"FAILED")
}
