//! `repeated_patch`: attempts whose patch id equals an earlier attempt's, among the last
//! `window` attempts since the last test improvement. A new tree does not reset it:
//! re-applying an old patch on top of other work gives a new tree, and is exactly the loop
//! to catch. An empty change has no patch id; rewrites are not attempts.

use super::{Count, Counter, Window};
use super::{CountRule, Descriptor, Involves, LoopingFailure, Recovery, Warns};
use crate::breaker::TerminalStatus;
use crate::config::Profile;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "repeated_patch",
    counts: "earlier patches applied again since the last improvement",
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
    super::one_lower(&mut c.rules.repeated_patch.threshold);
}

/// `threshold` by profile.
pub(crate) fn defaults(profile: Profile) -> CountRule {
    CountRule::trip_at(match profile {
        Profile::Strict => 3,
        Profile::Balanced => 2,
        Profile::Yolo => 1,
    })
}

pub(super) fn count(w: &Window<'_>) -> Count {
    let start = w
        .recent
        .iter()
        .rposition(|f| f.test_improved)
        .map_or(0, |p| p + 1);
    let repeats: Vec<_> = w.recent[start..]
        .iter()
        .filter_map(|f| f.repeats.as_ref().map(|r| (f, r)))
        .collect();
    let threshold = w.config.rules.repeated_patch.threshold.into();
    Count::new(Counter::at_least(repeats.len() as u64, threshold), || {
        let list: Vec<String> = repeats
            .iter()
            .map(|(f, earlier)| format!("{} = {}", w.short(f.index), earlier.short()))
            .collect();
        format!(
            "the same patch was applied again {} in the last {} ({})",
            crate::config::times(repeats.len() as u64),
            w.attempts(w.recent.len()),
            list.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleName::{Oscillation, RepeatedPatch, Stagnation};
    use crate::testing::History;

    #[test]
    fn trips_when_a_reverted_patch_is_reapplied_twice() {
        // P, revert, Q, P again (on a new tree), R, revert again.
        let h = History::new()
            .to("P", "p")
            .to("base", "-p")
            .to("Q", "q")
            .to("QP", "p")
            .to("QPR", "r")
            .to("QR", "-p");
        assert_eq!(h.first_trip(), Some((6, RepeatedPatch)));
        assert_eq!(h.count(RepeatedPatch), 2);
        assert_eq!((h.count(Oscillation), h.count(Stagnation)), (0, 0));
        let reason = h.eval().trip().unwrap().reason.clone();
        assert!(
            reason.contains("(c03aaaa = c00aaaa, c05aaaa = c01aaaa)"),
            "{reason}"
        );
    }

    #[test]
    fn a_test_improvement_restarts_the_count() {
        let h = History::new()
            .to("P", "p")
            .fail("51", 3)
            .to("base", "-p")
            .fail("51", 3)
            .to("Q", "q")
            .fail("51", 2) // fewer failures: progress
            .to("QP", "p");
        assert_eq!(h.count(RepeatedPatch), 1);
    }
}
