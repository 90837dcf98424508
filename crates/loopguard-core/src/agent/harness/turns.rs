//! The hook events of a recorded session, as a harness's transcript reader finds them
//! ([`super::Transcript`]): the turns of the session, its calls asked about and reported.

use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::Value;

use super::super::call::CallInput;
use super::super::protocol::EventKind;
use super::{Harness, HookEvent};

/// One event of a recorded session, at its time, with the tokens the model used since the
/// previous call (for a tool call).
#[derive(Debug, Clone)]
pub struct Recorded {
    pub at: Option<Timestamp>,
    pub event: HookEvent,
    pub tokens: Option<u64>,
}

/// A transcript line's `timestamp`.
pub fn at(v: &Value) -> Option<Timestamp> {
    v.get("timestamp").and_then(Value::as_str)?.parse().ok()
}

/// The hook events of a recorded session, in order, as its turns go: a person's prompt
/// starts a turn, a tool call is asked about before it runs and reported after, and the
/// agent stops at the end of each turn with its last words. Every harness's transcript
/// reader reads into this.
pub struct Turns {
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
    /// `open`: the lines begin inside a turn (a transcript's tail). The session's id is
    /// `transcript` until the reader finds it ([`Turns::session`]).
    pub fn new(harness: Harness, open: bool) -> Turns {
        Turns {
            harness,
            session: "transcript".to_owned(),
            out: Vec::new(),
            said: None,
            open,
            pending: HashMap::new(),
        }
    }

    /// The session's id, as the transcript gives it.
    pub fn session(&mut self, id: &str) {
        id.clone_into(&mut self.session);
    }

    /// The agent says `text`: its claim, should the turn end now.
    pub fn say(&mut self, text: Option<String>) {
        self.said = text;
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
                prompt: None,
            },
            tokens,
        });
    }

    /// A person's prompt: the turn before it ends with the agent's stop.
    pub fn prompt(&mut self, at: Option<Timestamp>) {
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
    pub fn call(&mut self, at: Option<Timestamp>, call: CallInput) {
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
    pub fn result(
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
    pub fn end(mut self, at: Option<Timestamp>) -> Vec<Recorded> {
        if self.open {
            self.stop(at);
        }
        self.out
    }
}
