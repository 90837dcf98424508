//! What each attempt shows, computed once in a forward pass over the history; the rules
//! then only count.
//!
//! The facts of an attempt depend only on the iterations before it (and itself), so a run
//! extends them as iterations arrive ([`FactsLog::extend`]) and a replay computes each
//! once: O(n · window) for a history of n.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::config::agents::AgentFilter;
use crate::config::{Config, RuleAction};
use crate::ids::CommitId;
use crate::iteration::{FileStatus, Iteration, IterationKind, Outcome, TestEvidence};
use crate::suite::{Doubt, Role, TakenHow, TakenTest};

/// A state the code returned to: the tree of a commit, or the tree before it when the
/// commit before it is not known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EarlierState {
    /// The tree this commit has.
    TreeOf(CommitId),
    /// The tree this commit started from (its parent's, which is not in the history).
    TreeBefore(CommitId),
}

impl std::fmt::Display for EarlierState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EarlierState::TreeOf(id) => write!(f, "the tree of {}", id.short()),
            EarlierState::TreeBefore(id) => write!(f, "the tree before {}", id.short()),
        }
    }
}

/// The facts about one attempt. Derived from the history, never saved, except by a run
/// that no longer keeps the iterations they were computed against (see
/// [`crate::run::Run::compact`]): what is false, zero or empty is left out there.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Facts {
    /// Index into the history.
    pub index: usize,
    /// The tree differs from every state in the window before it (`None`: unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_novel: Option<bool>,
    /// The change is known to be empty (tree == parent tree, or no files).
    #[serde(skip_serializing_if = "is_false")]
    pub empty: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub whitespace_only: bool,
    /// Every changed file is a submodule bump that changes nothing of its own
    /// ([`Iteration::empty_bump`]).
    #[serde(skip_serializing_if = "is_false")]
    pub empty_bump: bool,
    /// The tree returned to an earlier, non-adjacent state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returns_to: Option<EarlierState>,
    /// The return only walks further back after the previous attempt's return (revert the
    /// last change, then the one before it): unwinding, not flipping; not counted.
    #[serde(skip_serializing_if = "is_false")]
    pub unwinds: bool,
    /// Where the returned-to state sits in the history (`2·index` for the state before
    /// iteration `index`, `2·index + 1` for its own tree), to tell unwinding from flipping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_position: Option<usize>,
    /// The patch id equals an earlier attempt's: that attempt's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<CommitId>,
    /// The test outcome improved (fail -> pass, fewer failures, a new signature).
    #[serde(skip_serializing_if = "is_false")]
    pub test_improved: bool,
    /// The code changed: a tree the window has not seen, not empty, not only whitespace,
    /// not only submodules moved to commits that change nothing.
    #[serde(skip_serializing_if = "is_false")]
    pub code_changed: bool,
    /// Progress: the code changed, or the tests improved.
    #[serde(skip_serializing_if = "is_false")]
    pub progress: bool,
    /// The message claims completion.
    #[serde(skip_serializing_if = "is_false")]
    pub claims_done: bool,
    /// The latest test evidence at this attempt passes.
    #[serde(skip_serializing_if = "is_false")]
    pub backed_by_pass: bool,
    /// The outcome of the latest test evidence at this attempt, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_outcome: Option<Outcome>,
    /// Any attempt up to this one carried test evidence.
    #[serde(skip_serializing_if = "is_false")]
    pub evidence_seen: bool,
    /// Non-empty change that only touched test paths.
    #[serde(skip_serializing_if = "is_false")]
    pub test_only: bool,
    /// Constraint violations, human-readable: protected paths touched, tests taken away
    /// that were failing (and, when `without_evidence` trips, those with no evidence).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<String>,
    /// Tests taken away with no evidence either way (warned of, by default).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unproven: Vec<String>,
    /// Tests taken away in a way that may be fine (a note).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub doubtful: Vec<String>,
    /// CI configuration the attempt changed that is not protected (a note, not a trip).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ci_files: Vec<String>,
    /// A tool call: how many calls in a row by the same agent, ending with this one, were
    /// the same call with the same outcome (1: this one is new). 0 for a commit.
    #[serde(skip_serializing_if = "is_zero")]
    pub same_call: u64,
    /// A tool call that failed.
    #[serde(skip_serializing_if = "is_false")]
    pub call_failed: bool,
    /// A tool call that completes an A-B-A-B pattern: the same agent's last four calls
    /// alternate between two calls with their outcomes.
    #[serde(skip_serializing_if = "is_false")]
    pub alternates: bool,
}

impl Facts {
    /// The earlier state this attempt returned to, when that is a loop: a return that
    /// unwinds (walks one step further back right after a return: revert the last change,
    /// then the one before it) is an undo, not a loop, for every rule that counts returns.
    pub fn loops_back(&self) -> Option<&EarlierState> {
        self.returns_to.as_ref().filter(|_| !self.unwinds)
    }

    /// Whether this attempt is stuck: no progress, and not an undo. An unwinding attempt
    /// makes no progress (its tree is an earlier one) and is no loop either: it neither
    /// extends a streak of stuck attempts nor ends one.
    pub fn stalls(&self) -> bool {
        !self.progress && !self.unwinds
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The facts of a history's attempts, oldest first, extended as iterations arrive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactsLog {
    /// History length the facts cover.
    seen: usize,
    /// History indexes of the attempts so far.
    attempt_idx: Vec<usize>,
    facts: Vec<Facts>,
}

impl FactsLog {
    /// The facts so far, oldest first.
    pub fn all(&self) -> &[Facts] {
        &self.facts
    }

    /// History length covered.
    pub fn covers(&self) -> usize {
        self.seen
    }

    /// The facts `facts` of the first `len` iterations of a history, as they were saved
    /// (see [`crate::run::Run::compact`]); `None` unless they are in order and within it.
    pub fn restored(len: usize, facts: Vec<Facts>) -> Option<FactsLog> {
        let in_order = facts.windows(2).all(|w| w[0].index < w[1].index);
        if !in_order || facts.last().is_some_and(|f| f.index >= len) {
            return None;
        }
        Some(FactsLog {
            seen: len,
            attempt_idx: facts.iter().map(|f| f.index).collect(),
            facts,
        })
    }

    /// Forgets the first `k` iterations of the history, which is dropped: the facts of
    /// those left are kept, their positions moved down by `k`. A state they returned to
    /// that was dropped too is no position any more.
    pub fn forget_before(&mut self, k: usize) {
        let keep = self.attempt_idx.partition_point(|&i| i < k);
        self.attempt_idx.drain(..keep);
        self.facts.drain(..keep);
        for i in &mut self.attempt_idx {
            *i -= k;
        }
        for f in &mut self.facts {
            f.index -= k;
            f.state_position = f.state_position.and_then(|p| p.checked_sub(2 * k));
        }
        self.seen = self.seen.saturating_sub(k);
    }

    /// Forgets everything from history index `from` on (its evidence changed).
    pub fn truncate(&mut self, from: usize) {
        if from >= self.seen {
            return;
        }
        let keep = self.attempt_idx.partition_point(|&i| i < from);
        self.attempt_idx.truncate(keep);
        self.facts.truncate(keep);
        self.seen = from;
    }

    /// Computes the facts of `history[self.covers()..]`. Every iteration must have its
    /// kind decided (`kind` set, or `filter` decides).
    pub fn extend(&mut self, config: &Config, filter: AgentFilter, history: &[Iteration]) {
        for i in self.seen..history.len() {
            if filter.kind(config, &history[i]) == IterationKind::Attempt {
                let f = facts_of(config, history, &self.attempt_idx, &self.facts, i);
                self.attempt_idx.push(i);
                self.facts.push(f);
            }
        }
        self.seen = history.len();
    }
}

/// The attempts of a history, with their facts, oldest first; who is an agent is decided
/// over the whole history (see [`AgentFilter::for_history`]).
pub fn attempts(config: &Config, history: &[Iteration]) -> Vec<Facts> {
    let mut log = FactsLog::default();
    log.extend(config, AgentFilter::for_history(config, history), history);
    log.facts
}

/// The facts of attempt `i`, given the attempts before it.
fn facts_of(
    config: &Config,
    history: &[Iteration],
    attempt_idx: &[usize],
    before: &[Facts],
    i: usize,
) -> Facts {
    let window = config.window as usize;
    let it = &history[i];
    let n = attempt_idx.len();
    // The window: this attempt and the `window - 1` attempts before it, plus any context
    // commits between them.
    let earlier_attempts = &attempt_idx[n.saturating_sub(window.saturating_sub(1))..];
    let first = earlier_attempts.first().copied().unwrap_or(i);
    let mut f = Facts {
        index: i,
        empty: it.is_empty_change(),
        whitespace_only: it.whitespace_only == Some(true),
        empty_bump: it.empty_bump == Some(true),
        claims_done: it
            .claims_done
            .unwrap_or_else(|| it.message.as_deref().is_some_and(|m| config.claims_done(m))),
        ..Facts::default()
    };

    if let Some(tree) = &it.tree {
        tree_facts(history, first, i, tree, before, &mut f);
    }

    if let Some(pid) = &it.patch_id {
        f.repeats = earlier_attempts
            .iter()
            .map(|&j| &history[j])
            .find(|e| e.patch_id.as_ref() == Some(pid))
            .map(|e| e.id.clone());
    }

    // Every test run before this attempt's own evidence, newest first: the runs on its
    // earlier versions (before an amend changed its tree), then the earlier attempts'.
    let earlier_evidence = || {
        it.superseded_tests.iter().rev().chain(
            earlier_attempts
                .iter()
                .rev()
                .flat_map(|&j| history[j].test_runs()),
        )
    };
    if let Some(t) = &it.test {
        f.test_improved = improved(t, earlier_evidence().next(), earlier_evidence());
    }
    f.latest_outcome = it
        .test
        .as_ref()
        .or_else(|| earlier_evidence().next())
        .map(|t| t.outcome);
    f.backed_by_pass = f.latest_outcome == Some(Outcome::Pass);
    f.evidence_seen =
        it.test_runs().next().is_some() || before.last().is_some_and(|p| p.evidence_seen);

    let changed = match f.tree_novel {
        Some(novel) => novel && !f.empty,
        // Unknown tree: judge by the files, and by nothing when they are unknown too.
        None => !f.empty,
    };
    f.code_changed = changed && !f.whitespace_only && !f.empty_bump;
    f.progress = f.code_changed || f.test_improved;

    if let Some(call) = &it.call {
        call_facts(
            history,
            &attempt_idx[n.saturating_sub(window)..],
            before,
            call,
            &mut f,
        );
    }

    if let Some(files) = &it.files {
        f.test_only = !files.is_empty() && files.iter().all(|c| config.is_test_path(&c.path));
        f.violations = protected_paths(config, it);
        f.ci_files = ci_files(config, it);
    }
    // What was failing just before: the newest test run before this attempt's own.
    let failing = earlier_evidence()
        .next()
        .filter(|t| t.fails())
        .map(|t| t.failures.clone().unwrap_or_default())
        .unwrap_or_default();
    judge_taken(config, it, &failing, &mut f);
    f
}

/// The tests an attempt took away, judged (see [`crate::rules::constraint`]): a violation
/// when the test was failing, a note when it is doubtful, and as `without_evidence` says
/// otherwise.
fn judge_taken(config: &Config, it: &Iteration, failing: &[String], f: &mut Facts) {
    let rule = &config.rules.constraint;
    let allowed = |how: TakenHow| {
        if how.is_skip() {
            rule.forbid_test_skips
        } else {
            rule.forbid_test_deletions
        }
    };
    let taken: Vec<TakenTest> = match &it.tests_taken {
        Some(t) => t.clone(),
        None => legacy_taken(config, it),
    };
    // (certain, unproven, doubtful), grouped by how and where.
    let mut groups: Vec<(Verdict, TakenHow, &str, Vec<&TakenTest>)> = Vec::new();
    for t in taken.iter().filter(|t| allowed(t.how)) {
        let verdict = if failing.iter().any(|id| fails_as(id, t)) {
            Verdict::Failing
        } else if t.replaced {
            continue;
        } else if t.doubt.is_some() {
            Verdict::Doubtful
        } else {
            Verdict::Unproven
        };
        match groups
            .iter_mut()
            .find(|g| g.0 == verdict && g.1 == t.how && g.2 == t.path)
        {
            Some(g) => g.3.push(t),
            None => groups.push((verdict, t.how, &t.path, vec![t])),
        }
    }
    for (verdict, how, path, tests) in groups {
        let text = describe_taken(verdict, how, path, &tests);
        match verdict {
            Verdict::Failing => f.violations.push(text),
            Verdict::Doubtful => f.doubtful.push(text),
            Verdict::Unproven => match rule.without_evidence {
                RuleAction::Trip => f.violations.push(text),
                RuleAction::Warn => f.unproven.push(text),
                RuleAction::Off => {}
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Failing,
    Unproven,
    Doubtful,
}

/// `deleted the failing test test_parse in tests/test_parser.py`, `skipped 2 tests
/// (test_a, test_b) in tests/test_x.py: @pytest.mark.skip`, `deleted the test file
/// pkg/x_test.go`, `skipped the test x in a.rs on a condition (windows)`.
fn describe_taken(verdict: Verdict, how: TakenHow, path: &str, tests: &[&TakenTest]) -> String {
    const NAMED: usize = 3;
    let failing = if verdict == Verdict::Failing {
        "failing "
    } else {
        ""
    };
    if tests.iter().all(|t| t.name == path) {
        // Which tests the file held is not known.
        if how.is_skip() {
            let lines: Vec<&str> = tests.iter().filter_map(|t| t.line.as_deref()).collect();
            return format!("added a test skip in {path}: {}", lines.join("; "));
        }
        return format!("{} the {failing}test file {path}", how.verb());
    }
    let mut names: Vec<&str> = tests.iter().take(NAMED).map(|t| t.name.as_str()).collect();
    let more = tests.len().saturating_sub(NAMED);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let what = if tests.len() == 1 {
        format!("the {failing}test {}", names[0])
    } else {
        names.truncate(NAMED);
        format!(
            "{} {failing}tests ({}{more})",
            tests.len(),
            names.join(", ")
        )
    };
    let first = tests[0];
    let line = match (&first.line, how) {
        (Some(line), TakenHow::Focused) => format!(" ({line})"),
        (Some(line), _) => format!(": {line}"),
        (None, _) => String::new(),
    };
    let because = first.because.as_deref().unwrap_or("");
    let doubt = match first.doubt.filter(|_| verdict == Verdict::Doubtful) {
        Some(Doubt::Conditional) => format!(", on a condition ({because})"),
        Some(Doubt::Quarantined) => format!(", quarantined ({because})"),
        Some(Doubt::WithCode) => format!(", with the code it tests ({because})"),
        None => String::new(),
    };
    format!("{} {what} in {path}{line}{doubt}", how.verb())
}

/// Whether the failing test `id` (as the runner names it: `tests/a.py::TestX::test_y[1]`,
/// `describe › it`, `TestX/sub`, `mod::tests::name`, `Class.method`) is `t`.
fn fails_as(id: &str, t: &TakenTest) -> bool {
    if t.name == t.path {
        return id.contains(&t.path);
    }
    let name = t.name.as_str();
    if name.is_empty() {
        return false;
    }
    id.match_indices(name).any(|(at, _)| {
        let before = id[..at].chars().next_back();
        let after = id[at + name.len()..].chars().next();
        let starts = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let ends = after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        starts && ends
    })
}

/// What a record without `tests_taken` (an older loopguard, a converter) shows: its
/// `skips_added`, and the files of tests it deleted, unknown beyond their paths.
fn legacy_taken(config: &Config, it: &Iteration) -> Vec<TakenTest> {
    let skips = it.skips_added.iter().flatten().map(|s| TakenTest {
        path: s.path.clone(),
        name: s.path.clone(),
        how: TakenHow::Skipped,
        line: Some(s.line.clone()),
        doubt: None,
        because: None,
        replaced: false,
    });
    let deleted = it
        .files
        .iter()
        .flatten()
        .filter(|c| {
            c.status == Some(FileStatus::Deleted)
                && matches!(config.test_role(&c.path), Some(Role::Tests(_)))
        })
        .map(|c| TakenTest {
            path: c.path.clone(),
            name: c.path.clone(),
            how: TakenHow::Deleted,
            line: None,
            doubt: None,
            because: None,
            replaced: false,
        });
    skips.chain(deleted).collect()
}

/// The tree `history[i]` started from: its parent tree, or when the record does not say,
/// the tree of its first parent in the history, or with no parents known the tree of the
/// iteration before it.
fn started_from(history: &[Iteration], i: usize) -> Option<&str> {
    let it = &history[i];
    if let Some(p) = &it.parent_tree {
        return Some(p);
    }
    let before = &history[..i];
    let parent = match it.parents.as_deref() {
        Some([first, ..]) => before.iter().rev().find(|e| &e.id == first),
        Some([]) => None,
        None => before.last(),
    };
    parent.and_then(|p| p.tree.as_deref())
}

/// The facts of attempt `i`'s tree against the states of the window from `first`: whether
/// it is new, and which earlier, non-adjacent state it returns to.
fn tree_facts(
    history: &[Iteration],
    first: usize,
    i: usize,
    tree: &str,
    before: &[Facts],
    f: &mut Facts,
) {
    let adjacent = started_from(history, i);
    // A known empty change whose tree is the one it started from moved nowhere, so it
    // returned nowhere either (a replay record without `parent_tree`, `files: []`).
    f.empty = f.empty || adjacent == Some(tree);
    let mut states: HashSet<&str> = HashSet::new();
    // (state, its position, the commit whose tree it is or which started from it)
    let mut non_adjacent: Vec<(&str, usize, usize)> = Vec::new();
    for (k, earlier) in history[first..i].iter().enumerate() {
        let at = 2 * (first + k);
        for (t, pos) in [(&earlier.parent_tree, at), (&earlier.tree, at + 1)] {
            let Some(t) = t else { continue };
            states.insert(t);
            if Some(t.as_str()) != adjacent {
                non_adjacent.push((t, pos, first + k));
            }
        }
    }
    if let Some(p) = adjacent {
        states.insert(p);
    }
    f.tree_novel = Some(!states.contains(tree));
    // The newest earlier occurrence of this state.
    let empty = f.empty;
    if let Some(&(_, pos, k)) = non_adjacent
        .iter()
        .rev()
        .find(|(t, _, _)| !empty && *t == tree)
    {
        f.returns_to = Some(name_state(history, first, i, tree, pos, k));
        f.state_position = Some(pos);
        let previous = before.iter().rev().find(|p| !p.empty);
        f.unwinds = previous
            .and_then(|p| p.state_position)
            .is_some_and(|b| pos < b);
    }
}

/// The facts of a tool call against the same agent's calls before it in the window: the
/// same call with the same outcome again, and A-B-A-B alternation.
fn call_facts(
    history: &[Iteration],
    earlier: &[usize],
    before: &[Facts],
    call: &crate::iteration::ToolCall,
    f: &mut Facts,
) {
    f.call_failed = call.failed;
    // The same agent's earlier calls, newest first, with their facts.
    let facts_at = |i: usize| before.iter().rev().find(|p| p.index == i);
    let mut mine = earlier.iter().rev().filter_map(|&j| {
        let c = history[j].call.as_ref()?;
        (c.agent == call.agent).then_some((j, c))
    });
    let previous: Vec<(usize, &crate::iteration::ToolCall)> = mine.by_ref().take(3).collect();
    // A failure is the same failure again across the calls that succeeded in between (an
    // edit, a read): judged by its effect, the same outcome, an edit between changed
    // nothing it depends on. A success is the same call again only right after itself.
    let same_before = if call.failed {
        previous
            .iter()
            .copied()
            .chain(mine)
            .find(|(_, c)| c.failed || c.action == call.action)
    } else {
        previous.first().copied()
    };
    f.same_call = match same_before {
        Some((j, c)) if c.same_as(call) => facts_at(j).map_or(1, |p| p.same_call) + 1,
        _ => 1,
    };
    if let [(_, b), (_, a2), (_, b2)] = previous.as_slice() {
        f.alternates = !call.same_as(b) && call.same_as(a2) && b.same_as(b2);
    }
}

/// Names the state at `pos` (the tree of `history[k]`, or the tree it started from) the way
/// a person checks it with `git diff`: by the commit whose own tree it is.
fn name_state(
    history: &[Iteration],
    first: usize,
    i: usize,
    tree: &str,
    pos: usize,
    k: usize,
) -> EarlierState {
    // The newest commit in the window whose own tree this is.
    if let Some(own) = history[first..i]
        .iter()
        .rev()
        .find(|e| e.tree.as_deref() == Some(tree))
    {
        return EarlierState::TreeOf(own.id.clone());
    }
    let earlier = &history[k];
    if pos % 2 == 1 {
        return EarlierState::TreeOf(earlier.id.clone());
    }
    // The tree `earlier` started from: its parent's, when the parent is known.
    match earlier.parents.as_ref().and_then(|p| p.first()) {
        Some(parent) => EarlierState::TreeOf(parent.clone()),
        None => EarlierState::TreeBefore(earlier.id.clone()),
    }
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
            let mut seen = window.filter_map(|t| t.signature.as_ref());
            let new_signature = now
                .signature
                .as_ref()
                .is_some_and(|s| !seen.any(|x| x == s));
            fewer || new_signature
        }
    }
}

fn ci_files(config: &Config, it: &Iteration) -> Vec<String> {
    let rule = &config.rules.constraint;
    it.files
        .iter()
        .flatten()
        .filter(|f| rule.ci_paths.is_match(&f.path) && !rule.protects(&f.path))
        .map(|f| f.path.clone())
        .collect()
}

fn protected_paths(config: &Config, it: &Iteration) -> Vec<String> {
    let rule = &config.rules.constraint;
    let mut out = Vec::new();
    for file in it.files.iter().flatten() {
        let paths = std::iter::once(&file.path).chain(file.old_path.as_ref());
        if let Some(p) = paths.into_iter().find(|p| rule.protects(p)) {
            out.push(format!("touched the protected path {p}"));
        }
    }
    out
}
