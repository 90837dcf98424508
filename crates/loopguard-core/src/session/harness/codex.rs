//! Codex (docs/agents/codex.md): `.codex/hooks.json` in Claude Code's shape, the same
//! snake_case input and answers. Codex rejects an answer with an unknown field (and then
//! runs the call), so nothing else is ever written; it knows `additionalContext` for
//! `SessionStart`, `UserPromptSubmit` and `PostToolUse` only. It runs a project's hooks
//! only when the project is trusted and the person reviewed each hook (`/hooks`).

use super::super::protocol::{EventKind, SNAKE_CASE};
use super::super::transcript::Format;
use super::{ConfigFile, Descriptor, Event, Layout, Quirks, Resume, ShellStatus, StopBlock, Trust};

pub(super) const HARNESS: Descriptor = Descriptor {
    name: "codex",
    title: "Codex",
    config: ConfigFile {
        path: ".codex/hooks.json",
        guards: &[".codex/hooks.json", ".codex/config.toml"],
        version: None,
        layout: Layout::Grouped { tool_matcher: None },
        entry: super::claude::ENTRY,
        event_in_command: false,
        owned: false,
    },
    events: &[
        Event::new("SessionStart", EventKind::SessionStart).tells_model(),
        Event::new("UserPromptSubmit", EventKind::Prompt).tells_model(),
        Event::new("PreToolUse", EventKind::PreTool),
        Event::new("PostToolUse", EventKind::PostTool).tells_model(),
        Event::new("Stop", EventKind::Stop),
    ],
    input: SNAKE_CASE,
    answer: super::claude::answer,
    transcript: Some(Format::Codex),
    quirks: Quirks {
        stop_block: StopBlock::SameTurn,
        resume: Resume::StartThenPrompt,
        shell_status: ShellStatus::OutputOnly,
        trust: Trust::TrustedAndReviewed,
    },
};
