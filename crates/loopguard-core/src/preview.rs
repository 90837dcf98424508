//! What a config would have done on a history no agent wrote: windows of consecutive
//! commits, each judged from scratch as a run of its own (`check --windows`, and `init`'s
//! preview). Good work is no loop, so every trip here is a trip a maintainer would see on
//! their own repository before any agent runs: true, harmless or false, for them to judge.

use serde::Serialize;

use crate::config::Config;
use crate::ids::CommitId;
use crate::iteration::Iteration;
use crate::rules::{Limit, RuleName};
use crate::run::judge;
use crate::{breaker::EventKind, iteration::IterationKind};

/// A commit a trip names: its id and subject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Named {
    pub id: CommitId,
    pub subject: String,
}

/// One trip in one window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WindowTrip {
    /// The window, counted from the newest (1).
    pub window: usize,
    pub rule: RuleName,
    pub reason: String,
    /// The commit it tripped at.
    pub at: CommitId,
    /// The commits that show it, oldest first, the trip's own last: the one commit when
    /// one is enough (`constraint`), else the streak the rule counts and the commit before
    /// it, at most the config's `window`.
    pub commits: Vec<Named>,
}

/// What the config did on every window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preview {
    /// Windows judged.
    pub windows: usize,
    /// Commits each window holds (attempts; with `agents`, the agent's).
    pub size: usize,
    /// Only the agent's commits were attempts (`agents` configured).
    pub agents_only: bool,
    /// The first commit of the oldest window and the last of the newest.
    pub from: Option<CommitId>,
    pub to: Option<CommitId>,
    /// Every trip, newest window first.
    pub trips: Vec<WindowTrip>,
    /// Windows with a warning and no trip, by rule (a window counts once per rule), most
    /// first.
    pub warned: Vec<RuleCount>,
}

/// How many windows a rule tripped or warned in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    pub rule: RuleName,
    pub windows: usize,
}

/// Adds one window to `rule`'s count.
fn count(counts: &mut Vec<RuleCount>, rule: RuleName) {
    match counts.iter_mut().find(|c| c.rule == rule) {
        Some(c) => c.windows += 1,
        None => counts.push(RuleCount { rule, windows: 1 }),
    }
}

/// Most first, ties in the rules' order.
fn sort(counts: &mut [RuleCount]) {
    counts.sort_by(|a, b| b.windows.cmp(&a.windows).then(a.rule.cmp(&b.rule)));
}

impl Preview {
    /// Windows that tripped at least once.
    pub fn tripped_windows(&self) -> usize {
        let mut windows: Vec<usize> = self.trips.iter().map(|t| t.window).collect();
        windows.dedup();
        windows.len()
    }

    /// Trips by rule, most first (ties in the rules' order).
    pub fn by_rule(&self) -> Vec<RuleCount> {
        let mut counts = Vec::new();
        for t in &self.trips {
            count(&mut counts, t.rule);
        }
        sort(&mut counts);
        counts
    }
}

/// Judges each of `windows` (newest first; each oldest first, with its context commits)
/// by `config` as a run of its own.
pub fn preview(
    config: &Config,
    windows: Vec<Vec<Iteration>>,
    size: usize,
    now: jiff::Timestamp,
) -> Preview {
    let mut out = Preview {
        windows: windows.len(),
        size,
        agents_only: !config.agents.is_empty(),
        from: windows
            .last()
            .and_then(|w| w.first())
            .map(|it| it.id.clone()),
        to: windows
            .first()
            .and_then(|w| w.last())
            .map(|it| it.id.clone()),
        trips: Vec::new(),
        warned: Vec::new(),
    };
    for (k, history) in windows.into_iter().enumerate() {
        let j = judge(config, history, "preview", now);
        let named: Vec<(CommitId, String, bool)> = j
            .run
            .iterations()
            .iter()
            .map(|it| {
                let attempt = it.kind != Some(IterationKind::Context);
                (it.id.clone(), it.subject().to_owned(), attempt)
            })
            .collect();
        let mut warned: Vec<RuleName> = Vec::new();
        let mut tripped = false;
        for e in &j.events {
            match (e.kind, e.rule, &e.iteration) {
                (EventKind::Trip | EventKind::Reopen, Some(rule), Some(at)) => {
                    tripped = true;
                    out.trips.push(WindowTrip {
                        window: k + 1,
                        rule,
                        reason: e.reason.clone().unwrap_or_default(),
                        at: at.clone(),
                        commits: looked_back(&named, at, shown(&j.evaluation, rule, config)),
                    });
                }
                (EventKind::Warn, Some(rule), _) if !warned.contains(&rule) => warned.push(rule),
                _ => {}
            }
        }
        if !tripped {
            for rule in warned {
                count(&mut out.warned, rule);
            }
        }
    }
    sort(&mut out.warned);
    out
}

/// How many commits a trip of `rule` shows: the one that tripped, when one commit is
/// enough (`constraint`); else the streak the rule counts and the commit before it (the
/// tree or patch returned to), at most the rules' `window`.
fn shown(evaluation: &crate::rules::Evaluation, rule: RuleName, config: &Config) -> usize {
    let threshold = evaluation.counters.get(&rule).map_or(1, |c| match c.limit {
        Limit::AtLeast(n) => n,
        Limit::Share { of, .. } => of,
    });
    if threshold <= 1 {
        1
    } else {
        usize::try_from(threshold + 1)
            .unwrap_or(usize::MAX)
            .min(config.window as usize)
    }
}

/// The last `window` commits up to `at` (attempts only, and `at`), oldest first.
fn looked_back(named: &[(CommitId, String, bool)], at: &CommitId, window: usize) -> Vec<Named> {
    let end = named
        .iter()
        .position(|(id, ..)| id == at)
        .map_or(named.len(), |i| i + 1);
    let mut picked: Vec<Named> = named[..end]
        .iter()
        .rev()
        .filter(|(id, _, attempt)| *attempt || id == at)
        .take(window.max(1))
        .map(|(id, subject, _)| Named {
            id: id.clone(),
            subject: subject.clone(),
        })
        .collect();
    picked.reverse();
    picked
}

/// The preview for a terminal: what `profile` would have done, each trip with its commits.
/// Subjects are the commits' own text: made printable.
pub fn text(p: &Preview, profile: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let whose = if p.agents_only {
        "the agent's commits"
    } else {
        "first-parent commits"
    };
    let span = match (&p.from, &p.to) {
        (Some(from), Some(to)) => format!(", {}..{}", from.short(), to.short()),
        _ => String::new(),
    };
    let windows = |n: usize| if n == 1 { "window" } else { "windows" };
    let _ = writeln!(
        out,
        "preview: profile {profile} on {} {} of {} {whose}, the newest first{span}",
        p.windows,
        windows(p.windows),
        p.size
    );
    let tripped = p.tripped_windows();
    if tripped == 0 {
        let _ = writeln!(out, "  no window trips");
    } else {
        let rules: Vec<String> = p
            .by_rule()
            .iter()
            .map(|c| format!("{} {}", c.rule, c.windows))
            .collect();
        let _ = writeln!(
            out,
            "  {tripped} of {} {} trip{} ({:.0}%): {}",
            p.windows,
            windows(p.windows),
            if p.windows == 1 { "s" } else { "" },
            100.0 * tripped as f64 / p.windows.max(1) as f64,
            rules.join(", ")
        );
    }
    for t in &p.trips {
        let _ = writeln!(
            out,
            "  window {} trips {} at {}: {}",
            t.window,
            t.rule,
            t.at.short(),
            crate::sanitize::printable(&t.reason)
        );
        for c in &t.commits {
            let subject: String = c.subject.chars().take(72).collect();
            let _ = writeln!(
                out,
                "    {} {}",
                c.id.short(),
                crate::sanitize::printable(&subject)
            );
        }
    }
    if !p.warned.is_empty() {
        let rules: Vec<String> = p
            .warned
            .iter()
            .map(|c| format!("{} {}", c.rule, c.windows))
            .collect();
        let _ = writeln!(
            out,
            "  windows that warn without tripping: {}",
            rules.join(", ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{History, ts};

    #[test]
    fn each_window_is_judged_from_scratch_and_its_trip_shows_its_streak() {
        let config = Config::default();
        // The newest window: three empty commits after one with code (stagnation at 3).
        let stuck = History::new().fresh().empty().empty().empty().its;
        // An older one: every commit new code.
        let good = History::new().fresh().fresh().fresh().fresh().its;
        let p = preview(&config, vec![stuck.clone(), good], 4, ts(10_000));
        assert_eq!(p.windows, 2);
        assert_eq!(p.tripped_windows(), 1);
        assert_eq!(p.trips.len(), 1, "{p:?}");
        let trip = &p.trips[0];
        assert_eq!((trip.window, trip.rule), (1, RuleName::Stagnation));
        assert_eq!(trip.at, stuck[3].id);
        // The streak of three and the commit before it.
        let ids: Vec<&CommitId> = trip.commits.iter().map(|c| &c.id).collect();
        assert_eq!(ids, stuck.iter().map(|it| &it.id).collect::<Vec<_>>());
        assert_eq!(
            p.by_rule(),
            [RuleCount {
                rule: RuleName::Stagnation,
                windows: 1
            }]
        );
        let shown = text(&p, "balanced");
        assert!(
            shown.contains("1 of 2 windows trip (50%): stagnation 1"),
            "{shown}"
        );
        assert!(shown.contains("    c03aaaa Initial plan\n"), "{shown}");
    }

    #[test]
    fn a_window_that_only_warns_is_counted_once_per_rule() {
        let config = Config::default();
        // Only tests touched, again and again: test_only warns (its action is warn).
        let mut h = History::new();
        for _ in 0..6 {
            h = h.fresh().files(&["tests/test_a.py"]);
        }
        let p = preview(&config, vec![h.its], 6, ts(10_000));
        assert!(p.trips.is_empty(), "{p:?}");
        assert_eq!(
            p.warned,
            [RuleCount {
                rule: RuleName::TestOnly,
                windows: 1
            }]
        );
    }
}
