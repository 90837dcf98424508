//! The breaker keeps its word (issue 16): while a run's breaker is open (`pause` or
//! `abort`), no commit that continues the run — the stuck tip or anything built on it —
//! enters any ref of the repository or leaves it by push, whatever the ref's name or
//! namespace and whoever writes it. One test per way around it that was found (the case
//! numbers are the issue's), each with real `git` running the hooks `loopguard init`
//! installs; `model.rs` tries random sequences of the same operations.

use std::process::Output;

use crate::support::{TestRepo, guarded, lg, state, status};

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[track_caller]
pub(crate) fn refused(out: &Output, what: &str) -> String {
    let err = stderr(out);
    assert!(!out.status.success(), "{what} went through:\n{err}");
    assert!(err.contains("refused"), "{what}: {err}");
    err
}

#[track_caller]
pub(crate) fn allowed(out: &Output, what: &str) {
    assert!(out.status.success(), "{what} was refused:\n{}", stderr(out));
}

/// A guarded repository with a remote, whose `main` is stuck: a commit of the agent's
/// (pushed), then three empty commits trip `stagnation`. `config` is `.loopguard.yml`.
fn stuck_with_remote(config: &str) -> (TestRepo, TestRepo) {
    let repo = guarded(config);
    let remote = repo.with_remote();
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    repo.git(&["push", "-q", "origin", "main"]);
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    assert_eq!(state(&repo), "open");
    (repo, remote)
}

/// The refs of `remote`, `<id> <name>` per line.
fn refs_of(remote: &TestRepo) -> String {
    remote.git(&["for-each-ref", "--format=%(objectname) %(refname)"])
}

/// A commit made with plumbing on `parent` (no hook runs, no ref moves).
fn plumbing_commit(repo: &TestRepo, parent: &str, message: &str) -> String {
    repo.tick();
    repo.commit_tree(parent, parent, message)
}

// --- 1. a push is judged by every commit it sends ------------------------------------

#[test]
fn case_01_every_form_of_push_of_the_stuck_commits_is_refused() {
    let (repo, remote) = stuck_with_remote("");
    let before = refs_of(&remote);
    let tip = repo.head();
    repo.git(&["tag", "v1"]);
    repo.git(&["tag", "-a", "-m", "annotated", "v2"]);
    for spec in [
        "HEAD",
        "@",
        "main~0:refs/heads/main",
        "main@{0}:refs/heads/at",
        &format!("{tip}:refs/heads/from-sha"),
        "v1",
        "v2",
        "v1:refs/heads/x",
        "HEAD:refs/heads/main",
        "+main:refs/heads/forced",
        "refs/heads/main:refs/heads/other",
    ] {
        refused(
            &repo.try_git(&["push", "-q", "origin", spec]),
            &format!("git push origin {spec}"),
        );
        assert_eq!(refs_of(&remote), before, "{spec} reached the remote");
    }
    // One of the run's earlier commits (not the tip) does not leave either; what the
    // remote has, and history from before the run, may.
    refused(
        &repo.try_git(&["push", "-q", "origin", "main~1:refs/heads/earlier"]),
        "a commit of the run that is not its tip",
    );
    allowed(
        &repo.try_git(&["push", "-q", "origin", "main~3:refs/heads/pushed-before"]),
        "the commit the remote already has",
    );
    allowed(
        &repo.try_git(&["push", "-q", "origin", "main~4:refs/heads/base"]),
        "the commit where the run started",
    );
}

// --- 2. detached HEAD is a ref like any other ------------------------------------------

#[test]
fn case_02_commits_on_a_detached_stuck_tip_are_refused_and_cannot_become_a_branch() {
    let (repo, remote) = stuck_with_remote("");
    let tip = repo.head();
    repo.git(&["checkout", "-q", "--detach"]);
    repo.tick();
    refused(
        &repo.try_git(&[
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            "detached",
        ]),
        "commit --no-verify on detached HEAD at the stuck tip",
    );
    refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "detached"]),
        "commit on detached HEAD at the stuck tip",
    );
    assert_eq!(repo.head(), tip);
    // Made with every hook off, the commits are there; no branch and no push takes them.
    for i in 0..3 {
        repo.commit_hooks_off(&format!("off {i}"));
    }
    let off = repo.head();
    refused(
        &repo.try_git(&["checkout", "-q", "-b", "feat"]),
        "a branch at commits built on the stuck tip",
    );
    refused(
        &repo.try_git(&["push", "-q", "origin", &format!("{off}:refs/heads/feat")]),
        "their sha pushed as a new branch",
    );
    refused(
        &repo.try_git(&["push", "-q", "origin", "HEAD:refs/heads/feat"]),
        "detached HEAD pushed as a new branch",
    );
    assert!(!refs_of(&remote).contains("feat"));
}

// --- 3. any namespace: refs/wip, tags, notes, a stash ---------------------------------

#[test]
fn case_03_a_commit_built_on_the_stuck_tip_enters_no_ref_in_any_namespace() {
    let (repo, remote) = stuck_with_remote("");
    let wip = plumbing_commit(&repo, "HEAD", "work in progress");
    for name in [
        "refs/wip/x",
        "refs/heads/new",
        "refs/tags/t",
        "refs/notes/commits",
        "refs/anything/else",
        "refs/remotes/origin/main",
    ] {
        refused(
            &repo.try_git(&["update-ref", name, &wip]),
            &format!("update-ref {name}"),
        );
    }
    refused(
        &repo.try_git(&["tag", "-a", "-m", "annotated", "t2", &wip]),
        "an annotated tag of it",
    );
    repo.append("src/lib.rs", "// stashed\n");
    refused(
        &repo.try_git(&["stash", "-q"]),
        "git stash on the stuck tip",
    );
    repo.git(&["checkout", "-q", "--", "src/lib.rs"]);
    // Written with the hooks off, it still leaves by no push.
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "update-ref",
        "refs/wip/x",
        &wip,
    ]);
    refused(
        &repo.try_git(&["push", "-q", "origin", "refs/wip/x:refs/heads/x"]),
        "push of refs/wip/x",
    );
    assert!(!refs_of(&remote).contains("refs/heads/x"));
    // What builds on nothing of the run's moves freely (notes, tags of old history).
    allowed(
        &repo.try_git(&["notes", "add", "-m", "a note", "main~4"]),
        "git notes",
    );
    allowed(
        &repo.try_git(&["tag", "old", "main~4"]),
        "a tag of old history",
    );
}

// --- 4. a push into the guarded repository ---------------------------------------------

#[test]
fn case_04_a_push_into_the_guarded_repository_adds_nothing_to_the_stuck_branch() {
    let (repo, _remote) = stuck_with_remote("");
    repo.git(&["config", "receive.denyCurrentBranch", "ignore"]);
    let tip = repo.head();
    let other = TestRepo::clone_from(&repo, &[]);
    other.write("src/more.rs", "pub fn more() {}\n");
    other.commit_hooks_off("more work from another clone");
    let out = other.try_git(&["push", "-q", "origin", "main"]);
    let err = refused(&out, "a push into the guarded repository");
    assert!(!err.contains("not a git repository"), "{err}");
    assert_eq!(
        repo.rev_parse("main"),
        tip,
        "the stuck branch gained a commit"
    );
    // Nor under another name.
    refused(
        &other.try_git(&["push", "-q", "origin", "main:refs/heads/elsewhere"]),
        "a push into the guarded repository under another name",
    );
    assert!(
        repo.try_git(&["rev-parse", "--verify", "-q", "elsewhere"])
            .stdout
            .is_empty()
    );
}

// --- 5. replace refs are not history ----------------------------------------------------

#[test]
fn case_05_a_replaced_commit_does_not_change_what_the_guard_sees() {
    let repo = guarded("");
    repo.commit_empty("nothing 1");
    repo.commit_empty("nothing 2");
    // The agent swaps its last commit for one with another tree: for git (and a reader
    // that honours replace refs) the next empty commit changes a file.
    let listing = format!(
        "{}\n100644 blob {}\tswapped.rs\n",
        repo.git(&["ls-tree", "HEAD"]),
        git_with_input(&repo, &["hash-object", "-w", "--stdin"], "swapped\n"),
    );
    let tree = git_with_input(&repo, &["mktree"], &listing);
    let swapped = repo.git(&["commit-tree", "-p", "HEAD~1", "-m", "swapped", &tree]);
    repo.git(&["replace", "HEAD", &swapped]);
    assert!(repo.git(&["show", "--stat", "HEAD"]).contains("swapped.rs"));
    repo.commit_empty("nothing 3");
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["rule"], "stagnation", "{s}");
    // A graft (the deprecated file) changes nothing either.
    std::fs::write(
        repo.path().join(".git/info/grafts"),
        format!("{} {}\n", repo.head(), repo.rev_parse("HEAD~3")),
    )
    .unwrap();
    assert_eq!(state(&repo), "open");
    lg(&repo).args(["check", "--json"]).run().code(1);
}

// --- 6. a cherry-pick of new work is an attempt ----------------------------------------

#[test]
fn case_06_commits_made_with_the_hooks_off_and_cherry_picked_are_attempts() {
    let repo = guarded("");
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "checkout",
        "-q",
        "-b",
        "scratch",
    ]);
    let mut scratch = Vec::new();
    for i in 0..6 {
        scratch.push(repo.commit_hooks_off(&format!("scratch {i}")));
    }
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "main"]);
    for (i, c) in scratch.iter().enumerate() {
        repo.tick();
        let out = repo.try_git(&["cherry-pick", "--allow-empty", c]);
        if i < 3 {
            allowed(&out, &format!("cherry-pick {i}"));
        } else {
            refused(&out, &format!("cherry-pick {i}"));
            repo.git(&["cherry-pick", "--abort"]);
            break;
        }
    }
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["iterations"], 3, "{s}");
    // Moving recorded work from another branch is still a rewrite, not an attempt.
    let moved = guarded("");
    moved.checkout_new("feature");
    moved.write("src/f.rs", "pub fn f() {}\n");
    let f = moved.commit("Feature");
    moved.checkout("main");
    moved.tick();
    moved.git(&["cherry-pick", &f]);
    assert_eq!(status(&moved)["iterations"], 0);
}

// --- 7. a new branch is no fresh start --------------------------------------------------

#[test]
fn case_07_a_new_branch_an_orphan_or_the_start_commit_continue_the_stuck_run() {
    let (repo, remote) = stuck_with_remote("");
    let start = repo.rev_parse("main~4");
    repo.tick();
    repo.git(&["switch", "-q", "--orphan", "fresh"]);
    refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "fresh start"]),
        "a commit on an orphan branch",
    );
    refused(
        &repo.try_git(&[
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            "fresh start",
        ]),
        "a commit --no-verify on an orphan branch",
    );
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "checkout",
        "-q",
        "-f",
        "main",
    ]);
    repo.git(&["checkout", "-q", "-b", "from-start", &start]);
    repo.write("src/again.rs", "pub fn again() {}\n");
    repo.git(&["add", "-A"]);
    repo.tick();
    refused(
        &repo.try_git(&["commit", "-q", "-m", "start again"]),
        "a commit on a branch from the run's start",
    );
    refused(
        &repo.try_git(&["commit", "-q", "--no-verify", "-m", "start again"]),
        "a commit --no-verify on a branch from the run's start",
    );
    // Made with the hooks off, it continues the stuck run: the next commit, the
    // run's bookkeeping, and the push say so.
    repo.commit_hooks_off("start again, hooks off");
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["inherited"]["branch"], "main", "{s}");
    lg(&repo).args(["run", "--", "true"]).run().code(86);
    assert_eq!(state(&repo), "open");
    refused(
        &repo.try_git(&["push", "-q", "origin", "from-start"]),
        "a push of the new branch",
    );
    assert!(!refs_of(&remote).contains("from-start"));
}

#[test]
fn case_07_a_persons_commits_start_their_own_run_when_agents_are_configured() {
    let (repo, _remote) = stuck_with_remote("agents: [\"Agent <agent@example.com>\"]\n");
    let start = repo.rev_parse("main~4");
    repo.git(&["checkout", "-q", "-b", "hotfix", &start]);
    repo.author("Maintainer", "maintainer@example.com");
    repo.write("src/fix.rs", "pub fn fix() {}\n");
    repo.git(&["add", "-A"]);
    repo.tick();
    allowed(
        &repo.try_git(&["commit", "-q", "-m", "A person's fix"]),
        "a person's commit on a new branch",
    );
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert!(s.get("inherited").is_none(), "{s}");
}

/// `git ARGS` with `input` on its stdin; its output.
pub(crate) fn git_with_input(repo: &TestRepo, args: &[&str], input: &str) -> String {
    use std::io::Write as _;
    let mut child = repo
        .command("git")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes())
        .expect("git reads its input");
    let out = child.wait_with_output().expect("git ends");
    assert!(out.status.success(), "git {args:?} failed");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}
