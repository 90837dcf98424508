//! `false_completion`: consecutive attempts at the end that claim completion (a message
//! matching `completion_patterns`) while the latest test evidence fails. Missing evidence
//! counts only where evidence is expected: the run has recorded test evidence before, or
//! `rules.false_completion.require_evidence` is set. With no evidence at all the rule says
//! it cannot judge instead of counting.

use super::{Count, Counter, Facts, Window};
use crate::iteration::Outcome;
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Descriptor, Involves, LoopingFailure, Recovery, RuleSettings, Warns};
use crate::breaker::TerminalStatus;
use crate::config::{Profile, RuleAction, positive};
use crate::error::ConfigError;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "false_completion",
    counts: "claims of completion in a row while the tests fail",
    recovery: Recovery::TestsChange,
    escalates: true,
    terminal: TerminalStatus::AbortedStuck,
    looping_failure: LoopingFailure::NewestFailing,
    warns: Warns::Repeats { nearer },
    involves: Involves::Latest,
    count,
};

/// One step nearer: the limit one lower.
fn nearer(c: &mut crate::config::Config) {
    super::one_lower(&mut c.rules.false_completion.threshold);
}

/// `false_completion`: a count threshold, and whether missing evidence counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FalseCompletionRule {
    pub action: RuleAction,
    pub threshold: u32,
    /// Count claims without any test evidence as unbacked even when the run never
    /// recorded evidence.
    pub require_evidence: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raw {
    threshold: Option<Spanned<u32>>,
    require_evidence: Option<bool>,
    action: Option<RuleAction>,
}

pub(crate) fn defaults(profile: Profile) -> FalseCompletionRule {
    FalseCompletionRule {
        action: RuleAction::Trip,
        threshold: match profile {
            Profile::Strict => 3,
            Profile::Balanced => 2,
            Profile::Yolo => 1,
        },
        require_evidence: false,
    }
}

impl RuleSettings for FalseCompletionRule {
    type Raw = Raw;

    fn action(&self) -> RuleAction {
        self.action
    }

    fn set_action(&mut self, action: RuleAction) {
        self.action = action;
    }

    fn resolve(&self, raw: Raw, name: &str, path: &Path) -> Result<Self, ConfigError> {
        Ok(FalseCompletionRule {
            action: raw.action.unwrap_or(self.action),
            threshold: positive(
                path,
                &format!("rules.{name}.threshold"),
                &raw.threshold,
                self.threshold,
            )?,
            require_evidence: raw.require_evidence.unwrap_or(self.require_evidence),
        })
    }
}

pub(super) fn count(w: &Window<'_>) -> Count {
    let require = w.config.rules.false_completion.require_evidence;
    let unbacked = |f: &&Facts| match f.latest_outcome {
        Some(Outcome::Fail) => true,
        Some(Outcome::Pass) => false,
        None => require || f.evidence_seen,
    };
    let claims = w
        .since
        .iter()
        .rev()
        .take_while(|f| f.claims_done && unbacked(f))
        .count();
    let threshold = w.config.rules.false_completion.threshold.into();
    let blind = !require
        && w.since.iter().any(|f| f.claims_done)
        && !w.all.last().is_some_and(|f| f.evidence_seen);
    let note = blind.then(|| {
        "cannot judge: completion is claimed, but the run has no test evidence (record it with `loopguard run` or `ingest`, or set rules.false_completion.require_evidence)".to_owned()
    });
    Count::new(Counter::at_least(claims as u64, threshold), || {
        let last = &w.since[w.since.len() - 1];
        let evidence = match last.latest_outcome {
            Some(Outcome::Fail) => "while the tests fail",
            _ => "without passing test evidence",
        };
        let claimed = w.attempts(claims);
        let claim = if claimed.is_one() {
            format!("{claimed} claims completion")
        } else {
            format!("{claimed} in a row claim completion")
        };
        format!("{claim} {evidence} (last: {})", w.label(last.index))
    })
    .with_note(note)
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleName::FalseCompletion;
    use crate::testing::History;

    #[test]
    fn claims_while_the_tests_fail_trip() {
        let h = History::new()
            .fresh()
            .fail("a1", 1)
            .fresh()
            .msg("fixed")
            .fresh()
            .msg("Completed");
        let e = h.eval();
        assert_eq!(e.trip().map(|f| f.rule), Some(FalseCompletion));
        assert!(
            e.fired[0]
                .reason
                .contains("2 iterations in a row claim completion while the tests fail"),
            "{}",
            e.fired[0].reason
        );
    }

    #[test]
    fn claims_without_any_evidence_cannot_be_judged() {
        let h = History::new()
            .fresh()
            .msg("Done, everything works")
            .fresh()
            .msg("All tests pass now");
        let e = h.eval();
        assert_eq!(h.count(FalseCompletion), 0);
        assert_eq!(e.trip(), None);
        assert!(
            e.notes
                .iter()
                .any(|(r, n)| *r == FalseCompletion && n.starts_with("cannot judge")),
            "{:?}",
            e.notes
        );
        // Unless evidence is required.
        let mut c = crate::config::Config::default();
        c.rules.false_completion.require_evidence = true;
        assert_eq!(h.first_trip_with(&c), Some((2, FalseCompletion)));
        assert!(
            h.eval_with(&c).fired[0]
                .reason
                .contains("without passing test evidence")
        );
    }

    #[test]
    fn once_evidence_was_recorded_missing_evidence_counts() {
        let h = History::new()
            .fresh()
            .pass()
            .fresh()
            .msg("done")
            .fresh()
            .msg("done, really");
        // The latest evidence passes: the claims are backed.
        assert_eq!(h.count(FalseCompletion), 0);
        let h = History::new()
            .fresh()
            .fail("a1", 1)
            .fresh()
            .pass()
            .fresh()
            .fail("b1", 2)
            .fresh()
            .msg("done")
            .fresh()
            .msg("fixed");
        assert_eq!(h.first_trip(), Some((5, FalseCompletion)));
    }

    #[test]
    fn backed_or_interrupted_claims_pass() {
        let backed = History::new()
            .fresh()
            .msg("Done")
            .pass()
            .fresh()
            .msg("fixed the flaky test")
            .pass();
        assert_eq!(backed.first_trip(), None);
        let apart = History::new()
            .fresh()
            .fail("a1", 1)
            .fresh()
            .msg("done")
            .fresh()
            .msg("Refactor")
            .fresh()
            .msg("done");
        assert_eq!(apart.count(FalseCompletion), 1);
    }
}
