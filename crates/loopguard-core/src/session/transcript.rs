//! Recorded sessions: a Claude Code transcript (JSONL, `~/.claude/projects/<slug>/<id>.jsonl`)
//! and a Codex rollout (`~/.codex/sessions/…/rollout-*.jsonl`), recognised by their
//! content and turned back into the hook events the harness would have sent: a person's
//! prompt, each tool call before and after it runs, and the agent's stop at the end of
//! each turn. `replay` feeds them through the same functions as the live hooks, so a
//! replay judges a session as the hooks did.
//!
//! Claude Code: lines `{type: user|assistant|system|summary, uuid, isSidechain, sessionId,
//! timestamp, message: {role, content: [text | tool_use{id, name, input} |
//! tool_result{tool_use_id, content, is_error}], usage}, toolUseResult, agentId}`; a
//! sub-agent's lines are its sidechain. Codex: lines `{timestamp, type: session_meta |
//! turn_context | event_msg | response_item, payload}`; `function_call{name, arguments,
//! call_id}` and `custom_tool_call{name: apply_patch, input, call_id}` with their
//! `*_output`, `event_msg` `user_message`, `agent_message` and `token_count`.

use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::{Value, json};

use super::call::CallInput;
use super::harness::{Harness, HookEvent};
use super::protocol::EventKind;

/// A transcript's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Claude,
    Codex,
}

impl Format {
    /// The harness that writes transcripts in this format (its descriptor says so).
    pub fn harness(self) -> Harness {
        Harness::of_transcript(self).expect("a harness writes each transcript format")
    }
}

/// Which transcript format `text` is, from its first JSON lines; `None` for anything else.
pub fn recognise(text: &str) -> Option<Format> {
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(5) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return None;
        };
        let t = v.get("type").and_then(Value::as_str).unwrap_or("");
        if v.get("payload").is_some()
            && matches!(
                t,
                "session_meta" | "response_item" | "event_msg" | "turn_context"
            )
        {
            return Some(Format::Codex);
        }
        if matches!(t, "user" | "assistant" | "system" | "summary")
            && (v.get("sessionId").is_some()
                || v.get("uuid").is_some()
                || v.get("leafUuid").is_some())
        {
            return Some(Format::Claude);
        }
    }
    None
}

/// One event of a recorded session, at its time, with the tokens the model used since the
/// previous call (for a tool call).
#[derive(Debug, Clone)]
pub struct Recorded {
    pub at: Option<Timestamp>,
    pub event: HookEvent,
    pub tokens: Option<u64>,
}

/// Why a transcript could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTranscript {
    pub line: usize,
    pub why: String,
}

/// The hook events of a transcript, in order.
pub fn events(format: Format, text: &str) -> Result<Vec<Recorded>, BadTranscript> {
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| BadTranscript {
            line: n + 1,
            why: format!("not JSON ({e})"),
        })?;
        lines.push(v);
    }
    Ok(match format {
        Format::Claude => claude(&lines, false),
        Format::Codex => codex(&lines, false),
    })
}

/// The agent's last words in `tail`, the end of a transcript (the hooks' stop, where the
/// harness does not give them), read as [`events`] reads them: the turn they end may have
/// begun before the tail, and its last line may still be being written (a line that is
/// not JSON is skipped).
pub fn last_said(format: Format, tail: &str) -> Option<String> {
    let lines: Vec<Value> = tail
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let recorded = match format {
        Format::Claude => claude(&lines, true),
        Format::Codex => codex(&lines, true),
    };
    recorded
        .into_iter()
        .rev()
        .find(|r| r.event.kind == EventKind::Stop)?
        .event
        .last_message
}

fn ts(v: &Value) -> Option<Timestamp> {
    v.get("timestamp").and_then(Value::as_str)?.parse().ok()
}

/// The hook events of a recorded session, in order, as its turns go: a person's prompt
/// starts a turn, a tool call is asked about before it runs and reported after, and the
/// agent stops at the end of each turn with its last words. Both formats are read into
/// this, once.
struct Turns {
    harness: Harness,
    session: String,
    out: Vec<Recorded>,
    /// What the agent said last in this turn (its claim at the stop).
    said: Option<String>,
    /// A turn is going on (a stop ends it).
    open: bool,
    /// Calls asked about and not yet reported, by the harness's id.
    pending: HashMap<String, CallInput>,
}

impl Turns {
    /// `open`: the lines begin inside a turn (a transcript's tail).
    fn new(harness: Harness, session: String, open: bool) -> Turns {
        Turns {
            harness,
            session,
            out: Vec::new(),
            said: None,
            open,
            pending: HashMap::new(),
        }
    }

    /// The harness's name of an event of `kind` (`failed`: fired for a failed call, where
    /// the harness has such an event).
    fn name(&self, kind: EventKind, failed: bool) -> &'static str {
        let events = self.harness.descriptor().events;
        events
            .iter()
            .find(|e| e.kind == kind && e.failed_call == failed)
            .or_else(|| events.iter().find(|e| e.kind == kind))
            .map_or("?", |e| e.name)
    }

    fn push(&mut self, at: Option<Timestamp>, kind: EventKind, failed: bool, tokens: Option<u64>) {
        let name = self.name(kind, failed);
        self.out.push(Recorded {
            at,
            event: HookEvent {
                harness: self.harness,
                name: name.to_owned(),
                kind,
                session: self.session.clone(),
                cwd: None,
                transcript: None,
                call: None,
                stop_hook_active: false,
                last_message: None,
            },
            tokens,
        });
    }

    /// A person's prompt: the turn before it ends with the agent's stop.
    fn prompt(&mut self, at: Option<Timestamp>) {
        if self.open {
            self.stop(at);
        }
        self.open = true;
        self.said = None;
        self.push(at, EventKind::Prompt, false, None);
    }

    fn stop(&mut self, at: Option<Timestamp>) {
        self.push(at, EventKind::Stop, false, None);
        if let Some(r) = self.out.last_mut() {
            r.event.last_message = self.said.take();
        }
        self.open = false;
    }

    /// The agent asks to make `call`.
    fn call(&mut self, at: Option<Timestamp>, call: CallInput) {
        self.push(at, EventKind::PreTool, false, None);
        if let Some(id) = &call.id {
            self.pending.insert(id.clone(), call.clone());
        }
        if let Some(r) = self.out.last_mut() {
            r.event.call = Some(call);
        }
    }

    /// The call `id` came back with `response` (`failed`: the harness says so), the
    /// model having used `tokens` since the last one; `false` for an id of no call asked
    /// about (nothing is recorded).
    fn result(
        &mut self,
        at: Option<Timestamp>,
        id: &str,
        response: Value,
        failed: bool,
        tokens: u64,
    ) -> bool {
        let Some(mut call) = self.pending.remove(id) else {
            return false;
        };
        call.failed = failed;
        call.response = Some(response);
        self.push(at, EventKind::PostTool, failed, Some(tokens));
        if let Some(r) = self.out.last_mut() {
            r.event.call = Some(call);
        }
        true
    }

    /// The session ends: so does its last turn.
    fn end(mut self, at: Option<Timestamp>) -> Vec<Recorded> {
        if self.open {
            self.stop(at);
        }
        self.out
    }
}

/// The tokens of one Claude Code assistant message (`message.usage`): input, output and
/// cache, as the model processed them.
pub fn claude_tokens(usage: &Value) -> u64 {
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
pub fn claude_usage(lines: &[Value]) -> Vec<(String, u64)> {
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
        out.push((id.to_owned(), claude_tokens(usage)));
    }
    out
}

fn claude(lines: &[Value], in_turn: bool) -> Vec<Recorded> {
    let session = lines
        .iter()
        .find_map(|v| v.get("sessionId").and_then(Value::as_str))
        .unwrap_or("transcript")
        .to_owned();
    let mut turns = Turns::new(Format::Claude.harness(), session, in_turn);
    let mut counted: Vec<String> = Vec::new();
    let mut unassigned: u64 = 0;
    for v in lines {
        let at = ts(v);
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
                    unassigned += claude_tokens(usage);
                }
                for part in content.as_array().into_iter().flatten() {
                    match part.get("type").and_then(Value::as_str) {
                        Some("text") if !sidechain => {
                            turns.said =
                                part.get("text").and_then(Value::as_str).map(str::to_owned);
                        }
                        Some("tool_use") => {
                            let mut call = CallInput::new(
                                part["name"].as_str().unwrap_or("?"),
                                part["input"].clone(),
                            );
                            call.agent = agent.clone();
                            call.id = part["id"].as_str().map(str::to_owned);
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
    turns.end(lines.last().and_then(ts))
}

fn codex(lines: &[Value], in_turn: bool) -> Vec<Recorded> {
    let session = lines
        .iter()
        .find(|v| v["type"] == "session_meta")
        .and_then(|v| v["payload"]["id"].as_str())
        .unwrap_or("rollout")
        .to_owned();
    let mut turns = Turns::new(Format::Codex.harness(), session, in_turn);
    let mut total: u64 = 0;
    let mut assigned: u64 = 0;
    for v in lines {
        let at = ts(v);
        let p = &v["payload"];
        let ptype = p.get("type").and_then(Value::as_str).unwrap_or("");
        match (v["type"].as_str().unwrap_or(""), ptype) {
            ("event_msg", "user_message") => turns.prompt(at),
            ("event_msg", "agent_message") => {
                turns.said = p["message"].as_str().map(str::to_owned);
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
    turns.end(lines.last().and_then(ts))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_words_from_a_tail_that_begins_inside_the_turn() {
        // The turn's prompt is before the tail; the last line is still being written.
        let claude = [
            r#"{"type":"user","sessionId":"s","uuid":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1 failed"}]}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Done, all tests pass."}]}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a2","mess"#,
        ]
        .join("\n");
        assert_eq!(
            last_said(Format::Claude, &claude).as_deref(),
            Some("Done, all tests pass.")
        );
        // A whole transcript, from its prompt: the same words.
        let whole = format!(
            "{}\n{claude}",
            r#"{"type":"user","sessionId":"s","uuid":"p1","message":{"role":"user","content":"fix it"}}"#
        );
        assert_eq!(
            last_said(Format::Claude, &whole).as_deref(),
            Some("Done, all tests pass.")
        );
        let codex = r#"{"timestamp":"2026-11-26T10:00:00Z","type":"event_msg","payload":{"type":"agent_message","message":"Fixed."}}"#;
        assert_eq!(last_said(Format::Codex, codex).as_deref(), Some("Fixed."));
        assert_eq!(last_said(Format::Claude, ""), None);
    }
}
