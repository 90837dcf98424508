//! The settings shared by the rules that trip at a count (`stagnation`, `same_error`,
//! `oscillation`, `repeated_patch`): `threshold` and `action`.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::RuleSettings;
use crate::config::{RuleAction, positive};
use crate::error::ConfigError;

/// A rule with a count threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountRule {
    pub action: RuleAction,
    pub threshold: u32,
}

impl CountRule {
    /// Trips at `threshold`.
    pub(crate) fn trip_at(threshold: u32) -> CountRule {
        CountRule {
            action: RuleAction::Trip,
            threshold,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCountRule {
    threshold: Option<Spanned<u32>>,
    action: Option<RuleAction>,
}

impl RuleSettings for CountRule {
    type Raw = RawCountRule;

    fn action(&self) -> RuleAction {
        self.action
    }

    fn set_action(&mut self, action: RuleAction) {
        self.action = action;
    }

    fn resolve(&self, raw: RawCountRule, name: &str, path: &Path) -> Result<Self, ConfigError> {
        Ok(CountRule {
            action: raw.action.unwrap_or(self.action),
            threshold: positive(
                path,
                &format!("rules.{name}.threshold"),
                &raw.threshold,
                self.threshold,
            )?,
        })
    }
}
