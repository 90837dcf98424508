//! Try before you enforce (issue 27): `init` on a repository with history shows what the
//! profile would have done there, and `check --windows N` does it on demand — on a real
//! history made by real git, reading every line a person reads.

use crate::support::{TestRepo, lg};

/// 41 commits by the maintainer: 40 that each add a module, except that the 5th to the
/// 8th of the newest window of 20 are three empty commits after a change (a loop a person
/// would never make, so the preview shows a trip).
fn history_with_a_loop() -> (TestRepo, Vec<String>) {
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    let mut ids = Vec::new();
    for i in 0..41 {
        if (25..28).contains(&i) {
            ids.push(repo.commit_empty(&format!("Retry {i}")));
        } else {
            repo.write(&format!("src/m{i}.rs"), format!("pub fn m{i}() {{}}\n"));
            ids.push(repo.commit(&format!("Add module {i}")));
        }
    }
    (repo, ids)
}

fn short(id: &str) -> &str {
    &id[..7]
}

/// What the preview of `history_with_a_loop` says, for `windows` windows of 20.
fn expected(ids: &[String], windows: usize) -> Vec<String> {
    let from = if windows == 2 { &ids[1] } else { &ids[21] };
    vec![
        format!(
            "preview: profile balanced on {windows} window{} of 20 first-parent commits, the newest first, {}..{}",
            if windows == 1 { "" } else { "s" },
            short(from),
            short(&ids[40])
        ),
        if windows == 1 {
            "  1 of 1 window trips (100%): stagnation 1".to_owned()
        } else {
            format!("  1 of {windows} windows trip (50%): stagnation 1")
        },
        format!(
            "  window 1 trips stagnation at {0}: no progress in 3 iterations in a row (3 empty; last: {0} \"Retry 27\")",
            short(&ids[27]),
        ),
        format!("    {} Add module 24", short(&ids[24])),
        format!("    {} Retry 25", short(&ids[25])),
        format!("    {} Retry 26", short(&ids[26])),
        format!("    {} Retry 27", short(&ids[27])),
    ]
}

#[test]
fn check_windows_judges_each_window_of_the_history_from_scratch() {
    let (repo, ids) = history_with_a_loop();
    let ran = lg(&repo).args(["check", "--windows", "2"]).run().code(1);
    assert_eq!(ran.stdout.lines().collect::<Vec<_>>(), expected(&ids, 2));
    assert_eq!(ran.stderr, "");

    let doc = lg(&repo)
        .args(["check", "--windows", "2", "--json"])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["windows"], 2);
    assert_eq!(doc["tripped"], 1);
    assert_eq!(doc["by_rule"][0]["rule"], "stagnation");
    assert_eq!(doc["trips"][0]["at"], ids[27].as_str());
    assert_eq!(doc["trips"][0]["commits"].as_array().unwrap().len(), 4);

    // Fewer commits than one window: said, with the fix.
    let ran = lg(&repo)
        .args(["check", "--windows", "1", "--size", "50"])
        .run()
        .code(2);
    assert_eq!(
        ran.stderr,
        "loopguard: error: --windows: the history before HEAD has fewer than 50 commits to judge (with `agents`: of the agent's)\nhint: pass a smaller --size\n"
    );
}

#[test]
fn init_shows_the_preview_and_no_history_is_counted() {
    let (repo, ids) = history_with_a_loop();
    let ran = lg(&repo).arg("init").run().ok();
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        lines[0].starts_with("loopguard is guarding main (run "),
        "{}",
        ran.stdout
    );
    assert_eq!(lines[1..], expected(&ids, 2)[..]);
    // The preview judged history; the run counts none of it.
    let status = lg(&repo).args(["status", "--json"]).run().ok().json();
    assert_eq!(status["state"], "closed");
    assert_eq!(status["counters"]["budget"]["count"], 0);

    let again = lg(&repo).args(["init", "--no-preview"]).run().ok();
    assert_eq!(again.stdout.lines().count(), 1, "{}", again.stdout);
}

#[test]
fn with_agents_configured_the_windows_are_the_agents_commits() {
    // Six commits of the agent, a person's between them (context, not an attempt): the
    // window is the agent's six, and its three empty commits at the end trip.
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    repo.write(".loopguard.yml", "agents: [\"Bot <bot@example.com>\"]\n");
    repo.commit("Guard the agent");
    let bot = |repo: &TestRepo| {
        repo.author("Bot", "bot@example.com");
    };
    let mut agents = Vec::new();
    for i in 0..3 {
        bot(&repo);
        repo.write(&format!("src/a{i}.rs"), "pub fn a() {}\n");
        agents.push(repo.commit(&format!("Agent adds {i}")));
        if i == 1 {
            repo.author("Maintainer", "maintainer@example.com");
            repo.write("README.md", "notes\n");
            repo.commit("Maintainer's notes");
        }
    }
    bot(&repo);
    for i in 0..3 {
        agents.push(repo.commit_empty(&format!("Agent retries {i}")));
    }
    let ran = lg(&repo)
        .args(["check", "--windows", "1", "--size", "6"])
        .run()
        .code(1);
    assert_eq!(
        ran.stdout.lines().collect::<Vec<_>>(),
        [
            format!(
                "preview: profile balanced on 1 window of 6 the agent's commits, the newest first, {}..{}",
                short(&agents[0]),
                short(&agents[5])
            ),
            "  1 of 1 window trips (100%): stagnation 1".to_owned(),
            format!(
                "  window 1 trips stagnation at {0}: no progress in 3 iterations in a row (3 empty; last: {0} \"Agent retries 2\")",
                short(&agents[5])
            ),
            format!("    {} Agent adds 2", short(&agents[2])),
            format!("    {} Agent retries 0", short(&agents[3])),
            format!("    {} Agent retries 1", short(&agents[4])),
            format!("    {} Agent retries 2", short(&agents[5])),
        ]
    );
}
