//! What to write to GitHub after a verdict: the label, the stuck-loop issue, the sticky
//! comment. Pure: the shell reads the facts, this decides, the shell writes.

use crate::breaker::State;
use crate::config::{Config, Notify};

use super::state::{IssueRef, Verdict};

/// Where reports go for this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Channels {
    pub label: bool,
    pub comment: bool,
    pub issue: bool,
}

impl Channels {
    /// The PR channels `on_trip.notify` asks for; none when this run may not write to a
    /// PR (`push`, no PR found, a fork's read-only token).
    pub fn from_config(config: &Config, pr_writes: bool) -> Channels {
        let has = |n| pr_writes && config.on_trip.notify.contains(&n);
        Channels {
            label: has(Notify::Label),
            comment: has(Notify::Comment),
            issue: has(Notify::Issue),
        }
    }
}

/// What to do with the stuck-loop issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueAction {
    Nothing,
    Create,
    /// Write title and body, and open it if closed.
    Update {
        number: u64,
    },
    /// Write title and body, and close it (the PR recovered).
    Close {
        number: u64,
    },
}

/// What to do with the sticky comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentAction {
    Nothing,
    Create,
    Update { id: u64 },
}

/// The writes of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub add_label: bool,
    pub remove_label: bool,
    pub issue: IssueAction,
}

/// The facts the plan is made from.
pub struct Facts<'a> {
    pub channels: Channels,
    pub state: State,
    pub label_on_pr: bool,
    /// The issue as loopguard last wrote it (from the state, or found by its marker).
    pub issue: Option<&'a IssueRef>,
    /// Digest of the title and body the issue would get now.
    pub issue_digest: &'a str,
}

/// Label and issue writes for a verdict.
pub fn plan(f: &Facts<'_>) -> Plan {
    let open = f.state == State::Open;
    let add_label = f.channels.label && open && !f.label_on_pr;
    // The label only belongs on an open breaker; whoever put it there, loopguard takes it
    // off when the breaker is not open (a maintainer's removal already did that).
    let remove_label = f.channels.label && !open && f.label_on_pr;
    let issue = if !f.channels.issue {
        IssueAction::Nothing
    } else {
        match (f.state, f.issue) {
            (State::Open, None) => IssueAction::Create,
            (State::Open, Some(i)) if !i.open || i.digest != f.issue_digest => {
                IssueAction::Update { number: i.number }
            }
            (State::HalfOpen, Some(i)) if i.open && i.digest != f.issue_digest => {
                IssueAction::Update { number: i.number }
            }
            (State::Closed, Some(i)) if i.open => IssueAction::Close { number: i.number },
            _ => IssueAction::Nothing,
        }
    };
    Plan {
        add_label,
        remove_label,
        issue,
    }
}

/// The sticky comment: created on the first run with something to keep, updated when its
/// body changed, left alone otherwise.
pub fn comment_action(
    channels: Channels,
    existing: Option<(u64, &str)>,
    wanted: &str,
) -> CommentAction {
    if !channels.comment {
        return CommentAction::Nothing;
    }
    match existing {
        None => CommentAction::Create,
        Some((id, body)) if normalise(body) != normalise(wanted) => CommentAction::Update { id },
        Some(_) => CommentAction::Nothing,
    }
}

/// GitHub may hand a body back with CRLF and without the final newline.
fn normalise(body: &str) -> String {
    body.replace("\r\n", "\n").trim_end().to_owned()
}

/// The verdict to remember; `run` is the workflow run that last changed the state.
pub fn verdict(
    head: &crate::ids::CommitId,
    status: &crate::report::Status,
    run: Option<u64>,
) -> Verdict {
    Verdict::of(head, status, run)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Channels = Channels {
        label: true,
        comment: true,
        issue: true,
    };

    fn issue(open: bool, digest: &str) -> IssueRef {
        IssueRef {
            number: 12,
            digest: digest.into(),
            open,
        }
    }

    fn facts<'a>(state: State, label: bool, issue: Option<&'a IssueRef>) -> Facts<'a> {
        Facts {
            channels: ALL,
            state,
            label_on_pr: label,
            issue,
            issue_digest: "d1",
        }
    }

    #[test]
    fn plan_table() {
        let same = issue(true, "d1");
        let stale = issue(true, "d0");
        let closed = issue(false, "d1");
        let cases: Vec<(Facts<'_>, Plan)> = vec![
            (
                facts(State::Open, false, None),
                Plan {
                    add_label: true,
                    remove_label: false,
                    issue: IssueAction::Create,
                },
            ),
            // Steady state: everything already says so.
            (
                facts(State::Open, true, Some(&same)),
                Plan {
                    add_label: false,
                    remove_label: false,
                    issue: IssueAction::Nothing,
                },
            ),
            (
                facts(State::Open, true, Some(&stale)),
                Plan {
                    add_label: false,
                    remove_label: false,
                    issue: IssueAction::Update { number: 12 },
                },
            ),
            // Tripped again after a recovery: the closed issue opens again.
            (
                facts(State::Open, false, Some(&closed)),
                Plan {
                    add_label: true,
                    remove_label: false,
                    issue: IssueAction::Update { number: 12 },
                },
            ),
            (
                facts(State::Closed, true, Some(&same)),
                Plan {
                    add_label: false,
                    remove_label: true,
                    issue: IssueAction::Close { number: 12 },
                },
            ),
            (
                facts(State::Closed, false, Some(&closed)),
                Plan {
                    add_label: false,
                    remove_label: false,
                    issue: IssueAction::Nothing,
                },
            ),
            (
                facts(State::HalfOpen, false, Some(&stale)),
                Plan {
                    add_label: false,
                    remove_label: false,
                    issue: IssueAction::Update { number: 12 },
                },
            ),
            (
                facts(State::Closed, false, None),
                Plan {
                    add_label: false,
                    remove_label: false,
                    issue: IssueAction::Nothing,
                },
            ),
        ];
        for (f, want) in cases {
            assert_eq!(
                plan(&f),
                want,
                "{:?} label={} issue={:?}",
                f.state,
                f.label_on_pr,
                f.issue
            );
        }
        let none = Facts {
            channels: Channels::default(),
            ..facts(State::Open, false, None)
        };
        assert_eq!(
            plan(&none),
            Plan {
                add_label: false,
                remove_label: false,
                issue: IssueAction::Nothing
            }
        );
    }

    #[test]
    fn channels_follow_notify_and_permission() {
        let mut c = Config::default();
        assert_eq!(Channels::from_config(&c, true), Channels::default());
        c.on_trip.notify = vec![Notify::Summary, Notify::Label, Notify::Issue];
        let ch = Channels::from_config(&c, true);
        assert!(ch.label && ch.issue && !ch.comment);
        assert_eq!(Channels::from_config(&c, false), Channels::default());
    }

    #[test]
    fn comment_written_only_when_its_body_changes() {
        assert_eq!(comment_action(ALL, None, "a"), CommentAction::Create);
        assert_eq!(
            comment_action(ALL, Some((5, "a\r\nb\n")), "a\nb"),
            CommentAction::Nothing
        );
        assert_eq!(
            comment_action(ALL, Some((5, "a")), "b"),
            CommentAction::Update { id: 5 }
        );
        assert_eq!(
            comment_action(Channels::default(), None, "a"),
            CommentAction::Nothing
        );
    }
}
