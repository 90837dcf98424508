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
