//! A run: the ordered iterations of one agent session (a branch locally, a PR in CI), its
//! breaker, and the one function that steps the breaker.
//!
//! Every judgement goes through [`Run::step`]: the hooks record one iteration at a time,
//! `event` steps on a harness transition, and [`judge`] (`check`, `replay`, `ci`) folds a
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
//!      mends what tripped it, as the rule's [`Recovery`] says (new code whose tests pass
//!      or fail differently for a failure loop; a new commit that really changes the code
//!      for a loop in the code), closes it, when judged on its own it would close a
//!      half-open breaker. `constraint`, `budget` and aborted runs wait for a person;
//! 5. rules with `action: warn` at their limit leave a warning on each new attempt.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::agents::AgentFilter;
use crate::breaker::{At, Breaker, Event, EventKind, ResumeError, State, TerminalStatus};
use crate::config::{Config, TripAction};
use crate::first_parent;
use crate::ids::CommitId;
use crate::iteration::{Intervention, InterventionKind, Iteration, IterationKind, TestEvidence};
use crate::rules::{self, Earlier, EdgeCount, Evaluation, Facts, FactsLog, Recovery, Usage};

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
    pub session: Option<crate::session::SessionState>,
    /// A run that keeps only its latest iterations (see [`Run::compact`]): what it
    /// dropped. `None`: it keeps them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compacted: Option<Compacted>,
}

/// What a run that keeps only its latest iterations dropped (see [`Run::compact`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Compacted {
    /// Iterations dropped from the front.
    #[serde(default)]
    pub dropped: usize,
    /// The attempts dropped, summed up for the rules.
    #[serde(default)]
    pub earlier: Earlier,
    /// Where the breaker's baseline is, counted from the run's first iteration, when it
    /// was among the iterations dropped (the kept ones count from 0 then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<usize>,
    /// The tree of the iteration the breaker opened at, once it was dropped: what an
    /// attempt that would mend the trip is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tripped_tree: Option<String>,
    /// The facts of the iterations kept, as they were computed when each arrived (the
    /// iterations they were computed against are gone, so they are saved, not computed
    /// again), and the number of iterations they cover. Written from the run's own facts
    /// when it is saved; empty in memory.
    #[serde(default)]
    facts: Vec<Facts>,
    #[serde(default)]
    facts_cover: usize,
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

/// The config a run is judged by. Locally an agent can edit `.loopguard.yml` in the working
/// tree at will, so the config in force is fixed when the run starts: the file a person
/// set up (`init`) or accepted (`reset --accept-config`), carried over by `reset`, taken
/// from the run a branch continues, or for a new branch the one last accepted in the
/// repository. Editing the file changes nothing until a person accepts it; committing a
/// change to it trips `constraint`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedConfig {
    /// The file's text; `None` when there was no file (the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// sha256 hex of the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The commit it was read from, or HEAD when a person accepted the file in the working
    /// tree: the commit whose other guarded files (workflows) are trusted with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitId>,
    pub source: PinSource,
    /// When it was fixed.
    pub at: Timestamp,
}

/// How a config came to be in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PinSource {
    /// A person ran `loopguard init`: the file in the working tree.
    Init,
    /// A person ran `loopguard reset --accept-config`: the file in the working tree.
    Accepted,
    /// `loopguard reset` carried the previous run's config over.
    Reset,
    /// The branch continues another run (see [`Inherited`]), and its config.
    Inherited,
    /// A new branch: the config last set up or accepted in this repository.
    Repository,
    /// No config was ever set up or accepted here (`loopguard init` never ran: the hooks
    /// of the pre-commit framework, `run` or `event` on their own): the file as committed
    /// where the run started.
    Committed,
}

impl PinSource {
    pub fn as_str(self) -> &'static str {
        match self {
            PinSource::Init => "init",
            PinSource::Accepted => "accepted",
            PinSource::Reset => "reset",
            PinSource::Inherited => "inherited",
            PinSource::Repository => "repository",
            PinSource::Committed => "committed",
        }
    }
}

/// Where a run that continues another started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inherited {
    /// The run it continues.
    pub run: String,
    /// That run's branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The commit of that run the branch started from.
    pub at: CommitId,
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
    /// Why the edge was taken, the latest last (at most [`EdgeState::REASONS`]): what
    /// `event --reason` said, or a sub-agent's calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

impl EdgeState {
    /// Reasons kept per edge.
    pub const REASONS: usize = 5;

    /// Keeps `reason` as the latest (bounded in number and length).
    pub fn note(&mut self, reason: &str) {
        let r: String = reason.chars().take(200).collect();
        self.reasons.push(r);
        let extra = self.reasons.len().saturating_sub(Self::REASONS);
        self.reasons.drain(..extra);
    }
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
    /// Why the harness took the edge (kept in the edge's short history).
    pub reason: Option<String>,
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
    /// The breaker refused the step (it blocks): nothing was counted.
    pub refused: bool,
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

/// What arrived for a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
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

impl Arrival {
    /// A new attempt or harness step: it decides a half-open breaker.
    fn is_new(self) -> bool {
        matches!(self, Arrival::Attempt | Arrival::Edge { .. })
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

    /// Restarts every edge's count (progress seen, resume, a new model).
    fn reset_edges(&mut self) {
        for e in self.usage.edges.values_mut() {
            e.count = 0;
            e.queries.clear();
        }
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

    /// The cooldown, the one place it is decided: an open breaker whose trip is older
    /// than `on_trip.cooldown` is half-open at `now`, and counting starts again at `len`.
    /// The breaker so, and the event, without changing the run.
    fn cooled(&self, config: &Config, now: Timestamp, len: usize) -> (Breaker, Option<Event>) {
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
    fn cool_down(&mut self, config: &Config, now: Timestamp, len: usize) -> Option<Event> {
        let (breaker, event) = self.cooled(config, now, len);
        self.record.breaker = breaker;
        event
    }

    /// The one step (see the module docs).
    fn step(&mut self, config: &Config, now: Timestamp, arrival: Arrival) -> Outcome {
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
        let breaker = &mut self.record.breaker;
        match breaker.state() {
            _ if breaker.is_final() => {}
            State::Closed => {
                if let Some(f) = eval.trip() {
                    events.push(breaker.trip_on(f.rule, f.reason.clone(), action, at));
                }
            }
            State::HalfOpen if arrival.is_new() => {
                let progress = eval.last.as_ref().is_some_and(|l| l.progress);
                events.push(match eval.trip() {
                    Some(f) => breaker.reopen(Some((f.rule, f.reason.clone())), action, at),
                    None if progress => {
                        breaker.close("progress after the breaker was resumed".to_owned(), at)
                    }
                    None => breaker.reopen(None, action, at),
                });
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

    fn evaluate_cached(&self, config: &Config) -> Evaluation {
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
                let tripped = match trip.after.checked_sub(1) {
                    Some(i) => self.iterations[i].tree.as_deref(),
                    // Dropped since (a compacted run): its tree was kept.
                    None => self
                        .record
                        .compacted
                        .as_ref()
                        .and_then(|c| c.tripped_tree.as_deref()),
                };
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

    /// Makes this run keep only its latest iterations from now on: a coding agent's
    /// session, whose hooks must cost the same after 1,000 calls as after 10 (see
    /// [`Run::compact`]).
    pub fn keep_latest(&mut self) {
        self.record.compacted.get_or_insert_with(Compacted::default);
    }

    /// Iterations recorded in the run, those a compacted run dropped included.
    pub fn recorded(&self) -> usize {
        self.dropped() + self.iterations.len()
    }

    /// Iterations a compacted run dropped (the first of those it keeps is the next one).
    pub fn dropped(&self) -> usize {
        self.record.compacted.as_ref().map_or(0, |c| c.dropped)
    }

    /// What a compacted run dropped, summed up (see [`Compacted`]).
    pub fn compacted(&self) -> Option<&Compacted> {
        self.record.compacted.as_ref()
    }

    /// Where the rules start counting, as an index into every iteration recorded (those a
    /// compacted run dropped included).
    pub fn baseline_recorded(&self) -> usize {
        match (&self.record.compacted, self.breaker.baseline()) {
            (Some(c), 0) => c.baseline.unwrap_or(c.dropped),
            (_, b) => self.dropped() + b,
        }
    }

    /// In a run that keeps only its latest iterations ([`Run::keep_latest`]), drops those
    /// no rule needs any more, oldest first, and returns them (the caller keeps them
    /// elsewhere: a session's calls log). A new attempt's facts are computed against the
    /// `window` attempts before it, so those are kept, with the facts of each; what the
    /// rules count further back is summed up in [`Earlier`] as the attempts go, and the
    /// breaker's positions move down with the history. Dropping changes no count, reason
    /// or verdict: a run judged with and without it is the same run.
    ///
    /// Iterations are dropped `window` at a time, so that most calls drop none.
    pub fn compact(&mut self, config: &Config) -> Vec<Iteration> {
        if self.record.compacted.is_none() {
            return Vec::new();
        }
        self.refresh_facts(config);
        let window = (config.window as usize).max(1);
        let facts = self.derived.facts.all();
        if facts.len() < 2 * window {
            return Vec::new();
        }
        let k = facts[facts.len() - window].index;
        let baseline = self.breaker.baseline();
        let trip_after = self.breaker.trip().map(|t| t.after);
        let c = self
            .record
            .compacted
            .as_mut()
            .expect("a compacted run, checked above");
        if baseline > 0 {
            // Counting starts among the iterations kept so far: what was summed up of
            // those before counts for the budget only.
            c.earlier.since = rules::Since::default();
        }
        let absolute = if baseline == 0 {
            c.baseline.unwrap_or(c.dropped)
        } else {
            c.dropped + baseline
        };
        if baseline <= k {
            c.baseline = Some(absolute);
        }
        if let Some(after) = trip_after
            && (1..=k).contains(&after)
        {
            c.tripped_tree = self.record.iterations[after - 1].tree.clone();
        }
        for f in facts.iter().take_while(|f| f.index < k) {
            let it = &self.record.iterations[f.index];
            c.earlier
                .fold(it, f, f.index >= baseline, &rules::label(it));
        }
        c.dropped += k;
        let dropped: Vec<Iteration> = self.record.iterations.drain(..k).collect();
        self.derived.facts.forget_before(k);
        self.derived.filter = None;
        self.record.breaker.forget_before(k);
        self.record.usage.progress_mark = self.record.usage.progress_mark.saturating_sub(k);
        dropped
    }

    /// Records a new iteration; recording the same id again replaces its evidence and is
    /// not a new attempt (hooks may run twice). Who is an agent is decided now, over the
    /// history so far, and kept with the iteration.
    pub fn record(&mut self, config: &Config, mut it: Iteration, now: Timestamp) -> Outcome {
        let arrival = match self.position(&it.id) {
            Some(i) => {
                let old = &self.iterations[i];
                it.test = it.test.or_else(|| old.test.clone());
                if it.superseded_tests.is_empty() {
                    it.superseded_tests = old.superseded_tests.clone();
                }
                it.kind = old.kind.or(it.kind);
                if it.interventions.is_empty() {
                    it.interventions = old.interventions.clone();
                }
                self.record.iterations[i] = it;
                self.forget_from(i);
                Arrival::Context
            }
            None => {
                let before = self.filter(config);
                let filter = before.with(config, &it);
                if filter != before {
                    self.attribute_again(config, filter);
                }
                self.derived.filter = Some(filter);
                if it.kind.is_none() {
                    it.kind = Some(filter.kind(config, &it));
                }
                let turn = self.persons_turn(config, filter, &it);
                self.iterations.push(it);
                let kind = self.iterations.last().and_then(|it| it.kind);
                if kind == Some(IterationKind::Attempt) {
                    Arrival::Attempt
                } else {
                    let mut outcome = self.step(config, now, Arrival::Context);
                    if let Some(by) = turn {
                        outcome.events.extend(self.turn_taken(&by, now));
                    }
                    return outcome;
                }
            }
        };
        self.step(config, now, arrival)
    }

    /// Whether `it`, arriving, is a person's turn: a commit of their own (not a merge, not
    /// the agent's, by someone the run can tell from the agent: `agents` is set or the
    /// agent's identity is known) after an attempt of the agent's in this episode. Who, if
    /// so.
    fn persons_turn(
        &mut self,
        config: &Config,
        filter: AgentFilter,
        it: &Iteration,
    ) -> Option<String> {
        let told_apart = match filter {
            AgentFilter::Configured | AgentFilter::KnownAgents => true,
            AgentFilter::Everyone => false,
        };
        let own_commit = !it.uncommitted
            && it.parents.as_ref().is_none_or(|p| p.len() <= 1)
            && it.kind != Some(IterationKind::Attempt)
            && it.kind != Some(IterationKind::Rewrite)
            && !filter.is_agent(config, it);
        let baseline = self.breaker.baseline();
        let after_an_attempt = self.facts(config).iter().any(|f| f.index >= baseline);
        let author = it.author.as_deref()?;
        (told_apart && own_commit && after_an_attempt).then(|| {
            let name = author.split(" <").next().unwrap_or(author);
            format!("{name}'s commit {}", it.id.short())
        })
    }

    /// A person's turn taken by a commit of theirs: a new episode (see
    /// [`Run::new_episode`]), derived from the commit itself, so a history judged again
    /// takes it at the same point.
    fn turn_taken(&mut self, by: &str, now: Timestamp) -> Option<Event> {
        let at = self.at(now);
        let e = self.record.breaker.new_episode(by, &at).ok()?;
        self.reset_edges();
        Some(e)
    }

    /// The first known agent identity arrived in a run that took every commit for the
    /// agent's: who made each commit is a property of the commit, so the earlier commits
    /// that are not the agent's are context now, as `check` sees them over the whole
    /// history. (Test runs on the working tree stay the agent's attempts.)
    fn attribute_again(&mut self, config: &Config, filter: AgentFilter) {
        let mut first = None;
        for (i, it) in self.record.iterations.iter_mut().enumerate() {
            if it.kind == Some(IterationKind::Attempt)
                && !it.uncommitted
                && !filter.is_agent(config, it)
            {
                it.kind = Some(IterationKind::Context);
                first.get_or_insert(i);
            }
        }
        if let Some(first) = first {
            self.forget_from(first);
        }
    }

    /// Commits read by their header only (no change, no evidence: the oldest of a large
    /// catch-up), appended as attempts or context in one step instead of one each. Without
    /// a change or evidence they are neither progress nor a loop for any rule: they count
    /// (the budget) and nothing else, so one step judges them as well as one each would,
    /// in a time that does not grow with their number squared. Like [`Run::record_local`],
    /// what arrives while the breaker blocks came around the gates.
    pub fn record_unread(
        &mut self,
        config: &Config,
        commits: Vec<Iteration>,
        now: Timestamp,
    ) -> Option<Outcome> {
        if commits.is_empty() {
            return None;
        }
        let around = self
            .effective_breaker(config, now)
            .blocks(config.on_trip.action);
        let mut filter = self.filter(config);
        let mut attempt = false;
        let known: std::collections::HashSet<CommitId> =
            self.iterations.iter().map(|it| it.id.clone()).collect();
        for mut it in commits {
            if known.contains(&it.id) {
                continue;
            }
            it.around_gates |= around;
            filter = filter.with(config, &it);
            if it.kind.is_none() {
                it.kind = Some(filter.kind(config, &it));
            }
            attempt |= it.kind == Some(IterationKind::Attempt);
            self.iterations.push(it);
        }
        self.derived.filter = Some(filter);
        let arrival = if attempt {
            Arrival::Attempt
        } else {
            Arrival::Context
        };
        Some(self.step(config, now, arrival))
    }

    /// [`Run::record`] where gates refuse commits while the breaker blocks (the hooks): a
    /// commit that arrives while it blocks came around them, and is recorded as such
    /// ([`Iteration::around_gates`]): it counts, and mends nothing.
    pub fn record_local(&mut self, config: &Config, mut it: Iteration, now: Timestamp) -> Outcome {
        if !it.uncommitted
            && self
                .effective_breaker(config, now)
                .blocks(config.on_trip.action)
        {
            it.around_gates = true;
        }
        self.record(config, it, now)
    }

    /// Attaches test evidence to the iteration `id`.
    pub fn attach_test(
        &mut self,
        config: &Config,
        id: &CommitId,
        test: TestEvidence,
        now: Timestamp,
    ) -> Option<Outcome> {
        let i = self.position(id)?;
        self.iterations[i].test = Some(test);
        self.derived.facts.truncate(i);
        let latest_attempt = i + 1 == self.iterations.len()
            && self.iterations[i].kind == Some(IterationKind::Attempt);
        let arrival = if latest_attempt {
            Arrival::Evidence
        } else {
            Arrival::Context
        };
        Some(self.step(config, now, arrival))
    }

    /// Replaces rewritten iterations (rebase, amend) by their new commits, keeping their
    /// kind, interventions and place: a rewrite is never a new attempt for the commit
    /// rules. Test evidence follows the tree (see [`Iteration::rewritten_as`]): a rewrite
    /// that changed the tree keeps the evidence of the earlier version as a test run of its
    /// own, so an amend loop that fails the same way each time is the same failure again
    /// for `same_error`; a reword keeps it as it is. Returns the number of iterations
    /// rewritten.
    pub fn rewrite(
        &mut self,
        config: &Config,
        rewritten: Vec<(CommitId, Iteration)>,
        now: Timestamp,
    ) -> (usize, Outcome) {
        let n = self.replace_rewritten(rewritten);
        (n, self.step(config, now, Arrival::Context))
    }

    /// The uncommitted iteration that `commit` commits as it was tested, if it is the
    /// latest: a test run on the working tree (same tree, same parent), now a commit.
    pub fn tested_as(&self, commit: &Iteration) -> Option<CommitId> {
        self.iterations
            .last()
            .filter(|l| {
                l.uncommitted
                    && l.tree.is_some()
                    && l.tree == commit.tree
                    && l.parents.is_some()
                    && l.parents == commit.parents
            })
            .map(|l| l.id.clone())
    }

    /// The tested working tree `tested` committed as `commit` (see [`Run::tested_as`]):
    /// the same attempt, with its evidence, now a commit. It is not a new attempt, but it
    /// may mend a trip that only a new commit mends.
    pub fn commit_tested(
        &mut self,
        config: &Config,
        tested: CommitId,
        commit: Iteration,
        now: Timestamp,
    ) -> Outcome {
        self.replace_rewritten(vec![(tested, commit)]);
        self.step(config, now, Arrival::Committed)
    }

    /// Puts rewritten iterations' new commits in their place; how many were replaced.
    fn replace_rewritten(&mut self, rewritten: Vec<(CommitId, Iteration)>) -> usize {
        let mut n = 0;
        let mut first = self.iterations.len();
        for (old, new) in rewritten {
            if let Some(j) = self.position(&new.id) {
                // Already recorded (post-commit during an amend): drop the stale old one,
                // handing its evidence on.
                if old != new.id
                    && let Some(i) = self.position(&old)
                {
                    let stale = self.iterations.remove(i);
                    let j = if i < j { j - 1 } else { j };
                    stale.hand_evidence_to(&mut self.iterations[j]);
                    first = first.min(i.min(j));
                    n += 1;
                }
                continue;
            }
            if let Some(i) = self.position(&old) {
                self.iterations[i] = self.iterations[i].rewritten_as(new);
                first = first.min(i);
                n += 1;
            }
        }
        self.forget_from(first);
        n
    }

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

    /// One transition of an agent harness (`event --edge`). While the breaker blocks the
    /// step is refused and nothing is counted.
    pub fn event(&mut self, config: &Config, input: EdgeInput, now: Timestamp) -> EdgeOutcome {
        let threshold = u64::from(config.rules.edge_loop.threshold_for(&input.edge));
        if self
            .effective_breaker(config, now)
            .blocks(config.on_trip.action)
        {
            let count = self.usage.edges.get(&input.edge).map_or(0, |e| e.count);
            return EdgeOutcome {
                edge: input.edge,
                step: self.usage.steps,
                count,
                threshold,
                new_information: true,
                asked_at_step: None,
                refused: true,
                outcome: Outcome {
                    events: Vec::new(),
                    evaluation: self.evaluate(config),
                },
            };
        }
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
        if let Some(reason) = &input.reason {
            edge.note(reason);
        }
        let mut asked_at_step = None;
        if let Some(q) = input.query.as_deref().map(normalise_query) {
            match edge.queries.iter().find(|r| r.query == q) {
                Some(r) => asked_at_step = Some(r.step),
                None => edge.queries.push(QueryRecord { query: q, step }),
            }
        }
        let count = edge.count;
        let outcome = self.step(
            config,
            now,
            Arrival::Edge {
                progress: input.progress,
            },
        );
        EdgeOutcome {
            edge: input.edge,
            step,
            count,
            threshold,
            new_information: asked_at_step.is_none(),
            asked_at_step,
            refused: false,
            outcome,
        }
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

/// A history judged from scratch, one iteration at a time, through the same steps as the
/// hooks: `check`, `replay`, `ci`.
#[derive(Debug, Clone)]
pub struct Judgement {
    pub run: Run,
    /// Every transition, oldest first.
    pub events: Vec<Event>,
    /// The rules now, counting from the breaker's baseline.
    pub evaluation: Evaluation,
}

/// Judges `history` (oldest first, evidence attached) in a run named `run_id`. Each
/// iteration steps at its own time (`now` for those without one), its interventions right
/// after it; the cooldown is applied at `now` at the end.
///
/// Only the branch's own line is judged ([`first_parent::line_of`]): the commits a merge
/// brought in are carried by the merge. Who is the agent is a property of each commit,
/// decided over the whole history before the first step ([`AgentFilter::for_history`]),
/// never by where in the history the first agent commit happens to be.
///
/// A commit arrives as the hooks see it: the commit first, then its test evidence. The
/// verdict on an attempt is made when it is committed, and evidence that comes after is
/// evidence about that commit, never a way out of a trip it caused; judged in one piece,
/// a history would let a commit's own tests undo a trip the hooks already made. An
/// uncommitted iteration (a test run) is its evidence, and arrives with it.
pub fn judge(config: &Config, history: Vec<Iteration>, run_id: &str, now: Timestamp) -> Judgement {
    judge_seen(config, history, run_id, now, |_| None)
}

/// [`judge`], each iteration stepping no earlier than `seen` says it was first seen (CI:
/// the run that first judged the commit). A commit's own time is what its author wrote:
/// backdated, it would put a trip long in the past and a cooldown behind it at once.
pub fn judge_seen(
    config: &Config,
    history: Vec<Iteration>,
    run_id: &str,
    now: Timestamp,
    seen: impl Fn(&CommitId) -> Option<Timestamp>,
) -> Judgement {
    let mut history = first_parent::line_of(history);
    let filter = AgentFilter::for_history(config, &history);
    for it in &mut history {
        if it.kind.is_none() {
            it.kind = Some(filter.kind(config, it));
        }
    }
    let start = history.first().and_then(|it| it.at).unwrap_or(now);
    let mut run = Run::new(run_id, None, start, None);
    let mut events = Vec::new();
    for mut it in history {
        let at = it.at.unwrap_or(now);
        let at = seen(&it.id).map_or(at, |first| first.max(at));
        let interventions = std::mem::take(&mut it.interventions);
        let later = if it.uncommitted { None } else { it.test.take() };
        let id = it.id.clone();
        events.extend(run.record(config, it, at).events);
        if let Some(test) = later {
            events.extend(
                run.attach_test(config, &id, test, at)
                    .map(|o| o.events)
                    .unwrap_or_default(),
            );
        }
        for iv in interventions {
            // One that no longer applies (the history changed under it) is moot.
            if let Ok(e) = run.intervene(config, iv.clone()) {
                events.extend(e);
            } else if let Some(last) = run.iterations.last_mut() {
                last.interventions.push(iv);
            }
        }
    }
    events.extend(run.tick(config, now));
    let evaluation = run.evaluate(config);
    Judgement {
        run,
        events,
        evaluation,
    }
}

#[cfg(test)]
mod tests;
