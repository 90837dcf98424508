//! What guards the repository, changed outside any agent's session, is pinned to the
//! commit that arrives after it (issue 25, item 1): git's post-commit hook, which the shim
//! always starts, reads the guard surface against the last reading (a session's hook or
//! git's, else what `init` left); a change loopguard did not make is put back where it can
//! be and is a `constraint` trip of the branch's run on that commit, naming the file and
//! what was put back. The next commit is refused until a person resumes. Real repositories,
//! real `git`, the real binary.

use std::path::Path;
use std::process::Output;

use crate::support::{TestRepo, guarded, lg, state, status};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Commits a new file and hands back git's output: the commit goes through (post-commit
/// refuses nothing), and says the trip.
fn commit_after(repo: &TestRepo, name: &str) -> String {
    repo.write(&format!("src/{name}.rs"), "pub fn f() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged(&format!("Add {name}"));
    assert!(out.status.success(), "{}", stderr(&out));
    stderr(&out)
}

/// After the commit: the run tripped on `constraint` with a reason naming `names` (the
/// file, the key) and what was done; the next commit refused; a person's resume lets it
/// through, and nothing is said again.
fn tripped(repo: &TestRepo, said: &str, names: &[&str], done: &str) {
    let doc = status(repo);
    assert_eq!(state(repo), "open", "{doc:#}");
    assert_eq!(doc["rule"], "constraint", "{doc:#}");
    let reason = doc["reason"].as_str().unwrap_or_default().to_owned();
    assert!(
        reason.starts_with("before the commit ")
            && reason.contains("what guards this repository was changed (not by loopguard)"),
        "{reason}"
    );
    for name in names.iter().chain([&done]) {
        assert!(reason.contains(name), "{name} not in: {reason}");
    }
    assert!(said.contains("constraint"), "{said}");
    repo.write("src/next.rs", "pub fn g() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Next");
    assert!(
        !out.status.success(),
        "refused while open: {}",
        stderr(&out)
    );
    lg(repo).arg("resume").run().ok();
    let out = repo.try_commit_staged("Next");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("not by loopguard"),
        "{}",
        stderr(&out)
    );
}

/// A hook replaced by one that lets everything through (`pre-push`: the next push would
/// pass no gate): put back from loopguard's copy, the agent's version kept aside.
#[test]
fn a_replaced_hook_is_put_back_and_pinned_to_the_next_commit() {
    let repo = guarded("");
    let hook = repo.path().join(".git/hooks/pre-push");
    let shim = std::fs::read_to_string(&hook).unwrap();
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    let said = commit_after(&repo, "one");
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), shim, "put back");
    tripped(
        &repo,
        &said,
        &["the pre-push hook in", "its content changed"],
        "put back; the agent's version kept at",
    );
}

/// `core.hooksPath` set in a linked worktree's own config (`extensions.worktreeConfig`):
/// that worktree's commits pass no hook, the main worktree's next commit is pinned with it
/// and both keys are set back.
#[test]
fn a_worktrees_own_hooks_path_is_set_back_at_the_next_commit() {
    let repo = guarded("");
    repo.git(&["config", "extensions.worktreeConfig", "true"]);
    let wt = repo.add_worktree("second", "second");
    let out = repo
        .command("git")
        .args(["config", "--worktree", "core.hooksPath", "/dev/null"])
        .current_dir(&wt)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let said = commit_after(&repo, "one");
    tripped(
        &repo,
        &said,
        &["extensions.worktreeconfig unset → true"],
        "set back",
    );
    assert_eq!(
        repo.try_git(&["config", "--get", "extensions.worktreeConfig"])
            .status
            .code(),
        Some(1),
        "set back"
    );
    let own = std::fs::read_to_string(repo.path().join(".git/worktrees/second/config.worktree"))
        .unwrap_or_default();
    assert!(!own.to_ascii_lowercase().contains("hookspath"), "{own}");
}

/// An `include.path` added to the local config (what it includes could set
/// `core.hooksPath`), and a global one: each set back, the file as it was kept aside.
#[test]
fn an_include_in_any_scope_is_set_back_at_the_next_commit() {
    for scope in ["--local", "--global"] {
        let repo = guarded("");
        let inc = repo.home().join("extra.inc");
        std::fs::write(&inc, "[user]\n\tname = Someone\n").unwrap();
        repo.git(&["config", scope, "include.path", &inc.display().to_string()]);
        let said = commit_after(&repo, "one");
        tripped(
            &repo,
            &said,
            &[&format!("include.path unset → {}", inc.display())],
            "set back",
        );
        assert_eq!(
            repo.try_git(&["config", scope, "--get", "include.path"])
                .status
                .code(),
            Some(1),
            "{scope}: set back"
        );
    }
}

/// loopguard's own state: the accepted config new runs are pinned to, rewritten.
#[test]
fn the_accepted_config_rewritten_is_put_back_at_the_next_commit() {
    let repo = guarded("");
    let accepted = repo.path().join(".git/loopguard/accepted-config.json");
    let before = std::fs::read(&accepted).unwrap();
    std::fs::write(&accepted, b"{}").unwrap();
    let said = commit_after(&repo, "one");
    assert_eq!(std::fs::read(&accepted).unwrap(), before, "put back");
    tripped(&repo, &said, &["the accepted config"], "put back");
}

/// What loopguard changes itself is no trip: `init` again, `reset --accept-config`, and
/// commits with nothing changed.
#[test]
fn loopguards_own_changes_are_no_trip() {
    let repo = guarded("");
    commit_after(&repo, "one");
    lg(&repo).arg("init").run().ok();
    let said = commit_after(&repo, "two");
    assert!(!said.contains("not by loopguard"), "{said}");
    assert_eq!(state(&repo), "closed");
    assert!(Path::new(&repo.path().join(".git/hooks/pre-commit")).exists());
}
