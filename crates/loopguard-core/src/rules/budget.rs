//! `budget`: attempts in the whole run reach `max_iterations` (never reset by a resume or
//! a new model); also the tokens and cost a harness reported, when those budgets are set.

use super::{Count, Counter, Window};

pub(super) fn count(w: &Window<'_>) -> Count {
    let budget = &w.config.rules.budget;
    let usage = w.usage;
    let total = w.all.len() as u64;
    let iterations = Counter::at_least(total, budget.max_iterations.into());
    if iterations.reached() {
        return Count::new(iterations, || {
            format!(
                "{total} iterations reached the budget of {}",
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
    Count::new(iterations, String::new)
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
