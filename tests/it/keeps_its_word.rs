//! The breaker keeps its word (issue 16): while a run's breaker is open (`pause` or
//! `abort`), no commit built on the run's commits enters any ref of the repository, and
//! neither those nor the run's own commits leave it by push, whatever the ref's name or
//! namespace and whoever writes it (README's threat model). One test per way around it that was found (the case
//! numbers are the issue's), each with real `git` running the hooks `loopguard init`
//! installs; `model.rs` tries random sequences of the same operations.

use std::fmt::Write as _;
use std::process::Output;

use crate::support::{LockHolder, TestRepo, guarded, lg, state, status};

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
    // One of the run's earlier commits (not the tip) does not leave either, nor one the
    // remote has under another name (what the remote has is what it says of the refs
    // pushed); history from before the run may.
    refused(
        &repo.try_git(&["push", "-q", "origin", "main~1:refs/heads/earlier"]),
        "a commit of the run that is not its tip",
    );
    refused(
        &repo.try_git(&["push", "-q", "origin", "main~3:refs/heads/pushed-before"]),
        "a commit of the run the remote has under another name",
    );
    allowed(
        &repo.try_git(&["push", "-q", "origin", "main~4:refs/heads/base"]),
        "the commit where the run started",
    );
}

// The third campaign: the stuck branch need not be HEAD's for its commits to be judged.

#[test]
fn a_stuck_branch_that_is_not_checked_out_is_refused_by_sha_from_another_branch() {
    let repo = guarded("");
    let remote = repo.with_remote();
    repo.git(&["push", "-q", "origin", "main"]);
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    assert_eq!(state(&repo), "open");
    let stuck = repo.head();
    repo.git(&["checkout", "-q", "main"]);
    let before = refs_of(&remote);
    for spec in [
        format!("{stuck}:refs/heads/feat"),
        format!("{}:refs/heads/x", &stuck[..12]),
        "feat:refs/heads/feat".to_owned(),
        "feat~1:refs/tags/t".to_owned(),
    ] {
        refused(
            &repo.try_git(&["push", "-q", "origin", &spec]),
            &format!("git push origin {spec} from main"),
        );
        assert_eq!(refs_of(&remote), before, "{spec} reached the remote");
    }
    // Nor by a merge into the branch that is checked out, which has a run of its own.
    let merged = repo.try_git(&["merge", "-q", "--no-ff", "-m", "take feat", "feat"]);
    refused(&merged, "a merge of the stuck branch into main");
    assert_ne!(repo.head(), stuck);
    allowed(
        &repo.try_git(&["push", "-q", "origin", "main"]),
        "main itself",
    );
}

// The third campaign: another name for the stuck tip (a copy, a rename) holds no new
// commit; what is built on it and any push of it are still judged.

#[test]
fn another_name_for_the_stuck_tip_is_no_way_past() {
    let (repo, remote) = stuck_with_remote("");
    let before = refs_of(&remote);
    allowed(
        &repo.try_git(&["update-ref", "refs/heads/copy", "HEAD"]),
        "update-ref of the stuck tip",
    );
    allowed(
        &repo.try_git(&["branch", "-c", "main", "copied"]),
        "branch -c",
    );
    allowed(
        &repo.try_git(&["branch", "-m", "main", "renamed"]),
        "branch -m",
    );
    for branch in ["renamed", "copy", "copied"] {
        repo.git(&["checkout", "-q", branch]);
        repo.tick();
        refused(
            &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "on"]),
            &format!("a commit on {branch}"),
        );
        repo.tick();
        refused(
            &repo.try_git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "on"]),
            &format!("commit --no-verify on {branch}"),
        );
        refused(
            &repo.try_git(&["push", "-q", "origin", branch]),
            &format!("git push origin {branch}"),
        );
    }
    assert_eq!(refs_of(&remote), before);
    assert_eq!(state(&repo), "open");
}

// The third campaign: the open markers let the shims skip loopguard; deleting them is
// editing the store, and still gets no commit past pre-commit, nor any push.

#[test]
fn deleted_open_markers_let_no_commit_past_pre_commit_and_one_past_the_gates_is_said() {
    let (repo, remote) = stuck_with_remote("");
    let before = refs_of(&remote);
    let markers = repo.path().join(".git/loopguard/open");
    let clear = || {
        for e in std::fs::read_dir(&markers).unwrap() {
            std::fs::remove_file(e.unwrap().path()).unwrap();
        }
    };
    clear();
    repo.write("src/more.rs", "pub fn more() {}\n");
    repo.git(&["add", "."]);
    repo.tick();
    refused(
        &repo.try_git(&["commit", "-q", "-m", "past the markers"]),
        "a commit after the open markers were deleted",
    );
    // Nor after moving back to a commit the run recorded.
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    clear();
    repo.tick();
    refused(
        &repo.try_git(&["commit", "-q", "-m", "from an earlier commit"]),
        "a commit on an earlier commit of the run after the markers were deleted",
    );
    // `--no-verify` skips pre-commit, and with no marker reference-transaction leaves at
    // once: the commit lands, and post-commit says so and counts it.
    let iterations = status(&repo)["iterations"].as_u64().unwrap();
    clear();
    repo.tick();
    let out = repo.try_git(&["commit", "-q", "--no-verify", "-m", "around"]);
    allowed(&out, "commit --no-verify with no marker");
    assert!(
        stderr(&out).contains("was committed while the breaker is open, past the gates"),
        "{}",
        stderr(&out)
    );
    assert_eq!(state(&repo), "open");
    assert_eq!(status(&repo)["iterations"], iterations + 1);
    refused(&repo.try_git(&["push", "-q", "origin", "HEAD"]), "its push");
    // A ref moved by plumbing with no marker: the next hook catches it up and says so.
    clear();
    let head = repo.head();
    let made = plumbing_commit(&repo, &head, "by plumbing");
    allowed(
        &repo.try_git(&["update-ref", "refs/heads/main", &made]),
        "update-ref with no marker",
    );
    repo.tick();
    let err = refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "next"]),
        "the next commit",
    );
    assert!(
        err.contains("was committed while the breaker is open, past the gates"),
        "{err}"
    );
    assert_eq!(status(&repo)["iterations"], iterations + 2);
    // A commit with the hooks off, then one with no marker: post-commit records both, and
    // says each once.
    repo.commit_hooks_off("off");
    clear();
    repo.tick();
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "both"]);
    allowed(
        &out,
        "commit --no-verify with no marker, after one with the hooks off",
    );
    let err = stderr(&out);
    assert_eq!(err.matches("past the gates").count(), 2, "{err}");
    for id in [repo.rev_parse("HEAD~1"), repo.head()] {
        assert_eq!(err.matches(&id[..7]).count(), 1, "{err}");
    }
    assert_eq!(status(&repo)["iterations"], iterations + 4);
    assert_eq!(refs_of(&remote), before);
}

// The third campaign: reference-transaction is armed when a breaker opens; a hooks
// directory that cannot be written keeps it disarmed, never the trip unrecorded.

/// `dir` made unwritable, for root too (`chattr +i`, which root obeys; `chmod` for
/// others) until dropped.
struct Unwritable(std::path::PathBuf, bool);

impl Unwritable {
    fn new(dir: &std::path::Path) -> Unwritable {
        let root = std::process::Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
        let ok = if root {
            std::process::Command::new("chattr")
                .arg("+i")
                .arg(dir)
                .status()
                .expect("chattr(1) is needed for this test as root (e2fsprogs)")
                .success()
        } else {
            std::process::Command::new("chmod")
                .arg("555")
                .arg(dir)
                .status()
                .unwrap()
                .success()
        };
        assert!(ok, "could not make {} unwritable", dir.display());
        assert!(
            std::fs::write(dir.join("probe"), "x").is_err(),
            "{} is still writable",
            dir.display()
        );
        Unwritable(dir.to_owned(), root)
    }
}

impl Drop for Unwritable {
    fn drop(&mut self) {
        let (cmd, arg) = if self.1 {
            ("chattr", "-i")
        } else {
            ("chmod", "755")
        };
        let _ = std::process::Command::new(cmd)
            .arg(arg)
            .arg(&self.0)
            .status();
    }
}

#[test]
fn a_hooks_directory_that_cannot_be_written_keeps_no_trip_from_being_recorded() {
    let repo = guarded("");
    let hooks = repo.path().join(".git/hooks");
    assert!(!hooks.join("reference-transaction").exists(), "disarmed");
    let locked = Unwritable::new(&hooks);
    let mut said = String::new();
    for i in 0..3 {
        repo.tick();
        let out = repo.try_git(&[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            &format!("nothing {i}"),
        ]);
        allowed(&out, "an empty commit");
        said.push_str(&stderr(&out));
    }
    assert_eq!(state(&repo), "open", "{said}");
    assert!(
        said.contains("reference-transaction is not armed"),
        "{said}"
    );
    repo.tick();
    refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "more"]),
        "a commit while the breaker is open",
    );
    let out = lg(&repo).args(["status", "--json"]).run().ok();
    assert_eq!(out.json()["guarded"], false, "{}", out.stderr);
    let out = lg(&repo).arg("status").run().ok();
    assert!(
        out.stdout.contains("reference-transaction"),
        "{}",
        out.stdout
    );
    drop(locked);
}

// Found by the model-based test: remote-tracking refs are this repository's own refs.

#[test]
fn a_remote_tracking_ref_pointed_at_the_stuck_tip_does_not_make_it_pushed() {
    let (repo, remote) = stuck_with_remote("");
    let before = refs_of(&remote);
    repo.git(&["update-ref", "refs/remotes/origin/x", "HEAD"]);
    repo.git(&["update-ref", "refs/remotes/origin/main", "HEAD"]);
    for spec in ["HEAD", "HEAD:refs/heads/elsewhere"] {
        refused(
            &repo.try_git(&["push", "-q", "origin", spec]),
            &format!("git push origin {spec} after the remote-tracking refs were forged"),
        );
        assert_eq!(refs_of(&remote), before, "{spec} reached the remote");
    }
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

// Found since: a run started on the new branch (by `loopguard run`, which records a test
// result there) made it a branch with a run of its own, whose new work was its own.

#[test]
fn a_run_started_on_a_new_branch_while_stuck_is_no_fresh_start() {
    let (repo, _remote) = stuck_with_remote("");
    let start = repo.rev_parse("main~4");
    repo.git(&["checkout", "-q", "-b", "fresh", &start]);
    lg(&repo).args(["run", "--", "true"]).run();
    repo.write("src/fresh.rs", "pub fn fresh() {}\n");
    repo.git(&["add", "-A"]);
    repo.tick();
    refused(
        &repo.try_git(&["commit", "-q", "-m", "fresh start"]),
        "a commit on a new branch whose run started after the trip",
    );
    refused(
        &repo.try_git(&["commit", "-q", "--no-verify", "-m", "fresh start"]),
        "the same with --no-verify",
    );
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

// --- 9. nothing the agent controls switches the guard off -----------------------------------

/// A guarded repository whose `main` is stuck on three empty commits, with a cooldown of a
/// minute: a clock a day ahead would half-open it.
fn stuck_with_a_cooldown() -> TestRepo {
    let repo = guarded("on_trip: {cooldown: 1m}\n");
    for i in 0..3 {
        repo.commit_empty(&format!("nothing {i}"));
    }
    assert_eq!(state(&repo), "open");
    repo
}

#[test]
fn case_09_the_tests_knobs_and_another_binary_are_not_honoured_by_the_hooks() {
    let repo = stuck_with_a_cooldown();
    let future = "2099-01-01T00:00:00Z";
    for (name, value) in [
        ("LOOPGUARD_NOW", future),
        ("LOOPGUARD_BIN", "/bin/true"),
        ("LOOPGUARD_FAILPOINT", "before-journal"),
        // A deadline any hook runs past would fail every one open.
        ("LOOPGUARD_HOOK_TIMEOUT", "1"),
    ] {
        repo.tick();
        let out = repo
            .command("git")
            .args(["commit", "-q", "--allow-empty", "-m", "past the cooldown"])
            .env(name, value)
            .output()
            .unwrap();
        let err = refused(&out, &format!("a commit with {name}={value}"));
        let said = match name {
            "LOOPGUARD_BIN" => None,
            "LOOPGUARD_HOOK_TIMEOUT" => Some("LOOPGUARD_HOOK_TIMEOUT below 10 seconds".to_owned()),
            _ => Some(name.to_owned()),
        };
        if let Some(said) = said {
            assert!(
                err.contains(&format!("{said} is a test knob, not honoured here")),
                "{name}: {err}"
            );
        }
        assert_eq!(state(&repo), "open", "{name}");
    }
    // A failpoint does not crash a hook either: the trip it would have lost is recorded.
    let repo = guarded("");
    for i in 0..3 {
        repo.tick();
        let out = repo
            .command("git")
            .args([
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                &format!("nothing {i}"),
            ])
            .env("LOOPGUARD_FAILPOINT", "before-journal")
            .output()
            .unwrap();
        allowed(&out, "an empty commit");
        assert!(!stderr(&out).contains("crashing"), "{}", stderr(&out));
    }
    assert!(repo.path().join(".git/loopguard/open/main").exists());
}

/// A library that moves the clock a year on, for `LD_PRELOAD` (built with `cc`, which
/// Rust's own linking needs on Linux).
#[cfg(target_os = "linux")]
fn clock_a_year_on(repo: &TestRepo) -> std::path::PathBuf {
    let dir = repo.home().join("preload");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("future.c");
    std::fs::write(
        &source,
        r#"#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
int clock_gettime(clockid_t id, struct timespec *tp) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, tp);
    if (id == CLOCK_REALTIME) tp->tv_sec += 86400L * 365;
    return r;
}
"#,
    )
    .unwrap();
    let lib = dir.join("future.so");
    let built = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&source)
        .arg("-ldl")
        .status()
        .expect("cc builds the preloaded library");
    assert!(built.success());
    lib
}

#[cfg(target_os = "linux")]
#[test]
fn case_09_a_library_preloaded_into_git_is_not_loaded_into_the_hooks() {
    let repo = stuck_with_a_cooldown();
    let lib = clock_a_year_on(&repo);
    repo.tick();
    let out = repo
        .command("git")
        .args(["commit", "-q", "--allow-empty", "-m", "a year later"])
        .env("LD_PRELOAD", &lib)
        .output()
        .unwrap();
    refused(&out, "a commit with a clock a year on preloaded");
    assert_eq!(state(&repo), "open");
}

#[test]
fn case_09_status_never_says_guarded_while_a_hook_cannot_guard() {
    let guarded_now = |repo: &TestRepo| -> (bool, String) {
        let out = lg(repo).args(["status", "--json"]).run().ok();
        (out.json()["guarded"] == true, out.stderr)
    };
    let repo = guarded("");
    assert!(guarded_now(&repo).0);
    // git skips a hook that is not executable (with a hint it may not even show).
    let hook = repo.path().join(".git/hooks/pre-push");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (on, err) = guarded_now(&repo);
        assert!(!on && err.contains("not executable"), "{err}");
    }
    // A shim with an early way out.
    lg(&repo).arg("init").run().ok();
    let text = std::fs::read_to_string(&hook).unwrap();
    std::fs::write(&hook, text.replacen("hook=", "exit 0\nhook=", 1)).unwrap();
    let (on, err) = guarded_now(&repo);
    assert!(!on && err.contains("edited"), "{err}");
    // A test repository's shims, which honour the knobs.
    lg(&repo).args(["--test-knobs", "init"]).run().ok();
    let (on, err) = guarded_now(&repo);
    assert!(!on && err.contains("knobs"), "{err}");
    lg(&repo).arg("init").run().ok();
    assert!(guarded_now(&repo).0);
}

// --- found since: what git lets an agent say about itself ---------------------------------

#[test]
fn a_commit_written_to_another_object_directory_is_not_waved_through() {
    let (repo, _remote) = stuck_with_remote("");
    repo.git(&["checkout", "-q", "--detach"]);
    let elsewhere = repo.home().join("objects");
    std::fs::create_dir_all(&elsewhere).unwrap();
    repo.tick();
    let out = repo
        .command("git")
        .args([
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            "hidden",
        ])
        .env("GIT_OBJECT_DIRECTORY", &elsewhere)
        .env(
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            repo.path().join(".git/objects"),
        )
        .output()
        .unwrap();
    let err = refused(&out, "a commit whose object is kept elsewhere");
    assert!(err.contains("not in this repository's objects"), "{err}");
    assert_eq!(repo.head(), repo.rev_parse("main"));
}

#[test]
fn deleting_the_open_markers_lets_no_push_through() {
    let (repo, remote) = stuck_with_remote("");
    let before = refs_of(&remote);
    std::fs::remove_dir_all(repo.path().join(".git/loopguard/open")).unwrap();
    for spec in ["HEAD", "HEAD:refs/heads/elsewhere", "main"] {
        refused(
            &repo.try_git(&["push", "-q", "origin", spec]),
            &format!("git push origin {spec} with the markers gone"),
        );
        assert_eq!(refs_of(&remote), before, "{spec} reached the remote");
    }
}

#[test]
fn a_rebase_that_is_not_one_keeps_no_commit_from_being_recorded_or_pushed() {
    // GIT_REFLOG_ACTION is anyone's to set: the commits are recorded all the same.
    let repo = guarded("");
    for i in 0..3 {
        repo.tick();
        let out = repo
            .command("git")
            .args(["commit", "-q", "--allow-empty", "--no-verify", "-m"])
            .arg(format!("nothing {i}"))
            .env("GIT_REFLOG_ACTION", "rebase")
            .output()
            .unwrap();
        allowed(&out, "an empty commit");
    }
    assert!(repo.path().join(".git/loopguard/open/main").exists());
    // A rebase-merge directory made by hand keeps post-commit from recording, but the
    // loop it hides leaves by no refspec.
    let repo = guarded("");
    let remote = repo.with_remote();
    std::fs::create_dir_all(repo.path().join(".git/rebase-merge")).unwrap();
    for i in 0..3 {
        repo.tick();
        allowed(
            &repo.try_git(&[
                "commit",
                "-q",
                "--allow-empty",
                "--no-verify",
                "-m",
                &format!("n{i}"),
            ]),
            "an empty commit during a rebase that is not one",
        );
    }
    let tip = repo.head();
    for spec in [
        "HEAD".to_owned(),
        "HEAD:refs/heads/elsewhere".to_owned(),
        format!("{tip}:refs/heads/raw"),
        "main".to_owned(),
    ] {
        refused(
            &repo.try_git(&["push", "-q", "origin", &spec]),
            &format!("git push origin {spec}"),
        );
    }
    assert_eq!(refs_of(&remote), "");
    std::fs::remove_dir(repo.path().join(".git/rebase-merge")).unwrap();
    assert_eq!(state(&repo), "open");
}

// --- 13. no silent cap ---------------------------------------------------------------------

/// `n` empty commits on the current branch made by `git fast-import` (no hook runs).
fn fast_import(repo: &TestRepo, n: usize) {
    let head = repo.head();
    let mut stream = String::new();
    for i in 0..n {
        let when = repo.now() + 1 + i as i64;
        let message = format!("fast {i}\n");
        let _ = write!(
            stream,
            "commit refs/heads/main\ncommitter Agent <agent@example.com> {when} +0000\ndata {}\n{message}",
            message.len()
        );
        if i == 0 {
            let _ = writeln!(stream, "from {head}");
        }
        stream.push('\n');
    }
    git_with_input(
        repo,
        &["-c", "core.hooksPath=/dev/null", "fast-import", "--quiet"],
        &stream,
    );
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "reset",
        "-q",
        "--hard",
        "main",
    ]);
    repo.set_now(repo.now() + n as i64 + 1);
}

#[test]
fn case_13_ten_thousand_commits_made_with_the_hooks_off_spend_the_budget() {
    let repo = guarded("rules:\n  stagnation: {action: off}\n  oscillation: {action: off}\n");
    fast_import(&repo, 10_001);
    repo.tick();
    // (A debug build on a busy machine reads them in more than the default 10 s.)
    let out = repo
        .command("git")
        .args(["commit", "-q", "--allow-empty", "-m", "and one more"])
        .env("LOOPGUARD_HOOK_TIMEOUT", "300")
        .output()
        .unwrap();
    let err = refused(&out, "a commit after 10,001 made with the hooks off");
    assert!(err.contains("more than 10000 commits"), "{err}");
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["rule"], "budget", "{s}");
    assert_eq!(s["counters"]["budget"]["count"], 10_000, "{s}");
    // The bound is the budget's too: no budget is larger than a catch-up.
    repo.write(
        ".loopguard.yml",
        "rules:\n  budget: {max_iterations: 10001}\n",
    );
    lg(&repo)
        .args(["check", "--config", ".loopguard.yml"])
        .run()
        .code(2)
        .stderr_has("rules.budget.max_iterations")
        .stderr_has("at most 10000");
}

// --- 14. pre-commit catches up first -------------------------------------------------------

#[test]
fn case_14_a_trip_made_with_the_hooks_off_refuses_the_next_commit() {
    let repo = guarded("");
    for i in 0..3 {
        repo.commit_hooks_off(&format!("nothing {i}"));
    }
    assert_eq!(state(&repo), "open", "status judges what no hook recorded");
    repo.tick();
    let err = refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "one more"]),
        "the next commit with the hooks on",
    );
    assert!(err.contains("3 commit(s) that no hook recorded"), "{err}");
    assert_eq!(status(&repo)["iterations"], 3);
}

// --- 15. a held lock never makes a gate pass ----------------------------------------------

#[test]
fn case_15_a_held_lock_is_judged_around_and_never_lets_a_commit_through() {
    let repo = guarded("");
    let holder = LockHolder::new(&repo);
    let commit = |message: &str| {
        repo.tick();
        repo.command("git")
            .args(["commit", "-q", "--allow-empty", "-m", message])
            .env("LOOPGUARD_LOCK_TIMEOUT_MS", "300")
            .output()
            .unwrap()
    };
    for i in 0..3 {
        allowed(&commit(&format!("nothing {i}")), "an empty commit");
    }
    let out = commit("one more");
    drop(holder);
    let err = refused(
        &out,
        "a commit while the lock is held and the breaker would be open",
    );
    assert!(err.contains("judged without recording"), "{err}");
    assert_eq!(state(&repo), "open");
    // Once the lock is free, the next hook records them.
    repo.tick();
    refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "again"]),
        "the next commit",
    );
    assert_eq!(status(&repo)["iterations"], 3);
}

// --- 16. every branch has a state file ------------------------------------------------------

#[test]
fn case_16_a_branch_with_a_long_name_is_guarded_like_any_other() {
    for name in ["功能分支".repeat(8), format!("{}x", "agent/".repeat(42))] {
        let repo = guarded("");
        repo.checkout_new(&name);
        for i in 0..3 {
            repo.tick();
            let out = repo.try_git(&[
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                &format!("nothing {i}"),
            ]);
            allowed(&out, "an empty commit on a long-named branch");
            assert!(!stderr(&out).contains("could not run"), "{}", stderr(&out));
        }
        let s = status(&repo);
        assert_eq!(s["state"], "open", "{s}");
        repo.tick();
        refused(
            &repo.try_git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "more"]),
            "a commit on the stuck long-named branch",
        );
    }
}

// --- 17. a huge message is summarised -------------------------------------------------------

#[cfg(target_os = "linux")]
#[test]
fn case_17_an_80_mb_commit_message_is_kept_as_a_bounded_summary() {
    let repo = guarded("");
    let message = repo.home().join("message.txt");
    let mut text = "Fix the parser\n\n".to_owned();
    text.push_str(&"x".repeat(80 << 20));
    text.push_str("\n\nThe end.\n");
    std::fs::write(&message, &text).unwrap();
    // (A debug build on a busy machine reads an 80 MB commit in more than the default 10 s.)
    let commit = |args: &[&str]| {
        repo.tick();
        let out = repo
            .command("git")
            .args(["commit", "-q", "--allow-empty"])
            .args(args)
            .env("LOOPGUARD_HOOK_TIMEOUT", "300")
            .output()
            .unwrap();
        allowed(&out, "a commit");
    };
    commit(&["-F", &message.display().to_string()]);
    for i in 0..2 {
        commit(&["-m", &format!("nothing {i}")]);
    }
    let (ran, kib) = lg(&repo)
        .args(["hook", "pre-commit"])
        .env("LOOPGUARD_HOOK_TIMEOUT", "300")
        .run_measured();
    ran.code(1);
    assert!(kib < 64 << 10, "a later hook held {kib} KiB");
    let store: u64 = walk_size(&repo.path().join(".git/loopguard"));
    assert!(store < 4 << 20, "the store holds {store} bytes");
    let (ran, _) = lg(&repo).args(["status", "--json"]).run_measured();
    let s = ran.ok().json();
    assert_eq!(s["state"], "open", "status and the hooks agree: {s}");
    let report = lg(&repo).args(["report", "--json"]).run().ok().json();
    let kept = report["history"][0]["message"].as_str().unwrap().to_owned();
    assert!(kept.starts_with("Fix the parser"), "{kept:.100}");
    assert!(kept.ends_with("The end."), "{}", &kept[kept.len() - 100..]);
    assert!(kept.len() < 20 << 10, "{} bytes kept", kept.len());
}

fn walk_size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| {
                    let m = e.metadata().unwrap();
                    if m.is_dir() {
                        walk_size(&e.path())
                    } else {
                        m.len()
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

// --- 18. progress is a change of what shows -------------------------------------------------

#[test]
fn case_18_invisible_characters_are_no_progress() {
    for blank in [
        "\u{00A0}", "\u{200B}", "\u{3000}", "\u{FEFF}", "\u{2060}", "\t",
    ] {
        let repo = guarded("");
        for i in 0..3 {
            repo.append("src/lib.rs", blank);
            repo.commit(&format!("Tweak {i}"));
        }
        let s = status(&repo);
        assert_eq!(s["state"], "open", "{blank:?}: {s}");
        assert_eq!(s["rule"], "stagnation", "{blank:?}: {s}");
    }
}

// --- 10. in CI, only a person who may write and is not the PR's agent resumes ---------------

mod ci_cases {
    use super::git_with_input;
    use crate::support::ci::{
        BRANCH, CONFIG, CiStep, LABEL, Project, SAME, SAME_LOGS, commit_spec, log_path, payload,
        run_ci, run_ci_at,
    };
    use crate::support::github_fake::{FakeGitHub, PrSpec};

    /// A PR stuck on `same_error` (three pushes failing the same way), labelled.
    fn stuck_pr(gh: &FakeGitHub) -> (Project, String) {
        let mut p = Project::new(CONFIG);
        let mut head = String::new();
        for (i, (body, log)) in SAME[..3].iter().enumerate() {
            head = p.attempt(body, &format!("Try {i}"));
            gh.add_pr(p.pr(7, &head));
            p.ci_on_push(gh, &head, log);
        }
        assert_eq!(gh.labels(7), [LABEL]);
        (p, head)
    }

    /// The `unlabeled` event of loopguard's label, sent by `login`.
    fn unlabeled_by(p: &Project, head: &str, login: &str) -> String {
        payload(
            "pull_request.unlabeled.json",
            &[("{{HEAD_SHA}}", head), ("{{BASE_SHA}}", &p.base)],
        )
        .replace(
            "\"login\": \"maintainer\"",
            &format!("\"login\": \"{login}\""),
        )
    }

    #[test]
    fn case_10_removing_the_label_resumes_only_for_a_maintainer_who_is_not_the_agent() {
        let gh = FakeGitHub::start_blocking().with_permission("drive-by", "read");
        let (p, head) = stuck_pr(&gh);
        for (who, why) in [
            ("Copilot", "the PR's own author"),
            ("drive-by", "no write access"),
            ("github-actions[bot]", "a bot"),
        ] {
            gh.remove_label_as(7, LABEL, who);
            let out = run_ci(
                &gh,
                &p.repo,
                "pull_request",
                &unlabeled_by(&p, &head, who),
                &["--log", &log_path(SAME_LOGS[0])],
            );
            assert_eq!(out.code, 1, "{who}: {out:#?}");
            assert_eq!(out.outputs["state"], "open", "{who}");
            assert!(out.summary.contains(why), "{who}: {}", out.summary);
            assert_eq!(gh.labels(7), [LABEL], "{who}: the label is back");
        }
        // Found gone on a later run with no event: the PR's events say who took it off.
        gh.remove_label_as(7, LABEL, "Copilot");
        let out = p.ci_on_push(&gh, &head, SAME_LOGS[0]);
        assert_eq!(out.outputs["state"], "open", "{out:#?}");
        assert_eq!(gh.labels(7), [LABEL]);
        // A maintainer's removal is a resume.
        gh.remove_label(7, LABEL);
        let out = p.ci_on_push(&gh, &head, SAME_LOGS[0]);
        assert_eq!(out.outputs["state"], "half_open", "{out:#?}");
    }

    // --- 9. in CI, a knob in $GITHUB_ENV changes nothing ---------------------------------

    #[test]
    fn case_09_a_clock_the_prs_steps_set_does_not_walk_past_the_cooldown() {
        let gh = FakeGitHub::start_blocking();
        let config = format!("{CONFIG}  cooldown: 30m\n");
        let mut p = Project::new(&config);
        // Stuck now, by the runner's clock (the commits say 2023: what CI saw counts).
        let now = jiff::Timestamp::now().to_string();
        let mut head = String::new();
        for (i, (body, log)) in SAME[..3].iter().enumerate() {
            head = p.attempt(body, &format!("Try {i}"));
            gh.add_pr(p.pr(7, &head));
            run_ci_at(
                &gh,
                &p.repo,
                "pull_request",
                &p.sync_event(&head),
                &["--log", &log_path(log)],
                &now,
            );
        }
        assert_eq!(gh.labels(7), [LABEL]);
        // The PR's own test step wrote LOOPGUARD_NOW, a day ahead, into $GITHUB_ENV: the
        // loopguard step gets it in its environment, and no --test-knobs.
        let out = CiStep::new(&gh, &p.repo)
            .event("pull_request", &p.sync_event(&head))
            .args(["ci", "--log", &log_path(SAME_LOGS[0])])
            .env("LOOPGUARD_NOW", "2099-01-01T00:00:00Z")
            .without_test_knobs()
            .run();
        assert_eq!(out.code, 1, "{out:#?}");
        assert_eq!(out.outputs["state"], "open", "{out:#?}");
        assert!(
            out.stderr
                .contains("LOOPGUARD_NOW is a test knob, not honoured here"),
            "{}",
            out.stderr
        );
        assert_eq!(gh.labels(7), [LABEL]);
    }

    // --- found since: a backdated commit does not put its trip behind a cooldown ---------

    #[test]
    fn a_trip_on_backdated_commits_counts_from_when_ci_saw_them() {
        let gh = FakeGitHub::start_blocking();
        let mut p = Project::new(&format!("{CONFIG}  cooldown: 30m\n"));
        // The commits say 2023 (what their author wrote); CI runs in 2026.
        let mut out = None;
        for (i, (body, log)) in SAME[..3].iter().enumerate() {
            let head = p.attempt(body, &format!("Try {i}"));
            gh.add_pr(p.pr(7, &head));
            out = Some(p.ci_on_push(&gh, &head, log));
        }
        let out = out.unwrap();
        assert_eq!(out.code, 1, "{out:#?}");
        assert_eq!(out.outputs["state"], "open", "{out:#?}");
        assert_eq!(gh.labels(7), [LABEL]);
    }

    // --- 11. a force-push erases no counter --------------------------------------------

    #[test]
    fn case_11_a_squash_force_pushed_over_a_stuck_pr_is_one_more_attempt() {
        let gh = FakeGitHub::start_blocking();
        let (p, _) = stuck_pr(&gh);
        // One commit with everything, failing the same way, force-pushed.
        p.repo.git(&["reset", "-q", "--soft", &p.base]);
        p.repo.append("src/lib.rs", "// squashed\n");
        let squash = p.repo.commit("Fix word counting");
        gh.add_pr(
            PrSpec::new(7, &squash)
                .base("main", &p.base)
                .head_ref(BRANCH)
                .commits(vec![commit_spec(&p.repo, &squash)]),
        );
        let out = p.ci_on_push(&gh, &squash, SAME_LOGS[1]);
        assert_eq!(out.code, 1, "{out:#?}");
        assert_eq!(out.outputs["state"], "open");
        assert_eq!(out.outputs["rule"], "same_error");
        assert_eq!(gh.labels(7), [LABEL]);
        assert!(out.stdout.contains("iterations: 4 "), "{}", out.stdout);
        // A rebase (the same patches on a new base) is no new attempt, and keeps their
        // test evidence: still stuck, on three attempts.
        let mut q = Project::new(CONFIG);
        let gh2 = FakeGitHub::start_blocking();
        let mut head = String::new();
        for (i, (body, log)) in SAME[..3].iter().enumerate() {
            head = q.attempt(body, &format!("Try {i}"));
            gh2.add_pr(q.pr(7, &head));
            q.ci_on_push(&gh2, &head, log);
        }
        q.repo.git(&["checkout", "-q", "main"]);
        q.repo.write("README.md", "moved on\n");
        let new_base = q.repo.commit("Base moves");
        q.repo.git(&["checkout", "-q", BRANCH]);
        let rebased = q.repo.rebase("main");
        let commits: Vec<_> = q
            .repo
            .rev_list(&["--reverse", &format!("{new_base}..{rebased}")])
            .iter()
            .map(|c| commit_spec(&q.repo, c))
            .collect();
        gh2.add_pr(
            PrSpec::new(7, &rebased)
                .base("main", &new_base)
                .head_ref(BRANCH)
                .commits(commits),
        );
        let event = payload(
            "pull_request.synchronize.json",
            &[
                ("{{HEAD_SHA}}", &rebased),
                ("{{BASE_SHA}}", &new_base),
                ("{{BEFORE}}", &head),
            ],
        );
        let out = run_ci(
            &gh2,
            &q.repo,
            "pull_request",
            &event,
            &["--log", &log_path(SAME_LOGS[0])],
        );
        assert_eq!(out.outputs["state"], "open", "{out:#?}");
        assert!(out.stdout.contains("iterations: 3 "), "{}", out.stdout);
    }

    // --- 12. the PR's code cannot rewrite the base or the history loopguard reads ----------

    #[test]
    fn case_12_replace_refs_and_grafts_in_the_checkout_change_nothing() {
        let gh = FakeGitHub::start_blocking();
        let mut p = Project::new(CONFIG);
        for (i, (body, log)) in SAME[..2].iter().enumerate() {
            let head = p.attempt(body, &format!("Try {i}"));
            gh.add_pr(p.pr(7, &head));
            p.ci_on_push(&gh, &head, log);
        }
        let head = p.attempt(SAME[2].0, "Try 2");
        gh.add_pr(p.pr(7, &head));
        // The PR's own test step, in the same job: a base with a looser config, and the
        // head grafted onto the base (one commit instead of three).
        let repo = &p.repo;
        let loose = git_with_input(
            repo,
            &["hash-object", "-w", "--stdin"],
            "rules:\n  same_error: {action: off}\n",
        );
        let listing = repo
            .git(&["ls-tree", &p.base])
            .lines()
            .map(|l| {
                if l.ends_with("\t.loopguard.yml") {
                    format!("100644 blob {loose}\t.loopguard.yml")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let tree = git_with_input(repo, &["mktree"], &format!("{listing}\n"));
        let fake_base = repo.git(&["commit-tree", "-m", "Word counter", &tree]);
        repo.git(&["replace", &p.base, &fake_base]);
        repo.git(&["replace", "--graft", &head, &p.base]);
        assert_eq!(repo.rev_list(&[&format!("{}..{head}", p.base)]).len(), 1);
        let out = p.ci_on_push(&gh, &head, SAME_LOGS[0]);
        assert_eq!(out.code, 1, "{out:#?}");
        assert_eq!(out.outputs["rule"], "same_error");
        assert!(out.stdout.contains("iterations: 3 "), "{}", out.stdout);
    }
}
