//! A person's first hour, on a repository of real size (issue 27): thousands of commits by
//! several people, with merges, renames, reverts and a submodule, written with `git
//! fast-import`, and an untracked scratch file in the working tree. `init` (and its
//! preview) → the first test run → the agent's first commit → its loop → the warning → the
//! trip → the refusal → a person's resume → the recovery, through the hooks `init`
//! installs; then the same agent in Claude Code, through the hooks `init --agent claude`
//! writes: its loop of test runs, the warning, the trip, a refused call, the person's next
//! prompt, the recovery. Every line a person (and the model) reads is compared with
//! [`JOURNEY`]; the run id, the temporary directory and the agent's commits, which change
//! with each run, are written `RUN`, `<repo>` and `<c1>`, `<c2>`, ….

use std::collections::BTreeMap;
use std::time::Instant;

use crate::session::{Agent, FAIL, PASS as PYTEST_PASS};
use crate::support::fast_import::{Op, Stream};
use crate::support::gitrepo::EPOCH;
use crate::support::{TestRepo, lg, run_log, status};

const PEOPLE: [&str; 3] = [
    "Ada Maintainer <ada@example.com>",
    "Bo Contributor <bo@example.com>",
    "Cy Reviewer <cy@example.com>",
];
const MODULES: usize = 40;
const SAME: &str = "cargo/assert-count/plain.log";
const SAME_SHIFTED: &str = "cargo/assert-count/shifted.log";
const PASS: &str = "cargo/passing/plain.log";

/// A commit on `branch` writing `writes` (path, content) and doing `ops`.
fn commit(
    h: &mut Stream,
    branch: &str,
    who: &str,
    message: &str,
    writes: &[(String, String)],
    ops: &[Op<'_>],
) -> crate::support::fast_import::Mark {
    let mut all: Vec<Op<'_>> = writes
        .iter()
        .map(|(p, c)| Op::Write(p.as_str(), c.as_str()))
        .collect();
    all.extend_from_slice(ops);
    h.commit(branch, who, message, &all)
}

/// A maintained project of `n` first-parent commits on `main` (and the side branches its
/// merges bring in): each commit changes one of 40 modules; every 41st merges a
/// contributor's branch of three commits, every 53rd reverts the change before it, every
/// 97th moves a module into a package (a rename), every 211th bumps the submodule
/// `vendor/dep`. Imported with `git fast-import` and checked out; the number of commits.
pub(crate) fn real_size(n: usize) -> (TestRepo, usize) {
    let repo = TestRepo::new();
    let mut h = Stream::new();
    let mut paths: Vec<String> = (0..MODULES).map(|k| format!("src/mod_{k}.py")).collect();
    let mut contents: BTreeMap<String, String> = paths
        .iter()
        .enumerate()
        .map(|(k, p)| (p.clone(), format!("def mod_{k}():\n    return {k}\n")))
        .collect();
    contents.insert("README.md".into(), "# project\n".into());
    contents.insert(
        ".gitmodules".into(),
        "[submodule \"vendor/dep\"]\n\tpath = vendor/dep\n\turl = https://example.com/dep.git\n"
            .into(),
    );
    contents.insert(
        "tests/test_core.py".into(),
        "def test_core():\n    assert True\n".into(),
    );
    let initial: Vec<(String, String)> = contents.clone().into_iter().collect();
    let sub = |i: usize| format!("{i:0>40x}");
    commit(
        &mut h,
        "main",
        PEOPLE[0],
        "Initial import",
        &initial,
        &[Op::Gitlink("vendor/dep", &sub(1))],
    );
    let mut commits = 1;
    // The change before, to revert: (path, content before, subject).
    let mut last: Option<(String, String, String)> = None;
    for i in 1..n {
        let who = PEOPLE[i % PEOPLE.len()];
        if i % 211 == 0 {
            let bump = sub(i);
            commit(
                &mut h,
                "main",
                who,
                &format!("Bump vendor/dep to {}", &bump[32..]),
                &[],
                &[Op::Gitlink("vendor/dep", &bump)],
            );
            last = None;
        } else if i % 97 == 0 {
            let k = (i / 97) % MODULES;
            let from = paths[k].clone();
            let to = format!("src/pkg{}/mod_{k}.py", i / 97);
            let content = contents.remove(&from).expect("the module");
            contents.insert(to.clone(), content);
            commit(
                &mut h,
                "main",
                who,
                &format!("Move mod_{k} into a package"),
                &[],
                &[Op::Rename(&from, &to)],
            );
            paths[k] = to;
            last = None;
        } else if i % 53 == 0
            && let Some((path, before, subject)) = last.take()
        {
            contents.insert(path.clone(), before.clone());
            commit(
                &mut h,
                "main",
                who,
                &format!("Revert \"{subject}\""),
                &[(path, before)],
                &[],
            );
        } else if i % 41 == 0 {
            let base = commit(
                &mut h,
                "main",
                who,
                &format!("Prepare release {i}"),
                &[("README.md".into(), format!("# project\n\nrelease {i}\n"))],
                &[],
            );
            commits += 1;
            let branch = format!("feature-{i}");
            h.branch(&branch, base);
            let mut brought = Vec::new();
            for j in 0..3 {
                let file = (
                    format!("src/feature_{i}_{j}.py"),
                    format!("def feature_{i}_{j}():\n    return {j}\n"),
                );
                commit(
                    &mut h,
                    &branch,
                    PEOPLE[1],
                    &format!("Feature {i}: part {j}"),
                    std::slice::from_ref(&file),
                    &[],
                );
                commits += 1;
                brought.push(file);
            }
            let tip = commit(&mut h, &branch, PEOPLE[1], "Feature done", &[], &[]);
            commits += 1;
            h.merge(
                "main",
                PEOPLE[0],
                &format!("Merge branch '{branch}'"),
                tip,
                &brought
                    .iter()
                    .map(|(p, c)| Op::Write(p, c))
                    .collect::<Vec<_>>(),
            );
            last = None;
        } else {
            let k = i % MODULES;
            let path = paths[k].clone();
            let before = contents[&path].clone();
            let after = format!("{before}\ndef f_{i}():\n    return {i}\n");
            contents.insert(path.clone(), after.clone());
            let subject = format!("Add f_{i} to mod_{k}");
            commit(&mut h, "main", who, &subject, &[(path.clone(), after)], &[]);
            last = Some((path, before, subject));
        }
        commits += 1;
    }
    h.import(&repo);
    // The agent's own clock starts after the history.
    repo.set_now(EPOCH + 60 * (commits as i64 + 10));
    (repo, commits)
}

/// What a person reads through the journey: each command, then what it printed (stdout,
/// then stderr), with the run id written `RUN` and the commits `<c1>`, `<c2>`, ….
#[derive(Default)]
struct Transcript {
    lines: Vec<String>,
    /// The repository's path, written `<repo>`.
    repo: String,
    run: String,
    commits: Vec<String>,
}

impl Transcript {
    fn read(&self, text: &str) -> Vec<String> {
        text.lines()
            .map(|l| {
                let mut l = l.replace(&self.repo, "<repo>");
                if !self.run.is_empty() {
                    l = l.replace(&self.run, "RUN");
                }
                for (i, id) in self.commits.iter().enumerate() {
                    l = l.replace(id, &format!("<c{}>", i + 1));
                    l = l.replace(&id[..7], &format!("<c{}>", i + 1));
                }
                l
            })
            .collect()
    }

    fn says(&mut self, command: &str, stdout: &str, stderr: &str) {
        self.lines.push(format!("$ {command}"));
        let out = self.read(stdout);
        let err = self.read(stderr);
        self.lines.extend(out);
        self.lines.extend(err);
    }

    /// The agent commits `content` to `path`; what git's hooks said.
    fn commit(&mut self, repo: &TestRepo, path: &str, content: &str, message: &str) -> bool {
        repo.write(path, content);
        repo.git(&["add", path]);
        let out = repo.try_commit_staged(message);
        if out.status.success() {
            self.commits.push(repo.head());
        }
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        self.says(&format!("git commit -m '{message}'"), "", &stderr);
        out.status.success()
    }

    /// `loopguard ARGS`, its exit code.
    fn lg(&mut self, repo: &TestRepo, args: &[&str]) -> Option<i32> {
        let ran = lg(repo).args(args).run();
        self.says(
            &format!("loopguard {}", args.join(" ")),
            &ran.stdout,
            &ran.stderr,
        );
        ran.code
    }

    /// A tool call of the agent's session (`what`), and what the model read of it.
    fn model_reads(&mut self, what: &str, answer: &crate::session::Answer) {
        let denied = if answer.denied() { " (denied)" } else { "" };
        self.lines.push(format!("> {what}{denied}"));
        let text = answer.text();
        let read = self.read(&text);
        self.lines.extend(read);
    }

    /// `loopguard run -- cargo test` that prints `log`; its exit code. (The log itself,
    /// which `run` shows live, is left out: the runner's lines are the runner's.)
    fn test(&mut self, repo: &TestRepo, log: &str, code: i32) -> Option<i32> {
        let ran = run_log(repo, log, code);
        self.says("loopguard run -- cargo test", "", &ran.stderr);
        ran.code
    }
}

fn lib(body: &str) -> String {
    format!("pub fn count_words(s: &str) -> usize {{\n    {body}\n}}\n")
}

#[test]
fn a_first_hour_on_a_repository_of_real_size() {
    let built = Instant::now();
    let (repo, n) = real_size(2500);
    eprintln!(
        "journey: {n} commits written with git fast-import in {:.2?}",
        built.elapsed()
    );
    assert!(n > 2500, "{n}");
    // The maintainer's own scratch notes, never committed.
    repo.write("scratch/notes.md", "try the agent on the parser\n");
    let mut t = Transcript {
        repo: repo.path().display().to_string(),
        ..Transcript::default()
    };

    // init guards main, and shows what the profile would have done on the history.
    let started = Instant::now();
    let ran = lg(&repo).arg("init").run().ok();
    eprintln!(
        "journey: init (with its preview) on {n} commits took {:.2?}",
        started.elapsed()
    );
    t.run = status(&repo)["run"].as_str().expect("a run").to_owned();
    t.says("loopguard init", &ran.stdout, &ran.stderr);
    // The first test run: the history is not the agent's, the scratch file no change.
    assert_eq!(t.test(&repo, PASS, 0), Some(0));
    t.lg(&repo, &["status"]);

    // The agent's first commit, then its loop: new code, the same failure.
    repo.as_agent();
    assert!(t.commit(&repo, "src/wc.rs", &lib("s.len()"), "Count words"));
    assert_eq!(t.test(&repo, SAME, 101), Some(101));
    assert!(t.commit(&repo, "src/wc.rs", &lib("s.len() + 0"), "Fix the count"));
    assert_eq!(t.test(&repo, SAME_SHIFTED, 101), Some(101));
    assert!(t.commit(
        &repo,
        "src/wc.rs",
        &lib("s.len() + 1 - 1"),
        "Fix the count again"
    ));
    // The trip.
    assert_eq!(t.test(&repo, SAME, 101), Some(86));
    // The refusal.
    assert!(!t.commit(&repo, "src/wc.rs", &lib("s.len() * 1"), "One more try"));
    t.lg(&repo, &["status"]);
    // A person lets it try again; new code whose tests pass closes the breaker.
    repo.author("Ada Maintainer", "ada@example.com");
    assert_eq!(t.lg(&repo, &["resume"]), Some(0));
    repo.as_agent();
    assert!(t.commit(
        &repo,
        "src/wc.rs",
        &lib("s.split_whitespace().count()"),
        "Count words by whitespace"
    ));
    assert_eq!(t.test(&repo, PASS, 0), Some(0));
    t.lg(&repo, &["status"]);
    // The scratch file was never part of an attempt.
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    assert!(!doc.to_string().contains("scratch/notes.md"), "{doc}");

    // The same repository, the agent now working in Claude Code with loopguard in its
    // hooks: its test runs loop, it is warned, tripped, refused; a person's prompt lets
    // it go on.
    t.lg(&repo, &["init", "--agent", "claude", "--no-preview"]);
    let mut agent = Agent::new(&repo, "claude", "s1");
    // (Its hooks' clock pinned: what the loop cost is said in seconds.)
    agent.now = Some("2026-11-28T12:00:00Z");
    let tries = [
        "s.split_whitespace().count()",
        "s.split(' ').count()",
        "s.split(\" \").count()",
        "s.split_ascii_whitespace().count()",
    ];
    for i in 0..3 {
        t.model_reads("Bash: pytest -q", &agent.pytest("pytest -q", FAIL));
        t.model_reads(
            "Edit src/wc.rs",
            &agent.edit("src/wc.rs", tries[i], tries[i + 1]),
        );
    }
    t.lg(&repo, &["status"]);
    // The person answers; the agent changes the code and the tests pass.
    t.model_reads(
        "prompt",
        &agent.prompt("The test counts words: split on any whitespace."),
    );
    t.model_reads(
        "Edit src/wc.rs",
        &agent.edit("src/wc.rs", tries[2], tries[3]),
    );
    t.model_reads("Bash: pytest -q", &agent.pytest("pytest -q", PYTEST_PASS));
    t.model_reads("stop", &agent.stop(false, "Done: the words are counted."));
    t.lg(&repo, &["status", "--session", "s1"]);

    let shown = t.lines.join("\n");
    assert_eq!(shown, JOURNEY, "{shown}");
}

/// What a person reads (see [`Transcript`]).
const JOURNEY: &str = r#"$ loopguard init
loopguard is guarding main (run RUN, profile balanced)
preview: profile balanced on 50 windows of 20 first-parent commits, the newest first, d72f1c4..6de5d9b
  no window trips
hook post-commit: installed
hook post-rewrite: installed
hook pre-commit: installed
hook pre-push: installed
hook reference-transaction: installed (armed only while a breaker is open)
no .loopguard.yml: the balanced defaults apply; `loopguard init --profile strict|balanced|yolo` writes one
$ loopguard run -- cargo test
$ loopguard status
breaker: closed
run: RUN on main
iterations: 0 (profile balanced)
counters:
  constraint        0 / 1                    attempts that touched a protected path, skipped or deleted a test
  same_error        0 / 3                    failing test runs in a row with the same failure
  repeated_patch    0 / 2                    earlier patches applied again since the last improvement
  oscillation       0 / 2                    returns to an earlier tree since the last improvement
  false_completion  0 / 2                    claims of completion in a row while the tests fail
  stagnation        0 / 3                    attempts in a row without progress
  edge_loop         0 / 5                    harness transitions of one edge without progress
  test_only         0 of 0 (30% once 3)      share of the window's attempts that only touched tests
  budget            0 / 50                   attempts in the whole run
$ git commit -m 'Count words'
$ loopguard run -- cargo test
$ git commit -m 'Fix the count'
$ loopguard run -- cargo test
loopguard: warning (same_error): the same failure (cargo: counts_words_in_file, assertion `left == right` failed) in 2 iterations in a row; one more opens the breaker and refuses commits and pushes — change approach, or ask the user
$ git commit -m 'Fix the count again'
loopguard: warning (same_error): the same failure (cargo: counts_words_in_file, assertion `left == right` failed) in 2 iterations in a row; one more opens the breaker and refuses commits and pushes — change approach, or ask the user
$ loopguard run -- cargo test
loopguard: the breaker opened (same_error): the same failure (cargo: counts_words_in_file, assertion `left == right` failed) in 3 iterations in a row
loopguard: commits and pushes are refused
  ways out:
  - change the code and run the tests with `loopguard run -- <test command>`: a run that passes, or fails differently, closes the breaker (a re-run of the same code does not)
  - a person lets the agent try again: `loopguard resume` (the next attempt with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again)
  - a person starts a new run: `loopguard reset`
loopguard: report: <repo>/.git/loopguard/reports/RUN.md
$ git commit -m 'One more try'
loopguard: refused: the breaker is open on main: the agent is stuck; the commit is refused.
  rule:   same_error
  reason: the same failure (cargo: counts_words_in_file, assertion `left == right` failed) in 3 iterations in a row
  ways out:
  - change the code and run the tests with `loopguard run -- <test command>`: a run that passes, or fails differently, closes the breaker (a re-run of the same code does not)
  - a person lets the agent try again: `loopguard resume` (the next attempt with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again)
  - a person starts a new run: `loopguard reset`
$ loopguard status
breaker: open (aborted_stuck)
run: RUN on main
iterations: 3 (profile balanced)
rule: same_error
reason: the same failure (cargo: counts_words_in_file, assertion `left == right` failed) in 3 iterations in a row
counters:
  constraint        0 / 1                    attempts that touched a protected path, skipped or deleted a test
  same_error        3 / 3                    failing test runs in a row with the same failure  <-
  repeated_patch    0 / 2                    earlier patches applied again since the last improvement
  oscillation       0 / 2                    returns to an earlier tree since the last improvement
  false_completion  0 / 2                    claims of completion in a row while the tests fail
  stagnation        0 / 3                    attempts in a row without progress
  edge_loop         0 / 5                    harness transitions of one edge without progress
  test_only         0 of 3 (30% once 3)      share of the window's attempts that only touched tests
  budget            3 / 50                   attempts in the whole run
$ loopguard resume
breaker half-open: the agent may commit again; the next attempt with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again
$ git commit -m 'Count words by whitespace'
$ loopguard run -- cargo test
loopguard: the breaker is closed again: the tests pass at <c4>, after the resume
$ loopguard status
breaker: closed
run: RUN on main
iterations: 4 (profile balanced)
counters:
  constraint        0 / 1                    attempts that touched a protected path, skipped or deleted a test
  same_error        0 / 3                    failing test runs in a row with the same failure
  repeated_patch    0 / 2                    earlier patches applied again since the last improvement
  oscillation       0 / 2                    returns to an earlier tree since the last improvement
  false_completion  0 / 2                    claims of completion in a row while the tests fail
  stagnation        0 / 3                    attempts in a row without progress
  edge_loop         0 / 5                    harness transitions of one edge without progress
  test_only         0 of 0 (30% once 3)      share of the window's attempts that only touched tests
  budget            4 / 50                   attempts in the whole run
$ loopguard init --agent claude --no-preview
loopguard is guarding main (run RUN, profile balanced)
hook post-commit: already installed
hook post-rewrite: already installed
hook pre-commit: already installed
hook pre-push: already installed
hook reference-transaction: already installed (armed only while a breaker is open)
Claude Code: hooked in (.claude/settings.json)
no .loopguard.yml: the balanced defaults apply; `loopguard init --profile strict|balanced|yolo` writes one
> Bash: pytest -q
> Edit src/wc.rs
> Bash: pytest -q
loopguard: warning (same_error): the same failure (pytest: tests/test_wc.py::test_count, E assert 3 == 2) in 2 test runs in a row; one more opens the breaker and stops this session's tool calls — change approach, or ask the user
> Edit src/wc.rs
> Bash: pytest -q
loopguard: the breaker of this session is open, so from now on every tool call in this session is refused.
rule: same_error
reason: the same failure (pytest: tests/test_wc.py::test_count, E assert 3 == 2) in 3 test runs in a row
Stop calling tools. Tell the user what you tried, what keeps happening, and what you would need to go on.
ways out:
- the user's next prompt starts a new episode: the loop counters start again and the next tool call decides
- a person lets the agent try again: `loopguard resume --session s1` (the next tool call with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again)
- a person starts a new run of the session: `loopguard reset --session s1`
what the loop cost since the repeated failure first came (c1): 5 tool calls, 0s
> Edit src/wc.rs (denied)
loopguard: the breaker of this session is open, so this tool call is refused.
rule: same_error
reason: the same failure (pytest: tests/test_wc.py::test_count, E assert 3 == 2) in 3 test runs in a row
Stop calling tools. Tell the user what you tried, what keeps happening, and what you would need to go on.
ways out:
- the user's next prompt starts a new episode: the loop counters start again and the next tool call decides
- a person lets the agent try again: `loopguard resume --session s1` (the next tool call with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again)
- a person starts a new run of the session: `loopguard reset --session s1`
$ loopguard status
breaker: closed
run: RUN on main
iterations: 4 (profile balanced)
counters:
  constraint        0 / 1                    attempts that touched a protected path, skipped or deleted a test
  same_error        0 / 3                    failing test runs in a row with the same failure
  repeated_patch    0 / 2                    earlier patches applied again since the last improvement
  oscillation       0 / 2                    returns to an earlier tree since the last improvement
  false_completion  0 / 2                    claims of completion in a row while the tests fail
  stagnation        0 / 3                    attempts in a row without progress
  edge_loop         0 / 5                    harness transitions of one edge without progress
  test_only         0 of 0 (30% once 3)      share of the window's attempts that only touched tests
  budget            4 / 50                   attempts in the whole run
sessions:
  claude s1 5 tool calls, breaker open (same_error): the same failure (pytest: tests/test_wc.py::test_count, AssertionError: assert <n> == <n>) in 3 test runs in a row
> prompt
loopguard: this session's breaker was open (same_error): the same failure (pytest: tests/test_wc.py::test_count, E assert 3 == 2) in 3 test runs in a row. The user's prompt starts a new episode: the breaker is half-open and the loop counters start again; the next tool call with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again.
> Edit src/wc.rs
> Bash: pytest -q
> stop
$ loopguard status --session s1
breaker: closed
run: session-claude-s1 on main
tool calls: 7 (profile balanced)
counters:
  constraint        0 / 1                    attempts that touched a protected path, skipped or deleted a test
  same_error        0 / 3                    failing test runs in a row with the same failure
  repeated_patch    0 / 2                    earlier patches applied again since the last improvement
  oscillation       0 / 2                    returns to an earlier tree since the last improvement
  stagnation        0 / 40                   attempts in a row without progress
  edge_loop         0 / 40                   harness transitions of one edge without progress
  budget            7 / 500                  attempts in the whole run
branch main: breaker closed"#;
