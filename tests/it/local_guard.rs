//! The local guard end to end: real repositories, real `git` commits running the real
//! hooks that `loopguard init` installs, the real binary.

use std::fmt::Write as _;
use std::path::Path;

use crate::support::{Ran, TestRepo, bin, lg as lg_cmd, lg_at, productive};
use serde_json::Value;

/// `loopguard ARGS` in `dir`.
fn lg_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> Ran {
    lg_cmd(repo).dir(dir).args(args).run()
}

fn lg(repo: &TestRepo, args: &[&str]) -> Ran {
    lg_cmd(repo).args(args).run()
}

fn ok(out: &Ran) -> String {
    out.clone().ok().stdout
}

/// What a git command (running the hooks) printed on stderr.
fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn status_in(repo: &TestRepo, dir: &Path) -> Value {
    lg_in(repo, dir, &["status", "--json"]).ok().json()
}

fn status(repo: &TestRepo) -> Value {
    crate::support::status(repo)
}

fn state(repo: &TestRepo) -> String {
    crate::support::state(repo)
}

fn guarded() -> TestRepo {
    crate::support::guarded("")
}

#[test]
fn stagnation_trips_at_exactly_three_empty_commits() {
    let repo = guarded();
    repo.commit_empty("Initial plan");
    repo.commit_empty("Re-trigger CI");
    assert_eq!(state(&repo), "closed");
    let third = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "Try again"]);
    assert!(third.status.success(), "post-commit never fails a commit");
    let s = status(&repo);
    assert_eq!(s["state"], "open");
    assert_eq!(s["rule"], "stagnation");
    assert_eq!(s["terminal_status"], "aborted_stuck");
    assert_eq!(s["counters"]["stagnation"]["count"], 3);
    assert!(
        stderr(&third).contains("the breaker opened (stagnation)"),
        "{}",
        stderr(&third)
    );
    // The report was written to the store.
    let reports = repo.path().join(".git/loopguard/reports");
    assert_eq!(std::fs::read_dir(reports).unwrap().count(), 1);
}

#[test]
fn oscillation_a_b_a_b_trips_at_the_fourth_commit() {
    let repo = guarded();
    let variants = ["41", "42", "41", "42"];
    for (i, v) in variants.iter().enumerate() {
        assert_eq!(state(&repo), "closed", "before commit {}", i + 1);
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{\n    {v}\n}}\n"),
        );
        repo.write("notes.txt", if i % 2 == 0 { "A\n" } else { "B\n" });
        repo.commit("Adjust the answer");
    }
    let s = status(&repo);
    assert_eq!(s["rule"], "oscillation", "{s}");
    assert_eq!(s["counters"]["oscillation"]["count"], 2);
}

#[test]
fn a_reverted_patch_applied_again_trips_repeated_patch() {
    let repo = guarded();
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    let p = repo.commit("Fix the answer");
    repo.revert(&p);
    repo.write("src/extra.rs", "pub fn extra() {}\n");
    repo.commit("Add extra");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    repo.commit("Fix the answer again");
    repo.write("src/more.rs", "pub fn more() {}\n");
    repo.commit("Add more");
    assert_eq!(state(&repo), "closed");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    41\n}\n");
    repo.commit("Revert the answer once more");
    let s = status(&repo);
    assert_eq!(s["rule"], "repeated_patch", "{s}");
    assert_eq!(s["counters"]["repeated_patch"]["count"], 2);
    assert_eq!(
        s["counters"]["oscillation"]["count"], 0,
        "the revert is behind new work"
    );
}

#[test]
fn done_claims_with_no_evidence_source_cannot_be_judged_unless_evidence_is_required() {
    // No test run was ever recorded: the rule says it cannot judge instead of tripping.
    let repo = guarded();
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.commit("Done: implemented the feature");
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.commit("All tests pass now");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    let notes = s["notes"].to_string();
    assert!(
        notes.contains("false_completion") && notes.contains("cannot judge"),
        "{s}"
    );
    let report = ok(&lg(&repo, &["report"]));
    assert!(report.contains("cannot judge"), "{report}");

    // With `require_evidence: true`, missing evidence counts as a false claim.
    let repo = TestRepo::new();
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    41\n}\n");
    repo.write(
        ".loopguard.yml",
        "rules:\n  false_completion: {require_evidence: true}\n",
    );
    repo.commit("Initial commit");
    ok(&lg(&repo, &["init"]));
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.commit("Done: implemented the feature");
    assert_eq!(state(&repo), "closed");
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.commit("All tests pass now");
    let s = status(&repo);
    assert_eq!(s["rule"], "false_completion", "{s}");
}

#[test]
fn touching_the_guard_config_trips_constraint_at_once() {
    let repo = guarded();
    repo.write(".loopguard.yml", "rules:\n  stagnation: {threshold: 50}\n");
    repo.commit("Tune settings");
    let s = status(&repo);
    assert_eq!(s["state"], "open");
    assert_eq!(s["rule"], "constraint");
    assert_eq!(s["terminal_status"], "aborted_constraint");
    assert!(s["reason"].as_str().unwrap().contains(".loopguard.yml"));
}

#[test]
fn committing_the_config_loopguard_started_with_is_setup() {
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    ok(&lg(&repo, &["init", "--profile", "strict"]));
    repo.commit("Add loopguard config");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(s["profile"], "strict");
    assert_eq!(s["iterations"], 0);
}

#[test]
fn ignoring_the_test_that_fails_trips_constraint_and_one_with_no_evidence_warns() {
    let tests = |ignore: &str| {
        format!(
            "pub fn count(s: &str) -> usize {{\n    s.split(' ').count()\n}}\n\n#[cfg(test)]\nmod tests {{\n    #[test]\n    {ignore}fn counts_three_words() {{\n        assert_eq!(super::count(\"a b  c\"), 3);\n    }}\n\n    #[test]\n    fn parses_pair() {{}}\n}}\n"
        )
    };
    let repo = guarded();
    repo.write("src/lib.rs", tests(""));
    repo.commit("Count words");
    // cargo's own output: tests::counts_three_words fails.
    crate::support::run_log(&repo, "cargo/assert-count/plain.log", 101);
    repo.write("src/lib.rs", tests("#[ignore]\n    "));
    repo.commit("Skip the flaky test");
    let s = status(&repo);
    assert_eq!(s["rule"], "constraint", "{s}");
    let reason = s["reason"].as_str().unwrap();
    assert!(
        reason.contains("skipped the failing test counts_three_words in src/lib.rs: #[ignore]"),
        "{reason}"
    );

    // The same skip with no evidence either way: a warning, not a trip.
    let repo = guarded();
    repo.write("src/lib.rs", tests(""));
    repo.commit("Count words");
    repo.write("src/lib.rs", tests("#[ignore]\n    "));
    repo.commit("Skip the slow test");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    let events: Value = serde_json::from_str(&ok(&lg(&repo, &["report", "--json"]))).unwrap();
    let warned = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "warn" && e["rule"] == "constraint");
    assert!(warned, "{events}");
}

#[test]
fn twelve_commits_of_new_content_never_trip() {
    let repo = guarded();
    productive(&repo, 12, "feature");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(s["iterations"], 12);
}

#[test]
fn slow_incremental_progress_never_trips() {
    let repo = guarded();
    let mut body = String::new();
    for i in 0..15 {
        let _ = writeln!(body, "// step {i}");
        repo.write("src/slow.rs", &body);
        repo.commit(&format!("Small step {i}"));
        if i % 4 == 0 {
            repo.commit_empty("Re-trigger CI");
        }
    }
    assert_eq!(status(&repo)["state"], "closed");
}

#[test]
fn a_rebase_of_five_commits_is_not_five_new_attempts() {
    let repo = guarded();
    repo.checkout_new("feature");
    productive(&repo, 5, "feature");
    repo.checkout("main");
    repo.author("Maintainer", "maintainer@example.com");
    repo.write("CHANGELOG.md", "news\n");
    repo.commit("Changelog");
    repo.checkout("feature");
    repo.as_agent();
    let before = status(&repo);
    assert_eq!(before["iterations"], 5);
    repo.rebase("main");
    let after = status(&repo);
    assert_eq!(after["state"], "closed", "{after}");
    assert_eq!(after["iterations"], 5);
    assert_eq!(after["counters"]["repeated_patch"]["count"], 0);
    // The run follows the rewritten commits.
    let report: Value = serde_json::from_str(&ok(&lg(&repo, &["report", "--json"]))).unwrap();
    let ids: Vec<&str> = report["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| it["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.last().copied(), Some(repo.head().as_str()));
    // Amending is a rewrite too.
    repo.write("src/feature_4.rs", "pub fn f4() -> usize { 44 }\n");
    repo.amend("Add feature step 4, fixed");
    let s = status(&repo);
    assert_eq!(s["iterations"], 5, "{s}");
    assert_eq!(s["state"], "closed");
}

#[test]
fn a_merge_from_main_is_context() {
    let repo = guarded();
    repo.checkout_new("feature");
    productive(&repo, 3, "feature");
    repo.checkout("main");
    repo.author("Maintainer", "maintainer@example.com");
    productive(&repo, 3, "main");
    repo.checkout("feature");
    repo.as_agent();
    repo.merge("main", "Merge main into feature");
    productive(&repo, 2, "after");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(s["iterations"], 5);
}

#[test]
fn half_open_closes_on_progress_and_reopens_without() {
    let repo = guarded();
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    assert_eq!(state(&repo), "open");

    // pre-commit refuses while open, with the rule, the reason and the command to resume.
    repo.write("src/x.rs", "pub fn x() {}\n");
    repo.git(&["add", "-A"]);
    let refused = repo.try_git(&["commit", "-q", "-m", "more"]);
    assert!(!refused.status.success());
    let msg = stderr(&refused);
    assert!(msg.contains("refused: the breaker is open"), "{msg}");
    assert!(msg.contains("rule:   stagnation"), "{msg}");
    assert!(msg.contains("loopguard resume"), "{msg}");
    repo.git(&["reset", "-q"]);
    repo.remove("src/x.rs");

    ok(&lg(&repo, &["resume"]));
    assert_eq!(state(&repo), "half_open");
    repo.commit_empty("still nothing");
    let s = status(&repo);
    assert_eq!(s["state"], "open", "no progress after resume reopens: {s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .starts_with("no progress after resume")
    );

    ok(&lg(&repo, &["resume"]));
    repo.write("src/real.rs", "pub fn real() {}\n");
    repo.commit("Real work at last");
    let s = status(&repo);
    assert_eq!(s["state"], "closed", "{s}");
    assert_eq!(s["counters"]["stagnation"]["count"], 0);
    // The event log has every transition.
    let report: Value = serde_json::from_str(&ok(&lg(&repo, &["report", "--json"]))).unwrap();
    let kinds: Vec<&str> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["trip", "resume", "reopen", "resume", "close"]);
}

#[test]
fn pre_push_refuses_an_open_branch() {
    let repo = guarded();
    let _remote = repo.with_remote();
    for _ in 0..3 {
        repo.commit_empty("nothing");
    }
    let push = repo.try_git(&["push", "-q", "origin", "main"]);
    assert!(!push.status.success());
    assert!(
        stderr(&push).contains("refused: the breaker is open on main"),
        "{}",
        stderr(&push)
    );
    ok(&lg(&repo, &["reset"]));
    let push = repo.try_git(&["push", "-q", "origin", "main"]);
    assert!(push.status.success(), "{}", stderr(&push));
}

#[test]
fn an_existing_hook_keeps_running_and_uninstall_restores_it() {
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.commit("Initial commit");
    let hook = repo.path().join(".git/hooks/post-commit");
    let original = "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/mine.log\"\n";
    std::fs::write(&hook, original).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o750)).unwrap();
    }
    ok(&lg(&repo, &["init"]));
    let second = lg(&repo, &["init"]);
    ok(&second);
    assert!(second.stderr.contains("already installed"));
    repo.write("a.txt", "a\n");
    repo.commit("One");
    let log = repo.path().join(".git/mine.log");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "ran\n");
    assert_eq!(status(&repo)["iterations"], 1);

    ok(&lg(&repo, &["uninstall"]));
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), original);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&hook).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o750);
    }
    for name in ["pre-commit", "pre-push", "post-rewrite"] {
        assert!(
            !repo.path().join(".git/hooks").join(name).exists(),
            "{name}"
        );
    }
    repo.write("b.txt", "b\n");
    repo.commit("Two");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "ran\nran\n");
    // No hook recorded it: status judges it as a hook would, and says so.
    let after = lg(&repo, &["status", "--json"]);
    assert!(
        after
            .stderr
            .contains("1 commit(s) that no hook recorded are judged here too"),
        "no longer recorded: {}",
        after.stderr
    );
    assert_eq!(after.json()["guarded"], false);
}

#[test]
fn hooks_go_to_core_hooks_path_and_chain_what_is_there() {
    // A hooks directory git ignores: nothing loopguard writes there gets committed
    // (tests/it/hook_gates.rs covers one that would be).
    let repo = TestRepo::new();
    repo.write("README.md", "demo\n");
    repo.write(".gitignore", ".githooks/\nlint.log\n");
    repo.commit("Initial commit");
    repo.write(".githooks/pre-commit", "#!/bin/sh\necho lint >> lint.log\n");
    repo.chmod_x(".githooks/pre-commit");
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    ok(&lg(&repo, &["init"]));
    assert!(repo.path().join(".githooks/post-commit").exists());
    repo.write("a.txt", "a\n");
    repo.commit("One");
    assert_eq!(repo.read("lint.log").as_deref(), Some("lint\n"));
    assert_eq!(status(&repo)["iterations"], 1);
}

#[test]
fn two_worktrees_committing_at_once_lose_nothing() {
    let repo = guarded();
    let a = repo.add_worktree("wt-a", "agent-a");
    let b = repo.add_worktree("wt-b", "agent-b");
    let handles: Vec<_> = [a.clone(), b.clone()]
        .into_iter()
        .map(|dir| {
            let env = repo.env();
            std::thread::spawn(move || {
                for i in 0..8 {
                    std::fs::write(dir.join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
                    let run = |args: &[&str]| {
                        let out = std::process::Command::new("git")
                            .args(args)
                            .current_dir(&dir)
                            .envs(env.iter().cloned())
                            .env_remove("GIT_DIR")
                            .output()
                            .unwrap();
                        assert!(out.status.success(), "{}", stderr(&out));
                    };
                    run(&["add", "-A"]);
                    run(&["commit", "-q", "-m", &format!("step {i}")]);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    for dir in [&a, &b] {
        let s = status_in(&repo, dir);
        assert_eq!(s["iterations"], 8, "{}: {s}", dir.display());
    }
}

#[test]
fn hooks_racing_on_one_commit_record_it_once() {
    let repo = guarded();
    repo.write("x.txt", "x\n");
    repo.git(&["-c", "core.hooksPath=/dev/null", "add", "-A"]);
    repo.git(&["-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "x"]);
    let children: Vec<_> = (0..6)
        .map(|_| {
            let mut cmd = repo.command(bin());
            cmd.args(["hook", "post-commit"]);
            cmd.spawn().unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    assert_eq!(status(&repo)["iterations"], 1);
}

#[test]
fn commits_made_with_hooks_off_are_caught_up() {
    let repo = guarded();
    for i in 0..2 {
        repo.commit_hooks_off(&format!("quiet {i}"));
    }
    repo.commit_empty("loud");
    let s = status(&repo);
    assert_eq!(s["iterations"], 3);
    assert_eq!(s["rule"], "stagnation");
}

#[test]
fn malformed_config_names_its_file_line_and_key_and_never_switches_the_guard_off() {
    // Before loopguard is set up the file is the config: an error, exit 2.
    let repo = TestRepo::new();
    repo.write(
        ".loopguard.yml",
        "window: 10\nrules:\n  stagnation: {threshold: 3, bogus: 1}\n",
    );
    for args in [&["status"][..], &["init"]] {
        let out = lg(&repo, args);
        assert_eq!(out.code, Some(2), "{args:?}");
        let err = out.stderr;
        assert!(err.contains(".loopguard.yml:3:"), "{err}");
        assert!(err.contains("rules.stagnation.bogus"), "{err}");
        assert!(err.contains("unknown field"), "{err}");
    }

    // Once it is set up, the run is judged by the config it started with: a broken file in
    // the working tree is named in a warning, and the guard goes on.
    let repo = guarded();
    repo.write(".loopguard.yml", "window: ten\n");
    let out = lg(&repo, &["status"]);
    assert_eq!(out.code, Some(0));
    assert!(
        out.stderr.contains(".loopguard.yml:1:9: window:"),
        "{}",
        out.stderr
    );
    // A file named on purpose must be valid.
    let out = lg(&repo, &["check", "--config", ".loopguard.yml"]);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr.contains(".loopguard.yml:1:9: window:"),
        "{}",
        out.stderr
    );

    // A hook records the commit; nothing fails open.
    let commit = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "still works"]);
    assert!(commit.status.success());
    assert!(
        !stderr(&commit).contains("fail open"),
        "{}",
        stderr(&commit)
    );
    assert_eq!(status(&repo)["iterations"], 1);
}

#[test]
fn a_corrupt_state_file_is_kept_aside_and_rebuilt_from_git() {
    let repo = guarded();
    repo.checkout_new("feature");
    productive(&repo, 2, "x");
    repo.commit_empty("a");
    repo.commit_empty("b");
    let runs = repo.path().join(".git/loopguard/runs");
    let file = runs.join("feature.json");
    std::fs::write(&file, b"{\"format\": 1, \"id\": \"tru").unwrap();

    // Readers say what is wrong, with exit 2.
    let out = lg(&repo, &["status"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("corrupt"), "{}", out.stderr);

    // The next hook keeps the file aside and rebuilds the run from history.
    let commit = repo.try_git(&["commit", "-q", "--allow-empty", "-m", "c"]);
    assert!(commit.status.success());
    let err = stderr(&commit);
    assert!(err.contains("kept as"), "{err}");
    let kept: Vec<_> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("feature.json.corrupt-"))
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        std::fs::read(runs.join(&kept[0])).unwrap(),
        b"{\"format\": 1, \"id\": \"tru"
    );
    let s = status(&repo);
    assert_eq!(s["iterations"], 5, "{s}");
    assert_eq!(s["rule"], "stagnation");
}

#[test]
fn check_is_stateless_and_gates() {
    let repo = guarded();
    let base = repo.head();
    productive(&repo, 2, "x");
    for _ in 0..3 {
        repo.commit_hooks_off("noop");
    }
    let store = repo.path().join(".git/loopguard/runs/main.json");
    let before = std::fs::read(&store).unwrap();
    let out = lg(
        &repo,
        &["check", "--range", &format!("{base}..HEAD"), "--json"],
    );
    assert_eq!(out.code, Some(1));
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["rule"], "stagnation");
    assert_eq!(doc["history"].as_array().unwrap().len(), 5);
    assert_eq!(
        std::fs::read(&store).unwrap(),
        before,
        "check writes nothing"
    );

    let out = lg(&repo, &["check", "--range", &format!("{base}..HEAD~3")]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let out = lg(&repo, &["check", "--range", "nope..HEAD"]);
    assert_eq!(out.code, Some(2));
}

#[test]
fn replay_reads_records_and_names_bad_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("it.jsonl");
    let lines: Vec<String> = (0..3)
        .map(|i| format!(r#"{{"id":"c{i}","tree":"t","parent_tree":"t","files":[]}}"#))
        .collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let doc = lg_at(tmp.path())
        .args(["replay", "--json", file.to_str().unwrap()])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["rule"], "stagnation");

    std::fs::write(&file, format!("{}\nnot json\n", lines[0])).unwrap();
    lg_at(tmp.path())
        .args(["replay", file.to_str().unwrap()])
        .run()
        .code(2)
        .stderr_has("it.jsonl:2: not an iteration record");
}

#[test]
fn detached_head_root_commit_and_shallow_clone() {
    // A root commit is an iteration like any other.
    let repo = TestRepo::new();
    ok(&lg(&repo, &["init"]));
    repo.write("a.txt", "a\n");
    repo.commit("Root");
    assert_eq!(status(&repo)["iterations"], 1);

    // Detached HEAD: commits are recorded under `(detached)`, with a warning at init.
    repo.checkout(&repo.head());
    let out = lg(&repo, &["init"]);
    assert!(out.stderr.contains("detached"), "{}", out.stderr);
    repo.commit_empty("d1");
    assert_eq!(status(&repo)["iterations"], 1);

    // A shallow clone: check works over the history it has.
    let source = TestRepo::new();
    for i in 0..6 {
        source.write("f.txt", format!("{i}\n"));
        source.commit(&format!("c{i}"));
    }
    let shallow = TestRepo::clone_from(&source, &["--depth", "3"]);
    let out = lg(&shallow, &["check", "--range", "HEAD", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["history"].as_array().unwrap().len(), 3);
}

#[test]
fn not_a_repository_is_exit_3() {
    let tmp = tempfile::tempdir().unwrap();
    lg_at(tmp.path())
        .env("GIT_CEILING_DIRECTORIES", tmp.path().parent().unwrap())
        .arg("status")
        .run()
        .code(3)
        .stderr_has("not a git repository");
}

#[test]
fn completions_print_a_script() {
    let tmp = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = lg_at(tmp.path())
            .args(["completions", shell])
            .run()
            .ok()
            .stdout_has("loopguard");
        // Every subcommand is offered.
        for sub in ["init", "status", "replay", "resume", "reset"] {
            assert!(
                out.stdout.contains(sub),
                "{shell}: no {sub}:\n{}",
                out.stdout
            );
        }
    }
    // The bash script is valid bash.
    let script = tmp.path().join("loopguard.bash");
    std::fs::write(
        &script,
        lg_at(tmp.path())
            .args(["completions", "bash"])
            .run()
            .ok()
            .stdout,
    )
    .unwrap();
    let check = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", stderr(&check));
    lg_at(tmp.path())
        .args(["completions", "tcsh"])
        .run()
        .code(2);
}
