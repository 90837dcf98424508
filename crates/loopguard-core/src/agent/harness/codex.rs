//! Codex (docs/agents/codex.md): `.codex/hooks.json` in Claude Code's shape, the same
//! snake_case input and answers. Codex rejects an answer with an unknown field (and then
//! runs the call), so nothing else is ever written; it knows `additionalContext` for
//! `SessionStart`, `UserPromptSubmit` and `PostToolUse` only. It runs a project's hooks
//! only when the project is trusted and the person reviewed each hook (`/hooks`). Its
//! rollout is read here too, for the last words at a stop, the tokens and `replay`.

use serde_json::{Value, json};

use super::super::call::CallInput;
use super::super::protocol::{EventKind, SNAKE_CASE};
use super::turns::{self, Turns};
use super::{
    ConfigFile, Descriptor, Event, HookReview, Layout, Quirks, Resume, ReviewEntry, ShellStatus,
    StopBlock, Transcript, Trust,
};

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
    transcript: Some(TRANSCRIPT),
    quirks: Quirks {
        stop_block: StopBlock::SameTurn,
        resume: Resume::StartThenPrompt,
        shell_status: ShellStatus::OutputOnly,
        trust: Trust::TrustedAndReviewed,
    },
    review: Some(HookReview {
        home_var: "CODEX_HOME",
        home_default: ".codex",
        file: "config.toml",
        entries: review,
    }),
};

/// Codex's rollout, `~/.codex/sessions/…/rollout-*.jsonl`: lines `{timestamp, type:
/// session_meta | turn_context | event_msg | response_item, payload}`;
/// `function_call{name, arguments, call_id}` and `custom_tool_call{name: apply_patch,
/// input, call_id}` with their `*_output`, `event_msg` `user_message`, `agent_message` and
/// `token_count`.
const TRANSCRIPT: Transcript = Transcript {
    recognise,
    read,
    tokens,
    exit_status,
};

/// The exit status of the shell call `id`: the `item_completed` event of its
/// `CommandExecution` (`exit_code`), written before Codex runs the `PostToolUse` hooks, or
/// its `function_call_output` (written after them).
fn exit_status(v: &Value, id: &str) -> Option<i32> {
    let p = &v["payload"];
    let code = match (v["type"].as_str()?, p["type"].as_str()?) {
        ("event_msg", "item_completed") if p["item"]["id"] == id => p["item"]["exit_code"].as_i64(),
        ("response_item", "function_call_output") if p["call_id"] == id => {
            codex_output(&p["output"])["exit_code"].as_i64()
        }
        _ => None,
    };
    code.and_then(|c| i32::try_from(c).ok())
}

fn recognise(v: &Value) -> bool {
    let t = v.get("type").and_then(Value::as_str).unwrap_or("");
    v.get("payload").is_some()
        && matches!(
            t,
            "session_meta" | "response_item" | "event_msg" | "turn_context"
        )
}

/// The running total's growth past what was `recorded`.
fn tokens(lines: &[Value], _counted: &mut Option<String>, recorded: u64) -> u64 {
    lines
        .iter()
        .filter_map(|v| v["payload"]["info"]["total_token_usage"]["total_tokens"].as_u64())
        .max()
        .map_or(0, |total| total.saturating_sub(recorded))
}

/// A rollout's lines into `turns`.
fn read(lines: &[Value], turns: &mut Turns) {
    turns.session(
        lines
            .iter()
            .find(|v| v["type"] == "session_meta")
            .and_then(|v| v["payload"]["id"].as_str())
            .unwrap_or("rollout"),
    );
    let mut total: u64 = 0;
    let mut assigned: u64 = 0;
    for v in lines {
        let at = turns::at(v);
        let p = &v["payload"];
        let ptype = p.get("type").and_then(Value::as_str).unwrap_or("");
        match (v["type"].as_str().unwrap_or(""), ptype) {
            ("event_msg", "user_message") => turns.prompt(at),
            ("event_msg", "agent_message") => {
                turns.say(p["message"].as_str().map(str::to_owned));
            }
            ("event_msg", "token_count") => {
                if let Some(t) = p["info"]["total_token_usage"]["total_tokens"].as_u64() {
                    total = total.max(t);
                }
            }
            ("response_item", "function_call" | "custom_tool_call" | "local_shell_call") => {
                let name = p["name"].as_str().unwrap_or("shell").to_owned();
                let input = match (ptype, &p["arguments"], &p["input"]) {
                    (_, Value::String(args), _) => {
                        serde_json::from_str(args).unwrap_or(json!({"arguments": args}))
                    }
                    (_, _, Value::String(input)) => json!({"command": input}),
                    _ => p.get("action").cloned().unwrap_or(Value::Null),
                };
                let (tool, input) = codex_tool(&name, input);
                let mut call = CallInput::new(&tool, input);
                call.id = p["call_id"].as_str().map(str::to_owned);
                turns.call(at, call);
            }
            ("response_item", "function_call_output" | "custom_tool_call_output") => {
                let id = p["call_id"].as_str().unwrap_or("");
                let tokens = total.saturating_sub(assigned);
                if turns.result(at, id, codex_output(&p["output"]), false, tokens) {
                    assigned = total;
                }
            }
            _ => {}
        }
    }
}

/// A Codex function call as its hooks name it: a shell call is `Bash` with its command as
/// one string (`bash -lc "…"` unwrapped), `apply_patch` keeps its patch.
fn codex_tool(name: &str, input: Value) -> (String, Value) {
    match name {
        "shell" | "exec_command" | "local_shell" | "container.exec" | "shell_command" => {
            let command = match input.get("command").or_else(|| input.get("cmd")) {
                Some(Value::Array(parts)) => {
                    let parts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
                    match parts.as_slice() {
                        ["bash" | "sh" | "zsh", "-lc" | "-c", script] => (*script).to_owned(),
                        _ => parts.join(" "),
                    }
                }
                Some(Value::String(s)) => s.clone(),
                _ => String::new(),
            };
            ("Bash".to_owned(), json!({ "command": command }))
        }
        other => (other.to_owned(), input),
    }
}

/// A Codex tool output: a JSON string `{output, metadata: {exit_code}}`, or text that
/// says `Exit code: N` and then `Output:`.
fn codex_output(output: &Value) -> Value {
    let text = output
        .as_str()
        .map_or_else(|| output.to_string(), str::to_owned);
    if let Ok(v) = serde_json::from_str::<Value>(&text)
        && let Some(out) = v.get("output").and_then(Value::as_str)
    {
        return json!({"output": out, "exit_code": v["metadata"]["exit_code"]});
    }
    let body = text
        .split_once("\nOutput:\n")
        .map_or(text.as_str(), |(_, b)| b);
    let code = text
        .lines()
        .take(3)
        .find_map(|l| {
            l.strip_prefix("Exit code: ")
                .or_else(|| l.strip_prefix("Process exited with code "))
        })
        .and_then(|c| c.trim().parse::<i64>().ok());
    json!({"output": body, "exit_code": code})
}

/// Codex's record of a person's `/hooks` review, for each hook of the project's
/// `.codex/hooks.json` at `path`: `[hooks.state."<path>:<event>:<group>:<handler>"]` with
/// `trusted_hash`, kept in `$CODEX_HOME/config.toml` (only the user's config is read for
/// it). The hash is SHA-256 of the compact JSON, keys sorted, of the hook's identity:
/// `{event_name, matcher (when the event takes one and the group sets it), hooks: [{type,
/// command, timeout (default 600), async: false}]}`. A hook whose hash differs (its command
/// changed) is "modified" and silently not run.
fn review(config: &Value, path: &str) -> Vec<ReviewEntry> {
    use sha2::Digest as _;
    let mut out = Vec::new();
    let Some(events) = config["hooks"].as_object() else {
        return out;
    };
    let path = path.replace('\\', "\\\\").replace('"', "\\\"");
    for (event, groups) in events {
        let Some(label) = event_label(event) else {
            continue;
        };
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, hook) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                let mut identity = json!({
                    "event_name": label,
                    "hooks": [{"type": "command", "command": hook["command"],
                        "timeout": hook["timeout"].as_u64().unwrap_or(600), "async": false}],
                });
                // Codex drops the matcher of the events that have none.
                if let Some(m) = group["matcher"].as_str()
                    && !matches!(label, "user_prompt_submit" | "stop")
                {
                    identity["matcher"] = json!(m);
                }
                // serde_json's map keeps its keys sorted: the canonical form.
                let hash = sha2::Sha256::digest(identity.to_string().as_bytes());
                let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
                out.push(ReviewEntry {
                    command: hook["command"].as_str().unwrap_or_default().to_owned(),
                    header: format!("[hooks.state.\"{path}:{label}:{g}:{h}\"]"),
                    line: format!("trusted_hash = \"sha256:{hex}\""),
                });
            }
        }
    }
    out
}

/// Codex's name of an event in its hook state.
fn event_label(event: &str) -> Option<&'static str> {
    Some(match event {
        "PreToolUse" => "pre_tool_use",
        "PostToolUse" => "post_tool_use",
        "SessionStart" => "session_start",
        "UserPromptSubmit" => "user_prompt_submit",
        "Stop" => "stop",
        _ => return None,
    })
}
