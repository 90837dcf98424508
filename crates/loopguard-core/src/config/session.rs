//! `session:`: how a coding agent's session is judged, tool call by tool call (the agent
//! hooks of `loopguard init --agent`). A session is not a branch of commits: reading,
//! searching and running the same status command many times is ordinary exploration, so
//! its counts have their own, larger defaults (docs/agents/README.md lists them).
//!
//! The session's [`Config`] is the run's config with these in place of the commit
//! thresholds ([`Config::for_sessions`]): the same rules, the same breaker, other limits.

use std::path::Path;

use jiff::SignedDuration;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Config, RuleAction, at, parse_duration, positive};
use crate::error::ConfigError;

/// The resolved `session` section.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSettings {
    /// Tool calls the rules look back over.
    pub window: u32,
    /// Calls in a row with no new file state and no new test result (`stagnation`).
    pub stagnation: u32,
    /// The same failure in a row: test runs with one failure signature, or the same
    /// failing call with the same error (`same_error`).
    pub same_error: u32,
    /// The same successful call with the same result in a row (`same_error`).
    pub identical_calls: u32,
    /// Files returning to earlier content and A-B-A-B call patterns (`oscillation`).
    pub oscillation: u32,
    /// An edit applied again after it was undone (`repeated_patch`).
    pub repeated_patch: u32,
    /// Block the agent's stop once when it claims completion while the last test run after
    /// its last edit failed (`false_completion`).
    pub false_completion: bool,
    /// Tool calls in the session (`budget`).
    pub max_calls: u32,
    /// Wall time of the session (`budget`).
    pub max_duration: Option<SignedDuration>,
    /// Tokens the transcript reports (`budget`).
    pub max_tokens: Option<u64>,
    /// Calls of one sub-agent without progress (`edge_loop`, each sub-agent an edge).
    pub subagent_calls: u32,
}

impl Default for SessionSettings {
    fn default() -> Self {
        SessionSettings {
            window: 50,
            stagnation: 40,
            same_error: 3,
            identical_calls: 5,
            oscillation: 2,
            repeated_patch: 2,
            false_completion: true,
            max_calls: 500,
            max_duration: None,
            max_tokens: None,
            subagent_calls: 40,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSession {
    window: Option<Spanned<u32>>,
    stagnation: Option<Spanned<u32>>,
    same_error: Option<Spanned<u32>>,
    identical_calls: Option<Spanned<u32>>,
    oscillation: Option<Spanned<u32>>,
    repeated_patch: Option<Spanned<u32>>,
    false_completion: Option<bool>,
    max_calls: Option<Spanned<u32>>,
    max_duration: Option<Spanned<String>>,
    max_tokens: Option<u64>,
    subagent_calls: Option<Spanned<u32>>,
}

pub(super) fn resolve(path: &Path, raw: RawSession) -> Result<SessionSettings, ConfigError> {
    let d = SessionSettings::default();
    let n = |key: &str, v: &Option<Spanned<u32>>, default: u32| {
        positive(path, &format!("session.{key}"), v, default)
    };
    let max_duration = match &raw.max_duration {
        None => None,
        Some(v) => Some(parse_duration(&v.value).map_err(|m| {
            at(path, "session.max_duration", v, m).with_hint("write e.g. \"2h\" or \"45m\"")
        })?),
    };
    Ok(SessionSettings {
        window: n("window", &raw.window, d.window)?,
        stagnation: n("stagnation", &raw.stagnation, d.stagnation)?,
        same_error: n("same_error", &raw.same_error, d.same_error)?,
        identical_calls: n("identical_calls", &raw.identical_calls, d.identical_calls)?,
        oscillation: n("oscillation", &raw.oscillation, d.oscillation)?,
        repeated_patch: n("repeated_patch", &raw.repeated_patch, d.repeated_patch)?,
        false_completion: raw.false_completion.unwrap_or(d.false_completion),
        max_calls: n("max_calls", &raw.max_calls, d.max_calls)?,
        max_duration,
        max_tokens: raw.max_tokens.or(d.max_tokens),
        subagent_calls: n("subagent_calls", &raw.subagent_calls, d.subagent_calls)?,
    })
}

impl Config {
    /// The config a session is judged by: this one with the `session` limits in place of
    /// the commit thresholds, and its attempts counted in tool calls ([`super::Unit`]).
    /// `false_completion` is judged at the agent's stop, not per call, and `test_only` has
    /// no meaning for single calls: both are off here.
    pub fn for_sessions(&self) -> Config {
        let s = &self.session;
        let mut c = self.clone();
        c.window = s.window;
        c.rules.stagnation.threshold = s.stagnation;
        c.rules.same_error.threshold = s.same_error;
        c.rules.oscillation.threshold = s.oscillation;
        c.rules.repeated_patch.threshold = s.repeated_patch;
        c.rules.false_completion.action = RuleAction::Off;
        c.rules.test_only.action = RuleAction::Off;
        c.rules.budget.max_iterations = s.max_calls;
        c.rules.budget.max_duration = s.max_duration;
        c.rules.budget.max_tokens = s.max_tokens.or(self.rules.budget.max_tokens);
        c.rules.edge_loop.threshold = s.subagent_calls;
        c.rules.edge_loop.edges.clear();
        c.rules.edge_loop.max_steps = u32::MAX;
        c.unit = super::Unit::ToolCall;
        c
    }
}
