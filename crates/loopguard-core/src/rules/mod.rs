//! The rules: pure functions over the history, each giving a count against a threshold and
//! a one-line reason (DESIGN.md, "Rule semantics").
//!
//! Counting, precisely:
//! - Only attempts count (see [`crate::agents`]); context commits only add states.
//! - `baseline` is the history index where counting starts: set by `resume` and by a
//!   half-open breaker closing. Tree comparisons still look back over the whole window.
//! - `stagnation`: consecutive attempts at the end without progress.
//! - `same_error`: consecutive failing attempts with the latest signature; attempts
//!   without evidence neither extend nor break the streak.
//! - `oscillation`: returns to an earlier, non-adjacent tree among the last `window`
//!   attempts since the last progress (A->B->A->B counts 2; revert X, move on, revert Y
//!   counts 1 each time). A return that only walks further back right after another
//!   return (revert the last change, then the one before it) is unwinding, not flipping,
//!   and does not count.
//! - `repeated_patch`: patch ids equal to an earlier attempt's among the last `window`
//!   attempts since the last test improvement. A new tree does not reset it: re-applying
//!   an old patch on top of other work gives a new tree, and is exactly the loop to catch.
//! - `false_completion`: consecutive claiming attempts at the end whose latest evidence
//!   fails or is missing.
//! - `test_only`: test-only attempts among the last `window`, once there are
//!   `min_iterations` of them; the threshold is `ceil(ratio * attempts)`.
//! - `budget`: attempts in the whole run (not reset by `resume`).
//! - `constraint`: attempts since the baseline that touched a protected path, added a
//!   test skip or deleted a test file; trips at the first.

mod facts;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use facts::{Facts, attempts};

use crate::config::{Config, RuleAction};
use crate::iteration::{Iteration, Outcome};

/// The rule names of CONTRACT.md, in the order a trip reports them when several fire at
/// once (the most specific first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleName {
    Constraint,
    SameError,
    RepeatedPatch,
    Oscillation,
    FalseCompletion,
    Stagnation,
    EdgeLoop,
    TestOnly,
    Budget,
}

impl RuleName {
    pub const ALL: [RuleName; 9] = [
        RuleName::Constraint,
        RuleName::SameError,
        RuleName::RepeatedPatch,
        RuleName::Oscillation,
        RuleName::FalseCompletion,
        RuleName::Stagnation,
        RuleName::EdgeLoop,
        RuleName::TestOnly,
        RuleName::Budget,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RuleName::Stagnation => "stagnation",
            RuleName::SameError => "same_error",
            RuleName::Oscillation => "oscillation",
            RuleName::RepeatedPatch => "repeated_patch",
            RuleName::FalseCompletion => "false_completion",
            RuleName::TestOnly => "test_only",
            RuleName::Budget => "budget",
            RuleName::Constraint => "constraint",
            RuleName::EdgeLoop => "edge_loop",
        }
    }

    /// The configured action of this rule.
    pub fn action(self, config: &Config) -> RuleAction {
        let r = &config.rules;
        match self {
            RuleName::Stagnation => r.stagnation.action,
            RuleName::SameError => r.same_error.action,
            RuleName::Oscillation => r.oscillation.action,
            RuleName::RepeatedPatch => r.repeated_patch.action,
            RuleName::FalseCompletion => r.false_completion.action,
            RuleName::TestOnly => r.test_only.action,
            RuleName::Budget => r.budget.action,
            RuleName::Constraint => r.constraint.action,
            RuleName::EdgeLoop => r.edge_loop.action,
        }
    }
}

impl fmt::Display for RuleName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RuleName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RuleName::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown rule `{s}`"))
    }
}

/// A rule's count against its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    pub count: u64,
    pub threshold: u64,
}

impl Counter {
    pub fn reached(self) -> bool {
        self.count >= self.threshold
    }
}

/// A rule that reached its threshold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Firing {
    pub rule: RuleName,
    pub action: RuleAction,
    pub reason: String,
}

/// Everything the rules say about a history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evaluation {
    /// Every enabled rule's counter.
    pub counters: BTreeMap<RuleName, Counter>,
    /// Rules at their threshold, most specific first (`trip` and `warn` alike).
    pub fired: Vec<Firing>,
    /// The facts of the latest attempt, if any.
    pub last: Option<Facts>,
    /// Attempts in the history.
    pub attempts: usize,
}

impl Evaluation {
    /// The first rule that trips.
    pub fn trip(&self) -> Option<&Firing> {
        self.fired.iter().find(|f| f.action == RuleAction::Trip)
    }

    /// Rules that only warn.
    pub fn warnings(&self) -> impl Iterator<Item = &Firing> {
        self.fired.iter().filter(|f| f.action == RuleAction::Warn)
    }
}

/// What an agent harness reported (`event`): its usage, its steps, and the edge closest
/// to its threshold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub tokens: u64,
    pub cost: f64,
    /// Harness steps in the run (`event` calls).
    pub steps: u64,
    /// The edge whose count is closest to its threshold.
    pub edge: Option<EdgeCount>,
}

/// An edge's transitions since its last progress, against its threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeCount {
    pub name: String,
    pub count: u64,
    pub threshold: u64,
}

/// Evaluates every enabled rule over `history`, counting from `baseline`.
pub fn evaluate(config: &Config, history: &[Iteration], baseline: usize) -> Evaluation {
    evaluate_with(config, history, baseline, &Usage::default())
}

/// [`evaluate`], with the usage a harness reported.
pub fn evaluate_with(
    config: &Config,
    history: &[Iteration],
    baseline: usize,
    usage: &Usage,
) -> Evaluation {
    let all = attempts(config, history);
    evaluate_facts(config, history, &all, baseline, usage)
}

/// [`evaluate_with`] over facts computed beforehand: `all` must be `attempts(config, h)`
/// for a history `h` of which `history` is a prefix holding every attempt in `all`
/// (facts only depend on what came before them, so a replay computes them once).
pub fn evaluate_facts(
    config: &Config,
    history: &[Iteration],
    all: &[Facts],
    baseline: usize,
    usage: &Usage,
) -> Evaluation {
    let first = all.partition_point(|f| f.index < baseline);
    let since: Vec<&Facts> = all[first..].iter().collect();
    let window: Vec<&Facts> = {
        let w = config.window as usize;
        since[since.len().saturating_sub(w)..].to_vec()
    };
    let mut eval = Evaluation {
        last: all.last().cloned(),
        attempts: all.len(),
        ..Evaluation::default()
    };
    let ctx = Ctx { history };
    let r = &config.rules;

    let mut add = |rule: RuleName, counter: Counter, reason: &dyn Fn() -> String| {
        let action = rule.action(config);
        if action == RuleAction::Off {
            return;
        }
        eval.counters.insert(rule, counter);
        if counter.reached() && counter.count > 0 {
            eval.fired.push(Firing {
                rule,
                action,
                reason: reason(),
            });
        }
    };

    // constraint
    let violating: Vec<&&Facts> = since.iter().filter(|f| !f.violations.is_empty()).collect();
    add(
        RuleName::Constraint,
        Counter {
            count: violating.len() as u64,
            threshold: 1,
        },
        &|| {
            let f = violating[violating.len() - 1];
            format!("{} {}", ctx.label(f.index), f.violations.join("; "))
        },
    );

    // same_error
    let streak = same_error_streak(history, &since);
    add(
        RuleName::SameError,
        Counter {
            count: streak.len() as u64,
            threshold: r.same_error.threshold.into(),
        },
        &|| {
            let t = history[streak[0]]
                .test
                .as_ref()
                .expect("streak has evidence");
            format!(
                "the same failure ({}) in {} iterations in a row",
                describe_failure(t),
                streak.len()
            )
        },
    );

    // repeated_patch and oscillation: events after the last test improvement.
    let after_improvement: Vec<&&Facts> = {
        let start = window
            .iter()
            .rposition(|f| f.test_improved)
            .map_or(0, |p| p + 1);
        window[start..].iter().collect()
    };
    let repeats: Vec<(&Facts, &str)> = after_improvement
        .iter()
        .filter_map(|f| f.repeats.as_deref().map(|r| (**f, r)))
        .collect();
    add(
        RuleName::RepeatedPatch,
        Counter {
            count: repeats.len() as u64,
            threshold: r.repeated_patch.threshold.into(),
        },
        &|| {
            let list: Vec<String> = repeats
                .iter()
                .map(|(f, earlier)| format!("{} = {}", ctx.short(f.index), short(earlier)))
                .collect();
            format!(
                "the same patch was applied again {} times in the last {} iterations ({})",
                repeats.len(),
                window.len(),
                list.join(", ")
            )
        },
    );
    // Oscillation is about states: once the agent reaches a genuinely new one, earlier
    // returns are history (revert X, move on, revert Y is two experiments, not a flip).
    let after_progress: Vec<&&Facts> = {
        let start = window.iter().rposition(|f| f.progress).map_or(0, |p| p + 1);
        window[start..].iter().collect()
    };
    let returns: Vec<(&Facts, &str)> = after_progress
        .iter()
        .filter(|f| !f.unwinds)
        .filter_map(|f| f.returns_to.as_deref().map(|r| (**f, r)))
        .collect();
    add(
        RuleName::Oscillation,
        Counter {
            count: returns.len() as u64,
            threshold: r.oscillation.threshold.into(),
        },
        &|| {
            let list: Vec<String> = returns
                .iter()
                .map(|(f, earlier)| {
                    format!(
                        "{} back to the tree of {}",
                        ctx.short(f.index),
                        short(earlier)
                    )
                })
                .collect();
            format!(
                "the code returned to an earlier state {} times in the last {} iterations ({})",
                returns.len(),
                window.len(),
                list.join(", ")
            )
        },
    );

    // false_completion
    let claims = since
        .iter()
        .rev()
        .take_while(|f| f.claims_done && !f.backed_by_pass)
        .count();
    add(
        RuleName::FalseCompletion,
        Counter {
            count: claims as u64,
            threshold: r.false_completion.threshold.into(),
        },
        &|| {
            let last = since[since.len() - 1];
            let evidence = match last.latest_outcome {
                Some(Outcome::Fail) => "while the tests fail",
                _ => "without passing test evidence",
            };
            format!(
                "{claims} iterations in a row claim completion {evidence} (last: {})",
                ctx.label(last.index)
            )
        },
    );

    // stagnation
    let stuck: Vec<&&Facts> = since.iter().rev().take_while(|f| !f.progress).collect();
    add(
        RuleName::Stagnation,
        Counter {
            count: stuck.len() as u64,
            threshold: r.stagnation.threshold.into(),
        },
        &|| {
            let kinds = stagnation_kinds(&stuck);
            format!(
                "no progress in {} iterations in a row ({kinds}; last: {})",
                stuck.len(),
                ctx.label(stuck[0].index)
            )
        },
    );

    // test_only
    let n = window.len() as u64;
    let k = window.iter().filter(|f| f.test_only).count() as u64;
    let min = u64::from(r.test_only.min_iterations);
    let threshold = ((r.test_only.ratio * n.max(min) as f64).ceil() as u64).max(1);
    let counter = Counter {
        count: if n >= min { k } else { 0 },
        threshold,
    };
    add(RuleName::TestOnly, counter, &|| {
        format!("{k} of the last {n} iterations only changed tests, not the code under test")
    });

    // budget
    let total = all.len() as u64;
    let budget = &r.budget;
    let mut budget_counter = Counter {
        count: total,
        threshold: budget.max_iterations.into(),
    };
    let mut budget_reason = format!(
        "{total} iterations reached the budget of {}",
        budget.max_iterations
    );
    if let Some(max) = budget.max_tokens
        && usage.tokens >= max
        && !budget_counter.reached()
    {
        budget_counter = Counter {
            count: usage.tokens,
            threshold: max,
        };
        budget_reason = format!("{} tokens reached the budget of {max}", usage.tokens);
    }
    if let Some(max) = budget.max_cost
        && usage.cost >= max
        && !budget_counter.reached()
    {
        budget_counter.count = budget_counter.threshold;
        budget_reason = format!("a cost of {:.2} reached the budget of {max:.2}", usage.cost);
    }
    add(RuleName::Budget, budget_counter, &|| budget_reason.clone());

    // edge_loop: the edge nearest its threshold, or the global step budget.
    let edge_rule = &r.edge_loop;
    let steps = Counter {
        count: usage.steps,
        threshold: edge_rule.max_steps.into(),
    };
    let (counter, reason) = match &usage.edge {
        _ if steps.reached() => (
            steps,
            format!(
                "the harness took {} steps, its step budget (rules.edge_loop.max_steps); stopping before the framework's recursion limit",
                usage.steps
            ),
        ),
        Some(e) => (
            Counter {
                count: e.count,
                threshold: e.threshold,
            },
            format!(
                "the harness took the edge {} {} times without progress",
                e.name, e.count
            ),
        ),
        None => (
            Counter {
                count: 0,
                threshold: edge_rule.threshold.into(),
            },
            String::new(),
        ),
    };
    add(RuleName::EdgeLoop, counter, &|| reason.clone());

    eval
}

/// History indexes of the current same-failure streak, newest first.
fn same_error_streak(history: &[Iteration], since: &[&Facts]) -> Vec<usize> {
    let mut streak = Vec::new();
    let mut signature: Option<&str> = None;
    for f in since.iter().rev() {
        let Some(t) = &history[f.index].test else {
            continue;
        };
        let (Outcome::Fail, Some(sig)) = (t.outcome, t.signature.as_deref()) else {
            break;
        };
        match signature {
            None => signature = Some(sig),
            Some(s) if s != sig => break,
            Some(_) => {}
        }
        streak.push(f.index);
    }
    streak
}

fn describe_failure(t: &crate::iteration::TestEvidence) -> String {
    let mut parts = Vec::new();
    if let Some(runner) = &t.runner {
        parts.push(format!("{runner}:"));
    }
    if let Some(first) = t.failures.as_ref().and_then(|f| f.first()) {
        parts.push(format!("{first},"));
    }
    match &t.first_error {
        Some(e) => parts.push(e.clone()),
        None => parts.push(format!(
            "signature {}",
            t.signature
                .as_deref()
                .map_or("?", |s| &s[..s.len().min(12)])
        )),
    }
    let text = parts.join(" ");
    text.trim_end_matches(',').to_owned()
}

fn stagnation_kinds(stuck: &[&&Facts]) -> String {
    let empty = stuck.iter().filter(|f| f.empty).count();
    let returns = stuck
        .iter()
        .filter(|f| !f.empty && f.returns_to.is_some())
        .count();
    let ws = stuck.iter().filter(|f| f.whitespace_only).count();
    let other = stuck.len() - empty - returns - ws;
    let mut parts = Vec::new();
    for (n, what) in [
        (empty, "empty"),
        (returns, "back to an earlier tree"),
        (ws, "whitespace only"),
        (other, "unchanged tree or tests"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    parts.join(", ")
}

fn short(id: &str) -> &str {
    let end = id.char_indices().nth(7).map_or(id.len(), |(i, _)| i);
    &id[..end]
}

struct Ctx<'a> {
    history: &'a [Iteration],
}

impl Ctx<'_> {
    fn short(&self, index: usize) -> &str {
        short(&self.history[index].id)
    }

    /// `abc1234 "subject"`, the subject bounded.
    fn label(&self, index: usize) -> String {
        let it = &self.history[index];
        let subject: String = it.subject().chars().take(60).collect();
        if subject.is_empty() {
            self.short(index).to_owned()
        } else {
            format!("{} \"{subject}\"", self.short(index))
        }
    }
}
