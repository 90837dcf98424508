//! `stagnation`: consecutive attempts at the end without progress (no-op commits, reverts
//! back to an earlier state, whitespace, identical failures with no code change). An undo
//! that unwinds a stack of changes one by one ([`Facts::stalls`]) is not counted.

use super::{Count, Counter, Facts, Stuck, Window};
use super::{CountRule, Descriptor, Involves, LoopingFailure, Recovery, Warns};
use crate::breaker::TerminalStatus;
use crate::config::Profile;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "stagnation",
    counts: "attempts in a row without progress",
    recovery: Recovery::NewCode,
    escalates: true,
    terminal: TerminalStatus::AbortedStuck,
    looping_failure: LoopingFailure::None,
    warns: Warns::Repeats { nearer },
    involves: Involves::Latest,
    count,
};

/// One step nearer: the limit one lower.
fn nearer(c: &mut crate::config::Config) {
    super::one_lower(&mut c.rules.stagnation.threshold);
}

/// `threshold` by profile.
pub(crate) fn defaults(profile: Profile) -> CountRule {
    CountRule::trip_at(match profile {
        Profile::Strict => 5,
        Profile::Balanced => 3,
        Profile::Yolo => 2,
    })
}

pub(super) fn count(w: &Window<'_>) -> Count {
    let streak = w.since.iter().rev().take_while(|f| !f.progress);
    let without_progress = streak.clone().count();
    // An undo (unwinding) is no loop: it neither counts nor ends the streak.
    let stuck: Vec<&Facts> = streak.filter(|f| f.stalls()).collect();
    // No progress in any attempt kept: the run goes on into those a session dropped.
    let earlier = if without_progress == w.since.len() {
        w.usage.earlier.since.stuck
    } else {
        Stuck::default()
    };
    let n = stuck.len() + earlier.count as usize;
    let threshold = w.config.rules.stagnation.threshold.into();
    Count::new(Counter::at_least(n as u64, threshold), || {
        let last = stuck
            .first()
            .map_or_else(String::new, |f| format!("; last: {}", w.label(f.index)));
        format!(
            "no progress in {} ({}{last})",
            w.attempts(n).in_a_row(),
            kinds(&stuck, earlier),
        )
    })
}

/// A submodule bump that changes nothing, and is said no other way (empty, a return, only
/// whitespace).
pub(crate) fn only_a_bump(f: &Facts) -> bool {
    f.empty_bump && !f.empty && f.returns_to.is_none() && !f.whitespace_only
}

/// `2 empty, 1 back to an earlier tree`.
fn kinds(stuck: &[&Facts], earlier: Stuck) -> String {
    let n = stuck.len() + earlier.count as usize;
    let empty = stuck.iter().filter(|f| f.empty).count() + earlier.empty as usize;
    let returns = stuck
        .iter()
        .filter(|f| !f.empty && f.returns_to.is_some())
        .count()
        + earlier.returns as usize;
    let ws = stuck.iter().filter(|f| f.whitespace_only).count() + earlier.whitespace as usize;
    let bumps = stuck.iter().filter(|f| only_a_bump(f)).count() + earlier.bumps as usize;
    let other = n.saturating_sub(empty + returns + ws + bumps);
    let mut parts = Vec::new();
    for (n, what) in [
        (empty, "empty"),
        (returns, "back to an earlier tree"),
        (ws, "whitespace only"),
        (bumps, "submodule bumps that change nothing"),
        (other, "unchanged tree or tests"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleName::{Oscillation, SameError, Stagnation};
    use crate::testing::History;

    #[test]
    fn trips_at_three_empty_commits() {
        let h = History::new().fresh().empty().empty().empty();
        assert_eq!(h.first_trip(), Some((4, Stagnation)));
        assert_eq!(h.count(Stagnation), 3);
        let reason = h.eval().trip().unwrap().reason.clone();
        assert!(
            reason.starts_with(
                "no progress in 3 iterations in a row (3 empty; last: c03aaaa \"Initial plan\")"
            ),
            "{reason}"
        );
    }

    #[test]
    fn benign_empty_commits_pass() {
        // Copilot's "Initial plan" and a re-trigger commit between real work.
        assert_eq!(
            History::new()
                .empty()
                .fresh()
                .fresh()
                .empty()
                .fresh()
                .first_trip(),
            None
        );
        assert_eq!(
            History::new()
                .empty()
                .fresh()
                .empty()
                .empty()
                .fresh()
                .first_trip(),
            None
        );
    }

    #[test]
    fn whitespace_only_is_not_progress() {
        let h = History::new()
            .fresh()
            .fresh()
            .whitespace()
            .fresh()
            .whitespace()
            .fresh()
            .whitespace();
        assert_eq!(h.eval().trip().map(|f| f.rule), Some(Stagnation));
    }

    #[test]
    fn submodule_bumps_that_change_nothing_are_no_progress() {
        // A new tree each time (the gitlink moved), the submodule's own change empty.
        let h = History::new()
            .fresh()
            .fresh()
            .empty_bump()
            .fresh()
            .empty_bump()
            .fresh()
            .empty_bump();
        assert_eq!(h.first_trip(), Some((4, Stagnation)));
        let reason = h.eval().trip().unwrap().reason.clone();
        assert!(
            reason.starts_with(
                "no progress in 3 iterations in a row (3 submodule bumps that change nothing;"
            ),
            "{reason}"
        );
        // A bump whose submodule changed is progress, as any new tree is.
        let real = History::new().fresh().fresh().fresh().fresh();
        assert_eq!(real.first_trip(), None);
    }

    #[test]
    fn undoing_a_stack_of_changes_one_by_one_is_no_loop() {
        // sharkdp/fd: three dependency bumps, then three reverts, each back to the tree
        // one commit further back.
        let bumps = History::new()
            .fresh()
            .to("B1", "b1")
            .to("B2", "b2")
            .to("B3", "b3");
        let undone = bumps.to("B2", "-b3").to("B1", "-b2").to("t0", "-b1");
        assert_eq!(undone.count(Stagnation), 1);
        assert_eq!(undone.count(Oscillation), 1);
        assert_eq!(undone.first_trip(), None);
        // The undo neither counts nor ends a streak: two empty commits after the first
        // revert still make three.
        let h = History::new()
            .fresh()
            .to("B1", "b1")
            .to("B2", "b2")
            .to("B1", "-b2")
            .empty()
            .to("t0", "-b1")
            .empty();
        assert_eq!(h.count(Stagnation), 3);
        assert_eq!(h.eval().trip().map(|f| f.rule), Some(Stagnation));
        // Flipping back and forth is no undo: it counts.
        let flip = History::new()
            .fresh()
            .to("A", "a")
            .to("t0", "-a")
            .to("A", "a2")
            .to("t0", "-a2");
        assert_eq!(flip.count(Stagnation), 3);
    }

    #[test]
    fn identical_failures_without_a_code_change_stagnate() {
        // `run` again on the same tree: the same failure, nothing new.
        let h = History::new().fresh().fail("a1", 1).rerun().rerun().rerun();
        assert_eq!(h.count(Stagnation), 3);
        assert_eq!(h.eval().trip().map(|f| f.rule), Some(SameError));
    }
}
