//! A run: the ordered iterations of one agent session (a branch locally, a PR in CI) and
//! its breaker. Pure: the store persists it, the shell feeds it iterations and the time.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::breaker::{Breaker, Event, EventKind, ResumeError, State, Step, TerminalStatus};
use crate::config::Config;
use crate::iteration::{Iteration, IterationKind, TestEvidence};
use crate::rules::{self, Evaluation, Usage};

/// The on-disk format version of a run. A newer file than this binary understands is kept
/// aside, never overwritten.
pub const RUN_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub format: u32,
    pub id: String,
    #[serde(default)]
    pub branch: Option<String>,
    pub started_at: Timestamp,
    /// HEAD when the run started (its commit is not an attempt).
    #[serde(default)]
    pub start_commit: Option<String>,
    #[serde(default)]
    pub iterations: Vec<Iteration>,
    #[serde(default)]
    pub breaker: Breaker,
    /// Blob id of `.loopguard.yml` when the run started: committing exactly that file is
    /// setting the guard up, not an agent loosening it.
    #[serde(default)]
    pub trusted_config: Option<String>,
    #[serde(default)]
    pub usage: RunUsage,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunUsage {
    #[serde(default)]
    pub tokens: u64,
    #[serde(default)]
    pub cost: f64,
}

/// What a change to the run did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub events: Vec<Event>,
    pub evaluation: Evaluation,
}

impl Outcome {
    /// The trip or reopen this change caused, if any.
    pub fn tripped(&self) -> Option<&Event> {
        self.events
            .iter()
            .find(|e| matches!(e.kind, EventKind::Trip | EventKind::Reopen))
    }
}

impl Run {
    pub fn new(
        id: impl Into<String>,
        branch: Option<String>,
        now: Timestamp,
        start: Option<String>,
    ) -> Run {
        Run {
            format: RUN_FORMAT,
            id: id.into(),
            branch,
            started_at: now,
            start_commit: start,
            iterations: Vec::new(),
            breaker: Breaker::default(),
            trusted_config: None,
            usage: RunUsage::default(),
        }
    }

    /// A run id: the start time and the branch, readable and unique enough per clone.
    pub fn make_id(now: Timestamp, branch: Option<&str>) -> String {
        let stamp = now.strftime("%Y%m%dT%H%M%SZ").to_string();
        let branch: String = branch
            .unwrap_or("detached")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .take(40)
            .collect();
        format!("{stamp}-{branch}")
    }

    pub fn evaluate(&self, config: &Config) -> Evaluation {
        rules::evaluate_with(
            config,
            &self.iterations,
            self.breaker.baseline,
            Usage {
                tokens: self.usage.tokens,
                cost: self.usage.cost,
            },
        )
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.iterations.iter().rposition(|it| it.id == id)
    }

    /// Number of attempts in the run.
    pub fn attempts(&self, config: &Config) -> usize {
        rules::attempts(config, &self.iterations).len()
    }

    fn step(&mut self, config: &Config, now: Timestamp, new_attempt: bool) -> Outcome {
        let mut events = Vec::new();
        if let Some(e) = self
            .breaker
            .apply_cooldown(config, self.iterations.len(), now, &self.id)
        {
            events.push(e);
        }
        let evaluation = self.evaluate(config);
        let last = self.iterations.last().map(|it| it.id.clone());
        events.extend(self.breaker.step(&Step {
            config,
            eval: &evaluation,
            len: self.iterations.len(),
            iteration: last.as_deref(),
            new_attempt,
            now,
            run: &self.id,
        }));
        Outcome { events, evaluation }
    }

    /// Records a new iteration; recording the same id again replaces its evidence and is
    /// not a new attempt (hooks may run twice).
    pub fn record(&mut self, config: &Config, it: Iteration, now: Timestamp) -> Outcome {
        let new_attempt = match self.position(&it.id) {
            Some(i) => {
                let test = self.iterations[i].test.take();
                self.iterations[i] = Iteration {
                    test: it.test.clone().or(test),
                    ..it
                };
                false
            }
            None => {
                let attempt = it.kind.is_none_or(|k| k == IterationKind::Attempt);
                self.iterations.push(it);
                attempt
            }
        };
        self.step(config, now, new_attempt)
    }

    /// Attaches test evidence to the iteration `id`.
    pub fn attach_test(
        &mut self,
        config: &Config,
        id: &str,
        test: TestEvidence,
        now: Timestamp,
    ) -> Option<Outcome> {
        let i = self.position(id)?;
        self.iterations[i].test = Some(test);
        Some(self.step(config, now, false))
    }

    /// Replaces rewritten iterations (rebase, amend) by their new commits, keeping their
    /// test evidence and their place: a rewrite is never a new attempt. Returns the number
    /// of iterations rewritten.
    pub fn rewrite(
        &mut self,
        config: &Config,
        rewritten: Vec<(String, Iteration)>,
        now: Timestamp,
    ) -> (usize, Outcome) {
        let mut n = 0;
        for (old, new) in rewritten {
            if self.position(&new.id).is_some() {
                // Already recorded (post-commit during an amend): drop the stale old one.
                if let Some(i) = self.position(&old)
                    && old != new.id
                {
                    self.iterations.remove(i);
                    n += 1;
                }
                continue;
            }
            if let Some(i) = self.position(&old) {
                let prev = &self.iterations[i];
                let kind = prev.kind;
                let test = prev.test.clone();
                self.iterations[i] = Iteration { kind, test, ..new };
                n += 1;
            }
        }
        (n, self.step(config, now, false))
    }

    /// open -> half_open.
    pub fn resume(&mut self, now: Timestamp) -> Result<Event, ResumeError> {
        let len = self.iterations.len();
        self.breaker.resume(len, now, &self.id)
    }

    /// The state as of `now` (cooldown applied), without changing the run.
    pub fn effective_breaker(&self, config: &Config, now: Timestamp) -> Breaker {
        let mut b = self.breaker.clone();
        b.apply_cooldown(config, self.iterations.len(), now, &self.id);
        b
    }

    /// Applies the cooldown if it elapsed; the caller persists the event.
    pub fn tick(&mut self, config: &Config, now: Timestamp) -> Option<Event> {
        self.breaker
            .apply_cooldown(config, self.iterations.len(), now, &self.id)
    }

    pub fn is_open(&self) -> bool {
        self.breaker.state == State::Open
    }

    pub fn terminal(&self) -> Option<TerminalStatus> {
        self.breaker.terminal_status
    }
}

/// A recorded history judged as the hooks would have judged it, one iteration at a time,
/// with nobody resuming the breaker (`check`, `replay`).
pub struct Simulation {
    pub run: Run,
    pub events: Vec<Event>,
    pub evaluation: Evaluation,
}

/// Steps a fresh breaker through `history`; `fallback` is the time for iterations that
/// carry none.
pub fn simulate(config: &Config, history: Vec<Iteration>, fallback: Timestamp) -> Simulation {
    let facts = rules::attempts(config, &history);
    let mut run = Run::new(
        "replay",
        None,
        history.first().and_then(|it| it.at).unwrap_or(fallback),
        None,
    );
    let mut events = Vec::new();
    let mut seen = 0;
    let mut evaluation = Evaluation::default();
    for k in 1..=history.len() {
        let before = seen;
        while seen < facts.len() && facts[seen].index < k {
            seen += 1;
        }
        let it = &history[k - 1];
        evaluation = rules::evaluate_facts(
            config,
            &history[..k],
            &facts[..seen],
            run.breaker.baseline,
            Usage::default(),
        );
        events.extend(run.breaker.step(&Step {
            config,
            eval: &evaluation,
            len: k,
            iteration: Some(&it.id),
            new_attempt: seen > before,
            now: it.at.unwrap_or(fallback),
            run: &run.id,
        }));
    }
    run.iterations = history;
    Simulation {
        run,
        events,
        evaluation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iteration::Outcome as TestOutcome;

    fn ts(s: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + s).unwrap()
    }

    fn empty(id: &str) -> Iteration {
        Iteration {
            id: id.into(),
            tree: Some("t".into()),
            parent_tree: Some("t".into()),
            files: Some(vec![]),
            ..Default::default()
        }
    }

    #[test]
    fn recording_is_idempotent() {
        let c = Config::default();
        let mut run = Run::new("r", Some("main".into()), ts(0), None);
        run.record(&c, empty("a"), ts(1));
        run.record(&c, empty("a"), ts(2));
        assert_eq!(run.iterations.len(), 1);
        run.record(&c, empty("b"), ts(3));
        let out = run.record(&c, empty("c"), ts(4));
        assert_eq!(
            out.tripped().unwrap().rule,
            Some(crate::rules::RuleName::Stagnation)
        );
        assert!(run.is_open());
    }

    #[test]
    fn evidence_kept_through_rewrite() {
        let c = Config::default();
        let mut run = Run::new("r", None, ts(0), None);
        run.record(&c, empty("a"), ts(1));
        run.attach_test(
            &c,
            "a",
            TestEvidence {
                outcome: TestOutcome::Pass,
                ..Default::default()
            },
            ts(2),
        )
        .unwrap();
        let (n, _) = run.rewrite(&c, vec![("a".into(), empty("a2"))], ts(3));
        assert_eq!(n, 1);
        assert_eq!(run.iterations.len(), 1);
        assert_eq!(run.iterations[0].id, "a2");
        assert_eq!(
            run.iterations[0].test.as_ref().unwrap().outcome,
            TestOutcome::Pass
        );
    }

    #[test]
    fn simulation_matches_recording_one_by_one() {
        let c = Config::default();
        let history: Vec<Iteration> = ["a", "b", "c", "d"].iter().map(|id| empty(id)).collect();
        let sim = simulate(&c, history.clone(), ts(0));
        let mut run = Run::new("r", None, ts(0), None);
        for it in history {
            run.record(&c, it, ts(1));
        }
        assert_eq!(sim.run.breaker.state, run.breaker.state);
        assert_eq!(sim.run.breaker.reason, run.breaker.reason);
        assert_eq!(sim.evaluation.counters, run.evaluate(&c).counters);
        assert_eq!(sim.events.len(), 1);
    }

    #[test]
    fn run_ids_are_readable() {
        assert_eq!(
            Run::make_id(ts(0), Some("feature/x y")),
            "20270115T080000Z-feature-x-y"
        );
    }
}
