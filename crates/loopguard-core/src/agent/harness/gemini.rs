//! Gemini CLI (docs/agents/gemini.md): `.gemini/settings.json`, Claude Code's shape with a
//! `name`, a timeout in milliseconds and a `matcher` (a regex) on the tool events;
//! snake_case input, events `SessionStart`, `BeforeAgent`, `BeforeTool`, `AfterTool`,
//! `AfterAgent`; a denial and a blocked stop are `decision: "deny"` with a `reason`. It
//! loads a project's hooks only in a trusted folder, and re-prompts the model with a
//! blocked stop's reason, firing `BeforeAgent` with it as the prompt.

use super::super::protocol::{
    Answer, Decision, DecisionOutput, EventKind, Input, Reply, SNAKE_CASE,
};
use super::{
    ConfigFile, Descriptor, Event, Layout, Member, Quirks, Resume, ShellStatus, StopBlock, Trust,
};

pub(super) const HARNESS: Descriptor = Descriptor {
    name: "gemini",
    title: "Gemini CLI",
    config: ConfigFile {
        path: ".gemini/settings.json",
        guards: &[".gemini/settings.json"],
        version: None,
        layout: Layout::Grouped {
            tool_matcher: Some(".*"),
        },
        entry: &[
            ("type", Member::Text("command")),
            ("command", Member::Command),
            ("name", Member::Text("loopguard")),
            ("timeout", Member::Number(30_000)),
        ],
        event_in_command: false,
        owned: false,
    },
    events: &[
        Event::new("SessionStart", EventKind::SessionStart).tells_model(),
        Event::new("BeforeAgent", EventKind::Prompt).tells_model(),
        Event::new("BeforeTool", EventKind::PreTool),
        Event::new("AfterTool", EventKind::PostTool).tells_model(),
        Event::new("AfterAgent", EventKind::Stop),
    ],
    input: Input {
        last_message: &["prompt_response"],
        ..SNAKE_CASE
    },
    answer,
    // Its chats are not JSON lines: the stop gives the last words (`prompt_response`).
    transcript: None,
    quirks: Quirks {
        stop_block: StopBlock::AsPrompt,
        resume: Resume::StartThenPrompt,
        shell_status: ShellStatus::Reported,
        trust: Trust::TrustedFolder,
    },
    review: None,
};

fn answer(answer: &Answer, event: Option<&Event>) -> Reply {
    match answer {
        Answer::Nothing => Reply::nothing(),
        Answer::Failed(why) => super::claude::failed(why),
        Answer::Deny(reason) | Answer::Block(reason) => {
            Reply::json(&DecisionOutput::new(Decision::Deny, reason))
        }
        Answer::Context(text) => super::claude::context(event, text),
    }
}
