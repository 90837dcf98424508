//! `edge_loop`: for agent harnesses that report graph transitions (`event --edge`): the
//! edge nearest its threshold (transitions since its last progress), or the run's step
//! budget (`rules.edge_loop.max_steps`) once reached.

use super::{Count, Counter, Window};

pub(super) fn count(w: &Window<'_>) -> Count {
    let rule = &w.config.rules.edge_loop;
    let usage = w.usage;
    let steps = Counter::at_least(usage.steps, rule.max_steps.into());
    if steps.reached() {
        return Count::new(steps, || {
            format!(
                "the harness took {} steps, its step budget (rules.edge_loop.max_steps); stopping before the framework's recursion limit",
                usage.steps
            )
        });
    }
    match &usage.edge {
        Some(e) => Count::new(Counter::at_least(e.count, e.threshold), || {
            format!(
                "the harness took the edge {} {} times without progress",
                e.name, e.count
            )
        }),
        None => Count::new(Counter::at_least(0, rule.threshold.into()), String::new),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::rules::{EdgeCount, RuleName::EdgeLoop, Usage, evaluate};

    #[test]
    fn the_edge_nearest_its_threshold_or_the_step_budget() {
        let c = Config::default();
        let usage = |count, steps| Usage {
            steps,
            edge: Some(EdgeCount {
                name: "planner_to_verifier".into(),
                count,
                threshold: 3,
            }),
            ..Usage::default()
        };
        let e = evaluate(&c, &[], &[], 0, &usage(3, 3));
        assert_eq!(
            e.trip().unwrap().reason,
            "the harness took the edge planner_to_verifier 3 times without progress"
        );
        let e = evaluate(&c, &[], &[], 0, &usage(1, 100));
        assert!(
            e.trip()
                .unwrap()
                .reason
                .starts_with("the harness took 100 steps")
        );
        assert_eq!(e.counters[&EdgeLoop].count, 100);
        assert_eq!(
            evaluate(&c, &[], &[], 0, &Usage::default()).counters[&EdgeLoop].count,
            0
        );
    }
}
