//! No way past an open breaker through the hooks (issue 9): every way git has of adding a
//! commit to a branch meets the `reference-transaction` hook; pushes are judged by the refs
//! git names, whatever their bytes, with no temporary file in between; a hook that hangs
//! gives up; a hooks directory in the working tree is never written; `status` says when
//! nothing guards the repository. Real repositories, real `git`, the real binary.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{LockHolder, TestRepo, bin, guarded, lg, state, status};

/// What a git command (running the hooks) printed on stderr.
fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[track_caller]
fn refused(out: &Output, what: &str) -> String {
    let err = stderr(out);
    assert!(!out.status.success(), "{what} went through:\n{err}");
    assert!(
        err.contains("refused: the breaker is open on"),
        "{what}: {err}"
    );
    err
}

#[track_caller]
fn allowed(out: &Output, what: &str) {
    assert!(out.status.success(), "{what} was refused:\n{}", stderr(out));
}

/// A guarded repository whose `main` is stuck (a commit of the agent's, then three empty
/// commits trip `stagnation`), with a branch `side` one commit ahead of the commit where
/// `main`'s run started, committed with the hooks on before `main` tripped: it has a run of
/// its own, and shares no commit of `main`'s (a branch from one of that run's commits
/// continues it; so, once `main` is stuck, would the agent's new work on a new branch).
fn stuck(config: &str) -> TestRepo {
    let repo = guarded(config);
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    repo.git(&["checkout", "-q", "-b", "side", "HEAD~1"]);
    repo.write("src/side.rs", "pub fn side() {}\n");
    repo.commit("Side work");
    repo.git(&["checkout", "-q", "main"]);
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    assert_eq!(state(&repo), "open");
    repo
}

/// `git ARGS` with extra environment.
fn git_env(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = repo.command("git");
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("git runs")
}

// --- 1. reference-transaction --------------------------------------------------------

#[test]
fn init_installs_the_reference_transaction_hook_and_uninstall_removes_it() {
    let repo = guarded("");
    let hook = repo.path().join(".git/hooks/reference-transaction");
    // Armed once a breaker is open (see below).
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    let text = std::fs::read_to_string(&hook).expect("installed");
    assert!(text.contains("# loopguard-shim"), "{text}");
    lg(&repo).arg("uninstall").run().ok();
    assert!(!hook.exists());
}

/// git runs reference-transaction five times per commit: it is there (armed) only while
/// some breaker may be open, and `status` knows the difference.
#[test]
fn reference_transaction_is_armed_only_while_a_breaker_may_be_open() {
    let repo = guarded("");
    let hook = repo.path().join(".git/hooks/reference-transaction");
    assert!(!hook.exists(), "disarmed after init");
    assert_eq!(status(&repo)["guarded"], true);
    let quiet = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "nothing"]);
    assert!(
        !stderr(&quiet).contains("hook was ignored"),
        "git says nothing of a disarmed hook: {}",
        stderr(&quiet)
    );
    for _ in 0..2 {
        repo.commit_empty("nothing");
    }
    assert!(hook.exists(), "armed once the breaker opened");
    assert_eq!(status(&repo)["guarded"], true);
    refused(
        &repo.try_git(&["commit", "-q", "--no-verify", "--allow-empty", "-m", "x"]),
        "commit --no-verify while open",
    );
    lg(&repo).arg("reset").run().ok();
    assert!(!hook.exists(), "disarmed once no breaker may be open");
    for _ in 0..3 {
        repo.commit_empty("nothing again");
    }
    assert!(hook.exists());
    // Disarmed by hand while a breaker is open: not guarded.
    std::fs::remove_file(&hook).unwrap();
    let s = status(&repo);
    assert_eq!(s["guarded"], false, "{s}");
}

/// A hooks directory that may serve other repositories (`core.hooksPath` outside the
/// repository) keeps reference-transaction armed: another repository's breaker may be
/// open.
#[test]
fn a_shared_hooks_directory_keeps_reference_transaction_armed() {
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    let shared = repo.home().join("shared-hooks");
    std::fs::create_dir_all(&shared).unwrap();
    repo.git(&["config", "core.hooksPath", &shared.display().to_string()]);
    lg(&repo).arg("init").run().ok();
    assert!(shared.join("reference-transaction").exists());
    repo.commit_empty("one");
    assert!(shared.join("reference-transaction").exists());
}

#[test]
fn commit_no_verify_is_refused_and_the_index_keeps_the_change() {
    let repo = stuck("");
    let head = repo.head();
    repo.write("src/x.rs", "pub fn x() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_git(&["commit", "-q", "--no-verify", "-m", "sneak past"]);
    let err = refused(&out, "commit --no-verify");
    assert!(err.contains("rule:   stagnation"), "{err}");
    assert!(err.contains("loopguard resume"), "{err}");
    assert_eq!(repo.head(), head, "the branch did not move");
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-only"]),
        "src/x.rs",
        "the staged change is still staged"
    );
    assert_eq!(status(&repo)["iterations"], 4);
}

#[test]
fn revert_is_refused_while_open() {
    let repo = stuck("");
    let head = repo.head();
    repo.tick();
    // The empty commits have nothing to revert: the agent's first commit has.
    let out = repo.try_git(&["revert", "--no-edit", "HEAD~3"]);
    refused(&out, "revert");
    assert_eq!(repo.head(), head);
}

#[test]
fn cherry_pick_is_refused_while_open() {
    let repo = stuck("");
    let head = repo.head();
    repo.tick();
    let out = repo.try_git(&["cherry-pick", "side"]);
    refused(&out, "cherry-pick");
    assert_eq!(repo.head(), head);
}

#[test]
fn merges_are_refused_while_open_fast_forward_or_not() {
    let repo = stuck("");
    let head = repo.head();
    repo.tick();
    let out = repo.try_git(&["merge", "--no-ff", "--no-edit", "side"]);
    refused(&out, "merge --no-ff");
    assert_eq!(repo.head(), head);
    repo.git(&["merge", "--abort"]);

    // A branch ahead of main: a fast-forward adds its commits. (Made with hooks off: `ahead`,
    // cut from main's tip, continues main's open run, so the hooks refuse its commit too.)
    repo.git(&["branch", "ahead", "main"]);
    repo.tick();
    let ahead = repo.commit_tree("main", "main", "ahead");
    refused(
        &repo.try_git(&["update-ref", "refs/heads/ahead", &ahead]),
        "update-ref of a branch that continues the open run",
    );
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "update-ref",
        "refs/heads/ahead",
        &ahead,
    ]);
    let out = repo.try_git(&["merge", "--ff-only", "ahead"]);
    refused(&out, "merge --ff-only");
    assert_eq!(repo.head(), head);
}

#[test]
fn update_ref_forward_is_refused_backwards_and_deletes_are_not() {
    let repo = stuck("");
    let head = repo.head();
    repo.tick();
    let next = repo.commit_tree("HEAD", "HEAD", "plumbing");
    // With and without the old value: git passes zeros for an unknown old value.
    refused(
        &repo.try_git(&["update-ref", "refs/heads/main", &next]),
        "update-ref",
    );
    refused(
        &repo.try_git(&["update-ref", "refs/heads/main", &next, &head]),
        "update-ref with old value",
    );
    // Replacing the tip (an amend, a rebase) adds a commit too.
    let sibling = repo.commit_tree("HEAD~1", "HEAD", "amended");
    refused(
        &repo.try_git(&["update-ref", "refs/heads/main", &sibling]),
        "update-ref to a sibling",
    );
    refused(
        &repo.try_git(&[
            "commit",
            "-q",
            "--amend",
            "--allow-empty",
            "--no-verify",
            "-m",
            "reworded",
        ]),
        "commit --amend --no-verify",
    );
    assert_eq!(repo.head(), head);

    // Backwards is not an attempt.
    allowed(
        &repo.try_git(&["update-ref", "refs/heads/main", "HEAD~1"]),
        "update-ref back",
    );
    allowed(
        &repo.try_git(&["reset", "-q", "--hard", "HEAD~1"]),
        "reset back",
    );
    // Going forward again to where it was adds commits back: refused.
    refused(
        &repo.try_git(&["update-ref", "refs/heads/main", &head]),
        "update-ref forward again",
    );
    // Deleting a guarded branch is allowed.
    repo.git(&["checkout", "-q", "side"]);
    allowed(
        &repo.try_git(&["update-ref", "-d", "refs/heads/main"]),
        "delete",
    );
}

#[test]
fn refs_it_does_not_guard_move_freely() {
    let repo = stuck("");
    let remote = repo.with_remote();
    remote.write("r.txt", "r\n");
    remote.commit("Remote work");
    // Another branch, tags, remote-tracking refs, a new branch, a checkout.
    let next = repo.commit_tree("side", "side", "more side");
    allowed(
        &repo.try_git(&["update-ref", "refs/heads/side", &next]),
        "other branch",
    );
    allowed(&repo.try_git(&["tag", "v1"]), "tag");
    allowed(&repo.try_git(&["fetch", "-q", "origin"]), "fetch");
    allowed(&repo.try_git(&["branch", "fresh"]), "new branch");
    allowed(&repo.try_git(&["checkout", "-q", "side"]), "checkout");
    repo.write("side.txt", "s\n");
    repo.git(&["add", "-A"]);
    allowed(
        &repo.try_git(&["commit", "-q", "-m", "on side"]),
        "commit on side",
    );
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "main"]);
    assert_eq!(state(&repo), "open", "main is still stuck");
}

#[test]
fn alert_does_not_refuse_ref_updates() {
    let repo = stuck("on_trip:\n  action: alert\n");
    repo.tick();
    allowed(
        &repo.try_git(&["revert", "--no-edit", "HEAD~3"]),
        "revert under alert",
    );
}

#[test]
fn abort_refuses_and_a_reset_lets_the_branch_move_again() {
    let repo = stuck("on_trip:\n  action: abort\n");
    repo.tick();
    let err = refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "x"]),
        "abort",
    );
    assert!(err.contains("loopguard reset"), "{err}");
    lg(&repo).arg("reset").run().ok();
    allowed(
        &repo.try_git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "x"]),
        "after reset",
    );
}

#[test]
fn a_guarded_branch_deleted_and_made_again_is_judged_against_its_run() {
    let repo = stuck("");
    let head = repo.head();
    repo.tick();
    let next = repo.commit_tree("HEAD", "HEAD", "plumbing");
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "side"]);
    allowed(&repo.try_git(&["branch", "-D", "main"]), "delete main");
    refused(
        &repo.try_git(&["branch", "main", &next]),
        "main made again ahead",
    );
    allowed(
        &repo.try_git(&["branch", "main", &head]),
        "main made again where it was",
    );
}

/// The names in the store's `open/` (the markers the shim lists).
fn markers(repo: &TestRepo) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo.path().join(".git/loopguard/open"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_branch_that_continues_an_open_run_gains_no_commit_through_any_gate() {
    let repo = guarded("on_trip:\n  action: pause\n");
    repo.checkout_new("stuck");
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    assert_eq!(state(&repo), "open");
    // The stuck run's marker is the one there is: enough for the shim to start loopguard.
    assert_eq!(markers(&repo), ["stuck"]);

    // Cutting a branch at the run's tip adds nothing: allowed.
    allowed(
        &repo.try_git(&["checkout", "-q", "-b", "stuck-2"]),
        "checkout -b at the stuck run's tip",
    );
    let head = repo.head();
    repo.tick();
    // pre-commit is skipped; reference-transaction judges stuck-2 by the run it continues.
    let err = refused(
        &repo.try_git(&["commit", "-q", "--no-verify", "--allow-empty", "-m", "x"]),
        "commit --no-verify on a branch that continues the open run",
    );
    assert!(err.contains("stuck-2"), "{err}");
    assert_eq!(repo.head(), head);
    // And with pre-commit: refused there first.
    refused(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "x"]),
        "commit on a branch that continues the open run",
    );
    assert_eq!(repo.head(), head);
    // Nothing was recorded for stuck-2, and it needs no marker of its own.
    assert_eq!(markers(&repo), ["stuck"]);
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["inherited"]["branch"], "stuck", "{s}");

    // Plumbing: a branch made ahead of the run, or one inside it moved ahead.
    let next = repo.commit_tree("stuck", "stuck", "plumbing");
    refused(
        &repo.try_git(&["update-ref", "refs/heads/stuck-3", &next]),
        "a new branch ahead of the open run",
    );
    allowed(
        &repo.try_git(&["branch", "stuck-4", "stuck~2"]),
        "a new branch inside the open run",
    );
    refused(
        &repo.try_git(&["update-ref", "refs/heads/stuck-4", &next]),
        "a branch inside the open run moved ahead of it",
    );
    allowed(
        &repo.try_git(&["update-ref", "refs/heads/stuck-4", "stuck~3"]),
        "a branch inside the open run moved back",
    );

    // A person's reset gives stuck-2 a run of its own (closed): it moves again, while the
    // run it came from stays stuck.
    lg(&repo).arg("reset").run().ok();
    allowed(
        &repo.try_git(&["commit", "-q", "--no-verify", "--allow-empty", "-m", "x"]),
        "commit after reset",
    );
    refused(
        &repo.try_git(&["update-ref", "refs/heads/stuck", &next]),
        "the stuck branch itself",
    );
    assert_eq!(markers(&repo), ["stuck"]);
}

/// Points every hook shim of `repo` at `bin` instead of the binary `init` wrote there (no
/// variable does that: the path is baked in).
fn point_hooks_at(repo: &TestRepo, other: &Path) {
    for hook in [
        "post-commit",
        "post-rewrite",
        "pre-commit",
        "pre-push",
        "reference-transaction",
    ] {
        let path = repo.path().join(".git/hooks").join(hook);
        // (reference-transaction is there only while armed.)
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let baked = format!("loopguard=\"{}\"", bin().display());
        assert!(text.contains(&baked), "{text}");
        std::fs::write(
            &path,
            text.replace(&baked, &format!("loopguard=\"{}\"", other.display())),
        )
        .unwrap();
    }
}

#[test]
fn a_loopguard_that_breaks_fails_open_only_while_no_breaker_may_be_open() {
    let repo = stuck("");
    // A binary that crashes where the hooks expect loopguard.
    let broken = repo.home().join("broken-loopguard");
    std::fs::write(&broken, "#!/bin/sh\nexit 3\n").unwrap();
    make_executable(&broken);
    point_hooks_at(&repo, &broken);
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "side"]);
    repo.tick();
    // A breaker is open: a gate that cannot judge refuses, even on a branch of its own.
    let err = refused_blindly(
        &repo.try_git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "x"]),
        "commit with a broken loopguard while main is stuck",
    );
    assert!(err.contains("failed (exit 3)"), "{err}");
    // None is: it says so and lets git go on.
    point_hooks_at_real(&repo, &broken);
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "main"]);
    lg(&repo).arg("reset").run().ok();
    point_hooks_at(&repo, &broken);
    // (Without the note of what was recorded last, pre-commit starts loopguard.)
    let _ = std::fs::remove_file(repo.path().join(".git/loopguard-recorded"));
    repo.tick();
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    allowed(&out, "commit with a broken loopguard, no breaker open");
    assert!(stderr(&out).contains("fail open"), "{}", stderr(&out));
}

/// Undoes [`point_hooks_at`].
fn point_hooks_at_real(repo: &TestRepo, from: &Path) {
    for hook in [
        "post-commit",
        "post-rewrite",
        "pre-commit",
        "pre-push",
        "reference-transaction",
    ] {
        let path = repo.path().join(".git/hooks").join(hook);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        std::fs::write(
            &path,
            text.replace(
                &format!("loopguard=\"{}\"", from.display()),
                &format!("loopguard=\"{}\"", bin().display()),
            ),
        )
        .unwrap();
    }
}

#[track_caller]
fn refused_blindly(out: &Output, what: &str) -> String {
    let err = stderr(out);
    assert!(!out.status.success(), "{what} went through:\n{err}");
    assert!(err.contains("refused: the"), "{what}: {err}");
    assert!(err.contains("a breaker may be open"), "{what}: {err}");
    err
}

#[test]
fn an_existing_reference_transaction_hook_is_chained_with_its_input() {
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    let hook = repo.path().join(".git/hooks/reference-transaction");
    std::fs::write(
        &hook,
        "#!/bin/sh\n{ echo \"$1\"; cat; } >> \"$(git rev-parse --git-dir)/mine.log\"\n",
    )
    .unwrap();
    make_executable(&hook);
    lg(&repo).arg("init").run().ok();
    let shim = std::fs::read_to_string(&hook).unwrap();
    assert!(shim.contains("# loopguard-shim"), "{shim}");
    let head = repo.commit_empty("one");
    let log = std::fs::read_to_string(repo.path().join(".git/mine.log")).unwrap();
    assert!(log.contains("prepared\n"), "{log}");
    assert!(log.contains(&format!(" {head} refs/heads/main\n")), "{log}");
    assert!(log.contains("committed\n"), "{log}");
    lg(&repo).arg("uninstall").run().ok();
    assert!(std::fs::read_to_string(&hook).unwrap().contains("mine.log"));
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

// --- 3. pre-push with a ref name that is not UTF-8 -----------------------------------

#[test]
fn a_push_naming_a_ref_that_is_not_utf8_is_still_judged() {
    let repo = stuck("");
    let _remote = repo.with_remote();
    // One branch at main's tip (it continues main's open run), one at the commit where
    // main's run started (a run of its own).
    let side = OsStr::from_bytes(b"side\xff");
    let other = OsStr::from_bytes(b"side\xfe");
    for (name, at) in [(side, "main"), (other, "main~4")] {
        let mut branch = repo.command("git");
        branch.arg("branch").arg(name).arg(at);
        allowed(
            &branch.output().unwrap(),
            "a new branch with a non-UTF-8 name",
        );
    }

    let mut push = repo.command("git");
    push.args(["push", "-q", "origin", "main"]).arg(side);
    let out = push.output().unwrap();
    refused(&out, "push of main and side\\xff");
    let remote_main = repo.try_git(&["ls-remote", "origin", "refs/heads/main"]);
    assert!(
        remote_main.stdout.is_empty(),
        "main reached the remote: {}",
        String::from_utf8_lossy(&remote_main.stdout)
    );

    // Judged by its bytes: the branch that continues the stuck run is refused alone, the
    // one whose name differs only in a byte that is not UTF-8 goes through.
    let mut push = repo.command("git");
    push.args(["push", "-q", "origin"]).arg(side);
    refused(&push.output().unwrap(), "push of side\\xff alone");
    let mut push = repo.command("git");
    push.args(["push", "-q", "origin"]).arg(other);
    allowed(&push.output().unwrap(), "push of side\\xfe alone");
}

// --- 4. no temporary files in the shim -----------------------------------------------

#[test]
fn an_unwritable_tmpdir_does_not_open_the_push() {
    let repo = stuck("");
    let _remote = repo.with_remote();
    // A chained pre-push hook still reads git's input.
    let hook = repo.path().join(".git/hooks/pre-push");
    let kept = repo.path().join(".git/loopguard/chained/pre-push");
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::write(
        &kept,
        "#!/bin/sh\ncat >> \"$(git rev-parse --git-dir)/pushed.log\"\n",
    )
    .unwrap();
    make_executable(&kept);
    assert!(hook.exists());

    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "side"]);
    let out = git_env(
        &repo,
        &["push", "-q", "origin", "main"],
        &[("TMPDIR", "/nonexistent")],
    );
    refused(&out, "push with TMPDIR=/nonexistent");
    let log = std::fs::read_to_string(repo.path().join(".git/pushed.log")).unwrap();
    assert!(log.starts_with("refs/heads/main "), "{log}");
}

#[test]
fn a_pre_push_hook_that_cannot_read_its_input_refuses_while_a_branch_is_open() {
    let repo = stuck("");
    let _remote = repo.with_remote();
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "side"]);
    // git's input lost (stdin closed): the hook cannot tell which refs are pushed.
    let mut cmd = repo.command("sh");
    cmd.args(["-c", ".git/hooks/pre-push origin \"$1\" <&-", "sh", "url"]);
    let out = cmd.output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("could not read"), "{err}");
    assert!(err.contains("main"), "{err}");

    // With no breaker open anywhere, it goes on.
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "main"]);
    lg(&repo).arg("reset").run().ok();
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", "side"]);
    let mut cmd = repo.command("sh");
    cmd.args(["-c", ".git/hooks/pre-push origin \"$1\" <&-", "sh", "url"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

// --- 14. a hook that hangs -----------------------------------------------------------

#[test]
fn the_binary_keeps_its_own_deadline() {
    // Waiting for the store lock past the deadline: the hook gives up with a message.
    let repo = guarded("");
    let holder = LockHolder::new(&repo);
    // (A deadline shorter than the default is a test knob in a hook.)
    let out = lg(&repo)
        .args(["--test-knobs", "hook", "post-commit"])
        .env("LOOPGUARD_HOOK_TIMEOUT", "1")
        .env("LOOPGUARD_LOCK_TIMEOUT_MS", "60000")
        .run();
    drop(holder);
    out.ok()
        .stderr_has("took longer than 1s")
        .stderr_has("fail open");
}

// --- 20. core.hooksPath inside the working tree --------------------------------------

/// A repository whose tracked `.githooks/` is its `core.hooksPath`.
fn tracked_hooks() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.write(".githooks/pre-push", "#!/bin/sh\necho team pre-push\n");
    repo.chmod_x(".githooks/pre-push");
    repo.commit("Initial commit with team hooks");
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    repo
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name() == Some(OsStr::new(".git")) {
            continue;
        }
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn init_never_writes_into_a_hooks_dir_in_the_working_tree() {
    let repo = tracked_hooks();
    let out = lg(&repo).arg("init").run().code(2);
    let err = out.stderr.clone();
    assert!(err.contains(".githooks"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    assert!(err.contains("loopguard hook pre-commit"), "{err}");
    assert!(err.contains("init --no-hooks"), "{err}");
    assert_eq!(
        repo.read(".githooks/pre-push").as_deref(),
        Some("#!/bin/sh\necho team pre-push\n"),
        "the tracked hook is untouched"
    );
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "nothing new in the tree"
    );
    let exe = bin().display().to_string();
    for f in files_under(repo.path()) {
        let text = std::fs::read(&f).unwrap();
        assert!(
            !String::from_utf8_lossy(&text).contains(&exe),
            "{} holds this machine's path",
            f.display()
        );
    }
    assert_eq!(status(&repo)["guarded"], false);
}

#[test]
fn the_one_line_chain_from_tracked_hooks_guards_the_clone() {
    let repo = tracked_hooks();
    // What the hint says: one line in each tracked hook, loopguard found on PATH.
    let path_dir = repo.home().join("bin");
    std::fs::create_dir_all(&path_dir).unwrap();
    std::os::unix::fs::symlink(bin(), path_dir.join("loopguard")).unwrap();
    let hint = lg(&repo).arg("init").run().code(2).stderr;
    for hook in [
        "pre-commit",
        "post-commit",
        "pre-push",
        "post-rewrite",
        "reference-transaction",
    ] {
        let line = hint
            .lines()
            .find(|l| l.contains(&format!("loopguard hook {hook} ")))
            .unwrap_or_else(|| panic!("no line for {hook}:\n{hint}"))
            .trim()
            .to_owned();
        let file = format!(".githooks/{hook}");
        let old = repo.read(&file).unwrap_or_else(|| "#!/bin/sh\n".to_owned());
        repo.write(&file, format!("{old}{line}\n"));
        repo.chmod_x(&file);
    }
    repo.commit("Chain loopguard from the team hooks");
    lg(&repo).args(["init", "--no-hooks"]).run().ok();
    let path = format!(
        "{}:{}",
        path_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    assert_eq!(status(&repo)["guarded"], true);
    for _ in 0..3 {
        repo.tick();
        allowed(
            &git_env(
                &repo,
                &["commit", "-q", "--allow-empty", "-m", "nothing"],
                &[("PATH", &path)],
            ),
            "empty commit",
        );
    }
    assert_eq!(state(&repo), "open");
    repo.tick();
    refused(
        &git_env(
            &repo,
            &["commit", "-q", "--allow-empty", "-m", "more"],
            &[("PATH", &path)],
        ),
        "commit through the tracked hook",
    );
    refused(
        &git_env(
            &repo,
            &["commit", "-q", "--allow-empty", "--no-verify", "-m", "more"],
            &[("PATH", &path)],
        ),
        "commit --no-verify through the tracked hook",
    );
    // Where loopguard is not installed (a teammate), the line does nothing.
    allowed(
        &git_env(
            &repo,
            &[
                "commit",
                "-q",
                "--allow-empty",
                "--no-verify",
                "-m",
                "teammate",
            ],
            &[("PATH", "/usr/bin:/bin")],
        ),
        "a clone without loopguard",
    );
}

#[test]
fn an_ignored_hooks_dir_in_the_working_tree_is_used() {
    let repo = TestRepo::new();
    repo.write(".gitignore", ".githooks/\n");
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    lg(&repo).arg("init").run().ok();
    assert!(repo.path().join(".githooks/reference-transaction").exists());
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert_eq!(status(&repo)["guarded"], true);
}

// --- 21. status where init never ran -------------------------------------------------

#[test]
fn status_says_when_nothing_guards_the_repository() {
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    let doc = status(&repo);
    assert_eq!(doc["guarded"], false, "{doc}");
    assert_eq!(doc["schema"], 1);
    lg(&repo)
        .arg("status")
        .run()
        .ok()
        .stdout_has("not guarded")
        .stdout_has("loopguard init");

    lg(&repo).arg("init").run().ok();
    assert_eq!(status(&repo)["guarded"], true);
    lg(&repo).arg("status").run().ok();
    let text = lg(&repo).arg("status").run().ok().stdout;
    assert!(!text.contains("not guarded"), "{text}");

    // A hook missing: named.
    std::fs::remove_file(repo.path().join(".git/hooks/pre-push")).unwrap();
    assert_eq!(status(&repo)["guarded"], false);
    lg(&repo).arg("status").run().ok().stdout_has("pre-push");

    lg(&repo).arg("init").run().ok();
    lg(&repo).arg("uninstall").run().ok();
    assert_eq!(status(&repo)["guarded"], false);
}
