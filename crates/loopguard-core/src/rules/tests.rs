//! Table tests: each rule at exactly its threshold on a stuck history, and never on a
//! productive one.

use super::*;
use crate::config::Config;
use crate::iteration::{FileChange, FileStatus, IterationKind, SkipAdded, TestEvidence};

/// A history builder: every commit starts from the tree of the one before.
#[derive(Default)]
struct H {
    its: Vec<Iteration>,
    tree: String,
}

fn h() -> H {
    H {
        its: Vec::new(),
        tree: "base".into(),
    }
}

impl H {
    /// A commit to `tree` with patch id `patch` touching `src/lib.rs`.
    fn to(mut self, tree: &str, patch: &str) -> H {
        let n = self.its.len();
        self.its.push(Iteration {
            id: format!("c{n:02}aaaaaaa"),
            tree: Some(tree.into()),
            parent_tree: Some(std::mem::replace(&mut self.tree, tree.into())),
            patch_id: Some(patch.into()),
            files: Some(vec![FileChange {
                path: "src/lib.rs".into(),
                added: Some(1),
                deleted: Some(0),
                status: Some(FileStatus::Modified),
                ..Default::default()
            }]),
            message: Some(format!("step {n}")),
            ..Default::default()
        });
        self
    }

    /// A new tree with a fresh patch.
    fn fresh(self) -> H {
        let n = self.its.len();
        self.to(&format!("t{n}"), &format!("p{n}"))
    }

    fn empty(mut self) -> H {
        let n = self.its.len();
        self.its.push(Iteration {
            id: format!("c{n:02}aaaaaaa"),
            tree: Some(self.tree.clone()),
            parent_tree: Some(self.tree.clone()),
            files: Some(vec![]),
            message: Some("Initial plan".into()),
            ..Default::default()
        });
        self
    }

    fn last(&mut self) -> &mut Iteration {
        self.its.last_mut().unwrap()
    }

    fn msg(mut self, m: &str) -> H {
        self.last().message = Some(m.into());
        self
    }

    fn files(mut self, paths: &[&str]) -> H {
        self.last().files = Some(
            paths
                .iter()
                .map(|p| FileChange {
                    path: (*p).into(),
                    status: Some(FileStatus::Modified),
                    ..Default::default()
                })
                .collect(),
        );
        self
    }

    fn fail(mut self, sig: &str, failing: u64) -> H {
        self.last().test = Some(TestEvidence {
            outcome: Outcome::Fail,
            signature: Some(sig.into()),
            failing: Some(failing),
            runner: Some("cargo".into()),
            first_error: Some("assertion failed".into()),
            failures: Some(vec!["counts_three_words".into()]),
            ..Default::default()
        });
        self
    }

    fn pass(mut self) -> H {
        self.last().test = Some(TestEvidence {
            outcome: Outcome::Pass,
            ..Default::default()
        });
        self
    }

    fn kind(mut self, k: IterationKind) -> H {
        self.last().kind = Some(k);
        self
    }

    fn eval(&self) -> Evaluation {
        evaluate(&Config::default(), &self.its, 0)
    }

    fn eval_with(&self, config: &Config) -> Evaluation {
        evaluate(config, &self.its, 0)
    }
}

fn count(e: &Evaluation, rule: RuleName) -> u64 {
    e.counters[&rule].count
}

fn tripped(e: &Evaluation) -> Option<RuleName> {
    e.trip().map(|f| f.rule)
}

/// Builds the history one commit at a time and returns the index of the first trip.
fn first_trip(its: &[Iteration], config: &Config) -> Option<(usize, RuleName)> {
    (1..=its.len()).find_map(|n| evaluate(config, &its[..n], 0).trip().map(|f| (n, f.rule)))
}

#[test]
fn stagnation_trips_at_three_empty_commits() {
    let c = Config::default();
    let hist = h().fresh().empty().empty().empty();
    assert_eq!(first_trip(&hist.its, &c), Some((4, RuleName::Stagnation)));
    let e = hist.eval();
    assert_eq!(count(&e, RuleName::Stagnation), 3);
    assert!(
        e.trip().unwrap().reason.contains("3 empty"),
        "{}",
        e.trip().unwrap().reason
    );
}

#[test]
fn one_initial_plan_and_one_retrigger_commit_pass() {
    let hist = h().empty().fresh().fresh().empty().fresh().fresh();
    let c = Config::default();
    assert_eq!(first_trip(&hist.its, &c), None);
    // Two empty re-triggers in a row are still fine at threshold 3.
    let hist = h().empty().fresh().empty().empty().fresh();
    assert_eq!(first_trip(&hist.its, &c), None);
}

#[test]
fn oscillation_a_b_a_b_counts_two() {
    let hist = h().to("A", "pa").to("B", "pb").to("A", "-pb").to("B", "pb");
    let e = hist.eval();
    assert_eq!(count(&e, RuleName::Oscillation), 2);
    let (n, rule) = first_trip(&hist.its, &Config::default()).unwrap();
    assert_eq!((n, rule), (4, RuleName::Oscillation));
    assert!(
        e.fired[0]
            .reason
            .contains("returned to an earlier state 2 times")
    );
}

#[test]
fn one_deliberate_revert_passes() {
    // Inject a warning and revert it, then go on working (extensions PRs 7594/7595).
    let hist = h()
        .fresh()
        .to("W", "warn")
        .to("t0", "-warn")
        .fresh()
        .fresh()
        .fresh();
    assert_eq!(first_trip(&hist.its, &Config::default()), None);
    let at_revert = evaluate(&Config::default(), &hist.its[..3], 0);
    assert_eq!(count(&at_revert, RuleName::Oscillation), 1);
    // Moving on to new states puts the revert behind: a second, unrelated revert later
    // is one return again (OpenHands/software-agent-sdk PR 2490).
    assert_eq!(count(&hist.eval(), RuleName::Oscillation), 0);
    let later = hist.to("t4", "-p5");
    assert_eq!(count(&later.eval(), RuleName::Oscillation), 1);
}

#[test]
fn unwinding_two_changes_is_not_oscillation() {
    // dotnet/extensions PR 7594: add A, add B, inject a warning, revert it, revert B.
    let hist = h()
        .to("A", "a")
        .to("B", "b")
        .to("W", "w")
        .to("B", "-w")
        .to("A", "-b");
    let e = hist.eval();
    assert_eq!(count(&e, RuleName::Oscillation), 1);
    assert_eq!(tripped(&e), None);
    // With an empty "Initial plan" in between (PR 7595), still unwinding.
    let hist = h()
        .to("A", "a")
        .to("B", "b")
        .to("W", "w")
        .to("B", "-w")
        .empty()
        .to("A", "-b");
    assert_eq!(count(&hist.eval(), RuleName::Oscillation), 1);
    // Flipping back and forth after the unwinding counts again.
    let hist = h()
        .to("A", "a")
        .to("B", "b")
        .to("A", "-b")
        .to("B", "b2")
        .to("A", "-b2");
    assert_eq!(count(&hist.eval(), RuleName::Oscillation), 3);
}

#[test]
fn repeated_patch_trips_when_a_reverted_patch_is_reapplied_twice() {
    // P, revert, Q, P again (on a new tree), R, revert again.
    let hist = h()
        .to("P", "p")
        .to("base", "-p")
        .to("Q", "q")
        .to("QP", "p")
        .to("QPR", "r")
        .to("QR", "-p");
    let c = Config::default();
    assert_eq!(
        first_trip(&hist.its, &c),
        Some((6, RuleName::RepeatedPatch))
    );
    let e = hist.eval();
    assert_eq!(count(&e, RuleName::RepeatedPatch), 2);
    assert_eq!(count(&e, RuleName::Oscillation), 0);
    assert_eq!(count(&e, RuleName::Stagnation), 0);
}

#[test]
fn test_improvement_resets_window_counts() {
    let hist = h()
        .to("P", "p")
        .fail("s1", 3)
        .to("base", "-p")
        .fail("s1", 3)
        .to("Q", "q")
        .fail("s1", 2) // fewer failures: progress
        .to("QP", "p");
    let e = hist.eval();
    assert_eq!(count(&e, RuleName::RepeatedPatch), 1);
    assert_eq!(count(&e, RuleName::Oscillation), 0);
}

#[test]
fn same_error_trips_at_three_with_code_changes() {
    let hist = h()
        .fresh()
        .fail("sig-a", 1)
        .fresh()
        .fail("sig-a", 1)
        .fresh() // no evidence: neither extends nor breaks
        .fresh()
        .fail("sig-a", 1);
    let c = Config::default();
    assert_eq!(first_trip(&hist.its, &c), Some((4, RuleName::SameError)));
    let e = hist.eval();
    assert_eq!(
        e.trip().unwrap().reason,
        "the same failure (cargo: counts_three_words, assertion failed) in 3 iterations in a row"
    );
}

#[test]
fn changing_failures_and_a_pass_break_same_error() {
    let hist = h()
        .fresh()
        .fail("a", 1)
        .fresh()
        .fail("b", 1)
        .fresh()
        .fail("a", 1)
        .fresh()
        .pass()
        .fresh()
        .fail("a", 1);
    assert_eq!(first_trip(&hist.its, &Config::default()), None);
}

#[test]
fn identical_failures_without_code_change_stagnate() {
    // `run` again on the same tree: the same failure, nothing new.
    let mut hist = h().fresh().fail("a", 1);
    for _ in 0..3 {
        let mut again = hist.its.last().unwrap().clone();
        again.id = format!("{}+", again.id);
        again.parent_tree = again.tree.clone();
        again.files = Some(vec![]);
        again.patch_id = None;
        hist.its.push(again);
    }
    let e = hist.eval();
    assert_eq!(count(&e, RuleName::Stagnation), 3);
    assert_eq!(tripped(&e), Some(RuleName::SameError));
}

#[test]
fn false_completion_claims_without_passing_evidence() {
    let hist = h()
        .fresh()
        .msg("Done, everything works")
        .fresh()
        .msg("All tests pass now");
    let c = Config::default();
    assert_eq!(
        first_trip(&hist.its, &c),
        Some((2, RuleName::FalseCompletion))
    );
    assert!(
        hist.eval().fired[0]
            .reason
            .contains("without passing test evidence")
    );

    // Backed by passing tests: not false.
    let ok = h()
        .fresh()
        .msg("Done")
        .pass()
        .fresh()
        .msg("fixed the flaky test")
        .pass();
    assert_eq!(first_trip(&ok.its, &c), None);

    // A claim, then real work, then a claim: not consecutive.
    let apart = h()
        .fresh()
        .msg("done")
        .fresh()
        .msg("Refactor")
        .fresh()
        .msg("done");
    assert_eq!(first_trip(&apart.its, &c), None);

    // Claims while the latest evidence fails.
    let failing = h()
        .fresh()
        .fail("a", 1)
        .fresh()
        .msg("fixed")
        .fresh()
        .msg("Completed");
    let e = failing.eval();
    assert_eq!(tripped(&e), Some(RuleName::FalseCompletion));
    assert!(
        e.fired[0].reason.contains("while the tests fail")
            || e.fired[0].reason.contains("without passing")
    );
}

#[test]
fn test_only_warns_by_default() {
    let hist = h()
        .fresh()
        .files(&["tests/a.rs"])
        .fresh()
        .files(&["src/a.rs"])
        .fresh()
        .files(&["tests/b.rs"]);
    let e = hist.eval();
    assert_eq!(tripped(&e), None);
    let warn: Vec<_> = e.warnings().map(|f| f.rule).collect();
    assert_eq!(warn, vec![RuleName::TestOnly]);
    assert_eq!(
        e.counters[&RuleName::TestOnly],
        Counter {
            count: 2,
            threshold: 1
        }
    );

    let mut c = Config::default();
    c.rules.test_only.action = crate::config::RuleAction::Trip;
    assert_eq!(tripped(&hist.eval_with(&c)), Some(RuleName::TestOnly));
}

#[test]
fn budget_trips_at_max_iterations() {
    let mut c = Config::default();
    c.rules.budget.max_iterations = 5;
    let mut hist = h();
    for _ in 0..5 {
        hist = hist.fresh();
    }
    assert_eq!(first_trip(&hist.its, &c), Some((5, RuleName::Budget)));
}

#[test]
fn constraint_trips_at_once() {
    let c = Config::default();
    let hist = h().fresh().fresh().files(&["src/a.rs", ".loopguard.yml"]);
    let e = hist.eval_with(&c);
    assert_eq!(tripped(&e), Some(RuleName::Constraint));
    assert!(
        e.fired[0]
            .reason
            .contains("touched the protected path .loopguard.yml")
    );

    let mut skip = h().fresh();
    skip.last().skips_added = Some(vec![SkipAdded {
        path: "src/lib.rs".into(),
        line: "#[ignore]".into(),
    }]);
    let e = skip.eval();
    assert_eq!(tripped(&e), Some(RuleName::Constraint));
    assert!(
        e.fired[0]
            .reason
            .contains("added a test skip in src/lib.rs: #[ignore]")
    );

    let mut del = h().fresh();
    del.last().files = Some(vec![FileChange {
        path: "tests/parser.rs".into(),
        status: Some(FileStatus::Deleted),
        ..Default::default()
    }]);
    assert_eq!(tripped(&del.eval()), Some(RuleName::Constraint));

    let wf = h().fresh().files(&[".github/workflows/ci.yml"]);
    assert_eq!(tripped(&wf.eval()), Some(RuleName::Constraint));
}

#[test]
fn context_commits_never_count() {
    // A maintainer's empty commits and a merge from main are context.
    let hist = h()
        .fresh()
        .empty()
        .kind(IterationKind::Context)
        .empty()
        .kind(IterationKind::Context)
        .empty()
        .kind(IterationKind::Context)
        .fresh()
        .files(&[".loopguard.yml"])
        .kind(IterationKind::Context)
        .fresh();
    let e = hist.eval();
    assert_eq!(e.attempts, 2);
    assert_eq!(tripped(&e), None);
}

#[test]
fn twelve_commits_of_new_content_never_trip() {
    let mut hist = h();
    for _ in 0..12 {
        hist = hist.fresh();
    }
    assert_eq!(first_trip(&hist.its, &Config::default()), None);
}

#[test]
fn slow_progress_with_failing_tests_never_trips() {
    // Each iteration fixes one more test; the signature changes as failures go away.
    let mut hist = h();
    for i in 0..10u64 {
        hist = hist.fresh().fail(&format!("sig{i}"), 10 - i);
    }
    hist = hist.fresh().pass();
    assert_eq!(first_trip(&hist.its, &Config::default()), None);
}

#[test]
fn baseline_restarts_counts_but_not_budget() {
    let mut c = Config::default();
    c.rules.budget.max_iterations = 5;
    let hist = h().fresh().empty().empty().empty().empty();
    let fired: Vec<_> = hist.eval_with(&c).fired.iter().map(|f| f.rule).collect();
    assert_eq!(fired, vec![RuleName::Stagnation, RuleName::Budget]);
    let e = evaluate(&c, &hist.its, 4);
    assert_eq!(count(&e, RuleName::Stagnation), 1);
    assert_eq!(count(&e, RuleName::Budget), 5);
}

#[test]
fn disabled_rules_have_no_counter() {
    let mut c = Config::default();
    c.rules.oscillation.action = crate::config::RuleAction::Off;
    let e = h().fresh().eval_with(&c);
    assert!(!e.counters.contains_key(&RuleName::Oscillation));
    assert!(e.counters.contains_key(&RuleName::Stagnation));
}

#[test]
fn unknown_evidence_is_not_a_loop() {
    let its: Vec<Iteration> = (0..20)
        .map(|i| Iteration {
            id: format!("{i}"),
            ..Default::default()
        })
        .collect();
    let mut c = Config::default();
    c.rules.budget.max_iterations = 100;
    assert_eq!(first_trip(&its, &c), None);
}

#[test]
fn whitespace_only_is_not_progress() {
    let mut hist = h().fresh();
    for _ in 0..3 {
        hist = hist.fresh();
        hist.last().whitespace_only = Some(true);
    }
    assert_eq!(tripped(&hist.eval()), Some(RuleName::Stagnation));
}

#[test]
fn rule_names_round_trip() {
    for r in RuleName::ALL {
        assert_eq!(r.as_str().parse::<RuleName>().unwrap(), r);
        assert_eq!(serde_json::to_string(&r).unwrap(), format!("\"{r}\""));
    }
}
