//! The one stepping function (see the module docs of `run`): the cooldown, the rules, the
//! breaker's transition by phase, a trip mended as its rule's [`Recovery`] says, the
//! warnings.

use jiff::Timestamp;

use crate::breaker::{At, Breaker, Event, EventKind, Reopen, State};
use crate::config::{Config, TripAction};
use crate::iteration::{Iteration, TestEvidence};
use crate::rules::{self, Evaluation, Facts, Recovery};

use super::{Outcome, Run};

/// What arrived for a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arrival {
    /// A new attempt: it decides a half-open breaker and may mend an open one.
    Attempt,
    /// A context commit, or new evidence for an iteration already judged.
    Context,
    /// Test evidence for the latest attempt, which was judged when it was committed: the
    /// attempt is now fully known, so it may mend an open breaker (as it would have, had
    /// its tests come with it, which is how `check`, `replay` and CI see it).
    Evidence,
    /// The latest attempt, a test run on uncommitted changes, committed as it was tested:
    /// not a new attempt, but now a commit, so it may mend a trip only a commit mends.
    Committed,
    /// A harness transition; `progress` is the harness's own word.
    Edge { progress: bool },
}

/// What the attempt after a resume does to a half-open breaker.
enum AfterResume {
    Close(String),
    Reopen(Reopen),
    /// Undecided: its tests have not run yet.
    Wait,
}

impl Arrival {
    /// A new attempt or harness step: it decides a half-open breaker.
    fn is_new(self) -> bool {
        matches!(self, Arrival::Attempt | Arrival::Edge { .. })
    }
}

impl Run {
    /// The cooldown, the one place it is decided: an open breaker whose trip is older
    /// than `on_trip.cooldown` is half-open at `now`, and counting starts again at `len`.
    /// The breaker so, and the event, without changing the run.
    pub(super) fn cooled(
        &self,
        config: &Config,
        now: Timestamp,
        len: usize,
    ) -> (Breaker, Option<Event>) {
        let mut breaker = self.breaker.clone();
        let event = config.on_trip.cooldown.and_then(|cooldown| {
            breaker.cool_down(
                cooldown,
                &At {
                    len,
                    ..self.at(now)
                },
            )
        });
        (breaker, event)
    }

    /// [`Run::cooled`], applied.
    pub(super) fn cool_down(
        &mut self,
        config: &Config,
        now: Timestamp,
        len: usize,
    ) -> Option<Event> {
        let (breaker, event) = self.cooled(config, now, len);
        self.record.breaker = breaker;
        event
    }

    /// The one step (see the module docs).
    pub(super) fn step(&mut self, config: &Config, now: Timestamp, arrival: Arrival) -> Outcome {
        self.refresh_facts(config);
        self.restart_edges_after_progress();
        // An arriving attempt is the first after a cooldown's resume.
        let len = self.iterations.len();
        let base = if arrival == Arrival::Attempt {
            len - 1
        } else {
            len
        };
        let mut events: Vec<Event> = self.cool_down(config, now, base).into_iter().collect();

        let mut eval = self.evaluate_cached(config);
        if let Arrival::Edge { progress } = arrival {
            // For a half-open breaker this step is the next attempt: the harness's word
            // on progress decides.
            eval.last = Some(Facts {
                progress,
                ..eval.last.unwrap_or_default()
            });
        }
        let at = self.at(now);
        let before = self.breaker.baseline();
        events.extend(self.transition(config, &eval, arrival, &at));
        if self.breaker.baseline() != before {
            eval = self.evaluate_cached(config);
        }
        if arrival.is_new() {
            events.extend(warnings(&eval, &self.breaker, &at));
        }
        Outcome {
            events,
            evaluation: eval,
        }
    }

    /// Progress seen in commits or tests since the last step restarts the harness's edges.
    fn restart_edges_after_progress(&mut self) {
        let mark = self.usage.progress_mark;
        if self.usage.edges.values().any(|e| e.count > 0)
            && self
                .derived
                .facts
                .all()
                .iter()
                .any(|f| f.progress && f.index >= mark)
        {
            self.reset_edges();
        }
        self.usage.progress_mark = self.iterations.len();
    }

    /// The breaker's transition for this step, by phase (see the module docs), and the
    /// next model when it opened under `escalate`.
    fn transition(
        &mut self,
        config: &Config,
        eval: &Evaluation,
        arrival: Arrival,
        at: &At,
    ) -> Vec<Event> {
        let action = config.on_trip.action;
        let mut events = Vec::new();
        match self.record.breaker.state() {
            _ if self.record.breaker.is_final() => {}
            State::Closed => {
                if let Some(f) = eval.trip() {
                    let breaker = &mut self.record.breaker;
                    events.push(breaker.trip_on(f.rule, f.reason.clone(), action, at));
                }
            }
            State::HalfOpen if arrival.is_new() || matches!(arrival, Arrival::Evidence) => {
                match self.after_resume(eval, arrival) {
                    AfterResume::Close(reason) => {
                        events.push(self.record.breaker.close(reason, at));
                    }
                    AfterResume::Reopen(why) => {
                        events.push(self.record.breaker.reopen(why, action, at));
                    }
                    AfterResume::Wait => {}
                }
            }
            State::Open
                if arrival.is_new()
                    || matches!(arrival, Arrival::Evidence | Arrival::Committed) =>
            {
                events.extend(self.recovery(config, eval, arrival, at));
            }
            State::HalfOpen | State::Open => {}
        }
        if events.iter().any(|e| e.kind.opens())
            && action == TripAction::Escalate
            && let Some(e) = self.record.breaker.escalate(&config.escalation_models, at)
        {
            events.push(e);
            self.reset_edges();
        }
        events
    }

    /// A half-open breaker and the attempt after the resume (or that attempt's evidence):
    /// what it does, as the rule that tripped says. A loop of failures (`same_error`,
    /// `false_completion`) is decided by the next test run: on code that differs from the
    /// code that tripped, tests that pass or fail differently close it and the same failure
    /// opens it again; on the same code any test run opens it again; an attempt without a
    /// test run leaves it half-open. Any other trip closes on progress.
    fn after_resume(&self, eval: &Evaluation, arrival: Arrival) -> AfterResume {
        if let Some(f) = eval.trip() {
            return AfterResume::Reopen(Reopen::Fired(f.rule, f.reason.clone()));
        }
        let progress = eval.last.as_ref().is_some_and(|l| l.progress);
        // A harness's step is decided by the harness's own word on progress.
        let tests_decide = !matches!(arrival, Arrival::Edge { .. })
            && self
                .breaker
                .trip()
                .is_some_and(|t| t.rule.descriptor().recovery == Recovery::TestsChange);
        if !tests_decide {
            return match arrival {
                // Evidence on an attempt already judged changes nothing here.
                Arrival::Evidence | Arrival::Context | Arrival::Committed => AfterResume::Wait,
                Arrival::Attempt | Arrival::Edge { .. } if progress => {
                    AfterResume::Close("progress after the breaker was resumed".to_owned())
                }
                Arrival::Attempt | Arrival::Edge { .. } => AfterResume::Reopen(Reopen::NoProgress),
            };
        }
        let baseline = self.breaker.baseline();
        let Some(last) = eval
            .last
            .as_ref()
            .filter(|l| l.index + 1 == self.iterations.len() && l.index >= baseline)
        else {
            // Evidence about an attempt from before the resume: not the next attempt.
            return AfterResume::Wait;
        };
        let it = &self.iterations[last.index];
        // The code now against the code that tripped: a test run on its own changes
        // nothing, but it tests what the attempts since the resume changed.
        let changed = match (it.tree.as_deref(), self.tripped_tree()) {
            (Some(now), Some(then)) => now != then,
            _ => !last.empty && !last.whitespace_only,
        };
        match &it.test {
            Some(t) if changed && t.passes() => AfterResume::Close(format!(
                "the tests pass at {}, after the resume",
                it.id.short()
            )),
            Some(_) if changed && last.test_improved => AfterResume::Close(format!(
                "the failure changed at {}, after the resume",
                it.id.short()
            )),
            Some(_) if changed => AfterResume::Reopen(Reopen::SameFailure),
            Some(_) => AfterResume::Reopen(Reopen::NoProgress),
            // Neither mends nor repeats the failure: the next test run decides (the rules
            // still count it: empty attempts one after another are `stagnation`).
            None => AfterResume::Wait,
        }
    }

    /// The tree of the iteration the breaker opened at.
    fn tripped_tree(&self) -> Option<&str> {
        let trip = self.breaker.trip()?;
        match trip.after.checked_sub(1) {
            Some(i) => self.iterations.get(i)?.tree.as_deref(),
            // Dropped since (a compacted run): its tree was kept.
            None => self
                .record
                .compacted
                .as_ref()
                .and_then(|c| c.tripped_tree.as_deref()),
        }
    }

    pub(super) fn evaluate_cached(&self, config: &Config) -> Evaluation {
        rules::evaluate(
            config,
            &self.iterations,
            self.derived.facts.all(),
            self.breaker.baseline(),
            &self.harness_usage(config),
        )
    }

    /// An open breaker, a new attempt: does it mend the trip, as the rule that tripped
    /// says ([`Recovery`])? Only an iteration that came after the trip can, and it is
    /// judged on its own, as the attempt after a resume is.
    fn recovery(
        &mut self,
        config: &Config,
        eval: &Evaluation,
        arrival: Arrival,
        at: &At,
    ) -> Option<Event> {
        let trip = self.breaker.trip()?;
        let recovery = trip.rule.descriptor().recovery;
        let reason = match (recovery, arrival) {
            (Recovery::HarnessProgress, Arrival::Edge { progress: true }) => {
                "the harness made progress".to_owned()
            }
            (
                Recovery::TestsChange | Recovery::NewCode,
                Arrival::Attempt | Arrival::Evidence | Arrival::Committed,
            ) => {
                let last = eval.last.as_ref()?;
                if last.index + 1 != self.iterations.len() || last.index < trip.after {
                    return None;
                }
                let tripped = self.tripped_tree();
                let it = &self.iterations[last.index];
                let what = mended(recovery, last, it, tripped)?;
                format!("{what} at {}", it.id.short())
            }
            (
                Recovery::Person
                | Recovery::HarnessProgress
                | Recovery::TestsChange
                | Recovery::NewCode,
                _,
            ) => return None,
        };
        let mut trial = self.breaker.clone();
        trial
            .resume(&At {
                len: at.len - 1,
                ..at.clone()
            })
            .ok()?;
        let fresh = rules::evaluate(
            config,
            &self.iterations,
            self.derived.facts.all(),
            trial.baseline(),
            &self.usage_at(config, trial.baseline()),
        );
        if fresh.trip().is_some() {
            return None;
        }
        Some(
            self.record
                .breaker
                .close(format!("recovered: {reason}"), at),
        )
    }
}

/// Whether the attempt `it` (with its facts `f`) mends a trip that recovers by
/// `recovery`; `tripped` is the tree of the iteration the breaker opened at. What mended
/// it, if so.
fn mended(
    recovery: Recovery,
    f: &Facts,
    it: &Iteration,
    tripped: Option<&str>,
) -> Option<&'static str> {
    if it.around_gates {
        return None;
    }
    match recovery {
        Recovery::TestsChange => {
            // A new attempt: code that differs from the code that tripped (a re-run of the
            // same code is no new attempt, however its tests come out).
            let differs = !f.empty
                && !f.whitespace_only
                && !f.empty_bump
                && match (it.tree.as_deref(), tripped) {
                    (Some(now), Some(then)) => now != then,
                    _ => true,
                };
            if !differs {
                None
            } else if it.test.as_ref().is_some_and(TestEvidence::passes) {
                Some("the tests pass")
            } else {
                f.test_improved.then_some("the failure changed")
            }
        }
        Recovery::NewCode => {
            (!it.uncommitted && f.code_changed && f.returns_to.is_none() && f.repeats.is_none())
                .then_some("the code moved on")
        }
        Recovery::Person | Recovery::HarnessProgress => None,
    }
}

/// The warnings of the rules with `action: warn` at their limit.
fn warnings(eval: &Evaluation, breaker: &Breaker, at: &At) -> Vec<Event> {
    eval.warnings()
        .map(|w| Event {
            at: at.now,
            run: at.run.clone(),
            kind: EventKind::Warn,
            from: breaker.state(),
            to: breaker.state(),
            rule: Some(w.rule),
            reason: Some(w.reason.clone()),
            iteration: at.iteration.clone(),
            terminal_status: None,
        })
        .collect()
}
