//! Claude Code (docs/agents/claude.md): `.claude/settings.json`, snake_case input with
//! `hook_event_name`; exit 0 with JSON on stdout: `hookSpecificOutput.permissionDecision:
//! "deny"` and its reason before a tool call, `hookSpecificOutput.additionalContext` after
//! one (and at the start and a prompt), `decision: "block"` and `reason` at a stop.
//! Allowing is saying nothing (an empty stdout), never `"allow"`, which would skip the
//! user's own permission prompts. Codex and Gemini CLI read the same shapes. Its
//! transcript is read here too, for the last words at a stop, the tokens and `replay`.

use serde_json::Value;

use super::super::call::CallInput;
use super::super::protocol::{
    Answer, Decision, DecisionOutput, EventKind, Reply, SNAKE_CASE, Specific, SystemMessage,
};
use super::turns::{self, Turns};
use super::{
    ConfigFile, Descriptor, Event, Layout, Member, Quirks, Resume, ShellStatus, StopBlock,
    Transcript, Trust,
};

pub(super) const HARNESS: Descriptor = Descriptor {
    name: "claude",
    title: "Claude Code",
    config: ConfigFile {
        path: ".claude/settings.json",
        guards: &[".claude/settings.json", ".claude/settings.local.json"],
        version: None,
        layout: Layout::Grouped { tool_matcher: None },
        entry: ENTRY,
        event_in_command: false,
        owned: false,
    },
    events: &[
        Event::new("SessionStart", EventKind::SessionStart).tells_model(),
        Event::new("UserPromptSubmit", EventKind::Prompt).tells_model(),
        Event::new("PreToolUse", EventKind::PreTool),
        Event::new("PostToolUse", EventKind::PostTool).tells_model(),
        Event::new("PostToolUseFailure", EventKind::PostTool)
            .failed_call()
            .tells_model(),
        Event::new("Stop", EventKind::Stop),
        Event::new("SubagentStop", EventKind::Stop),
    ],
    input: SNAKE_CASE,
    answer,
    transcript: Some(TRANSCRIPT),
    quirks: Quirks {
        stop_block: StopBlock::SameTurn,
        resume: Resume::StartThenPrompt,
        shell_status: ShellStatus::Reported,
        trust: Trust::None,
    },
    review: None,
};

/// `{type: command, command, timeout}`, the timeout in seconds (Codex's too).
pub(super) const ENTRY: &[(&str, Member)] = &[
    ("type", Member::Text("command")),
    ("command", Member::Command),
    ("timeout", Member::Number(30)),
];

pub(super) fn answer(answer: &Answer, event: Option<&Event>) -> Reply {
    match answer {
        Answer::Nothing => Reply::nothing(),
        Answer::Failed(why) => failed(why),
        Answer::Deny(reason) => Reply::json(&Specific::deny("PreToolUse", reason)),
        Answer::Block(reason) => Reply::json(&DecisionOutput::new(Decision::Block, reason)),
        Answer::Context(text) => context(event, text),
    }
}

/// loopguard failed: a `systemMessage` for the person, and the same on stderr.
pub(super) fn failed(why: &str) -> Reply {
    let text = Answer::failed_text(why);
    Reply::json(&SystemMessage::new(&text)).and_person(&text)
}

/// `text` for the model as the event's `additionalContext` where the model reads it;
/// elsewhere a `systemMessage` for the person.
pub(super) fn context(event: Option<&Event>, text: &str) -> Reply {
    match event.filter(|e| e.tells_model) {
        Some(e) => Reply::json(&Specific::context(e.name, text)),
        None => Reply::json(&SystemMessage::new(text)),
    }
}

/// Claude Code's transcript, `~/.claude/projects/<slug>/<id>.jsonl`: lines `{type:
/// user|assistant|system|summary, uuid, isSidechain, sessionId, timestamp, message: {role,
/// content: [text | tool_use{id, name, input} | tool_result{tool_use_id, content,
/// is_error}], usage}, toolUseResult, agentId}`; a sub-agent's lines are its sidechain.
const TRANSCRIPT: Transcript = Transcript {
    recognise,
    read,
    tokens,
    // A failed call has its own event (`PostToolUseFailure`).
    exit_status: |_, _| None,
};

fn recognise(v: &Value) -> bool {
    let t = v.get("type").and_then(Value::as_str).unwrap_or("");
    matches!(t, "user" | "assistant" | "system" | "summary")
        && (v.get("sessionId").is_some() || v.get("uuid").is_some() || v.get("leafUuid").is_some())
}

/// Each assistant message's tokens, once: `counted` is the last one counted.
fn tokens(lines: &[Value], counted: &mut Option<String>, _recorded: u64) -> u64 {
    let mut tokens = 0;
    for (id, n) in usage(lines) {
        if counted.as_deref() != Some(id.as_str()) {
            tokens += n;
            *counted = Some(id);
        }
    }
    tokens
}

/// The tokens of one Claude Code assistant message (`message.usage`): input, output and
/// cache, as the model processed them.
fn message_tokens(usage: &Value) -> u64 {
    [
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ]
    .iter()
    .filter_map(|k| usage.get(*k).and_then(Value::as_u64))
    .sum()
}

/// Claude Code's assistant messages in `lines`, each once (its id, its tokens): the usage
/// repeats on every line of a message. The live hooks and replay count tokens with this.
fn usage(lines: &[Value]) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for v in lines {
        if v.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let m = &v["message"];
        let (Some(id), Some(usage)) = (m.get("id").and_then(Value::as_str), m.get("usage")) else {
            continue;
        };
        if out.last().is_some_and(|(last, _)| last == id) || out.iter().any(|(x, _)| x == id) {
            continue;
        }
        out.push((id.to_owned(), message_tokens(usage)));
    }
    out
}

/// A transcript's lines into `turns`: a sub-agent's lines are its sidechain.
fn read(lines: &[Value], turns: &mut Turns) {
    if let Some(id) = lines
        .iter()
        .find_map(|v| v.get("sessionId").and_then(Value::as_str))
    {
        turns.session(id);
    }
    let mut counted: Vec<String> = Vec::new();
    let mut unassigned: u64 = 0;
    for v in lines {
        let at = turns::at(v);
        let sidechain = v.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let agent = v
            .get("agentId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| sidechain.then(|| "sidechain".to_owned()));
        let content = &v["message"]["content"];
        match v.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                let m = &v["message"];
                if let (Some(id), Some(usage)) =
                    (m.get("id").and_then(Value::as_str), m.get("usage"))
                    && !counted.iter().any(|c| c == id)
                {
                    counted.push(id.to_owned());
                    unassigned += message_tokens(usage);
                }
                for part in content.as_array().into_iter().flatten() {
                    match part.get("type").and_then(Value::as_str) {
                        Some("text") if !sidechain => {
                            turns.say(part.get("text").and_then(Value::as_str).map(str::to_owned));
                        }
                        Some("tool_use") => {
                            let mut call = CallInput::new(
                                part["name"].as_str().unwrap_or("?"),
                                part["input"].clone(),
                            );
                            call.agent = agent.clone();
                            call.id = part["id"].as_str().map(str::to_owned);
                            call.root = v.get("cwd").and_then(Value::as_str).map(str::to_owned);
                            turns.call(at, call);
                        }
                        _ => {}
                    }
                }
            }
            Some("user") => {
                let meta = v.get("isMeta").and_then(Value::as_bool) == Some(true);
                let mut prompt = None;
                match content {
                    Value::String(s) => prompt = Some(s.clone()),
                    Value::Array(parts) => {
                        for part in parts {
                            match part.get("type").and_then(Value::as_str) {
                                Some("tool_result") => {
                                    let response = match v.get("toolUseResult") {
                                        Some(r) if r.is_object() => r.clone(),
                                        _ => part["content"].clone(),
                                    };
                                    let failed =
                                        part.get("is_error").and_then(Value::as_bool) == Some(true);
                                    let id = part["tool_use_id"].as_str().unwrap_or("");
                                    if turns.result(at, id, response, failed, unassigned) {
                                        unassigned = 0;
                                    }
                                }
                                Some("text") => {
                                    prompt =
                                        part.get("text").and_then(Value::as_str).map(str::to_owned);
                                }
                                _ => {}
                            }
                        }
                    }
                    Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => {}
                }
                if prompt.is_some_and(|p| !meta && !sidechain && !p.starts_with('<')) {
                    turns.prompt(at);
                }
            }
            _ => {}
        }
    }
}
