//! A coding agent as its harness speaks to loopguard: the harnesses ([`harness`]: Claude
//! Code, Codex, …, each one descriptor), the tool calls they report ([`call`]), the files a
//! session edits ([`files`]), the answers a hook gives ([`protocol`]), and what a session
//! keeps besides its run ([`SessionState`]). Below the run, which holds that state; how a
//! session is judged is [`crate::session`], above it.

pub mod call;
pub mod files;
pub mod harness;
pub mod input;
pub mod protocol;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::CommitId;
use crate::iteration::{Iteration, TestEvidence};
use crate::rules::RuleName;

pub use files::Files;
pub use harness::Harness;

/// The warnings a session's run keeps ([`SessionState::warned`]).
pub const WARNED_KEPT: usize = 16;

/// What a session keeps besides its run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    pub harness: Harness,
    /// The harness's session id.
    pub id: String,
    /// The files the session edited.
    #[serde(default)]
    pub files: Files,
    /// The transcript the harness writes, and how much of it was read for tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    #[serde(default)]
    pub transcript_read: u64,
    /// The last assistant message whose tokens were counted (Claude Code repeats a
    /// message's usage on each of its lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_message: Option<String>,
    /// The failing test run a stop was blocked on: never again for the same one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_blocked_on: Option<CommitId>,
    /// Stops blocked in the session.
    #[serde(default)]
    pub stop_blocks: u32,
    /// The rules one step before a trip after the latest call (warned once on the way in).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub near: Vec<RuleName>,
    /// The latest warnings given (at most [`WARNED_KEPT`]): the rule and the call it came
    /// after. The event log keeps every one (`warn`); the run keeps a few, so that its size
    /// stays flat however often the session is warned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warned: Vec<Warned>,
    /// The session's latest test run, and whether a call edited files after it: what a
    /// stop is judged by, however long ago it ran (the run keeps only its latest calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_test: Option<LastTest>,
    /// Events held while a call was in flight that could not be told over or running
    /// ([`Held`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<Held>,
    /// The latest run of each suite the session ran (at most [`SUITES_KEPT`], the newest
    /// last): a stop is judged by whether a suite's last run failed, whatever ran since.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suites: Vec<LastTest>,
    /// The digest of a blocked stop's reason that the harness sends back as the next
    /// prompt ([`harness::StopBlock::AsPrompt`]): that prompt is loopguard's own words, no
    /// person's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_prompt: Option<String>,
}

/// The latest test run of a session, or of one of its suites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastTest {
    /// The call that ran it.
    pub id: CommitId,
    pub test: TestEvidence,
    /// A later call edited files: the code it tested is no more.
    #[serde(default, skip_serializing_if = "is_false")]
    pub edited_after: bool,
    /// When it ran: the branch's next commit takes it as its evidence (see
    /// `loopguard`'s post-commit hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// The suite it ran: the digest of its command's action (however it was spelled).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suite: String,
    /// Its first failure as the runner printed it ([`call::CallOutcome::printed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<String>,
}

/// The suites whose latest run a session keeps ([`SessionState::suites`]).
pub const SUITES_KEPT: usize = 8;

fn is_false(b: &bool) -> bool {
    !*b
}

/// A warning one step before a trip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warned {
    pub rule: RuleName,
    /// The call it came after.
    pub after: CommitId,
}

impl SessionState {
    pub fn new(harness: Harness, id: &str) -> SessionState {
        SessionState {
            harness,
            id: id.to_owned(),
            files: Files::default(),
            transcript: None,
            transcript_read: 0,
            counted_message: None,
            stop_blocked_on: None,
            stop_blocks: 0,
            near: Vec::new(),
            warned: Vec::new(),
            last_test: None,
            held: Vec::new(),
            suites: Vec::new(),
            block_prompt: None,
        }
    }

    /// Keeps what `it`, the newest call, tells of the latest test run; `printed` is its
    /// failure as printed.
    pub(crate) fn note_call(&mut self, it: &Iteration, printed: Option<String>) {
        if it.files.as_ref().is_some_and(|f| !f.is_empty())
            && let Some(last) = self.last_test.as_mut()
        {
            last.edited_after = true;
        }
        if let Some(test) = &it.test {
            let last = LastTest {
                id: it.id.clone(),
                test: test.clone(),
                edited_after: false,
                at: it.at,
                suite: it
                    .call
                    .as_ref()
                    .map(|c| c.action.clone())
                    .unwrap_or_default(),
                printed,
            };
            self.suites
                .retain(|s| s.suite != last.suite && !(s.test.fails() && covers(&last, s)));
            if self.suites.len() >= SUITES_KEPT {
                self.suites.remove(0);
            }
            self.suites.push(last.clone());
            self.last_test = Some(last);
        }
    }
}

/// Whether `pass`, a passing run, ran what `failed` ran: the same runner, and its command
/// the same or broader (`pytest` covers `pytest -q tests/test_wc.py`: every word of it that
/// is no flag is in the other).
fn covers(pass: &LastTest, failed: &LastTest) -> bool {
    let (Some(p), Some(f)) = (&pass.test.command, &failed.test.command) else {
        return false;
    };
    if pass.test.outcome != crate::iteration::Outcome::Pass
        || (pass.test.runner.is_some()
            && failed.test.runner.is_some()
            && pass.test.runner != failed.test.runner)
    {
        return false;
    }
    let f = call::canonical_command(f).0;
    let f: Vec<&str> = f.split(' ').collect();
    call::canonical_command(p)
        .0
        .split(' ')
        .filter(|w| !w.starts_with('-'))
        .all(|w| f.contains(&w))
}

/// The most held events a session keeps (the oldest go).
pub const HELD_KEPT: usize = 16;

/// An event that arrived while a call was in flight that nothing could tell over or
/// running (a harness with no transcript loopguard reads, its process alive): not applied
/// to the breaker (fail closed), and confirmed forged if that call's result comes later.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// The event, as the harness names it.
    pub event: String,
    /// The call in flight it came during ([`crate::session::provenance::call_key`]).
    pub during: String,
    /// [`crate::session::provenance::InFlight::describe`].
    pub what: String,
    pub at: Timestamp,
}
