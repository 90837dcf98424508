//! The iteration record: one attempt of the agent, with the evidence the rules judge.
//!
//! This is the `replay` input format and the `history` entries of `check --json`
//! (CONTRACT.md, "Iteration records"). Only `id` is required; an absent field means
//! "unknown", and the rules treat unknown evidence as neither progress nor a loop.
//! Fields beyond the contract's list are additions (never renames) and are skipped on
//! output when absent, so records stay small.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// One attempt (a commit locally, a PR head commit in CI) and its evidence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    /// Commit id (or any unique id for records that do not come from git).
    pub id: String,
    /// `Name <email>` of the commit's author.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Tree id of the commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    /// Tree id of the first parent (`None`: a root commit, or unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tree: Option<String>,
    /// Parent commit ids, first parent first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parents: Option<Vec<String>>,
    /// Patch id of the change against the first parent (see `git::patch_id`); `None` for an
    /// empty change, a merge, or unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_id: Option<String>,
    /// Changed files against the first parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileChange>>,
    /// The full commit message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Test evidence attached to this iteration (`run`, `ingest`, CI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<TestEvidence>,
    /// Whether the iteration claims completion; when absent it is derived from `message`
    /// with the configured `completion_patterns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims_done: Option<bool>,
    /// Commit (committer) time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// `true` when every changed file differs only in whitespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whitespace_only: Option<bool>,
    /// Test skips this change adds (`#[ignore]`, `@pytest.mark.skip`, `it.skip`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skips_added: Option<Vec<SkipAdded>>,
    /// Whether this iteration is one of the agent's attempts. `None`: decided by the
    /// `agents` config from `author`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<IterationKind>,
}

/// Why an iteration does or does not count as an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IterationKind {
    /// One of the agent's attempts: the rules count it.
    Attempt,
    /// Someone else's commit, or a merge: context, never counted.
    Context,
    /// A rebase, cherry-pick or amend of an earlier commit: not a new attempt.
    Rewrite,
}

/// One changed file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    /// Lines added (`None` for binary files or unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<u64>,
    /// Lines deleted (`None` for binary files or unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FileStatus>,
    /// The previous path of a renamed file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub binary: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
}

/// A test skip added by a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipAdded {
    pub path: String,
    /// The added line, trimmed (bounded length).
    pub line: String,
}

/// The outcome of the tests for an iteration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestEvidence {
    pub outcome: Outcome,
    /// Failure signature (64 hex digits); `None` when the tests passed or no failure was
    /// recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Number of failing tests (or failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing: Option<u64>,
    /// The runner the failures were parsed from (`cargo`, `pytest`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
    /// The command that produced the evidence, or the log it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The normalised first error line of the first failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// Ids of the failing tests (bounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    #[default]
    Fail,
}

impl TestEvidence {
    /// At most this many failing test ids are kept per iteration.
    pub const MAX_FAILURES: usize = 20;

    /// The evidence of a test run: its outcome and the fingerprint of its output.
    pub fn from_fingerprint(
        outcome: Outcome,
        fp: &crate::fingerprint::Fingerprint,
        command: Option<String>,
    ) -> TestEvidence {
        let failing = fp.failures.len() as u64;
        TestEvidence {
            outcome,
            signature: if outcome == Outcome::Fail {
                fp.signature.clone()
            } else {
                None
            },
            // A failing run whose failures were not recognised has an unknown count.
            failing: match outcome {
                Outcome::Pass => Some(0),
                Outcome::Fail => (failing > 0).then_some(failing),
            },
            runner: fp.runner.map(|r| r.as_str().to_owned()),
            command,
            first_error: (outcome == Outcome::Fail)
                .then(|| fp.failures.first().map(|f| f.message.clone()))
                .flatten(),
            failures: (outcome == Outcome::Fail && !fp.failures.is_empty()).then(|| {
                fp.failures
                    .iter()
                    .take(Self::MAX_FAILURES)
                    .map(|f| f.id.clone())
                    .collect()
            }),
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Iteration {
    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message
            .as_deref()
            .and_then(|m| m.lines().next())
            .unwrap_or("")
    }

    /// A short form of the id for humans.
    pub fn short_id(&self) -> &str {
        let end = self
            .id
            .char_indices()
            .nth(10)
            .map_or(self.id.len(), |(i, _)| i);
        &self.id[..end]
    }

    /// `true` when the change is known to be empty (no files, or the tree equals the
    /// parent's tree).
    pub fn is_empty_change(&self) -> bool {
        if let (Some(t), Some(p)) = (&self.tree, &self.parent_tree) {
            return t == p;
        }
        matches!(&self.files, Some(f) if f.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_id_is_required() {
        let it: Iteration = serde_json::from_str(r#"{"id":"abc"}"#).unwrap();
        assert_eq!(it.id, "abc");
        assert_eq!(it.tree, None);
        assert_eq!(serde_json::to_string(&it).unwrap(), r#"{"id":"abc"}"#);
    }

    #[test]
    fn contract_example_parses() {
        let line = r#"{"id": "c0ffee", "author": "Copilot <198982749+Copilot@users.noreply.github.com>",
 "tree": "4b82", "patch_id": "e3a1",
 "files": [{"path": "src/lib.rs", "added": 3, "deleted": 1, "status": "modified"}],
 "message": "Fix parser edge case",
 "test": {"outcome": "fail", "signature": "9f2c", "failing": 2},
 "claims_done": false, "at": "2026-11-25T10:00:00Z"}"#;
        let it: Iteration = serde_json::from_str(line).unwrap();
        assert_eq!(
            it.files.as_ref().unwrap()[0].status,
            Some(FileStatus::Modified)
        );
        assert_eq!(it.test.as_ref().unwrap().outcome, Outcome::Fail);
        assert_eq!(it.test.as_ref().unwrap().failing, Some(2));
        assert_eq!(it.at.unwrap().to_string(), "2026-11-25T10:00:00Z");
    }

    #[test]
    fn empty_change_from_trees_or_files() {
        let mut it = Iteration {
            id: "a".into(),
            ..Default::default()
        };
        assert!(!it.is_empty_change());
        it.files = Some(vec![]);
        assert!(it.is_empty_change());
        it.tree = Some("t1".into());
        it.parent_tree = Some("t2".into());
        assert!(!it.is_empty_change());
        it.parent_tree = Some("t1".into());
        assert!(it.is_empty_change());
    }
}
