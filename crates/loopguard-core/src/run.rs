//! A run: the ordered iterations of one agent session (a branch locally, a PR in CI) and
//! its breaker. Pure: the store persists it, the shell feeds it iterations and the time.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::breaker::{Breaker, Event, EventKind, ResumeError, State, Step, TerminalStatus};
use crate::config::Config;
use crate::iteration::{Iteration, IterationKind, Outcome as TestOutcome, TestEvidence};
use crate::rules::{self, EdgeCount, Evaluation, Facts, RuleName, Usage};

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
    /// Harness steps (`event` calls) in the run.
    #[serde(default)]
    pub steps: u64,
    /// Iterations already looked at for progress that resets the edges.
    #[serde(default)]
    pub progress_mark: usize,
    /// Per-edge state of an agent harness (`event --edge`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub edges: BTreeMap<String, EdgeState>,
}

/// One edge of a harness graph: transitions since its last progress, and the queries
/// asked on it since then.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EdgeState {
    pub count: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<QueryRecord>,
}

/// A query asked on an edge: its normalised text and the step that asked it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryRecord {
    pub query: String,
    pub step: u64,
}

/// One `event` of a harness.
#[derive(Debug, Clone, Default)]
pub struct EdgeInput {
    pub edge: String,
    pub progress: bool,
    pub query: Option<String>,
    pub tokens: Option<u64>,
    pub cost: Option<f64>,
}

/// What an `event` answers.
#[derive(Debug, Clone)]
pub struct EdgeOutcome {
    pub edge: String,
    pub step: u64,
    pub count: u64,
    pub threshold: u64,
    /// `false` when the same query was already asked on this edge since its last progress.
    pub new_information: bool,
    /// The step that asked the same query before.
    pub asked_at_step: Option<u64>,
    pub outcome: Outcome,
}

/// Queries compare by their words, not their spacing or case.
fn normalise_query(q: &str) -> String {
    q.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(500)
        .collect()
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
        // Microseconds keep two runs started in the same second apart.
        let stamp = format!(
            "{}.{:06}Z",
            now.strftime("%Y%m%dT%H%M%S"),
            now.subsec_microsecond()
        );
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

    /// What the harness reported, for the rules.
    pub fn harness_usage(&self, config: &Config) -> Usage {
        let edge_rule = &config.rules.edge_loop;
        let edge = self
            .usage
            .edges
            .iter()
            .map(|(name, e)| EdgeCount {
                name: name.clone(),
                count: e.count,
                threshold: edge_rule.threshold_for(name).into(),
            })
            .max_by(|a, b| {
                // The edge nearest its threshold: compare count/threshold without floats.
                (a.count * b.threshold)
                    .cmp(&(b.count * a.threshold))
                    .then_with(|| b.name.cmp(&a.name))
            });
        Usage {
            tokens: self.usage.tokens,
            cost: self.usage.cost,
            steps: self.usage.steps,
            edge,
        }
    }

    pub fn evaluate(&self, config: &Config) -> Evaluation {
        rules::evaluate_with(
            config,
            &self.iterations,
            self.breaker.baseline,
            &self.harness_usage(config),
        )
    }

    /// Restarts every edge's count (progress seen, resume, a new model).
    fn reset_edges(&mut self) {
        for e in self.usage.edges.values_mut() {
            e.count = 0;
            e.queries.clear();
        }
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.iterations.iter().rposition(|it| it.id == id)
    }

    /// Number of attempts in the run.
    pub fn attempts(&self, config: &Config) -> usize {
        rules::attempts(config, &self.iterations).len()
    }

    fn step(&mut self, config: &Config, now: Timestamp, new_attempt: bool) -> Outcome {
        // Progress loopguard sees in commits and tests restarts the harness's edges too:
        // progress at an iteration it has not seen before.
        if self.usage.edges.values().any(|e| e.count > 0) {
            let mark = self.usage.progress_mark;
            let facts = rules::attempts(config, &self.iterations);
            if facts.iter().any(|f| f.progress && f.index >= mark) {
                self.reset_edges();
            }
        }
        self.usage.progress_mark = self.iterations.len();
        let evaluation = self.evaluate(config);
        self.step_with(config, now, new_attempt, evaluation)
    }

    fn step_with(
        &mut self,
        config: &Config,
        now: Timestamp,
        new_attempt: bool,
        evaluation: Evaluation,
    ) -> Outcome {
        let mut events = Vec::new();
        if let Some(e) = self
            .breaker
            .apply_cooldown(config, self.iterations.len(), now, &self.id)
        {
            events.push(e);
        }
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
        if events.iter().any(|e| e.kind == EventKind::Escalate) {
            self.reset_edges();
        }
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

    /// open -> half_open; the harness's edges start counting again.
    pub fn resume(&mut self, now: Timestamp) -> Result<Event, ResumeError> {
        let len = self.iterations.len();
        let e = self.breaker.resume(len, now, &self.id)?;
        self.reset_edges();
        Ok(e)
    }

    /// One transition of an agent harness (`event --edge`).
    pub fn event(&mut self, config: &Config, input: EdgeInput, now: Timestamp) -> EdgeOutcome {
        self.usage.steps += 1;
        self.usage.tokens += input.tokens.unwrap_or(0);
        self.usage.cost += input.cost.unwrap_or(0.0);
        let step = self.usage.steps;
        let edge = self.usage.edges.entry(input.edge.clone()).or_default();
        if input.progress {
            edge.count = 0;
            edge.queries.clear();
        } else {
            edge.count += 1;
        }
        let mut asked_at_step = None;
        if let Some(q) = input.query.as_deref().map(normalise_query) {
            match edge.queries.iter().find(|r| r.query == q) {
                Some(r) => asked_at_step = Some(r.step),
                None => edge.queries.push(QueryRecord { query: q, step }),
            }
        }
        let count = edge.count;
        let threshold = u64::from(config.rules.edge_loop.threshold_for(&input.edge));
        let mut evaluation = self.evaluate(config);
        // For a half-open breaker, this step is the "next iteration": the harness's own
        // word on progress decides.
        evaluation.last = Some(Facts {
            progress: input.progress,
            ..evaluation.last.unwrap_or_default()
        });
        let outcome = self.step_with(config, now, true, evaluation);
        EdgeOutcome {
            edge: input.edge,
            step,
            count,
            threshold,
            new_information: asked_at_step.is_none(),
            asked_at_step,
            outcome,
        }
    }

    /// Ends the run with its terminal status: `done_success` when the latest tests pass,
    /// `done_partial` when failures remain but the run made progress, the aborted status it
    /// already has, or `aborted_stuck` when it claims done with no progress at all.
    pub fn finish(&mut self, config: &Config, now: Timestamp) -> Event {
        let facts = rules::attempts(config, &self.iterations);
        let from = self.breaker.state;
        let status = match self.breaker.terminal_status {
            Some(t) if !t.is_done() => t,
            _ => {
                let latest = self
                    .iterations
                    .iter()
                    .rev()
                    .find_map(|it| it.test.as_ref())
                    .map(|t| t.outcome);
                match latest {
                    Some(TestOutcome::Pass) => TerminalStatus::DoneSuccess,
                    _ if facts.iter().any(|f| f.progress) => TerminalStatus::DonePartial,
                    _ if facts.is_empty() && latest.is_none() => TerminalStatus::DonePartial,
                    _ => TerminalStatus::AbortedStuck,
                }
            }
        };
        let reason = match status {
            TerminalStatus::DoneSuccess => "finished; the latest tests pass".to_owned(),
            TerminalStatus::DonePartial => {
                "finished with failures left or no test evidence, after making progress".to_owned()
            }
            _ => self
                .breaker
                .reason
                .clone()
                .unwrap_or_else(|| "finished without any progress".to_owned()),
        };
        self.breaker.terminal_status = Some(status);
        if status.is_done() {
            self.breaker.state = State::Closed;
        }
        Event {
            at: now,
            run: self.id.clone(),
            kind: EventKind::Finish,
            from,
            to: self.breaker.state,
            rule: if status.is_done() {
                None
            } else {
                self.breaker.rule.or(Some(RuleName::Stagnation))
            },
            reason: Some(reason),
            iteration: self.iterations.last().map(|it| it.id.clone()),
            terminal_status: Some(status),
        }
    }

    /// The user chose to go on after a trip: the breaker closes and every counter starts
    /// again from here (the interactive prompt's "continue").
    pub fn continue_after_trip(&mut self, now: Timestamp) -> Event {
        let from = self.breaker.state;
        let rule = self.breaker.rule.take();
        self.breaker.state = State::Closed;
        self.breaker.terminal_status = None;
        self.breaker.reason = None;
        self.breaker.first_reason = None;
        self.breaker.opened_at = None;
        self.breaker.baseline = self.iterations.len();
        self.reset_edges();
        Event {
            at: now,
            run: self.id.clone(),
            kind: EventKind::Resume,
            from,
            to: State::Closed,
            rule,
            reason: Some("continued by the user; counters reset".to_owned()),
            iteration: None,
            terminal_status: None,
        }
    }

    /// The user stopped the run for good (the interactive prompt's "abort").
    pub fn abort(&mut self, now: Timestamp) -> Event {
        let from = self.breaker.state;
        self.breaker.aborted = true;
        self.breaker.state = State::Open;
        let status = self
            .breaker
            .terminal_status
            .filter(|t| !t.is_done())
            .unwrap_or(TerminalStatus::AbortedStuck);
        self.breaker.terminal_status = Some(status);
        Event {
            at: now,
            run: self.id.clone(),
            kind: EventKind::Finish,
            from,
            to: State::Open,
            rule: self.breaker.rule,
            reason: Some("aborted by the user".to_owned()),
            iteration: self.iterations.last().map(|it| it.id.clone()),
            terminal_status: Some(status),
        }
    }

    /// Hands out the next model by hand (the prompt's "retry with the next model"):
    /// `None` when the last model is in use.
    pub fn next_model(&mut self, config: &Config, now: Timestamp) -> Option<Event> {
        if self.breaker.model + 1 >= config.escalation_models.len() {
            return None;
        }
        self.breaker.model += 1;
        let from = self.breaker.state;
        self.breaker.state = State::HalfOpen;
        self.breaker.terminal_status = None;
        self.breaker.baseline = self.iterations.len();
        self.reset_edges();
        Some(Event {
            at: now,
            run: self.id.clone(),
            kind: EventKind::Escalate,
            from,
            to: State::HalfOpen,
            rule: self.breaker.rule,
            reason: Some(format!(
                "escalated to the next model: {}",
                config.escalation_models[self.breaker.model]
            )),
            iteration: None,
            terminal_status: None,
        })
    }

    /// Whether the run has ended with a `done_*` status (a new iteration starts a new run).
    pub fn is_finished(&self) -> bool {
        self.breaker
            .terminal_status
            .is_some_and(TerminalStatus::is_done)
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
            &Usage::default(),
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
            "20270115T080000.000000Z-feature-x-y"
        );
    }
}
