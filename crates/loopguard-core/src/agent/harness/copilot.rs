//! GitHub Copilot, its CLI and cloud agent (docs/agents/copilot.md):
//! `.github/hooks/loopguard.json`, a file of loopguard's own, `{version: 1, hooks:
//! {<event>: [{type: command, bash, timeoutSec}]}}`. Its input is camelCase (`toolName`,
//! `toolArgs` as a JSON string, `toolResult`) without the event's name, which the hook
//! command passes; VS Code's agent reads the same file with Claude Code's snake_case
//! fields, so both are read. It reads `permissionDecision: "deny"` and
//! `permissionDecisionReason` before a tool call, and no other output but a blocked stop:
//! context goes to the person, on stderr.

use serde::Serialize;

use super::super::protocol::{Answer, Decision, DecisionOutput, EventKind, Input, Reply};
use super::{
    ConfigFile, Descriptor, Event, Layout, Member, Quirks, Resume, ShellStatus, StopBlock, Trust,
};

pub(super) const HARNESS: Descriptor = Descriptor {
    name: "copilot",
    title: "GitHub Copilot",
    config: ConfigFile {
        path: ".github/hooks/loopguard.json",
        guards: &[".github/hooks/"],
        version: Some(1),
        layout: Layout::Flat,
        entry: &[
            ("type", Member::Text("command")),
            ("bash", Member::Command),
            ("timeoutSec", Member::Number(30)),
        ],
        event_in_command: true,
        owned: true,
    },
    events: &[
        Event::new("sessionStart", EventKind::SessionStart),
        Event::new("userPromptSubmitted", EventKind::Prompt),
        Event::new("preToolUse", EventKind::PreTool),
        Event::new("postToolUse", EventKind::PostTool),
        Event::new("agentStop", EventKind::Stop),
        Event::new("subagentStop", EventKind::Stop),
    ],
    input: Input {
        event: &["hook_event_name", "hookEventName", "hookName"],
        session: &["session_id", "sessionId"],
        cwd: &["cwd"],
        transcript: &["transcript_path", "transcriptPath"],
        agent: &["agent_type", "agentType", "agent_id", "agentId"],
        tool: &["tool_name", "toolName"],
        tool_input: &["tool_input", "toolArgs", "toolInput"],
        response: &["tool_response", "toolResult", "error"],
        call_id: &["tool_use_id", "toolUseId"],
        interrupted: &["is_interrupt"],
        stop_hook_active: &["stop_hook_active", "stopHookActive"],
        last_message: &["last_assistant_message", "lastAssistantMessage"],
        prompt: &["prompt"],
    },
    answer,
    transcript: None,
    quirks: Quirks {
        stop_block: StopBlock::Unknown,
        resume: Resume::Unknown,
        shell_status: ShellStatus::Reported,
        trust: Trust::None,
    },
    review: None,
};

/// Copilot's denial before a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
struct Permission {
    permission_decision: Decision,
    permission_decision_reason: String,
}

fn answer(answer: &Answer, _event: Option<&Event>) -> Reply {
    match answer {
        Answer::Nothing => Reply::nothing(),
        Answer::Failed(why) => Reply::person(&Answer::failed_text(why)),
        Answer::Deny(reason) => Reply::json(&Permission {
            permission_decision: Decision::Deny,
            permission_decision_reason: reason.clone(),
        }),
        Answer::Block(reason) => Reply::json(&DecisionOutput::new(Decision::Block, reason)),
        // It reads no context: the person sees it.
        Answer::Context(text) => Reply::person(text),
    }
}
