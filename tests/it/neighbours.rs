//! Git's neighbours of the guard (issue 25, item 5): repositories of SHA-256 objects, refs
//! stored as reftable (at `init`, and migrated to after it with the breaker closed or
//! open), submodule bumps, and the git config that decides which hooks run in each
//! worktree and scope. Real repositories, real `git` (2.45 or later: `--ref-format`,
//! `git refs migrate`), the real binary.

use std::process::Output;

use crate::support::{TestRepo, guarded_in, lg, run_log, status};

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
