//! `check` and the hooks over real histories: the workflows they protect, and what they
//! only note.

use crate::support::{TestRepo, lg, status};

const GUARD: &str = "on: pull_request\njobs:\n  guard:\n    runs-on: ubuntu-latest\n    steps:\n      - run: loopguard ci --log test.log\n";
const TESTS: &str = "on: pull_request\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo test\n";

/// `main` with a workflow that runs loopguard and one that only tests, and an agent
/// branch.
fn repo_with_workflows() -> TestRepo {
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    repo.write(".github/workflows/guard.yml", GUARD)
        .write(".github/workflows/test.yml", TESTS)
        .write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("Initial commit");
    repo.checkout_new("agent");
    repo.as_agent();
    repo
}

#[test]
fn check_protects_the_workflows_that_ran_loopguard_before_the_range() {
    let repo = repo_with_workflows();
    repo.write("src/lib.rs", "pub fn a() -> u8 { 1 }\n");
    repo.commit("Return one");
    // The agent takes loopguard out of the guard workflow: what counts is the workflow
    // as it was before the range.
    repo.write(
        ".github/workflows/guard.yml",
        "on: pull_request\njobs: {}\n",
    );
    repo.commit("Simplify CI");
    let doc = lg(&repo)
        .args(["check", "--range", "main..agent", "--json"])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["rule"], "constraint", "{doc}");
    assert!(
        doc["reason"]
            .as_str()
            .unwrap()
            .contains("touched the protected path .github/workflows/guard.yml"),
        "{doc}"
    );
}

#[test]
fn check_notes_other_ci_changes_without_tripping() {
    let repo = repo_with_workflows();
    repo.write(".github/workflows/test.yml", "on: push\njobs: {}\n");
    repo.commit("Run the tests on push");
    let doc = lg(&repo)
        .args(["check", "--range", "main..agent", "--json"])
        .run()
        .ok()
        .json();
    assert_eq!(doc["state"], "closed", "{doc}");
    let notes = doc["notes"].to_string();
    assert!(notes.contains(".github/workflows/test.yml"), "{doc}");

    // A team that wants all of CI protected says so.
    repo.write(
        "strict.yml",
        "rules:\n  constraint:\n    protected: [\".loopguard.yml\", \".github/workflows/**\"]\n",
    );
    let doc = lg(&repo)
        .args([
            "check",
            "--range",
            "main..agent",
            "--config",
            "strict.yml",
            "--json",
        ])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["rule"], "constraint", "{doc}");
}

#[test]
fn guard_workflows_off_protects_only_the_globs() {
    let repo = repo_with_workflows();
    repo.write(
        ".github/workflows/guard.yml",
        "on: pull_request\njobs: {}\n",
    );
    repo.commit("Simplify CI");
    repo.write(
        "loose.yml",
        "rules:\n  constraint: {guard_workflows: false}\n",
    );
    let doc = lg(&repo)
        .args([
            "check",
            "--range",
            "main..agent",
            "--config",
            "loose.yml",
            "--json",
        ])
        .run()
        .ok()
        .json();
    assert_eq!(doc["state"], "closed", "{doc}");
}

#[test]
fn the_hooks_protect_the_workflows_that_ran_loopguard_where_the_config_came_from() {
    let repo = repo_with_workflows();
    lg(&repo).arg("init").run().ok();
    // Another workflow changes: noted, not a trip.
    repo.write(".github/workflows/test.yml", "on: push\njobs: {}\n");
    repo.commit("Run the tests on push");
    assert_eq!(status(&repo)["state"], "closed");
    // The agent takes loopguard out of the guard workflow: the workflow as it was at the
    // commit the run's config came from counts, not the edited one.
    repo.write(
        ".github/workflows/guard.yml",
        "on: pull_request\njobs: {}\n",
    );
    repo.commit("Simplify CI");
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["rule"], "constraint", "{s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains(".github/workflows/guard.yml"),
        "{s}"
    );
}

#[test]
fn a_shallow_clone_says_the_workflows_before_the_range_are_not_known() {
    let repo = repo_with_workflows();
    repo.write(
        ".github/workflows/guard.yml",
        "on: pull_request\njobs: {}\n",
    );
    repo.commit("Simplify CI");
    let shallow = TestRepo::clone_from(&repo, &["--depth", "1", "--branch", "agent"]);
    let ran = lg(&shallow).args(["check", "--json"]).run();
    assert!(
        ran.stderr.contains("is not in this clone")
            && ran
                .stderr
                .contains("only rules.constraint.protected is protected"),
        "{}",
        ran.stderr
    );
}
