//! A person acting on the breaker: `resume`, the prompt's continue, abort and next model,
//! a new episode (`intervene`), and `finish`. No verdict: no rule is evaluated; the
//! cooldown comes from the same `cooled` as a step's.

use jiff::Timestamp;

use crate::breaker::{Event, ResumeError, State, TerminalStatus};
use crate::config::Config;
use crate::iteration::{Intervention, InterventionKind};

use super::Run;

impl Run {
    /// A person acting on the breaker (kept with the last iteration, so a replay of the
    /// history does it again at the same point).
    pub fn intervene(
        &mut self,
        config: &Config,
        intervention: Intervention,
    ) -> Result<Vec<Event>, ResumeError> {
        let now = intervention.at;
        let mut events: Vec<Event> = self.tick(config, now).into_iter().collect();
        let at = self.at(now);
        let breaker = &mut self.record.breaker;
        let e = match intervention.action {
            InterventionKind::Resume => breaker.resume(&at),
            InterventionKind::Continue => breaker.continue_after_trip(&at),
            InterventionKind::Abort => breaker.abort("aborted by the user", &at),
            InterventionKind::NextModel => breaker.next_model(&config.escalation_models, &at),
            InterventionKind::NewEpisode => breaker.new_episode("a person's turn", &at),
        };
        let mut e = match e {
            Ok(e) => e,
            // A resume of a breaker the cooldown already half-opened changes nothing more.
            Err(ResumeError::NotOpen(State::HalfOpen))
                if intervention.action == InterventionKind::Resume && !events.is_empty() =>
            {
                return Ok(events);
            }
            Err(err) => return Err(err),
        };
        if let Some(by) = &intervention.by {
            let reason = e.reason.take().unwrap_or_default();
            e.reason = Some(format!("{reason} (by {by})"));
        }
        events.push(e);
        if intervention.action != InterventionKind::Abort {
            self.reset_edges();
        }
        if let Some(last) = self.iterations.last_mut() {
            last.interventions.push(intervention);
        }
        Ok(events)
    }

    /// A person's turn (see [`InterventionKind::NewEpisode`]): the loop counters start
    /// again after the iterations so far, the budget keeps counting. Kept with the last
    /// iteration, so a replay starts the episode at the same point.
    pub fn new_episode(
        &mut self,
        config: &Config,
        now: Timestamp,
        by: Option<String>,
    ) -> Result<Vec<Event>, ResumeError> {
        self.intervene(
            config,
            Intervention {
                action: InterventionKind::NewEpisode,
                at: now,
                by,
            },
        )
    }

    /// open -> half_open by `loopguard resume`; the harness's edges start counting again.
    pub fn resume(&mut self, config: &Config, now: Timestamp) -> Result<Vec<Event>, ResumeError> {
        self.intervene(
            config,
            Intervention {
                action: InterventionKind::Resume,
                at: now,
                by: None,
            },
        )
    }

    /// Ends the run with its terminal status: `done_success` when the latest tests pass,
    /// `done_partial` when failures remain but the run made progress (or there was nothing
    /// to judge), the aborted status it already has, or `aborted_stuck` when it claims
    /// done with no progress at all.
    pub fn finish(&mut self, config: &Config, now: Timestamp) -> Event {
        self.refresh_facts(config);
        let facts = self.derived.facts.all();
        let latest = self
            .iterations
            .iter()
            .rev()
            .find_map(|it| it.test.as_ref())
            .map(|t| t.outcome);
        let status = match self.breaker.terminal_status() {
            Some(t) if !t.is_done() => t,
            _ => match latest {
                Some(crate::iteration::Outcome::Pass) => TerminalStatus::DoneSuccess,
                _ if facts.iter().any(|f| f.progress) => TerminalStatus::DonePartial,
                None if facts.is_empty() => TerminalStatus::DonePartial,
                _ => TerminalStatus::AbortedStuck,
            },
        };
        let reason = match status {
            TerminalStatus::DoneSuccess => "finished; the latest tests pass".to_owned(),
            TerminalStatus::DonePartial => {
                "finished with failures left or no test evidence, after making progress".to_owned()
            }
            TerminalStatus::AbortedStuck | TerminalStatus::AbortedConstraint => self
                .breaker
                .reason()
                .map_or_else(|| "finished without any progress".to_owned(), str::to_owned),
        };
        let at = self.at(now);
        self.record.breaker.finish(status, reason, &at)
    }
}
