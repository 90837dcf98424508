//! The step, table-tested: each case is a history (with what people did) and the breaker
//! it must end in, judged at once and recorded one commit at a time.

use super::*;
use crate::config::TripAction;
use crate::iteration::{InterventionKind, Outcome as TestOutcome};
use crate::testing::{History, it, ts};

fn config(f: impl FnOnce(&mut Config)) -> Config {
    let mut c = Config::default();
    f(&mut c);
    c
}

/// Judges the history at once and commit by commit (as the hooks do), checks both agree,
/// and returns the judgement.
fn both(c: &Config, h: &History, now: i64) -> Judgement {
    let j = judge(c, h.its.clone(), "r", ts(now));
    let mut run = Run::new("r", None, ts(0), None);
    for mut it in h.its.clone() {
        let at = it.at.unwrap_or(ts(now));
        let ivs = std::mem::take(&mut it.interventions);
        run.record(c, it, at);
        for iv in ivs {
            let _ = run.intervene(c, iv);
        }
    }
    run.tick(c, ts(now));
    assert_eq!(run.breaker(), j.run.breaker(), "hooks and judge agree");
    assert_eq!(run.evaluate(c).counters, j.evaluation.counters);
    j
}

fn kinds(j: &Judgement) -> Vec<EventKind> {
    j.events
        .iter()
        .filter(|e| e.kind != EventKind::Warn)
        .map(|e| e.kind)
        .collect()
}

fn chain(tests: &[Option<(TestOutcome, &str)>]) -> History {
    let mut h = History::new();
    for t in tests {
        h = h.fresh();
        h = match t {
            Some((TestOutcome::Fail, s)) => h.fail(s, 1),
            Some((TestOutcome::Pass, _)) => h.pass(),
            None => h,
        };
    }
    h
}

const FAIL_A: Option<(TestOutcome, &str)> = Some((TestOutcome::Fail, "aaaa"));
const FAIL_B: Option<(TestOutcome, &str)> = Some((TestOutcome::Fail, "bbbb"));
const PASS: Option<(TestOutcome, &str)> = Some((TestOutcome::Pass, ""));

#[test]
fn recording_is_idempotent_and_trips_once() {
    let c = Config::default();
    let h = History::new().fresh().empty().empty().empty();
    let mut run = Run::new("r", Some("main".into()), ts(0), None);
    let mut trips = 0;
    for i in &h.its {
        // Hooks may run twice for one commit: the second is not a new attempt.
        for n in 0..2 {
            let out = run.record(&c, i.clone(), ts(n));
            trips += out.events.iter().filter(|e| e.kind.opens()).count();
        }
    }
    assert_eq!(run.iterations().len(), 4);
    assert_eq!(trips, 1);
    assert_eq!(run.breaker().rule(), Some(RuleName::Stagnation));
}

#[test]
fn evidence_is_kept_through_a_rewrite() {
    let c = Config::default();
    let mut run = Run::new("r", None, ts(0), None);
    run.record(&c, it("a"), ts(1));
    run.attach_test(
        &c,
        &crate::testing::id("a"),
        TestEvidence::new(TestOutcome::Pass),
        ts(2),
    )
    .unwrap();
    let (n, _) = run.rewrite(&c, vec![(crate::testing::id("a"), it("a2"))], ts(3));
    assert_eq!(n, 1);
    assert_eq!(run.iterations().len(), 1);
    assert_eq!(run.iterations()[0].id, "a2");
    assert!(run.iterations()[0].test.as_ref().unwrap().passes());
}

#[test]
fn recovery_table() {
    let c = Config::default();
    type Case<'a> = (&'a [Option<(TestOutcome, &'a str)>], State);
    let cases: &[Case<'_>] = &[
        // Still the same failure after the trip: stays open.
        (&[FAIL_A, FAIL_A, FAIL_A, FAIL_A], State::Open),
        // Tests pass: closed.
        (&[FAIL_A, FAIL_A, FAIL_A, PASS], State::Closed),
        // A different failure: the failure changed, closed.
        (&[FAIL_A, FAIL_A, FAIL_A, FAIL_B], State::Closed),
        // No evidence yet for the newest push: a code change alone does not mend a
        // same-error trip.
        (&[FAIL_A, FAIL_A, FAIL_A, None], State::Open),
        // Closed again, then the same failure three times more: open again.
        (
            &[FAIL_A, FAIL_A, FAIL_A, PASS, FAIL_A, FAIL_A, FAIL_A],
            State::Open,
        ),
    ];
    for (tests, want) in cases {
        let j = both(&c, &chain(tests), 10_000);
        assert_eq!(j.run.breaker().state(), *want, "{tests:?}");
    }
    let j = both(&c, &chain(&[FAIL_A, FAIL_A, FAIL_A, PASS]), 10_000);
    assert_eq!(kinds(&j), [EventKind::Trip, EventKind::Close]);
    assert_eq!(
        j.events[1].reason.as_deref(),
        Some("recovered: the tests pass at c03aaaa")
    );
    assert_eq!(j.run.breaker().baseline(), 4);
}

#[test]
fn stagnation_recovers_on_real_progress_only() {
    let c = Config::default();
    let h = History::new().fresh().empty().empty().empty();
    let j = both(&c, &h, 10_000);
    assert_eq!(j.run.breaker().rule(), Some(RuleName::Stagnation));
    assert_eq!(
        both(&c, &h.clone().to("t9", "p9"), 10_000)
            .run
            .breaker()
            .state(),
        State::Closed
    );
    // Going back to an earlier tree is no progress.
    assert_eq!(
        both(&c, &h.to("base", "-p0"), 10_000).run.breaker().state(),
        State::Open
    );
}

#[test]
fn constraint_and_abort_wait_for_a_person() {
    let c = Config::default();
    let h = History::new()
        .fresh()
        .files(&[".loopguard.yml"])
        .fresh()
        .pass();
    let j = both(&c, &h, 10_000);
    assert_eq!(j.run.breaker().state(), State::Open);
    assert_eq!(
        j.run.breaker().terminal_status(),
        Some(TerminalStatus::AbortedConstraint)
    );

    let abort = config(|c| c.on_trip.action = TripAction::Abort);
    let j = both(&abort, &chain(&[FAIL_A, FAIL_A, FAIL_A, PASS]), 10_000);
    assert!(j.run.breaker().is_aborted());
    assert_eq!(j.run.breaker().state(), State::Open);
}

#[test]
fn a_resume_half_opens_and_the_next_attempt_decides() {
    let c = Config::default();
    let h = chain(&[FAIL_A, FAIL_A, FAIL_A]).then(InterventionKind::Resume, 500);
    let j = both(&c, &h, 10_000);
    assert_eq!(j.run.breaker().state(), State::HalfOpen);
    assert_eq!(kinds(&j), [EventKind::Trip, EventKind::Resume]);

    // No progress after the resume: open again, quoting the first reason.
    let j = both(&c, &h.clone().rerun().at(600), 10_000);
    assert_eq!(j.run.breaker().state(), State::Open);
    assert_eq!(kinds(&j).last(), Some(&EventKind::Reopen));
    let reason = j.run.breaker().reason().unwrap();
    assert!(
        reason.starts_with("the same failure") || reason.starts_with("no progress after resume"),
        "{reason}"
    );

    // Progress after the resume: closed, counting restarts.
    let j = both(&c, &h.fresh().at(600), 10_000);
    assert_eq!(j.run.breaker().state(), State::Closed);
}

#[test]
fn the_cooldown_half_opens_at_the_time_of_the_next_attempt() {
    // The bug this fixes: `replay` with a cooldown ended open where the hooks closed.
    let c = config(|c| c.on_trip.cooldown = Some(jiff::SignedDuration::from_mins(1)));
    let h = History::new()
        .fresh()
        .at(0)
        .empty()
        .at(10)
        .empty()
        .at(20)
        .empty()
        .at(30);
    let j = both(&c, &h, 40);
    assert_eq!(
        j.run.breaker().state(),
        State::Open,
        "the minute has not passed"
    );
    let later = h.clone().fresh().at(5 * 3600);
    let j = both(&c, &later, 5 * 3600);
    assert_eq!(j.run.breaker().state(), State::Closed);
    assert_eq!(
        kinds(&j),
        [EventKind::Trip, EventKind::Cooldown, EventKind::Close]
    );
    // Without a new attempt, the clock alone half-opens it.
    let j = both(&c, &h, 5 * 3600);
    assert_eq!(j.run.breaker().state(), State::HalfOpen);
}

#[test]
fn escalation_gives_each_model_fresh_counters() {
    let c = config(|c| c.on_trip.action = TripAction::Escalate);
    let h = chain(&[FAIL_A, FAIL_A, FAIL_A]);
    let j = both(&c, &h, 10_000);
    assert_eq!(kinds(&j), [EventKind::Trip, EventKind::Escalate]);
    assert_eq!(j.run.breaker().state(), State::Closed);
    assert_eq!(j.run.current_model(&c), Some("sonnet"));
    // The next model's attempts without progress do not escalate again at once: it has
    // its own counters.
    let h = h.fresh().fail("aaaa", 1).fresh().fail("aaaa", 1);
    let j = both(&c, &h, 10_000);
    assert_eq!(j.run.breaker().state(), State::Closed, "{:?}", kinds(&j));
    assert_eq!(j.run.current_model(&c), Some("sonnet"));
    assert_eq!(j.evaluation.counters[&RuleName::SameError].count, 2);
    // Its own third: opus.
    let h = h.fresh().fail("aaaa", 1);
    let j = both(&c, &h, 10_000);
    assert_eq!(j.run.current_model(&c), Some("opus"));
    assert!(j.events.iter().all(|e| {
        e.reason
            .as_deref()
            .is_none_or(|r| !r.contains("after resume"))
    }));
    // Opus stuck too: paused for good.
    let h = h
        .fresh()
        .fail("aaaa", 1)
        .fresh()
        .fail("aaaa", 1)
        .fresh()
        .fail("aaaa", 1);
    let j = both(&c, &h, 10_000);
    assert_eq!(j.run.breaker().state(), State::Open);
    assert!(j.run.breaker().blocks(TripAction::Escalate));
    // The budget still counts the whole run.
    assert_eq!(j.evaluation.counters[&RuleName::Budget].count, 9);
}

#[test]
fn an_escalated_harness_gets_its_own_edge_steps() {
    let c = config(|c| {
        c.on_trip.action = TripAction::Escalate;
        c.rules
            .edge_loop
            .edges
            .insert("planner_to_verifier".into(), 2);
    });
    let mut run = Run::new("r", None, ts(0), None);
    let step = |run: &mut Run, n: i64| {
        run.event(
            &c,
            EdgeInput {
                edge: "planner_to_verifier".into(),
                ..EdgeInput::default()
            },
            ts(n),
        )
    };
    step(&mut run, 1);
    let out = step(&mut run, 2);
    assert!(
        out.outcome
            .events
            .iter()
            .any(|e| e.kind == EventKind::Escalate)
    );
    assert_eq!(run.current_model(&c), Some("sonnet"));
    let out = step(&mut run, 3);
    assert_eq!(
        (out.count, run.current_model(&c)),
        (1, Some("sonnet")),
        "one step of sonnet's own"
    );
    step(&mut run, 4);
    assert_eq!(run.current_model(&c), Some("opus"));
}

#[test]
fn a_blocked_harness_step_is_refused_and_not_counted() {
    let c = config(|c| {
        c.rules
            .edge_loop
            .edges
            .insert("planner_to_verifier".into(), 3);
    });
    let mut run = Run::new("r", None, ts(0), None);
    let input = || EdgeInput {
        edge: "planner_to_verifier".into(),
        ..EdgeInput::default()
    };
    for n in 1..=3 {
        run.event(&c, input(), ts(n));
    }
    assert!(run.is_open());
    let out = run.event(&c, input(), ts(9));
    assert!(out.refused);
    assert_eq!((out.count, out.threshold, run.usage.steps), (3, 3, 3));
}

#[test]
fn interventions_replay_exactly() {
    let c = Config::default();
    let h = History::new()
        .fresh()
        .empty()
        .empty()
        .empty()
        .then(InterventionKind::Continue, 300)
        .empty()
        .empty();
    let j = both(&c, &h, 10_000);
    assert_eq!(
        j.run.breaker().state(),
        State::Closed,
        "continue restarted the counters"
    );
    let h = h.then(InterventionKind::Abort, 900);
    let j = both(&c, &h, 10_000);
    assert!(j.run.breaker().is_aborted());
    // The history a judgement leaves keeps the interventions: judged again, the same.
    let again = judge(&c, j.run.iterations().to_vec(), "r", ts(10_000));
    assert_eq!(again.run.breaker(), j.run.breaker());
}

#[test]
fn finishing() {
    let c = Config::default();
    let cases = [
        (History::new().fresh().pass(), TerminalStatus::DoneSuccess),
        (
            History::new().fresh().fail("aa", 2),
            TerminalStatus::DonePartial,
        ),
        (History::new(), TerminalStatus::DonePartial),
        (History::new().empty().empty(), TerminalStatus::AbortedStuck),
    ];
    for (h, want) in cases {
        let mut run = judge(&c, h.its.clone(), "r", ts(100)).run;
        let e = run.finish(&c, ts(200));
        assert_eq!(e.terminal_status, Some(want), "{h:?}");
        assert_eq!(run.breaker().is_done(), want.is_done());
    }
}

/// As the hooks see a history: each commit recorded bare when it is made, its tests
/// attached after it (`loopguard run`).
fn record_then_test(c: &Config, h: &History, now: i64) -> Run {
    let mut run = Run::new("r", None, ts(0), None);
    for mut it in h.its.clone() {
        let at = it.at.unwrap_or(ts(now));
        let test = it.test.take();
        let id = it.id.clone();
        run.record(c, it, at);
        if let Some(t) = test {
            run.attach_test(c, &id, t, at);
        }
    }
    run.tick(c, ts(now));
    run
}

#[test]
fn tests_run_after_the_commit_end_where_tests_with_the_commit_do() {
    let alert = config(|c| c.on_trip.action = TripAction::Alert);
    let pause = Config::default();
    let cases: Vec<(&str, &Config, History)> = vec![
        (
            "an empty commit that trips stagnation, then its tests pass",
            &pause,
            chain(&[FAIL_A]).empty().empty().empty().pass(),
        ),
        (
            "the same failure, then a fix whose tests pass (alert)",
            &alert,
            chain(&[FAIL_A, FAIL_A, FAIL_A, PASS]),
        ),
        (
            "the same failure, then a change that fails differently (alert)",
            &alert,
            chain(&[FAIL_A, FAIL_A, FAIL_A, FAIL_B]),
        ),
        (
            "the same failure three times",
            &pause,
            chain(&[FAIL_A, FAIL_A, FAIL_A]),
        ),
    ];
    for (name, c, h) in cases {
        let judged = judge(c, h.its.clone(), "r", ts(100));
        let hooks = record_then_test(c, &h, 100);
        assert_eq!(
            (hooks.breaker().state(), hooks.breaker().rule()),
            (judged.run.breaker().state(), judged.run.breaker().rule()),
            "{name}"
        );
    }
    // Evidence for an earlier commit is context: it never decides the breaker.
    let mut run = record_then_test(&Config::default(), &chain(&[FAIL_A, FAIL_A, FAIL_A]), 100);
    assert!(run.is_open());
    let first = run.iterations()[0].id.clone();
    run.attach_test(
        &Config::default(),
        &first,
        TestEvidence::new(TestOutcome::Pass),
        ts(200),
    );
    assert!(run.is_open(), "old evidence does not mend a trip");
}
