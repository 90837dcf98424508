//! What people did on a PR that relaxes its breaker, read from the PR's timeline — GitHub's
//! record of who did what and when, which no token of the agent's can edit — never from
//! text loopguard or anyone else wrote:
//!
//! - **a resume**: loopguard's label taken off (`github.label`) — `loopguard resume`: an
//!   open breaker is half-open, the next push decides;
//! - **a person's turn**: a review or a comment on the PR — a new episode: the loop
//!   counters start again (an open breaker is half-open), the budget keeps counting.
//!
//! Each counts only when its author is a person with write access (asked once per person:
//! `collaborators/{user}/permission`, the shell's to ask), not a bot and not the PR's own
//! author (the agent's account); loopguard's own comment takes no turn. Each falls right
//! after the newest commit *pushed* before it — the head the person was looking at — by
//! the time GitHub saw the push, never by a commit's own date, which its author writes
//! (backdated commits pushed after a turn would put the turn after them).

use jiff::Timestamp;

use crate::github::timeline::{TimelineEvent, TimelineKind};
use crate::ids::CommitId;
use crate::iteration::{Intervention, InterventionKind, Iteration};

/// Associations of people who may have write access (`CONTRIBUTOR`, `NONE`, … have not).
const MAY_WRITE: &[&str] = &["OWNER", "MEMBER", "COLLABORATOR"];

/// One act of someone on the PR that would relax the breaker if they may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Act {
    /// `Resume` (the label taken off) or `NewEpisode` (a review or comment).
    pub kind: InterventionKind,
    pub by: String,
    pub at: Timestamp,
}

/// Who takes no act: the PR's author (the agent's account) and loopguard's own comment.
#[derive(Debug, Clone, Copy, Default)]
pub struct NotActs<'a> {
    pub author: Option<&'a str>,
    pub own_comment: Option<u64>,
}

/// The acts on `timeline` that may count, oldest first: reviews and comments by someone
/// who may have write access, and removals of `label`, by people who are no bot and not
/// `not.author`. Whether they do have write access is asked afterwards.
pub fn acts(timeline: &[TimelineEvent], label: &str, not: NotActs<'_>) -> Vec<Act> {
    let mut out: Vec<Act> = timeline
        .iter()
        .filter_map(|e| {
            let kind = match e.kind() {
                TimelineKind::Commented if e.id.is_some() && e.id == not.own_comment => {
                    return None;
                }
                TimelineKind::Commented | TimelineKind::Reviewed => InterventionKind::NewEpisode,
                TimelineKind::Unlabeled if e.label.as_ref().is_some_and(|l| l.name == label) => {
                    InterventionKind::Resume
                }
                TimelineKind::Unlabeled
                | TimelineKind::Labeled
                | TimelineKind::ForcePushed
                | TimelineKind::Other => return None,
            };
            let may_write = e
                .author_association
                .as_deref()
                .is_none_or(|a| MAY_WRITE.contains(&a));
            let by = person(e)?;
            let author = not.author.is_some_and(|a| a.eq_ignore_ascii_case(&by));
            (may_write && !author).then_some(Act {
                kind,
                by,
                at: e.when()?,
            })
        })
        .collect();
    out.sort_by_key(|a| a.at);
    out
}

/// The login of who did `e`, if a person did (no bot, no deleted account).
fn person(e: &TimelineEvent) -> Option<String> {
    let user = e.who()?;
    let bot = user.kind.as_deref() == Some("Bot") || user.login.ends_with("[bot]");
    (!bot && !user.login.is_empty()).then(|| user.login.clone())
}

/// The newest removals of `label` by someone who takes no act (a bot, the PR's author,
/// someone who may not write), for a note when the label is found gone.
pub fn label_removals(timeline: &[TimelineEvent], label: &str) -> Vec<(Option<String>, Timestamp)> {
    timeline
        .iter()
        .filter(|e| {
            e.kind() == TimelineKind::Unlabeled && e.label.as_ref().is_some_and(|l| l.name == label)
        })
        .filter_map(|e| Some((e.who().map(|u| u.login.clone()), e.when()?)))
        .collect()
}

/// Whether the PR's head was force-pushed after `since`.
pub fn force_pushed_after(timeline: &[TimelineEvent], since: Timestamp) -> bool {
    timeline
        .iter()
        .any(|e| e.kind() == TimelineKind::ForcePushed && e.when().is_some_and(|t| t > since))
}

/// An act placed in the history: right after the commit `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub after: CommitId,
    pub intervention: Intervention,
}

/// Where each act falls: right after the newest iteration of `history` pushed at or
/// before it (`pushed` says when GitHub first saw each commit). Nothing happens before
/// the first push, and one act of a kind between two pushes is enough.
pub fn place(
    acts: &[Act],
    history: &[Iteration],
    pushed: impl Fn(&CommitId) -> Option<Timestamp>,
) -> Vec<Placed> {
    let mut out: Vec<Placed> = Vec::new();
    for act in acts {
        let Some(head) = history
            .iter()
            .rev()
            .filter(|it| !it.uncommitted)
            .find(|it| pushed(&it.id).is_some_and(|at| at <= act.at))
        else {
            continue;
        };
        if out
            .iter()
            .any(|p| p.after == head.id && p.intervention.action == act.kind)
        {
            continue;
        }
        out.push(Placed {
            after: head.id.clone(),
            intervention: Intervention {
                action: act.kind,
                at: act.at,
                by: Some(act.by.clone()),
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::types::{Label, User};
    use crate::testing::{History, ts};

    fn user(login: &str) -> Option<User> {
        Some(User {
            login: login.into(),
            id: 1,
            kind: Some(
                if login.ends_with("[bot]") || login == "Copilot" {
                    "Bot"
                } else {
                    "User"
                }
                .into(),
            ),
        })
    }

    fn commented(id: u64, login: &str, association: &str, secs: i64) -> TimelineEvent {
        TimelineEvent {
            event: "commented".into(),
            id: Some(id),
            user: user(login),
            actor: user(login),
            created_at: Some(ts(secs)),
            author_association: Some(association.into()),
            ..TimelineEvent::default()
        }
    }

    fn unlabeled(login: &str, label: &str, secs: i64) -> TimelineEvent {
        TimelineEvent {
            event: "unlabeled".into(),
            actor: user(login),
            created_at: Some(ts(secs)),
            label: Some(Label {
                name: label.into(),
                ..Label::default()
            }),
            ..TimelineEvent::default()
        }
    }

    #[test]
    fn people_who_may_write_act_bots_the_author_and_loopguards_comment_do_not() {
        let timeline = [
            commented(1, "maintainer", "MEMBER", 90),
            commented(2, "github-actions[bot]", "NONE", 100),
            commented(3, "Copilot", "NONE", 110),
            commented(4, "passer-by", "NONE", 120),
            commented(5, "opener", "OWNER", 130),
            commented(6, "maintainer", "MEMBER", 140),
            TimelineEvent {
                event: "reviewed".into(),
                id: Some(7),
                user: user("reviewer"),
                submitted_at: Some(ts(200)),
                author_association: Some("COLLABORATOR".into()),
                ..TimelineEvent::default()
            },
            unlabeled("maintainer", "loopguard:stuck", 210),
            unlabeled("maintainer", "bug", 220),
            unlabeled("github-actions[bot]", "loopguard:stuck", 230),
            unlabeled("opener", "loopguard:stuck", 240),
        ];
        let not = NotActs {
            author: Some("Opener"),
            own_comment: Some(6),
        };
        let got = acts(&timeline, "loopguard:stuck", not);
        let got: Vec<(InterventionKind, &str, Timestamp)> =
            got.iter().map(|a| (a.kind, a.by.as_str(), a.at)).collect();
        assert_eq!(
            got,
            [
                (InterventionKind::NewEpisode, "maintainer", ts(90)),
                (InterventionKind::NewEpisode, "reviewer", ts(200)),
                (InterventionKind::Resume, "maintainer", ts(210)),
            ]
        );
        let removals = label_removals(&timeline, "loopguard:stuck");
        assert_eq!(removals.len(), 3);
        assert!(force_pushed_after(
            &[TimelineEvent {
                event: "head_ref_force_pushed".into(),
                created_at: Some(ts(50)),
                ..TimelineEvent::default()
            }],
            ts(10)
        ));
    }

    #[test]
    fn an_act_falls_after_the_head_pushed_before_it_whatever_the_commits_say() {
        // Commits dated 0, 60, 120, 180 (what their author wrote); pushed at 1000 and 1100,
        // and the last two together at 1200, after the act at 1150.
        let h = History::new().fresh().fresh().fresh().fresh();
        let pushed = |id: &CommitId| {
            let i = h.its.iter().position(|it| &it.id == id)?;
            Some(ts([1000, 1100, 1200, 1200][i]))
        };
        let act = |by: &str, secs: i64| Act {
            kind: InterventionKind::NewEpisode,
            by: by.into(),
            at: ts(secs),
        };
        let placed = place(
            &[
                act("a", 900),
                act("a", 1050),
                act("b", 1099),
                act("a", 1150),
                act("a", 5000),
            ],
            &h.its,
            pushed,
        );
        let after: Vec<&str> = placed.iter().map(|p| p.after.short()).collect();
        assert_eq!(after, ["c00aaaa", "c01aaaa", "c03aaaa"]);
        // A resume and a turn after the same head are both kept.
        let both = place(
            &[
                act("a", 1050),
                Act {
                    kind: InterventionKind::Resume,
                    ..act("a", 1060)
                },
            ],
            &h.its,
            pushed,
        );
        assert_eq!(both.len(), 2);
    }
}
