//! Table tests across the rules: what no rule may trip on, and how the rules share the
//! window. Each rule's own cases are in its file.

use super::*;
use crate::config::Config;
use crate::iteration::IterationKind;
use crate::testing::{History, id};

#[test]
fn context_commits_never_count() {
    // A maintainer's empty commits and a merge from main are context.
    let h = History::new()
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
    let e = h.eval();
    assert_eq!(e.attempts, 2);
    assert_eq!(e.trip(), None);
}

#[test]
fn productive_histories_never_trip() {
    let mut twelve = History::new();
    for _ in 0..12 {
        twelve = twelve.fresh();
    }
    assert_eq!(twelve.first_trip(), None);
    // Each iteration fixes one more test; the signature changes as failures go away.
    let mut slow = History::new();
    for i in 0..10u64 {
        slow = slow.fresh().fail(&format!("{i}0"), 10 - i);
    }
    assert_eq!(slow.fresh().pass().first_trip(), None);
}

#[test]
fn disabled_rules_have_no_counter() {
    let mut c = Config::default();
    c.rules.oscillation.action = RuleAction::Off;
    let e = History::new().fresh().eval_with(&c);
    assert!(!e.counters.contains_key(&RuleName::Oscillation));
    assert!(e.counters.contains_key(&RuleName::Stagnation));
}

#[test]
fn unknown_evidence_is_not_a_loop() {
    let its: Vec<Iteration> = (0..20)
        .map(|i| Iteration::new(id(&format!("{i}"))))
        .collect();
    let mut c = Config::default();
    c.rules.budget.max_iterations = 100;
    let h = History::of(its);
    assert_eq!(h.first_trip_with(&c), None);
}

#[test]
fn every_rule_names_itself_once_and_round_trips() {
    let mut names: Vec<&str> = RuleName::ALL.iter().map(|r| r.as_str()).collect();
    for r in RuleName::ALL {
        assert_eq!(r.as_str().parse::<RuleName>().unwrap(), *r);
        assert_eq!(serde_json::to_string(r).unwrap(), format!("\"{r}\""));
        assert_eq!(
            serde_json::from_str::<RuleName>(&format!("\"{r}\"")).unwrap(),
            *r
        );
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), RuleName::ALL.len(), "two rules share a name");
    let mut sorted = RuleName::ALL.to_vec();
    sorted.sort();
    assert_eq!(sorted, RuleName::ALL, "ALL is in the enum's order");
    let typo = "stagnaton".parse::<RuleName>().unwrap_err();
    assert_eq!(typo.nearest(), Some("stagnation"));
    assert!(
        typo.to_string()
            .starts_with("unknown rule \"stagnaton\" (did you mean \"stagnation\"? expected one of constraint, same_error, "),
        "{typo}"
    );
}

#[test]
fn what_each_rule_says_of_its_breaker() {
    use crate::breaker::TerminalStatus;
    for &r in RuleName::ALL {
        let d = r.descriptor();
        // Only a person ends a policy violation or a spent budget; those are not a hard
        // problem a bigger model solves.
        let person = matches!(r, RuleName::Constraint | RuleName::Budget);
        assert_eq!(d.recovery == Recovery::Person, person, "{r}");
        assert_eq!(d.escalates, !person, "{r}");
        assert_eq!(
            d.terminal == TerminalStatus::AbortedConstraint,
            r == RuleName::Constraint,
            "{r}"
        );
        assert!(!d.counts.is_empty(), "{r}");
    }
    // Loops in the code end with new code; loops on a failure end when the failure does.
    for r in [
        RuleName::Stagnation,
        RuleName::Oscillation,
        RuleName::RepeatedPatch,
    ] {
        assert_eq!(r.descriptor().recovery, Recovery::NewCode, "{r}");
    }
    for r in [RuleName::SameError, RuleName::FalseCompletion] {
        assert_eq!(r.descriptor().recovery, Recovery::TestsChange, "{r}");
        assert_eq!(
            r.descriptor().looping_failure,
            LoopingFailure::NewestFailing,
            "{r}"
        );
    }
}

#[test]
fn stricter_profiles_allow_more_attempts() {
    use crate::config::Profile;
    let [s, b, y] = [Profile::Strict, Profile::Balanced, Profile::Yolo].map(Rules::for_profile);
    let counts = |r: &Rules| {
        [
            r.stagnation.threshold,
            r.same_error.threshold,
            r.repeated_patch.threshold,
            r.false_completion.threshold,
            r.budget.max_iterations,
            r.edge_loop.threshold,
        ]
    };
    for ((s, b), y) in counts(&s).into_iter().zip(counts(&b)).zip(counts(&y)) {
        assert!(s > b && b > y, "strict {s} > balanced {b} > yolo {y}");
    }
    // A single deliberate revert passes in every profile.
    assert!(y.oscillation.threshold >= 2);
}

#[test]
fn counters_serialise_as_the_contract_says() {
    assert_eq!(
        serde_json::to_value(Counter::at_least(1, 3)).unwrap(),
        serde_json::json!({"count": 1, "threshold": 3})
    );
    let share = Counter::of(
        2,
        Limit::Share {
            ratio: 0.5,
            of: 6,
            min: 3,
        },
    );
    assert_eq!(
        serde_json::to_value(share).unwrap(),
        serde_json::json!({"count": 2, "threshold": 0.5, "of": 6, "min_iterations": 3})
    );
}

#[test]
fn an_empty_record_without_its_parent_tree_is_an_empty_change_not_a_return() {
    // The shape of a re-trigger loop (empty commits to run CI again) as a converter writes
    // it: no `parent_tree`, `files: []`, the tree of the commit before.
    let record = |n: usize, tree: &str, files: Vec<crate::iteration::FileChange>| {
        let mut it = Iteration::new(id(&format!("c{n:02}aaaaaaa")));
        it.tree = Some(tree.into());
        it.files = Some(files);
        it.message = Some(if it.files.as_ref().unwrap().is_empty() {
            "ci: re-trigger".into()
        } else {
            format!("fix {n}")
        });
        it
    };
    let change = || {
        vec![crate::iteration::FileChange {
            path: "src/lib.py".into(),
            status: Some(crate::iteration::FileStatus::Modified),
            ..Default::default()
        }]
    };
    for with_parents in [false, true] {
        let mut its = vec![record(0, "A", change()), record(1, "B", change())];
        for n in 2..6 {
            its.push(record(n, "B", vec![]));
        }
        if with_parents {
            let mut parent = id("base");
            for it in &mut its {
                it.parents = Some(vec![parent.clone()]);
                parent = it.id.clone();
            }
        }
        let h = History::of(its);
        let facts = attempts(&Config::default(), &h.its);
        assert!(facts[2..].iter().all(|f| f.empty && f.returns_to.is_none()));
        assert_eq!(h.count(RuleName::Oscillation), 0);
        // Three empty changes in a row: stagnation, and it says what happened.
        assert_eq!(
            h.first_trip(),
            Some((5, RuleName::Stagnation)),
            "{with_parents}"
        );
        let reason = h.eval().trip().unwrap().reason.clone();
        assert!(!reason.contains("returned"), "{reason}");
    }
}
