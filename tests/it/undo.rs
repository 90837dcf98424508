//! A person's undo is not a loop (issue 27): reverting a stack of changes one by one, each
//! revert returning to the tree one commit further back (sharkdp/fd undoing three
//! dependency bumps), is unwinding, judged once for every rule: neither `oscillation` nor
//! `stagnation` counts it. Real git reverts through the hooks `init` installed, and `check`
//! judging the same commits from scratch.

use crate::support::{TestRepo, guarded, lg, status};

/// Three dependency bumps, each a commit of its own.
fn three_bumps(repo: &TestRepo) -> Vec<String> {
    (1..=3)
        .map(|i| {
            repo.write(
                "Cargo.lock",
                format!("[[package]]\nname = \"regex\"\nversion = \"1.{i}.0\"\n"),
            );
            repo.write(&format!("deps/bump{i}.txt"), format!("bump {i}\n"));
            repo.commit(&format!("Bump regex to 1.{i}.0"))
        })
        .collect()
}

/// The counts of `stagnation` and `oscillation`, and the breaker.
fn counts(repo: &TestRepo) -> (u64, u64, String) {
    let s = status(repo);
    let n = |rule: &str| s["counters"][rule]["count"].as_u64().expect("a count");
    (
        n("stagnation"),
        n("oscillation"),
        s["state"].as_str().expect("a state").to_owned(),
    )
}

#[test]
fn reverting_a_stack_of_changes_one_by_one_is_no_loop() {
    let repo = guarded("");
    let start = repo.head();
    let bumps = three_bumps(&repo);
    // Undone newest first: each revert goes back to the tree one commit further back.
    let mut said = Vec::new();
    for bump in bumps.iter().rev() {
        repo.tick();
        let out = repo.try_git(&["revert", "--no-edit", bump]);
        assert!(out.status.success(), "{out:?}");
        said.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    assert_eq!(repo.tree("HEAD"), repo.tree(&start));
    // The first revert is a return (one); the two that unwind further count for no rule.
    assert_eq!(counts(&repo), (1, 1, "closed".to_owned()));
    for (i, stderr) in said.iter().enumerate() {
        assert!(
            !stderr.contains("breaker opened"),
            "revert {i} opened the breaker:\n{stderr}"
        );
    }
    // The same commits judged from scratch: no trip.
    let range = format!("{start}..HEAD");
    let out = lg(&repo)
        .args(["check", "--json", "--range", &range])
        .run()
        .ok()
        .json();
    assert_eq!(out["state"], "closed", "{out}");

    // Flipping back and forth is no undo: a revert, then its revert, is a loop.
    let repo = guarded("");
    let bumps = three_bumps(&repo);
    repo.revert(&bumps[2]);
    repo.tick();
    let out = repo.try_git(&["revert", "--no-edit", "HEAD"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the breaker opened (oscillation)"),
        "{stderr}"
    );
    assert_eq!(counts(&repo), (2, 2, "open".to_owned()));
}
