//! The circuit breaker: `closed -> open -> half_open -> closed | open`, terminal statuses,
//! and the events every transition leaves (docs/contract.md, "Breaker").
//!
//! The breaker keeps its own invariants: its phase carries the data that belongs to it (an
//! open breaker always has the trip that opened it; a closed one has none), and it changes
//! only through the transition methods below, each of which returns the event it leaves.
//! *When* to call them is decided in one place, [`crate::run`]'s step.
//!
//! On disk the breaker is the flat record of format 1 (`state`, `terminal_status`, `rule`,
//! `reason`, `opened_at`, `baseline`, `trips`, `model`, `aborted`, `first_reason`), read
//! back through a check that refuses combinations no transition makes.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::config::TripAction;
use crate::ids::CommitId;
use crate::rules::RuleName;

/// The breaker as the world sees it.
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

    /// The status of a run a trip of `rule` stops (the rule's descriptor says).
    pub fn for_rule(rule: RuleName) -> TerminalStatus {
        rule.descriptor().terminal
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
    /// half_open -> open (no progress after a resume, or a rule fired again).
    Reopen,
    /// open or half_open -> closed: progress after a resume, or an attempt that mended
    /// what tripped the breaker.
    Close,
    /// open -> half_open by a person (`resume`, a maintainer removing the label), or
    /// -> closed by the prompt's "continue".
    Resume,
    /// open -> half_open because the cooldown elapsed.
    Cooldown,
    /// Any -> closed, a new run.
    Reset,
    /// A rule with `action: warn` reached its threshold.
    Warn,
    /// The run ended (`finish`, or the prompt's "abort").
    Finish,
    /// Escalation handed out the next model, which starts with fresh counters.
    Escalate,
    /// The config in the working tree differs from the one the run is judged by and was
    /// ignored (no transition: the record that someone tried).
    ConfigIgnored,
    /// A person took a turn: the loop counters start again (an open breaker is half-open).
    Episode,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Trip => "trip",
            EventKind::Reopen => "reopen",
            EventKind::Close => "close",
            EventKind::Resume => "resume",
            EventKind::Cooldown => "cooldown",
            EventKind::Reset => "reset",
            EventKind::Warn => "warn",
            EventKind::Finish => "finish",
            EventKind::Escalate => "escalate",
            EventKind::ConfigIgnored => "config_ignored",
            EventKind::Episode => "episode",
        }
    }

    /// The breaker opened (a trip or a reopen).
    pub fn opens(self) -> bool {
        matches!(self, EventKind::Trip | EventKind::Reopen)
    }
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
    pub iteration: Option<CommitId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_status: Option<TerminalStatus>,
}

/// Why the breaker opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trip {
    pub rule: RuleName,
    pub reason: String,
    pub at: Timestamp,
    /// The history length when it opened: the iterations from this index on came after
    /// the trip. Only those can mend it (see [`crate::rules::Recovery`]); evidence
    /// recorded later on an earlier one is about that iteration, never a way out.
    pub after: usize,
    /// The reason of the trip that began this open/half-open episode, when a reopen gave
    /// a reason of its own (so a reopen says it again instead of nesting reasons).
    pub first_reason: Option<String>,
    /// Who let the agent try again, while half-open: what a reopen names.
    pub retried: Option<Retry>,
}

/// What made an open breaker half-open: the next attempt decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Retry {
    /// A person's `resume` (in CI, a maintainer removing the label).
    Resume,
    /// `on_trip.cooldown` passed.
    Cooldown,
    /// A person's turn: a new episode (a session's prompt, a review in CI, a person's
    /// commit).
    Turn,
}

impl Retry {
    /// What let the agent try again, in a reopen's reason: `no progress after …`.
    fn by(self) -> &'static str {
        match self {
            Retry::Resume => "resume",
            Retry::Cooldown => "the cooldown",
            Retry::Turn => "a person's turn",
        }
    }
}

impl Trip {
    /// The same trip, half-open by `retry`.
    fn retried_by(&self, retry: Retry) -> Trip {
        Trip {
            retried: Some(retry),
            ..self.clone()
        }
    }

    /// The same trip, stopped for good: no one lets the agent try again.
    fn stopped(&self) -> Trip {
        Trip {
            retried: None,
            ..self.clone()
        }
    }

    /// The reason that began the episode.
    pub fn original_reason(&self) -> &str {
        self.first_reason.as_deref().unwrap_or(&self.reason)
    }
}

/// Why a half-open breaker opens again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reopen {
    /// A rule fired, with its reason.
    Fired(RuleName, String),
    /// The attempt after the resume made no progress (an empty commit, the same code, a
    /// return to an earlier tree).
    NoProgress,
    /// The attempt after the resume changed the code, and its tests fail as before.
    SameFailure,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Phase {
    #[default]
    Closed,
    Open(Trip),
    /// Resumed (by a person or the cooldown): the next attempt decides.
    HalfOpen(Trip),
    /// Stopped for good: `on_trip.action: abort`, the prompt's "abort", or a `finish` that
    /// found no progress. Only a reset starts again.
    Aborted(Trip),
    /// Finished with `done_success` or `done_partial`.
    Done(TerminalStatus),
}

/// The persisted breaker.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "BreakerRecord", into = "BreakerRecord")]
pub struct Breaker {
    phase: Phase,
    /// History index where the rules start counting (moved by resumes, closing and
    /// escalation; never by the budget, which counts the whole run).
    baseline: usize,
    /// Times the breaker opened in this run.
    trips: u32,
    /// Index into `escalation.models` of the model in use.
    model: usize,
}

/// Why a person's action on the breaker was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    #[error("the breaker is {0}, not open: nothing to resume")]
    NotOpen(State),
    #[error("the run was aborted; only `loopguard reset` starts a new run")]
    Aborted,
    #[error("the run is finished ({0}); `loopguard reset` starts a new run")]
    Finished(TerminalStatus),
    #[error("the last model of escalation.models is in use: there is no next model")]
    NoNextModel,
}

/// Where a transition happens: the run, the time, the iteration, and the history length
/// (the baseline a restart of the counters takes).
#[derive(Debug, Clone)]
pub struct At {
    pub run: String,
    pub now: Timestamp,
    pub iteration: Option<CommitId>,
    pub len: usize,
}

impl Breaker {
    pub fn state(&self) -> State {
        match &self.phase {
            Phase::Closed | Phase::Done(_) => State::Closed,
            Phase::Open(_) | Phase::Aborted(_) => State::Open,
            Phase::HalfOpen(_) => State::HalfOpen,
        }
    }

    pub fn terminal_status(&self) -> Option<TerminalStatus> {
        match &self.phase {
            Phase::Open(t) | Phase::Aborted(t) => Some(TerminalStatus::for_rule(t.rule)),
            Phase::Done(s) => Some(*s),
            Phase::Closed | Phase::HalfOpen(_) => None,
        }
    }

    /// The trip behind an open or half-open breaker (`None` while closed).
    pub fn trip(&self) -> Option<&Trip> {
        match &self.phase {
            Phase::Open(t) | Phase::HalfOpen(t) | Phase::Aborted(t) => Some(t),
            Phase::Closed | Phase::Done(_) => None,
        }
    }

    /// The rule that opened the breaker, while it is not closed.
    pub fn rule(&self) -> Option<RuleName> {
        self.trip().map(|t| t.rule)
    }

    /// The stop reason, while the breaker is not closed.
    pub fn reason(&self) -> Option<&str> {
        self.trip().map(|t| t.reason.as_str())
    }

    pub fn baseline(&self) -> usize {
        self.baseline
    }

    /// The history's first `k` iterations were dropped (a compacted run): every position
    /// moves down by `k`, one among them to the start.
    pub(crate) fn forget_before(&mut self, k: usize) {
        self.baseline = self.baseline.saturating_sub(k);
        match &mut self.phase {
            Phase::Open(t) | Phase::HalfOpen(t) | Phase::Aborted(t) => {
                t.after = t.after.saturating_sub(k);
            }
            Phase::Closed | Phase::Done(_) => {}
        }
    }

    pub fn trips(&self) -> u32 {
        self.trips
    }

    /// Index of the model in use in `escalation.models`.
    pub fn model(&self) -> usize {
        self.model
    }

    pub fn is_open(&self) -> bool {
        self.state() == State::Open
    }

    pub fn is_aborted(&self) -> bool {
        matches!(self.phase, Phase::Aborted(_))
    }

    /// Finished with a `done_*` status: the next iteration starts a new run.
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done(_))
    }

    /// Whether nothing changes this breaker any more but a reset.
    pub fn is_final(&self) -> bool {
        matches!(self.phase, Phase::Aborted(_) | Phase::Done(_))
    }

    /// Whether hooks must refuse commits and pushes now.
    pub fn blocks(&self, action: TripAction) -> bool {
        match &self.phase {
            Phase::Aborted(_) => true,
            Phase::Open(_) => action != TripAction::Alert,
            Phase::Closed | Phase::HalfOpen(_) | Phase::Done(_) => false,
        }
    }

    fn event(&self, at: &At, kind: EventKind, from: State) -> Event {
        Event {
            at: at.now,
            run: at.run.clone(),
            kind,
            from,
            to: self.state(),
            rule: self.rule(),
            reason: self.reason().map(str::to_owned),
            iteration: at.iteration.clone(),
            terminal_status: self.terminal_status(),
        }
    }

    /// closed -> open (or aborted under `on_trip.action: abort`).
    pub fn trip_on(
        &mut self,
        rule: RuleName,
        reason: String,
        action: TripAction,
        at: &At,
    ) -> Event {
        let from = self.state();
        let trip = Trip {
            rule,
            reason,
            at: at.now,
            after: at.len,
            first_reason: None,
            retried: None,
        };
        self.trips += 1;
        self.phase = if action == TripAction::Abort {
            Phase::Aborted(trip)
        } else {
            Phase::Open(trip)
        };
        self.event(at, EventKind::Trip, from)
    }

    /// half_open -> open: the attempt after a resume failed, for `why` (the trip's rule is
    /// kept unless another rule fired).
    pub fn reopen(&mut self, why: Reopen, action: TripAction, at: &At) -> Event {
        let from = self.state();
        let before = self.trip().cloned();
        let first = before.as_ref().map(|t| t.original_reason().to_owned());
        let rule = before.as_ref().map_or(RuleName::Stagnation, |t| t.rule);
        let (rule, reason) = match why {
            Reopen::Fired(rule, reason) => (rule, reason),
            Reopen::NoProgress | Reopen::SameFailure => {
                let what = if why == Reopen::SameFailure {
                    "the same failure"
                } else {
                    "no progress"
                };
                let by = before
                    .as_ref()
                    .and_then(|t| t.retried)
                    .unwrap_or(Retry::Resume)
                    .by();
                let what = format!("{what} after {by}");
                let reason = match &first {
                    Some(b) => format!("{what} (tripped before: {b})"),
                    None => what,
                };
                (rule, reason)
            }
        };
        let trip = Trip {
            rule,
            first_reason: first.filter(|f| *f != reason),
            reason,
            at: at.now,
            after: at.len,
            retried: None,
        };
        self.trips += 1;
        self.phase = if action == TripAction::Abort {
            Phase::Aborted(trip)
        } else {
            Phase::Open(trip)
        };
        self.event(at, EventKind::Reopen, from)
    }

    /// open or half_open -> closed: every counter restarts after `at.len`.
    pub fn close(&mut self, reason: String, at: &At) -> Event {
        let from = self.state();
        let rule = self.rule();
        self.phase = Phase::Closed;
        self.baseline = at.len;
        let mut e = self.event(at, EventKind::Close, from);
        e.rule = rule;
        e.reason = Some(reason);
        e
    }

    /// open -> half_open by a person: the next attempt decides; counting restarts after
    /// `at.len`.
    pub fn resume(&mut self, at: &At) -> Result<Event, ResumeError> {
        self.may_change()?;
        match &self.phase {
            Phase::Open(t) => {
                self.phase = Phase::HalfOpen(t.retried_by(Retry::Resume));
                self.baseline = at.len;
                Ok(self.event(at, EventKind::Resume, State::Open))
            }
            Phase::Closed | Phase::HalfOpen(_) | Phase::Aborted(_) | Phase::Done(_) => {
                Err(ResumeError::NotOpen(self.state()))
            }
        }
    }

    /// open -> half_open once `cooldown` has passed since the trip.
    pub fn cool_down(&mut self, cooldown: jiff::SignedDuration, at: &At) -> Option<Event> {
        let Phase::Open(t) = &self.phase else {
            return None;
        };
        if at.now.duration_since(t.at) < cooldown {
            return None;
        }
        self.phase = Phase::HalfOpen(t.retried_by(Retry::Cooldown));
        self.baseline = at.len;
        Some(self.event(at, EventKind::Cooldown, State::Open))
    }

    /// Whether a trip of `rule` is handed to the next model under `on_trip.action:
    /// escalate`. A loop may be a problem a stronger model solves; touching a protected path
    /// is a policy violation and a spent budget stays spent, so those pause instead.
    pub fn escalates(rule: RuleName) -> bool {
        rule.descriptor().escalates
    }

    /// Whether the last model of `models` is in use.
    pub fn on_last_model(&self, models: &[String]) -> bool {
        self.model + 1 >= models.len()
    }

    /// open -> closed on the next model of `models`: it starts with fresh counters. `None`
    /// when the last model is in use or the trip is not one to escalate (the breaker stays
    /// open: a pause).
    pub fn escalate(&mut self, models: &[String], at: &At) -> Option<Event> {
        let Phase::Open(trip) = &self.phase else {
            return None;
        };
        if self.on_last_model(models) || !Self::escalates(trip.rule) {
            return None;
        }
        Some(self.hand_over(models, at))
    }

    /// The prompt's "retry with the next model": as [`Breaker::escalate`], by a person, who
    /// may hand over any trip.
    pub fn next_model(&mut self, models: &[String], at: &At) -> Result<Event, ResumeError> {
        self.may_change()?;
        if self.on_last_model(models) {
            return Err(ResumeError::NoNextModel);
        }
        match self.state() {
            State::Open | State::HalfOpen => Ok(self.hand_over(models, at)),
            s => Err(ResumeError::NotOpen(s)),
        }
    }

    /// open or half-open -> closed on the next model (there is one).
    fn hand_over(&mut self, models: &[String], at: &At) -> Event {
        let from = self.state();
        let rule = self.rule();
        self.model += 1;
        self.phase = Phase::Closed;
        self.baseline = at.len;
        let mut e = self.event(at, EventKind::Escalate, from);
        e.rule = rule;
        e.reason = Some(format!(
            "escalated to the next model: {}",
            models[self.model]
        ));
        e
    }

    /// A person's turn: a new episode. The loop counters start again after `at.len`; an
    /// open breaker is half-open (the next attempt decides), a closed or half-open one
    /// stays so. `by` says whose turn it was.
    pub fn new_episode(&mut self, by: &str, at: &At) -> Result<Event, ResumeError> {
        self.may_change()?;
        let from = self.state();
        if let Phase::Open(t) = &self.phase {
            self.phase = Phase::HalfOpen(t.retried_by(Retry::Turn));
        }
        self.baseline = at.len;
        let mut e = self.event(at, EventKind::Episode, from);
        e.reason = Some(format!("{by}: the loop counters start again"));
        Ok(e)
    }

    /// The prompt's "continue": closed, every counter restarts.
    pub fn continue_after_trip(&mut self, at: &At) -> Result<Event, ResumeError> {
        self.may_change()?;
        let from = self.state();
        if from == State::Closed {
            return Err(ResumeError::NotOpen(from));
        }
        let rule = self.rule();
        self.phase = Phase::Closed;
        self.baseline = at.len;
        let mut e = self.event(at, EventKind::Resume, from);
        e.rule = rule;
        e.reason = Some("continued by the user; counters reset".to_owned());
        Ok(e)
    }

    /// Stops the run for good (the prompt's "abort"). A run that was not stopped by a
    /// rule is aborted as stuck.
    pub fn abort(&mut self, reason: &str, at: &At) -> Result<Event, ResumeError> {
        if let Phase::Done(s) = self.phase {
            return Err(ResumeError::Finished(s));
        }
        let from = self.state();
        let trip = self.trip().map(Trip::stopped).unwrap_or_else(|| Trip {
            rule: RuleName::Stagnation,
            reason: reason.to_owned(),
            at: at.now,
            after: at.len,
            first_reason: None,
            retried: None,
        });
        self.phase = Phase::Aborted(trip);
        let mut e = self.event(at, EventKind::Finish, from);
        e.reason = Some(reason.to_owned());
        Ok(e)
    }

    /// Ends the run: `done_*` closes it; an aborted status keeps it stopped (with the
    /// trip that stopped it, or `stagnation` when nothing tripped).
    pub fn finish(&mut self, status: TerminalStatus, reason: String, at: &At) -> Event {
        let from = self.state();
        if status.is_done() {
            self.phase = Phase::Done(status);
        } else {
            let trip = self.trip().map(Trip::stopped).unwrap_or_else(|| Trip {
                rule: RuleName::Stagnation,
                reason: reason.clone(),
                at: at.now,
                after: at.len,
                first_reason: None,
                retried: None,
            });
            self.phase = Phase::Aborted(trip);
        }
        let mut e = self.event(at, EventKind::Finish, from);
        e.reason = Some(reason);
        e.terminal_status = Some(self.terminal_status().unwrap_or(status));
        e
    }

    /// Something changed what guards the run that loopguard did not change (see
    /// [`crate::run::Run::tampered`]): `constraint`, whatever the phase. Closed: it trips;
    /// half-open or open: it opens again with this reason (a person is then the way out,
    /// as for any `constraint` trip); aborted or done: it stays so, and the event (a
    /// warning) records what happened.
    pub fn tampered(&mut self, reason: String, action: TripAction, at: &At) -> Event {
        match &self.phase {
            Phase::Closed => self.trip_on(RuleName::Constraint, reason, action, at),
            Phase::Open(_) | Phase::HalfOpen(_) => {
                self.reopen(Reopen::Fired(RuleName::Constraint, reason), action, at)
            }
            Phase::Aborted(_) | Phase::Done(_) => {
                let state = self.state();
                let mut e = self.event(at, EventKind::Warn, state);
                e.rule = Some(RuleName::Constraint);
                e.reason = Some(reason);
                e
            }
        }
    }

    fn may_change(&self) -> Result<(), ResumeError> {
        match &self.phase {
            Phase::Aborted(_) => Err(ResumeError::Aborted),
            Phase::Done(s) => Err(ResumeError::Finished(*s)),
            Phase::Closed | Phase::Open(_) | Phase::HalfOpen(_) => Ok(()),
        }
    }
}

/// The breaker on disk: the flat fields of format 1.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct BreakerRecord {
    #[serde(default)]
    state: State,
    #[serde(default)]
    terminal_status: Option<TerminalStatus>,
    #[serde(default)]
    rule: Option<RuleName>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    opened_at: Option<Timestamp>,
    #[serde(default)]
    baseline: usize,
    #[serde(default)]
    trips: u32,
    #[serde(default)]
    model: usize,
    #[serde(default)]
    aborted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_reason: Option<String>,
    /// [`Trip::after`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opened_after: Option<usize>,
    /// [`Trip::retried`], while half-open (absent in older files: a resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    half_open_by: Option<Retry>,
}

impl From<Breaker> for BreakerRecord {
    fn from(b: Breaker) -> Self {
        let trip = b.trip().cloned();
        BreakerRecord {
            state: b.state(),
            terminal_status: b.terminal_status(),
            rule: trip.as_ref().map(|t| t.rule),
            reason: trip.as_ref().map(|t| t.reason.clone()),
            opened_at: trip.as_ref().map(|t| t.at),
            baseline: b.baseline,
            trips: b.trips,
            model: b.model,
            aborted: b.is_aborted(),
            opened_after: trip.as_ref().map(|t| t.after),
            half_open_by: trip
                .as_ref()
                .and_then(|t| t.retried)
                .filter(|_| b.state() == State::HalfOpen),
            first_reason: trip.and_then(|t| t.first_reason),
        }
    }
}

impl TryFrom<BreakerRecord> for Breaker {
    type Error = String;

    fn try_from(r: BreakerRecord) -> Result<Self, Self::Error> {
        let trip = || -> Result<Trip, String> {
            Ok(Trip {
                rule: r
                    .rule
                    .ok_or_else(|| format!("a {} breaker without its rule", r.state))?,
                reason: r.reason.clone().unwrap_or_default(),
                at: r
                    .opened_at
                    .ok_or_else(|| format!("a {} breaker without opened_at", r.state))?,
                after: r
                    .opened_after
                    .ok_or_else(|| format!("a {} breaker without opened_after", r.state))?,
                first_reason: r.first_reason.clone(),
                retried: r.half_open_by.filter(|_| r.state == State::HalfOpen),
            })
        };
        let phase = match (r.state, r.terminal_status, r.aborted) {
            (State::Open, _, true) => Phase::Aborted(trip()?),
            (_, Some(t), false) if t.is_done() && r.state == State::Closed => Phase::Done(t),
            (State::Closed, None, false) => Phase::Closed,
            (State::Open, _, false) => Phase::Open(trip()?),
            (State::HalfOpen, None, false) => Phase::HalfOpen(trip()?),
            (s, t, aborted) => {
                return Err(format!(
                    "an impossible breaker: state {s}, terminal status {}, aborted {aborted}",
                    t.map_or("null", TerminalStatus::as_str)
                ));
            }
        };
        Ok(Breaker {
            phase,
            baseline: r.baseline,
            trips: r.trips,
            model: r.model,
        })
    }
}

#[cfg(test)]
mod tests;
