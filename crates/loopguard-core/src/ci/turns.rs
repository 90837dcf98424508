//! A person's turn in CI: a review or a comment on the PR by someone with write access,
//! between two of the agent's runs, starts a new episode (the loop counters start again;
//! the budget keeps counting; an open breaker is half-open, the next push decides). The
//! agent's own account, the PR's author and bots take no turns; who has write access is
//! the shell's to ask (`collaborators/{user}/permission`), once per person.

use jiff::Timestamp;

use super::state::Resume;
use crate::github::{IssueComment, Review};
use crate::iteration::Iteration;

/// Someone said something on the PR, at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub by: String,
    pub at: Timestamp,
}

/// Associations of people who may have write access (`CONTRIBUTOR`, `NONE`, … have not).
const MAY_WRITE: &[&str] = &["OWNER", "MEMBER", "COLLABORATOR"];

/// The comments and submitted reviews that may be a person's turn, oldest first: by
/// someone who may have write access, not a bot, and none of `not` (the PR's author,
/// loopguard's own account).
pub fn candidates(comments: &[IssueComment], reviews: &[Review], not: &[&str]) -> Vec<Said> {
    let person = |user: Option<&crate::github::User>, association: Option<&str>| {
        let user = user?;
        let bot = user.kind.as_deref() == Some("Bot") || user.login.ends_with("[bot]");
        let may_write = association.is_none_or(|a| MAY_WRITE.contains(&a));
        (!bot && may_write && !user.login.is_empty() && !not.contains(&user.login.as_str()))
            .then(|| user.login.clone())
    };
    let mut out: Vec<Said> = comments
        .iter()
        .filter_map(|c| {
            Some(Said {
                by: person(c.user.as_ref(), c.author_association.as_deref())?,
                at: c.created_at?,
            })
        })
        .chain(reviews.iter().filter_map(|r| {
            Some(Said {
                by: person(r.user.as_ref(), r.author_association.as_deref())?,
                at: r.submitted_at?,
            })
        }))
        .collect();
    out.sort_by_key(|s| s.at);
    out
}

/// Where in the history each turn falls: right after the newest commit made before it
/// (the head the person was looking at). Nothing happens before the first commit, and one
/// turn between two commits is enough.
pub fn place(said: &[Said], history: &[Iteration]) -> Vec<Resume> {
    let mut out: Vec<Resume> = Vec::new();
    for s in said {
        let Some(head) = history
            .iter()
            .filter(|it| !it.uncommitted && it.at.is_some_and(|at| at <= s.at))
            .max_by_key(|it| it.at)
        else {
            continue;
        };
        if out.iter().any(|t| t.after == head.id) {
            continue;
        }
        out.push(Resume {
            after: head.id.clone(),
            at: s.at,
            by: Some(s.by.clone()),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{History, ts};

    fn user(login: &str, kind: &str) -> Option<crate::github::User> {
        Some(crate::github::User {
            login: login.into(),
            id: 1,
            kind: Some(kind.into()),
        })
    }

    fn comment(login: &str, kind: &str, association: &str, secs: i64) -> IssueComment {
        IssueComment {
            user: user(login, kind),
            created_at: Some(ts(secs)),
            author_association: Some(association.into()),
            ..IssueComment::default()
        }
    }

    #[test]
    fn people_who_may_write_take_turns_bots_and_the_author_do_not() {
        let comments = [
            comment("maintainer", "User", "MEMBER", 90),
            comment("github-actions[bot]", "Bot", "NONE", 100),
            comment("Copilot", "Bot", "NONE", 110),
            comment("passer-by", "User", "NONE", 120),
            comment("opener", "User", "OWNER", 130),
        ];
        let reviews = [Review {
            user: user("reviewer", "User"),
            submitted_at: Some(ts(200)),
            author_association: Some("COLLABORATOR".into()),
            ..Review::default()
        }];
        let said = candidates(&comments, &reviews, &["opener"]);
        let who: Vec<&str> = said.iter().map(|s| s.by.as_str()).collect();
        assert_eq!(who, ["maintainer", "reviewer"]);
    }

    #[test]
    fn a_turn_falls_after_the_head_the_person_saw() {
        // Commits at 0, 60, 120, 180.
        let h = History::new().fresh().fresh().fresh().fresh();
        let said = |by: &str, secs: i64| Said {
            by: by.into(),
            at: ts(secs),
        };
        let turns = place(
            &[
                said("a", -10),
                said("a", 70),
                said("b", 100),
                said("a", 500),
            ],
            &h.its,
        );
        let after: Vec<&str> = turns.iter().map(|t| t.after.short()).collect();
        assert_eq!(after, ["c01aaaa", "c03aaaa"]);
    }
}
