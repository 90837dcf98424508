//! A run: the ordered iterations of one agent session (a branch locally, a PR in CI), its
//! breaker, and the one function that steps the breaker.
//!
//! Every judgement goes through [`Run::step`]: the hooks record one iteration at a time,
//! `event` steps on a harness transition, and [`judge()`] (`check`, `replay`, `ci`) folds a
//! whole history through the same [`Run::record`] and [`Run::intervene`]. So a history
//! judged at once and the same history recorded commit by commit give the same breaker,
//! events and counters, by construction.
//!
//! One step, in order:
//!
//! 1. progress seen in commits or tests restarts a harness's edge counters;
//! 2. the cooldown: an open breaker whose trip is older than `on_trip.cooldown` is
//!    half-open (the arriving attempt is the first after that resume);
//! 3. the rules evaluate the window from the breaker's baseline;
//! 4. the transition, by phase:
//!    - closed: a rule with `action: trip` opens it (aborts it under `on_trip.action:
//!      abort`; hands out the next model with fresh counters under `escalate`);
//!    - half-open, on a new attempt: a rule firing, or no progress, reopens it; progress
//!      closes it;
//!    - open, on an attempt that came after the trip (or its evidence): an attempt that
//!      mends what tripped it, as the rule's [`Recovery`](rules::Recovery) says (new code whose tests pass
//!      or fail differently for a failure loop; a new commit that really changes the code
//!      for a loop in the code), closes it, when judged on its own it would close a
//!      half-open breaker. `constraint`, `budget` and aborted runs wait for a person;
//! 5. rules with `action: warn` at their limit leave a warning on each new attempt.
//!
//! By what the parts are: the run, its record and what is derived from it (here); the
//! step (`step.rs`); what arrives in a run (`record.rs`: commits, calls, evidence,
//! rewrites); a person's acts (`person.rs`); a harness's edges (`edges.rs`); a run that
//! keeps only its latest iterations (`compact.rs`); a history judged at once
//! (`judge.rs`); the config a run is judged by and the run it continues (`pinned.rs`);
//! what loopguard saw that it did not do (`tamper.rs`).

mod compact;
mod edges;
mod judge;
mod person;
mod pinned;
mod record;
mod step;
mod tamper;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::breaker::{At, Breaker, Event, EventKind, TerminalStatus};
use crate::config::Config;
use crate::config::agents::AgentFilter;
use crate::ids::CommitId;
use crate::iteration::{Iteration, IterationKind};
use crate::rules::{self, Earlier, EdgeCount, Evaluation, Facts, FactsLog, Usage};

pub use compact::Compacted;
pub use edges::{EdgeInput, EdgeOutcome, EdgeState, QueryRecord, RunUsage};
pub use judge::{Judgement, judge, judge_seen};
pub use pinned::{Inherited, PinSource, PinnedConfig};

/// The on-disk format version of a run. A newer file than this binary understands is kept
/// aside, never overwritten.
pub const RUN_FORMAT: u32 = 1;

/// What is saved of a run: its file. Whether a change is written is decided by comparing
/// records, so every field here is compared and saved, and nothing else is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub format: u32,
    pub id: String,
    #[serde(default)]
    pub branch: Option<String>,
    pub started_at: Timestamp,
    /// HEAD when the run started (its commit is not an attempt).
    #[serde(default)]
    pub start_commit: Option<CommitId>,
    #[serde(default)]
    iterations: Vec<Iteration>,
    #[serde(default)]
    breaker: Breaker,
    /// sha256 of `.loopguard.yml` when the run started: committing exactly that file is
    /// setting the guard up, not an agent loosening it.
    #[serde(default)]
    pub trusted_config: Option<String>,
    #[serde(default)]
    pub usage: RunUsage,
    /// The config this run is judged by, fixed when it started (see [`PinnedConfig`]);
    /// `None` in a run an older loopguard wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned_config: Option<PinnedConfig>,
    /// The run this one continues: the branch started from one of that run's commits
    /// while its breaker was not closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherited: Option<Inherited>,
    /// What of the working-tree config was ignored last (its digest, or why it could not
    /// be read), so each edit is recorded once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored_config: Option<String>,
    /// A coding agent's session, when this run is one (its iterations are tool calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<crate::agent::SessionState>,
    /// A run that keeps only its latest iterations (see [`Run::compact`]): what it
    /// dropped. `None`: it keeps them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compacted: Option<Compacted>,
}

/// A run: its [`RunRecord`] (read through `Deref`; the iterations and the breaker change
/// only through the methods below) and what is derived from the record, kept to save work
/// and never saved or compared.
#[derive(Debug, Clone)]
pub struct Run {
    record: RunRecord,
    derived: Derived,
}

/// Derived from the iterations: their facts so far, and who is an agent in them.
#[derive(Debug, Clone, Default)]
struct Derived {
    facts: FactsLog,
    filter: Option<AgentFilter>,
}

impl std::ops::Deref for Run {
    type Target = RunRecord;
    fn deref(&self) -> &RunRecord {
        &self.record
    }
}

impl std::ops::DerefMut for Run {
    /// The record's public fields; nothing derived depends on them.
    fn deref_mut(&mut self) -> &mut RunRecord {
        &mut self.record
    }
}

impl Serialize for Run {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.record.compacted.is_none() {
            return self.record.serialize(s);
        }
        // A compacted run saves its facts with it (see `Compacted::facts`).
        let mut record = self.record.clone();
        if let Some(c) = record.compacted.as_mut() {
            c.facts = self.derived.facts.all().to_vec();
            c.facts_cover = self.derived.facts.covers();
        }
        record.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Run {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut record = RunRecord::deserialize(d)?;
        // A compacted run's facts cannot be computed again: they come with it.
        let facts = match record.compacted.as_mut() {
            Some(c) if c.facts_cover <= record.iterations.len() => {
                // In memory they live in the run's facts (see `Compacted::facts`).
                let facts = std::mem::take(&mut c.facts);
                let cover = std::mem::take(&mut c.facts_cover);
                FactsLog::restored(cover, facts).ok_or_else(|| {
                    serde::de::Error::custom("the facts of a compacted run are out of order")
                })?
            }
            Some(_) => {
                return Err(serde::de::Error::custom(
                    "the facts of a compacted run cover more iterations than it has",
                ));
            }
            None => FactsLog::default(),
        };
        Ok(Run {
            record,
            derived: Derived {
                facts,
                filter: None,
            },
        })
    }
}

/// What one change to the run did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub events: Vec<Event>,
    pub evaluation: Evaluation,
}

impl Outcome {
    /// The trip or reopen this change caused, if any.
    pub fn tripped(&self) -> Option<&Event> {
        self.events.iter().find(|e| e.kind.opens())
    }
}

impl Run {
    pub fn new(
        id: impl Into<String>,
        branch: Option<String>,
        now: Timestamp,
        start: Option<CommitId>,
    ) -> Run {
        Run {
            record: RunRecord {
                format: RUN_FORMAT,
                id: id.into(),
                branch,
                started_at: now,
                start_commit: start,
                iterations: Vec::new(),
                breaker: Breaker::default(),
                trusted_config: None,
                usage: RunUsage::default(),
                pinned_config: None,
                inherited: None,
                ignored_config: None,
                session: None,
                compacted: None,
            },
            derived: Derived::default(),
        }
    }

    /// This run, continued under another name: a branch started from its commit `at`
    /// while its breaker was not closed. Everything carries over (iterations, breaker,
    /// usage, config) so the loop cannot go on under a new name; the new run has its own
    /// id and branch.
    pub fn continued_as(&self, id: String, branch: Option<String>, at: CommitId) -> Run {
        let mut run = self.clone();
        run.inherited = Some(Inherited {
            run: self.id.clone(),
            branch: self.branch.clone(),
            at,
        });
        run.id = id;
        run.branch = branch;
        if let Some(pin) = &mut run.pinned_config {
            pin.source = PinSource::Inherited;
        }
        run
    }

    /// The config in the working tree differs from the one in force (`what`: its digest,
    /// or why it could not be read) and is ignored: the event that records it, once per
    /// distinct `what`.
    pub fn config_ignored(&mut self, what: &str, why: String, now: Timestamp) -> Option<Event> {
        if self.ignored_config.as_deref() == Some(what) {
            return None;
        }
        self.ignored_config = Some(what.to_owned());
        let state = self.breaker.state();
        Some(Event {
            at: now,
            run: self.id.clone(),
            kind: EventKind::ConfigIgnored,
            from: state,
            to: state,
            rule: None,
            reason: Some(why),
            iteration: self.iterations.last().map(|it| it.id.clone()),
            terminal_status: self.breaker.terminal_status(),
        })
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

    /// What is saved of the run (two runs that save the same are the same run).
    pub fn saved(&self) -> &RunRecord {
        &self.record
    }

    /// [`Run::saved`], taken.
    pub fn into_saved(self) -> RunRecord {
        self.record
    }

    pub fn iterations(&self) -> &[Iteration] {
        &self.iterations
    }

    pub fn breaker(&self) -> &Breaker {
        &self.breaker
    }

    pub fn position(&self, id: &CommitId) -> Option<usize> {
        self.iterations.iter().rposition(|it| &it.id == id)
    }

    /// Whether `id` is a commit the run recorded or the one it started from: what its
    /// branch goes on from, with nothing missed before it.
    pub fn knows(&self, id: &CommitId) -> bool {
        self.position(id).is_some() || self.start_commit.as_ref() == Some(id)
    }

    /// The facts of every attempt so far.
    pub fn facts(&mut self, config: &Config) -> &[Facts] {
        self.refresh_facts(config);
        self.derived.facts.all()
    }

    /// Whether `it`, a commit this run has not recorded, would be one of the agent's
    /// attempts if it were: decided as its recording would decide it (merges and commits
    /// of others are context).
    pub fn is_agents(&self, config: &Config, it: &Iteration) -> bool {
        let filter = self
            .derived
            .filter
            .unwrap_or_else(|| AgentFilter::for_history(config, &self.record.iterations))
            .with(config, it);
        filter.kind(config, it) == IterationKind::Attempt
    }

    /// Whether every commit counts as the agent's in this run (`agents` empty and no known
    /// agent identity in it): then a commit's author need not be known to tell.
    pub fn counts_everyone(&self, config: &Config) -> bool {
        AgentFilter::for_history(config, &self.record.iterations) == AgentFilter::Everyone
    }

    /// Who is an agent over the iterations so far.
    fn filter(&mut self, config: &Config) -> AgentFilter {
        *self
            .derived
            .filter
            .get_or_insert_with(|| AgentFilter::for_history(config, &self.record.iterations))
    }

    /// Forgets what was derived from the iterations from `from` on (they changed).
    fn forget_from(&mut self, from: usize) {
        self.derived.facts.truncate(from);
        self.derived.filter = None;
    }

    fn refresh_facts(&mut self, config: &Config) {
        if self.derived.facts.covers() > self.iterations.len() {
            self.derived.facts = FactsLog::default();
        }
        // Every recorded iteration has its kind pinned; the filter decides for any other
        // (a run read from an older file).
        let filter = self.filter(config);
        self.derived
            .facts
            .extend(config, filter, &self.record.iterations);
    }

    /// What the harness reported, for the rules.
    pub fn harness_usage(&self, config: &Config) -> Usage {
        self.usage_at(config, self.breaker.baseline())
    }

    /// [`Run::harness_usage`] for counting from `baseline`, with what a compacted run
    /// dropped (the dropped attempts since the baseline only when it is among them).
    fn usage_at(&self, config: &Config, baseline: usize) -> Usage {
        let earlier = match &self.record.compacted {
            Some(c) if baseline == 0 => c.earlier.clone(),
            Some(c) => Earlier {
                since: rules::Since::default(),
                ..c.earlier.clone()
            },
            None => Earlier::default(),
        };
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
            earlier,
        }
    }

    /// The rules over the run now, counting from the breaker's baseline.
    pub fn evaluate(&self, config: &Config) -> Evaluation {
        rules::evaluate(
            config,
            &self.iterations,
            self.facts_now(config).all(),
            self.breaker.baseline(),
            &self.harness_usage(config),
        )
    }

    /// The facts of every attempt kept, without changing the run.
    pub fn facts_now(&self, config: &Config) -> FactsLog {
        let mut facts = self.derived.facts.clone();
        if facts.covers() != self.iterations.len() {
            // A compacted run's facts so far cannot be computed again (their iterations
            // are gone): only the missing ones are.
            if self.record.compacted.is_none() || facts.covers() > self.iterations.len() {
                facts = FactsLog::default();
            }
            facts.extend(
                config,
                AgentFilter::for_history(config, &self.iterations),
                &self.iterations,
            );
        }
        facts
    }

    /// The rules one step before they trip (see [`rules::near_trips`]), counting from the
    /// breaker's baseline.
    pub fn near_trips(&mut self, config: &Config) -> Vec<rules::NearTrip> {
        self.refresh_facts(config);
        let usage = self.harness_usage(config);
        let eval = self.evaluate_cached(config);
        rules::near_trips(
            config,
            &self.iterations,
            self.derived.facts.all(),
            self.breaker.baseline(),
            &usage,
            &eval,
        )
    }

    /// Number of attempts in the run.
    pub fn attempts(&self, config: &Config) -> usize {
        self.evaluate(config).attempts
    }

    /// Where a transition happens now: this run, its latest iteration, its length.
    fn at(&self, now: Timestamp) -> At {
        At {
            run: self.id.clone(),
            now,
            iteration: self.iterations.last().map(|it| it.id.clone()),
            len: self.iterations.len(),
        }
    }

    /// Whether the run has ended with a `done_*` status (a new iteration starts a new run).
    pub fn is_finished(&self) -> bool {
        self.breaker.is_done()
    }

    /// The breaker as of `now` (cooldown applied), without changing the run.
    pub fn effective_breaker(&self, config: &Config, now: Timestamp) -> Breaker {
        self.cooled(config, now, self.iterations.len()).0
    }

    /// Applies the cooldown if it elapsed; the caller persists the event.
    pub fn tick(&mut self, config: &Config, now: Timestamp) -> Option<Event> {
        self.cool_down(config, now, self.iterations.len())
    }

    pub fn is_open(&self) -> bool {
        self.breaker.is_open()
    }

    pub fn terminal(&self) -> Option<TerminalStatus> {
        self.breaker.terminal_status()
    }

    /// The model in use under `escalate`.
    pub fn current_model<'c>(&self, config: &'c Config) -> Option<&'c str> {
        config
            .escalation_models
            .get(self.breaker.model())
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests;
