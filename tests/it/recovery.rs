//! No way out without a new attempt or a person (issue 16, item 8). What closes an open
//! breaker is the tripping rule's own (its descriptor's `Recovery`), judged only on
//! attempts that came after the trip: a test result recorded on the commit that tripped is
//! evidence about that commit, never a way out. The refusal names exactly the ways out
//! that exist for the rule. Real repositories, real `git` running the hooks `loopguard
//! init` installs, real runner logs, the real binary.

use crate::support::{TestRepo, fixture, guarded, lg, run_log, state, status};

const SAME: &str = "cargo/assert-count/plain.log";
const SAME_SHIFTED: &str = "cargo/assert-count/shifted.log";
const OTHER: &str = "cargo/two-failures/plain.log";
const PASS: &str = "cargo/passing/plain.log";

fn lib(body: &str) -> String {
    format!("pub fn count_words(s: &str) -> usize {{\n    {body}\n}}\n")
}

/// Three empty commits: `stagnation` trips on the third.
fn stagnated() -> TestRepo {
    let repo = guarded("");
    for i in 0..3 {
        repo.commit_empty(&format!("Try again {i}"));
    }
    let s = status(&repo);
    assert_eq!(
        (s["state"].as_str(), s["rule"].as_str()),
        (Some("open"), Some("stagnation")),
        "{s}"
    );
    repo
}

/// Three commits that change the code, each failing the same way: `same_error` trips on
/// the third test run.
fn same_error() -> TestRepo {
    let repo = guarded("");
    for (i, (body, log)) in [
        ("s.len()", SAME),
        ("s.len() + 0", SAME_SHIFTED),
        ("s.len() + 1 - 1", SAME),
    ]
    .into_iter()
    .enumerate()
    {
        repo.write("src/lib.rs", lib(body));
        repo.commit(&format!("Count words, take {i}"));
        run_log(&repo, log, 101);
    }
    let s = status(&repo);
    assert_eq!(
        (s["state"].as_str(), s["rule"].as_str()),
        (Some("open"), Some("same_error")),
        "{s}"
    );
    repo
}

fn ways_out(repo: &TestRepo) -> Vec<String> {
    status(repo)["ways_out"]
        .as_array()
        .expect("ways_out is a list")
        .iter()
        .map(|w| w.as_str().expect("a way out's name").to_owned())
        .collect()
}

#[test]
fn a_test_run_with_no_code_change_never_ends_a_stagnation_trip() {
    let repo = stagnated();
    // The new user's `loopguard run -- python3 -m pytest -q`: a passing run, then one that
    // fails differently, both on the code that tripped.
    lg(&repo).args(["run", "--", "true"]).run().code(86);
    assert_eq!(state(&repo), "open");
    run_log(&repo, OTHER, 101).code(86);
    assert_eq!(state(&repo), "open");
    // A made-up pass recorded on the commit that tripped.
    lg(&repo)
        .args(["ingest", "--exit-code", "0"])
        .arg(fixture(PASS))
        .run()
        .ok();
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["rule"], "stagnation", "{s}");
    // A loop in the code ends with a new commit, which the breaker refuses under `pause`:
    // only a person is left.
    assert_eq!(ways_out(&repo), ["resume", "reset"]);
}

#[test]
fn the_refusal_names_exactly_the_ways_out_of_its_rule() {
    let repo = stagnated();
    repo.write("src/lib.rs", lib("s.split_whitespace().count()"));
    let out = repo.try_commit_staged("Fix it");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "the commit is refused:\n{stderr}");
    assert!(stderr.contains("`loopguard resume`"), "{stderr}");
    assert!(stderr.contains("`loopguard reset`"), "{stderr}");
    assert!(
        !stderr.contains("loopguard run"),
        "no test run ends a stagnation trip, so the refusal offers none:\n{stderr}"
    );

    let repo = same_error();
    repo.write("src/lib.rs", lib("s.split_whitespace().count()"));
    let out = repo.try_commit_staged("Fix it");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "the commit is refused:\n{stderr}");
    assert!(
        stderr.contains("`loopguard run -- <test command>`"),
        "{stderr}"
    );
    assert!(stderr.contains("`loopguard resume`"), "{stderr}");
    assert_eq!(ways_out(&repo), ["tests_change", "resume", "reset"]);
}

#[test]
fn evidence_recorded_on_the_commit_that_tripped_same_error_is_no_way_out() {
    let repo = same_error();
    // The same code again: a re-run that passes, and one that fails differently.
    lg(&repo).args(["run", "--", "true"]).run().code(86);
    assert_eq!(state(&repo), "open");
    run_log(&repo, OTHER, 101).code(86);
    assert_eq!(state(&repo), "open");
    // A made-up pass for the commit that tripped.
    lg(&repo)
        .args(["ingest", "--exit-code", "0"])
        .arg(fixture(PASS))
        .run()
        .ok();
    assert_eq!(state(&repo), "open");
}

#[test]
fn new_code_whose_tests_pass_ends_a_same_error_trip() {
    let repo = same_error();
    // The commit is refused while the breaker blocks; the working tree is tested.
    repo.write("src/lib.rs", lib("s.split_whitespace().count()"));
    run_log(&repo, PASS, 0)
        .code(0)
        .stderr_has("the breaker is closed again: recovered: the tests pass");
    assert_eq!(state(&repo), "closed");
    repo.commit("Count words by whitespace");
    assert_eq!(state(&repo), "closed");
}

#[test]
fn new_code_that_fails_differently_ends_a_same_error_trip() {
    let repo = same_error();
    repo.write("src/lib.rs", lib("s.split(' ').count()"));
    run_log(&repo, OTHER, 101)
        .code(101)
        .stderr_has("recovered: the failure changed");
    assert_eq!(state(&repo), "closed");
}

#[test]
fn under_alert_only_a_commit_that_really_changes_the_code_ends_a_stagnation_trip() {
    let repo = guarded("on_trip: {action: alert}\n");
    for i in 0..3 {
        repo.commit_empty(&format!("Try again {i}"));
    }
    assert_eq!(state(&repo), "open");
    assert_eq!(ways_out(&repo), ["new_commit", "resume", "reset"]);
    // Only whitespace is no change of the code.
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n        41\n}\n");
    repo.commit("Reformat");
    assert_eq!(state(&repo), "open");
    // Uncommitted changes with passing tests are no commit.
    repo.write("src/lib.rs", lib("s.split_whitespace().count()"));
    run_log(&repo, PASS, 0).ok();
    assert_eq!(state(&repo), "open");
    // Committed as tested, they are.
    repo.commit("Count words");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(
        s["iterations"], 5,
        "the tested tree and its commit are one attempt: {s}"
    );
}
