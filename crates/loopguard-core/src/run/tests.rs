//! The step, table-tested: each case is a history (with what people did) and the breaker
//! it must end in, judged at once and recorded one commit at a time.

use super::*;
use crate::breaker::State;
use crate::config::TripAction;
use crate::iteration::{InterventionKind, Outcome as TestOutcome, TestEvidence};
use crate::rules::RuleName;
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
        // A commit, then its tests.
        let tests = if it.uncommitted { None } else { it.test.take() };
        let id = it.id.clone();
        run.record(c, it, at);
        if let Some(t) = tests {
            run.attach_test(c, &id, t, at);
        }
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

    // A failure loop (`same_error`): the next test run decides, as the rule's recovery
    // says, never new code alone. (Issue 27: new code failing the same way was "progress",
    // and CI said "Recovered" right after saying another round of the same reopens it.)
    let after = |h: History| both(&c, &h.at(600), 10_000);
    let cases: Vec<(&str, History, State, Option<&str>)> = vec![
        (
            "a re-run of the same code",
            h.clone().rerun(),
            State::Open,
            Some("no progress after resume"),
        ),
        (
            "new code, the same failure",
            h.clone().fresh().fail("aaaa", 1),
            State::Open,
            Some("the same failure after resume"),
        ),
        (
            "new code whose tests pass",
            h.clone().fresh().pass(),
            State::Closed,
            Some("the tests pass at "),
        ),
        (
            "new code, another failure",
            h.clone().fresh().fail("bbbb", 1),
            State::Closed,
            Some("the failure changed at "),
        ),
        (
            "new code, its tests not run yet",
            h.clone().fresh(),
            State::HalfOpen,
            None,
        ),
        (
            "an empty commit without tests",
            h.clone().empty(),
            State::HalfOpen,
            None,
        ),
        (
            "an empty commit failing the same way",
            h.clone().empty().fail("aaaa", 1),
            State::Open,
            Some("no progress after resume"),
        ),
    ];
    for (what, h, state, reason) in cases {
        let j = after(h);
        assert_eq!(j.run.breaker().state(), state, "{what}: {:?}", kinds(&j));
        let last = j
            .events
            .iter()
            .rev()
            .find(|e| e.kind != EventKind::Warn)
            .unwrap();
        if let Some(reason) = reason {
            let said = last.reason.as_deref().unwrap_or_default();
            assert!(said.starts_with(reason), "{what}: {said}");
        }
    }
    // Waiting for the tests: the test run that comes later decides, and the rules still
    // count the attempts between (three empty commits are `stagnation`).
    let j = after(h.clone().fresh().empty().fail("aaaa", 1));
    assert_eq!(j.run.breaker().state(), State::Open);
    let j = after(h.clone().fresh().empty().pass());
    assert_eq!(j.run.breaker().state(), State::Closed);
    let j = after(h.clone().empty().empty().empty());
    assert_eq!(j.run.breaker().state(), State::Open);
    assert_eq!(j.run.breaker().rule(), Some(RuleName::Stagnation));

    // A loop in the code (`stagnation`): progress closes it, as before.
    let h = History::new()
        .fresh()
        .empty()
        .empty()
        .empty()
        .then(InterventionKind::Resume, 500);
    assert_eq!(
        after(h.clone().fresh()).run.breaker().state(),
        State::Closed
    );
    assert_eq!(after(h.empty()).run.breaker().state(), State::Open);
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

/// What happens to one commit in an amend loop.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// `git commit --amend` to this tree (the first `Amend` amends the commit `c0`).
    Amend(&'static str),
    /// `loopguard run`: the tests fail with this signature (or pass with `""`).
    Test(&'static str),
}

/// Commits `c0` (tree `t0`), then plays `ops` on it the way the hooks and `run` do.
fn amend_loop(c: &Config, ops: &[Op]) -> Run {
    let mut run = Run::new("r", None, ts(0), None);
    let mut first = it("c0aaaaaaaa");
    first.tree = Some("t0".into());
    first.parent_tree = Some("base".into());
    first.files = Some(vec![crate::iteration::FileChange {
        path: "src/fix.py".into(),
        ..Default::default()
    }]);
    run.record(c, first.clone(), ts(1));
    let mut head = first;
    for (n, op) in ops.iter().enumerate() {
        let now = ts(10 * (n as i64 + 2));
        match op {
            Op::Amend(tree) => {
                let mut new = head.clone();
                new.id = crate::testing::id(&format!("c{}aaaaaaaa", n + 1));
                new.tree = Some((*tree).into());
                new.test = None;
                new.superseded_tests = Vec::new();
                run.rewrite(c, vec![(head.id.clone(), new.clone())], now);
                head = new;
            }
            Op::Test(sig) => {
                let t = if sig.is_empty() {
                    TestEvidence::new(TestOutcome::Pass)
                } else {
                    let mut t = TestEvidence::new(TestOutcome::Fail);
                    t.signature = Some(crate::testing::sig(sig));
                    t.failing = Some(1);
                    t
                };
                run.attach_test(c, &head.id, t, now)
                    .expect("the head is recorded");
            }
        }
    }
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

#[test]
fn an_amend_that_changes_the_tree_keeps_the_tested_version_as_a_test_run() {
    use Op::{Amend, Test};
    let c = Config::default();
    // (what happened, same_error's count, the breaker)
    let cases: &[(&[Op], u64, State)] = &[
        // The amend loop: edit, amend, test, the same failure each time.
        (
            &[Amend("t1"), Test("aa"), Amend("t2"), Test("aa")],
            2,
            State::Closed,
        ),
        (
            &[
                Amend("t1"),
                Test("aa"),
                Amend("t2"),
                Test("aa"),
                Amend("t3"),
                Test("aa"),
            ],
            3,
            State::Open,
        ),
        // Tested, then amended and not tested yet: the earlier run still counts.
        (&[Test("aa"), Amend("t1")], 1, State::Closed),
        // A different failure after the amend breaks the streak; a pass ends it.
        (&[Test("aa"), Amend("t1"), Test("bb")], 1, State::Closed),
        (&[Test("aa"), Amend("t1"), Test("")], 0, State::Closed),
        // A reword (the same tree) is no new test run: the evidence stays where it was.
        (
            &[Test("aa"), Amend("t0"), Amend("t0"), Amend("t0")],
            1,
            State::Closed,
        ),
    ];
    for (ops, count, state) in cases {
        let run = amend_loop(&c, ops);
        let eval = run.evaluate(&c);
        assert_eq!(
            (
                eval.counters[&RuleName::SameError].count,
                run.breaker().state()
            ),
            (*count, *state),
            "{ops:?}"
        );
        // An amend is never a new commit for the commit rules.
        assert_eq!(run.iterations().len(), 1, "{ops:?}");
        assert_eq!(eval.attempts, 1, "{ops:?}");
        assert_eq!(eval.counters[&RuleName::Budget].count, 1, "{ops:?}");
        // The run's history judged at once says the same.
        let j = judge(&c, run.iterations().to_vec(), "r", ts(10_000));
        assert_eq!(
            j.evaluation.counters[&RuleName::SameError].count,
            *count,
            "{ops:?}"
        );
    }
    let run = amend_loop(
        &c,
        &[
            Amend("t1"),
            Test("aa"),
            Amend("t2"),
            Test("aa"),
            Amend("t3"),
            Test("aa"),
        ],
    );
    assert_eq!(run.breaker().rule(), Some(RuleName::SameError));
    let reason = run.breaker().reason().unwrap();
    assert!(
        reason.ends_with("in 3 test runs in a row over 1 iteration, amended in between"),
        "{reason}"
    );
    assert_eq!(run.iterations()[0].superseded_tests.len(), 2);
}

#[test]
fn a_continued_run_keeps_everything_under_its_new_name() {
    let c = Config::default();
    let j = both(&c, &History::new().fresh().empty().empty().empty(), 10_000);
    assert!(j.run.is_open());
    let at = j.run.iterations()[2].id.clone();
    let next = j
        .run
        .continued_as("r2".into(), Some("stuck-2".into()), at.clone());
    assert_eq!(next.id, "r2");
    assert_eq!(next.breaker(), j.run.breaker());
    assert_eq!(next.iterations(), j.run.iterations());
    let from = next.inherited.as_ref().unwrap();
    assert_eq!((from.run.as_str(), &from.at), ("r", &at));
}

#[test]
fn an_ignored_config_is_recorded_once_per_content() {
    let mut run = Run::new("r", None, ts(0), None);
    let e = run.config_ignored("sha-a", "edited".into(), ts(1)).unwrap();
    assert_eq!(
        (e.kind, e.from, e.to),
        (EventKind::ConfigIgnored, State::Closed, State::Closed)
    );
    assert!(
        run.config_ignored("sha-a", "edited".into(), ts(2))
            .is_none()
    );
    assert!(
        run.config_ignored("sha-b", "edited".into(), ts(3))
            .is_some()
    );
}

#[test]
fn a_persons_turn_starts_the_loop_counters_again_but_not_the_budget() {
    let c = config(|c| c.rules.budget.max_iterations = 6);
    // Two empty commits, a person's turn, two more: no three in a row in one episode.
    let h = History::new()
        .fresh()
        .empty()
        .empty()
        .then(InterventionKind::NewEpisode, 10)
        .empty()
        .empty();
    let j = both(&c, &h, 100);
    assert_eq!(j.run.breaker().state(), State::Closed);
    assert_eq!(j.evaluation.counters[&RuleName::Stagnation].count, 2);
    assert_eq!(kinds(&j), [EventKind::Episode]);
    // The budget counts the whole run: the sixth attempt spends it.
    let j = both(&c, &h.clone().fresh(), 100);
    assert_eq!(
        j.run.breaker().rule(),
        Some(RuleName::Budget),
        "{:?}",
        kinds(&j)
    );

    // While open, a person's turn lets the next attempt decide, as a resume does.
    let h = History::new()
        .fresh()
        .empty()
        .empty()
        .empty()
        .then(InterventionKind::NewEpisode, 10);
    let j = both(&Config::default(), &h, 100);
    assert_eq!(j.run.breaker().state(), State::HalfOpen);
    assert_eq!(kinds(&j), [EventKind::Trip, EventKind::Episode]);
    let closed = both(&Config::default(), &h.clone().fresh(), 100);
    assert_eq!(closed.run.breaker().state(), State::Closed);
    let reopened = both(&Config::default(), &h.empty(), 100);
    assert_eq!(reopened.run.breaker().state(), State::Open);
}

#[test]
fn who_made_a_commit_is_its_own_property_not_its_place_in_the_history() {
    const HUMAN: &str = "Jane <jane@example.com>";
    const AGENT: &str = "Copilot <198982749+Copilot@users.noreply.github.com>";
    // Two empty commits by a person, then the agent's first commit, empty too: before,
    // the known identities took effect only from that commit, and the person's commits
    // were the agent's first two attempts (three empty attempts in a row).
    let h = History::new()
        .empty()
        .author(HUMAN)
        .empty()
        .author(HUMAN)
        .empty()
        .author(AGENT)
        .fresh()
        .author(AGENT);
    let j = both(&Config::default(), &h, 1000);
    assert_eq!(j.run.breaker().state(), State::Closed, "{:?}", j.events);
    assert_eq!(j.evaluation.attempts, 2);
    let kinds: Vec<_> = j.run.iterations().iter().map(|it| it.kind).collect();
    use crate::iteration::IterationKind::{Attempt, Context};
    assert_eq!(
        kinds,
        [Some(Context), Some(Context), Some(Attempt), Some(Attempt)]
    );
    // The same commits in another order are judged the same, commit by commit.
    let mut reordered = h.its.clone();
    reordered.swap(1, 2);
    let j = judge(&Config::default(), reordered, "r", ts(1000));
    assert_eq!(j.evaluation.attempts, 2);
}

#[test]
fn commits_a_merge_brought_in_are_not_attempts() {
    // The agent's branch merges a side branch whose two commits were also rebased onto
    // the branch: the copies on the side are not the agent's patches applied again, and
    // not attempts.
    let side = |h: History, parent: &str| {
        let mut h = h;
        h.last().parents = Some(vec![crate::testing::id(parent)]);
        h
    };
    let mut h = History::new().fresh().to("t1", "pa").to("t2", "pb");
    h = h.with_parents("base0000");
    // The side branch's copies of the same patches, from the first commit.
    h = side(h.to("s1", "pa"), "c00aaaaaaa");
    let s1 = h.its.last().unwrap().id.clone();
    h = side(h.to("s2", "pb"), s1.as_str());
    let s2 = h.its.last().unwrap().id.clone();
    // The merge: first parent the branch's tip, second the side's tip.
    h = h.fresh();
    h.last().parents = Some(vec![crate::testing::id("c02aaaaaaa"), s2.clone()]);
    h.last().patch_id = None;
    let merge = h.its.last().unwrap().id.clone();
    h = side(h.fresh(), merge.as_str());
    let j = judge(&Config::default(), h.its.clone(), "r", ts(1000));
    assert_eq!(j.run.breaker().state(), State::Closed, "{:?}", j.events);
    assert_eq!(j.evaluation.counters[&RuleName::RepeatedPatch].count, 0);
    assert_eq!(j.evaluation.attempts, 4);
    assert!(
        j.run
            .iterations()
            .iter()
            .all(|it| it.id != s1 && it.id != s2)
    );
}

#[test]
fn a_persons_commit_between_the_agents_attempts_is_a_new_episode() {
    const AGENT: &str = "Agent <agent@example.com>";
    const PERSON: &str = "Jane <jane@example.com>";
    let c = Config::parse(
        "agents: ['Agent <*>']\n",
        std::path::Path::new(".loopguard.yml"),
    )
    .unwrap();
    // Two failing attempts, a person's commit, one more failing attempt: no three in a
    // row in one episode; without the person's commit, same_error trips.
    let failing = |h: History| h.fresh().author(AGENT).fail("a1", 1);
    let h = failing(failing(History::new()));
    let with_person = failing(h.clone().fresh().author(PERSON));
    let j = both(&c, &with_person, 1000);
    assert_eq!(j.run.breaker().state(), State::Closed, "{:?}", j.events);
    assert_eq!(kinds(&j), [EventKind::Episode]);
    assert!(
        j.events[0]
            .reason
            .as_deref()
            .unwrap()
            .starts_with("Jane's commit c02aaaa"),
        "{:?}",
        j.events[0].reason
    );
    assert_eq!(j.evaluation.counters[&RuleName::SameError].count, 1);
    let j = both(&c, &failing(h.clone()), 1000);
    assert_eq!(j.run.breaker().rule(), Some(RuleName::SameError));
    // The budget counts the whole run.
    assert_eq!(
        both(&c, &with_person, 1000).evaluation.counters[&RuleName::Budget].count,
        3
    );
    // A person's commit before the agent's first attempt is no turn: nothing to restart.
    let first = failing(History::new().fresh().author(PERSON));
    assert_eq!(kinds(&both(&c, &first, 1000)), Vec::<EventKind>::new());
    // Without a way to tell the agent from people, every commit is the agent's.
    let j = both(&Config::default(), &with_person, 1000);
    assert_eq!(j.run.breaker().rule(), Some(RuleName::SameError));
}
