//! What the rules need of the attempts a run no longer keeps.
//!
//! A coding agent's session records one iteration per tool call, and its hooks must cost
//! the same after 1,000 calls as after 10: its run keeps only its latest iterations (the
//! `window` the facts of a new one are computed against, see [`crate::run::Run::compact`])
//! and sums up the ones it drops here, in running counts. Every rule that looks further
//! back than the window reads them, so dropping changes no count, reason or verdict:
//!
//! - `budget`: how many attempts were dropped, and when the first was made;
//! - of the dropped attempts since the breaker's baseline (a person's turn, a resume):
//!   `constraint`'s violations, `stagnation`'s attempts in a row without progress at their
//!   end, `same_error`'s streak of the same failure at their end, and each agent's calls
//!   (the same call repeated counts from the baseline).
//!
//! `false_completion` and `test_only` look no further than the window in a session (they
//! are off there, see [`crate::config::Config::for_sessions`]).

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::Facts;
use crate::iteration::{Iteration, TestEvidence};

/// The attempts a run dropped, summed up.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Earlier {
    /// Attempts dropped.
    #[serde(default)]
    pub attempts: u64,
    /// When the first attempt of the run was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_at: Option<Timestamp>,
    /// Of the dropped attempts, those since the breaker's baseline; empty while the
    /// baseline is among the attempts kept (only those count then).
    #[serde(default)]
    pub since: Since,
}

/// The dropped attempts since the baseline, as the rules that count from it need them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Since {
    /// Attempts that broke a constraint (`constraint`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub violations: u64,
    /// The newest of them, as `constraint` words it (`c12 "Edit: x" touched …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_violation: Option<String>,
    /// The attempts in a row without progress at the end (`stagnation`).
    #[serde(default)]
    pub stuck: Stuck,
    /// The streak of one failure at the end (`same_error`); `None` when their newest test
    /// run passed, failed without a signature, or there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streak: Option<Streak>,
    /// The calls of each agent (`""`: the main agent), for the same call repeated.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub calls: BTreeMap<String, u64>,
}

/// Attempts in a row without progress, and what they were.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stuck {
    #[serde(default)]
    pub count: u64,
    #[serde(default)]
    pub empty: u64,
    /// Back to an earlier tree (not empty).
    #[serde(default)]
    pub returns: u64,
    #[serde(default)]
    pub whitespace: u64,
    /// Submodule bumps that change nothing of their own.
    #[serde(default)]
    pub bumps: u64,
}

/// Test runs in a row that failed the same way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Streak {
    /// The newest of them (its signature is the streak's).
    pub newest: TestEvidence,
    pub runs: u64,
    /// The attempts they were runs of.
    pub attempts: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The agent of a call, as [`Since::calls`] keys it.
pub(super) fn agent_key(agent: Option<&str>) -> &str {
    agent.unwrap_or("")
}

impl Earlier {
    /// Sums up `it`, the oldest attempt kept so far, with its facts `f`, as it is dropped;
    /// `since` says whether it came at or after the breaker's baseline. `label` is how the
    /// rules name it (`c12 "Edit: x"`).
    pub fn fold(&mut self, it: &Iteration, f: &Facts, since: bool, label: &str) {
        if self.attempts == 0 && self.first_at.is_none() {
            self.first_at = it.at;
        }
        self.attempts += 1;
        if since {
            self.since.fold(it, f, label);
        }
    }
}

impl Since {
    fn fold(&mut self, it: &Iteration, f: &Facts, label: &str) {
        if !f.violations.is_empty() {
            self.violations += 1;
            self.last_violation = Some(format!("{label} {}", f.violations.join("; ")));
        }
        if f.progress {
            self.stuck = Stuck::default();
        } else if f.stalls() {
            let returns = !f.empty && f.returns_to.is_some();
            self.stuck.count += 1;
            self.stuck.empty += u64::from(f.empty);
            self.stuck.returns += u64::from(returns);
            self.stuck.whitespace += u64::from(f.whitespace_only);
            self.stuck.bumps += u64::from(super::stagnation::only_a_bump(f));
        }
        // Oldest first, the order the streak grows in (`test_runs` is newest first).
        let runs: Vec<&TestEvidence> = it.test_runs().collect();
        let mut counted = false;
        for t in runs.into_iter().rev() {
            self.streak = match (t.fails(), &t.signature, self.streak.take()) {
                (true, Some(sig), Some(mut s)) if s.newest.signature.as_ref() == Some(sig) => {
                    s.runs += 1;
                    s.attempts += u64::from(!counted);
                    s.newest = t.clone();
                    Some(s)
                }
                (true, Some(_), _) => Some(Streak {
                    newest: t.clone(),
                    runs: 1,
                    attempts: 1,
                }),
                _ => None,
            };
            counted = true;
        }
        if let Some(call) = &it.call {
            *self
                .calls
                .entry(agent_key(call.agent.as_deref()).to_owned())
                .or_default() += 1;
        }
    }
}
