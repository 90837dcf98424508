//! Whether `loopguard ci` trusts the state in its comment. A token that can edit comments
//! can write any state there (its author stays loopguard's), so the state is trusted —
//! its decisive fields taken as they are, see [`super::state`] — only when it is sealed
//! with the key and knows every head the PR's workflow runs show; otherwise those fields
//! are derived again from what the agent cannot edit, and the state is never more lenient
//! than that evidence. A state whose seal fails is reported, never trusted.

use super::people::Placed;
use super::state::{CiState, Resume};
use crate::github::sticky::SealCheck;
use crate::iteration::InterventionKind;

/// How far the state in the comment is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Sealed with the key, for this PR, and not stale: its decisive fields are taken.
    Sealed,
    /// Its decisive fields are derived again, for this reason.
    Derived(Why),
}

/// Why the state's decisive fields are derived again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// No `LOOPGUARD_STATE_KEY`: nothing in the comment can be told from a forgery.
    NoKey,
    /// No state to read: the first run, or the comment is gone.
    NoState,
    /// A key, and a state without a seal: written without the key (before it was set up,
    /// or by a loopguard that has none), or by someone else.
    Unsealed,
    /// A key, and a seal that does not verify: the state was edited since it was sealed
    /// (or sealed for another PR, or with another key).
    BrokenSeal,
    /// Sealed, but it does not know `heads` heads the PR's workflow runs show, and the PR
    /// was force-pushed since it was written: an older state put back.
    Stale { heads: usize },
}

impl Trust {
    /// The trust in a state read from the comment: `seal` is its check with the key, `None`
    /// without one; `state_read` whether there was a state to read at all.
    pub fn of(state_read: bool, seal: Option<SealCheck>) -> Trust {
        match (state_read, seal) {
            (false, _) => Trust::Derived(Why::NoState),
            (true, None) => Trust::Derived(Why::NoKey),
            (true, Some(SealCheck::Sealed)) => Trust::Sealed,
            (true, Some(SealCheck::Unsealed)) => Trust::Derived(Why::Unsealed),
            (true, Some(SealCheck::Broken)) => Trust::Derived(Why::BrokenSeal),
        }
    }

    pub fn is_sealed(&self) -> bool {
        *self == Trust::Sealed
    }
}

impl Why {
    /// What the comment and the summary say about it, when a reader should know: a key is
    /// set up and the state did not hold. (Without a key, or without a state, the log
    /// says it: [`Why::log`].)
    pub fn note(&self) -> Option<String> {
        const DERIVED: &str = "it is not trusted: what could relax the breaker (test evidence, resumes, turns, force-pushed attempts, when each commit was seen) was derived again from the workflow runs and the PR's timeline";
        match self {
            Why::NoKey | Why::NoState => None,
            Why::Unsealed => Some(format!(
                "the state in loopguard's comment carries no seal (written without LOOPGUARD_STATE_KEY, or by someone else): {DERIVED}"
            )),
            Why::BrokenSeal => Some(format!(
                "the state in loopguard's comment does not match its seal: it was edited after loopguard wrote it (or sealed for another PR, or with another key); {DERIVED}"
            )),
            Why::Stale { heads } => Some(format!(
                "the state in loopguard's comment does not know {heads} head(s) this PR's workflow runs show, and the PR was force-pushed since it was written (an older state put back?): {DERIVED}"
            )),
        }
    }

    /// What the log says about it.
    pub fn log(&self) -> String {
        match self {
            Why::NoKey => "no LOOPGUARD_STATE_KEY: the state in loopguard's comment is a cache; what could relax the breaker is derived from the workflow runs and the PR's timeline (docs/contract.md, \"Signing the state\")".to_owned(),
            Why::NoState => "no state in loopguard's comment yet: derived from the workflow runs and the PR's timeline".to_owned(),
            Why::Unsealed | Why::BrokenSeal | Why::Stale { .. } => {
                self.note().unwrap_or_default()
            }
        }
    }

    /// Whether it is reported as a forgery (an annotation on the step, besides the note).
    pub fn is_forgery(&self) -> bool {
        matches!(self, Why::BrokenSeal | Why::Stale { .. })
    }
}

/// What an untrusted state claims that would relax the breaker and that GitHub's own
/// record does not back, each said as tampering: a resume (by `after`, `by`) that no label
/// removal by that person after that head on the PR's timeline (`placed`) shows (one that
/// names a dashboard run is checked against that run by the shell), and a person's
/// turn (kept by loopguard 0.1.0) that no comment or review of theirs on the timeline
/// shows. Nothing claimed is ever taken; this only says what was forged.
pub fn unbacked_claims(claimed: &CiState, placed: &[Placed]) -> Vec<String> {
    let shown = |kind: InterventionKind, r: &Resume| {
        placed.iter().any(|p| {
            p.intervention.action == kind && p.after == r.after && p.intervention.by == r.by
        })
    };
    let by = |r: &Resume| r.by.clone().unwrap_or_else(|| "no one named".to_owned());
    let resumes = claimed
        .resumes
        .iter()
        // One the dashboard's run should back is the shell's to check (`dashboard`).
        .filter(|r| r.run.is_none() && !shown(InterventionKind::Resume, r))
        .map(|r| {
            format!(
                "loopguard's comment claims a resume by {} after {} that GitHub's record does not show (no label removal by them on the PR's timeline, no dashboard run that resumed it)",
                by(r),
                r.after.short()
            )
        });
    let turns = claimed
        .turns
        .iter()
        .filter(|t| !shown(InterventionKind::NewEpisode, t))
        .map(|t| {
            format!(
                "loopguard's comment claims a person's turn by {} after {} that the PR's timeline does not show (no comment or review of theirs)",
                by(t),
                t.after.short()
            )
        });
    resumes.chain(turns).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_sealed_state_is_trusted() {
        assert_eq!(Trust::of(true, Some(SealCheck::Sealed)), Trust::Sealed);
        let cases = [
            (false, Some(SealCheck::Sealed), Why::NoState),
            (true, None, Why::NoKey),
            (true, Some(SealCheck::Unsealed), Why::Unsealed),
            (true, Some(SealCheck::Broken), Why::BrokenSeal),
        ];
        for (read, seal, why) in cases {
            assert_eq!(Trust::of(read, seal), Trust::Derived(why));
        }
        assert!(
            Why::BrokenSeal
                .note()
                .unwrap()
                .contains("edited after loopguard wrote it")
        );
        assert!(Why::BrokenSeal.is_forgery() && !Why::Unsealed.is_forgery());
        assert_eq!(Why::NoKey.note(), None);
        assert!(Why::NoKey.log().contains("LOOPGUARD_STATE_KEY"));
    }

    #[test]
    fn claims_the_record_does_not_back_are_named() {
        use crate::iteration::Intervention;
        use crate::testing::{id, ts};
        let r = |after: &str, by: &str, run: Option<u64>| Resume {
            after: id(after),
            at: ts(10),
            by: Some(by.into()),
            run,
        };
        let placed = |kind, after: &str, by: &str| Placed {
            after: id(after),
            intervention: Intervention {
                action: kind,
                at: ts(5),
                by: Some(by.into()),
            },
        };
        let mut claimed = CiState::new(7);
        claimed.resumes = vec![
            r("a", "maintainer", None),
            r("b", "maintainer", None),
            r("c", "maintainer", Some(41)),
            r("d", "maintainer", Some(42)),
        ];
        claimed.turns = vec![r("a", "reviewer", None), r("b", "maintainer", None)];
        let record = [
            placed(InterventionKind::Resume, "a", "maintainer"),
            placed(InterventionKind::NewEpisode, "a", "reviewer"),
            // A resume is no turn, and a turn after another head backs nothing.
            placed(InterventionKind::Resume, "b", "someone"),
            placed(InterventionKind::Resume, "x", "maintainer"),
        ];
        let got = unbacked_claims(&claimed, &record);
        assert_eq!(got.len(), 2, "{got:#?}");
        assert!(
            got[0].contains("a resume by maintainer after b"),
            "{got:#?}"
        );
        assert!(
            got[1].contains("a person's turn by maintainer after b"),
            "{got:#?}"
        );
    }
}
