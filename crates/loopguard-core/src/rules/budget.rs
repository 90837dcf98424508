//! `budget`: attempts in the whole run reach `max_iterations` (never reset by a resume or
//! a new model); also the tokens and cost a harness reported, when those budgets are set.

use super::{Count, Counter, Window};
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Descriptor, Involves, LoopingFailure, Recovery, RuleSettings, Warns};
use crate::breaker::TerminalStatus;
use crate::config::{MAX_BUDGET_ITERATIONS, Profile, RuleAction, at, positive};
use crate::error::ConfigError;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "budget",
    counts: "attempts in the whole run",
    recovery: Recovery::Person,
    escalates: false,
    terminal: TerminalStatus::AbortedStuck,
    looping_failure: LoopingFailure::None,
    warns: Warns::Spends {
        spent: |n, max| format!("{n} of the budget of {max} spent"),
    },
    involves: Involves::Latest,
    count,
};

#[derive(Debug, Clone, PartialEq)]
pub struct BudgetRule {
    pub action: RuleAction,
    pub max_iterations: u32,
    pub max_tokens: Option<u64>,
    pub max_cost: Option<f64>,
    /// Wall time from the first attempt to the latest (a session's `max_duration`; not a
    /// key of `rules.budget`).
    pub max_duration: Option<jiff::SignedDuration>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raw {
    max_iterations: Option<Spanned<u32>>,
    max_tokens: Option<u64>,
    max_cost: Option<Spanned<f64>>,
    action: Option<RuleAction>,
}

pub(crate) fn defaults(profile: Profile) -> BudgetRule {
    BudgetRule {
        action: RuleAction::Trip,
        max_iterations: match profile {
            Profile::Strict => 100,
            Profile::Balanced => 50,
            Profile::Yolo => 25,
        },
        max_tokens: None,
        max_cost: None,
        max_duration: None,
    }
}

impl RuleSettings for BudgetRule {
    type Raw = Raw;

    fn action(&self) -> RuleAction {
        self.action
    }

    fn set_action(&mut self, action: RuleAction) {
        self.action = action;
    }

    fn resolve(&self, raw: Raw, name: &str, path: &Path) -> Result<Self, ConfigError> {
        if let Some(cost) = &raw.max_cost
            && !(cost.value > 0.0 && cost.value.is_finite())
        {
            return Err(at(
                path,
                &format!("rules.{name}.max_cost"),
                cost,
                "must be a positive number",
            ));
        }
        let key = format!("rules.{name}.max_iterations");
        if let Some(n) = &raw.max_iterations
            && n.value > MAX_BUDGET_ITERATIONS
        {
            return Err(at(
                path,
                &key,
                n,
                format!("must be at most {MAX_BUDGET_ITERATIONS}"),
            ));
        }
        Ok(BudgetRule {
            action: raw.action.unwrap_or(self.action),
            max_iterations: positive(path, &key, &raw.max_iterations, self.max_iterations)?,
            max_tokens: raw.max_tokens,
            max_cost: raw.max_cost.map(|c| c.value),
            max_duration: self.max_duration,
        })
    }
}

pub(super) fn count(w: &Window<'_>) -> Count {
    let budget = &w.config.rules.budget;
    let usage = w.usage;
    let total = w.all.len() as u64 + usage.earlier.attempts;
    let iterations = Counter::at_least(total, budget.max_iterations.into());
    if iterations.reached() {
        return Count::new(iterations, || {
            format!(
                "{} reached the budget of {}",
                w.attempts(total as usize),
                budget.max_iterations
            )
        });
    }
    if let Some(max) = budget.max_tokens
        && usage.tokens >= max
    {
        return Count::new(Counter::at_least(usage.tokens, max), || {
            format!("{} tokens reached the budget of {max}", usage.tokens)
        });
    }
    if let Some(max) = budget.max_cost
        && usage.cost >= max
    {
        let full = Counter::at_least(iterations.count.max(1), iterations.count.max(1));
        return Count::new(full, || {
            format!("a cost of {:.2} reached the budget of {max:.2}", usage.cost)
        });
    }
    if let Some(max) = budget.max_duration
        && let Some(spent) = wall_time(w)
        && spent >= max
    {
        let full = Counter::at_least(iterations.count.max(1), iterations.count.max(1));
        return Count::new(full, || {
            format!(
                "{} of work reached the budget of {}",
                crate::config::format_duration(spent),
                crate::config::format_duration(max)
            )
        });
    }
    Count::new(iterations, String::new)
}

/// The time from the first attempt to the latest, when both are known.
fn wall_time(w: &Window<'_>) -> Option<jiff::SignedDuration> {
    let first = if w.usage.earlier.attempts > 0 {
        w.usage.earlier.first_at?
    } else {
        w.history[w.all.first()?.index].at?
    };
    let last = w.history[w.all.last()?.index].at?;
    Some(last.duration_since(first))
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::rules::RuleName::{Budget, Stagnation};
    use crate::testing::History;

    #[test]
    fn trips_at_max_iterations_and_ignores_the_baseline() {
        let mut c = Config::default();
        c.rules.budget.max_iterations = 5;
        let mut h = History::new();
        for _ in 0..5 {
            h = h.fresh();
        }
        assert_eq!(h.first_trip_with(&c), Some((5, Budget)));
        let stuck = History::new().fresh().empty().empty().empty().empty();
        let fired: Vec<_> = stuck.eval_with(&c).fired.iter().map(|f| f.rule).collect();
        assert_eq!(fired, [Stagnation, Budget]);
        let e = stuck.eval_from(&c, 4);
        assert_eq!(
            (e.counters[&Stagnation].count, e.counters[&Budget].count),
            (1, 5)
        );
    }
}
