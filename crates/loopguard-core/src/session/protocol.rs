//! What each harness sends a hook on stdin and the exact answer it reads back
//! (docs/agents/). One [`HookEvent`] for all of them; one [`Answer`] rendered per harness.
//!
//! - **Claude Code** and **Codex**: snake_case input with `hook_event_name`; exit 0 with
//!   JSON on stdout: `hookSpecificOutput.permissionDecision: "deny"` and its reason before
//!   a tool call, `hookSpecificOutput.additionalContext` after one, `decision: "block"` and
//!   `reason` at a stop. Codex rejects unknown fields (and then runs the call), so nothing
//!   else is ever written; allowing is saying nothing (an empty stdout), never
//!   `"allow"`, which would skip the user's own permission prompts.
//! - **Gemini CLI**: snake_case input, events `BeforeTool`, `AfterTool`, `BeforeAgent`,
//!   `AfterAgent`, `SessionStart`; `decision: "deny"` and `reason`.
//! - **Copilot** (`.github/hooks/*.json`): camelCase input (`toolName`, `toolArgs` as a
//!   JSON string, `toolResult`) without the event's name, which the hook command passes;
//!   `permissionDecision: "deny"` and `permissionDecisionReason` before a tool call.
//!
//! Every answer exits 0: loopguard never blocks a call because it failed itself (Cline
//! blocks on any non-zero exit, Codex counts exit 2 without stderr as a failure).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::call::CallInput;

/// A coding agent's harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Harness {
    Claude,
    Codex,
    Gemini,
    Copilot,
}

impl Harness {
    pub const ALL: [Harness; 4] = [
        Harness::Claude,
        Harness::Codex,
        Harness::Gemini,
        Harness::Copilot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Copilot => "copilot",
        }
    }

    /// The harness's name for people.
    pub fn title(self) -> &'static str {
        match self {
            Harness::Claude => "Claude Code",
            Harness::Codex => "Codex",
            Harness::Gemini => "Gemini CLI",
            Harness::Copilot => "GitHub Copilot",
        }
    }
}

impl fmt::Display for Harness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Harness {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Harness::ALL
            .into_iter()
            .find(|h| h.as_str() == s)
            .ok_or_else(|| {
                format!("unknown agent `{s}`, expected one of claude, codex, gemini, copilot")
            })
    }
}

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
    /// Nothing loopguard judges (notifications, compaction, session end).
    Other,
}

impl EventKind {
    /// The kind of a harness's event name.
    pub fn of(name: &str) -> EventKind {
        match name {
            "SessionStart" | "sessionStart" => EventKind::SessionStart,
            "UserPromptSubmit" | "BeforeAgent" | "userPromptSubmitted" => EventKind::Prompt,
            "PreToolUse" | "BeforeTool" | "preToolUse" => EventKind::PreTool,
            "PostToolUse" | "PostToolUseFailure" | "AfterTool" | "postToolUse" => {
                EventKind::PostTool
            }
            "Stop" | "SubagentStop" | "AfterAgent" | "agentStop" | "subagentStop" => {
                EventKind::Stop
            }
            _ => EventKind::Other,
        }
    }
}

/// One hook call, read from the harness's JSON.
#[derive(Debug, Clone)]
pub struct HookEvent {
    pub harness: Harness,
    /// The event as the harness named it (`PreToolUse`, `BeforeTool`, `preToolUse`).
    pub name: String,
    pub kind: EventKind,
    pub session: String,
    pub cwd: Option<String>,
    pub transcript: Option<String>,
    pub call: Option<CallInput>,
    /// The stop comes after a hook already made the agent go on.
    pub stop_hook_active: bool,
    /// The agent's last message at a stop, where the harness gives it.
    pub last_message: Option<String>,
}

/// Why a hook's input could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The most bytes of hook input read (a tool's response can be a whole log).
pub const MAX_INPUT: usize = 32 << 20;

impl HookEvent {
    /// Reads the JSON a harness wrote; `event` is the event's name when the harness does
    /// not put it in the input (Copilot), or overrides it.
    pub fn parse(
        harness: Harness,
        event: Option<&str>,
        input: &str,
    ) -> Result<HookEvent, BadInput> {
        let v: Value = serde_json::from_str(input)
            .map_err(|e| BadInput(format!("the hook input is not JSON ({e})")))?;
        if !v.is_object() {
            return Err(BadInput("the hook input is not a JSON object".to_owned()));
        }
        let s = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| v.get(*k).and_then(Value::as_str))
                .map(str::to_owned)
        };
        let name = event
            .map(str::to_owned)
            .or_else(|| s(&["hook_event_name", "hookEventName", "hookName"]))
            .ok_or_else(|| {
                BadInput(
                    "the hook input names no event (hook_event_name); hint: pass it: `loopguard agent-hook <agent> <event>`"
                        .to_owned(),
                )
            })?;
        let kind = EventKind::of(&name);
        let cwd = s(&["cwd"]);
        // Copilot gives no session id in every version: one session per directory then.
        let session = s(&["session_id", "sessionId", "conversation_id"])
            .or_else(|| {
                cwd.as_ref()
                    .map(|c| format!("{harness}-{}", super::files::digest(c)))
            })
            .unwrap_or_else(|| format!("{harness}-default"));
        let agent = s(&["agent_type", "agentType"])
            .or_else(|| s(&["agent_id", "agentId"]))
            .filter(|a| !a.is_empty() && a != "main");
        let call = match kind {
            EventKind::PreTool | EventKind::PostTool => {
                let tool = s(&["tool_name", "toolName"]).ok_or_else(|| {
                    BadInput("the hook input names no tool (tool_name)".to_owned())
                })?;
                let input = v
                    .get("tool_input")
                    .or_else(|| v.get("toolArgs"))
                    .or_else(|| v.get("toolInput"))
                    .cloned()
                    .map(|i| {
                        // Copilot passes its arguments as a JSON string.
                        i.as_str()
                            .and_then(|text| serde_json::from_str(text).ok())
                            .unwrap_or(i)
                    })
                    .unwrap_or(Value::Null);
                let response = v
                    .get("tool_response")
                    .or_else(|| v.get("toolResult"))
                    .or_else(|| v.get("tool_output"))
                    .cloned()
                    .or_else(|| v.get("error").cloned());
                Some(CallInput {
                    tool,
                    input,
                    response,
                    failed: name == "PostToolUseFailure"
                        || v.get("is_interrupt").and_then(Value::as_bool) == Some(true),
                    agent,
                    id: s(&["tool_use_id", "toolUseId", "call_id"]),
                })
            }
            EventKind::SessionStart | EventKind::Prompt | EventKind::Stop | EventKind::Other => {
                None
            }
        };
        Ok(HookEvent {
            harness,
            kind,
            session,
            cwd,
            transcript: s(&["transcript_path", "transcriptPath"]),
            call,
            stop_hook_active: v.get("stop_hook_active").and_then(Value::as_bool) == Some(true)
                || v.get("stopHookActive").and_then(Value::as_bool) == Some(true),
            last_message: s(&[
                "last_assistant_message",
                "prompt_response",
                "lastAssistantMessage",
            ]),
            name,
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

/// What a hook prints on stdout for its harness: exactly the fields that harness reads,
/// and nothing else (Codex rejects an answer with an unknown field, and then lets the call
/// through). A JSON document of the contract, pinned per harness by
/// `tests/it/documents.rs`; unlike the others it carries no `schema`, for that reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum HookOutput {
    /// Claude Code and Codex (Gemini CLI after a tool call): the event's own output.
    Specific {
        #[serde(rename = "hookSpecificOutput")]
        hook_specific_output: HookSpecificOutput,
    },
    /// A decision with its reason: Gemini CLI's denial, a blocked stop.
    Decision { decision: Decision, reason: String },
    /// Copilot's denial before a tool call.
    Permission {
        #[serde(rename = "permissionDecision")]
        permission_decision: Decision,
        #[serde(rename = "permissionDecisionReason")]
        permission_decision_reason: String,
    },
    /// A message for the person (loopguard failed, or the harness reads no context for
    /// this event).
    SystemMessage {
        #[serde(rename = "systemMessage")]
        system_message: String,
    },
}

/// `hookSpecificOutput`: a denial before a tool call, or context for the model.
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

/// A decision loopguard gives: never `allow` (allowing is saying nothing, so the user's
/// own permission rules still decide).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Deny,
    Block,
}

/// An answer as the harness reads it: stdout (empty for none), stderr, and the exit code
/// (always 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

impl Answer {
    /// What the hook prints for `harness` at the event `name`, and what it says on stderr
    /// for the person; `None`: nothing on stdout.
    pub fn output(&self, harness: Harness, name: &str) -> (Option<HookOutput>, Option<String>) {
        let decision = |decision: Decision, reason: &str| HookOutput::Decision {
            decision,
            reason: reason.to_owned(),
        };
        match (self, harness) {
            (Answer::Nothing, _) => (None, None),
            (Answer::Failed(why), Harness::Copilot) => (
                None,
                Some(format!("loopguard: {why}; the call goes through")),
            ),
            (Answer::Failed(why), Harness::Claude | Harness::Codex | Harness::Gemini) => {
                let text = format!("loopguard: {why}; the call goes through");
                (
                    Some(HookOutput::SystemMessage {
                        system_message: text.clone(),
                    }),
                    Some(text),
                )
            }
            (Answer::Deny(reason), Harness::Claude | Harness::Codex) => (
                Some(HookOutput::Specific {
                    hook_specific_output: HookSpecificOutput {
                        hook_event_name: "PreToolUse".to_owned(),
                        permission_decision: Some(Decision::Deny),
                        permission_decision_reason: Some(reason.clone()),
                        additional_context: None,
                    },
                }),
                None,
            ),
            (Answer::Deny(reason), Harness::Gemini) => {
                (Some(decision(Decision::Deny, reason)), None)
            }
            (Answer::Deny(reason), Harness::Copilot) => (
                Some(HookOutput::Permission {
                    permission_decision: Decision::Deny,
                    permission_decision_reason: reason.clone(),
                }),
                None,
            ),
            (Answer::Block(reason), Harness::Claude | Harness::Codex | Harness::Copilot) => {
                (Some(decision(Decision::Block, reason)), None)
            }
            (Answer::Block(reason), Harness::Gemini) => {
                (Some(decision(Decision::Deny, reason)), None)
            }
            (Answer::Context(text), Harness::Claude | Harness::Codex | Harness::Gemini) => {
                // Codex knows hookSpecificOutput for these events only; for the others
                // the text goes to the person.
                let specific = matches!(
                    name,
                    "SessionStart"
                        | "UserPromptSubmit"
                        | "PostToolUse"
                        | "PostToolUseFailure"
                        | "AfterTool"
                        | "BeforeAgent"
                );
                if specific {
                    // Claude Code's PostToolUseFailure context is read as PostToolUse's.
                    let event = if name == "PostToolUseFailure" && harness == Harness::Codex {
                        "PostToolUse"
                    } else {
                        name
                    };
                    let output = HookSpecificOutput {
                        hook_event_name: event.to_owned(),
                        permission_decision: None,
                        permission_decision_reason: None,
                        additional_context: Some(text.clone()),
                    };
                    (
                        Some(HookOutput::Specific {
                            hook_specific_output: output,
                        }),
                        None,
                    )
                } else {
                    (
                        Some(HookOutput::SystemMessage {
                            system_message: text.clone(),
                        }),
                        None,
                    )
                }
            }
            // Copilot reads no output but a pre-tool decision: the person sees stderr.
            (Answer::Context(text), Harness::Copilot) => (None, Some(text.clone())),
        }
    }

    /// The answer in `harness`'s format for the event `name`.
    pub fn render(&self, harness: Harness, name: &str) -> Reply {
        let (output, stderr) = self.output(harness, name);
        Reply {
            stdout: output
                .map(|o| serde_json::to_string(&o).expect("a hook's output serialises"))
                .unwrap_or_default(),
            stderr: stderr.map(|s| s + "\n").unwrap_or_default(),
            code: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_harness_input_is_read() {
        let claude = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/r","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_1","error":"Error: Exit code 2\nboom","is_interrupt":false,"agent_id":"a1","agent_type":"general-purpose"}"#;
        let e = HookEvent::parse(Harness::Claude, None, claude).unwrap();
        assert_eq!((e.kind, e.session.as_str()), (EventKind::PostTool, "s1"));
        let c = e.call.unwrap();
        assert!(c.failed);
        assert_eq!(c.agent.as_deref(), Some("general-purpose"));
        assert_eq!(c.id.as_deref(), Some("toolu_1"));
        assert!(c.outcome().failed);

        let copilot = r#"{"timestamp":1704614600000,"cwd":"/r","toolName":"bash","toolArgs":"{\"command\":\"npm test\"}"}"#;
        let e = HookEvent::parse(Harness::Copilot, Some("preToolUse"), copilot).unwrap();
        assert_eq!(e.kind, EventKind::PreTool);
        assert_eq!(e.call.unwrap().command().as_deref(), Some("npm test"));
        assert!(e.session.starts_with("copilot-"));

        let gemini = r#"{"session_id":"g","cwd":"/r","hook_event_name":"AfterAgent","prompt":"fix it","prompt_response":"Done, all tests pass.","stop_hook_active":true}"#;
        let e = HookEvent::parse(Harness::Gemini, None, gemini).unwrap();
        assert_eq!(e.kind, EventKind::Stop);
        assert!(e.stop_hook_active);
        assert_eq!(e.last_message.as_deref(), Some("Done, all tests pass."));

        for bad in [
            "",
            "[]",
            "{\"session_id\":\"s\"}",
            "{\"hook_event_name\":\"PreToolUse\"}",
        ] {
            assert!(
                HookEvent::parse(Harness::Claude, None, bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn answers_in_each_format_exit_zero() {
        let deny = Answer::Deny("stop".into());
        let c = deny.render(Harness::Claude, "PreToolUse");
        assert_eq!(
            c.stdout,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"stop"}}"#
        );
        assert_eq!(
            deny.render(Harness::Gemini, "BeforeTool").stdout,
            r#"{"decision":"deny","reason":"stop"}"#
        );
        assert_eq!(
            deny.render(Harness::Copilot, "preToolUse").stdout,
            r#"{"permissionDecision":"deny","permissionDecisionReason":"stop"}"#
        );
        for h in Harness::ALL {
            for a in [Answer::Nothing, deny.clone(), Answer::Failed("x".into())] {
                assert_eq!(a.render(h, "PreToolUse").code, 0);
            }
            assert_eq!(Answer::Nothing.render(h, "PreToolUse").stdout, "");
        }
    }
}
