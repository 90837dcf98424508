//! What a loop cost in CI: the workflow runs of its commits and their CI minutes, since
//! its first repeated failure, from the runs' own timings (`run_started_at` to
//! `updated_at` of each run GitHub lists). The sticky comment keeps only the sums
//! ([`LoopCost`]), so its state stays the same size however long the loop goes on.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::github::types::WorkflowRun;
use crate::ids::CommitId;
use crate::report::Status;

/// The runs and CI time of a loop, since its first repeated failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopCost {
    /// The loop's first commit: its first repeated failure.
    pub since: CommitId,
    /// Workflow runs of the loop's commits.
    pub runs: u64,
    /// Their time, from each run's start to its last update, in seconds.
    pub seconds: u64,
}

impl LoopCost {
    /// The cost of the loop of `commits` (since `commits[0]`) over the runs listed: each
    /// run of one of them counts, with its own time, and so does each attempt of a run
    /// re-run, listed as the run it was (see [`LoopCost::earlier_attempts`]). `None` when
    /// none of them ran.
    pub fn of(commits: &[CommitId], runs: &[WorkflowRun]) -> Option<LoopCost> {
        let since = commits.first()?.clone();
        let ours: BTreeSet<&str> = commits.iter().map(CommitId::as_str).collect();
        let mut cost = LoopCost {
            since,
            runs: 0,
            seconds: 0,
        };
        for run in runs.iter().filter(|r| ours.contains(r.head_sha.as_str())) {
            cost.runs += 1;
            if let (Some(start), Some(end)) = (run.run_started_at, run.updated_at) {
                cost.seconds += end.duration_since(start).as_secs().max(0).unsigned_abs();
            }
        }
        (cost.runs > 0).then_some(cost)
    }

    /// The attempts to read, as `(run id, attempt)`, of the runs of `commits` that were
    /// re-run: a listed run is its latest attempt (`run_attempt`), with that attempt's
    /// times; the ones before it ran too.
    pub fn earlier_attempts(commits: &[CommitId], runs: &[WorkflowRun]) -> Vec<(u64, u64)> {
        let ours: BTreeSet<&str> = commits.iter().map(CommitId::as_str).collect();
        runs.iter()
            .filter(|r| ours.contains(r.head_sha.as_str()))
            .flat_map(|r| (1..r.run_attempt.unwrap_or(1)).map(move |n| (r.id, n)))
            .collect()
    }

    /// CI minutes, a started minute counted whole.
    pub fn minutes(&self) -> u64 {
        self.seconds.div_ceil(60)
    }
}

impl fmt::Display for LoopCost {
    /// `3 runs, 14 CI minutes since its first repeated failure (abc1234)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let runs = if self.runs == 1 { "run" } else { "runs" };
        let minutes = if self.minutes() == 1 {
            "CI minute"
        } else {
            "CI minutes"
        };
        write!(
            f,
            "{} {runs}, {} {minutes} since its first repeated failure ({})",
            self.runs,
            self.minutes(),
            self.since.short()
        )
    }
}

/// The commits of the loop a status stops, oldest first: from its first repeated failure
/// (the first run of the failure that loops, in the streak of it at the end) or, for a
/// loop with no failure, from the first attempt after the last progress, to the newest.
/// `None` while the breaker is closed.
pub fn loop_commits(s: &Status) -> Option<Vec<CommitId>> {
    if s.rule.is_none() || s.rows.is_empty() {
        return None;
    }
    let looping = s
        .looping_failure
        .as_ref()
        .and_then(|t| t.signature.as_ref());
    let start = match looping {
        Some(sig) => {
            // Walk back over the streak of this failure: a pass or another failure ends it.
            let mut start = None;
            for (i, r) in s.rows.iter().enumerate().rev() {
                match &r.test {
                    None => {}
                    Some(t) if t.fails() && t.signature.as_ref() == Some(sig) => start = Some(i),
                    Some(_) => break,
                }
            }
            start
        }
        None => None,
    };
    let start = start.unwrap_or_else(|| {
        s.rows
            .iter()
            .rposition(|r| r.progress)
            .map_or(0, |p| (p + 1).min(s.rows.len() - 1))
    });
    Some(s.rows[start..].iter().map(|r| r.id.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: u64, sha: &str, start: &str, end: &str) -> WorkflowRun {
        serde_json::from_value(serde_json::json!({
            "id": id, "head_sha": sha, "event": "pull_request", "run_number": id,
            "pull_requests": [], "run_started_at": start, "updated_at": end,
        }))
        .unwrap()
    }

    #[test]
    fn the_runs_of_the_loops_commits_and_their_time() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let c = "c".repeat(40);
        let commits: Vec<CommitId> = [&b, &c].iter().map(|s| s.parse().unwrap()).collect();
        let runs = [
            run(1, &a, "2026-11-25T10:00:00Z", "2026-11-25T10:30:00Z"),
            run(2, &b, "2026-11-25T11:00:00Z", "2026-11-25T11:04:10Z"),
            run(3, &c, "2026-11-25T11:10:00Z", "2026-11-25T11:15:00Z"),
            run(4, &c, "2026-11-25T11:20:00Z", "2026-11-25T11:21:00Z"),
        ];
        let cost = LoopCost::of(&commits, &runs).unwrap();
        assert_eq!((cost.runs, cost.seconds), (3, 250 + 300 + 60));
        assert_eq!(
            cost.to_string(),
            "3 runs, 11 CI minutes since its first repeated failure (bbbbbbb)"
        );
        assert_eq!(LoopCost::of(&[], &runs), None);
        // Run 3 was re-run twice: its attempts 1 and 2 are to be read; run 1 is not ours.
        let mut rerun = runs.to_vec();
        rerun[2].run_attempt = Some(3);
        rerun[0].run_attempt = Some(2);
        assert_eq!(
            LoopCost::earlier_attempts(&commits, &rerun),
            [(3, 1), (3, 2)]
        );
        assert_eq!(LoopCost::of(&commits, &runs[..1]), None, "none of them ran");
    }
}
