//! The JSON documents loopguard prints (`--json`), posts (the webhook) and writes (the
//! failure-context artifacts), each a `Serialize` type (docs/contract.md, "JSON
//! documents"). Every one carries `schema`, written from [`SCHEMA`] and nowhere else;
//! `tests/it/documents.rs` pins each against a snapshot. The status document is
//! [`crate::report::Status`]; a coding agent's session adds the parts below to it
//! ([`SessionLine`], [`SessionRef`], [`EdgeRow`], [`BranchBreaker`], [`HookAnswer`]), and
//! what a hook prints for its harness is its descriptor's answer
//! ([`crate::session::harness`]).

use jiff::Timestamp;
use serde::Serialize;

use crate::breaker::{EventKind, State, TerminalStatus};
use crate::ci::cost::LoopCost;
use crate::ci::dashboard::{Counts, Entry, Section};
use crate::fingerprint::{FailureKind, Fingerprint, Runner};
use crate::ids::CommitId;
use crate::iteration::{Iteration, TestEvidence};
use crate::preview::{Preview, RuleCount, WindowTrip};
use crate::report::Status;
use crate::rules::{Facts, RuleName};
use crate::run::{EdgeOutcome, RunUsage};

/// The parts a session adds to the status document.
pub use crate::report::session::{BranchBreaker, EdgeRow, HookAnswer, SessionLine, SessionRef};
/// The version of every document, the status document's included (defined beside it).
pub use crate::report::{SCHEMA, Schema};

/// `event --json`: one harness transition and the breaker after it.
#[derive(Debug, Clone, Serialize)]
pub struct EventDocument {
    pub schema: Schema,
    pub edge: String,
    /// Transitions of the edge since its last progress.
    pub count: u64,
    pub threshold: u64,
    /// The harness's steps in the run.
    pub step: u64,
    pub max_steps: u32,
    /// `false` when the same query was asked on this edge since its last progress.
    pub new_information: bool,
    pub asked_at_step: Option<u64>,
    /// The breaker blocked the step: nothing was counted.
    pub refused: bool,
    pub state: State,
    pub terminal_status: Option<TerminalStatus>,
    pub rule: Option<RuleName>,
    pub reason: Option<String>,
    pub next_model: Option<String>,
}

impl EventDocument {
    pub fn new(out: &EdgeOutcome, max_steps: u32, s: &Status) -> EventDocument {
        EventDocument {
            schema: Schema,
            edge: out.edge.clone(),
            count: out.count,
            threshold: out.threshold,
            step: out.step,
            max_steps,
            new_information: out.new_information,
            asked_at_step: out.asked_at_step,
            refused: out.refused,
            state: s.state,
            terminal_status: s.terminal_status,
            rule: s.rule,
            reason: s.reason.clone(),
            next_model: s.next_model.clone(),
        }
    }
}

/// `check --windows N --json`: what the config would have done on each window.
#[derive(Debug, Clone, Serialize)]
pub struct PreviewDocument<'p> {
    pub schema: Schema,
    pub windows: usize,
    pub size: usize,
    pub agents_only: bool,
    pub from: Option<&'p CommitId>,
    pub to: Option<&'p CommitId>,
    /// Windows with at least one trip.
    pub tripped: usize,
    pub by_rule: Vec<RuleCount>,
    pub trips: &'p [WindowTrip],
    pub warned: &'p [RuleCount],
}

impl PreviewDocument<'_> {
    pub fn of(p: &Preview) -> serde_json::Value {
        serde_json::to_value(PreviewDocument {
            schema: Schema,
            windows: p.windows,
            size: p.size,
            agents_only: p.agents_only,
            from: p.from.as_ref(),
            to: p.to.as_ref(),
            tripped: p.tripped_windows(),
            by_rule: p.by_rule(),
            trips: &p.trips,
            warned: &p.warned,
        })
        .expect("a preview serialises")
    }
}

/// `fingerprint --json`.
#[derive(Debug, Clone, Serialize)]
pub struct FingerprintDocument<'a> {
    pub schema: Schema,
    /// `null` exactly when the input shows no failure.
    pub signature: Option<&'a str>,
    pub runner: Option<Runner>,
    pub failures: Vec<FailureEntry<'a>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FailureEntry<'a> {
    pub id: &'a str,
    pub kind: FailureKind,
    /// The normalised first error line.
    pub message: &'a str,
}

impl Fingerprint {
    /// The `fingerprint --json` document (docs/contract.md), defined here with the other
    /// documents: the fingerprint knows nothing of them.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(FingerprintDocument::new(self))
            .expect("the fingerprint document serialises")
    }
}

impl<'a> FingerprintDocument<'a> {
    pub fn new(fp: &'a Fingerprint) -> FingerprintDocument<'a> {
        FingerprintDocument {
            schema: Schema,
            signature: fp.signature.as_deref(),
            runner: fp.runner,
            failures: fp
                .failures
                .iter()
                .map(|f| FailureEntry {
                    id: &f.id,
                    kind: f.kind,
                    message: &f.message,
                })
                .collect(),
        }
    }
}

/// `dashboard --json`.
#[derive(Debug, Clone, Serialize)]
pub struct DashboardDocument {
    pub schema: Schema,
    /// The dashboard issue's number (`null` on a dry run that would create it).
    pub issue: Option<u64>,
    pub counts: Counts,
    pub rows: Vec<DashboardRow>,
    /// PRs resumed by a ticked box in this run.
    pub resumed: Vec<u64>,
    pub notes: Vec<String>,
    /// API requests made.
    pub requests: u64,
}

/// One PR of the dashboard.
#[derive(Debug, Clone, Serialize)]
pub struct DashboardRow {
    pub pr: u64,
    pub section: Section,
    pub state: Option<State>,
    pub rule: Option<RuleName>,
    pub reason: Option<String>,
    pub iterations: Option<usize>,
    pub signature: Option<String>,
    pub progress_at: Option<Timestamp>,
    pub tripped_at: Option<Timestamp>,
    pub run: Option<u64>,
    /// While stuck: the runs and CI time of the loop since its first repeated failure.
    pub loop_cost: Option<LoopCost>,
}

impl DashboardRow {
    pub fn of(e: &Entry) -> DashboardRow {
        let v = e.verdict();
        DashboardRow {
            pr: e.number,
            section: e.section(),
            state: v.map(|v| v.state),
            rule: v.and_then(|v| v.rule),
            reason: v.and_then(|v| v.reason.clone()),
            iterations: v.and_then(|v| v.iterations),
            signature: v
                .and_then(|v| v.failure.as_ref())
                .map(|f| f.signature.clone()),
            progress_at: v.and_then(|v| v.progress_at),
            tripped_at: v.and_then(|v| v.tripped_at),
            run: v.and_then(|v| v.run),
            loop_cost: v
                .filter(|_| e.section() == Section::Stuck)
                .and_then(|v| v.loop_cost.clone()),
        }
    }
}

/// What the webhook posts beside its text (`facts`).
#[derive(Debug, Clone, Serialize)]
pub struct WebhookFacts {
    pub schema: Schema,
    /// `trip`, `reopen`, `finish`, …
    pub event: EventKind,
    pub state: State,
    pub terminal_status: Option<TerminalStatus>,
    pub rule: Option<RuleName>,
    pub reason: Option<String>,
    pub run: String,
    pub branch: Option<String>,
    pub repository: String,
    pub iterations: usize,
    pub next_model: Option<String>,
}

/// `errors.json` of a failure-context iteration: its test evidence.
#[derive(Debug, Clone, Serialize)]
pub struct IterationErrors<'a> {
    pub schema: Schema,
    pub test: Option<&'a TestEvidence>,
}

/// `metrics.json` of a failure-context iteration.
#[derive(Debug, Clone, Serialize)]
pub struct IterationMetrics {
    pub schema: Schema,
    pub at: Option<Timestamp>,
    pub seconds_since_previous: Option<i64>,
    pub files: Option<usize>,
    pub lines_added: u64,
    pub lines_deleted: u64,
    pub run_tokens: u64,
    pub run_cost: f64,
    pub run_steps: u64,
}

impl IterationMetrics {
    /// The metrics of `it`, the iteration after one at `previous_at`.
    pub fn of(it: &Iteration, previous_at: Option<Timestamp>, usage: &RunUsage) -> Self {
        let (added, deleted) = it.lines_changed();
        IterationMetrics {
            schema: Schema,
            at: it.at,
            seconds_since_previous: previous_at
                .zip(it.at)
                .map(|(p, a)| a.duration_since(p).as_secs()),
            files: it.files.as_ref().map(Vec::len),
            lines_added: added,
            lines_deleted: deleted,
            run_tokens: usage.tokens,
            run_cost: usage.cost,
            run_steps: usage.steps,
        }
    }
}

/// `completion_signals.json` of a failure-context iteration: what made it claim done.
#[derive(Debug, Clone, Serialize)]
pub struct CompletionSignals<'a> {
    pub schema: Schema,
    /// Whether the iteration was one of the agent's attempts.
    pub attempt: bool,
    pub claims_done: bool,
    /// The parts of the message the completion patterns matched.
    pub matched: Vec<String>,
    pub backed_by_passing_tests: bool,
    pub subject: &'a str,
}

impl<'a> CompletionSignals<'a> {
    pub fn of(it: &'a Iteration, facts: Option<&Facts>, matched: Vec<String>) -> Self {
        CompletionSignals {
            schema: Schema,
            attempt: facts.is_some(),
            claims_done: facts.is_some_and(|f| f.claims_done),
            matched,
            backed_by_passing_tests: facts.is_some_and(|f| f.backed_by_pass),
            subject: it.subject(),
        }
    }
}
