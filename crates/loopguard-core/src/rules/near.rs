//! One step before a trip: the rules whose count is one short of their limit, each with
//! what its descriptor says then ([`super::Warns`]): what is repeating, or how much is
//! spent, so the agent can be told while it can still get out by itself. How the warning
//! is worded on each surface (the git hooks, `run`, a session, CI) is
//! [`crate::report::next`]'s.

use super::{Evaluation, Limit, RuleName, Usage, Warns, evaluate};
use crate::config::{Config, RuleAction};
use crate::iteration::Iteration;
use crate::rules::Facts;

/// A rule one step before it trips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearTrip {
    pub rule: RuleName,
    pub count: u64,
    pub threshold: u64,
    /// What is coming, in the rule's words: its own trip reason at this count (what
    /// repeats), or the count against its limit (what is spent).
    pub reason: String,
}

/// The rules with `action: trip` whose count is one short of their limit (a limit of 1,
/// `constraint`, has no step before it), given `eval` of the same history.
pub fn near_trips(
    config: &Config,
    history: &[Iteration],
    facts: &[Facts],
    baseline: usize,
    usage: &Usage,
    eval: &Evaluation,
) -> Vec<NearTrip> {
    let mut out = Vec::new();
    for (&rule, counter) in &eval.counters {
        let Limit::AtLeast(threshold) = counter.limit else {
            continue;
        };
        if rule.action(config) != RuleAction::Trip
            || threshold < 2
            || counter.count + 1 != threshold
        {
            continue;
        }
        let reason = match rule.descriptor().warns {
            Warns::Never => continue,
            Warns::Spends { spent } => spent(config.unit.count(counter.count), threshold),
            Warns::Repeats { nearer } => {
                let mut lowered = config.clone();
                nearer(&mut lowered);
                let again = evaluate(&lowered, history, facts, baseline, usage);
                match again.fired.iter().find(|f| f.rule == rule) {
                    Some(f) => f.reason.clone(),
                    None => continue,
                }
            }
        };
        out.push(NearTrip {
            rule,
            count: counter.count,
            threshold,
            reason,
        });
    }
    out
}
