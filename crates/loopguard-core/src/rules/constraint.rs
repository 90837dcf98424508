//! `constraint`: an attempt touched a protected path (the guard's own config, the
//! workflows that run loopguard, any `protected` glob), added a test skip or deleted a test
//! file. Trips at the first, with `aborted_constraint`. Other CI configuration an attempt
//! changes is a note: agents are often asked to change CI.

use std::collections::BTreeSet;

use super::{Count, Counter, Window};
use std::path::Path;

use serde::Deserialize;


use super::{Descriptor, LoopingFailure, Recovery, RuleSettings};
use crate::breaker::TerminalStatus;
use crate::config::{CI_PATHS, DEFAULT_PROTECTED, Globs, PatternSet, Profile, RuleAction, patterns};
use crate::error::ConfigError;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "constraint",
    counts: "attempts that touched a protected path, skipped or deleted a test",
    recovery: Recovery::Person,
    escalates: false,
    terminal: TerminalStatus::AbortedConstraint,
    looping_failure: LoopingFailure::None,
    count,
};

#[derive(Debug, Clone)]
pub struct ConstraintRule {
    pub action: RuleAction,
    pub protected: PatternSet,
    /// Protect every workflow that runs loopguard (`rules.constraint.guard_workflows`).
    pub guard_workflows: bool,
    /// The workflows that run loopguard, found by the shell in the trusted tree (the base
    /// commit in CI, the commit the run's config came from locally); see
    /// [`ConstraintRule::guard`].
    pub guarded: Vec<String>,
    pub forbid_test_skips: bool,
    pub forbid_test_deletions: bool,
    /// [`CI_PATHS`], compiled.
    pub ci_paths: PatternSet,
}

impl ConstraintRule {
    /// Protects `workflows` (the paths of the workflows that run loopguard, see
    /// [`crate::config::runs_loopguard`]) when `guard_workflows` is on.
    pub fn guard(&mut self, workflows: Vec<String>) {
        if self.guard_workflows {
            self.guarded = workflows;
        }
    }

    /// Whether an attempt may not touch `path`.
    pub fn protects(&self, path: &str) -> bool {
        self.protected.is_match(path) || self.guarded.iter().any(|g| g == path)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raw {
    protected: Option<Globs>,
    guard_workflows: Option<bool>,
    forbid_test_skips: Option<bool>,
    forbid_test_deletions: Option<bool>,
    action: Option<RuleAction>,
}

/// The same in every profile: the guard's own config is protected, the workflows that
/// run loopguard too, and test skips and deletions are violations.
pub(crate) fn defaults(_: Profile) -> ConstraintRule {
    ConstraintRule {
        action: RuleAction::Trip,
        protected: PatternSet::builtin(DEFAULT_PROTECTED, false),
        guard_workflows: true,
        guarded: Vec::new(),
        forbid_test_skips: true,
        forbid_test_deletions: true,
        ci_paths: PatternSet::builtin(CI_PATHS, false),
    }
}

impl RuleSettings for ConstraintRule {
    type Raw = Raw;

    fn action(&self) -> RuleAction {
        self.action
    }

    fn set_action(&mut self, action: RuleAction) {
        self.action = action;
    }

    fn resolve(&self, raw: Raw, name: &str, path: &Path) -> Result<Self, ConfigError> {
        Ok(ConstraintRule {
            action: raw.action.unwrap_or(self.action),
            protected: patterns(
                path,
                &format!("rules.{name}.protected"),
                &raw.protected,
                &self.protected,
                false,
            )?,
            guard_workflows: raw.guard_workflows.unwrap_or(self.guard_workflows),
            guarded: Vec::new(),
            forbid_test_skips: raw.forbid_test_skips.unwrap_or(self.forbid_test_skips),
            forbid_test_deletions: raw
                .forbid_test_deletions
                .unwrap_or(self.forbid_test_deletions),
            ci_paths: self.ci_paths.clone(),
        })
    }
}


/// CI files named in the note at most.
const NOTE_FILES: usize = 5;

pub(super) fn count(w: &Window<'_>) -> Count {
    let violating: Vec<_> = w
        .since
        .iter()
        .filter(|f| !f.violations.is_empty())
        .collect();
    let ci: BTreeSet<&str> = w
        .since
        .iter()
        .flat_map(|f| f.ci_files.iter().map(String::as_str))
        .collect();
    let note = (!ci.is_empty()).then(|| {
        let mut named: Vec<&str> = ci.iter().copied().take(NOTE_FILES).collect();
        if ci.len() > NOTE_FILES {
            named.push("…");
        }
        format!(
            "the agent changed CI configuration ({}); not protected, since it doesn't run loopguard — review it",
            named.join(", ")
        )
    });
    let earlier = &w.usage.earlier.since;
    let count = violating.len() as u64 + earlier.violations;
    Count::new(Counter::at_least(count, 1), || match violating.last() {
        Some(f) => format!("{} {}", w.label(f.index), f.violations.join("; ")),
        None => earlier.last_violation.clone().unwrap_or_default(),
    })
    .with_note(note)
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::rules::RuleName::Constraint;
    use crate::testing::History;

    #[test]
    fn trips_at_once_on_each_kind_of_violation() {
        let cases: &[(History, &str)] = &[
            (
                History::new()
                    .fresh()
                    .fresh()
                    .files(&["src/a.rs", ".loopguard.yml"]),
                "touched the protected path .loopguard.yml",
            ),
            (
                History::new().fresh().skip("src/lib.rs", "#[ignore]"),
                "added a test skip in src/lib.rs: #[ignore]",
            ),
            (
                History::new().fresh().deleted("tests/parser.rs"),
                "deleted the test file tests/parser.rs",
            ),
        ];
        for (h, want) in cases {
            let e = h.eval();
            assert_eq!(e.trip().map(|f| f.rule), Some(Constraint), "{want}");
            assert!(e.fired[0].reason.contains(want), "{}", e.fired[0].reason);
        }
        assert_eq!(History::new().fresh().fresh().count(Constraint), 0);
    }

    #[test]
    fn workflows_that_run_loopguard_are_protected_other_ci_is_a_note() {
        let mut config = Config::default();
        config
            .rules
            .constraint
            .guard(vec![".github/workflows/guard.yml".to_owned()]);
        let other = History::new()
            .fresh()
            .files(&["src/a.rs", ".github/workflows/test.yml"]);
        let e = other.eval_with(&config);
        assert_eq!(e.trip(), None, "another workflow is no violation");
        let note = &e.notes.iter().find(|(r, _)| *r == Constraint).unwrap().1;
        assert!(note.contains(".github/workflows/test.yml"), "{note}");

        let guard = History::new()
            .fresh()
            .files(&[".github/workflows/guard.yml"]);
        let e = guard.eval_with(&config);
        assert_eq!(e.trip().map(|f| f.rule), Some(Constraint));
        assert!(
            e.fired[0]
                .reason
                .contains("touched the protected path .github/workflows/guard.yml")
        );
        assert!(
            e.notes.iter().all(|(r, _)| *r != Constraint),
            "a guarded file is no note"
        );

        // With guard_workflows off, the workflows that run loopguard are not protected.
        let mut config = Config::default();
        config.rules.constraint.guard_workflows = false;
        config
            .rules
            .constraint
            .guard(vec![".github/workflows/guard.yml".to_owned()]);
        assert_eq!(guard.eval_with(&config).trip(), None);
    }

    #[test]
    fn a_workflow_runs_loopguard_when_a_line_of_code_names_it() {
        let cases = [
            ("steps:\n  - uses: loopguard/loopguard@v1\n", true),
            (
                "steps:\n  - uses: loopguard/loopguard@0123456789abcdef0123456789abcdef01234567 # v1\n",
                true,
            ),
            ("steps:\n  - run: loopguard ci --log test.log\n", true),
            (
                "steps:\n  - run: |\n      cargo install --locked LoopGuard\n",
                true,
            ),
            (
                "# loopguard runs elsewhere\nsteps:\n  - run: cargo test\n",
                false,
            ),
            ("steps:\n  - run: ./myloopguard.sh\n", false),
            ("steps:\n  - uses: actions/checkout@v4\n", false),
        ];
        for (text, want) in cases {
            assert_eq!(crate::config::runs_loopguard(text), want, "{text}");
        }
    }
}
