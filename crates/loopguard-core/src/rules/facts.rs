//! What each attempt shows, computed once in a forward pass over the history; the rules
//! then only count.

use std::collections::HashSet;

use crate::agents::AgentFilter;
use crate::config::Config;
use crate::iteration::{FileStatus, Iteration, IterationKind, Outcome, TestEvidence};

/// The facts about one attempt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// Index into the history.
    pub index: usize,
    /// The tree differs from every state in the window before it (`None`: unknown).
    pub tree_novel: Option<bool>,
    /// The change is known to be empty (tree == parent tree, or no files).
    pub empty: bool,
    pub whitespace_only: bool,
    /// The tree returned to an earlier, non-adjacent state: the id of that iteration.
    pub returns_to: Option<String>,
    /// The return only walks further back after the previous attempt's return (revert the
    /// last change, then the one before it): unwinding, not flipping; not counted.
    pub unwinds: bool,
    /// Where the returned-to state sits in the history (`2·index` for the state before
    /// iteration `index`, `2·index + 1` for its own tree), to tell unwinding from flipping.
    pub state_position: Option<usize>,
    /// The patch id equals an earlier attempt's: that attempt's id.
    pub repeats: Option<String>,
    /// The test outcome improved (fail -> pass, fewer failures, a new signature).
    pub test_improved: bool,
    /// Progress: a new tree that is not whitespace-only, or improved tests.
    pub progress: bool,
    /// The message claims completion.
    pub claims_done: bool,
    /// The latest test evidence at this attempt passes.
    pub backed_by_pass: bool,
    /// The outcome of the latest test evidence at this attempt, if any.
    pub latest_outcome: Option<Outcome>,
    /// Non-empty change that only touched test paths.
    pub test_only: bool,
    /// Constraint violations, human-readable.
    pub violations: Vec<String>,
}

/// The attempts of a history, with their facts, oldest first.
pub fn attempts(config: &Config, history: &[Iteration]) -> Vec<Facts> {
    let filter = AgentFilter::for_history(config, history);
    let window = config.window as usize;
    let attempt_idx: Vec<usize> = history
        .iter()
        .enumerate()
        .filter(|(_, it)| filter.kind(config, it) == IterationKind::Attempt)
        .map(|(i, _)| i)
        .collect();

    let mut out: Vec<Facts> = Vec::with_capacity(attempt_idx.len());
    for (n, &i) in attempt_idx.iter().enumerate() {
        let it = &history[i];
        // The window: this attempt and the `window - 1` attempts before it, plus any
        // context commits between them.
        let first = attempt_idx[n.saturating_sub(window.saturating_sub(1))];
        let earlier_attempts = &attempt_idx[n.saturating_sub(window.saturating_sub(1))..n];
        let mut f = Facts {
            index: i,
            empty: it.is_empty_change(),
            whitespace_only: it.whitespace_only == Some(true),
            claims_done: it
                .claims_done
                .unwrap_or_else(|| it.message.as_deref().is_some_and(|m| config.claims_done(m))),
            ..Facts::default()
        };

        if let Some(tree) = &it.tree {
            let mut states: HashSet<&str> = HashSet::new();
            let mut non_adjacent: Vec<(&str, &str, usize)> = Vec::new();
            for (k, earlier) in history[first..i].iter().enumerate() {
                let at = 2 * (first + k);
                for (t, pos) in [(&earlier.parent_tree, at), (&earlier.tree, at + 1)] {
                    let Some(t) = t else { continue };
                    states.insert(t);
                    if Some(t) != it.parent_tree.as_ref() {
                        non_adjacent.push((t, &earlier.id, pos));
                    }
                }
            }
            if let Some(p) = &it.parent_tree {
                states.insert(p);
            }
            f.tree_novel = Some(!states.contains(tree.as_str()));
            // The newest earlier occurrence of this state.
            if let Some((_, id, pos)) = non_adjacent.iter().rev().find(|(t, _, _)| *t == tree) {
                f.returns_to = Some((*id).to_owned());
                f.state_position = Some(*pos);
                let previous = out.iter().rev().find(|p: &&Facts| !p.empty);
                f.unwinds = previous
                    .and_then(|p| p.state_position)
                    .is_some_and(|before| *pos < before);
            }
        }

        if let Some(pid) = &it.patch_id {
            f.repeats = earlier_attempts
                .iter()
                .map(|&j| &history[j])
                .find(|e| e.patch_id.as_ref() == Some(pid))
                .map(|e| e.id.clone());
        }

        let earlier_evidence = || {
            earlier_attempts
                .iter()
                .rev()
                .filter_map(|&j| history[j].test.as_ref())
        };
        if let Some(t) = &it.test {
            let prev = earlier_evidence().next();
            f.test_improved = improved(t, prev, earlier_evidence());
        }
        f.latest_outcome = it
            .test
            .as_ref()
            .or_else(|| earlier_evidence().next())
            .map(|t| t.outcome);
        f.backed_by_pass = f.latest_outcome == Some(Outcome::Pass);

        let changed = match f.tree_novel {
            Some(novel) => novel && !f.empty,
            // Unknown tree: judge by the files, and by nothing when they are unknown too.
            None => !f.empty,
        };
        f.progress = (changed && !f.whitespace_only) || f.test_improved;

        if let Some(files) = &it.files {
            f.test_only = !files.is_empty() && files.iter().all(|c| config.is_test_path(&c.path));
            f.violations = violations(config, it);
        }
        out.push(f);
    }
    out
}

/// Whether `now` is better than the evidence before it in the window.
fn improved<'a>(
    now: &TestEvidence,
    prev: Option<&TestEvidence>,
    window: impl Iterator<Item = &'a TestEvidence>,
) -> bool {
    match (now.outcome, prev) {
        (Outcome::Pass, None) => true,
        (Outcome::Pass, Some(p)) => p.outcome == Outcome::Fail,
        (Outcome::Fail, prev) => {
            let fewer = matches!(
                (now.failing, prev),
                (Some(n), Some(p)) if p.outcome == Outcome::Fail && p.failing.is_some_and(|pf| n < pf)
            );
            let mut seen = window.filter_map(|t| t.signature.as_deref());
            let new_signature = now
                .signature
                .as_deref()
                .is_some_and(|s| !seen.any(|x| x == s));
            fewer || new_signature
        }
    }
}

fn violations(config: &Config, it: &Iteration) -> Vec<String> {
    let rule = &config.rules.constraint;
    let mut out = Vec::new();
    for file in it.files.iter().flatten() {
        let paths = std::iter::once(&file.path).chain(file.old_path.as_ref());
        if let Some(p) = paths.into_iter().find(|p| rule.protected.is_match(p)) {
            out.push(format!("touched the protected path {p}"));
        }
        if rule.forbid_test_deletions
            && file.status == Some(FileStatus::Deleted)
            && config.is_test_path(&file.path)
        {
            out.push(format!("deleted the test file {}", file.path));
        }
    }
    if rule.forbid_test_skips {
        for skip in it.skips_added.iter().flatten() {
            out.push(format!("added a test skip in {}: {}", skip.path, skip.line));
        }
    }
    out
}
