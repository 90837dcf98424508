//! Real repository shapes through `check`: histories written with `git fast-import` the
//! way maintained projects and agents make them — merges of side branches and of main,
//! commits that exist twice, people and agents in one history — judged with the default
//! config (issue 17: true on repositories never seen).

use crate::support::fast_import::{Op, Stream};
use crate::support::{TestRepo, lg};

const MAINTAINER: &str = "Maintainer <maintainer@example.com>";
const CONTRIBUTOR: &str = "Contributor <contributor@example.com>";
const COPILOT: &str = "Copilot <198982749+Copilot@users.noreply.github.com>";

fn check(repo: &TestRepo, range: &str) -> serde_json::Value {
    let ran = lg(repo).args(["check", "--range", range, "--json"]).run();
    assert!(matches!(ran.code, Some(0 | 1)), "{}", ran.stderr);
    ran.json()
}

/// `n` commits on `branch` by `who`, each adding a file of its own.
fn work(
    h: &mut Stream,
    branch: &str,
    who: &str,
    tag: &str,
    n: usize,
) -> Vec<crate::support::fast_import::Mark> {
    (0..n)
        .map(|i| {
            let path = format!("src/{tag}_{i}.py");
            let content = format!("def {tag}_{i}():\n    return {i}\n");
            h.commit(
                branch,
                who,
                &format!("Add {tag} {i}"),
                &[Op::Write(&path, &content)],
            )
        })
        .collect()
}

#[test]
fn commits_a_merge_brings_in_are_context_not_attempts() {
    // A maintained project: a contributor's 60-commit branch merged into main, and a
    // side branch whose fix was also rebased onto main before the side branch was merged
    // (the same patch twice in the range, once on each line).
    let repo = TestRepo::new();
    let mut h = Stream::new();
    let base = h.commit(
        "main",
        MAINTAINER,
        "Initial",
        &[Op::Write("src/app.py", "x = 1\n")],
    );
    h.branch("feature", base);
    let feature = work(&mut h, "feature", CONTRIBUTOR, "feature", 60);
    h.branch("fix", base);
    let fix = h.commit(
        "fix",
        CONTRIBUTOR,
        "Fix x",
        &[Op::Write("src/app.py", "x = 2\n")],
    );
    let fix2 = h.commit(
        "fix",
        CONTRIBUTOR,
        "Fix y",
        &[Op::Write("src/y.py", "y = 2\n")],
    );
    let start = h.commit(
        "main",
        MAINTAINER,
        "Docs",
        &[Op::Write("README.md", "docs\n")],
    );
    // The fix rebased onto main: the same patches, first-parent.
    h.commit(
        "main",
        MAINTAINER,
        "Fix x",
        &[Op::Write("src/app.py", "x = 2\n")],
    );
    h.commit(
        "main",
        MAINTAINER,
        "Fix y",
        &[Op::Write("src/y.py", "y = 2\n")],
    );
    h.merge(
        "main",
        MAINTAINER,
        "Merge branch 'feature'",
        *feature.last().unwrap(),
        &[],
    );
    h.merge("main", MAINTAINER, "Merge branch 'fix'", fix2, &[]);
    let tip = h.commit(
        "main",
        MAINTAINER,
        "Release",
        &[Op::Write("VERSION", "1.0\n")],
    );
    let ids = h.import(&repo);
    let doc = check(&repo, &format!("{}..{}", ids[&start], ids[&tip]));
    assert_eq!(doc["state"], "closed", "{doc}");
    // Fix x, Fix y, Release: the merges and what they brought in are context.
    assert_eq!(doc["iterations"], 3, "{doc}");
    assert_eq!(doc["counters"]["budget"]["count"], 3);
    assert_eq!(doc["counters"]["repeated_patch"]["count"], 0);
    let judged: Vec<&str> = doc["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| it["id"].as_str().unwrap())
        .collect();
    assert!(
        !judged.contains(&ids[&fix].as_str()),
        "the side copy is not judged"
    );
    assert!(!judged.contains(&ids[&feature[0]].as_str()));
    assert_eq!(
        judged.len(),
        5,
        "the first-parent line: 3 commits and 2 merges"
    );
}

#[test]
fn who_made_a_commit_does_not_depend_on_where_the_first_agent_commit_is() {
    // An agent's PR branch: a person's commits first (a maintainer starting the branch,
    // two of them empty to re-run CI), then the agent's.
    let repo = TestRepo::new();
    let mut h = Stream::new();
    let base = h.commit(
        "main",
        MAINTAINER,
        "Initial",
        &[Op::Write("src/app.py", "x = 1\n")],
    );
    h.branch("agent", base);
    h.commit(
        "agent",
        MAINTAINER,
        "Start the task",
        &[Op::Write("TASK.md", "do it\n")],
    );
    h.commit("agent", MAINTAINER, "ci: re-run", &[]);
    h.commit("agent", MAINTAINER, "ci: re-run", &[]);
    h.commit("agent", COPILOT, "Initial plan", &[]);
    let tip = h.commit(
        "agent",
        COPILOT,
        "Implement",
        &[Op::Write("src/app.py", "x = 2\n")],
    );
    let ids = h.import(&repo);
    let doc = check(&repo, &format!("{}..{}", ids[&base], ids[&tip]));
    assert_eq!(doc["state"], "closed", "{doc}");
    assert_eq!(
        doc["iterations"], 2,
        "only the agent's commits are attempts: {doc}"
    );
    assert_eq!(doc["counters"]["stagnation"]["count"], 0, "{doc}");
}

#[test]
fn a_persons_turn_starts_the_loop_counters_again_but_not_the_budget() {
    // The agent's two attempts fail the same way (cargo's own output), a person commits a
    // fix of theirs on the branch, the agent fails once more: three failures in a row,
    // but not in one episode.
    let repo = crate::support::guarded("agents: ['Agent <*>']\n");
    let attempt = |n: usize| {
        repo.write(
            "src/count.rs",
            format!("pub fn count() -> usize {{ {n} }}\n"),
        );
        repo.commit(&format!("Try {n}"));
        crate::support::run_log(&repo, "cargo/assert-count/plain.log", 101);
    };
    attempt(1);
    attempt(2);
    repo.author("Jane", "jane@example.com");
    repo.write("docs/notes.md", "look at the tokenizer\n");
    repo.commit("Hint for the agent");
    repo.as_agent();
    attempt(3);
    let s = crate::support::status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(s["counters"]["same_error"]["count"], 1, "{s}");
    assert_eq!(s["counters"]["budget"]["count"], 3, "{s}");
    let report = lg(&repo).args(["report", "--json"]).run().ok().json();
    let episode = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "episode")
        .expect("an episode event");
    assert!(
        episode["reason"]
            .as_str()
            .unwrap()
            .starts_with("Jane's commit"),
        "{episode}"
    );
    // `check` over the same commits judges the same.
    let doc = lg(&repo).args(["check", "--json"]).run().ok().json();
    assert_eq!(doc["counters"]["same_error"]["count"], 1, "{doc}");

    // A person's `resume` while nothing is stuck takes a turn too.
    attempt(4);
    lg(&repo)
        .args(["resume"])
        .run()
        .ok()
        .stdout_has("a new episode");
    attempt(5);
    let s = crate::support::status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(s["counters"]["same_error"]["count"], 1, "{s}");
    assert_eq!(s["counters"]["budget"]["count"], 5, "{s}");
}

const PARSER_TESTS: &str = "from app.parser import parse\n\n\ndef test_parses():\n    assert parse('1') == 1\n\n\ndef test_rejects():\n    assert parse('x') is None\n";
const LEGACY_TESTS: &str =
    "from app.legacy import old\n\n\ndef test_old_parse():\n    assert old('1') == 1\n";
const FLAKY_TESTS: &str = "import sys\n\n\ndef test_reads_pipe():\n    assert True\n\n\ndef test_reads_socket():\n    assert True\n\n\ndef test_reads_file():\n    assert True\n";

/// `check --json` over `range` with the config `config` (written beside the repository).
fn check_with(repo: &TestRepo, range: &str, config: &str) -> serde_json::Value {
    let path = repo.home().join("loopguard.yml");
    std::fs::write(&path, config).unwrap();
    let ran = lg(repo)
        .args(["check", "--range", range, "--json", "--config"])
        .arg(&path)
        .run();
    assert!(matches!(ran.code, Some(0 | 1)), "{}", ran.stderr);
    ran.json()
}

/// What `constraint` said over a check: its trips and warnings, by reason.
fn constraint_said(doc: &serde_json::Value) -> Vec<String> {
    doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule"] == "constraint")
        .map(|e| format!("{}: {}", e["kind"], e["reason"]))
        .collect()
}

/// A test taken away: its name, how, and what makes it doubtful.
type Taken = (String, String, String);

/// Each commit's `tests_taken` (those no new test took the place of), by commit message.
fn taken(doc: &serde_json::Value) -> Vec<(String, Vec<Taken>)> {
    doc["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| {
            let t = it["tests_taken"].as_array().cloned().unwrap_or_default();
            let t = t
                .iter()
                .filter(|t| t["replaced"] != true)
                .map(|t| {
                    let s = |k: &str| t[k].as_str().unwrap_or("").to_owned();
                    (s("name"), s("how"), s("doubt"))
                })
                .collect();
            (it["message"].as_str().unwrap_or("").to_owned(), t)
        })
        .collect()
}

#[test]
fn moved_tests_and_test_data_take_no_test_away_even_under_strict() {
    // A maintained Python project reorganising its tests: renamed below git's rename
    // threshold and rewritten, split in two, its empty `__init__.py` moved, fixtures and
    // snapshots dropped, a `test_utils` package (no tests) removed.
    let repo = TestRepo::new();
    let mut h = Stream::new();
    let rewritten = "import pytest\nfrom app.parsing import parse\n\n\nclass TestParser:\n    def test_parses(self):\n        assert parse('1') == 1\n\n    def test_rejects(self):\n        assert parse('x') is None\n";
    let base = h.commit(
        "main",
        MAINTAINER,
        "Initial",
        &[
            Op::Write("src/app/parser.py", "def parse(s):\n    return int(s)\n"),
            Op::Write("tests/test_parser.py", PARSER_TESTS),
            Op::Write("tests/unit/__init__.py", ""),
            Op::Write("tests/unit/test_misc.py", "def test_misc():\n    pass\n"),
            Op::Write("tests/fixtures/base_state.json", "{\"a\": 1}\n"),
            Op::Write("test/__snapshots__/app.test.ts.snap", "exports[`a`] = 1\n"),
            Op::Write("test/fixtures/sample.log", "FAILED x\n"),
            Op::Write("src/test_utils/helpers.py", "def make():\n    return 1\n"),
        ],
    );
    h.commit(
        "main",
        MAINTAINER,
        "Rewrite the parser tests as a class",
        &[
            Op::Delete("tests/test_parser.py"),
            Op::Write("tests/parsing/test_parsing.py", rewritten),
        ],
    );
    h.commit(
        "main",
        MAINTAINER,
        "Split the parsing tests",
        &[
            Op::Delete("tests/parsing/test_parsing.py"),
            Op::Write(
                "tests/parsing/test_ok.py",
                "def test_parses():\n    assert True\n",
            ),
            Op::Write(
                "tests/parsing/test_err.py",
                "def test_rejects():\n    assert True\n",
            ),
        ],
    );
    h.commit(
        "main",
        MAINTAINER,
        "Move unit to sdk",
        &[
            Op::Delete("tests/unit/__init__.py"),
            Op::Delete("tests/unit/test_misc.py"),
            Op::Write("tests/sdk/__init__.py", ""),
            Op::Write("tests/sdk/test_misc.py", "def test_misc():\n    pass\n"),
        ],
    );
    h.commit(
        "main",
        MAINTAINER,
        "Drop old fixtures and snapshots",
        &[
            Op::Delete("tests/fixtures/base_state.json"),
            Op::Delete("test/__snapshots__/app.test.ts.snap"),
            Op::Delete("test/fixtures/sample.log"),
        ],
    );
    let tip = h.commit(
        "main",
        MAINTAINER,
        "Remove test utils",
        &[Op::Delete("src/test_utils/helpers.py")],
    );
    let ids = h.import(&repo);
    let config = "profile: strict\nrules:\n  test_only: {action: off}\n";
    let doc = check_with(&repo, &format!("{}..{}", ids[&base], ids[&tip]), config);
    assert_eq!(constraint_said(&doc), Vec::<String>::new(), "{doc}");
    for (message, taken) in taken(&doc) {
        assert_eq!(taken, [], "{message}");
    }
}

#[test]
fn a_test_taken_away_with_no_evidence_is_judged_by_how() {
    // With no test run in the history: a test deleted with the code it tests, a skip on a
    // platform and a quarantine that names its issue are notes, in every profile; an
    // unconditional skip warns, and trips under strict.
    let repo = TestRepo::new();
    let mut h = Stream::new();
    let base = h.commit(
        "main",
        MAINTAINER,
        "Initial",
        &[
            Op::Write("src/app/legacy.py", "def old(s):\n    return int(s)\n"),
            Op::Write("tests/test_legacy.py", LEGACY_TESTS),
            Op::Write("tests/test_io.py", FLAKY_TESTS),
        ],
    );
    h.commit(
        "main",
        CONTRIBUTOR,
        "Remove the legacy parser",
        &[
            Op::Delete("src/app/legacy.py"),
            Op::Delete("tests/test_legacy.py"),
        ],
    );
    let flaky = FLAKY_TESTS
        .replace(
            "def test_reads_pipe",
            "@pytest.mark.skipif(sys.platform == 'win32', reason='no pipes')\ndef test_reads_pipe",
        )
        .replace(
            "def test_reads_socket",
            "@pytest.mark.skip(reason='flaky: https://github.com/o/r/issues/12')\ndef test_reads_socket",
        );
    let harmless = h.commit(
        "main",
        CONTRIBUTOR,
        "Quarantine the flaky socket test",
        &[Op::Write("tests/test_io.py", &flaky)],
    );
    let skipped = flaky.replace(
        "def test_reads_file",
        "@pytest.mark.xfail\ndef test_reads_file",
    );
    let tip = h.commit(
        "main",
        CONTRIBUTOR,
        "Mark the file test",
        &[Op::Write("tests/test_io.py", &skipped)],
    );
    let ids = h.import(&repo);
    let harmless_range = format!("{}..{}", ids[&base], ids[&harmless]);
    let strict = "profile: strict\n";
    let doc = check_with(&repo, &harmless_range, strict);
    assert_eq!(constraint_said(&doc), Vec::<String>::new(), "{doc}");
    let doubts: Vec<Taken> = taken(&doc).into_iter().flat_map(|(_, t)| t).collect();
    let want = [
        ("test_old_parse", "deleted", "with_code"),
        ("test_reads_pipe", "skipped", "conditional"),
        ("test_reads_socket", "skipped", "quarantined"),
    ];
    let want: Vec<Taken> = want
        .iter()
        .map(|(a, b, c)| ((*a).into(), (*b).into(), (*c).into()))
        .collect();
    assert_eq!(doubts, want);
    let notes = doc["notes"].to_string();
    assert!(notes.contains("may be fine"), "{notes}");

    let range = format!("{}..{}", ids[&base], ids[&tip]);
    let said = constraint_said(&check_with(&repo, &range, strict));
    assert!(
        said.len() == 1
            && said[0].starts_with("\"trip\"")
            && said[0].contains("marked as expected to fail the test test_reads_file"),
        "{said:?}"
    );
    let said = constraint_said(&check_with(&repo, &range, ""));
    assert!(
        said.len() == 1 && said[0].starts_with("\"warn\""),
        "{said:?}"
    );
}

const WORDCOUNT_TESTS: &str = "from wordcount import count_words\n\n\ndef test_counts_three_words():\n    assert count_words('one two three') == 3\n\n\ndef test_first_word():\n    assert count_words('one') == 1\n";

#[test]
fn taking_away_the_failing_test_trips_in_every_profile_whatever_the_form() {
    // pytest's own output names tests/test_wordcount.py::test_counts_three_words failing;
    // the agent's next commit takes that test away, each time another way.
    const FAILING: &str = "def test_counts_three_words():";
    type TakeAway = Box<dyn Fn(&TestRepo)>;
    let forms: [(&str, TakeAway, &str); 6] = [
        (
            "skipif(True)",
            Box::new(|r| {
                let t = WORDCOUNT_TESTS.replace(
                    FAILING,
                    &format!("@pytest.mark.skipif(True, reason='later')\n{FAILING}"),
                );
                r.write("tests/test_wordcount.py", format!("import pytest\n{t}"));
            }),
            "skipped the failing test test_counts_three_words",
        ),
        (
            "xfail",
            Box::new(|r| {
                let t = WORDCOUNT_TESTS.replace(FAILING, &format!("@pytest.mark.xfail\n{FAILING}"));
                r.write("tests/test_wordcount.py", format!("import pytest\n{t}"));
            }),
            "marked as expected to fail the failing test test_counts_three_words",
        ),
        (
            "an early return",
            Box::new(|r| {
                let t = WORDCOUNT_TESTS.replace(FAILING, &format!("{FAILING}\n    return"));
                r.write("tests/test_wordcount.py", t);
            }),
            "made return early the failing test test_counts_three_words",
        ),
        (
            "renamed out of discovery",
            Box::new(|r| {
                let t = WORDCOUNT_TESTS.replace(FAILING, "def _test_counts_three_words():");
                r.write("tests/test_wordcount.py", t);
            }),
            "renamed out of discovery the failing test test_counts_three_words",
        ),
        (
            "the file emptied",
            Box::new(|r| {
                r.write(
                    "tests/test_wordcount.py",
                    "from wordcount import count_words\n",
                );
            }),
            "emptied out the failing test test_counts_three_words",
        ),
        (
            "moved out of the test paths",
            Box::new(|r| {
                r.rename("tests/test_wordcount.py", "attic/wordcount_checks.py");
            }),
            "moved out of the test paths the failing test test_counts_three_words",
        ),
    ];
    for profile in ["yolo", "balanced", "strict"] {
        for (what, take, said) in &forms {
            if profile != "yolo" && *what != "xfail" {
                continue; // every form under the most lenient profile, one under each
            }
            let repo = crate::support::guarded(&format!("profile: {profile}\n"));
            repo.write(
                "wordcount.py",
                "def count_words(s):\n    return len(s.split(' ')) + 1\n",
            );
            repo.write("tests/test_wordcount.py", WORDCOUNT_TESTS);
            repo.commit("Count words");
            crate::support::run_log(&repo, "pytest/assert-count/plain.log", 1);
            take(&repo);
            repo.commit("Get the tests green");
            let s = crate::support::status(&repo);
            assert_eq!(s["rule"], "constraint", "{what} under {profile}: {s}");
            let reason = s["reason"].as_str().unwrap();
            assert!(reason.contains(said), "{what} under {profile}: {reason}");
        }
    }
}

#[test]
fn an_empty_replay_record_is_an_empty_change_not_a_return() {
    // The re-trigger loop of software-agent-sdk PR 4513 as a converter writes it from
    // commit metadata: no `parent_tree`, `files: []` for the empty commits to re-run CI,
    // each tree that of the commit before.
    let shape: [(&str, &[&str]); 12] = [
        ("A", &["tests/agent_server/test_lifecycle.py"]),
        ("B", &["openhands/agent_server/conversation_service.py"]),
        ("B", &[]),
        ("B", &[]),
        ("B", &[]),
        ("B", &[]),
        ("B", &[]),
        ("C", &["repro.py"]),
        ("B", &["repro.py"]),
        ("B", &[]),
        (
            "D",
            &[
                "openhands/agent_server/conversation_service.py",
                "tests/a.py",
            ],
        ),
        ("E", &["openhands/agent_server/conversation_service.py"]),
    ];
    let mut records = String::new();
    let mut parent = "0000000000000000000000000000000000000000".to_owned();
    for (n, (tree, files)) in shape.iter().enumerate() {
        let id = format!("{:02x}{}", n + 1, "c".repeat(38));
        let files: Vec<serde_json::Value> = files
            .iter()
            .map(|p| serde_json::json!({"path": p, "added": 3, "deleted": 1}))
            .collect();
        let message = if files.is_empty() {
            "ci: re-trigger"
        } else {
            "fix"
        };
        let record = serde_json::json!({
            "id": id,
            "author": "openhands <openhands@all-hands.dev>",
            "tree": tree.to_lowercase().repeat(40),
            "parents": [parent],
            "message": message,
            "at": format!("2026-01-01T00:{n:02}:00Z"),
            "files": files,
        });
        records.push_str(&record.to_string());
        records.push('\n');
        parent = id;
    }
    let repo = TestRepo::new();
    let doc = lg(&repo)
        .args(["replay", "--json", "-"])
        .stdin(records)
        .run()
        .json();
    let trips: Vec<String> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "trip")
        .map(|e| format!("{}: {}", e["rule"], e["reason"]))
        .collect();
    // Still a loop (the known loop trips), but for what happened: commits that change
    // nothing, not a return to an earlier state.
    assert!(
        trips
            .first()
            .is_some_and(|t| t.starts_with("\"stagnation\"")),
        "{trips:?}"
    );
    assert!(
        trips
            .iter()
            .all(|t| !t.contains("returned to") && !t.contains("back to")),
        "{trips:?}"
    );
}
