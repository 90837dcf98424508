//! The branch's own line of a history: what is an attempt and what a merge brought in.
//!
//! An agent works on a branch one commit after another: its attempts are the branch's
//! first-parent chain. A merge brings in commits that were made elsewhere (main's commits
//! merged into the branch, a side branch merged into main, a rebased copy of a commit that
//! also sits on a merged side branch): they are context, already carried by the merge that
//! brought them, and judging them one by one would count other people's work as attempts
//! and a commit that exists twice as a re-applied patch. Pure: ids and parents in, which to
//! keep out.

use std::collections::{HashMap, HashSet};

use crate::ids::CommitId;
use crate::iteration::Iteration;

/// Which of `commits` (in any order; each with its id and its parents, first parent first,
/// `None` when unknown) are on the first-parent line of a tip: a commit no other commit
/// here has as a parent. Every tip's line is kept (`A...B` has two), and a commit whose
/// parents are unknown is its own line: a history without parents keeps everything.
pub fn on_line<T>(
    commits: &[T],
    id: impl Fn(&T) -> &CommitId,
    parents: impl Fn(&T) -> Option<&[CommitId]>,
) -> Vec<bool> {
    let index: HashMap<&CommitId, usize> = commits
        .iter()
        .enumerate()
        .map(|(i, c)| (id(c), i))
        .collect();
    let referenced: HashSet<&CommitId> = commits
        .iter()
        .flat_map(|c| parents(c).unwrap_or_default())
        .collect();
    let mut keep = vec![false; commits.len()];
    for (tip, c) in commits.iter().enumerate() {
        if referenced.contains(id(c)) {
            continue;
        }
        let mut next = Some(tip);
        while let Some(i) = next.take() {
            if keep[i] {
                break;
            }
            keep[i] = true;
            next = parents(&commits[i])
                .and_then(|p| p.first())
                .and_then(|p| index.get(p).copied());
        }
    }
    keep
}

/// The iterations of `history` on the branch's own line (see [`on_line`]), in their order.
/// A test run on the working tree (`uncommitted`) is never a merged-in commit: it stays.
pub fn line_of(history: Vec<Iteration>) -> Vec<Iteration> {
    let keep = on_line(&history, |it| &it.id, |it| it.parents.as_deref());
    history
        .into_iter()
        .zip(keep)
        .filter(|(it, keep)| *keep || it.uncommitted)
        .map(|(it, _)| it)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::id;

    fn commit(name: &str, parents: &[&str]) -> (CommitId, Option<Vec<CommitId>>) {
        (id(name), Some(parents.iter().map(|p| id(p)).collect()))
    }

    fn kept(commits: &[(CommitId, Option<Vec<CommitId>>)]) -> Vec<&str> {
        let keep = on_line(commits, |c| &c.0, |c| c.1.as_deref());
        commits
            .iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(c, _)| c.0.as_str())
            .collect()
    }

    #[test]
    fn merged_in_commits_are_not_on_the_line() {
        // main: a - b - M(b, s2) - c ; side: a - s1 - s2
        let history = [
            commit("a", &[]),
            commit("s1", &["a"]),
            commit("b", &["a"]),
            commit("s2", &["s1"]),
            commit("m", &["b", "s2"]),
            commit("c", &["m"]),
        ];
        assert_eq!(kept(&history), ["a", "b", "m", "c"]);
    }

    #[test]
    fn the_branch_merging_main_keeps_its_own_commits() {
        // The agent's branch (first parent) merges main (second parent) twice.
        let history = [
            commit("x1", &["base"]),
            commit("main1", &["base"]),
            commit("x2", &["x1"]),
            commit("merge1", &["x2", "main1"]),
            commit("main2", &["main1"]),
            commit("merge2", &["merge1", "main2"]),
            commit("x3", &["merge2"]),
        ];
        assert_eq!(kept(&history), ["x1", "x2", "merge1", "merge2", "x3"]);
    }

    #[test]
    fn unknown_parents_and_several_tips_keep_their_lines() {
        let none = [(id("a"), None), (id("b"), None)];
        assert_eq!(kept(&none), ["a", "b"]);
        // `A...B`: both sides are lines of their own.
        let both = [commit("l1", &["base"]), commit("r1", &["base"])];
        assert_eq!(kept(&both), ["l1", "r1"]);
    }

    #[test]
    fn uncommitted_test_runs_stay() {
        let mut c1 = Iteration::new(id("c1"));
        c1.parents = Some(vec![id("base")]);
        let mut run = Iteration::new(id("worktree-1"));
        run.parents = Some(vec![id("c1")]);
        run.uncommitted = true;
        let mut c2 = Iteration::new(id("c2"));
        c2.parents = Some(vec![id("c1")]);
        let line: Vec<_> = line_of(vec![c1, run, c2])
            .into_iter()
            .map(|it| it.id.as_str().to_owned())
            .collect();
        assert_eq!(line, ["c1", "worktree-1", "c2"]);
    }
}
