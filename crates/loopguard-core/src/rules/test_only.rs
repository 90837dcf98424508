//! `test_only`: the share of the last `window` attempts since the baseline that only
//! touched test paths, once there are `min_iterations` of them (an agent editing tests
//! instead of code). Warns by default.

use super::{Count, Counter, Limit, Window};
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Descriptor, Involves, LoopingFailure, Recovery, RuleSettings, Warns};
use crate::breaker::TerminalStatus;
use crate::config::{Profile, RuleAction, at, positive};
use crate::error::ConfigError;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "test_only",
    counts: "share of the window's attempts that only touched tests",
    recovery: Recovery::NewCode,
    escalates: true,
    terminal: TerminalStatus::AbortedStuck,
    looping_failure: LoopingFailure::None,
    warns: Warns::Never,
    involves: Involves::Latest,
    count,
};

#[derive(Debug, Clone, PartialEq)]
pub struct TestOnlyRule {
    pub action: RuleAction,
    pub ratio: f64,
    pub min_iterations: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raw {
    ratio: Option<Spanned<f64>>,
    min_iterations: Option<Spanned<u32>>,
    action: Option<RuleAction>,
}

/// Warns by default.
pub(crate) fn defaults(profile: Profile) -> TestOnlyRule {
    let (ratio, min_iterations) = match profile {
        Profile::Strict => (0.5, 5),
        Profile::Balanced | Profile::Yolo => (0.3, 3),
    };
    TestOnlyRule {
        action: RuleAction::Warn,
        ratio,
        min_iterations,
    }
}

impl RuleSettings for TestOnlyRule {
    type Raw = Raw;

    fn action(&self) -> RuleAction {
        self.action
    }

    fn set_action(&mut self, action: RuleAction) {
        self.action = action;
    }

    fn resolve(&self, raw: Raw, name: &str, path: &Path) -> Result<Self, ConfigError> {
        if let Some(ratio) = &raw.ratio
            && !(ratio.value > 0.0 && ratio.value <= 1.0)
        {
            return Err(at(
                path,
                &format!("rules.{name}.ratio"),
                ratio,
                "must be a number in (0, 1], e.g. 0.3",
            ));
        }
        Ok(TestOnlyRule {
            action: raw.action.unwrap_or(self.action),
            ratio: raw.ratio.map_or(self.ratio, |r| r.value),
            min_iterations: positive(
                path,
                &format!("rules.{name}.min_iterations"),
                &raw.min_iterations,
                self.min_iterations,
            )?,
        })
    }
}

pub(super) fn count(w: &Window<'_>) -> Count {
    let rule = &w.config.rules.test_only;
    let n = w.recent.len() as u64;
    let k = w.recent.iter().filter(|f| f.test_only).count() as u64;
    let counter = Counter::of(
        k,
        Limit::Share {
            ratio: rule.ratio,
            of: n,
            min: rule.min_iterations.into(),
        },
    );
    Count::new(counter, || {
        format!(
            "{k} of the last {} only changed tests, not the code under test",
            w.attempts(n as usize)
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, RuleAction};
    use crate::rules::RuleName::TestOnly;
    use crate::rules::{Counter, Limit};
    use crate::testing::History;

    #[test]
    fn warns_by_default_and_shows_a_share() {
        let h = History::new()
            .fresh()
            .files(&["tests/a.rs"])
            .fresh()
            .files(&["src/a.rs"])
            .fresh()
            .files(&["tests/b.rs"]);
        let e = h.eval();
        assert_eq!(e.trip(), None);
        assert_eq!(e.warnings().map(|f| f.rule).collect::<Vec<_>>(), [TestOnly]);
        let c = e.counters[&TestOnly];
        assert_eq!(
            c,
            Counter::of(
                2,
                Limit::Share {
                    ratio: 0.3,
                    of: 3,
                    min: 3
                }
            )
        );
        assert_eq!(c.describe(), "2 of 3 (30% once 3)");
        let mut config = Config::default();
        config.rules.test_only.action = RuleAction::Trip;
        assert_eq!(h.eval_with(&config).trip().map(|f| f.rule), Some(TestOnly));
    }

    #[test]
    fn the_limit_does_not_move_as_attempts_grow() {
        let mut h = History::new();
        for _ in 0..6 {
            h = h.fresh();
            let c = h.eval().counters[&TestOnly];
            let Limit::Share { ratio, min, .. } = c.limit else {
                panic!("a share")
            };
            assert_eq!((c.count, ratio, min), (0, 0.3, 3));
            assert!(!c.reached());
        }
        // Below the minimum, nothing fires even at 100%.
        assert!(
            !History::new()
                .fresh()
                .files(&["tests/a.rs"])
                .eval()
                .counters[&TestOnly]
                .reached()
        );
    }
}
