//! `edge_loop`: for agent harnesses that report graph transitions (`event --edge`): the
//! edge nearest its threshold (transitions since its last progress), or the run's step
//! budget (`rules.edge_loop.max_steps`) once reached.

use super::{Count, Counter, Window};
use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Descriptor, Involves, LoopingFailure, Recovery, RuleSettings, Warns};
use crate::breaker::TerminalStatus;
use crate::config::{
    BoundedMap, MAX_LIST_ENTRIES, MAX_NAME_BYTES, Profile, RuleAction, at, positive,
};
use crate::error::ConfigError;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "edge_loop",
    counts: "harness transitions of one edge without progress",
    recovery: Recovery::HarnessProgress,
    escalates: true,
    terminal: TerminalStatus::AbortedStuck,
    looping_failure: LoopingFailure::None,
    warns: Warns::Repeats { nearer },
    involves: Involves::Latest,
    count,
};

/// One step nearer: every edge's limit one lower.
fn nearer(c: &mut crate::config::Config) {
    let rule = &mut c.rules.edge_loop;
    super::one_lower(&mut rule.threshold);
    rule.edges.values_mut().for_each(super::one_lower);
}

#[derive(Debug, Clone, PartialEq)]
pub struct EdgeLoopRule {
    pub action: RuleAction,
    pub threshold: u32,
    pub edges: BTreeMap<String, u32>,
    /// Global step budget for agent harnesses: the run ends `aborted_stuck` at this many
    /// steps, below any framework recursion limit.
    pub max_steps: u32,
}

impl EdgeLoopRule {
    pub fn threshold_for(&self, edge: &str) -> u32 {
        self.edges.get(edge).copied().unwrap_or(self.threshold)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raw {
    threshold: Option<Spanned<u32>>,
    edges: Option<BoundedMap<Spanned<u32>, MAX_LIST_ENTRIES>>,
    max_steps: Option<Spanned<u32>>,
    action: Option<RuleAction>,
}

/// `threshold`, the verifier edge's threshold and `max_steps` by profile.
pub(crate) fn defaults(profile: Profile) -> EdgeLoopRule {
    let (threshold, verifier, max_steps) = match profile {
        Profile::Strict => (8, 5, 200),
        Profile::Balanced => (5, 3, 100),
        Profile::Yolo => (3, 2, 50),
    };
    EdgeLoopRule {
        action: RuleAction::Trip,
        threshold,
        edges: BTreeMap::from([("planner_to_verifier".to_owned(), verifier)]),
        max_steps,
    }
}

impl RuleSettings for EdgeLoopRule {
    type Raw = Raw;

    fn action(&self) -> RuleAction {
        self.action
    }

    fn set_action(&mut self, action: RuleAction) {
        self.action = action;
    }

    fn resolve(&self, raw: Raw, name: &str, path: &Path) -> Result<Self, ConfigError> {
        let mut edges = self.edges.clone();
        if let Some(BoundedMap(raw_edges)) = raw.edges {
            for (edge, v) in raw_edges {
                if edge.len() > MAX_NAME_BYTES {
                    return Err(at(
                        path,
                        &format!("rules.{name}.edges"),
                        &v,
                        format!(
                            "an edge name is {} bytes, more than the {MAX_NAME_BYTES} loopguard reads",
                            edge.len()
                        ),
                    )
                    .with_hint("name edges `from_to`, e.g. planner_to_verifier"));
                }
                let key = format!("rules.{name}.edges.{edge}");
                edges.insert(edge, positive(path, &key, &Some(v), 1)?);
            }
        }
        Ok(EdgeLoopRule {
            action: raw.action.unwrap_or(self.action),
            threshold: positive(
                path,
                &format!("rules.{name}.threshold"),
                &raw.threshold,
                self.threshold,
            )?,
            edges,
            max_steps: positive(
                path,
                &format!("rules.{name}.max_steps"),
                &raw.max_steps,
                self.max_steps,
            )?,
        })
    }
}

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
                "the harness took the edge {} {} without progress",
                e.name,
                crate::config::times(e.count)
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
