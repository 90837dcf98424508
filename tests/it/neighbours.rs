//! Git's neighbours of the guard (issue 25, item 5): repositories of SHA-256 objects, refs
//! stored as reftable (at `init`, and migrated to after it with the breaker closed or
//! open), submodule bumps, and the git config that decides which hooks run in each
//! worktree and scope. Real repositories, real `git` (2.45 or later: `--ref-format`,
//! `git refs migrate`), the real binary.

use std::path::Path;
use std::process::Output;

use crate::support::{TestRepo, guarded_in, lg, run_log, state, status};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A guarded repository of SHA-256 objects (`git init --object-format=sha256`).
fn guarded_sha256() -> TestRepo {
    let repo = guarded_in(TestRepo::new_with(&["--object-format=sha256"]), "");
    assert_eq!(repo.git(&["rev-parse", "--show-object-format"]), "sha256");
    assert_eq!(repo.head().len(), 64);
    repo
}

/// What a status document says, with every commit id (hex of 7 digits or more) made
/// `<id>`: what a SHA-1 and a SHA-256 repository must agree on.
fn verdict(doc: &serde_json::Value) -> serde_json::Value {
    let text = doc.to_string();
    let mut out = String::new();
    let mut run = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_hexdigit() {
            run.push(c);
            continue;
        }
        out.push_str(if run.len() >= 7 { "<id>" } else { &run });
        run.clear();
        out.push(c);
    }
    out.pop();
    let mut v: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
    // Where each run is kept, and when a person resumed it: not a verdict.
    for key in ["run", "config"] {
        v.as_object_mut().expect("an object").remove(key);
    }
    drop_times(&mut v);
    v
}

/// Every `at` taken out: a person's resume happens at the wall clock's time.
fn drop_times(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            o.remove("at");
            o.values_mut().for_each(drop_times);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(drop_times),
        _ => {}
    }
}

/// One agent's session, the same in any repository: what the guard said after each step
/// ([`verdict`]), and `check --json` at the end.
fn session(repo: &TestRepo) -> (Vec<serde_json::Value>, serde_json::Value) {
    let mut said = Vec::new();
    let mut say = |repo: &TestRepo| said.push(verdict(&status(repo)));
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    for i in 0..3 {
        repo.commit_empty(&format!("nothing {i}"));
        say(repo);
    }
    // Every gate refuses: a commit, one with --no-verify (reference-transaction), a push.
    repo.write("src/more.rs", "pub fn more() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("more");
    assert!(!out.status.success(), "the commit went through");
    assert!(
        stderr(&out).contains("refused: the breaker is open on main"),
        "{}",
        stderr(&out)
    );
    let out = repo.try_git(&["commit", "-q", "--no-verify", "-m", "more"]);
    assert!(!out.status.success(), "--no-verify went through");
    let remote = repo.with_remote();
    let out = repo.try_git(&["push", "-q", "origin", "HEAD:refs/heads/main"]);
    assert!(
        !out.status.success(),
        "the push went through: {}",
        stderr(&out)
    );
    assert!(
        remote
            .try_git(&["rev-parse", "-q", "--verify", "refs/heads/main"])
            .stdout
            .is_empty(),
        "the remote got the stuck branch"
    );
    // A person lets the agent go on: new code failing the same way, again and again.
    lg(repo).arg("resume").run().ok();
    for i in 0..4 {
        repo.write("src/agent.rs", format!("pub fn agent() -> u8 {{ {i} }}\n"));
        repo.commit(&format!("try {i}"));
        run_log(repo, "cargo/assert-count/plain.log", 101);
        say(repo);
    }
    // A new run: a change applied, reverted and applied again, then amended.
    lg(repo).arg("reset").run().ok();
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    let change = repo.commit("Answer 42");
    say(repo);
    repo.revert(&change);
    say(repo);
    repo.cherry_pick(&change);
    say(repo);
    let out = repo.try_git(&["commit", "-q", "--amend", "-m", "Answer 42 again"]);
    assert!(
        !out.status.success(),
        "the amend of a stuck tip went through"
    );
    lg(repo).arg("resume").run().ok();
    repo.amend("Answer 42 again");
    say(repo);
    let check = lg(repo).args(["check", "--json"]).run().json();
    said.push(verdict(&check));
    (said, check)
}

#[test]
fn a_sha256_repository_is_guarded_as_a_sha1_one_is() {
    let sha256 = guarded_sha256();
    assert_eq!(status(&sha256)["guarded"], true);
    let (theirs, check) = session(&sha256);
    let (ours, sha1_check) = session(&guarded_in(TestRepo::new(), ""));
    assert_eq!(theirs.len(), ours.len());
    for (i, (a, b)) in theirs.iter().zip(&ours).enumerate() {
        assert_eq!(a, b, "step {i}: SHA-256 (left) and SHA-1 (right) disagree");
    }
    // And the verdicts are the ones wanted: stagnation, same_error, oscillation.
    let rules: Vec<_> = theirs.iter().map(|v| v["rule"].clone()).collect();
    assert_eq!(rules[2], "stagnation");
    assert_eq!(rules[6], "same_error");
    assert_eq!(rules[9], "oscillation");
    // Read from SHA-256 objects: 64-digit ids, and patch ids (over the lines) as SHA-1's.
    let history = check["history"].as_array().expect("a history");
    assert_eq!(
        history.len(),
        3,
        "the amend replaced its iteration: {check:#}"
    );
    assert!(
        history
            .iter()
            .all(|it| it["id"].as_str().is_some_and(|id| id.len() == 64))
    );
    assert_eq!(history[0]["patch_id"], history[2]["patch_id"]);
    assert_eq!(history[0]["patch_id"], sha1_check["history"][0]["patch_id"]);
}

/// `git ARGS` with the repository's environment in `dir` (another worktree).
fn git_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> Output {
    let mut cmd = repo.command("git");
    cmd.current_dir(dir).args(args);
    cmd.output().expect("git runs")
}

#[track_caller]
fn refused_unreadable(out: &Output, what: &str) {
    let err = stderr(out);
    assert!(!out.status.success(), "{what} went through:\n{err}");
    assert!(
        err.contains("loopguard: refused: this repository keeps its refs as reftable"),
        "{what}: {err}"
    );
}

/// `git refs migrate --ref-format=reftable`, as git 2.47 does it: a repository with
/// reflogs is refused ("migrating reflogs is not supported yet"), so they go first.
fn migrate_to_reftable(repo: &TestRepo) -> Output {
    std::fs::remove_dir_all(repo.path().join(".git/logs")).expect("the reflogs");
    repo.try_git(&["refs", "migrate", "--ref-format=reftable"])
}

#[test]
fn init_refuses_a_reftable_repository_plainly() {
    let repo = TestRepo::new_with(&["--ref-format=reftable"]);
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    lg(&repo)
        .arg("init")
        .run()
        .code(2)
        .stderr_has("loopguard: error: this repository keeps its refs as reftable (extensions.refStorage in ")
        .stderr_has("hint: loopguard reads refs kept as files only")
        .stderr_has("git refs migrate --ref-format=files");
    assert!(
        !repo.path().join(".git/hooks/pre-commit").exists(),
        "a hook was installed"
    );
    // status says so too, and exits 0 (1 with --exit-code: every gate would refuse).
    let out = lg(&repo).arg("status").run().ok();
    out.stdout_has("guard: not guarded: this repository keeps its refs as reftable");
    lg(&repo).args(["status", "--exit-code"]).run().code(1);
}

#[test]
fn a_reftable_migration_with_the_breaker_closed_makes_every_gate_refuse() {
    let repo = guarded_in(TestRepo::new(), "");
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    assert_eq!(state(&repo), "closed");
    // Nothing is open, so reference-transaction waits disarmed and the migration goes
    // through.
    let out = migrate_to_reftable(&repo);
    assert!(out.status.success(), "{}", stderr(&out));
    // A commit past pre-commit (--no-verify) gets in once: post-commit says so and makes
    // every gate run from now on.
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "past"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("this commit came past the gates"),
        "{}",
        stderr(&out)
    );
    let head = repo.head();
    for (args, what) in [
        (
            &["commit", "-q", "--allow-empty", "-m", "x"][..],
            "a commit",
        ),
        (
            &["commit", "-q", "--allow-empty", "--no-verify", "-m", "x"][..],
            "a commit with --no-verify",
        ),
        (
            &["update-ref", "refs/heads/main", "HEAD~1"][..],
            "update-ref",
        ),
        (&["branch", "other"][..], "a new branch"),
    ] {
        refused_unreadable(&repo.try_git(args), what);
    }
    assert_eq!(repo.head(), head);
    let remote = repo.with_remote();
    refused_unreadable(&repo.try_git(&["push", "-q", "origin", "main"]), "a push");
    assert!(
        remote
            .try_git(&["rev-parse", "-q", "--verify", "refs/heads/main"])
            .stdout
            .is_empty()
    );
    // status: not guarded, and why; no exit 3.
    let out = lg(&repo).arg("status").run().ok();
    out.stdout_has("guard: not guarded: this repository keeps its refs as reftable")
        .stderr_has("hint: loopguard reads refs kept as files only");
    let doc = lg(&repo).args(["status", "--json"]).run().ok().json();
    assert_eq!(doc["guarded"], false);
    assert!(doc["not_guarded"][0].as_str().unwrap().contains("reftable"));
    lg(&repo).args(["status", "--exit-code"]).run().code(1);

    // A person takes the hooks out: nothing refuses any more, and status says so.
    lg(&repo).arg("uninstall").run().ok();
    repo.commit_empty("with the hooks out");
    lg(&repo)
        .arg("status")
        .run()
        .ok()
        .stdout_has("guard: not guarded: this repository keeps its refs as reftable");
}

#[test]
fn the_way_back_from_reftable_is_the_one_the_hint_gives() {
    let repo = guarded_in(TestRepo::new(), "");
    let out = migrate_to_reftable(&repo);
    assert!(out.status.success(), "{}", stderr(&out));
    refused_unreadable(
        &repo.try_git(&["commit", "-q", "--allow-empty", "-m", "x"]),
        "a commit",
    );
    assert!(repo.path().join(".git/loopguard/open/%unreadable").exists());
    // uninstall, move the refs back (no reflog was written since: git 2.47 can), init.
    lg(&repo).arg("uninstall").run().ok();
    let out = repo.try_git(&["refs", "migrate", "--ref-format=files"]);
    assert!(out.status.success(), "{}", stderr(&out));
    lg(&repo).arg("init").run().ok();
    assert_eq!(status(&repo)["guarded"], true);
    assert!(
        !repo.path().join(".git/loopguard/open/%unreadable").exists(),
        "the mark of an unreadable repository is left"
    );
    assert!(
        !repo
            .path()
            .join(".git/hooks/reference-transaction")
            .exists(),
        "reference-transaction stays armed with no breaker open"
    );
    repo.write("src/more.rs", "pub fn more() {}\n");
    repo.commit("More work");
    assert_eq!(state(&repo), "closed");
}

#[test]
fn an_amend_past_the_gates_after_a_reftable_migration_says_what_it_could_not_record() {
    let repo = guarded_in(TestRepo::new(), "");
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    let out = migrate_to_reftable(&repo);
    assert!(out.status.success(), "{}", stderr(&out));
    // The first hook to run is post-commit's, then post-rewrite's: each says its own.
    let out = repo.try_git(&["commit", "-q", "--amend", "--no-verify", "-m", "amended"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("this commit came past the gates"), "{err}");
    assert!(
        err.contains("the commits rewritten here are not recorded; every gate refuses from now on"),
        "{err}"
    );
    refused_unreadable(
        &repo.try_git(&["commit", "-q", "--amend", "--no-verify", "-m", "again"]),
        "a second amend",
    );
}

#[test]
fn a_reftable_migration_while_a_breaker_is_open_gets_nothing_past() {
    let repo = guarded_in(TestRepo::new(), "");
    for i in 0..3 {
        repo.commit_empty(&format!("nothing {i}"));
    }
    assert_eq!(state(&repo), "open");
    let tip = repo.head();
    // Whatever becomes of the migration (reference-transaction refuses it: it would
    // write the stuck branch), nothing gets past afterwards.
    let _ = migrate_to_reftable(&repo);
    for args in [
        &["commit", "-q", "--allow-empty", "-m", "x"][..],
        &["commit", "-q", "--allow-empty", "--no-verify", "-m", "x"][..],
    ] {
        let out = repo.try_git(args);
        assert!(
            !out.status.success(),
            "{args:?} went through: {}",
            stderr(&out)
        );
    }
    assert_eq!(repo.rev_parse("main"), tip);
    lg(&repo).args(["status", "--exit-code"]).run().code(1);
}

#[test]
fn status_in_any_worktree_names_a_worktree_whose_hooks_are_off() {
    let repo = guarded_in(TestRepo::new(), "");
    repo.git(&["config", "extensions.worktreeConfig", "true"]);
    let wt = repo.add_worktree("second", "second");
    let out = git_in(
        &repo,
        &wt,
        &["config", "--worktree", "core.hooksPath", "/dev/null"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Its hooks are off: empty commits go through there.
    for i in 0..4 {
        let out = git_in(
            &repo,
            &wt,
            &[
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                &format!("nothing {i}"),
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let wt_config = repo.path().join(".git/worktrees/second/config.worktree");
    let said = format!(
        "guard: not guarded: the worktree {} runs its hooks from /dev/null (core.hooksPath = /dev/null in the worktree {} git config {}), where post-commit, post-rewrite, pre-commit, pre-push, reference-transaction do not run loopguard",
        wt.display(),
        wt.display(),
        wt_config.display()
    );
    // In the main worktree (whose own hooks guard) and in the second one.
    let main = lg(&repo).arg("status").run().ok();
    main.stdout_has(&said);
    let doc = lg(&repo).args(["status", "--json"]).run().ok().json();
    assert_eq!(doc["guarded"], false, "{doc:#}");
    assert_eq!(
        doc["not_guarded"].as_array().map(Vec::len),
        Some(1),
        "{doc:#}"
    );
    lg(&repo)
        .arg("status")
        .dir(&wt)
        .run()
        .ok()
        .stdout_has(&said);
    // Every gate in the main worktree says so too: a push, a commit.
    let warned = format!(
        "loopguard: warning: not guarded: {}",
        &said["guard: not guarded: ".len()..]
    );
    let _remote = repo.with_remote();
    let out = repo.try_git(&["push", "-q", "origin", "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(&warned), "{}", stderr(&out));
    // The commit is the first to arrive after the change (issue 25, item 1): it is pinned
    // to it, a `constraint` trip, and both keys are set back (tests/it/guard_at_commit.rs).
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "here"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(&warned), "{}", stderr(&out));
    let doc = status(&repo);
    assert_eq!(doc["rule"], "constraint", "{doc:#}");
    assert_eq!(doc["guarded"], true, "{doc:#}");
    // A person resumes: guarded again, and the gates say nothing.
    lg(&repo).arg("resume").run().ok();
    repo.write("src/lib.rs", "pub fn back() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Hooks back on");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("not guarded"), "{}", stderr(&out));
}

#[test]
fn a_hooks_path_set_through_an_include_or_in_capitals_is_named() {
    let repo = guarded_in(TestRepo::new(), "");
    let inc = repo.home().join("hooks-off.inc");
    std::fs::write(&inc, "[core]\n\thooksPath = /dev/null\n").expect("write");
    repo.git(&["config", "include.path", &inc.display().to_string()]);
    // Four empty commits go through: with the hooks on, the fourth would be refused.
    for i in 0..4 {
        repo.commit_empty(&format!("nothing {i}"));
    }
    lg(&repo)
        .arg("status")
        .run()
        .ok()
        .stdout_has("guard: not guarded: loopguard's hooks are not installed here")
        .stdout_has(&format!(
            "runs its hooks from /dev/null (core.hooksPath = /dev/null in the local git config {})",
            inc.display()
        ));
    repo.git(&["config", "--unset", "include.path"]);
    assert_eq!(status(&repo)["guarded"], true);

    // `git config CORE.HOOKSPATH /dev/null`: the key whatever its spelling.
    repo.git(&["config", "CORE.HOOKSPATH", "/dev/null"]);
    let config = repo.path().join(".git/config");
    lg(&repo).arg("status").run().ok().stdout_has(&format!(
        "runs its hooks from /dev/null (core.hooksPath = /dev/null in the local git config {})",
        config.display()
    ));
    assert_eq!(status(&repo)["guarded"], false);
}

/// A guarded repository with a submodule `sub` (cloned from a repository of its own, its
/// objects in `.git/modules/sub`), added by a person before the agent starts.
fn with_submodule() -> TestRepo {
    let repo = guarded_in(TestRepo::new(), "");
    let origin = TestRepo::new();
    origin.write("lib.txt", "one\n");
    origin.commit("Library");
    repo.author("Maintainer", "maintainer@example.com");
    let url = origin.path().display().to_string();
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &url,
        "sub",
    ]);
    repo.tick();
    repo.git(&["commit", "-q", "-m", "Add the submodule"]);
    repo.as_agent();
    assert!(repo.path().join(".git/modules/sub").is_dir());
    repo
}

/// In the submodule: a commit (empty, or writing `content` to a file), then the bump in
/// the superproject, with the hooks on. Whether the bump went through.
fn bump(repo: &TestRepo, content: Option<&str>) -> bool {
    let sub = repo.path().join("sub");
    repo.tick();
    if let Some(content) = content {
        std::fs::write(sub.join("lib.txt"), content).expect("write");
        assert!(git_in(repo, &sub, &["add", "-A"]).status.success());
    }
    let out = git_in(repo, &sub, &["commit", "-q", "--allow-empty", "-m", "work"]);
    assert!(out.status.success(), "{}", stderr(&out));
    repo.git(&["add", "sub"]);
    repo.try_git(&["commit", "-q", "-m", "Bump the submodule"])
        .status
        .success()
}

#[test]
fn a_submodule_bump_is_progress_only_when_the_submodule_changed() {
    let repo = with_submodule();
    // Real work in the submodule: each bump is progress.
    for i in 0..4 {
        assert!(
            bump(&repo, Some(&format!("v{i}\n"))),
            "a real bump was refused"
        );
    }
    let s = status(&repo);
    assert_eq!(s["state"], "closed");
    assert_eq!(s["counters"]["stagnation"]["count"], 0);
    // Empty commits in the submodule, bumped one after another: no progress.
    for _ in 0..3 {
        assert!(bump(&repo, None));
    }
    let s = status(&repo);
    assert_eq!(
        (s["state"].as_str(), s["rule"].as_str()),
        (Some("open"), Some("stagnation")),
        "{s:#}"
    );
    assert!(
        s["reason"].as_str().unwrap().starts_with(
            "no progress in 3 iterations in a row (3 submodule bumps that change nothing;"
        ),
        "{s:#}"
    );
    assert!(!bump(&repo, None), "the fourth empty bump went through");
    // check reads the history the same way.
    let check = lg(&repo).args(["check", "--json"]).run().code(1).json();
    assert_eq!(check["rule"], "stagnation");
}

#[test]
fn a_bump_to_a_commit_loopguard_cannot_read_is_no_progress() {
    let repo = with_submodule();
    // Gitlinks to commits the submodule does not have (written with update-index, as an
    // agent can): nothing shows a change.
    for i in 0..3 {
        let id = format!("{:040x}", 0xabc0 + i);
        repo.git(&["update-index", "--cacheinfo", &format!("160000,{id},sub")]);
        repo.tick();
        repo.git(&["commit", "-q", "-m", "Bump to nowhere"]);
    }
    let s = status(&repo);
    assert_eq!(
        (s["state"].as_str(), s["rule"].as_str()),
        (Some("open"), Some("stagnation")),
        "{s:#}"
    );
}

/// The store's `runs/` put aside and a file left in its place: loopguard cannot read its
/// state at all.
fn break_the_store(repo: &TestRepo) -> std::path::PathBuf {
    let runs = repo.path().join(".git/loopguard/runs");
    let aside = repo.path().join(".git/runs-aside");
    std::fs::rename(&runs, &aside).expect("put aside");
    std::fs::write(&runs, "not a directory\n").expect("write");
    aside
}

fn mend_the_store(repo: &TestRepo, aside: &Path) {
    let runs = repo.path().join(".git/loopguard/runs");
    std::fs::remove_file(&runs).expect("remove");
    std::fs::rename(aside, &runs).expect("put back");
}

#[test]
fn status_says_not_guarded_when_loopguard_cannot_read_its_state() {
    // With no breaker open, the hooks let git go on (fail open), and status says so.
    let repo = guarded_in(TestRepo::new(), "");
    repo.write("src/agent.rs", "pub fn agent() {}\n");
    repo.commit("Agent work");
    let aside = break_the_store(&repo);
    let out = lg(&repo).arg("status").run().ok();
    out.stdout_has("breaker: unknown (loopguard cannot read its state)")
        .stdout_has("guard: not guarded: loopguard cannot read its state (")
        .stdout_has("its hooks let every commit and push through (fail open) until it can");
    let doc = lg(&repo).args(["status", "--json"]).run().ok().json();
    assert_eq!(doc["guarded"], false, "{doc:#}");
    lg(&repo).args(["status", "--exit-code"]).run().code(0);
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "past"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("(fail open)"), "{}", stderr(&out));
    mend_the_store(&repo, &aside);
    assert_eq!(status(&repo)["guarded"], true);

    // With a breaker open, every gate refuses, and status says that. (The commit that
    // came past is caught up: an empty one.)
    for i in 0..2 {
        repo.commit_empty(&format!("nothing {i}"));
    }
    assert_eq!(state(&repo), "open");
    let aside = break_the_store(&repo);
    lg(&repo)
        .arg("status")
        .run()
        .ok()
        .stdout_has("every gate refuses until it can (a breaker may be open)");
    lg(&repo).args(["status", "--exit-code"]).run().code(1);
    let out = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "past"]);
    assert!(!out.status.success(), "the commit went through");
    mend_the_store(&repo, &aside);
    assert_eq!(state(&repo), "open");
}

#[test]
fn a_config_git_cannot_read_is_named_not_taken_for_no_repository() {
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    let config = repo.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).expect("read");
    text.push_str("[core\n");
    let line = text.lines().count();
    std::fs::write(&config, text).expect("write");
    // git itself refuses the repository (and so runs no hook).
    assert!(!repo.try_git(&["status"]).status.success());
    let git_dir = repo.path().join(".git");
    let cannot = format!("cannot open the git repository {}: ", git_dir.display());
    lg(&repo)
        .arg("init")
        .run()
        .code(2)
        .stderr_has(&format!(
            "loopguard: error: {cannot}git says: bad config line {line} in file .git/config"
        ))
        .stderr_has("hint: fix the file and line named");
    let out = lg(&repo).arg("status").run().ok();
    out.stdout_has("breaker: unknown (loopguard cannot read this repository)")
        .stdout_has(&format!("guard: not guarded: {cannot}"))
        .stderr_has("hint: fix the file and line named");
    let doc = lg(&repo).args(["status", "--json"]).run().ok().json();
    assert_eq!(doc["guarded"], false, "{doc:#}");
    // Mended, it is a repository like any other.
    let text = std::fs::read_to_string(&config).expect("read");
    std::fs::write(&config, text.trim_end().trim_end_matches("[core")).expect("write");
    lg(&repo).args(["init", "--no-preview"]).run().ok();
    assert_eq!(status(&repo)["guarded"], true);
}
