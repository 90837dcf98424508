//! Cursor (docs/agents/cursor.md): `.cursor/hooks.json`, `{version: 1, hooks: {<event>:
//! [{type: command, command, timeout}]}}` with the timeout in seconds. Its input is
//! snake_case with `hook_event_name`, `conversation_id` for the session, `cwd` (or
//! `workspace_roots`), `transcript_path`; the generic tool events carry `tool_name`
//! (`Shell`, `Read`, `Write`, `Grep`, `Delete`, `Task`, `MCP:…`), `tool_input`,
//! `tool_use_id`, and after the call `tool_output` (`postToolUse`) or `error_message`
//! (`postToolUseFailure`). It reads a JSON object on stdout for every event (an empty
//! stdout is no valid answer): `{}` says nothing; `permission: "deny"` with
//! `user_message` and `agent_message` refuses a call; `additional_context` reaches the
//! model at the start and after a call; a stop is continued only by `followup_message`,
//! which Cursor submits as the next user message (at most `loop_limit` times, 5 unless the
//! entry says otherwise); `beforeSubmitPrompt` reads `continue` (always `true`: a person's
//! prompt goes through) and no text for the model, so what loopguard says there goes to
//! the person, on stderr. Its stop carries no last message (`status`,
//! `loop_count`): a false "done" is not judged. Facts from cursor.com/docs/hooks as
//! third-party integrations read it (context-mode, failproofai, agent-hooks-bridge).

use serde::Serialize;

use super::super::protocol::{Answer, Decision, EventKind, Input, Reply, SNAKE_CASE};
use super::{
    ConfigFile, Descriptor, Event, Layout, Member, Quirks, Resume, ShellStatus, StopBlock, Trust,
};

pub(super) const HARNESS: Descriptor = Descriptor {
    name: "cursor",
    title: "Cursor",
    config: ConfigFile {
        path: ".cursor/hooks.json",
        guards: &[".cursor/hooks.json"],
        version: Some(1),
        layout: Layout::Flat,
        entry: &[
            ("type", Member::Text("command")),
            ("command", Member::Command),
            ("timeout", Member::Number(30)),
        ],
        event_in_command: false,
        owned: false,
    },
    events: &[
        Event::new("sessionStart", EventKind::SessionStart).tells_model(),
        Event::new("beforeSubmitPrompt", EventKind::Prompt),
        Event::new("preToolUse", EventKind::PreTool),
        Event::new("postToolUse", EventKind::PostTool).tells_model(),
        Event::new("postToolUseFailure", EventKind::PostTool)
            .failed_call()
            .tells_model(),
        Event::new("stop", EventKind::Stop),
        Event::new("subagentStop", EventKind::Stop),
    ],
    input: Input {
        session: &["conversation_id", "session_id"],
        cwd: &["cwd", "workspace_roots"],
        agent: &[],
        response: &["tool_output", "error_message"],
        interrupted: &[],
        stop_hook_active: &["loop_count"],
        last_message: &[],
        ..SNAKE_CASE
    },
    answer,
    transcript: None,
    quirks: Quirks {
        stop_block: StopBlock::AsPrompt,
        resume: Resume::Unknown,
        shell_status: ShellStatus::OutputOnly,
        trust: Trust::None,
    },
    review: None,
};

/// Cursor's answer: the members it reads at the event, each only when there is something
/// to say (`{}`: nothing).
#[derive(Debug, Default, Serialize)]
struct Output<'a> {
    /// At `beforeSubmitPrompt`: the prompt goes on (loopguard never stops a person's).
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    go_on: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission: Option<Decision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    followup_message: Option<&'a str>,
}

fn answer(answer: &Answer, event: Option<&Event>) -> Reply {
    let prompt = event.is_some_and(|e| e.kind == EventKind::Prompt);
    let nothing = Reply::json(&Output {
        go_on: prompt.then_some(true),
        ..Output::default()
    });
    match answer {
        Answer::Nothing => nothing,
        Answer::Failed(why) => nothing.and_person(&Answer::failed_text(why)),
        Answer::Deny(reason) => Reply::json(&Output {
            permission: Some(Decision::Deny),
            user_message: Some(reason),
            agent_message: Some(reason),
            ..Output::default()
        }),
        Answer::Block(reason) => Reply::json(&Output {
            followup_message: Some(reason),
            ..Output::default()
        }),
        Answer::Context(text) => match event.filter(|e| e.tells_model) {
            Some(_) => Reply::json(&Output {
                additional_context: Some(text),
                ..Output::default()
            }),
            None => nothing.and_person(text),
        },
    }
}
