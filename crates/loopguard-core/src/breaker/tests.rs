//! The breaker's states and transitions, and its file.

use super::*;

fn ts(secs: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + secs).unwrap()
}

fn at(len: usize, secs: i64) -> At {
    At {
        run: "r1".to_owned(),
        now: ts(secs),
        iteration: None,
        len,
    }
}

fn models() -> Vec<String> {
    ["haiku", "sonnet", "opus"].map(String::from).to_vec()
}

#[test]
fn a_trip_opens_and_blocks_under_pause_but_not_alert() {
    let mut b = Breaker::default();
    let e = b.trip_on(
        RuleName::Stagnation,
        "stuck".into(),
        TripAction::Pause,
        &at(3, 0),
    );
    assert_eq!(
        (e.kind, e.from, e.to),
        (EventKind::Trip, State::Closed, State::Open)
    );
    assert_eq!(b.terminal_status(), Some(TerminalStatus::AbortedStuck));
    assert!(b.blocks(TripAction::Pause));
    assert!(!b.blocks(TripAction::Alert));
    assert_eq!(
        (b.rule(), b.reason()),
        (Some(RuleName::Stagnation), Some("stuck"))
    );
    assert_eq!(b.trips(), 1);
}

#[test]
fn constraint_is_aborted_constraint_and_abort_is_final() {
    let mut b = Breaker::default();
    b.trip_on(
        RuleName::Constraint,
        "touched".into(),
        TripAction::Abort,
        &at(1, 0),
    );
    assert_eq!(b.terminal_status(), Some(TerminalStatus::AbortedConstraint));
    assert!(b.is_aborted() && b.blocks(TripAction::Alert));
    assert_eq!(b.resume(&at(1, 5)), Err(ResumeError::Aborted));
    assert_eq!(
        b.continue_after_trip(&at(1, 5)).unwrap_err(),
        ResumeError::Aborted
    );
}

#[test]
fn resume_half_opens_and_a_failed_attempt_reopens_with_the_first_reason() {
    let mut b = Breaker::default();
    assert_eq!(
        b.resume(&at(0, 0)),
        Err(ResumeError::NotOpen(State::Closed))
    );
    b.trip_on(
        RuleName::Oscillation,
        "A B A".into(),
        TripAction::Pause,
        &at(4, 0),
    );
    let e = b.resume(&at(4, 10)).unwrap();
    assert_eq!(
        (e.from, e.to, b.baseline()),
        (State::Open, State::HalfOpen, 4)
    );
    assert_eq!(b.terminal_status(), None);
    assert_eq!(
        b.resume(&at(4, 11)),
        Err(ResumeError::NotOpen(State::HalfOpen))
    );
    let e = b.reopen(Reopen::NoProgress, TripAction::Pause, &at(5, 20));
    assert_eq!(e.kind, EventKind::Reopen);
    assert_eq!(b.rule(), Some(RuleName::Oscillation));
    assert_eq!(
        b.reason(),
        Some("no progress after resume (tripped before: A B A)")
    );
    // A second failed resume quotes the first reason, not the nested one.
    b.resume(&at(5, 30)).unwrap();
    b.reopen(Reopen::NoProgress, TripAction::Pause, &at(6, 40));
    assert_eq!(
        b.reason(),
        Some("no progress after resume (tripped before: A B A)")
    );
    assert_eq!(b.trips(), 3);
}

/// A reopen names who let the agent try again: a resume, the cooldown, or a person's
/// turn (a session's prompt resumes nothing), and that survives the run file.
#[test]
fn a_reopen_names_what_half_opened_the_breaker() {
    type HalfOpen = fn(&mut Breaker);
    let cases: [(HalfOpen, &str); 3] = [
        (
            |b| {
                b.resume(&at(4, 10)).unwrap();
            },
            "no progress after resume (tripped before: A B A)",
        ),
        (
            |b| {
                b.cool_down(jiff::SignedDuration::from_secs(5), &at(4, 10))
                    .unwrap();
            },
            "no progress after the cooldown (tripped before: A B A)",
        ),
        (
            |b| {
                b.new_episode("the user's prompt", &at(4, 10)).unwrap();
            },
            "no progress after a person's turn (tripped before: A B A)",
        ),
    ];
    for (half_open, reason) in cases {
        let mut b = Breaker::default();
        b.trip_on(
            RuleName::Oscillation,
            "A B A".into(),
            TripAction::Pause,
            &at(4, 0),
        );
        half_open(&mut b);
        let kept: Breaker = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(kept, b, "{reason}");
        let mut b = kept;
        b.reopen(Reopen::NoProgress, TripAction::Pause, &at(5, 20));
        assert_eq!(b.reason(), Some(reason));
        let reread: Breaker = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(reread, b, "open again, nothing half-opened it: {reason}");
    }
}

#[test]
fn close_restarts_the_counters() {
    let mut b = Breaker::default();
    b.trip_on(
        RuleName::SameError,
        "x".into(),
        TripAction::Pause,
        &at(3, 0),
    );
    let e = b.close("the tests pass".into(), &at(4, 9));
    assert_eq!(
        (e.kind, e.rule, b.state(), b.baseline()),
        (
            EventKind::Close,
            Some(RuleName::SameError),
            State::Closed,
            4
        )
    );
    assert_eq!((b.rule(), b.terminal_status()), (None, None));
}

#[test]
fn cooldown_half_opens_after_the_duration() {
    let mut b = Breaker::default();
    let thirty = jiff::SignedDuration::from_mins(30);
    assert!(
        b.cool_down(thirty, &at(3, 3600)).is_none(),
        "closed: nothing"
    );
    b.trip_on(
        RuleName::Stagnation,
        "x".into(),
        TripAction::Pause,
        &at(3, 0),
    );
    assert!(b.cool_down(thirty, &at(3, 29 * 60)).is_none());
    let e = b.cool_down(thirty, &at(3, 30 * 60)).unwrap();
    assert_eq!((e.kind, b.state()), (EventKind::Cooldown, State::HalfOpen));
}

#[test]
fn escalation_closes_on_the_next_model_until_the_last() {
    let mut b = Breaker::default();
    b.trip_on(
        RuleName::SameError,
        "x".into(),
        TripAction::Escalate,
        &at(3, 0),
    );
    let e = b.escalate(&models(), &at(3, 0)).unwrap();
    assert_eq!(
        (e.kind, e.to, b.model()),
        (EventKind::Escalate, State::Closed, 1)
    );
    assert_eq!(
        e.reason.as_deref(),
        Some("escalated to the next model: sonnet")
    );
    assert_eq!(b.baseline(), 3);
    b.trip_on(
        RuleName::SameError,
        "y".into(),
        TripAction::Escalate,
        &at(6, 0),
    );
    b.escalate(&models(), &at(6, 0)).unwrap();
    assert_eq!(b.model(), 2);
    b.trip_on(
        RuleName::SameError,
        "z".into(),
        TripAction::Escalate,
        &at(9, 0),
    );
    assert!(
        b.escalate(&models(), &at(9, 0)).is_none(),
        "the last model pauses"
    );
    assert!(b.blocks(TripAction::Escalate));
    assert_eq!(
        b.next_model(&models(), &at(9, 1)),
        Err(ResumeError::NoNextModel)
    );
}

#[test]
fn constraint_and_budget_trips_pause_instead_of_escalating() {
    for rule in [RuleName::Constraint, RuleName::Budget] {
        let mut b = Breaker::default();
        b.trip_on(rule, "x".into(), TripAction::Escalate, &at(3, 0));
        assert!(b.escalate(&models(), &at(3, 0)).is_none(), "{rule}");
        assert_eq!((b.state(), b.model()), (State::Open, 0), "{rule}");
        assert!(b.blocks(TripAction::Escalate));
        // A person may still hand it over.
        let e = b.next_model(&models(), &at(3, 9)).unwrap();
        assert_eq!(
            (e.kind, b.state(), b.model()),
            (EventKind::Escalate, State::Closed, 1)
        );
    }
}

#[test]
fn finish_done_closes_and_aborted_stops() {
    let mut b = Breaker::default();
    let e = b.finish(TerminalStatus::DoneSuccess, "ok".into(), &at(2, 0));
    assert_eq!(
        (e.kind, b.state(), b.terminal_status()),
        (
            EventKind::Finish,
            State::Closed,
            Some(TerminalStatus::DoneSuccess)
        )
    );
    assert!(b.is_done() && b.is_final());
    let mut b = Breaker::default();
    b.finish(
        TerminalStatus::AbortedStuck,
        "no progress".into(),
        &at(2, 0),
    );
    assert_eq!(
        (b.state(), b.rule()),
        (State::Open, Some(RuleName::Stagnation))
    );
    assert!(b.is_aborted());
}

#[test]
fn the_record_round_trips_and_refuses_nonsense() {
    let mut b = Breaker::default();
    b.trip_on(
        RuleName::Oscillation,
        "A B A".into(),
        TripAction::Pause,
        &at(4, 0),
    );
    b.resume(&at(4, 1)).unwrap();
    b.reopen(Reopen::NoProgress, TripAction::Pause, &at(5, 2));
    let json = serde_json::to_string(&b).unwrap();
    assert_eq!(serde_json::from_str::<Breaker>(&json).unwrap(), b);
    let v1 = r#"{"state":"open","terminal_status":"aborted_stuck","rule":"stagnation","reason":"x","opened_at":"2027-01-15T08:00:00Z","baseline":0,"trips":1,"model":0,"aborted":false,"opened_after":3}"#;
    let read = serde_json::from_str::<Breaker>(v1).unwrap();
    assert_eq!(read.rule(), Some(RuleName::Stagnation));
    assert_eq!(read.trip().map(|t| t.after), Some(3));
    for bad in [
        r#"{"state":"open","rule":null}"#,
        r#"{"state":"half_open","terminal_status":"done_success"}"#,
        r#"{"state":"closed","aborted":true}"#,
        // An open breaker that does not say which iterations came after its trip.
        r#"{"state":"open","rule":"stagnation","opened_at":"2027-01-15T08:00:00Z"}"#,
    ] {
        assert!(serde_json::from_str::<Breaker>(bad).is_err(), "{bad}");
    }
    assert_eq!(
        serde_json::from_str::<Breaker>("{}").unwrap(),
        Breaker::default()
    );
}
