//! What every harness has in common: the kinds of event loopguard judges, the answer it
//! gives, the table that says where a harness puts each input field, and the output
//! shapes several dialects share. Each harness's own dialect — its events, its fields,
//! how an answer is written for it — is its descriptor ([`super::harness`]).
//!
//! Every answer exits 0: loopguard never blocks a call because it failed itself (Cline
//! blocks on any non-zero exit, Codex counts exit 2 without stderr as a failure).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// What happened in the session, as loopguard judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    SessionStart,
    /// A person's prompt: a new episode.
    Prompt,
    PreTool,
    /// A tool call completed (successfully or not).
    PostTool,
    /// The agent (or a sub-agent) wants to stop.
    Stop,
    /// Nothing loopguard judges (notifications, compaction, session end, an event the
    /// harness does not have).
    Other,
}

/// Why a hook's input could not be read, and what of it could: enough, often, to know
/// the session and the event, so that the hook fails closed while a breaker is open.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BadInput {
    pub why: String,
    /// The event's name, where it was read (or given on the command line).
    pub event: Option<String>,
    pub session: Option<String>,
    pub cwd: Option<String>,
}

impl BadInput {
    pub fn new(why: String) -> BadInput {
        BadInput {
            why,
            ..BadInput::default()
        }
    }
}

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.why)
    }
}

/// The most bytes of hook input read (a tool's response can be a whole log).
pub const MAX_INPUT: usize = 32 << 20;

/// Keys of one input field, the first present wins.
pub type Keys = &'static [&'static str];

/// Where a harness puts each field of its hook input that loopguard reads.
#[derive(Debug, Clone, Copy)]
pub struct Input {
    /// The event's name (absent where the command passes it: Copilot).
    pub event: Keys,
    pub session: Keys,
    /// The working directory: a string, or a list whose first string is taken
    /// (`workspace_roots`).
    pub cwd: Keys,
    pub transcript: Keys,
    /// The sub-agent that made a call (`main` and empty mean none).
    pub agent: Keys,
    pub tool: Keys,
    /// The call's arguments: an object, or a JSON string of one (Copilot's `toolArgs`).
    pub tool_input: Keys,
    /// What the call returned, or its error.
    pub response: Keys,
    pub call_id: Keys,
    /// `true` here: the call was interrupted, so it failed.
    pub interrupted: Keys,
    /// `true`, or a count above 0: a hook already made the agent go on at this stop.
    pub stop_hook_active: Keys,
    /// The agent's last message, at a stop.
    pub last_message: Keys,
    /// The prompt's text, at a prompt.
    pub prompt: Keys,
}

/// The snake_case input of Claude Code, and of the harnesses that copied it.
pub const SNAKE_CASE: Input = Input {
    event: &["hook_event_name"],
    session: &["session_id"],
    cwd: &["cwd"],
    transcript: &["transcript_path"],
    agent: &["agent_type", "agent_id"],
    tool: &["tool_name"],
    tool_input: &["tool_input"],
    response: &["tool_response", "error"],
    call_id: &["tool_use_id"],
    interrupted: &["is_interrupt"],
    stop_hook_active: &["stop_hook_active"],
    last_message: &["last_assistant_message"],
    prompt: &["prompt"],
};

impl Input {
    /// The first string under `keys` in `v` (the first string of a list, for a list).
    pub fn text(v: &Value, keys: Keys) -> Option<String> {
        keys.iter().find_map(|k| match v.get(*k)? {
            Value::String(s) => Some(s.clone()),
            Value::Array(items) => items.iter().find_map(Value::as_str).map(str::to_owned),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => None,
        })
    }

    /// The first value under `keys` in `v`.
    pub fn value(v: &Value, keys: Keys) -> Option<&Value> {
        keys.iter().find_map(|k| v.get(*k))
    }

    /// Whether a value under `keys` is `true` or a number above 0.
    pub fn flag(v: &Value, keys: Keys) -> bool {
        keys.iter().any(|k| match v.get(*k) {
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n > 0.0),
            Some(Value::Null | Value::String(_) | Value::Array(_) | Value::Object(_)) | None => {
                false
            }
        })
    }
}

/// What loopguard answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// No opinion: the harness goes on as it would.
    Nothing,
    /// Before a tool call: do not run it; the reason is what the model reads.
    Deny(String),
    /// Text for the model (after a tool call, at the start, after a prompt).
    Context(String),
    /// At a stop: go on instead, with this instruction.
    Block(String),
    /// loopguard itself failed: a message for the person, and the call goes through.
    Failed(String),
}

impl Answer {
    /// What the person reads when loopguard failed.
    pub fn failed_text(why: &str) -> String {
        format!("loopguard: {why}; the call goes through")
    }
}

/// An answer as the harness reads it: stdout (empty for none), stderr, and the exit code
/// (always 0). What goes on stdout is exactly the fields the harness reads, and nothing
/// else (Codex rejects an answer with an unknown field, and then lets the call through):
/// a JSON document of the contract, pinned per harness by `tests/it/documents.rs`; unlike
/// the others it carries no `schema`, for that reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

impl Reply {
    /// Nothing on stdout or stderr.
    pub fn nothing() -> Reply {
        Reply {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
        }
    }

    /// `output` on stdout, as one line of JSON.
    pub fn json(output: &impl Serialize) -> Reply {
        Reply {
            stdout: serde_json::to_string(output).expect("a hook's output serialises"),
            ..Reply::nothing()
        }
    }

    /// `text` for the person, on stderr.
    pub fn person(text: &str) -> Reply {
        Reply::nothing().and_person(text)
    }

    /// The same reply, with `text` for the person on stderr.
    pub fn and_person(mut self, text: &str) -> Reply {
        self.stderr = format!("{text}\n");
        self
    }
}

/// `hookSpecificOutput`: a denial before a tool call, or context for the model (Claude
/// Code, Codex, Gemini CLI).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookSpecificOutput {
    pub hook_event_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<Decision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

/// The event's own output: `{"hookSpecificOutput": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Specific {
    #[serde(rename = "hookSpecificOutput")]
    pub hook_specific_output: HookSpecificOutput,
}

impl Specific {
    /// Before a tool call: do not run it, for `reason`.
    pub fn deny(event: &str, reason: &str) -> Specific {
        Specific {
            hook_specific_output: HookSpecificOutput {
                hook_event_name: event.to_owned(),
                permission_decision: Some(Decision::Deny),
                permission_decision_reason: Some(reason.to_owned()),
                additional_context: None,
            },
        }
    }

    /// `text` for the model at `event`.
    pub fn context(event: &str, text: &str) -> Specific {
        Specific {
            hook_specific_output: HookSpecificOutput {
                hook_event_name: event.to_owned(),
                permission_decision: None,
                permission_decision_reason: None,
                additional_context: Some(text.to_owned()),
            },
        }
    }
}

/// A decision with its reason: `{"decision": "block", "reason": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionOutput {
    pub decision: Decision,
    pub reason: String,
}

impl DecisionOutput {
    pub fn new(decision: Decision, reason: &str) -> DecisionOutput {
        DecisionOutput {
            decision,
            reason: reason.to_owned(),
        }
    }
}

/// A message for the person: `{"systemMessage": …}` (loopguard failed, or the harness
/// reads no context for this event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SystemMessage {
    #[serde(rename = "systemMessage")]
    pub system_message: String,
}

impl SystemMessage {
    pub fn new(text: &str) -> SystemMessage {
        SystemMessage {
            system_message: text.to_owned(),
        }
    }
}

/// A decision loopguard gives: never `allow` (allowing is saying nothing, so the user's
/// own permission rules still decide).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Deny,
    Block,
}
