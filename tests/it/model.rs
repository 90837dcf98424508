//! The breaker's word against random sequences of git operations (issue 16): a guarded
//! repository whose `main` is stuck (`stagnation`, `pause`), a remote, and another clone
//! that pushes into it; then commits with and without `--no-verify`, amends, stashes,
//! checkouts (`-b`, `--orphan`, `--detach`), a second worktree, cherry-picks, reverts,
//! merges, rebases, resets, `branch -f`, `update-ref` into any namespace, `commit-tree`,
//! `fast-import`, `replace`, annotated tags, pushes of every refspec form, and pushes into
//! the repository, in any order. After each step:
//!
//! - no ref of the repository (any namespace, the `HEAD` of every worktree) reaches a
//!   commit built on the stuck run's commits (read with replace refs and grafts off);
//! - the remote has none of the stuck commits, and so nothing built on them;
//! - the breaker is still open: nothing in the sequence is a way out.
//!
//! Whatever git refuses or cannot do is left at that; what it lets through is judged.
//! `git push --no-verify` is not among the steps: it runs no hook at all (the threat model
//! in README.md admits it; CI is the backstop).
//!
//! Half the sequences, at random, run in a repository of SHA-256 objects (`git init
//! --object-format=sha256`): the guard holds there as it does with SHA-1.
//!
//! [`CASES`] sequences of up to [`STEPS`] steps (`LOOPGUARD_MODEL_CASES` for more: each step
//! runs real git and the hooks). The hand-written cases are `keeps_its_word.rs`.

use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::support::{TestRepo, guarded_in, state};

/// A commit the steps can name.
#[derive(Debug, Clone, Copy)]
enum Pick {
    /// The stuck tip (`main`).
    Tip,
    /// The commit where the run started (before the agent's commits).
    Start,
    /// `HEAD`, wherever it is.
    Head,
    /// The newest commit made with plumbing (`commit-tree`), if any.
    Loose,
    /// The tip of `side`, a branch with a run of its own.
    Side,
}

/// Sequences per run of the test: 1 to 3 s each on a 2-core machine (80 took 63 s on a
/// quiet one), so well within a minute of CI.
const CASES: u32 = 20;
/// Most steps in a sequence.
const STEPS: usize = 14;

#[derive(Debug, Clone)]
enum Step {
    Commit { no_verify: bool, empty: bool },
    Amend { no_verify: bool },
    Stash,
    WorktreeCommit { no_verify: bool },
    ResetHard(Pick),
    BranchForce(&'static str, Pick),
    Rebase(&'static str),
    Tag(Pick),
    CheckoutNew(u8),
    CheckoutOrphan(u8),
    CheckoutDetach,
    Checkout(&'static str),
    CherryPick(Pick),
    Revert,
    Merge(Pick),
    UpdateRef(&'static str, Pick),
    CommitTree(Pick),
    FastImport(Pick),
    Replace(Pick),
    Push(&'static str),
    PushInto(&'static str),
}

fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        Just(Pick::Tip),
        Just(Pick::Start),
        Just(Pick::Head),
        Just(Pick::Loose),
        Just(Pick::Side),
    ]
}

/// The steps, weighted towards the ones that reach for the stuck commits: commits, ref
/// updates and pushes.
fn step() -> impl Strategy<Value = Step> {
    let branch = || prop_oneof![Just("main"), Just("side"), Just("b0")];
    prop_oneof![
        3 => (any::<bool>(), any::<bool>())
            .prop_map(|(no_verify, empty)| Step::Commit { no_verify, empty }),
        1 => any::<bool>().prop_map(|no_verify| Step::Amend { no_verify }),
        1 => Just(Step::Stash),
        1 => any::<bool>().prop_map(|no_verify| Step::WorktreeCommit { no_verify }),
        1 => pick().prop_map(Step::ResetHard),
        1 => (branch(), pick()).prop_map(|(b, p)| Step::BranchForce(b, p)),
        1 => branch().prop_map(Step::Rebase),
        1 => pick().prop_map(Step::Tag),
        1 => (0u8..3).prop_map(Step::CheckoutNew),
        1 => (0u8..2).prop_map(Step::CheckoutOrphan),
        1 => Just(Step::CheckoutDetach),
        1 => prop_oneof![Just("main"), Just("side")].prop_map(Step::Checkout),
        1 => pick().prop_map(Step::CherryPick),
        1 => Just(Step::Revert),
        1 => pick().prop_map(Step::Merge),
        2 => (
            prop_oneof![
                Just("refs/heads/main"),
                Just("refs/heads/side"),
                Just("refs/heads/new"),
                Just("refs/wip/x"),
                Just("refs/tags/t"),
                Just("refs/notes/commits"),
                Just("refs/remotes/origin/x"),
                Just("refs/stash"),
                Just("HEAD"),
            ],
            pick()
        )
            .prop_map(|(name, p)| Step::UpdateRef(name, p)),
        2 => pick().prop_map(Step::CommitTree),
        1 => pick().prop_map(Step::FastImport),
        1 => pick().prop_map(Step::Replace),
        5 => prop_oneof![
            Just("main"),
            Just("HEAD"),
            Just("@"),
            Just("HEAD:refs/heads/pushed"),
            Just("main~0:refs/heads/main"),
            Just("main@{0}:refs/heads/at"),
            Just("+HEAD:refs/heads/forced"),
            Just("refs/wip/x:refs/heads/wip"),
            Just("t"),
            Just("t:refs/heads/from-tag"),
            Just("refs/stash:refs/heads/stash"),
            Just("--all"),
            Just("--mirror"),
            Just("--tags"),
            Just("TIP:refs/heads/raw"),
            Just("LOOSE:refs/heads/loose"),
        ]
        .prop_map(Step::Push),
        2 => prop_oneof![
            Just("main"),
            Just("main:refs/heads/elsewhere"),
            Just("main:refs/wip/in")
        ]
        .prop_map(Step::PushInto),
    ]
}

/// The world a sequence runs in.
struct World {
    repo: TestRepo,
    remote: TestRepo,
    other: TestRepo,
    /// The commits the stuck run recorded.
    stuck: BTreeSet<String>,
    tip: String,
    start: String,
    loose: Option<String>,
    /// A second worktree, once a step made it.
    worktree: Option<std::path::PathBuf>,
}

impl World {
    /// The stuck repository, of SHA-256 objects when `sha256`.
    fn new(sha256: bool) -> World {
        let format: &[&str] = if sha256 {
            &["--object-format=sha256"]
        } else {
            &[]
        };
        let repo = guarded_in(TestRepo::new_with(format), "");
        let remote = repo.with_remote();
        let start = repo.head();
        repo.git(&["checkout", "-q", "-b", "side"]);
        repo.write("src/side.rs", "pub fn side() {}\n");
        repo.commit("Side work");
        repo.git(&["checkout", "-q", "main"]);
        repo.write("src/agent.rs", "pub fn agent() {}\n");
        let mut stuck = BTreeSet::new();
        stuck.insert(repo.commit("Agent work"));
        for i in 0..3 {
            stuck.insert(repo.commit_empty(&format!("nothing {i}")));
        }
        assert_eq!(state(&repo), "open");
        repo.git(&["config", "receive.denyCurrentBranch", "ignore"]);
        let other = TestRepo::clone_from(&repo, &[]);
        let tip = repo.head();
        World {
            repo,
            remote,
            other,
            stuck,
            tip,
            start,
            loose: None,
            worktree: None,
        }
    }

    fn commit_of(&self, p: Pick) -> Option<String> {
        match p {
            Pick::Tip => Some(self.tip.clone()),
            Pick::Start => Some(self.start.clone()),
            Pick::Head => self
                .repo
                .try_git(&["rev-parse", "--verify", "-q", "HEAD"])
                .status
                .success()
                .then(|| self.repo.head()),
            Pick::Loose => self.loose.clone(),
            Pick::Side => Some(self.repo.rev_parse("side")),
        }
    }

    /// Runs one step; whatever git refuses or cannot do is left at that (in-progress
    /// operations are aborted).
    fn run(&mut self, step: &Step) {
        let repo = &self.repo;
        repo.tick();
        match step {
            Step::Commit { no_verify, empty } => {
                if !empty {
                    repo.append("src/lib.rs", "// more\n");
                    repo.git(&["add", "-A"]);
                }
                let mut args = vec!["commit", "-q", "--allow-empty", "-m", "step"];
                if *no_verify {
                    args.push("--no-verify");
                }
                let _ = repo.try_git(&args);
                let _ = repo.try_git(&["reset", "-q", "--hard"]);
            }
            Step::Amend { no_verify } => {
                let mut args = vec!["commit", "-q", "--amend", "--allow-empty", "-m", "amended"];
                if *no_verify {
                    args.push("--no-verify");
                }
                let _ = repo.try_git(&args);
            }
            Step::Stash => {
                repo.append("src/lib.rs", "// stashed\n");
                let _ = repo.try_git(&["stash", "-q"]);
                let _ = repo.try_git(&["reset", "-q", "--hard"]);
            }
            Step::WorktreeCommit { no_verify } => self.worktree_commit(*no_verify),
            Step::ResetHard(p) => {
                if let Some(c) = self.commit_of(*p) {
                    let _ = repo.try_git(&["reset", "-q", "--hard", &c]);
                }
            }
            Step::BranchForce(name, p) => {
                if let Some(c) = self.commit_of(*p) {
                    let _ = repo.try_git(&["branch", "-f", name, &c]);
                }
            }
            Step::Rebase(onto) => {
                let _ = repo.try_git(&["rebase", "-q", onto]);
                let _ = repo.try_git(&["rebase", "--abort"]);
            }
            Step::Tag(p) => {
                if let Some(c) = self.commit_of(*p) {
                    let _ = repo.try_git(&["tag", "-f", "-a", "-m", "tagged", "t", &c]);
                }
            }
            Step::CheckoutNew(n) => {
                let _ = repo.try_git(&["checkout", "-q", "-b", &format!("b{n}")]);
            }
            Step::CheckoutOrphan(n) => {
                let _ = repo.try_git(&["switch", "-q", "--orphan", &format!("o{n}")]);
            }
            Step::CheckoutDetach => {
                let _ = repo.try_git(&["checkout", "-q", "--detach"]);
            }
            Step::Checkout(name) => {
                let _ = repo.try_git(&["checkout", "-q", "-f", name]);
            }
            Step::CherryPick(p) => {
                if let Some(c) = self.commit_of(*p) {
                    let _ = repo.try_git(&[
                        "cherry-pick",
                        "--allow-empty",
                        "--keep-redundant-commits",
                        &c,
                    ]);
                    let _ = repo.try_git(&["cherry-pick", "--abort"]);
                }
            }
            Step::Revert => {
                let _ = repo.try_git(&["revert", "--no-edit", "HEAD"]);
                let _ = repo.try_git(&["revert", "--abort"]);
            }
            Step::Merge(p) => {
                if let Some(c) = self.commit_of(*p) {
                    let _ = repo.try_git(&[
                        "merge",
                        "--no-ff",
                        "--no-edit",
                        "--allow-unrelated-histories",
                        &c,
                    ]);
                    let _ = repo.try_git(&["merge", "--abort"]);
                }
            }
            Step::UpdateRef(name, p) => {
                if let Some(c) = self.commit_of(*p) {
                    let _ = repo.try_git(&["update-ref", "--no-deref", name, &c]);
                }
            }
            Step::CommitTree(p) => {
                if let Some(c) = self.commit_of(*p) {
                    let tree = repo.tree(&c);
                    let out = repo.try_git(&["commit-tree", "-p", &c, "-m", "plumbing", &tree]);
                    if out.status.success() {
                        self.loose = Some(String::from_utf8_lossy(&out.stdout).trim().to_owned());
                    }
                }
            }
            Step::FastImport(p) => {
                if let Some(c) = self.commit_of(*p) {
                    let stream = format!(
                        "commit refs/heads/fi\ncommitter Agent <agent@example.com> {} +0000\ndata 5\nfast\nfrom {c}\n\n",
                        repo.now()
                    );
                    quiet_git_with_input(repo, &["fast-import", "--quiet"], &stream);
                }
            }
            Step::Replace(p) => {
                if let Some(c) = self.commit_of(*p)
                    && c != self.tip
                {
                    let _ = repo.try_git(&["replace", "-f", &self.tip, &c]);
                }
            }
            Step::Push(spec) => {
                let spec = match (*spec, &self.loose) {
                    ("LOOSE:refs/heads/loose", Some(l)) => format!("{l}:refs/heads/loose"),
                    ("LOOSE:refs/heads/loose", None) => return,
                    ("TIP:refs/heads/raw", _) => format!("{}:refs/heads/raw", self.tip),
                    (s, _) => s.to_owned(),
                };
                let _ = repo.try_git(&["push", "-q", "origin", &spec]);
            }
            Step::PushInto(spec) => {
                let other = &self.other;
                other.tick();
                other.append("src/lib.rs", "// from elsewhere\n");
                other.git(&["-c", "core.hooksPath=/dev/null", "add", "-A"]);
                let _ = other.try_git(&[
                    "-c",
                    "core.hooksPath=/dev/null",
                    "commit",
                    "-q",
                    "-m",
                    "elsewhere",
                ]);
                let _ = other.try_git(&["push", "-q", "-f", "origin", spec]);
            }
        }
    }

    /// A commit in a second worktree, detached at the stuck tip (made the first time).
    fn worktree_commit(&mut self, no_verify: bool) {
        let repo = &self.repo;
        let dir = self.worktree.get_or_insert_with(|| {
            let dir = repo.home().join("second-worktree");
            let _ = repo.try_git(&[
                "worktree",
                "add",
                "-q",
                "--detach",
                &dir.display().to_string(),
                &self.tip,
            ]);
            dir
        });
        if !dir.is_dir() {
            return;
        }
        let mut cmd = repo.command("git");
        cmd.current_dir(&*dir)
            .args(["commit", "-q", "--allow-empty", "-m", "elsewhere"]);
        if no_verify {
            cmd.arg("--no-verify");
        }
        let _ = cmd.output();
    }

    /// The breaker's word: no ref here, and nothing on the remote, continues the stuck run.
    fn check(&self, after: &[Step]) -> Result<(), TestCaseError> {
        let stuck: Vec<&str> = self.stuck.iter().map(String::as_str).collect();
        // Every ref and the HEAD of every worktree, peeled to commits, read without
        // replace refs or grafts.
        let worktrees = plain(&self.repo, &["worktree", "list", "--porcelain"]);
        let heads = worktrees
            .lines()
            .filter_map(|l| l.strip_prefix("HEAD "))
            .map(str::to_owned);
        let tips = plain(&self.repo, &["for-each-ref", "--format=%(objectname)^{}"])
            .lines()
            .map(str::to_owned)
            .chain(heads)
            .filter_map(|r| {
                let c = plain(
                    &self.repo,
                    &["rev-parse", "-q", "--verify", &format!("{r}^{{commit}}")],
                );
                (!c.is_empty()).then_some(c)
            })
            .collect::<BTreeSet<_>>();
        for tip in &tips {
            if let Some(bad) = builds_on(&self.repo, tip, &stuck) {
                return Err(TestCaseError::fail(format!(
                    "{bad} builds on the stuck run and is in a ref (via {tip}) after {after:#?}"
                )));
            }
        }
        // No way out: the stuck run's breaker is still open.
        if !self.repo.path().join(".git/loopguard/open/main").exists() {
            return Err(TestCaseError::fail(format!(
                "the stuck run's breaker is no longer open after {after:#?}"
            )));
        }
        // The remote: none of the stuck commits, nothing built on them.
        for c in &stuck {
            if plain_ok(
                &self.remote,
                &["cat-file", "-e", &format!("{c}^{{commit}}")],
            ) {
                return Err(TestCaseError::fail(format!(
                    "{c} of the stuck run reached the remote after {after:#?}"
                )));
            }
        }
        Ok(())
    }
}

/// `git ARGS` with `input` on its stdin, whatever becomes of it (its messages dropped).
fn quiet_git_with_input(repo: &TestRepo, args: &[&str], input: &str) {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = repo
        .command("git")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("git runs");
    let _ = child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes());
    let _ = child.wait();
}

/// `git ARGS` with replace refs and grafts off; its output (empty when it failed).
fn plain(repo: &TestRepo, args: &[&str]) -> String {
    let out = repo
        .command("git")
        .args(args)
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_GRAFT_FILE", "/dev/null")
        .stderr(std::process::Stdio::null())
        .output()
        .expect("git runs");
    if out.status.success() {
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    } else {
        String::new()
    }
}

fn plain_ok(repo: &TestRepo, args: &[&str]) -> bool {
    repo.command("git")
        .args(args)
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .stderr(std::process::Stdio::null())
        .status()
        .expect("git runs")
        .success()
}

/// A commit reachable from `tip`, not one of `stuck`, with a parent among them.
fn builds_on(repo: &TestRepo, tip: &str, stuck: &[&str]) -> Option<String> {
    if stuck.contains(&tip) {
        return None;
    }
    let mut args = vec!["rev-list", "--parents", tip, "--not"];
    args.extend_from_slice(stuck);
    plain(repo, &args).lines().find_map(|line| {
        let mut ids = line.split(' ');
        let commit = ids.next()?;
        ids.any(|p| stuck.contains(&p)).then(|| commit.to_owned())
    })
}

#[test]
fn no_sequence_of_git_operations_gets_past_an_open_breaker() {
    let cases = std::env::var("LOOPGUARD_MODEL_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(CASES);
    let mut runner = TestRunner::new(Config {
        cases,
        max_shrink_iters: 32,
        failure_persistence: None,
        ..Config::default()
    });
    let steps = (any::<bool>(), proptest::collection::vec(step(), 1..=STEPS));
    let result = runner.run(&steps, |(sha256, steps)| {
        let mut world = World::new(sha256);
        world.check(&[])?;
        for (i, s) in steps.iter().enumerate() {
            world.run(s);
            world.check(&steps[..=i])?;
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
