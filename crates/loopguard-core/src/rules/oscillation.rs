//! `oscillation`: returns to an earlier, non-adjacent tree among the last `window`
//! attempts since the last progress (A->B->A->B counts 2; revert X, move on, revert Y is
//! two experiments, one each time). A return that only walks further back right after
//! another return (revert the last change, then the one before it) is unwinding, not
//! flipping, and does not count.

use super::{Count, Counter, Facts, Window};
use super::{CountRule, Descriptor, Involves, LoopingFailure, Recovery, Warns};
use crate::breaker::TerminalStatus;
use crate::config::Profile;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "oscillation",
    counts: "returns to an earlier tree since the last improvement",
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
    super::one_lower(&mut c.rules.oscillation.threshold);
}

/// `threshold` by profile.
pub(crate) fn defaults(profile: Profile) -> CountRule {
    CountRule::trip_at(match profile {
        Profile::Strict => 3,
        Profile::Balanced => 2,
        Profile::Yolo => 2,
    })
}

pub(super) fn count(w: &Window<'_>) -> Count {
    // Oscillation is about states: once the agent reaches a genuinely new one, earlier
    // returns are history.
    let start = w
        .recent
        .iter()
        .rposition(|f| f.progress)
        .map_or(0, |p| p + 1);
    let returns: Vec<(&Facts, String)> = w.recent[start..]
        .iter()
        .filter_map(|f| match f.loops_back() {
            Some(state) => Some((f, format!("{} back to {state}", w.short(f.index)))),
            _ if f.alternates => Some((
                f,
                format!(
                    "{} repeats an A-B-A-B pattern of calls ({})",
                    w.short(f.index),
                    w.history[f.index].subject()
                ),
            )),
            _ => None,
        })
        .collect();
    let threshold = w.config.rules.oscillation.threshold.into();
    Count::new(Counter::at_least(returns.len() as u64, threshold), || {
        let list: Vec<&str> = returns.iter().map(|(_, what)| what.as_str()).collect();
        format!(
            "the code returned to an earlier state {} in the last {} ({})",
            crate::config::times(returns.len() as u64),
            w.attempts(w.recent.len()),
            list.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleName::Oscillation;
    use crate::testing::History;

    #[test]
    fn a_b_a_b_counts_two_and_names_the_commits_exactly() {
        let h = History::new()
            .to("A", "pa")
            .to("B", "pb")
            .to("A", "-pb")
            .to("B", "pb");
        assert_eq!(h.count(Oscillation), 2);
        assert_eq!(h.first_trip(), Some((4, Oscillation)));
        assert_eq!(
            h.eval().trip().unwrap().reason,
            "the code returned to an earlier state twice in the last 4 iterations (c02aaaa back to the tree of c00aaaa, c03aaaa back to the tree of c01aaaa)"
        );
    }

    #[test]
    fn a_revert_returns_to_the_tree_before_the_reverted_commit() {
        // c1 changes base -> T1; c2 reverts it; c3 re-applies it.
        let h = History::new().to("T1", "p").to("base", "-p").to("T1", "p");
        let reason = |h: &History| h.eval().trip().unwrap().reason.clone();
        assert!(
            reason(&h).ends_with(
                "(c01aaaa back to the tree before c00aaaa, c02aaaa back to the tree of c00aaaa)"
            ),
            "{}",
            reason(&h)
        );
        // With the parents known, the tree before c1 is its parent's.
        let h = h.with_parents("b0");
        assert!(
            reason(&h)
                .ends_with("(c01aaaa back to the tree of b0, c02aaaa back to the tree of c00aaaa)"),
            "{}",
            reason(&h)
        );
    }

    #[test]
    fn one_deliberate_revert_passes_and_moving_on_forgets_it() {
        // Inject a warning and revert it, then go on working (extensions PRs 7594/7595).
        let h = History::new().fresh().to("W", "warn").to("t0", "-warn");
        assert_eq!(h.count(Oscillation), 1);
        let h = h.fresh().fresh().fresh();
        assert_eq!(h.first_trip(), None);
        assert_eq!(h.count(Oscillation), 0);
        // A second, unrelated revert later is one return again (software-agent-sdk 2490).
        assert_eq!(h.to("t4", "-p5").count(Oscillation), 1);
    }

    #[test]
    fn unwinding_is_not_flipping() {
        // dotnet/extensions PR 7594: add A, add B, inject a warning, revert it, revert B.
        let h = History::new()
            .to("A", "a")
            .to("B", "b")
            .to("W", "w")
            .to("B", "-w");
        assert_eq!(h.clone().to("A", "-b").count(Oscillation), 1);
        // With an empty "Initial plan" in between (PR 7595), still unwinding.
        assert_eq!(h.empty().to("A", "-b").count(Oscillation), 1);
        // Flipping back and forth counts.
        let flip = History::new()
            .to("A", "a")
            .to("B", "b")
            .to("A", "-b")
            .to("B", "b2")
            .to("A", "-b2");
        assert_eq!(flip.count(Oscillation), 3);
    }
}
