//! A fake model on 127.0.0.1 that speaks each provider's streaming API, plays scripted
//! sessions and records every request, so a test reads exactly what the model was told.
//!
//! - Anthropic `POST /v1/messages` (server-sent events, or one JSON message when not
//!   streamed) and `/v1/messages/count_tokens`: Claude Code, through `ANTHROPIC_BASE_URL`.
//! - OpenAI Responses `POST …/responses` (server-sent events): Codex, through a
//!   `[model_providers.X]` with `wire_api = "responses"`.
//! - Gemini `POST /v1beta/models/M:streamGenerateContent?alt=sse` and `:generateContent`,
//!   `:countTokens`: Gemini CLI, through `GOOGLE_GEMINI_BASE_URL`.
//!
//! A script answers the conversation that a registered prompt opened (a session's first
//! prompt, or the prompt a sub-agent was given): its `k`-th reply answers the request whose
//! history holds `k` model turns, so a resumed session and a blocked stop (the harness sends
//! the block's reason and asks again) go on where they were, one tool call per turn. A
//! request that opens no script, or offers no tools (a title, a routing or a next-speaker
//! question), gets a neutral answer (an object that fits the asked JSON schema) and is
//! recorded all the same.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The wire protocol of a model provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Provider {
    Anthropic,
    OpenAiResponses,
    Gemini,
}

/// One reply of the model: one tool call, or text (which ends the turn).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// A function call with JSON arguments.
    Call {
        name: String,
        input: Value,
    },
    /// A freeform tool call (Codex's `apply_patch`): its input is plain text.
    Freeform {
        name: String,
        input: String,
    },
    Text(String),
}

/// A recorded request.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub path: String,
    pub body: Value,
    /// The prompt of the script that answered it (`None`: a neutral answer).
    pub script: Option<String>,
}

/// Who said it, in a conversation as the model receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The user's turn (a prompt, a reminder the harness put there, a stop hook's reason).
    User,
    /// A developer or system message inside the conversation (Codex's hook context).
    Developer,
    /// The model's own text.
    Model,
    /// The model's tool call (its arguments as text).
    Call,
    /// A tool's result (its output, or the error or denial in its place).
    Result,
}

/// One item of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    pub role: Role,
    pub text: String,
}

/// The conversation one request carried, in order, in the provider's own text (nothing
/// unescaped or reformatted: what the model reads).
#[derive(Debug, Clone, Default)]
pub(crate) struct Conversation {
    pub items: Vec<Item>,
}

impl Conversation {
    /// The items of `provider`'s request body.
    pub(crate) fn of(provider: Provider, body: &Value) -> Conversation {
        let items = match provider {
            Provider::Anthropic => anthropic_items(body),
            Provider::OpenAiResponses => responses_items(body),
            Provider::Gemini => gemini_items(body),
        };
        Conversation { items }
    }

    /// The model turns in it (tool calls and texts): the replies already given.
    pub(crate) fn model_turns(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i.role, Role::Model | Role::Call))
            .count()
    }

    /// Everything the model was told after its `n`-th tool call (0-based) and before its
    /// next turn: the call's result and whatever the harness put around it.
    pub(crate) fn after_call(&self, n: usize) -> String {
        let start = self
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.role == Role::Call)
            .nth(n)
            .map(|(at, _)| at + 1)
            .unwrap_or_else(|| panic!("no tool call #{n} in the conversation:\n{self}"));
        self.told_from(start)
    }

    /// Everything the model was told from the user text holding `prompt` (a person's next
    /// prompt) to its next turn: the prompt and what the harness put around it.
    pub(crate) fn around_prompt(&self, prompt: &str) -> String {
        let at = self
            .items
            .iter()
            .rposition(|i| i.role == Role::User && i.text.contains(prompt))
            .unwrap_or_else(|| panic!("no prompt {prompt:?} in the conversation:\n{self}"));
        // What the harness put before the prompt in the same turn counts too.
        let start = self.items[..at]
            .iter()
            .rposition(|i| matches!(i.role, Role::Model | Role::Call))
            .map_or(0, |m| m + 1);
        self.told_from(start)
    }

    /// Everything the model was told after its last text (a stop hook's block); empty when
    /// the conversation ends with that text (nobody answered it: the stop went through).
    pub(crate) fn after_last_text(&self) -> String {
        let start = self
            .items
            .iter()
            .rposition(|i| i.role == Role::Model)
            .map_or(self.items.len(), |at| at + 1);
        self.told_from(start)
    }

    fn told_from(&self, start: usize) -> String {
        self.items[start..]
            .iter()
            .take_while(|i| !matches!(i.role, Role::Model | Role::Call))
            .map(|i| i.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// All that the model was told (not its own turns).
    pub(crate) fn told(&self) -> String {
        self.items
            .iter()
            .filter(|i| !matches!(i.role, Role::Model | Role::Call))
            .map(|i| i.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The first user text containing one of `prompts`, as that prompt.
    fn opened_by<'p>(&self, prompts: impl Iterator<Item = &'p str>) -> Option<String> {
        let prompts: Vec<&str> = prompts.collect();
        self.items
            .iter()
            .filter(|i| i.role == Role::User)
            .find_map(|i| prompts.iter().find(|p| i.text.contains(**p)))
            .map(|p| (*p).to_owned())
    }
}

impl std::fmt::Display for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for i in &self.items {
            let text: String = i.text.chars().take(600).collect();
            writeln!(f, "[{:?}] {text}", i.role)?;
        }
        Ok(())
    }
}

fn item(role: Role, text: impl Into<String>) -> Item {
    Item {
        role,
        text: text.into(),
    }
}

/// The text of a content that is a string or a list of `{type: text, text}` parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn anthropic_items(body: &Value) -> Vec<Item> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        let assistant = m["role"] == "assistant";
        let parts = match &m["content"] {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(parts) => parts.clone(),
            _ => Vec::new(),
        };
        for p in parts {
            match (p["type"].as_str(), assistant) {
                (Some("text"), true) => out.push(item(Role::Model, text_of(&p["text"]))),
                (Some("text"), false) => out.push(item(Role::User, text_of(&p["text"]))),
                (Some("tool_use"), _) => out.push(item(Role::Call, p["input"].to_string())),
                (Some("tool_result"), _) => out.push(item(Role::Result, text_of(&p["content"]))),
                _ => {}
            }
        }
    }
    out
}

fn responses_items(body: &Value) -> Vec<Item> {
    let mut out = Vec::new();
    for it in body["input"].as_array().into_iter().flatten() {
        match it["type"].as_str() {
            Some("message") => {
                let role = match it["role"].as_str() {
                    Some("assistant") => Role::Model,
                    Some("developer" | "system") => Role::Developer,
                    _ => Role::User,
                };
                out.push(item(role, text_of(&it["content"])));
            }
            Some("function_call") => out.push(item(Role::Call, text_of(&it["arguments"]))),
            Some("custom_tool_call") => out.push(item(Role::Call, text_of(&it["input"]))),
            Some("function_call_output" | "custom_tool_call_output") => {
                out.push(item(Role::Result, text_of(&it["output"])));
            }
            _ => {}
        }
    }
    out
}

fn gemini_items(body: &Value) -> Vec<Item> {
    let mut out = Vec::new();
    for c in body["contents"].as_array().into_iter().flatten() {
        let model = c["role"] == "model";
        for p in c["parts"].as_array().into_iter().flatten() {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                out.push(item(if model { Role::Model } else { Role::User }, t));
            } else if let Some(call) = p.get("functionCall") {
                out.push(item(Role::Call, call["args"].to_string()));
            } else if let Some(r) = p.get("functionResponse") {
                let resp = &r["response"];
                let text = ["output", "error", "llmContent"]
                    .iter()
                    .find_map(|k| resp.get(*k).and_then(Value::as_str))
                    .map_or_else(|| resp.to_string(), str::to_owned);
                out.push(item(Role::Result, text));
            }
        }
    }
    out
}

struct Script {
    prompt: String,
    replies: Vec<Reply>,
}

#[derive(Default)]
struct State {
    scripts: Vec<Script>,
    requests: Vec<Recorded>,
}

/// The fake model. Dropping it stops the server.
pub(crate) struct FakeModel {
    server: MockServer,
    state: Arc<Mutex<State>>,
    provider: Provider,
    // Last: the server's tasks run on it.
    _runtime: tokio::runtime::Runtime,
}

impl FakeModel {
    pub(crate) fn start(provider: Provider) -> FakeModel {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a test can start a tokio runtime");
        let state = Arc::new(Mutex::new(State::default()));
        let router = Router {
            provider,
            state: Arc::clone(&state),
        };
        let server = runtime.block_on(async {
            let server = MockServer::start().await;
            Mock::given(any()).respond_with(router).mount(&server).await;
            server
        });
        FakeModel {
            server,
            state,
            provider,
            _runtime: runtime,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub(crate) fn uri(&self) -> String {
        self.server.uri()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .expect("the fake model's lock is not poisoned")
    }

    /// The conversation that `prompt` opens is answered by `replies`, in order (then by
    /// "Nothing more to do.").
    pub(crate) fn script(&self, prompt: &str, replies: Vec<Reply>) {
        self.lock().scripts.push(Script {
            prompt: prompt.to_owned(),
            replies,
        });
    }

    /// The prompts of the scripts, in the order they were given.
    pub(crate) fn prompts(&self) -> Vec<String> {
        self.lock()
            .scripts
            .iter()
            .map(|s| s.prompt.clone())
            .collect()
    }

    /// Every request so far.
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    /// The requests the script of `prompt` answered.
    pub(crate) fn requests_of(&self, prompt: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.script.as_deref() == Some(prompt))
            .collect()
    }

    /// The conversation of the last request the script of `prompt` answered: everything the
    /// model was told in it.
    pub(crate) fn conversation(&self, prompt: &str) -> Conversation {
        let last = self
            .requests_of(prompt)
            .pop()
            .unwrap_or_else(|| panic!("no request opened by {prompt:?}: {:#?}", self.paths()));
        Conversation::of(self.provider, &last.body)
    }

    fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.path).collect()
    }
}

struct Router {
    provider: Provider,
    state: Arc<Mutex<State>>,
}

impl Respond for Router {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let path = req.url.path().to_owned();
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        let mut s = self
            .state
            .lock()
            .expect("the fake model's lock is not poisoned");
        let endpoint = Endpoint::of(self.provider, &path);
        let conversation = Conversation::of(self.provider, &body);
        let script = (endpoint.generates() && offers_tools(self.provider, &body))
            .then(|| conversation.opened_by(s.scripts.iter().map(|x| x.prompt.as_str())))
            .flatten();
        let reply = match &script {
            Some(prompt) => {
                let replies = &s
                    .scripts
                    .iter()
                    .find(|x| &x.prompt == prompt)
                    .expect("the script is registered")
                    .replies;
                replies
                    .get(conversation.model_turns())
                    .cloned()
                    .unwrap_or_else(|| Reply::Text("Nothing more to do.".into()))
            }
            None => Reply::Text(neutral_text(&body)),
        };
        s.requests.push(Recorded {
            path: path.clone(),
            body: body.clone(),
            script,
        });
        let n = s.requests.len();
        drop(s);
        endpoint.answer(&reply, n, &body)
    }
}

/// What a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    /// A model turn, streamed (server-sent events).
    Stream(Provider),
    /// A model turn as one JSON document.
    Whole(Provider),
    /// A token count.
    Count(Provider),
    Unknown,
}

impl Endpoint {
    fn of(provider: Provider, path: &str) -> Endpoint {
        match provider {
            Provider::Anthropic if path.ends_with("/count_tokens") => Endpoint::Count(provider),
            Provider::Anthropic if path.ends_with("/v1/messages") => Endpoint::Stream(provider),
            Provider::OpenAiResponses if path.ends_with("/responses") => Endpoint::Stream(provider),
            Provider::Gemini if path.ends_with(":streamGenerateContent") => {
                Endpoint::Stream(provider)
            }
            Provider::Gemini if path.ends_with(":generateContent") => Endpoint::Whole(provider),
            Provider::Gemini if path.ends_with(":countTokens") => Endpoint::Count(provider),
            _ => Endpoint::Unknown,
        }
    }

    fn generates(self) -> bool {
        matches!(self, Endpoint::Stream(_) | Endpoint::Whole(_))
    }

    fn answer(self, reply: &Reply, n: usize, body: &Value) -> ResponseTemplate {
        match self {
            // Claude Code streams unless told otherwise; `stream: false` wants one message.
            Endpoint::Stream(Provider::Anthropic) if body["stream"] == true => {
                events(&anthropic_events(reply, n))
            }
            Endpoint::Stream(Provider::Anthropic) => {
                ResponseTemplate::new(200).set_body_json(anthropic_message(reply, n))
            }
            Endpoint::Stream(Provider::OpenAiResponses) => events(&responses_events(reply, n)),
            Endpoint::Stream(Provider::Gemini) => events(&[(None, gemini_chunk(reply))]),
            Endpoint::Whole(_) => ResponseTemplate::new(200).set_body_json(gemini_chunk(reply)),
            Endpoint::Count(Provider::Gemini) => {
                ResponseTemplate::new(200).set_body_json(json!({"totalTokens": 100}))
            }
            Endpoint::Count(_) => {
                ResponseTemplate::new(200).set_body_json(json!({"input_tokens": 100}))
            }
            Endpoint::Unknown => ResponseTemplate::new(404),
        }
    }
}

fn offers_tools(provider: Provider, body: &Value) -> bool {
    match provider {
        Provider::Anthropic | Provider::OpenAiResponses => {
            body["tools"].as_array().is_some_and(|t| !t.is_empty())
        }
        Provider::Gemini => body["tools"].as_array().into_iter().flatten().any(|t| {
            t["functionDeclarations"]
                .as_array()
                .is_some_and(|f| !f.is_empty())
        }),
    }
}

/// A neutral answer to a side question: an object that fits the JSON schema asked for
/// (Gemini CLI's router and next-speaker check), or a word.
fn neutral_text(body: &Value) -> String {
    let config = &body["generationConfig"];
    match config
        .get("responseJsonSchema")
        .or_else(|| config.get("responseSchema"))
    {
        Some(schema) => fitting(schema, "").to_string(),
        None => "ok".into(),
    }
}

/// A value of `schema` (the next speaker is always the user: the script says when to go
/// on).
fn fitting(schema: &Value, name: &str) -> Value {
    let kind = schema["type"].as_str().unwrap_or("").to_ascii_lowercase();
    match kind.as_str() {
        "object" => {
            let mut out = serde_json::Map::new();
            for (k, v) in schema["properties"].as_object().into_iter().flatten() {
                out.insert(k.clone(), fitting(v, k));
            }
            Value::Object(out)
        }
        "array" => json!([]),
        "integer" | "number" => json!(50),
        "boolean" => json!(false),
        _ if name == "next_speaker" => json!("user"),
        _ => schema["enum"]
            .get(0)
            .cloned()
            .unwrap_or_else(|| json!("ok")),
    }
}

/// A response of server-sent events: `(event name, data)`.
fn events(events: &[(Option<&str>, Value)]) -> ResponseTemplate {
    let mut body = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            body.push_str("event: ");
            body.push_str(name);
            body.push('\n');
        }
        body.push_str("data: ");
        body.push_str(&data.to_string());
        body.push_str("\n\n");
    }
    ResponseTemplate::new(200)
        .insert_header("cache-control", "no-cache")
        .set_body_raw(body.into_bytes(), "text/event-stream")
}

const USAGE_IN: u64 = 100;
const USAGE_OUT: u64 = 20;

fn anthropic_block(reply: &Reply, n: usize) -> (Value, Value, &'static str) {
    match reply {
        Reply::Text(t) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": t}),
            "end_turn",
        ),
        Reply::Call { name, input } => (
            json!({"type": "tool_use", "id": format!("toolu_{n:04}"), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
        Reply::Freeform { .. } => panic!("Claude Code has no freeform tool"),
    }
}

fn anthropic_events(reply: &Reply, n: usize) -> Vec<(Option<&'static str>, Value)> {
    let (start, delta, stop) = anthropic_block(reply, n);
    vec![
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": format!("msg_{n:04}"), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": USAGE_IN, "output_tokens": 1}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": USAGE_OUT}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ]
}

fn anthropic_message(reply: &Reply, n: usize) -> Value {
    let (block, stop) = match reply {
        Reply::Text(t) => (json!({"type": "text", "text": t}), "end_turn"),
        Reply::Call { name, input } => (
            json!({"type": "tool_use", "id": format!("toolu_{n:04}"), "name": name, "input": input}),
            "tool_use",
        ),
        Reply::Freeform { .. } => panic!("Claude Code has no freeform tool"),
    };
    json!({"id": format!("msg_{n:04}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [block], "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT}})
}

fn responses_events(reply: &Reply, n: usize) -> Vec<(Option<&'static str>, Value)> {
    let item = match reply {
        Reply::Text(t) => json!({"type": "message", "role": "assistant", "id": format!("msg_{n}"),
            "content": [{"type": "output_text", "text": t, "annotations": []}]}),
        Reply::Call { name, input } => json!({"type": "function_call", "id": format!("fc_{n}"),
            "call_id": format!("call_{n}"), "name": name, "arguments": input.to_string()}),
        Reply::Freeform { name, input } => {
            json!({"type": "custom_tool_call", "id": format!("ctc_{n}"),
            "call_id": format!("call_{n}"), "name": name, "input": input})
        }
    };
    let id = format!("resp_{n}");
    vec![
        (
            Some("response.created"),
            json!({"type": "response.created", "response": {"id": id}}),
        ),
        (
            Some("response.output_item.added"),
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            Some("response.completed"),
            json!({"type": "response.completed", "response": {"id": id, "usage": {
                "input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": USAGE_IN + USAGE_OUT}}}),
        ),
    ]
}

fn gemini_chunk(reply: &Reply) -> Value {
    let part = match reply {
        Reply::Text(t) => json!({"text": t}),
        Reply::Call { name, input } => json!({"functionCall": {"name": name, "args": input}}),
        Reply::Freeform { .. } => panic!("Gemini CLI has no freeform tool"),
    };
    json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": USAGE_IN, "candidatesTokenCount": USAGE_OUT,
            "totalTokenCount": USAGE_IN + USAGE_OUT},
        "modelVersion": "gemini-2.5-pro"})
}
