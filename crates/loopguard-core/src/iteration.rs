//! The iteration record: one attempt of the agent, with the evidence the rules judge.
//!
//! This is the `replay` input format and the `history` entries of `check --json`
//! (docs/contract.md, "Iteration records"). Only `id` is required; an absent field means
//! "unknown", and the rules treat unknown evidence as neither progress nor a loop.
//! Fields beyond the contract's list are additions (never renames) and are skipped on
//! output when absent, so records stay small.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::fingerprint::{Fingerprint, Runner};
pub use crate::ids::{CommitId, Signature};
use crate::suite::TakenTest;

/// One attempt (a commit locally, a PR head commit in CI) and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    /// Commit id (or any unique id for records that do not come from git).
    pub id: CommitId,
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
    pub parents: Option<Vec<CommitId>>,
    /// Patch id of the change against the first parent (see `patch::patch_id`); `None`
    /// for an empty change, a merge, or unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_id: Option<String>,
    /// Changed files against the first parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileChange>>,
    /// The commit message, whole up to [`MESSAGE_LIMIT`] bytes; a longer one is its start
    /// and its end ([`bounded_message`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Test evidence attached to this iteration (`run`, `ingest`, CI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<TestEvidence>,
    /// Test runs on earlier versions of this commit, oldest first: evidence that an amend
    /// or a rebase which changed the tree left behind. Each was an attempt for the evidence
    /// rules (`same_error` counts it), none is an attempt for the commit rules: the
    /// rewrite is still one commit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded_tests: Vec<TestEvidence>,
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
    /// `true` when every changed file is a submodule moved to other commits that change
    /// nothing of its own (its tree is the same), or to commits loopguard cannot read (not
    /// in the submodule's objects here): a bump that shows no change is no progress.
    /// `None`: no such change, or unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_bump: Option<bool>,
    /// Test skips this change adds (`#[ignore]`, `@pytest.mark.skip`, `it.skip`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skips_added: Option<Vec<SkipAdded>>,
    /// The tests this change takes away, each as its ecosystem means it: deleted, moved or
    /// renamed out of discovery, skipped, … (see [`crate::suite`]). `None`: unknown, and
    /// then `skips_added` and the deleted test files are what is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_taken: Option<Vec<TakenTest>>,
    /// Whether this iteration is one of the agent's attempts. `None`: decided by the
    /// `agents` config from `author` when the iteration is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<IterationKind>,
    /// The state of the working tree, not a commit: a test run on uncommitted changes, or
    /// a re-run of code already tested. It is an attempt for the evidence rules; it never
    /// mends a trip that only a new commit mends.
    #[serde(default, skip_serializing_if = "is_false")]
    pub uncommitted: bool,
    /// A commit recorded while the breaker blocked (`pause`, `abort`) where gates refuse
    /// commits then (locally): it came around them (the hooks off, a ref written by hand).
    /// It counts like any attempt, and mends nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub around_gates: bool,
    /// What people did to the breaker right after this iteration, in order (`loopguard
    /// resume`, a maintainer removing the label in CI, ...). Replaying them reproduces the
    /// breaker exactly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interventions: Vec<Intervention>,
    /// A coding agent's tool call, when this iteration is one (a session's iteration, see
    /// [`crate::session`]): what was called and how it came out, so that the rules can tell
    /// the same call with the same outcome again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<ToolCall>,
}

/// One completed tool call of a coding agent: the action and its outcome, as digests that
/// compare equal exactly when the calls do (docs/contract.md, "Tool calls").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool as the harness names it (`Bash`, `Edit`, `apply_patch`, `run_shell_command`).
    pub tool: String,
    /// sha256 (hex, 16 digits) of the tool's kind and its normalised input.
    pub action: String,
    /// sha256 (hex, 16 digits) of the outcome: success or failure, the exit status, and the
    /// normalised error or output.
    pub outcome: String,
    /// The call failed (a non-zero exit, a tool error).
    #[serde(default, skip_serializing_if = "is_false")]
    pub failed: bool,
    /// The sub-agent that made it (`None`: the main agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The normalised first error line of a failed call that is no test run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// sha256 (hex, 16 digits) of what a failed call that is no test run printed, every
    /// line normalised as a failure signature is: its effect, by which two failures are
    /// the same whatever the spelling of the command that failed. `None` for a success,
    /// a test run, and a failure that printed nothing (its exit status is all there is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// Tokens the model used for this call, where the transcript says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The harness's id of the call (`tool_use_id`): a hook that reports it twice records
    /// it once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl ToolCall {
    /// Whether `other` is the same call with the same outcome. Two failures are one when
    /// they printed the same ([`ToolCall::evidence`]), whatever the commands' spelling;
    /// the action (a command's words) decides only where the failure printed nothing.
    pub fn same_as(&self, other: &ToolCall) -> bool {
        let same_effect = self.failed
            && other.failed
            && self.evidence.is_some()
            && self.evidence == other.evidence;
        self.outcome == other.outcome && (same_effect || self.action == other.action)
    }
}

/// Why an iteration does or does not count as an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IterationKind {
    /// One of the agent's attempts: the rules count it.
    Attempt,
    /// Someone else's commit, a merge, or setting the guard up: context, never counted.
    Context,
    /// A rebase, cherry-pick or amend of an earlier commit: not a new attempt.
    Rewrite,
}

/// A person acting on the breaker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intervention {
    pub action: InterventionKind,
    pub at: Timestamp,
    /// Who: a GitHub login in CI; absent locally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterventionKind {
    /// open -> half_open: the next attempt decides.
    Resume,
    /// -> closed, every counter restarts (the interactive prompt's "continue").
    Continue,
    /// The run is stopped for good (the prompt's "abort").
    Abort,
    /// The next model of `escalation.models` takes over (the prompt's "retry").
    NextModel,
    /// A person took a turn (a prompt to the agent, a commit or a review of their own):
    /// a new episode. The loop counters start again (an open breaker is half-open: the
    /// next attempt decides); the budget keeps counting the whole run.
    NewEpisode,
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

/// The skips among the tests a change takes away (the record's `skips_added`): each test
/// still there but out of the run, with the line that did it.
pub fn skips_of(taken: &[TakenTest]) -> Vec<SkipAdded> {
    taken
        .iter()
        .filter(|t| t.how.is_skip())
        .filter_map(|t| {
            Some(SkipAdded {
                path: t.path.clone(),
                line: t.line.clone()?,
            })
        })
        .collect()
}

/// A test skip added by a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipAdded {
    pub path: String,
    /// The added line, trimmed (bounded length).
    pub line: String,
}

/// The outcome of the tests for an iteration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestEvidence {
    pub outcome: Outcome,
    /// Failure signature; `None` when the tests passed or no failure was recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// Number of failing tests (or failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing: Option<u64>,
    /// The runner the failures were parsed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<Runner>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail,
}

impl TestEvidence {
    /// At most this many failing test ids are kept per iteration.
    pub const MAX_FAILURES: usize = 20;

    /// Evidence with only an outcome.
    pub fn new(outcome: Outcome) -> TestEvidence {
        TestEvidence {
            outcome,
            signature: None,
            failing: (outcome == Outcome::Pass).then_some(0),
            runner: None,
            command: None,
            first_error: None,
            failures: None,
        }
    }

    /// The evidence of a test run: its outcome and the fingerprint of its output.
    /// Whether a test command's output is test evidence, and its outcome (docs/contract.md,
    /// "Test evidence"). `passed` is its exit status (`None`: unknown, the output decides).
    ///
    /// - A test runner's output recognised (a runner's failures or summary, JUnit XML): the
    ///   exit status decides, or without one whether a failure was found.
    /// - A command that printed nothing and exited 0 (`true`, `make -s check`): a pass.
    /// - Anything else — `cargo tset` ("error: no such command"), `sh: pytset: not found`,
    ///   `echo TODO` — is no test result: `None`, nothing is recorded, so a mistyped
    ///   command neither counts as a failure nor breaks a streak nor passes as progress.
    pub fn outcome_of(passed: Option<bool>, fp: &Fingerprint) -> Option<Outcome> {
        let from = |pass: bool| if pass { Outcome::Pass } else { Outcome::Fail };
        if fp.recognised {
            return Some(from(passed.unwrap_or_else(|| fp.is_pass())));
        }
        (passed == Some(true) && fp.silent).then_some(Outcome::Pass)
    }

    pub fn from_fingerprint(
        outcome: Outcome,
        fp: &Fingerprint,
        command: Option<String>,
    ) -> TestEvidence {
        let failing = fp.failures.len() as u64;
        let fail = outcome == Outcome::Fail;
        TestEvidence {
            outcome,
            // The fingerprinter makes sha256 hex digests: always a valid signature.
            signature: fp
                .signature
                .as_deref()
                .filter(|_| fail)
                .and_then(|s| Signature::new(s).ok()),
            // A failing run whose failures were not recognised has an unknown count.
            failing: match outcome {
                Outcome::Pass => Some(0),
                Outcome::Fail => (failing > 0).then_some(failing),
            },
            runner: fp.runner,
            command,
            first_error: fp
                .failures
                .first()
                .filter(|_| fail)
                .map(|f| f.message.clone()),
            failures: (fail && !fp.failures.is_empty()).then(|| {
                fp.failures
                    .iter()
                    .take(Self::MAX_FAILURES)
                    .map(|f| f.id.clone())
                    .collect()
            }),
        }
    }

    pub fn fails(&self) -> bool {
        self.outcome == Outcome::Fail
    }

    pub fn passes(&self) -> bool {
        self.outcome == Outcome::Pass
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Most bytes of a commit message an iteration keeps. A message is read on every commit
/// and kept in the run, so what an agent writes there is bounded: what a person reads of
/// it (its start) and where trailers go (its end) are kept.
pub const MESSAGE_LIMIT: usize = 16 * 1024;
/// Bytes kept from the end of a message longer than [`MESSAGE_LIMIT`].
const MESSAGE_TAIL: usize = 4 * 1024;

/// A commit message as an iteration keeps it: the whole text (lossy UTF-8, trailing
/// whitespace trimmed) up to [`MESSAGE_LIMIT`] bytes; past it, its first and last bytes
/// (cut at character boundaries) around a line that says how long it was. The completion
/// claim and the `Co-authored-by:` trailers are read from what is kept.
pub fn bounded_message(bytes: &[u8]) -> String {
    if bytes.len() <= MESSAGE_LIMIT {
        return String::from_utf8_lossy(bytes).trim_end().to_owned();
    }
    let head_len = MESSAGE_LIMIT - MESSAGE_TAIL;
    let head = String::from_utf8_lossy(&bytes[..head_len]);
    let tail = String::from_utf8_lossy(&bytes[bytes.len() - MESSAGE_TAIL..]);
    // A character cut at either end shows as U+FFFD: dropped.
    let head = head.trim_end_matches('\u{FFFD}');
    let tail = tail.trim_start_matches('\u{FFFD}');
    format!(
        "{head}\n[… {} bytes of the message left out: {} in all …]\n{}",
        bytes.len() - head.len() - tail.len(),
        bytes.len(),
        tail.trim_end()
    )
}

impl Iteration {
    /// An iteration with nothing known but its id.
    pub fn new(id: CommitId) -> Iteration {
        Iteration {
            id,
            author: None,
            tree: None,
            parent_tree: None,
            parents: None,
            patch_id: None,
            files: None,
            message: None,
            test: None,
            superseded_tests: Vec::new(),
            claims_done: None,
            at: None,
            whitespace_only: None,
            empty_bump: None,
            skips_added: None,
            tests_taken: None,
            kind: None,
            uncommitted: false,
            around_gates: false,
            interventions: Vec::new(),
            call: None,
        }
    }

    /// Every test run of this iteration, newest first: its evidence, then the runs on its
    /// earlier versions ([`Iteration::superseded_tests`]).
    pub fn test_runs(&self) -> impl Iterator<Item = &TestEvidence> {
        self.test.iter().chain(self.superseded_tests.iter().rev())
    }

    /// The iteration `new` rewrites this one into (an amend, a rebase): `new` keeps this
    /// one's kind and interventions. The test evidence follows the tree: with the same
    /// tree (a reword) it still holds; with another tree it was evidence about an earlier
    /// version and is kept as such ([`Iteration::superseded_tests`]). Unknown trees are
    /// taken as unchanged.
    pub fn rewritten_as(&self, mut new: Iteration) -> Iteration {
        new.kind = self.kind;
        new.interventions = self.interventions.clone();
        self.hand_evidence_to(&mut new);
        new
    }

    /// Passes this iteration's test evidence on to `new`, its rewrite (see
    /// [`Iteration::rewritten_as`]); evidence `new` has of its own stays its own.
    pub fn hand_evidence_to(&self, new: &mut Iteration) {
        let mut superseded = self.superseded_tests.clone();
        let same_tree = match (&self.tree, &new.tree) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let mut current = None;
        if same_tree {
            current = self.test.clone();
        } else {
            superseded.extend(self.test.clone());
        }
        if let Some(own) = new.test.take() {
            superseded.extend(current.take());
            current = Some(own);
        }
        superseded.append(&mut new.superseded_tests);
        new.superseded_tests = superseded;
        new.test = current;
    }

    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message
            .as_deref()
            .and_then(|m| m.lines().next())
            .unwrap_or("")
    }

    /// `true` when the change is known to be empty (no files, or the tree equals the
    /// parent's tree).
    pub fn is_empty_change(&self) -> bool {
        if let (Some(t), Some(p)) = (&self.tree, &self.parent_tree) {
            return t == p;
        }
        matches!(&self.files, Some(f) if f.is_empty())
    }

    /// Lines added and deleted over every file (unknown counts as 0).
    pub fn lines_changed(&self) -> (u64, u64) {
        self.files.iter().flatten().fold((0, 0), |(a, d), f| {
            (a + f.added.unwrap_or(0), d + f.deleted.unwrap_or(0))
        })
    }
}

/// Most characters of one record line `replay` reads (a record is small; a longer line is
/// not one).
pub const MAX_RECORD_LINE: usize = 4 << 20;

/// Parses iteration records: JSON lines, oldest first. Blank lines are skipped; anything
/// else that is not a record is an error naming the line (`name:N`) and the field.
pub fn parse_records(text: &str, name: &str) -> Result<Vec<Iteration>, RecordError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(parse_record(line, name, n + 1)?);
    }
    Ok(out)
}

/// Parses one record line (`line_no` is 1-based, for the message).
pub fn parse_record(line: &str, name: &str, line_no: usize) -> Result<Iteration, RecordError> {
    if line.len() > MAX_RECORD_LINE {
        return Err(RecordError::TooLong {
            name: name.to_owned(),
            line: line_no,
            bytes: line.len(),
            max: MAX_RECORD_LINE,
        });
    }
    let de = &mut serde_json::Deserializer::from_str(line);
    serde_path_to_error::deserialize(de).map_err(|e| RecordError::Invalid {
        name: name.to_owned(),
        line: line_no,
        field: Some(e.path().to_string()).filter(|p| p != "." && !p.is_empty()),
        reason: e.inner().to_string(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_message_keeps_its_start_and_its_end() {
        use super::{MESSAGE_LIMIT, bounded_message};
        assert_eq!(bounded_message(b"Fix it\n\n"), "Fix it");
        let mut long = "é".repeat(MESSAGE_LIMIT).into_bytes();
        long.extend_from_slice(b"\nCo-authored-by: Claude <noreply@anthropic.com>\n");
        let kept = bounded_message(&long);
        assert!(kept.len() <= MESSAGE_LIMIT + 100, "{}", kept.len());
        assert!(kept.starts_with("éé"));
        assert!(kept.ends_with("Co-authored-by: Claude <noreply@anthropic.com>"));
        assert!(!kept.contains('\u{FFFD}'));
        assert!(
            kept.contains(&format!("{} in all", long.len())),
            "{kept:.200}"
        );
    }

    use super::*;

    #[test]
    fn only_a_recognised_result_or_silence_is_test_evidence() {
        use crate::fingerprint::fingerprint_bytes;
        let cargo_fail = "running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n\nthread 't' panicked at src/lib.rs:1:1:\nboom\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored\n";
        let cargo_pass =
            "running 1 test\ntest t ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored\n";
        let typo = "error: no such command: `tset`\n";
        let cases: &[(&str, Option<bool>, Option<Outcome>)] = &[
            (cargo_fail, Some(false), Some(Outcome::Fail)),
            (cargo_fail, None, Some(Outcome::Fail)),
            (cargo_pass, Some(true), Some(Outcome::Pass)),
            (cargo_pass, None, Some(Outcome::Pass)),
            // A recognised pass with a failing exit: a failure of unknown shape.
            (cargo_pass, Some(false), Some(Outcome::Fail)),
            (typo, Some(false), None),
            (typo, None, None),
            (typo, Some(true), None),
            ("All good!\n", Some(true), None),
            ("", Some(true), Some(Outcome::Pass)),
            ("\n  \n", Some(true), Some(Outcome::Pass)),
            ("", Some(false), None),
            ("", None, None),
        ];
        for (log, passed, want) in cases {
            let fp = fingerprint_bytes(log.as_bytes());
            assert_eq!(
                TestEvidence::outcome_of(*passed, &fp),
                *want,
                "{log:?} exiting {passed:?}"
            );
        }
    }

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
 "test": {"outcome": "fail", "signature": "9f2c", "failing": 2, "runner": "cargo"},
 "claims_done": false, "at": "2026-11-25T10:00:00Z"}"#;
        let it: Iteration = serde_json::from_str(line).unwrap();
        assert_eq!(
            it.files.as_ref().unwrap()[0].status,
            Some(FileStatus::Modified)
        );
        let t = it.test.as_ref().unwrap();
        assert_eq!((t.outcome, t.failing), (Outcome::Fail, Some(2)));
        assert_eq!(t.runner, Some(Runner::Cargo));
        assert_eq!(it.at.unwrap().to_string(), "2026-11-25T10:00:00Z");
    }

    #[test]
    fn bad_records_name_the_line_and_field() {
        let cases = [
            (
                r#"{"id":"a","test":{"outcome":"fail","signature":"aéééééééé"}}"#,
                "runs.jsonl:2: not an iteration record at `test.signature`: not hexadecimal",
            ),
            (
                r#"{"id":""}"#,
                "runs.jsonl:2: not an iteration record at `id`: empty",
            ),
            (
                r#"{"id":"a","test":{"outcome":"fail","runner":"karma"}}"#,
                "runs.jsonl:2: not an iteration record at `test.runner`",
            ),
            (
                r#"{"tree":"t"}"#,
                "runs.jsonl:2: not an iteration record: missing field `id`",
            ),
            ("[1,2]", "runs.jsonl:2: not an iteration record"),
        ];
        for (line, want) in cases {
            let text = format!("\n{line}\n");
            let err = parse_records(&text, "runs.jsonl").unwrap_err().to_string();
            assert!(err.starts_with(want), "{line}: {err}");
        }
    }

    #[test]
    fn empty_change_from_trees_or_files() {
        let mut it = Iteration::new(CommitId::new("a").unwrap());
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
