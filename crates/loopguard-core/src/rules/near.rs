//! One step before a trip: the rules whose count is one short of their limit, each with
//! the reason it would give, so the agent can be told what is repeating while it can still
//! get out by itself (the session hooks' additional context, the git hooks' output).

use super::{Evaluation, Limit, RuleName, Usage, evaluate};
use crate::config::{Config, RuleAction};
use crate::iteration::Iteration;
use crate::rules::Facts;

/// A rule one step before it trips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearTrip {
    pub rule: RuleName,
    pub count: u64,
    pub threshold: u64,
    /// What the rule would say at this count (its own trip reason).
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
        let mut lowered = config.clone();
        if !lower(&mut lowered, rule) {
            continue;
        }
        let again = evaluate(&lowered, history, facts, baseline, usage);
        if let Some(f) = again.fired.iter().find(|f| f.rule == rule) {
            out.push(NearTrip {
                rule,
                count: counter.count,
                threshold,
                reason: f.reason.clone(),
            });
        }
    }
    out
}

/// Lowers `rule`'s limit by one, so that its count now reaches it; `false` when it has
/// no count limit to lower.
fn lower(c: &mut Config, rule: RuleName) -> bool {
    let down = |n: &mut u32| {
        *n = n.saturating_sub(1).max(1);
    };
    match rule {
        RuleName::Stagnation => down(&mut c.rules.stagnation.threshold),
        RuleName::SameError => {
            down(&mut c.rules.same_error.threshold);
            down(&mut c.session.identical_calls);
        }
        RuleName::RepeatedPatch => down(&mut c.rules.repeated_patch.threshold),
        RuleName::Oscillation => down(&mut c.rules.oscillation.threshold),
        RuleName::FalseCompletion => down(&mut c.rules.false_completion.threshold),
        RuleName::EdgeLoop => {
            down(&mut c.rules.edge_loop.threshold);
            c.rules.edge_loop.edges.values_mut().for_each(down);
        }
        RuleName::Budget => down(&mut c.rules.budget.max_iterations),
        RuleName::Constraint | RuleName::TestOnly => return false,
    }
    true
}
