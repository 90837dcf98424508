//! The parts a coding agent's session adds to the status document ([`super::Status`]):
//! its sessions, which one it is about, its edges, its branch's breaker and, in a replay,
//! the answers its hooks gave.

use serde::Serialize;

use crate::agent::Harness;
use crate::breaker::State;
use crate::rules::RuleName;
use crate::run::Run;

/// A coding agent's session as `status` lists it (the status document's `sessions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionLine {
    /// The harness's session id.
    pub id: String,
    pub agent: Harness,
    pub state: State,
    /// The rule that opened its breaker; `null` while closed.
    pub rule: Option<RuleName>,
    pub reason: Option<String>,
    /// Tool calls recorded.
    pub calls: usize,
    pub branch: Option<String>,
}

/// Which session a status document is about (`status --session`, `report --session`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRef {
    pub id: Option<String>,
    pub agent: Option<Harness>,
}

impl SessionRef {
    pub fn of(run: &Run) -> SessionRef {
        SessionRef {
            id: run.session.as_ref().map(|s| s.id.clone()),
            agent: run.session.as_ref().map(|s| s.harness),
        }
    }
}

/// One edge of a session (a sub-agent): its calls without progress and its latest reasons.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EdgeRow {
    pub edge: String,
    pub count: u64,
    pub reasons: Vec<String>,
}

impl EdgeRow {
    /// Every edge of `run`.
    pub fn of(run: &Run) -> Vec<EdgeRow> {
        run.usage
            .edges
            .iter()
            .map(|(name, e)| EdgeRow {
                edge: name.clone(),
                count: e.count,
                reasons: e.reasons.clone(),
            })
            .collect()
    }
}

/// The breaker of the branch a session works on: a trip in either shows in both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BranchBreaker {
    pub branch: Option<String>,
    pub state: State,
    /// The rule that opened it; `null` while closed.
    pub rule: Option<RuleName>,
}

/// What a hook would have answered, in a replay of a recorded session (`replay --json`'s
/// `answers`): every answer that was not "nothing".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookAnswer {
    /// The latest call when it was given.
    pub after: Option<String>,
    /// The event, as the harness names it.
    pub event: String,
    /// `deny`, `context`, `block` or `failed`.
    pub answer: &'static str,
    /// The words the model (or the person) reads.
    pub text: String,
}
