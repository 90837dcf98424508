//! The hooks' side of events with provenance (`loopguard_core::session::provenance`): the
//! before-call hook announces the call it lets run, the result's hook lands it, and a
//! prompt, a session start or a stop that arrives while a call of its session is still
//! running is forged (or held, where nothing tells whether the call is over).

use anyhow::Result;
use jiff::Timestamp;
use loopguard_core::session::provenance::{
    self as core, InFlight, PostProvenance, call_key, forged_during,
};
use loopguard_core::session::{Answer, CallInput, Harness, HookEvent, Step};

use super::inflight::{self, Flights};
use super::{process, with_session};
use crate::config::Config;
use crate::run::Run;
use crate::store::Store;

use super::super::Workspace;

/// The call `call` is about to run: in flight from now on. What went wrong, if recording
/// it did (the call still runs).
pub(super) fn announce(
    store: &Store,
    key: &str,
    event: &HookEvent,
    call: &CallInput,
    now: Timestamp,
) -> Option<String> {
    let harness = process::harness();
    let mut f = InFlight::of(call, now, harness);
    f.transcript = event.transcript.clone();
    let kept = harness.map_or(Ok(()), |p| inflight::keep_harness(store, key, p));
    kept.and_then(|()| Flights::of(store, key).announce(&f))
        .err()
        .map(|e| format!("cannot record the call in flight ({e})"))
}

/// Whether loopguard reads the harness's transcript, where a call's result shows.
fn reads_transcript(harness: Harness) -> bool {
    harness.descriptor().transcript.is_some()
}

/// A prompt, a session start or a stop: when it cannot come from the harness now (a call
/// of its session is running), it is recorded and not applied — a `constraint` trip, or
/// held where nothing tells whether that call is over. The answer then; `None`: go on.
pub(super) fn judge_relaxing(
    ws: &Workspace<'_>,
    config: &Config,
    store: &Store,
    key: &str,
    event: &HookEvent,
    now: Timestamp,
) -> Result<Option<Answer>> {
    let running = Flights::of(store, key).running();
    if running.is_empty() {
        return Ok(None);
    }
    let calls: Vec<InFlight> = running.into_iter().map(|f| f.call).collect();
    let subagent = event.name.to_ascii_lowercase().starts_with("subagent");
    let Some(during) = forged_during(event.kind, subagent, &calls).cloned() else {
        return Ok(None);
    };
    let told = during.transcript.is_some() && reads_transcript(event.harness);
    let answer = with_session(ws, config, store, key, event, now, |run| {
        let step = if told {
            core::tampered(config, run, core::forged_reason(&event.name, &during), now)
        } else {
            core::hold(run, &event.name, &during, now)
        };
        Ok((step.answer, step.events))
    })?;
    Ok(Some(answer))
}

/// A call's result, under the store's lock: the harness's when its call was in flight
/// (then `record` records it, and events held during the call are confirmed forged), or
/// the same result again (nothing new), or forged (a `constraint` trip, not recorded).
pub(super) fn judge_post(
    config: &Config,
    store: &Store,
    key: &str,
    run: &mut Run,
    (name, call): (&str, &CallInput),
    now: Timestamp,
    record: impl FnOnce(&mut Run) -> Step,
) -> Result<Step> {
    let recorded = call.id.as_ref().and_then(|id| {
        run.iterations()
            .iter()
            .rev()
            .take(config.window as usize)
            .find_map(|it| {
                it.call
                    .as_ref()
                    .filter(|c| c.id.as_ref() == Some(id))
                    .map(|c| c.outcome.clone())
            })
    });
    let key_of_call = call_key(call);
    let announced = Flights::of(store, key).land(&key_of_call)?;
    Ok(
        match core::post_provenance(call, announced, recorded.as_deref()) {
            PostProvenance::Announced => {
                let mut step = record(run);
                if let Some(reason) = core::confirm_held(run, &key_of_call) {
                    let tamper = core::tampered(config, run, reason, now);
                    step.events.extend(tamper.events);
                    step.answer = tamper.answer;
                }
                step
            }
            PostProvenance::Repeated => Step {
                answer: Answer::Nothing,
                events: Vec::new(),
            },
            PostProvenance::Forged => core::tampered(
                config,
                run,
                core::forged_post_reason(name, call, recorded.is_some()),
                now,
            ),
        },
    )
}
