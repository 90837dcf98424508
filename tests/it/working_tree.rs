//! The working-tree iteration is what `git stash` would save (issue 27): the index and the
//! tracked files' changes, never an untracked file. A scratch file the agent rewrites
//! between test runs is not its attempt: re-running the same code is a re-run, and after a
//! resume, committing the very code that failed is no progress. Real git running the hooks
//! `init` installed, real runner logs, the real binary.

use crate::support::{TestRepo, guarded, lg, run_log, status};

const SAME: &str = "cargo/assert-count/plain.log";

/// The ids of the run's history, oldest first.
fn history(repo: &TestRepo) -> Vec<String> {
    let doc = lg(repo).args(["report", "--json"]).run().ok().json();
    doc["history"]
        .as_array()
        .expect("a history")
        .iter()
        .map(|i| i["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// The count of `rule` now.
fn count(repo: &TestRepo, rule: &str) -> u64 {
    let s = status(repo);
    s["counters"][rule]["count"]
        .as_u64()
        .unwrap_or_else(|| panic!("{s}"))
}

/// The agent's uncommitted change to the code, tested three times, failing the same way,
/// with its notes rewritten before each run (an untracked file).
fn three_runs_with_notes(repo: &TestRepo) -> Vec<crate::support::Ran> {
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    (0..3)
        .map(|i| {
            repo.write("notes.txt", format!("attempt {i}: still failing\n"));
            run_log(repo, SAME, 101)
        })
        .collect()
}

#[test]
fn an_untracked_scratch_file_is_not_the_agents_attempt() {
    let repo = guarded("");
    let runs = three_runs_with_notes(&repo);
    let ids = history(&repo);
    // One attempt, then two re-runs of the same code: the notes changed nothing.
    let [first, second, third] = &ids[..] else {
        panic!("{ids:?}")
    };
    assert!(first.starts_with("worktree-"), "{ids:?}");
    assert_eq!(second, &format!("{first}+run2"));
    assert_eq!(third, &format!("{first}+run3"));
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    let files: Vec<&str> = doc["history"][0]["files"]
        .as_array()
        .expect("the change's files")
        .iter()
        .map(|f| f["path"].as_str().expect("a path"))
        .collect();
    assert_eq!(files, ["src/lib.rs"], "{doc}");
    // Re-running the same failure without a code change stagnates.
    assert_eq!(runs[1].code, Some(101), "{}", runs[1].stderr);
    assert_eq!(count(&repo, "stagnation"), 2);
    assert_eq!(runs[2].code, Some(86), "{}", runs[2].stderr);
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");

    // `git stash` saves what the staged index holds: a new file added is part of the tree.
    let repo = guarded("");
    repo.write("src/new.rs", "pub fn new() {}\n");
    repo.git(&["add", "src/new.rs"]);
    repo.write("scratch.log", "not staged\n");
    run_log(&repo, SAME, 101).code(101);
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    let files: Vec<&str> = doc["history"][0]["files"]
        .as_array()
        .expect("the change's files")
        .iter()
        .map(|f| f["path"].as_str().expect("a path"))
        .collect();
    assert_eq!(files, ["src/new.rs"], "{doc}");
}

#[test]
fn after_a_resume_committing_the_code_that_failed_is_no_progress() {
    let repo = guarded("");
    three_runs_with_notes(&repo);
    assert_eq!(status(&repo)["state"], "open");
    lg(&repo).arg("resume").run().ok();
    assert_eq!(status(&repo)["state"], "half_open");

    // The agent commits exactly the code whose tests failed (its notes stay untracked):
    // the attempt that was tested, now a commit, not a new one; the breaker stays
    // half-open for the next attempt to decide.
    repo.git(&["add", "src/lib.rs"]);
    let out = repo.try_commit_staged("Answer 42");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let commit = repo.head();
    let ids = history(&repo);
    assert_eq!(ids.last(), Some(&commit), "{ids:?}");
    assert_eq!(ids.len(), 3, "the third run became the commit: {ids:?}");
    let s = status(&repo);
    assert_eq!(s["state"], "half_open", "{s}");
    assert_eq!(s["counters"]["budget"]["count"], 3, "{s}");

    // New code whose tests pass is what closes it.
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    43\n}\n");
    repo.git(&["add", "src/lib.rs"]);
    let out = repo.try_commit_staged("Answer 43");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(status(&repo)["state"], "half_open");
    let out = run_log(&repo, "cargo/passing/plain.log", 0).code(0);
    let commit = repo.head();
    assert_eq!(
        out.stderr.lines().last(),
        Some(
            format!(
                "loopguard: the breaker is closed again: the tests pass at {}, after the resume",
                &commit[..7]
            )
            .as_str()
        ),
        "{}",
        out.stderr
    );
    assert_eq!(status(&repo)["state"], "closed");
}
