//! A session's test runs are evidence for its branch (issue 27): the commit after a coding
//! agent's session ran the tests is judged with that run, as a commit after `loopguard
//! run` is. A test the session saw failing, deleted right after where the session's hooks
//! do not look and committed, is a failing test taken away: `constraint` trips on the
//! commit. The real binary through the hooks `init`
//! installed (git's and Claude Code's), the agent's calls as Claude Code sends them.

use serde_json::json;

use crate::session::{Agent, FAIL, PASS, project};
use crate::support::{lg, status};

#[test]
fn a_test_deleted_right_after_the_session_saw_it_fail_trips_constraint_on_the_commit() {
    let repo = project("claude");
    let agent = Agent::new(&repo, "claude", "s1");
    agent.pytest("pytest -q", FAIL);
    // Deleted where the session's hooks do not look (a shell of its own, a script).
    repo.remove("tests/test_wc.py");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Remove the flaky test");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}\n{stderr}");
    assert_eq!(s["rule"], "constraint", "{s}");
    assert!(
        s["reason"]
            .as_str()
            .is_some_and(|r| r.contains("test_count") && r.contains("failing")),
        "{s}"
    );
    assert!(
        stderr.contains("the breaker opened (constraint)"),
        "{stderr}"
    );
    // The next commit is refused.
    repo.write("src/wc.py", "def count(s):\n    return len(s.split())\n");
    repo.git(&["add", "-A"]);
    let refused = repo.try_commit_staged("Fix the count");
    assert!(!refused.status.success(), "{refused:?}");
}

#[test]
fn a_session_run_is_the_evidence_of_one_commit_only() {
    // The session's passing run came before the last commit: the commit after that has
    // no evidence of it, and a deletion there is judged without it (a warning).
    let repo = project("claude");
    let agent = Agent::new(&repo, "claude", "s1");
    agent.pytest("pytest -q", FAIL);
    repo.write("src/wc.py", "def count(s):\n    return len(s.split())\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Count words");
    assert!(out.status.success(), "{out:?}");
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    let last = doc["history"].as_array().and_then(|h| h.last()).cloned();
    assert_eq!(
        last.as_ref()
            .map(|l| l["superseded_tests"][0]["outcome"].clone()),
        Some(json!("fail")),
        "{doc}"
    );
    agent.pytest("pytest -q", PASS);
    repo.write("README.md", "wc\n");
    repo.git(&["add", "-A"]);
    repo.try_commit_staged("Docs");
    repo.write("NOTES.md", "notes\n");
    repo.git(&["add", "-A"]);
    repo.try_commit_staged("Notes");
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    let history = doc["history"].as_array().expect("a history");
    let runs: Vec<usize> = history
        .iter()
        .map(|i| i["superseded_tests"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(&runs[runs.len() - 3..], [1, 1, 0], "{doc}");
}
