//! The coding agents' harnesses (docs/agents/). A harness is one file here with its
//! [`Descriptor`] — where its hook config lives and the shape of loopguard's entries in
//! it, its events in the order it fires them, where its input puts each field, how an
//! answer is written for it, its transcript and its quirks — and its line in the registry
//! at the end of this file (its `mod` and its `harnesses!` entry). The [`Harness`] enum
//! is generated from that list. Nothing else names a harness: the hooks, `init --agent`,
//! the guard and `replay` ask its descriptor, and every `match` over [`Harness`] is
//! exhaustive (the core denies wildcard arms), so a new harness is decided everywhere.
//!
//! The descriptor is data and pure functions: the shell reads and writes the files it
//! names (`src/agents_config.rs`), the core judges what arrives.

use serde_json::Value;

use super::call::CallInput;
use super::protocol::{Answer, BadInput, EventKind, Input, Reply};

/// Everything loopguard knows about one harness, declared in the harness's file.
#[derive(Debug)]
pub struct Descriptor {
    /// Its name on the command line (`init --agent`, `agent-hook`), in run ids and in
    /// every document.
    pub name: &'static str,
    /// Its name for people.
    pub title: &'static str,
    /// Its project hook config, and how loopguard's entries sit in it.
    pub config: ConfigFile,
    /// The events loopguard hooks, in the order the harness fires them in a turn (the
    /// order `init` writes them in). An event not listed is [`EventKind::Other`].
    pub events: &'static [Event],
    /// Where its hook input puts each field loopguard reads.
    pub input: Input,
    /// How an answer is written for it at an event (`None`: an event it does not have).
    /// Its stdout holds exactly the fields the harness reads; the exit code is 0.
    pub answer: fn(&Answer, Option<&Event>) -> Reply,
    /// How the transcript its hooks point at (`transcript_path`) is read: the agent's
    /// last words at a stop where the input lacks them, the tokens, and `replay`.
    pub transcript: Option<Transcript>,
    pub quirks: Quirks,
    /// How the person's review of the project's hooks is recorded, where the harness keeps
    /// one and loopguard can write it for its own hooks (Codex's `/hooks`).
    pub review: Option<HookReview>,
}

/// Where and how a harness records that a person reviewed a project's hooks (each by a
/// hash of what it runs): `init --agent` writes it for loopguard's hooks, as the review
/// would, and says so.
#[derive(Debug, Clone, Copy)]
pub struct HookReview {
    /// The variable naming the harness's home (`CODEX_HOME`), else this directory under
    /// the user's home (`.codex`).
    pub home_var: &'static str,
    pub home_default: &'static str,
    /// The file the review is kept in, in that home.
    pub file: &'static str,
    /// The review of every hook in the project's hook config `config` (its absolute path
    /// `path`): one TOML table each, its header and its one line.
    pub entries: fn(config: &Value, path: &str) -> Vec<ReviewEntry>,
}

/// One hook's review: `[header]` then `line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewEntry {
    /// The command of the hook reviewed.
    pub command: String,
    pub header: String,
    pub line: String,
}

/// How a harness's transcript is read: JSON lines, turned back into the hook events the
/// harness would have sent.
#[derive(Debug, Clone, Copy)]
pub struct Transcript {
    /// Whether a line (one of the first few) is of this format.
    pub recognise: fn(&Value) -> bool,
    /// The lines into the session's turns (its id, its prompts, calls and stops).
    pub read: fn(&[Value], &mut turns::Turns),
    /// Tokens the model used in new lines: `counted` is the last message whose tokens were
    /// counted, `recorded` the tokens the session recorded so far.
    pub tokens: fn(&[Value], &mut Option<String>, u64) -> u64,
    /// The exit status a line records for the call with this id, where the hook's input
    /// has none ([`ShellStatus::OutputOnly`]); `None` for a line that records none.
    pub exit_status: fn(&Value, &str) -> Option<i32>,
}

/// A harness's project hook config: the file `init --agent` merges loopguard's entries
/// into and `uninstall --agent` takes them out of (the shell does the I/O).
#[derive(Debug)]
pub struct ConfigFile {
    /// Relative to the repository's root.
    pub path: &'static str,
    /// What of the harness's an agent may not write from inside its session, relative to
    /// the root: its hook config and what else decides which hooks run (a trailing `/`:
    /// a directory and everything in it).
    pub guards: &'static [&'static str],
    /// A top-level `version` the file must have (set when missing).
    pub version: Option<u64>,
    /// How the entries of an event are laid out under `hooks.<event>`.
    pub layout: Layout,
    /// loopguard's entry for one event: its members in order.
    pub entry: &'static [(&'static str, Member)],
    /// The input does not name the event, so the command does (`agent-hook copilot
    /// preToolUse`).
    pub event_in_command: bool,
    /// The file is loopguard's alone (`uninstall --agent` says so when it removes it; any
    /// file left with nothing but a `version` is removed).
    pub owned: bool,
}

/// How the entries of one event are laid out under `hooks.<event>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Groups of entries: `[{matcher?, hooks: [entry, …]}]`; loopguard's group for an
    /// event about tools gets `tool_matcher` as its `matcher` when there is one.
    Grouped { tool_matcher: Option<&'static str> },
    /// The entries themselves: `[entry, …]`.
    Flat,
}

/// A member of loopguard's hook entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// The command the hook runs (`loopguard agent-hook <name>`): what marks the entry as
    /// loopguard's.
    Command,
    Text(&'static str),
    Number(u64),
}

/// One event of a harness that loopguard hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// As the harness names it.
    pub name: &'static str,
    pub kind: EventKind,
    /// The harness fires it for a call that failed (Claude Code's `PostToolUseFailure`).
    pub failed_call: bool,
    /// Text loopguard has for the agent here reaches the model; otherwise only the
    /// person reads it.
    pub tells_model: bool,
}

impl Event {
    pub const fn new(name: &'static str, kind: EventKind) -> Event {
        Event {
            name,
            kind,
            failed_call: false,
            tells_model: false,
        }
    }

    /// The same event, fired for a call that failed.
    pub const fn failed_call(self) -> Event {
        Event {
            failed_call: true,
            ..self
        }
    }

    /// The same event, whose context the model reads.
    pub const fn tells_model(self) -> Event {
        Event {
            tells_model: true,
            ..self
        }
    }

    /// Whether it is about a tool call (its config entry takes a matcher).
    pub fn about_tools(&self) -> bool {
        match self.kind {
            EventKind::PreTool | EventKind::PostTool => true,
            EventKind::SessionStart | EventKind::Prompt | EventKind::Stop | EventKind::Other => {
                false
            }
        }
    }
}

/// How a harness behaves where it surprises: each one a decision the session guard has
/// to make for it (see docs/agents/ and issues 25, 26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// What becomes of the reason of a blocked stop.
    pub stop_block: StopBlock,
    /// What fires when a person continues a session.
    pub resume: Resume,
    /// Whether a shell call's result says how the command exited.
    pub shell_status: ShellStatus,
    /// What it takes before the harness runs the project's hooks.
    pub trust: Trust,
}

/// What becomes of the reason of a blocked stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopBlock {
    /// The model reads it in the same turn as hook feedback; no prompt event fires for it
    /// (Claude Code's "Stop hook feedback", Codex's `<hook_prompt>`).
    SameTurn,
    /// It is sent as the next prompt and the prompt hook fires with it as the prompt's
    /// text (Gemini CLI's `BeforeAgent`): that prompt is loopguard's own words, not a
    /// person's.
    AsPrompt,
    /// Not known: the harness may not act on a blocked stop at all.
    Unknown,
}

/// What fires when a person continues a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// `SessionStart` first, then the person's prompt hook: what the start says is read
    /// in the same request as the prompt's answer, so it must not contradict it.
    StartThenPrompt,
    /// Not seen with the real program.
    Unknown,
}

/// Whether a shell call's result says how the command exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellStatus {
    /// The exit status, or a failure flag, is in the result (or the event: Claude Code's
    /// `PostToolUseFailure`).
    Reported,
    /// The output text only (Codex): a failure shows only in what the command printed.
    OutputOnly,
}

/// What it takes before the harness runs the hooks in a project's config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// Nothing loopguard knows of: the hooks run once the file is there.
    None,
    /// A folder the person trusts (Gemini CLI: a trusted folder, or
    /// `GEMINI_CLI_TRUST_WORKSPACE=true`); otherwise the hooks are not loaded.
    TrustedFolder,
    /// A trusted project whose hooks the person reviewed, each by its hash (Codex:
    /// `/hooks`); otherwise, silently, no hook runs.
    TrustedAndReviewed,
}

impl Trust {
    /// What a person must do before the harness runs loopguard's hooks, in `init`'s words
    /// (`None`: nothing).
    pub fn step(self) -> Option<&'static str> {
        match self {
            Trust::None => None,
            Trust::TrustedFolder => Some(
                "loads a project's hooks only in a trusted folder: trust this folder when it asks, or set GEMINI_CLI_TRUST_WORKSPACE=true for a headless run (--skip-trust does not load them)",
            ),
            Trust::TrustedAndReviewed => Some(
                "runs a project's hooks only when the project is trusted (its prompt, or `codex exec --trust`) and the person reviewed each hook (`/hooks`); without both it runs none, silently",
            ),
        }
    }
}

impl Descriptor {
    /// The event the harness calls `name`, if loopguard hooks it.
    pub fn event(&self, name: &str) -> Option<&'static Event> {
        self.events.iter().find(|e| e.name == name)
    }
}

/// The list of harnesses, one line each: its variant and its module, which declares
/// `HARNESS` (its [`Descriptor`]). The order is the enum's order.
macro_rules! harnesses {
    ($($variant:ident => $module:ident,)+) => {
        /// A coding agent's harness: one per line of `harnesses!`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Harness {
            $($variant,)+
        }

        impl Harness {
            pub const ALL: &'static [Harness] = &[$(Harness::$variant,)+];

            /// The harness's descriptor, declared in its file.
            pub fn descriptor(self) -> &'static Descriptor {
                match self {
                    $(Harness::$variant => &$module::HARNESS,)+
                }
            }
        }
    };
}

pub mod turns;

mod claude;
mod codex;
mod copilot;
mod cursor;
mod gemini;

harnesses! {
    Claude => claude,
    Codex => codex,
    Gemini => gemini,
    Copilot => copilot,
    Cursor => cursor,
}

crate::names::named!(Harness, "agent");

impl Harness {
    /// The harness's name for people.
    pub fn title(self) -> &'static str {
        self.descriptor().title
    }

    /// Every path an agent may not write from inside its session because it decides
    /// which of some harness's hooks run.
    pub fn guarded_paths() -> impl Iterator<Item = &'static str> {
        Harness::ALL
            .iter()
            .flat_map(|h| h.descriptor().config.guards.iter().copied())
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
    /// The prompt's text, at a prompt.
    pub prompt: Option<String>,
}

impl HookEvent {
    /// Reads the JSON a harness wrote, where its descriptor says each field is; `event` is
    /// the event's name when the harness does not put it in the input (Copilot), or
    /// overrides it.
    pub fn parse(
        harness: Harness,
        event: Option<&str>,
        input: &str,
    ) -> Result<HookEvent, BadInput> {
        let d = harness.descriptor();
        let keys = &d.input;
        let v = match super::input::object(input) {
            Ok(members) => Value::Object(members),
            Err(e) => {
                let v = Value::Object(e.partial);
                let text = |k| Input::text(&v, k);
                return Err(BadInput {
                    why: e.why,
                    event: event.map(str::to_owned).or_else(|| text(keys.event)),
                    session: text(keys.session),
                    cwd: text(keys.cwd),
                });
            }
        };
        let text = |k| Input::text(&v, k);
        let name = event
            .map(str::to_owned)
            .or_else(|| text(keys.event))
            .ok_or_else(|| {
                BadInput {
                    session: text(keys.session),
                    cwd: text(keys.cwd),
                    ..BadInput::new(format!(
                        "the hook input names no event ({}); hint: pass it: `loopguard agent-hook <agent> <event>`",
                        keys.event.first().unwrap_or(&"hook_event_name")
                    ))
                }
            })?;
        let spec = d.event(&name);
        let kind = spec.map_or(EventKind::Other, |e| e.kind);
        let cwd = text(keys.cwd);
        // Not every harness gives a session id (Copilot): one session per directory then.
        let session = text(keys.session)
            .or_else(|| {
                cwd.as_ref()
                    .map(|c| format!("{harness}-{}", super::files::digest(c)))
            })
            .unwrap_or_else(|| format!("{harness}-default"));
        let call = match kind {
            EventKind::PreTool | EventKind::PostTool => {
                let tool = text(keys.tool).ok_or_else(|| BadInput {
                    event: Some(name.clone()),
                    session: Some(session.clone()),
                    cwd: cwd.clone(),
                    ..BadInput::new(format!(
                        "the hook input names no tool ({})",
                        keys.tool.first().unwrap_or(&"tool_name")
                    ))
                })?;
                let input = Input::value(&v, keys.tool_input)
                    .cloned()
                    .map(|i| {
                        // Arguments as a JSON string (Copilot's `toolArgs`).
                        i.as_str()
                            .and_then(|text| serde_json::from_str(text).ok())
                            .unwrap_or(i)
                    })
                    .unwrap_or(Value::Null);
                Some(CallInput {
                    tool,
                    input,
                    response: Input::value(&v, keys.response).cloned(),
                    failed: spec.is_some_and(|e| e.failed_call)
                        || Input::value(&v, keys.interrupted).and_then(Value::as_bool)
                            == Some(true),
                    agent: text(keys.agent).filter(|a| !a.is_empty() && a != "main"),
                    id: text(keys.call_id),
                    output_only: d.quirks.shell_status == ShellStatus::OutputOnly,
                    exit_code: None,
                    root: cwd.clone(),
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
            transcript: text(keys.transcript),
            call,
            stop_hook_active: Input::flag(&v, keys.stop_hook_active),
            last_message: text(keys.last_message),
            prompt: text(keys.prompt).filter(|_| kind == EventKind::Prompt),
            name,
        })
    }
}

impl Answer {
    /// The answer as `harness` reads it at the event it calls `event`.
    pub fn render(&self, harness: Harness, event: &str) -> Reply {
        let d = harness.descriptor();
        (d.answer)(self, d.event(event))
    }
}

#[cfg(test)]
mod tests;
