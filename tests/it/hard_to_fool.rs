//! Hard to fool, hard to break (issue 9), the store and the run: no way past an open
//! breaker, and no input that loses a commit. Real repositories, real `git` running the
//! hooks `loopguard init` installs, the real binary.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{
    Ran, TestRepo, fixture, git_within, guarded, lg, productive, replay_log, state, status,
};
use serde_json::Value;

/// Long enough for a slow machine, short enough that a read blocked forever shows.
const LIMIT: Duration = Duration::from_secs(60);

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Commits that each add new content, made with the hooks off; their ids, oldest first.
fn quiet(repo: &TestRepo, n: usize, tag: &str) -> Vec<String> {
    (0..n)
        .map(|i| {
            repo.write(
                &format!("src/{tag}_{i}.rs"),
                format!("pub fn q{i}() {{}}\n"),
            );
            repo.commit_hooks_off(&format!("Quietly add {tag} {i}"))
        })
        .collect()
}

/// Three empty commits: `stagnation` opens the breaker.
fn get_stuck(repo: &TestRepo) {
    for i in 0..3 {
        repo.commit_empty(&format!("try {i}"));
    }
    assert_eq!(state(repo), "open");
}

fn store(repo: &TestRepo) -> PathBuf {
    repo.path().join(".git/loopguard")
}

/// The event log of `branch`, as `report --json` on it would not show it: the raw lines.
fn event_kinds(repo: &TestRepo) -> Vec<String> {
    let doc = lg(repo).args(["report", "--json"]).run().ok().json();
    doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["kind"].as_str().expect("a kind").to_owned())
        .collect()
}

fn history_ids(repo: &TestRepo) -> Vec<String> {
    let doc = lg(repo).args(["report", "--json"]).run().ok().json();
    doc["history"]
        .as_array()
        .expect("history")
        .iter()
        .map(|it| it["id"].as_str().expect("an id").to_owned())
        .collect()
}

// 2. The config in force is the one the run started with.

#[test]
fn an_uncommitted_config_edit_does_not_let_commits_past_an_open_breaker() {
    let repo = guarded("");
    get_stuck(&repo);
    repo.write(".loopguard.yml", "on_trip: {action: alert}\n");
    for i in 0..6 {
        repo.write("src/x.rs", format!("pub fn x() -> u32 {{ {i} }}\n"));
        repo.git(&["add", "src/x.rs"]);
        let out = repo.try_commit_staged(&format!("more {i}"));
        assert!(!out.status.success(), "commit {i} went through");
        let err = stderr(&out);
        assert!(err.contains("refused: the breaker is open"), "{err}");
        assert!(
            err.contains(".loopguard.yml") && err.contains("ignored"),
            "{err}"
        );
    }
    let s = lg(&repo).args(["status", "--json"]).run().ok();
    assert!(s.stderr.contains("ignored"), "{}", s.stderr);
    assert_eq!(s.json()["state"], "open");
    // The edit left one event (not one per hook), for the record.
    let kinds = event_kinds(&repo);
    assert_eq!(
        kinds.iter().filter(|k| *k == "config_ignored").count(),
        1,
        "{kinds:?}"
    );
}

#[test]
fn a_broken_working_tree_config_does_not_switch_the_guard_off() {
    let repo = guarded("");
    repo.write(".loopguard.yml", "window: [\n");
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.git(&["add", "src/a.rs"]);
    let out = repo.try_commit_staged("Add a");
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("fail open"), "{err}");
    assert!(
        err.contains(".loopguard.yml:"),
        "the warning names the file: {err}"
    );

    let s = lg(&repo).args(["status", "--json"]).run().ok();
    assert!(s.stderr.contains(".loopguard.yml:1"), "{}", s.stderr);
    assert_eq!(s.json()["iterations"], 1, "the commit was recorded");

    // The guard still guards: three empty commits trip it, and the open breaker refuses.
    get_stuck(&repo);
    repo.git(&["add", "src/a.rs"]);
    let out = repo.try_commit_staged("again");
    assert!(!out.status.success(), "{}", stderr(&out));

    // `check` judges by the config in force too; a file named on purpose must be valid.
    lg(&repo).arg("check").run().code(1);
    lg(&repo)
        .args(["check", "--config", ".loopguard.yml"])
        .run()
        .code(2)
        .stderr_has(".loopguard.yml:1");
}

#[test]
fn a_person_changes_the_policy_with_reset_accept_config() {
    let repo = guarded("");
    repo.write(".loopguard.yml", "rules:\n  stagnation: {threshold: 5}\n");
    get_stuck(&repo);
    let s = status(&repo);
    assert_eq!(s["counters"]["stagnation"]["threshold"], 3, "{s}");

    // A broken file cannot be accepted.
    let good = repo.read(".loopguard.yml").unwrap();
    repo.write(".loopguard.yml", "window: [\n");
    lg(&repo)
        .args(["reset", "--accept-config"])
        .run()
        .code(2)
        .stderr_has(".loopguard.yml:1");
    assert_eq!(state(&repo), "open", "nothing changed");

    repo.write(".loopguard.yml", &good);
    lg(&repo)
        .args(["reset", "--accept-config"])
        .run()
        .ok()
        .stdout_has("accepted");
    let s = status(&repo);
    assert_eq!(s["state"], "closed");
    assert_eq!(s["counters"]["stagnation"]["threshold"], 5, "{s}");
    assert_eq!(s["config"]["commit"], repo.head().as_str(), "{s}");
    for i in 0..4 {
        repo.commit_empty(&format!("nothing {i}"));
    }
    assert_eq!(state(&repo), "closed", "4 < 5");
    // Committing exactly the accepted file is setup, not a violation.
    repo.git(&["add", ".loopguard.yml"]);
    let out = repo.try_commit_staged("Accept the new policy");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(state(&repo), "closed");
}

// 5. A fresh branch is not a fresh start.

#[test]
fn a_branch_from_an_open_run_inherits_its_breaker() {
    let repo = guarded("");
    let _remote = repo.with_remote();
    repo.checkout_new("stuck");
    productive(&repo, 2, "s");
    get_stuck(&repo);

    // From the run's tip.
    repo.checkout_new("stuck-2");
    repo.write("src/y.rs", "pub fn y() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("carry on elsewhere");
    assert!(!out.status.success(), "the loop went on under another name");
    assert!(
        stderr(&out).contains("refused: the breaker is open on stuck-2"),
        "{}",
        stderr(&out)
    );
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["rule"], "stagnation");
    repo.git(&["reset", "-q"]);

    // From a commit inside the run.
    repo.git(&["checkout", "-q", "-b", "stuck-3", "stuck~2"]);
    repo.git(&["add", "-A"]);
    assert!(!repo.try_commit_staged("and again").status.success());
    repo.git(&["reset", "-q"]);

    // Pushing a new branch that points into the open run is refused as well.
    repo.git(&["branch", "stuck-4", "stuck"]);
    let push = repo.try_git(&["push", "-q", "origin", "stuck-4"]);
    assert!(!push.status.success(), "{}", stderr(&push));

    // A branch from main shares only the history from before the run, but while the
    // breaker is open the agent's new work there is no fresh start either (issue 16.7):
    // it continues the stuck run. (A person's, with `agents` configured, is a run of its
    // own: keeps_its_word.rs.)
    repo.git(&["checkout", "-q", "-f", "main"]);
    repo.checkout_new("fresh");
    repo.write("src/f.rs", "pub fn f() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("start afresh");
    assert!(!out.status.success(), "a fresh start past an open breaker");
    assert!(
        stderr(&out).contains("the agent's new work"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("open on stuck"), "{}", stderr(&out));
}

// 6. One branch, one state file, over the bytes of its name.

#[cfg(unix)]
#[test]
fn branches_whose_names_differ_in_invalid_utf8_keep_separate_runs() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let repo = guarded("");
    let a = OsStr::from_bytes(b"side\xff");
    let b = OsStr::from_bytes(b"side\xfe");
    let git = |args: &[&OsStr]| repo.git_os(args);
    // Two branches, each with a run of its own, whose names differ in one byte.
    git(&["checkout".as_ref(), "-q".as_ref(), "-b".as_ref(), b]);
    productive(&repo, 1, "b");
    git(&["checkout".as_ref(), "-q".as_ref(), "main".as_ref()]);
    git(&["checkout".as_ref(), "-q".as_ref(), "-b".as_ref(), a]);
    productive(&repo, 1, "a");
    get_stuck(&repo);

    git(&["checkout".as_ref(), "-q".as_ref(), b]);
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Add b");
    assert!(
        out.status.success(),
        "side\\376 was refused by side\\377's breaker: {}",
        stderr(&out)
    );
    let s = status(&repo);
    assert_eq!(
        (s["state"].as_str(), s["iterations"].as_u64()),
        (Some("closed"), Some(2))
    );
    let runs = store(&repo).join("runs");
    assert!(runs.join("side%FF.json").is_file());
    assert!(runs.join("side%FE.json").is_file());

    // A state file under the name older versions gave it is still read.
    std::fs::rename(runs.join("side%FF.json"), runs.join("side%EF%BF%BD.json")).unwrap();
    git(&["checkout".as_ref(), "-q".as_ref(), a]);
    assert_eq!(state(&repo), "open");
    git(&["checkout".as_ref(), "-q".as_ref(), b]);
    assert_eq!(state(&repo), "closed");
}

// 7, 8. Commits made with the hooks off are all caught up.

#[test]
fn fifty_one_commits_made_with_hooks_off_are_all_counted() {
    let repo = guarded("");
    quiet(&repo, 51, "q");
    // The next commit's pre-commit catches them up before it judges (issue 16.14): the
    // budget is spent, and that commit is refused.
    repo.write("src/loud.rs", "pub fn loud() {}\n");
    repo.git(&["add", "-A"]);
    let out = repo.try_commit_staged("Add loud step");
    assert!(!out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("51 commit(s) that no hook recorded"),
        "{}",
        stderr(&out)
    );
    let s = status(&repo);
    assert_eq!(s["iterations"], 51, "{s}");
    assert_eq!(s["state"], "open");
    assert_eq!(s["rule"], "budget");
}

#[test]
fn run_and_ingest_on_a_head_made_with_hooks_off_keep_the_commits_before_it() {
    let repo = guarded("");
    let ids = quiet(&repo, 3, "c");
    // A failing test run (a silent `false` is no test result: nothing would be recorded).
    crate::support::run_log(&repo, "cargo/assert-count/plain.log", 101).code(101);
    productive(&repo, 1, "c4");
    let history = history_ids(&repo);
    assert_eq!(history.len(), 4, "{history:?}");
    assert_eq!(&history[..3], &ids[..]);
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    assert_eq!(doc["history"][2]["test"]["outcome"], "fail");

    let repo = guarded("");
    let ids = quiet(&repo, 2, "d");
    lg(&repo)
        .args(["ingest", "--exit-code", "1"])
        .arg(fixture("cargo/assert-count/plain.log"))
        .run()
        .ok();
    assert_eq!(history_ids(&repo), ids);

    // Uncommitted changes: the evidence goes to a working-tree iteration after HEAD, and
    // HEAD is caught up with the rest.
    let repo = guarded("");
    let ids = quiet(&repo, 2, "e");
    repo.write("src/wip.rs", "pub fn wip() {}\n");
    // (Staged: what `git stash` would save; an untracked file is not the attempt.)
    repo.git(&["add", "src/wip.rs"]);
    crate::support::run_log(&repo, "cargo/assert-count/plain.log", 101).code(101);
    let history = history_ids(&repo);
    assert_eq!(history.len(), 3, "{history:?}");
    assert_eq!(&history[..2], &ids[..]);
    assert!(history[2].starts_with("worktree-"), "{history:?}");
}

#[test]
fn a_fix_committed_with_hooks_off_mends_nothing_while_commits_are_refused() {
    let repo = guarded("");
    for i in 0..3 {
        repo.write("src/lib.rs", format!("pub fn answer() -> u32 {{ {i} }}\n"));
        repo.commit(&format!("Try {i}"));
        crate::support::run_log(&repo, "cargo/assert-count/plain.log", 101);
    }
    assert_eq!(status(&repo)["rule"], "same_error");
    repo.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    // Committed with the hooks off, while the breaker refuses commits: it came around the
    // gates, and whatever its tests say it mends nothing (issue 16). The ways out are the
    // fix tested before it is committed (`loopguard run` on the changed working tree:
    // recovery.rs), and a person.
    repo.commit_hooks_off("Fix it");
    lg(&repo).args(["run", "--", "true"]).run().code(86);
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["iterations"], 4, "the commit counts: {s}");
    lg(&repo).arg("resume").run().ok();
    repo.write("src/lib.rs", "pub fn answer() -> u32 { 43 }\n");
    repo.commit("Fix it properly");
    lg(&repo).args(["run", "--", "true"]).run().ok();
    assert_eq!(state(&repo), "closed");
}

// 9. A crash at any write leaves state, event log and report in agreement.

/// A repository about to trip: the next empty commit opens the breaker.
fn about_to_trip() -> TestRepo {
    let repo = guarded("");
    repo.commit_empty("try 0");
    repo.commit_empty("try 1");
    assert_eq!(state(&repo), "closed");
    repo
}

fn temp_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["", "runs", "events", "reports"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp") || name.contains("tmp") || name.ends_with(".journal") {
                out.push(format!("{sub}/{name}"));
            }
        }
    }
    out
}

/// State, event log and report agree: the breaker is open, the log has its one trip, the
/// report exists and names the rule.
#[track_caller]
fn consistent(repo: &TestRepo, point: &str) {
    let s = status(repo);
    assert_eq!(s["state"], "open", "{point}: {s}");
    let run = s["run"].as_str().unwrap().to_owned();
    let doc = lg(repo).args(["report", "--json"]).run().ok().json();
    let trips: Vec<&Value> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "trip" && e["run"] == run.as_str())
        .collect();
    assert_eq!(trips.len(), 1, "{point}: {}", doc["events"]);
    let report = store(repo).join("reports").join(format!("{run}.md"));
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("{point}: no report {}: {e}", report.display()));
    assert!(text.contains("stagnation"), "{point}: {text}");
}

#[test]
fn a_crash_at_any_write_point_is_repaired() {
    for point in [
        "before-journal",
        "temp-written",
        "journal-written",
        "events-appended",
        "state-written",
        "report-written",
    ] {
        let repo = about_to_trip();
        // A test repository's hooks: they honour LOOPGUARD_FAILPOINT.
        lg(&repo).args(["--test-knobs", "init"]).run().ok();
        repo.tick();
        let out = repo
            .command("git")
            .args(["commit", "-q", "--allow-empty", "-m", "try 2"])
            .env("LOOPGUARD_FAILPOINT", point)
            .output()
            .unwrap();
        assert!(out.status.success(), "{point}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("failpoint {point}: crashing")),
            "{point}: the hook did not crash: {}",
            stderr(&out)
        );
        // A reader sees the trip whatever the crashed writer committed to: what it did not
        // write is a commit no hook recorded, judged by status as the next hook will.
        assert_eq!(state(&repo), "open", "{point}");
        // Once the run is written, its open marker was there before it could be read: the
        // shim cannot skip reference-transaction, so a commit past the other hooks is
        // refused already.
        if point != "before-journal" && point != "temp-written" {
            assert!(store(&repo).join("open/main").exists(), "{point}");
            let out = repo.try_git(&["commit", "-q", "--no-verify", "--allow-empty", "-m", "x"]);
            assert!(!out.status.success(), "{point}: {}", stderr(&out));
        }
        // The next writer repairs what is left and cleans up.
        lg(&repo).args(["hook", "post-commit"]).run().ok();
        consistent(&repo, point);
        assert!(store(&repo).join("open/main").exists(), "{point}");
        assert_eq!(temp_files(&store(&repo)), Vec::<String>::new(), "{point}");
        // And a later trip is not doubled.
        assert_eq!(status(&repo)["trips"], 1, "{point}");
    }
}

#[test]
fn stale_temporary_files_are_cleaned_up() {
    let repo = guarded("");
    let runs = store(&repo).join("runs");
    std::fs::write(runs.join(".loopguard-tmp.x7"), b"{").unwrap();
    std::fs::write(runs.join(".loopguard-tmp.A1b2C3"), b"{\"half\": ").unwrap();
    productive(&repo, 1, "a");
    assert_eq!(temp_files(&store(&repo)), Vec::<String>::new());
}

// 10. A rebuild starts where the run started.

#[test]
fn a_corrupt_state_is_rebuilt_from_where_the_run_started() {
    // 80 commits of people before loopguard was set up are not the agent's.
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    for i in 0..80 {
        repo.write("history.txt", format!("{i}\n"));
        repo.commit(&format!("human {i}"));
    }
    lg(&repo).arg("init").run().ok();
    repo.as_agent();
    productive(&repo, 2, "a");
    std::fs::write(
        store(&repo).join("runs/main.json"),
        b"{\"format\": 1, \"id\": ",
    )
    .unwrap();
    productive(&repo, 1, "b");
    let s = status(&repo);
    assert_eq!(s["iterations"], 3, "{s}");
    assert_eq!(s["state"], "closed", "{s}");

    // On a short history the root commit, made before `init`, is not counted either.
    let repo = guarded("");
    productive(&repo, 2, "a");
    let run = status(&repo)["run"].clone();
    std::fs::write(store(&repo).join("runs/main.json"), b"garbage").unwrap();
    productive(&repo, 1, "b");
    let s = status(&repo);
    assert_eq!(s["iterations"], 3, "{s}");
    assert_eq!(s["run"], run, "the run keeps its id");
}

// 11. Symlinks and special files in the store and at the config.

#[cfg(unix)]
#[test]
fn an_event_log_symlinked_out_of_the_store_is_never_written() {
    let repo = guarded("");
    let outside = repo.home().join("outside.jsonl");
    std::fs::write(&outside, b"").unwrap();
    let events = store(&repo).join("events");
    std::fs::create_dir_all(&events).unwrap();
    std::os::unix::fs::symlink(&outside, events.join("main.jsonl")).unwrap();
    // The reports directory too.
    let elsewhere = repo.home().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, store(&repo).join("reports")).unwrap();
    get_stuck(&repo);
    assert_eq!(
        std::fs::read(&outside).unwrap(),
        b"",
        "written through the link"
    );
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "written through the link"
    );
    let kinds = event_kinds(&repo);
    assert_eq!(kinds, ["trip"], "the trip is in a log of the store's own");
    let reports = store(&repo).join("reports");
    assert!(std::fs::symlink_metadata(&reports).unwrap().is_dir());
    assert_eq!(
        std::fs::read_dir(&reports).unwrap().count(),
        1,
        "the report is in the store"
    );
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn a_fifo_at_the_state_file_blocks_nothing_and_is_set_aside() {
    let repo = guarded("");
    productive(&repo, 1, "a");
    let file = store(&repo).join("runs/main.json");
    std::fs::remove_file(&file).unwrap();
    mkfifo(&file);
    let out = lg(&repo).args(["status"]).within(LIMIT).run().finished();
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.git(&["add", "-A"]);
    git_within(&repo, &["commit", "-q", "-m", "Add b"], LIMIT)
        .finished()
        .ok();
    assert!(file.is_file(), "the run was rebuilt in a regular file");
    assert_eq!(status(&repo)["iterations"], 2);
}

#[cfg(unix)]
#[test]
fn an_open_breaker_is_enforced_while_its_state_file_is_unusable() {
    let repo = guarded("");
    get_stuck(&repo);
    let file = store(&repo).join("runs/main.json");
    std::fs::remove_file(&file).unwrap();
    mkfifo(&file);
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.git(&["add", "-A"]);
    let out = git_within(&repo, &["commit", "-q", "-m", "Add b"], LIMIT).finished();
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("refused"), "{}", out.stderr);
}

#[cfg(unix)]
#[test]
fn a_fifo_at_the_config_blocks_nothing() {
    let repo = guarded("");
    mkfifo(&repo.path().join(".loopguard.yml"));
    let out = lg(&repo)
        .args(["status", "--json"])
        .within(LIMIT)
        .run()
        .finished();
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
    lg(&repo)
        .args(["check", "--config", ".loopguard.yml"])
        .within(LIMIT)
        .run()
        .finished()
        .code(2)
        .stderr_has("not a regular file");
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.git(&["add", "src/b.rs"]);
    let out = git_within(&repo, &["commit", "-q", "-m", "Add b"], LIMIT).finished();
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(status(&repo)["iterations"], 1);
}

#[cfg(unix)]
#[test]
fn dev_zero_linked_as_state_or_config_is_refused_not_read() {
    let repo = guarded("");
    productive(&repo, 1, "a");
    let file = store(&repo).join("runs/main.json");
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
    std::os::unix::fs::symlink("/dev/zero", repo.path().join(".loopguard.yml")).unwrap();
    let out = lg(&repo).args(["status"]).within(LIMIT).run().finished();
    assert_eq!(out.code, Some(2), "{out:?}");
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.git(&["add", "src/b.rs"]);
    let out = git_within(&repo, &["commit", "-q", "-m", "Add b"], LIMIT).finished();
    assert_eq!(out.code, Some(0), "{out:?}");
    let meta = std::fs::symlink_metadata(&file).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the link was set aside, the run rebuilt"
    );
    assert_eq!(status(&repo)["iterations"], 2);
}

// 17. An amend loop is the same failure again.

#[test]
fn an_amend_loop_with_the_same_failure_trips_same_error() {
    let repo = guarded("");
    repo.write("src/fix.py", "x = 0\n");
    repo.commit("Try a fix");
    let pytest = replay_log(&fixture("pytest/assert-count/plain.log"), 1);
    for i in 1..=5 {
        repo.write("src/fix.py", format!("x = {i}\n"));
        repo.tick();
        repo.git(&["commit", "-q", "-a", "--amend", "--no-edit"]);
        let out: Ran = lg(&repo).args(["run", "--"]).args(&pytest).run();
        if state(&repo) == "open" {
            assert!(i >= 3, "tripped too early, at {i}: {}", out.stderr);
            break;
        }
        assert_eq!(out.code, Some(1), "{}", out.stderr);
    }
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["rule"], "same_error", "{s}");
    assert_eq!(s["iterations"], 1, "an amend is not a new commit: {s}");

    // A pure reword (same tree) keeps the evidence where it is: no new attempt of any kind.
    let repo = guarded("");
    repo.write("src/fix.py", "x = 0\n");
    repo.commit("Try a fix");
    lg(&repo).args(["run", "--"]).args(&pytest).run().code(1);
    for i in 0..4 {
        repo.tick();
        repo.git(&[
            "commit",
            "-q",
            "--amend",
            "-m",
            &format!("Try a fix, take {i}"),
        ]);
    }
    let s = status(&repo);
    assert_eq!(s["counters"]["same_error"]["count"], 1, "{s}");
    assert_eq!(s["iterations"], 1, "{s}");
}
