//! The circuit breaker: `closed -> open -> half_open -> closed | open`, terminal statuses,
//! and the events every transition leaves (DESIGN.md, "Breaker").
//!
//! The breaker never looks at the history itself: it steps on an [`Evaluation`] (what the
//! rules say) and the time, which come in as values.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::config::{Config, TripAction};
use crate::rules::{Evaluation, RuleName};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    #[default]
    Closed,
    Open,
    HalfOpen,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Closed => "closed",
            State::Open => "open",
            State::HalfOpen => "half_open",
        }
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminalStatus {
    DoneSuccess,
    DonePartial,
    AbortedStuck,
    AbortedConstraint,
}

impl TerminalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TerminalStatus::DoneSuccess => "done_success",
            TerminalStatus::DonePartial => "done_partial",
            TerminalStatus::AbortedStuck => "aborted_stuck",
            TerminalStatus::AbortedConstraint => "aborted_constraint",
        }
    }

    pub fn for_rule(rule: RuleName) -> TerminalStatus {
        if rule == RuleName::Constraint {
            TerminalStatus::AbortedConstraint
        } else {
            TerminalStatus::AbortedStuck
        }
    }

    pub fn is_done(self) -> bool {
        matches!(
            self,
            TerminalStatus::DoneSuccess | TerminalStatus::DonePartial
        )
    }
}

impl std::fmt::Display for TerminalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happened, for the append-only event log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// closed -> open.
    Trip,
    /// half_open -> open (no progress after resume, or a rule fired again).
    Reopen,
    /// half_open -> closed (progress after resume), or open -> closed under `alert`.
    Close,
    /// open -> half_open by `resume`.
    Resume,
    /// open -> half_open because the cooldown elapsed.
    Cooldown,
    /// Any -> closed, a new run.
    Reset,
    /// A rule with `action: warn` reached its threshold.
    Warn,
    /// The run ended (`finish`).
    Finish,
    /// Escalation handed out the next model.
    Escalate,
}

/// One entry of the event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub at: Timestamp,
    pub run: String,
    pub kind: EventKind,
    pub from: State,
    pub to: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The iteration the transition happened at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_status: Option<TerminalStatus>,
}

/// The persisted breaker.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Breaker {
    pub state: State,
    #[serde(default)]
    pub terminal_status: Option<TerminalStatus>,
    /// The rule that opened the breaker (kept while half-open, to say why).
    #[serde(default)]
    pub rule: Option<RuleName>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub opened_at: Option<Timestamp>,
    /// History index where the rules start counting (moved by resume and by closing).
    #[serde(default)]
    pub baseline: usize,
    /// Times the breaker opened in this run.
    #[serde(default)]
    pub trips: u32,
    /// Index into `escalation.models` of the model in use (escalate action).
    #[serde(default)]
    pub model: usize,
    /// Whether the run was aborted for good (`on_trip.action: abort`).
    #[serde(default)]
    pub aborted: bool,
    /// The reason of the trip that started this open/half-open episode (a reopen says it
    /// again instead of nesting reasons).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_reason: Option<String>,
}

/// Why `resume` refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    #[error("the breaker is {0}, not open: nothing to resume")]
    NotOpen(State),
    #[error("the run was aborted (on_trip.action: abort); only `loopguard reset` starts a new run")]
    Aborted,
    #[error("the run is finished ({0}); `loopguard reset` starts a new run")]
    Finished(TerminalStatus),
}

/// The situation the breaker steps in.
pub struct Step<'a> {
    pub config: &'a Config,
    pub eval: &'a Evaluation,
    /// Number of iterations in the history.
    pub len: usize,
    /// The id of the newest iteration.
    pub iteration: Option<&'a str>,
    /// Whether a new attempt arrived with this step (not only new evidence).
    pub new_attempt: bool,
    pub now: Timestamp,
    pub run: &'a str,
}

impl Breaker {
    /// Whether hooks must refuse commits and pushes now.
    pub fn blocks(&self, config: &Config) -> bool {
        if self.aborted {
            return true;
        }
        self.state == State::Open
            && match config.on_trip.action {
                TripAction::Pause | TripAction::Abort | TripAction::Escalate => true,
                TripAction::Alert => false,
            }
    }

    fn event(&self, s: &Step<'_>, kind: EventKind, from: State) -> Event {
        Event {
            at: s.now,
            run: s.run.to_owned(),
            kind,
            from,
            to: self.state,
            rule: self.rule,
            reason: self.reason.clone(),
            iteration: s.iteration.map(str::to_owned),
            terminal_status: self.terminal_status,
        }
    }

    fn open(&mut self, s: &Step<'_>, rule: RuleName, reason: String) {
        self.state = State::Open;
        self.rule = Some(rule);
        self.reason = Some(reason);
        self.opened_at = Some(s.now);
        self.terminal_status = Some(TerminalStatus::for_rule(rule));
        self.trips += 1;
        if s.config.on_trip.action == TripAction::Abort {
            self.aborted = true;
        }
    }

    /// Judges the history after an iteration was added or its evidence changed.
    pub fn step(&mut self, s: &Step<'_>) -> Vec<Event> {
        let mut events = Vec::new();
        if self.aborted || self.terminal_status.is_some_and(TerminalStatus::is_done) {
            return events;
        }
        let from = self.state;
        let judge_next = match self.state {
            State::Closed => false,
            State::HalfOpen => s.new_attempt,
            // Under `alert` the agent goes on; its next attempt is judged as after a resume.
            State::Open => s.new_attempt && s.config.on_trip.action == TripAction::Alert,
        };
        let trip = s.eval.trip();
        match (self.state, trip) {
            (State::Closed, Some(f)) => {
                self.open(s, f.rule, f.reason.clone());
                self.first_reason = Some(f.reason.clone());
                events.push(self.event(s, EventKind::Trip, from));
            }
            (State::HalfOpen | State::Open, Some(f)) if judge_next => {
                self.open(s, f.rule, f.reason.clone());
                events.push(self.event(s, EventKind::Reopen, from));
            }
            (State::HalfOpen | State::Open, None) if judge_next => {
                if s.eval.last.as_ref().is_some_and(|l| l.progress) {
                    self.state = State::Closed;
                    self.terminal_status = None;
                    self.baseline = s.len;
                    let rule = self.rule.take();
                    self.reason = None;
                    self.opened_at = None;
                    self.first_reason = None;
                    let mut e = self.event(s, EventKind::Close, from);
                    e.rule = rule;
                    e.reason = Some("progress after the breaker opened".to_owned());
                    events.push(e);
                } else {
                    let rule = self.rule.unwrap_or(RuleName::Stagnation);
                    let before = self
                        .first_reason
                        .clone()
                        .or_else(|| self.reason.clone())
                        .unwrap_or_default();
                    let reason = if before.is_empty() {
                        "no progress after resume".to_owned()
                    } else {
                        format!("no progress after resume (tripped before: {before})")
                    };
                    self.open(s, rule, reason);
                    events.push(self.event(s, EventKind::Reopen, from));
                }
            }
            _ => {}
        }
        if events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Trip | EventKind::Reopen))
        {
            events.extend(self.escalate(s));
        }
        for w in s.eval.warnings().filter(|_| s.new_attempt) {
            events.push(Event {
                at: s.now,
                run: s.run.to_owned(),
                kind: EventKind::Warn,
                from: self.state,
                to: self.state,
                rule: Some(w.rule),
                reason: Some(w.reason.clone()),
                iteration: s.iteration.map(str::to_owned),
                terminal_status: None,
            });
        }
        events
    }

    /// Under `on_trip.action: escalate`, a trip hands out the next model and lets it try
    /// (half-open); a trip on the last model pauses like `pause`.
    fn escalate(&mut self, s: &Step<'_>) -> Option<Event> {
        if s.config.on_trip.action != TripAction::Escalate
            || self.model + 1 >= s.config.escalation_models.len()
        {
            return None;
        }
        self.model += 1;
        let from = self.state;
        self.state = State::HalfOpen;
        self.terminal_status = None;
        self.baseline = s.len;
        let model = &s.config.escalation_models[self.model];
        Some(Event {
            at: s.now,
            run: s.run.to_owned(),
            kind: EventKind::Escalate,
            from,
            to: State::HalfOpen,
            rule: self.rule,
            reason: Some(format!("escalated to the next model: {model}")),
            iteration: s.iteration.map(str::to_owned),
            terminal_status: None,
        })
    }

    /// The model in use under `escalate`.
    pub fn current_model<'c>(&self, config: &'c Config) -> Option<&'c str> {
        config.escalation_models.get(self.model).map(String::as_str)
    }

    /// open -> half_open: the next attempt decides. Counting restarts after `len`.
    pub fn resume(&mut self, len: usize, now: Timestamp, run: &str) -> Result<Event, ResumeError> {
        if self.aborted {
            return Err(ResumeError::Aborted);
        }
        if let Some(t) = self.terminal_status.filter(|t| t.is_done()) {
            return Err(ResumeError::Finished(t));
        }
        if self.state != State::Open {
            return Err(ResumeError::NotOpen(self.state));
        }
        Ok(self.half_open(len, now, run, EventKind::Resume))
    }

    fn half_open(&mut self, len: usize, now: Timestamp, run: &str, kind: EventKind) -> Event {
        let from = self.state;
        self.state = State::HalfOpen;
        self.terminal_status = None;
        self.baseline = len;
        Event {
            at: now,
            run: run.to_owned(),
            kind,
            from,
            to: State::HalfOpen,
            rule: self.rule,
            reason: self.reason.clone(),
            iteration: None,
            terminal_status: None,
        }
    }

    /// open -> half_open once the cooldown has elapsed (checked lazily by every command).
    pub fn apply_cooldown(
        &mut self,
        config: &Config,
        len: usize,
        now: Timestamp,
        run: &str,
    ) -> Option<Event> {
        let cooldown = config.on_trip.cooldown?;
        if self.state != State::Open || self.aborted {
            return None;
        }
        let opened = self.opened_at?;
        (now.duration_since(opened) >= cooldown)
            .then(|| self.half_open(len, now, run, EventKind::Cooldown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RuleAction;
    use crate::rules::{Facts, Firing};

    fn eval(trip: Option<RuleName>, progress: bool) -> Evaluation {
        Evaluation {
            fired: trip
                .map(|rule| Firing {
                    rule,
                    action: RuleAction::Trip,
                    reason: format!("{rule} reason"),
                })
                .into_iter()
                .collect(),
            last: Some(Facts {
                progress,
                ..Facts::default()
            }),
            ..Evaluation::default()
        }
    }

    fn ts(secs: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + secs).unwrap()
    }

    fn step(b: &mut Breaker, c: &Config, e: &Evaluation, len: usize, new: bool) -> Vec<Event> {
        b.step(&Step {
            config: c,
            eval: e,
            len,
            iteration: Some("abc"),
            new_attempt: new,
            now: ts(len as i64),
            run: "r1",
        })
    }

    #[test]
    fn trips_then_half_open_closes_on_progress() {
        let c = Config::default();
        let mut b = Breaker::default();
        assert!(step(&mut b, &c, &eval(None, true), 1, true).is_empty());
        let ev = step(
            &mut b,
            &c,
            &eval(Some(RuleName::Stagnation), false),
            4,
            true,
        );
        assert_eq!(ev[0].kind, EventKind::Trip);
        assert_eq!(
            (b.state, b.terminal_status),
            (State::Open, Some(TerminalStatus::AbortedStuck))
        );
        assert!(b.blocks(&c));
        // Still open without resume, whatever comes.
        step(&mut b, &c, &eval(None, true), 5, true);
        assert_eq!(b.state, State::Open);

        let e = b.resume(5, ts(10), "r1").unwrap();
        assert_eq!((e.from, e.to), (State::Open, State::HalfOpen));
        assert_eq!((b.baseline, b.terminal_status), (5, None));
        assert!(!b.blocks(&c));
        // Evidence for an old iteration does not decide half-open.
        assert!(step(&mut b, &c, &eval(None, false), 5, false).is_empty());
        let ev = step(&mut b, &c, &eval(None, true), 6, true);
        assert_eq!(ev[0].kind, EventKind::Close);
        assert_eq!((b.state, b.baseline), (State::Closed, 6));
    }

    #[test]
    fn half_open_reopens_without_progress() {
        let c = Config::default();
        let mut b = Breaker::default();
        step(
            &mut b,
            &c,
            &eval(Some(RuleName::Oscillation), false),
            4,
            true,
        );
        b.resume(4, ts(5), "r1").unwrap();
        let ev = step(&mut b, &c, &eval(None, false), 5, true);
        assert_eq!(ev[0].kind, EventKind::Reopen);
        assert_eq!(b.state, State::Open);
        assert_eq!(b.rule, Some(RuleName::Oscillation));
        assert!(
            b.reason
                .as_deref()
                .unwrap()
                .starts_with("no progress after resume")
        );
        assert_eq!(b.trips, 2);
    }

    #[test]
    fn constraint_is_aborted_constraint() {
        let c = Config::default();
        let mut b = Breaker::default();
        step(&mut b, &c, &eval(Some(RuleName::Constraint), true), 1, true);
        assert_eq!(b.terminal_status, Some(TerminalStatus::AbortedConstraint));
    }

    #[test]
    fn resume_refuses_when_not_open_or_aborted() {
        let mut c = Config::default();
        let mut b = Breaker::default();
        assert_eq!(
            b.resume(0, ts(0), "r"),
            Err(ResumeError::NotOpen(State::Closed))
        );
        c.on_trip.action = TripAction::Abort;
        step(
            &mut b,
            &c,
            &eval(Some(RuleName::Stagnation), false),
            3,
            true,
        );
        assert_eq!(b.resume(3, ts(9), "r"), Err(ResumeError::Aborted));
        assert!(b.blocks(&c));
    }

    #[test]
    fn alert_does_not_block_and_closes_on_progress() {
        let mut c = Config::default();
        c.on_trip.action = TripAction::Alert;
        let mut b = Breaker::default();
        step(
            &mut b,
            &c,
            &eval(Some(RuleName::Stagnation), false),
            3,
            true,
        );
        assert_eq!(b.state, State::Open);
        assert!(!b.blocks(&c));
        step(&mut b, &c, &eval(None, true), 4, true);
        assert_eq!(b.state, State::Closed);
    }

    #[test]
    fn escalate_walks_the_models_then_pauses() {
        let mut c = Config::default();
        c.on_trip.action = TripAction::Escalate;
        let mut b = Breaker::default();
        assert_eq!(b.current_model(&c), Some("haiku"));
        let ev = step(&mut b, &c, &eval(Some(RuleName::SameError), false), 3, true);
        assert_eq!(
            ev.iter().map(|e| e.kind).collect::<Vec<_>>(),
            [EventKind::Trip, EventKind::Escalate]
        );
        assert_eq!(
            (b.state, b.current_model(&c)),
            (State::HalfOpen, Some("sonnet"))
        );
        assert!(!b.blocks(&c));
        // No progress on the next model: reopen, escalate again.
        step(&mut b, &c, &eval(None, false), 4, true);
        assert_eq!(
            (b.state, b.current_model(&c)),
            (State::HalfOpen, Some("opus"))
        );
        // The last model trips: pause.
        step(&mut b, &c, &eval(None, false), 5, true);
        assert_eq!(b.state, State::Open);
        assert!(b.blocks(&c));
        assert_eq!(b.current_model(&c), Some("opus"));
    }

    #[test]
    fn cooldown_half_opens_after_the_duration() {
        let mut c = Config::default();
        c.on_trip.cooldown = Some(jiff::SignedDuration::from_mins(30));
        let mut b = Breaker::default();
        step(
            &mut b,
            &c,
            &eval(Some(RuleName::Stagnation), false),
            3,
            true,
        );
        assert!(b.apply_cooldown(&c, 3, ts(3 + 29 * 60), "r").is_none());
        let e = b.apply_cooldown(&c, 3, ts(3 + 30 * 60), "r").unwrap();
        assert_eq!(e.kind, EventKind::Cooldown);
        assert_eq!(b.state, State::HalfOpen);
    }

    #[test]
    fn warnings_are_events_not_trips() {
        let c = Config::default();
        let mut b = Breaker::default();
        let mut e = eval(None, true);
        e.fired.push(Firing {
            rule: RuleName::TestOnly,
            action: RuleAction::Warn,
            reason: "tests only".into(),
        });
        let ev = step(&mut b, &c, &e, 3, true);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].kind, EventKind::Warn);
        assert_eq!(b.state, State::Closed);
    }
}
