//! A harness's transitions (`event --edge`): its edges, their counts and queries, and the
//! step each transition makes.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::config::Config;

use super::step::Arrival;
use super::{Outcome, Run};

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

impl Run {
    /// Restarts every edge's count (progress seen, resume, a new model).
    pub(super) fn reset_edges(&mut self) {
        for e in self.usage.edges.values_mut() {
            e.count = 0;
            e.queries.clear();
        }
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
}
