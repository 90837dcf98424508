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
fn every_rule_has_one_row_and_names_round_trip() {
    assert_eq!(RuleName::ALL.len(), RULES.len());
    for (r, row) in RuleName::ALL.iter().zip(&RULES) {
        assert_eq!(*r, row.name);
        assert_eq!(r.as_str().parse::<RuleName>().unwrap(), *r);
        assert_eq!(serde_json::to_string(r).unwrap(), format!("\"{r}\""));
    }
    let mut sorted = RuleName::ALL;
    sorted.sort();
    assert_eq!(sorted, RuleName::ALL, "RULES is in the enum's order");
}

#[test]
fn counters_serialise_as_the_contract_says() {
    assert_eq!(
        serde_json::to_value(Counter::at_least(1, 3)).unwrap(),
        serde_json::json!({"count": 1, "threshold": 3})
    );
    let share = Counter {
        count: 2,
        limit: Limit::Share {
            ratio: 0.5,
            of: 6,
            min: 3,
        },
    };
    assert_eq!(
        serde_json::to_value(share).unwrap(),
        serde_json::json!({"count": 2, "threshold": 0.5, "of": 6, "min_iterations": 3})
    );
}
