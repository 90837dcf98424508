//! Events with provenance (issue 25, item 2). A harness fires one session's events in
//! order: before a call, its result, and only then the person's next prompt, a new
//! session start or the agent's stop. An event that arrives while one of the session's
//! calls is *in flight* (its before-call hook allowed it and its result has not come) did
//! not come from the harness: a program the call started sent it (the agent's shell can
//! run `loopguard agent-hook` like anything else). It is recorded, ignored for the
//! breaker, and a `constraint` trip ([`crate::run::Run::tampered`]).
//!
//! What the harness does during a call: parallel calls (several before-call hooks before
//! their results), a sub-agent's calls and its stop while the call that started it (Claude
//! Code's `Task`) is in flight, notifications. Never a person's prompt, a session start or
//! the main agent's stop. A result whose call was never announced, or a second result of
//! one call that says something else, is forged too.
//!
//! The shell keeps the calls in flight (one small file each, written by the before-call
//! hook, removed by the result's) and drops those that are over although no result came
//! (another hook denied the call, the person interrupted it, the harness is gone): the
//! harness's transcript shows their result, or its process is gone.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

pub use crate::agent::{HELD_KEPT, Held};

use super::Step;
use super::call::CallInput;
use super::protocol::{Answer, EventKind as HookKind};
use crate::breaker::{Event, EventKind};
use crate::config::Config;
use crate::rules::RuleName;
use crate::run::Run;

/// The tools whose call runs a sub-agent: its own calls and its stop come while it is in
/// flight.
const SUBAGENT_HOSTS: &[&str] = &["Task", "Agent"];

/// A process, as the shell saw it: enough to tell whether it is still the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Process {
    pub pid: u32,
    /// When it started (clock ticks since boot on Linux; 0 where unknown).
    #[serde(default)]
    pub start: u64,
    /// Its session (the terminal's, for a program run there; 0 where unknown).
    #[serde(default)]
    pub sid: u32,
}

/// A call in flight: announced by its before-call hook, not yet answered by its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlight {
    /// [`call_key`]: the harness's id of the call, or a digest of the tool and its input.
    pub call: String,
    pub tool: String,
    /// What the call does, for people (`Bash: pytest -q`).
    pub summary: String,
    /// The sub-agent that made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub at: Timestamp,
    /// The harness's process that announced it, where the shell can tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<Process>,
    /// The transcript the harness writes, where its result shows when no hook says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
}

impl InFlight {
    pub fn of(call: &CallInput, at: Timestamp, harness: Option<Process>) -> InFlight {
        InFlight {
            call: call_key(call),
            tool: call.tool.clone(),
            summary: call.summary(),
            agent: call.agent.clone(),
            at,
            harness,
            transcript: None,
        }
    }

    /// Whether a transcript's line is the result of this call (Claude Code's
    /// `tool_result` for its `tool_use_id`, Codex's `function_call_output` for its
    /// `call_id`): the call is over, whatever its hooks said.
    pub fn answered_by(&self, line: &str) -> bool {
        const RESULTS: [&str; 3] = [
            "\"tool_result\"",
            "\"function_call_output\"",
            "\"custom_tool_call_output\"",
        ];
        line.contains(&format!("\"{}\"", self.call)) && RESULTS.iter().any(|r| line.contains(r))
    }

    fn hosts_subagents(&self) -> bool {
        SUBAGENT_HOSTS.contains(&self.tool.as_str())
    }

    /// `toolu_01 (Bash: sleep 1; loopguard agent-hook claude)`, for the reasons.
    pub fn describe(&self) -> String {
        let summary: String = self.summary.chars().take(120).collect();
        format!(
            "{} ({})",
            crate::sanitize::printable(&self.call),
            crate::sanitize::printable(&summary)
        )
    }
}

/// Whether a transcript's text shows a tool call other than `this` (its id) made at or
/// after `since` (when given): Claude Code's `tool_use`, Codex's `function_call` and
/// `custom_tool_call`, each line by its `timestamp` (a line without one that can be read
/// counts: it may be after). A session the hooks have no state for, whose transcript shows
/// calls since loopguard's hooks were set up, lost its state; one whose calls all came
/// before began before the hooks.
pub fn shows_earlier_calls(transcript: &str, this: &str, since: Option<Timestamp>) -> bool {
    const CALLS: [&str; 3] = [
        "\"type\":\"tool_use\"",
        "\"type\":\"function_call\"",
        "\"type\":\"custom_tool_call\"",
    ];
    let own = format!("\"{this}\"");
    let after = |line: &str| {
        let Some(since) = since else { return true };
        let at = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("timestamp")?.as_str()?.parse::<Timestamp>().ok());
        at.is_none_or(|at| at >= since)
    };
    transcript
        .lines()
        .any(|l| CALLS.iter().any(|c| l.contains(c)) && !l.contains(&own) && after(l))
}

/// The key of a call among those in flight: the harness's id (Claude Code, Codex), or,
/// where it gives none, `d-` and a digest of the tool and its input (the before-call and
/// the result's hooks carry the same).
pub fn call_key(call: &CallInput) -> String {
    match &call.id {
        Some(id) if !id.is_empty() => id.clone(),
        _ => format!(
            "d-{}",
            super::files::digest(&format!("{}\u{0}{}", call.tool, call.input))
        ),
    }
}

/// The call in flight during which an event of `kind` cannot come from the harness, if
/// any: every call in flight for a person's prompt, a session start or the main agent's
/// stop; for a sub-agent's stop (`subagent`), any call but one that runs sub-agents, and
/// every call when none runs them. `in_flight` holds the calls still running.
pub fn forged_during(kind: HookKind, subagent: bool, in_flight: &[InFlight]) -> Option<&InFlight> {
    match kind {
        HookKind::Prompt | HookKind::SessionStart => in_flight.first(),
        HookKind::Stop if subagent => {
            if in_flight.iter().any(InFlight::hosts_subagents) {
                in_flight
                    .iter()
                    .find(|c| !c.hosts_subagents() && c.agent.is_some())
            } else {
                in_flight.first()
            }
        }
        HookKind::Stop => in_flight.first(),
        // A result is judged by its own call ([`post_provenance`]); the rest relaxes
        // nothing.
        HookKind::PreTool | HookKind::PostTool | HookKind::Other => None,
    }
}

/// Where a call's result stands among what the session knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostProvenance {
    /// Its call was in flight: the harness's result.
    Announced,
    /// The same call's result again, saying the same (the hook installed twice): nothing
    /// new.
    Repeated,
    /// A result for a call that was never announced, or a second result that says
    /// something else: forged.
    Forged,
}

/// Where the result of `call` stands: `announced` (its call was in flight), and `recorded`
/// (the outcome digest the session recorded for a call with the same id, if it did).
pub fn post_provenance(
    call: &CallInput,
    announced: bool,
    recorded: Option<&str>,
) -> PostProvenance {
    match recorded {
        Some(outcome) if outcome == call.outcome().digest => PostProvenance::Repeated,
        Some(_) => PostProvenance::Forged,
        None if announced => PostProvenance::Announced,
        None => PostProvenance::Forged,
    }
}

/// The reason of the `constraint` trip for an event `name` forged during `during`.
pub fn forged_reason(name: &str, during: &InFlight) -> String {
    format!(
        "a {} event arrived while the tool call {} was running: the harness sends none during a call, so a program the call ran sent it; it was recorded and ignored",
        crate::sanitize::printable(name),
        during.describe()
    )
}

/// The reason of the `constraint` trip for a forged result of `call`.
pub fn forged_post_reason(name: &str, call: &CallInput, repeated: bool) -> String {
    let what = if repeated {
        "a second result of the tool call that says something else than the first"
    } else {
        "the result of a tool call the harness never announced (no before-call hook ran for it)"
    };
    format!(
        "a {} event brought {what}: {} ({}); it was recorded and ignored",
        crate::sanitize::printable(name),
        crate::sanitize::printable(&call_key(call)),
        crate::sanitize::printable(&call.summary().chars().take(120).collect::<String>())
    )
}

/// Holds the event `name` that came during `during` (see [`Held`]): recorded (a warning
/// of `constraint` in the event log), not applied. The answer is for its sender.
pub fn hold(run: &mut Run, name: &str, during: &InFlight, now: Timestamp) -> Step {
    let what = format!(
        "a {} event arrived while the tool call {} may still be running: held, not applied",
        crate::sanitize::printable(name),
        during.describe()
    );
    if let Some(s) = run.session.as_mut() {
        if s.held.len() >= HELD_KEPT {
            s.held.remove(0);
        }
        s.held.push(Held {
            event: name.to_owned(),
            during: during.call.clone(),
            what: during.describe(),
            at: now,
        });
    }
    let state = run.breaker().state();
    let event = Event {
        at: now,
        run: run.id.clone(),
        kind: EventKind::Warn,
        from: state,
        to: state,
        rule: Some(RuleName::Constraint),
        reason: Some(what.clone()),
        iteration: run.iterations().last().map(|it| it.id.clone()),
        terminal_status: None,
    };
    Step {
        answer: Answer::Context(format!(
            "loopguard: {what}; the session's breaker stays as it is. A person who sent it can run `loopguard resume --session ID` from their own terminal."
        )),
        events: vec![event],
    }
}

/// The result of the call `key` came: the events held during it were forged. The reason
/// of their `constraint` trip, if any was held.
pub fn confirm_held(run: &mut Run, key: &str) -> Option<String> {
    let state = run.session.as_mut()?;
    let (forged, kept): (Vec<Held>, Vec<Held>) =
        state.held.drain(..).partition(|h| h.during == key);
    state.held = kept;
    let first = forged.first()?;
    Some(format!(
        "a {} event arrived while the tool call {} was running (its result came after it): the harness sends none during a call, so a program the call ran sent it; it was held and not applied",
        crate::sanitize::printable(&first.event),
        first.what
    ))
}

/// What loopguard saw that it did not do (a forged event, a change to what guards the
/// session): a `constraint` trip of the session whatever its breaker's phase, recorded
/// with `reason`. The answer is for whoever sent the event: the session's breaker is open.
pub fn tampered(config: &Config, run: &mut Run, reason: String, now: Timestamp) -> Step {
    let events = run.tampered(config, reason.clone(), now);
    if let Some(s) = run.session.as_mut() {
        s.near.clear();
    }
    Step {
        answer: Answer::Context(format!(
            "loopguard (constraint): {reason}. The breaker of this session is open: stop calling tools and tell the user what you did; a person decides how it goes on."
        )),
        events,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn flying(tool: &str, agent: Option<&str>) -> InFlight {
        let mut call = CallInput::new(tool, json!({"command": "sleep 1"}));
        call.agent = agent.map(str::to_owned);
        call.id = Some(format!("id-{tool}"));
        InFlight::of(&call, Timestamp::UNIX_EPOCH, None)
    }

    #[test]
    fn what_cannot_come_while_a_call_runs() {
        let bash = flying("Bash", None);
        let task = flying("Task", None);
        let sub_bash = flying("Bash", Some("a1"));
        for kind in [HookKind::Prompt, HookKind::SessionStart, HookKind::Stop] {
            assert_eq!(forged_during(kind, false, &[]), None);
            assert_eq!(
                forged_during(kind, false, std::slice::from_ref(&bash)),
                Some(&bash)
            );
            assert_eq!(
                forged_during(kind, false, std::slice::from_ref(&task)),
                Some(&task)
            );
        }
        // A sub-agent stops while the call that runs it is in flight, not during a call
        // of its own, and never with no such call.
        assert_eq!(
            forged_during(HookKind::Stop, true, std::slice::from_ref(&task)),
            None
        );
        assert_eq!(
            forged_during(HookKind::Stop, true, &[task.clone(), sub_bash.clone()]),
            Some(&sub_bash)
        );
        assert_eq!(
            forged_during(HookKind::Stop, true, std::slice::from_ref(&bash)),
            Some(&bash)
        );
        // Over when the transcript holds its result.
        assert!(bash.answered_by(r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"id-Bash","is_error":true}]}}"#));
        assert!(bash.answered_by(r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"id-Bash"}}"#));
        assert!(!bash.answered_by(
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"id-Bash"}]}}"#
        ));
        assert!(!task.answered_by(r#"{"type":"tool_result","tool_use_id":"id-Bash"}"#));
        let transcript = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash"}]}}"#;
        assert!(!shows_earlier_calls(transcript, "t1", None));
        assert!(shows_earlier_calls(transcript, "t2", None));
        assert!(shows_earlier_calls(
            r#"{"payload":{"type":"function_call","call_id":"c1"}}"#,
            "c2",
            None
        ));
        // Since the hooks were set up: a call before then is no lost state; one without a
        // time it can read may be after.
        let at = r#"{"timestamp":"2026-03-01T10:00:00Z","type":"assistant","message":{"content":[{"type":"tool_use","id":"t1"}]}}"#;
        let set_up = |s: &str| Some(s.parse::<Timestamp>().unwrap());
        assert!(!shows_earlier_calls(
            at,
            "t2",
            set_up("2026-03-01T10:00:01Z")
        ));
        assert!(shows_earlier_calls(
            at,
            "t2",
            set_up("2026-03-01T10:00:00Z")
        ));
        assert!(shows_earlier_calls(
            transcript,
            "t2",
            set_up("2026-03-01T10:00:01Z")
        ));
        for kind in [HookKind::PreTool, HookKind::PostTool, HookKind::Other] {
            assert_eq!(
                forged_during(kind, false, std::slice::from_ref(&bash)),
                None
            );
        }
    }

    #[test]
    fn a_result_is_judged_by_its_own_call() {
        let call = CallInput::new("Bash", json!({"command": "pytest"}))
            .returned(json!({"stdout": "1 passed", "exit_code": 0}));
        let digest = call.outcome().digest;
        assert_eq!(
            post_provenance(&call, true, None),
            PostProvenance::Announced
        );
        assert_eq!(post_provenance(&call, false, None), PostProvenance::Forged);
        assert_eq!(
            post_provenance(&call, false, Some(&digest)),
            PostProvenance::Repeated
        );
        assert_eq!(
            post_provenance(&call, true, Some("other")),
            PostProvenance::Forged
        );
        // Without the harness's id, the key is the tool and its input: the same for the
        // call before and after.
        let mut before = CallInput::new("run_shell_command", json!({"command": "ls"}));
        let after = before.clone().returned(json!("x"));
        assert_eq!(call_key(&before), call_key(&after));
        before.id = Some("t1".into());
        assert_eq!(call_key(&before), "t1");
    }
}
