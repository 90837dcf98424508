//! Changes as maintained projects and agents make them, and what each takes away.

use super::*;
use crate::suite::role;

fn file<'a>(old: Option<(&'a str, &'a str)>, new: Option<(&'a str, &'a str)>) -> ChangedFile<'a> {
    ChangedFile {
        old_path: old.map(|o| o.0),
        new_path: new.map(|n| n.0),
        old: old.map(|o| o.1),
        new: new.map(|n| n.1),
        ..ChangedFile::default()
    }
}

/// (name, how, doubt, replaced) of what `files` take away.
fn read(files: &[ChangedFile<'_>]) -> Vec<(String, TakenHow, Option<Doubt>, bool)> {
    taken(files, role)
        .into_iter()
        .map(|t| (t.name, t.how, t.doubt, t.replaced))
        .collect()
}

const PARSER_TESTS: &str = "from app.parser import parse\n\ndef test_parses():\n    assert parse('1') == 1\n\ndef test_rejects():\n    assert parse('x') is None\n";

#[test]
fn a_moved_test_is_not_a_deleted_test() {
    let rewritten = "import pytest\nfrom app.parsing import parse\n\n\nclass TestParser:\n    def test_parses(self):\n        assert parse('1') == 1\n\n    def test_rejects(self):\n        assert parse('x') is None\n";
    let cases: Vec<(&str, Vec<ChangedFile<'_>>)> = vec![
        (
            "renamed below git's threshold and rewritten: a delete and an add",
            vec![
                file(Some(("tests/test_parser.py", PARSER_TESTS)), None),
                file(None, Some(("tests/unit/test_parsing.py", rewritten))),
            ],
        ),
        (
            "split into several files",
            vec![
                file(Some(("tests/test_parser.py", PARSER_TESTS)), None),
                file(
                    None,
                    Some((
                        "tests/parser/test_ok.py",
                        "def test_parses():\n    assert True\n",
                    )),
                ),
                file(
                    None,
                    Some((
                        "tests/parser/test_err.py",
                        "def test_rejects():\n    assert True\n",
                    )),
                ),
            ],
        ),
        (
            "empty files moved: never paired, and no tests",
            vec![
                file(Some(("tests/unit/__init__.py", "")), None),
                file(None, Some(("tests/sdk/__init__.py", ""))),
            ],
        ),
        (
            "fixtures, samples and snapshots deleted",
            vec![
                file(
                    Some(("tests/fixtures/conversations/base_state.json", "{}")),
                    None,
                ),
                file(
                    Some((
                        "test/e2e/test/__snapshots__/a.test.ts.snap",
                        "exports[`a`] = 1",
                    )),
                    None,
                ),
                file(Some(("tests/examples/cycle.txt", "x")), None),
                file(
                    Some((
                        "test/cli/fixtures/flaky/math.spec.ts",
                        "test('x', () => {})",
                    )),
                    None,
                ),
            ],
        ),
        (
            "a helper in the test tree",
            vec![file(
                Some(("tests/helpers.py", "def make():\n    return 1\n")),
                None,
            )],
        ),
        (
            "moved into a shared suite the test files of the change import",
            vec![
                file(
                    Some((
                        "test/core/test/timers.test.ts",
                        "test('mocks setTimeout', () => {})\n",
                    )),
                    Some((
                        "test/core/test/fixtures/timers.suite.ts",
                        "test('mocks setTimeout', () => {})\n",
                    )),
                ),
                file(
                    None,
                    Some((
                        "test/core/test/timers-node.test.ts",
                        "import './fixtures/timers.suite'\n",
                    )),
                ),
            ],
        ),
    ];
    nothing_taken(cases);
}

#[test]
fn a_test_kept_under_its_name_is_not_taken() {
    nothing_taken(vec![
        (
            "renamed, beside a helper whose name starts like it",
            vec![file(
                Some((
                    "src/search.rs",
                    "fn buffered_reader() {}\n\n#[test]\nfn buffered() {}\n",
                )),
                Some((
                    "src/search.rs",
                    "fn buffered_reader() {}\n\n#[test]\nfn buffered_literal() {}\n",
                )),
            )],
        ),
        (
            "two tests of one name, one expected to fail: neither changed",
            vec![file(
                Some((
                    "a.test.ts",
                    "it.fails('has assertions', () => {})\nit('has assertions', () => {})\n",
                )),
                Some((
                    "a.test.ts",
                    "it.fails('has assertions', () => {})\nit('has assertions', () => { })\n",
                )),
            )],
        ),
    ]);
}

/// Each change takes nothing away, or only what new tests took the place of (a rewrite).
fn nothing_taken(cases: Vec<(&str, Vec<ChangedFile<'_>>)>) {
    for (what, files) in cases {
        let kept: Vec<_> = read(&files).into_iter().filter(|t| !t.3).collect();
        assert_eq!(kept, [], "{what}");
    }
}

#[test]
fn each_way_of_taking_a_test_away() {
    use TakenHow::*;
    let renamed_out =
        "def _test_parses():\n    assert True\n\ndef test_rejects():\n    assert True\n";
    let emptied = "from app.parser import parse\n";
    let skipped = "import pytest\n\n@pytest.mark.skip(reason='flaky')\ndef test_parses():\n    assert True\n\ndef test_rejects():\n    assert True\n";
    let early =
        "def test_parses():\n    return\n    assert True\n\ndef test_rejects():\n    assert True\n";
    let cases: Vec<Case<'_>> = vec![
        (
            "deleted, the code it tests still there",
            vec![file(Some(("tests/test_parser.py", PARSER_TESTS)), None)],
            vec![("test_parses", Deleted), ("test_rejects", Deleted)],
        ),
        (
            "renamed out of discovery",
            vec![file(
                Some(("tests/test_parser.py", PARSER_TESTS)),
                Some(("tests/test_parser.py", renamed_out)),
            )],
            vec![("test_parses", RenamedOut)],
        ),
        (
            "emptied",
            vec![file(
                Some(("tests/test_parser.py", PARSER_TESTS)),
                Some(("tests/test_parser.py", emptied)),
            )],
            vec![("test_parses", Emptied), ("test_rejects", Emptied)],
        ),
        (
            "moved out of the test paths",
            vec![file(
                Some(("tests/test_parser.py", PARSER_TESTS)),
                Some(("attic/parser_checks.py", PARSER_TESTS)),
            )],
            vec![("test_parses", MovedOut), ("test_rejects", MovedOut)],
        ),
        (
            "skipped",
            vec![file(
                Some(("tests/test_parser.py", PARSER_TESTS)),
                Some(("tests/test_parser.py", skipped)),
            )],
            vec![("test_parses", Skipped)],
        ),
        (
            "an early return",
            vec![file(
                Some(("tests/test_parser.py", PARSER_TESTS)),
                Some(("tests/test_parser.py", early)),
            )],
            vec![("test_parses", EarlyReturn)],
        ),
    ];
    each_takes(cases);
}

#[test]
fn each_way_of_taking_a_test_away_beyond_python() {
    use TakenHow::*;
    each_takes(vec![
        (
            "compiled out",
            vec![file(
                Some((
                    "src/lib.rs",
                    "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {}\n}\n",
                )),
                Some((
                    "src/lib.rs",
                    "#[cfg(any())]\nmod tests {\n    #[test]\n    fn adds() {}\n}\n",
                )),
            )],
            vec![("adds", Disabled)],
        ),
        (
            "a todo",
            vec![file(
                Some((
                    "src/a.test.ts",
                    "it('adds', () => {\n  expect(add(1, 1)).toBe(2)\n})\n",
                )),
                Some(("src/a.test.ts", "it.todo('adds')\n")),
            )],
            vec![("adds", Todo)],
        ),
        (
            "another test focused",
            vec![file(
                Some((
                    "src/a.test.ts",
                    "it('adds', () => {})\nit('subtracts', () => {})\n",
                )),
                Some((
                    "src/a.test.ts",
                    "it.only('adds', () => {})\nit('subtracts', () => {})\n",
                )),
            )],
            vec![("subtracts", Focused)],
        ),
        (
            "unknown contents, deleted: the file as a whole",
            vec![ChangedFile {
                old_path: Some("pkg/parse_test.go"),
                ..ChangedFile::default()
            }],
            vec![("pkg/parse_test.go", Deleted)],
        ),
    ]);
}

type Case<'a> = (&'a str, Vec<ChangedFile<'a>>, Vec<(&'a str, TakenHow)>);

/// Each change takes away exactly the tests it names, as it says.
fn each_takes(cases: Vec<Case<'_>>) {
    for (what, files, want) in cases {
        let got: Vec<(String, TakenHow)> = read(&files).into_iter().map(|t| (t.0, t.1)).collect();
        let want: Vec<(String, TakenHow)> =
            want.into_iter().map(|(n, h)| (n.to_owned(), h)).collect();
        assert_eq!(got, want, "{what}");
    }
}

#[test]
fn what_is_doubtful_says_why() {
    let conditional = "import pytest, sys\n\n@pytest.mark.skipif(sys.platform == 'win32', reason='posix')\ndef test_parses():\n    assert True\n\ndef test_rejects():\n    assert True\n";
    let t = taken(
        &[file(
            Some(("tests/test_parser.py", PARSER_TESTS)),
            Some(("tests/test_parser.py", conditional)),
        )],
        role,
    );
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].doubt, Some(Doubt::Conditional));
    assert_eq!(t[0].because.as_deref(), Some("sys.platform == 'win32'"));

    let quarantined =
        "#[test]\n#[ignore = \"flaky: https://github.com/acme/app/issues/812\"]\nfn adds() {}\n";
    let t = taken(
        &[file(
            Some(("tests/math.rs", "#[test]\nfn adds() {}\n")),
            Some(("tests/math.rs", quarantined)),
        )],
        role,
    );
    assert_eq!(t[0].doubt, Some(Doubt::Quarantined));
    assert_eq!(
        t[0].because.as_deref(),
        Some("https://github.com/acme/app/issues/812")
    );

    // Deleted with the code it tests: the same subject, the same project, a definition.
    let with_code: Vec<Vec<ChangedFile<'_>>> = vec![
        vec![
            file(Some(("tests/test_parser.py", PARSER_TESTS)), None),
            file(
                Some(("src/app/parser.py", "def parse(s):\n    return 1\n")),
                None,
            ),
        ],
        vec![
            file(
                Some(("examples/flaskr/tests/test_app.py", PARSER_TESTS)),
                None,
            ),
            file(
                Some(("examples/flaskr/flaskr/__init__.py", "app = 1\n")),
                None,
            ),
        ],
        vec![file(
            Some((
                "src/lib.rs",
                "pub fn legacy_sum() {}\n\n#[test]\nfn legacy_sum_adds() {}\n",
            )),
            Some(("src/lib.rs", "pub fn sum() {}\n")),
        )],
        vec![
            file(
                Some((
                    "test/UnitTests/X.UnitTests/UnitTestResultTest.cs",
                    "[TestMethod]\npublic void Converts() {}\n",
                )),
                None,
            ),
            file(
                Some((
                    "src/Adapter/UnitTestResult.cs",
                    "internal class UnitTestResult {}\n",
                )),
                None,
            ),
        ],
    ];
    for files in with_code {
        let t = taken(&files, role);
        assert!(!t.is_empty(), "{files:?}");
        assert!(t.iter().all(|t| t.doubt == Some(Doubt::WithCode)), "{t:?}");
    }

    // A rewrite under new names: as many new tests as gone ones.
    let t = taken(
        &[
            file(
                Some(("tests/sdk/tool/test_tool_spec.py", PARSER_TESTS)),
                None,
            ),
            file(
                None,
                Some((
                    "tests/sdk/tool/test_tool.py",
                    "def test_tool_parses():\n    pass\n\ndef test_tool_rejects():\n    pass\n",
                )),
            ),
        ],
        role,
    );
    assert_eq!(t.len(), 2);
    assert!(t.iter().all(|t| t.replaced), "{t:?}");
}

#[test]
fn issue_links() {
    let cases = [
        (
            "@Disabled(\"https://github.com/a/b/issues/12\")",
            Some("https://github.com/a/b/issues/12"),
        ),
        ("[Ignore(\"Tracked by #12345\")]", Some("#12345")),
        ("#[ignore = \"PROJ-123 flaky\"]", Some("PROJ-123")),
        (
            "@pytest.mark.skip(reason='see issue 4513')",
            Some("issue 4513"),
        ),
        ("@pytest.mark.skip(reason='slow')", None),
        ("#[ignore]", None),
        ("it.skip('utf-8 #1', () => {})", None),
    ];
    for (text, want) in cases {
        assert_eq!(issue_link(text).as_deref(), want, "{text}");
    }
}
