//! A PR's timeline (`GET /repos/{o}/{r}/issues/{n}/timeline`) as loopguard reads it: who
//! did what, and when, in GitHub's own record — what no token of the agent's can edit. A
//! comment's body can be edited by anyone who may write; its author and time cannot, and
//! neither can a review's, nor who took a label off.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::types::{Label, User, nullable};

/// One entry of a timeline, the fields loopguard reads. Entries differ by `event`:
/// `commented` (an issue comment: `id`, `user`, `created_at`, `author_association`),
/// `reviewed` (`id`, `user`, `submitted_at`, `state`, `author_association`),
/// `labeled` / `unlabeled` (`actor`, `created_at`, `label`), `head_ref_force_pushed`
/// (`actor`, `created_at`), and many others loopguard leaves alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimelineEvent {
    #[serde(default, deserialize_with = "nullable")]
    pub event: String,
    /// The comment's or review's id (absent on `committed` entries).
    #[serde(default)]
    pub id: Option<u64>,
    /// Who did it (label and push events; also present on `commented`).
    #[serde(default)]
    pub actor: Option<User>,
    /// Who wrote it (`commented`, `reviewed`).
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default)]
    pub created_at: Option<Timestamp>,
    /// When a review was submitted (`reviewed` has no `created_at`).
    #[serde(default)]
    pub submitted_at: Option<Timestamp>,
    /// A review's state: `approved`, `changes_requested`, `commented`, `dismissed`.
    #[serde(default)]
    pub state: Option<String>,
    /// `OWNER`, `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`, `NONE`, …
    #[serde(default)]
    pub author_association: Option<String>,
    #[serde(default)]
    pub label: Option<Label>,
}

/// What an entry is, of the kinds loopguard reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineKind {
    Commented,
    Reviewed,
    Labeled,
    Unlabeled,
    ForcePushed,
    /// Anything else (`committed`, `assigned`, `renamed`, …).
    Other,
}

impl TimelineEvent {
    pub fn kind(&self) -> TimelineKind {
        match self.event.as_str() {
            "commented" => TimelineKind::Commented,
            "reviewed" => TimelineKind::Reviewed,
            "labeled" => TimelineKind::Labeled,
            "unlabeled" => TimelineKind::Unlabeled,
            "head_ref_force_pushed" => TimelineKind::ForcePushed,
            _ => TimelineKind::Other,
        }
    }

    /// Who did it: a comment's or review's author, else the event's actor.
    pub fn who(&self) -> Option<&User> {
        self.user.as_ref().or(self.actor.as_ref())
    }

    /// When it happened: a review's submission, else the entry's creation.
    pub fn when(&self) -> Option<Timestamp> {
        self.submitted_at.or(self.created_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_timeline_entries_read_as_their_kind_author_and_time() {
        // Shapes as GitHub's REST docs give them (trimmed of the URLs).
        let entries: Vec<TimelineEvent> = serde_json::from_str(
            r#"[
          {"id": 6430295168, "node_id": "LE_1", "event": "unlabeled",
           "actor": {"login": "maintainer", "id": 1, "type": "User"},
           "commit_id": null, "created_at": "2026-11-25T11:00:00Z",
           "label": {"name": "loopguard:stuck", "color": "b60205"},
           "performed_via_github_app": null},
          {"event": "reviewed", "id": 80, "node_id": "PRR_1",
           "user": {"login": "reviewer", "id": 2, "type": "User"}, "body": null,
           "state": "changes_requested", "submitted_at": "2026-11-25T11:05:00Z",
           "author_association": "MEMBER", "commit_id": "abc"},
          {"event": "commented", "id": 90, "node_id": "IC_1", "body": "hm",
           "actor": {"login": "someone", "id": 3, "type": "User"},
           "user": {"login": "someone", "id": 3, "type": "User"},
           "created_at": "2026-11-25T11:06:00Z", "updated_at": "2026-11-25T12:06:00Z",
           "author_association": "NONE"},
          {"event": "committed", "sha": "abc", "message": "x",
           "author": {"name": "a", "email": "a@b", "date": "2026-11-25T10:00:00Z"}},
          {"id": 7, "event": "head_ref_force_pushed",
           "actor": {"login": "Copilot", "id": 4, "type": "Bot"},
           "commit_id": "def", "created_at": "2026-11-25T11:10:00Z"}
        ]"#,
        )
        .unwrap();
        let kinds: Vec<TimelineKind> = entries.iter().map(TimelineEvent::kind).collect();
        assert_eq!(
            kinds,
            [
                TimelineKind::Unlabeled,
                TimelineKind::Reviewed,
                TimelineKind::Commented,
                TimelineKind::Other,
                TimelineKind::ForcePushed
            ]
        );
        let who: Vec<Option<&str>> = entries
            .iter()
            .map(|e| e.who().map(|u| u.login.as_str()))
            .collect();
        assert_eq!(
            who,
            [
                Some("maintainer"),
                Some("reviewer"),
                Some("someone"),
                None,
                Some("Copilot")
            ]
        );
        assert_eq!(
            entries[1].when(),
            Some("2026-11-25T11:05:00Z".parse().unwrap())
        );
        assert_eq!(entries[0].label.as_ref().unwrap().name, "loopguard:stuck");
    }
}
