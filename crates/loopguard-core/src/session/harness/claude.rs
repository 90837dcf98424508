//! Claude Code (docs/agents/claude.md): `.claude/settings.json`, snake_case input with
//! `hook_event_name`; exit 0 with JSON on stdout: `hookSpecificOutput.permissionDecision:
//! "deny"` and its reason before a tool call, `hookSpecificOutput.additionalContext` after
//! one (and at the start and a prompt), `decision: "block"` and `reason` at a stop.
//! Allowing is saying nothing (an empty stdout), never `"allow"`, which would skip the
//! user's own permission prompts. Codex and Gemini CLI read the same shapes.

use super::super::protocol::{
    Answer, Decision, DecisionOutput, EventKind, Reply, SNAKE_CASE, Specific, SystemMessage,
};
use super::super::transcript::Format;
use super::{
    ConfigFile, Descriptor, Event, Layout, Member, Quirks, Resume, ShellStatus, StopBlock, Trust,
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
    transcript: Some(Format::Claude),
    quirks: Quirks {
        stop_block: StopBlock::SameTurn,
        resume: Resume::StartThenPrompt,
        shell_status: ShellStatus::Reported,
        trust: Trust::None,
    },
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
