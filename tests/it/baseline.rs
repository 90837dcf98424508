//! A run's baseline is what existed when `init` (or `reset`) started it: the commits
//! before it are history, never the agent's attempts (issue 27). Each journey runs the real
//! binary on a repository with history, with the hooks on, and reads every line a person
//! reads.

use crate::support::{TestRepo, lg, status};

/// A repository of `n` commits by its maintainer, each adding a module: history an agent
/// did not write.
fn with_history(n: usize) -> TestRepo {
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    for i in 0..n {
        repo.write(&format!("src/m{i}.rs"), format!("pub fn m{i}() {{}}\n"));
        repo.commit(&format!("Add module {i}"));
    }
    repo
}

/// The lines of `text`, each with the run id (`20…-main`, time-based) written `RUN`.
fn lines(text: &str, run: &str) -> Vec<String> {
    text.lines().map(|l| l.replace(run, "RUN")).collect()
}

/// `init` on a repository with history: the run id it started, and what it said.
fn init(repo: &TestRepo) -> String {
    let ran = lg(repo).arg("init").run().ok();
    let run = status(repo)["run"].as_str().expect("a run").to_owned();
    assert_eq!(
        lines(&ran.stdout, &run),
        ["loopguard is guarding main (run RUN, profile balanced)"],
        "{}",
        ran.stderr
    );
    run
}

/// The attempts the run counts, and its breaker.
fn counted(repo: &TestRepo) -> (u64, String) {
    let s = status(repo);
    let budget = &s["counters"]["budget"]["count"];
    (
        budget.as_u64().unwrap_or_else(|| panic!("{s}")),
        s["state"].as_str().expect("a state").to_owned(),
    )
}

#[test]
fn a_test_run_right_after_init_counts_no_history() {
    let repo = with_history(5);
    let run = init(&repo);
    repo.as_agent();

    // The maintainer checks that the tests pass before the agent starts.
    let ran = lg(&repo).args(["run", "--", "true"]).run().ok();
    assert_eq!(lines(&ran.stdout, &run), Vec::<String>::new());
    assert_eq!(lines(&ran.stderr, &run), Vec::<String>::new());
    assert_eq!(counted(&repo), (0, "closed".to_owned()));

    // The agent's first commit is its first attempt, and nothing refuses it.
    repo.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    repo.git(&["add", "-A"]);
    let commit = repo.try_commit_staged("Answer 42");
    assert!(commit.status.success(), "{commit:?}");
    assert_eq!(String::from_utf8_lossy(&commit.stderr), "");
    assert_eq!(counted(&repo), (1, "closed".to_owned()));
}

#[test]
fn ingest_right_after_init_counts_no_history() {
    let repo = with_history(5);
    let run = init(&repo);
    let log = repo.path().join("pass.log");
    std::fs::write(&log, "test result: ok. 3 passed; 0 failed; 0 ignored\n").unwrap();
    let ran = lg(&repo).args(["ingest", "pass.log"]).run().ok();
    let head = repo.head();
    assert_eq!(
        lines(&ran.stdout, &run),
        [format!("recorded on {}: pass", &head[..7])]
    );
    assert_eq!(lines(&ran.stderr, &run), Vec::<String>::new());
    assert_eq!(counted(&repo), (0, "closed".to_owned()));
}

#[test]
fn going_back_past_the_start_counts_only_what_follows() {
    // The agent throws away the two newest commits of the history it was given and starts
    // again from there, with the hooks off: only its own commit is an attempt (recorded
    // with the test run), and the history is not said to be replaced.
    let repo = with_history(5);
    let run = init(&repo);
    repo.as_agent();
    repo.reset_hard("HEAD~2");
    repo.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    repo.commit_hooks_off("Answer 42 from an older base");
    let ran = lg(&repo).args(["run", "--", "true"]).run().ok();
    assert_eq!(lines(&ran.stdout, &run), Vec::<String>::new());
    assert_eq!(lines(&ran.stderr, &run), Vec::<String>::new());
    assert_eq!(counted(&repo), (1, "closed".to_owned()));
}

#[test]
fn reset_makes_the_history_up_to_it_the_baseline() {
    let repo = with_history(3);
    let run = init(&repo);
    repo.as_agent();
    for i in 0..3 {
        repo.write("src/lib.rs", format!("pub fn step() -> u32 {{ {i} }}\n"));
        repo.commit(&format!("Step {i}"));
    }
    assert_eq!(counted(&repo), (3, "closed".to_owned()));
    let reset = lg(&repo).arg("reset").run().ok();
    let new_run = status(&repo)["run"].as_str().unwrap().to_owned();
    assert_ne!(new_run, run);
    assert_eq!(
        lines(&reset.stdout, &new_run),
        ["breaker closed: new run RUN"]
    );
    let reports = repo.path().join(".git/loopguard/reports");
    assert_eq!(
        lines(&reset.stderr, &run),
        [format!(
            "the run RUN ended; its report is in {}",
            reports.display()
        )]
    );
    let ran = lg(&repo).args(["run", "--", "true"]).run().ok();
    assert_eq!(lines(&ran.stderr, &new_run), Vec::<String>::new());
    assert_eq!(counted(&repo), (0, "closed".to_owned()));
}
