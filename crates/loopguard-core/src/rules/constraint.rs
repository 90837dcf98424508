//! `constraint`: an attempt touched a protected path (the guard's own config, the
//! workflows that run loopguard, any `protected` glob), or took away a check that was
//! holding the agent back: a test as its ecosystem means it, deleted, skipped, made a todo
//! or an expected failure, renamed or moved out of discovery, emptied, compiled out, or
//! returning before it checks anything ([`crate::suite`]). Trips at the first, with
//! `aborted_constraint`.
//!
//! How a taken test is judged (docs/rules.md, "Taking a test away"):
//!
//! - it was failing in the run's own evidence: certain, a violation in every profile;
//! - it is doubtful — a skip on a condition (a platform, a missing tool), a quarantine
//!   that names its issue, a test deleted with the code it tests: a note;
//! - neither (no evidence either way): `without_evidence` decides — a warning by default,
//!   a violation under `strict`.
//!
//! Other CI configuration an attempt changes is a note: agents are often asked to change
//! CI.

use std::collections::BTreeSet;

use super::{Count, Counter, Window};
use std::path::Path;

use serde::Deserialize;

use super::{Descriptor, Involves, LoopingFailure, Recovery, RuleSettings, Warns};
use crate::breaker::TerminalStatus;
use crate::config::{
    CI_PATHS, DEFAULT_PROTECTED, GlobKind, Globs, PatternSet, Profile, RuleAction, patterns,
};
use crate::error::ConfigError;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "constraint",
    counts: "attempts that touched a protected path, skipped or deleted a test",
    recovery: Recovery::Person,
    escalates: false,
    terminal: TerminalStatus::AbortedConstraint,
    looping_failure: LoopingFailure::None,
    warns: Warns::Never,
    involves: Involves::Violating,
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
    /// What a test taken away with no evidence either way is: a warning (`warn`, the
    /// default), a violation (`trip`, under `strict`), or nothing (`off`).
    pub without_evidence: RuleAction,
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
    without_evidence: Option<RuleAction>,
    action: Option<RuleAction>,
}

/// The guard's own config is protected, the workflows that run loopguard too, and taking
/// away a failing test is a violation, in every profile; a test taken away with no
/// evidence either way is a violation under `strict`, a warning otherwise.
pub(crate) fn defaults(profile: Profile) -> ConstraintRule {
    ConstraintRule {
        action: RuleAction::Trip,
        protected: DEFAULT_PROTECTED_SET.clone(),
        guard_workflows: true,
        guarded: Vec::new(),
        forbid_test_skips: true,
        forbid_test_deletions: true,
        without_evidence: match profile {
            Profile::Strict => RuleAction::Trip,
            Profile::Balanced | Profile::Yolo => RuleAction::Warn,
        },
        ci_paths: CI_PATHS_SET.clone(),
    }
}

/// The built-in globs, compiled once per process (a hook builds a config more than once:
/// the defaults, then the file's over them).
static DEFAULT_PROTECTED_SET: std::sync::LazyLock<PatternSet> =
    std::sync::LazyLock::new(|| PatternSet::builtin(DEFAULT_PROTECTED, GlobKind::Path));
static CI_PATHS_SET: std::sync::LazyLock<PatternSet> =
    std::sync::LazyLock::new(|| PatternSet::builtin(CI_PATHS, GlobKind::Path));

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
                GlobKind::Path,
            )?,
            guard_workflows: raw.guard_workflows.unwrap_or(self.guard_workflows),
            guarded: Vec::new(),
            forbid_test_skips: raw.forbid_test_skips.unwrap_or(self.forbid_test_skips),
            forbid_test_deletions: raw
                .forbid_test_deletions
                .unwrap_or(self.forbid_test_deletions),
            without_evidence: raw.without_evidence.unwrap_or(self.without_evidence),
            ci_paths: self.ci_paths.clone(),
        })
    }
}

/// CI files named in the note at most.
const NOTE_FILES: usize = 5;
/// Doubtful test changes named in the note at most.
const NOTE_TESTS: usize = 3;

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
    let mut notes = Vec::new();
    if !ci.is_empty() {
        let mut named: Vec<&str> = ci.iter().copied().take(NOTE_FILES).collect();
        if ci.len() > NOTE_FILES {
            named.push("…");
        }
        notes.push(format!(
            "the agent changed CI configuration ({}); not protected, since it doesn't run loopguard — review it",
            named.join(", ")
        ));
    }
    let doubtful: Vec<String> = w
        .since
        .iter()
        .flat_map(|f| {
            f.doubtful
                .iter()
                .map(|d| format!("{} {d}", w.short(f.index)))
        })
        .collect();
    if !doubtful.is_empty() {
        let mut named: Vec<&str> = doubtful
            .iter()
            .map(String::as_str)
            .take(NOTE_TESTS)
            .collect();
        if doubtful.len() > NOTE_TESTS {
            named.push("…");
        }
        notes.push(format!(
            "tests taken away that may be fine: {}; review them",
            named.join("; ")
        ));
    }
    // A test taken away with no evidence either way: a warning on the attempt that did it.
    let warning = w.since.last().filter(|f| !f.unproven.is_empty()).map(|f| {
        format!(
            "{} {}; no test evidence shows it was failing",
            w.label(f.index),
            f.unproven.join("; ")
        )
    });
    // A compacted run's dropped attempts since the baseline count too.
    let earlier = &w.usage.earlier.since;
    let count = violating.len() as u64 + earlier.violations;
    Count::new(Counter::at_least(count, 1), || match violating.last() {
        Some(f) => format!("{} {}", w.label(f.index), f.violations.join("; ")),
        None => earlier.last_violation.clone().unwrap_or_default(),
    })
    .with_note((!notes.is_empty()).then(|| notes.join("; ")))
    .with_warning(warning)
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, Profile};
    use crate::rules::RuleName::Constraint;
    use crate::suite::{Doubt, TakenHow};
    use crate::testing::History;

    #[test]
    fn a_protected_path_trips_at_once_in_every_profile() {
        let h = History::new()
            .fresh()
            .fresh()
            .files(&["src/a.rs", ".loopguard.yml"]);
        for profile in Profile::ALL {
            let e = h.eval_with(&Config::for_profile(profile));
            assert_eq!(e.trip().map(|f| f.rule), Some(Constraint), "{profile}");
            assert!(
                e.fired[0]
                    .reason
                    .contains("touched the protected path .loopguard.yml")
            );
        }
        assert_eq!(History::new().fresh().fresh().count(Constraint), 0);
    }

    /// What a test taken away is, by profile: `T` trips, `W` warns, `N` is a note, `-`
    /// nothing; (strict, balanced, yolo).
    #[test]
    fn a_test_taken_away_is_judged_by_the_evidence() {
        use TakenHow::*;
        let failing = || History::new().fresh().fail("a1", 1);
        let cases: &[(&str, History, [char; 3], &str)] = &[
            (
                "skipped while it was failing",
                failing()
                    .fresh()
                    .takes("tests/wc.rs", "counts_three_words", Skipped),
                ['T', 'T', 'T'],
                "skipped the failing test counts_three_words in tests/wc.rs",
            ),
            (
                "deleted while it was failing, new tests in its place",
                failing()
                    .fresh()
                    .takes("tests/wc.rs", "counts_three_words", Deleted)
                    .replaced(),
                ['T', 'T', 'T'],
                "deleted the failing test counts_three_words in tests/wc.rs",
            ),
            (
                "skipped, no evidence either way",
                History::new()
                    .fresh()
                    .takes("tests/wc.rs", "counts", Skipped),
                ['T', 'W', 'W'],
                "skipped the test counts in tests/wc.rs",
            ),
            (
                "deleted, the code it tests still there",
                History::new()
                    .fresh()
                    .takes("tests/wc.rs", "counts", Deleted),
                ['T', 'W', 'W'],
                "deleted the test counts in tests/wc.rs",
            ),
            (
                "an older record: a skip it added",
                History::new().fresh().skip("src/lib.rs", "#[ignore]"),
                ['T', 'W', 'W'],
                "added a test skip in src/lib.rs: #[ignore]",
            ),
            (
                "an older record: a test file it deleted",
                History::new().fresh().deleted("tests/parser.rs"),
                ['T', 'W', 'W'],
                "deleted the test file tests/parser.rs",
            ),
            (
                "skipped on a platform",
                History::new()
                    .fresh()
                    .takes("tests/wc.rs", "counts", Skipped)
                    .doubtful(Doubt::Conditional, "windows"),
                ['N', 'N', 'N'],
                "skipped the test counts in tests/wc.rs, on a condition (windows)",
            ),
            (
                "deleted with the code it tests",
                History::new()
                    .fresh()
                    .takes("tests/test_wc.py", "test_counts", Deleted)
                    .doubtful(Doubt::WithCode, "src/wc.py"),
                ['N', 'N', 'N'],
                "with the code it tests (src/wc.py)",
            ),
            (
                "rewritten under new names",
                History::new()
                    .fresh()
                    .takes("tests/wc.rs", "counts", Deleted)
                    .replaced(),
                ['-', '-', '-'],
                "",
            ),
            (
                "a test that passed, skipped",
                History::new().fresh().pass().fresh().takes(
                    "tests/wc.rs",
                    "counts_three_words",
                    Skipped,
                ),
                ['T', 'W', 'W'],
                "skipped the test counts_three_words",
            ),
        ];
        for (what, h, want, text) in cases {
            for (profile, want) in Profile::ALL.into_iter().zip(want) {
                let (got, said) = judged(h, &Config::for_profile(profile));
                assert_eq!(got, *want, "{what} under {profile}: {said}");
                assert!(said.contains(text), "{what}: {said}");
            }
        }
    }

    /// How `constraint` judged `h`'s last attempt (`T`, `W`, `N` or `-`), and what it said.
    fn judged(h: &History, config: &Config) -> (char, String) {
        let e = h.eval_with(config);
        let trip = e.trip().filter(|f| f.rule == Constraint);
        let warn = e.warnings().find(|f| f.rule == Constraint);
        let note = e.notes.iter().find(|(r, _)| *r == Constraint);
        let got = match (trip, warn, note) {
            (Some(_), _, _) => 'T',
            (None, Some(_), _) => 'W',
            (None, None, Some(_)) => 'N',
            (None, None, None) => '-',
        };
        let said = trip
            .map(|f| f.reason.as_str())
            .or(warn.map(|f| f.reason.as_str()))
            .or(note.map(|n| n.1.as_str()))
            .unwrap_or("");
        (got, said.to_owned())
    }

    #[test]
    fn without_evidence_off_leaves_only_what_was_failing() {
        use TakenHow::*;
        let mut c = Config::default();
        c.rules.constraint.without_evidence = crate::config::RuleAction::Off;
        let h = History::new()
            .fresh()
            .takes("tests/wc.rs", "counts", Skipped);
        let e = h.eval_with(&c);
        assert!(e.trip().is_none() && e.warnings().next().is_none(), "{e:?}");
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
