//! The coding agents' sessions: `agent-hook` (what the hooks `init --agent` writes call),
//! `status`, `report`, `resume` and `reset` with `--session`, and `replay` of a
//! transcript. The judging is the core's (`loopguard_core::session`); this is reading the
//! harness's input, the store and the transcript, and writing the answer.
//!
//! A hook never blocks a tool call because loopguard failed: every error is said (in the
//! harness's own words for a message to the person) and the call goes through; the exit
//! code is always 0. The one refusal is a breaker loopguard knows is open, or a call that
//! would switch the guard off.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use jiff::Timestamp;
use serde_json::Value;

use crate::breaker::{Event, State};
use crate::cli::{AgentHookArgs, ReportFormat};
use crate::config::{Config, Unit};
use crate::documents::{BranchBreaker, EdgeRow, HookAnswer, SessionLine};
use crate::error::{InputError, exit};
use crate::iteration::Iteration;
use crate::report::{Status, markdown, text};
use crate::run::Run;
use crate::session::provenance::{InFlight, call_key};
use crate::session::transcript;
use crate::session::{self, Answer, Harness, HookEvent, HookKind};
use crate::store::{Durability, Loaded, Peeked, Store, branch_key_bytes};

use super::{Ctx, Workspace, print, print_json};

mod closed;
mod inflight;
mod inside;
mod integrity;
mod process;
mod provenance;
mod state;

pub(super) use inside::refuse_inside_agent;

/// The most bytes of a transcript read at once for tokens and the last message.
const TRANSCRIPT_CHUNK: u64 = 8 << 20;

/// `loopguard agent-hook <agent> [EVENT]`: one hook call of a coding agent's harness.
pub(super) fn agent_hook(ctx: &Ctx, args: AgentHookArgs) -> u8 {
    let harness = args.agent;
    let name = args
        .event
        .clone()
        .unwrap_or_else(|| "PreToolUse".to_owned());
    if let Some(limit) = ctx.settings.hook_timeout {
        deadline(ctx, harness, name.clone(), limit);
    }
    let mut input = Vec::new();
    // One byte more than the most read: a larger input is noticed, not cut into a parse
    // error.
    let read = std::io::stdin()
        .take(session::protocol::MAX_INPUT as u64 + 1)
        .read_to_end(&mut input);
    let (answer, event_name) = match read {
        Err(e) => {
            let why = format!("cannot read the hook input: {e}");
            let answer = closed::could_not_judge(ctx, harness, &name, (None, None), why);
            (answer, name)
        }
        Ok(_) => answer_to(ctx, &args, &input),
    };
    let reply = answer.render(harness, &event_name);
    if !reply.stderr.is_empty() {
        ctx.ui.note(reply.stderr.trim_end());
    }
    if !reply.stdout.is_empty() {
        let _ = print(&reply.stdout);
    }
    reply.code
}

/// The answer to the hook input `input`, and the event's name: what `handle` says, or,
/// when the input cannot be read or the hook fails, what [`closed::could_not_judge`] says.
fn answer_to(ctx: &Ctx, args: &AgentHookArgs, input: &[u8]) -> (Answer, String) {
    let harness = args.agent;
    let max = session::protocol::MAX_INPUT;
    let text = String::from_utf8_lossy(&input[..input.len().min(max)]);
    let parsed = HookEvent::parse(harness, args.event.as_deref(), &text).and_then(|event| {
        if input.len() > max {
            Err(session::protocol::BadInput {
                event: Some(event.name),
                session: Some(event.session),
                cwd: event.cwd,
                ..session::protocol::BadInput::default()
            })
        } else {
            Ok(event)
        }
    });
    let parsed = parsed.map_err(|mut bad| {
        if input.len() > max {
            bad.why = format!("the hook input is larger than {} MiB", max >> 20);
        }
        bad
    });
    match parsed {
        Err(bad) => {
            let name = bad.event.clone().unwrap_or_else(|| {
                args.event
                    .clone()
                    .unwrap_or_else(|| "PreToolUse".to_owned())
            });
            let about = (bad.session.as_deref(), bad.cwd.as_deref());
            let answer = closed::could_not_judge(ctx, harness, &name, about, bad.why);
            (answer, name)
        }
        Ok(event) => {
            let _ = READ.set((event.name.clone(), event.session.clone(), event.cwd.clone()));
            match handle(ctx, &event) {
                Ok(answer) => (answer, event.name),
                Err(e) => {
                    let why = format!("the {} hook could not run: {e:#}", event.name);
                    let about = (Some(event.session.as_str()), event.cwd.as_deref());
                    let answer = closed::could_not_judge(ctx, harness, &event.name, about, why);
                    (answer, event.name)
                }
            }
        }
    }
}

/// What the deadline knows of the event once its input is read: its name, session and
/// directory.
static READ: std::sync::OnceLock<(String, String, Option<String>)> = std::sync::OnceLock::new();

/// A hook that takes longer than `LOOPGUARD_HOOK_TIMEOUT` says so and lets the call go
/// through — unless a breaker is open ([`closed::could_not_judge`]): writes are atomic
/// renames behind a journal, so stopping anywhere is safe.
fn deadline(ctx: &Ctx, harness: Harness, name: String, limit: Duration) {
    let ctx = Ctx::new(ctx.settings.clone(), Some(ctx.dir.clone()));
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        let (name, session, cwd) = READ.get().cloned().unwrap_or((name, String::new(), None));
        let why = format!(
            "the {name} hook took longer than {}s (LOOPGUARD_HOOK_TIMEOUT)",
            limit.as_secs()
        );
        let session = Some(session.as_str()).filter(|s| !s.is_empty());
        let reply = closed::could_not_judge(&ctx, harness, &name, (session, cwd.as_deref()), why)
            .render(harness, &name);
        if !reply.stdout.is_empty() {
            let _ = print(&reply.stdout);
        }
        std::process::exit(0);
    });
}

/// The sessions' store of the repository `ws` is in (out of the repository: [`crate::store::place`]).
fn store_of(ws: &Workspace<'_>) -> Store {
    let dir = crate::store::place::sessions_dir(
        ws.ctx.settings.state_home.as_deref(),
        ws.repo.common_dir(),
    );
    Store::sessions(dir, ws.ctx.settings.clock)
}

fn key_of(id: &str) -> String {
    branch_key_bytes(Some(id.as_bytes()))
}

fn handle(ctx: &Ctx, event: &HookEvent) -> Result<Answer> {
    if event.kind == HookKind::Other {
        return Ok(Answer::Nothing);
    }
    let ctx_here;
    let ctx = match &event.cwd {
        Some(cwd) if Path::new(cwd).is_dir() => {
            ctx_here = Ctx::new(ctx.settings.clone(), Some(PathBuf::from(cwd)));
            &ctx_here
        }
        _ => ctx,
    };
    let ws = Workspace::open_quietly(ctx, None)?;
    let config = ws.config.for_sessions();
    let store = store_of(&ws);
    let key = key_of(&event.session);
    let now = ws.now();
    match event.kind {
        HookKind::PreTool => {
            let call = event.call.as_ref().context("a tool call")?;
            before_call(&ws, &config, &store, &key, event, call, now)
        }
        HookKind::SessionStart | HookKind::Prompt | HookKind::Stop
            if let Some(answer) =
                provenance::judge_relaxing(&ws, &config, &store, &key, event, now)? =>
        {
            Ok(answer)
        }
        HookKind::SessionStart => {
            let run = match store.peek_run(&key)? {
                Peeked::Found(run) => *run,
                Peeked::Missing | Peeked::Unusable(_) => return Ok(Answer::Nothing),
            };
            Ok(session::on_start(&config, &run, now))
        }
        HookKind::Prompt => with_session(&ws, &config, &store, &key, event, now, |run| {
            let step = session::on_prompt(&config, run, event.prompt.as_deref(), now);
            Ok((step.answer, step.events))
        }),
        HookKind::PostTool => {
            let call = event.call.as_ref().context("a tool call")?;
            let with_status = exit_status_of(event, call);
            let call = with_status.as_ref().unwrap_or(call);
            let what = InFlight::of(call, now, None).describe();
            let changed =
                integrity::Integrity::of(&ws, store.dir()).after_call(&key, &call_key(call), &what);
            with_session(&ws, &config, &store, &key, event, now, |run| {
                let mut step = provenance::judge_post(
                    &config,
                    &store,
                    &key,
                    run,
                    (&event.name, call),
                    now,
                    |run| {
                        let tokens = tokens_since(run, event.transcript.as_deref());
                        let id = run.id.clone();
                        let dropped = || dropped_calls(&ws, &store, &id);
                        session::on_post_tool(&config, run, call, now, tokens, &dropped)
                    },
                )?;
                if let Some(reason) = changed {
                    let tamper = session::provenance::tampered(&config, run, reason, now);
                    step.events.extend(tamper.events);
                    step.answer = tamper.answer;
                }
                Ok((step.answer, step.events))
            })
        }
        HookKind::Stop => with_session(&ws, &config, &store, &key, event, now, |run| {
            let message = event
                .last_message
                .clone()
                .or_else(|| last_message(event.harness, event.transcript.as_deref()));
            let step = session::on_stop(
                &config,
                run,
                event.stop_hook_active,
                message.as_deref(),
                now,
            );
            Ok((step.answer, step.events))
        }),
        HookKind::Other => Ok(Answer::Nothing),
    }
}

/// Before a call: what guards checked against the last hook's reading (a change between
/// calls is a `constraint` trip), the call denied while the session's breaker blocks or
/// when it would switch the guard off; otherwise in flight until its result, with what
/// guards read now, to be compared after it.
fn before_call(
    ws: &Workspace<'_>,
    config: &Config,
    store: &Store,
    key: &str,
    event: &HookEvent,
    call: &session::CallInput,
    now: Timestamp,
) -> Result<Answer> {
    let integrity = integrity::Integrity::of(ws, store.dir());
    let busy = || inflight::any_running(store);
    let (surface, changed) = integrity.between_calls(busy);
    if let Some(reason) = changed {
        with_session(ws, config, store, key, event, now, |run| {
            let step = session::provenance::tampered(config, run, reason, now);
            Ok(((), step.events))
        })?;
    }
    let answer = pre_tool(ws, config, store, key, event, call, now)?;
    if matches!(answer, Answer::Deny(_)) {
        return Ok(answer);
    }
    let failed = provenance::announce(store, key, event, call, now).or_else(|| {
        integrity
            .before_call(key, &call_key(call), &surface)
            .err()
            .map(|e| format!("cannot keep what guards this repository ({e})"))
    });
    Ok(match failed {
        Some(failed) if answer == Answer::Nothing => Answer::Failed(failed),
        _ => answer,
    })
}

/// Before a call: denied while the session's breaker blocks, or when the call would switch
/// the guard off; otherwise nothing.
fn pre_tool(
    ws: &Workspace<'_>,
    config: &Config,
    store: &Store,
    key: &str,
    event: &HookEvent,
    call: &session::CallInput,
    now: Timestamp,
) -> Result<Answer> {
    // Flat as the session grows: the run is read only while its marker says its
    // breaker may be open, and when its markers are not what loopguard left.
    let run = match state::known(store, key, ws.ctx.settings.lock_timeout)? {
        state::Known::Run(run) => *run,
        state::Known::Closed => fresh(ws, event, now),
        state::Known::New => match state::deleted(ws, store, key, event, call) {
            Some(why) => state::tamper(ws, config, store, key, event, now, why)?,
            None => {
                if let Some(answer) = state::began_before(ws, event, call) {
                    return Ok(answer);
                }
                fresh(ws, event, now)
            }
        },
        state::Known::Unusable(why) => {
            return Ok(Answer::Failed(format!("{why}: not judged")));
        }
        state::Known::Tampered(why) => {
            let why = format!("{why}; what loopguard knows of it was put back");
            state::tamper(ws, config, store, key, event, now, why)?
        }
    };
    let root = ws.root.to_string_lossy().into_owned();
    let read = |p: &str| {
        let path = ws.root.join(p);
        crate::safe_fs::read_bounded(&path, 4 << 20, crate::safe_fs::Follow::Yes)
            .ok()
            .flatten()
            .and_then(|b| String::from_utf8(b).ok())
    };
    Ok(session::on_pre_tool(
        config,
        &run,
        call,
        now,
        Some(&root),
        &read,
    ))
}

/// In a git hook: what changed on the guard since the last hook (a session's or git's)
/// read it, when no session's call is running — put back where it can be; what changed
/// and what was done, for the `constraint` trip of the commit that arrives after it.
pub(super) fn guard_changed(ws: &Workspace<'_>) -> Option<String> {
    let store = store_of(ws);
    integrity::Integrity::of(ws, store.dir()).at_git_hook(|| inflight::any_running(&store))
}

/// Keeps the content of each file of `surface` (what guards the repository, as `init`
/// leaves it), for the agents' hooks to put back.
pub(super) fn keep_guard(ws: &Workspace<'_>, surface: &crate::guard_surface::Surface) {
    let dir = crate::store::place::sessions_dir(
        ws.ctx.settings.state_home.as_deref(),
        ws.repo.common_dir(),
    );
    integrity::Integrity::of(ws, &dir).keep_contents(surface);
}

/// `call` with the exit status its harness's transcript recorded, where the hook's input
/// reports a shell call's output only (Codex): read from the transcript's end. `None`
/// where there is nothing to add.
fn exit_status_of(event: &HookEvent, call: &session::CallInput) -> Option<session::CallInput> {
    if !call.output_only || call.kind() != session::Kind::Shell {
        return None;
    }
    let tail = crate::safe_fs::read_tail(Path::new(event.transcript.as_deref()?), TRANSCRIPT_TAIL)
        .ok()
        .flatten()?;
    let code = transcript::exit_status(
        event.harness,
        &String::from_utf8_lossy(&tail),
        call.id.as_deref()?,
    )?;
    let mut call = call.clone();
    call.exit_code = Some(code);
    Some(call)
}

/// The most bytes of a transcript's end read for a call's exit status.
const TRANSCRIPT_TAIL: u64 = 256 << 10;

/// The run a session starts with: on the current branch.
fn fresh(ws: &Workspace<'_>, event: &HookEvent, now: Timestamp) -> Run {
    let mut run = session::new_run(event.harness, &event.session, ws.head.branch.clone(), now);
    run.pinned_config = ws.pin.clone();
    if let Some(s) = run.session.as_mut() {
        s.transcript = event.transcript.clone();
    }
    run
}

/// The calls the run `run_id` dropped, oldest first, from its calls log (what cannot be
/// read is said, and left out).
fn dropped_calls(ws: &Workspace<'_>, store: &Store, run_id: &str) -> Vec<Iteration> {
    match store.read_calls(run_id) {
        Ok((calls, bad)) => {
            for b in bad {
                ws.warn(&format!("{b}: skipped"));
            }
            calls
        }
        Err(e) => {
            ws.warn(&format!(
                "cannot read the calls of {}: {e}",
                crate::sanitize::printable(run_id)
            ));
            Vec::new()
        }
    }
}

/// Locks the sessions' store, loads (or starts) the session's run, lets `f` change it, and
/// writes it with its events as one change (the store's journal), with the report when it
/// tripped. The run keeps only its latest calls: those it drops go to its calls log in the
/// same change, so a crash anywhere loses none.
fn with_session<T>(
    ws: &Workspace<'_>,
    config: &Config,
    store: &Store,
    key: &str,
    event: &HookEvent,
    now: Timestamp,
    f: impl FnOnce(&mut Run) -> Result<(T, Vec<Event>)>,
) -> Result<T> {
    let store = store.lock(ws.ctx.settings.lock_timeout)?;
    let tag = now.strftime("%Y%m%dT%H%M%S%.fZ").to_string();
    let recovered = store.recover(key, &tag)?;
    for why in &recovered.set_aside {
        ws.warn(why);
    }
    // A session's state loopguard kept and no longer finds, or cannot read, was taken by
    // something else than loopguard: never a fresh start, a `constraint` trip.
    let (mut run, before, lost) = match store.load_run(key, &tag)? {
        Loaded::Found(run) => (*run.clone(), Some(*run), None),
        Loaded::Missing => {
            let lost = state::was_seen(&store, key).then(|| {
                "the state of this session was deleted (by something else than loopguard), though loopguard kept it for its earlier calls".to_owned()
            });
            (fresh(ws, event, now), None, lost)
        }
        Loaded::SetAside { kept, why } => {
            let lost = format!(
                "{why} (not as loopguard writes it): it was kept as {}",
                kept.display()
            );
            (fresh(ws, event, now), None, Some(lost))
        }
    };
    // A run every hook wrote has its session's state; one without it gets it back.
    if run.session.is_none() {
        run.session = Some(session::SessionState::new(event.harness, &event.session));
    }
    let mut lost_events = Vec::new();
    if let Some(why) = lost {
        ws.warn(&why);
        lost_events = session::provenance::tampered(config, &mut run, why, now).events;
    }
    let (value, mut events) = f(&mut run)?;
    lost_events.append(&mut events);
    let events = lost_events;
    let calls = run.compact(config);
    if before.as_ref().map(Run::saved) != Some(run.saved()) || !events.is_empty() {
        let report = events.iter().any(|e| e.kind.opens()).then(|| {
            let mut dropped = dropped_calls(ws, &store, &run.id);
            dropped.extend_from_slice(&calls);
            let s = session_status(config, &run, dropped, &events, now);
            (run.id.clone(), markdown::report(&s))
        });
        store.commit(
            key,
            crate::store::Change {
                run: &run,
                events: &events,
                calls: &calls,
                start: None,
                report,
            },
            durability_of(before.as_ref(), &run, &events),
        )?;
        if before.is_none() {
            state::note_seen(&store, key)?;
        }
    }
    Ok(value)
}

/// How durable a session's change must be. A breaker that is not closed, and every event
/// that moves one (a trip, a resume, a reset), must survive a crash of the machine, or the
/// guard would lie after it: synced. The rest — a call, a warning, a person's turn of a
/// session whose breaker was closed and stays closed — is not synced
/// ([`Durability::Rebuildable`]): a crash of the machine ends the harness's process with
/// it, and whoever starts the session again is a person, whose prompt begins a new
/// episode anyway. What the crash can take is the latest calls that counted towards no
/// open breaker (the session then counts from fewer: it may trip later, never opens or
/// closes by itself), and a run lost whole is one whose breaker was closed (its closed
/// marker is synced, whatever the durability). The syncs were most of a hook's wall time
/// (issue 26: 17-23 ms wall for 3-6 ms CPU after a call).
fn durability_of(before: Option<&Run>, run: &Run, events: &[Event]) -> Durability {
    let closed = |r: &Run| r.breaker().state() == State::Closed;
    let moves = |e: &Event| e.from != State::Closed || e.to != State::Closed;
    if !events.iter().any(moves) && closed(run) && before.is_none_or(closed) {
        Durability::Rebuildable
    } else {
        Durability::Synced
    }
}

/// Tokens the model used since the last call, from the transcript's new lines, as the
/// harness's descriptor counts them (Claude Code: each assistant message's usage, once;
/// Codex: the running total). Reads only what was written since the last call, so the
/// cost stays flat as the session grows.
fn tokens_since(run: &mut Run, transcript: Option<&str>) -> Option<u64> {
    let path = transcript?;
    let state = run.session.as_mut()?;
    // Only a transcript loopguard reads is read at all.
    state.harness.descriptor().transcript?;
    if state.transcript.as_deref() != Some(path) {
        state.transcript = Some(path.to_owned());
        state.transcript_read = 0;
    }
    let len = crate::safe_fs::len_of(Path::new(path)).ok()?;
    if len <= state.transcript_read {
        return None;
    }
    let want = (len - state.transcript_read).min(TRANSCRIPT_CHUNK);
    let bytes = crate::safe_fs::read_range(Path::new(path), state.transcript_read, want).ok()?;
    // Whole lines only: the rest is read next time.
    let end = bytes.iter().rposition(|&b| b == b'\n')? + 1;
    state.transcript_read += end as u64;
    let lines: Vec<Value> = String::from_utf8_lossy(&bytes[..end])
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let recorded = run.usage.tokens;
    let state = run.session.as_mut()?;
    transcript::tokens(state.harness, &lines, &mut state.counted_message, recorded)
}

/// The agent's last message, from the end of its transcript, where the stop's input does
/// not carry it.
fn last_message(harness: Harness, transcript: Option<&str>) -> Option<String> {
    harness.descriptor().transcript?;
    // The tail starts at a line (its cut first line dropped).
    let bytes = crate::safe_fs::read_tail(Path::new(transcript?), 1 << 20).ok()??;
    transcript::last_said(harness, &String::from_utf8_lossy(&bytes))
}

/// The status document of a session at `now`: the same as a branch's, over every call it
/// made (`dropped`, those its run no longer keeps, then the run's), with the session's
/// ways out.
pub(super) fn session_status(
    config: &Config,
    run: &Run,
    dropped: Vec<Iteration>,
    events: &[Event],
    now: Timestamp,
) -> Status {
    let mut at_now = run.clone();
    at_now.tick(config, now);
    let calls = session::all_calls(&at_now, dropped);
    session::status(config, &at_now, &calls, events)
}

/// A session's run, by the id the harness gave it (or a prefix of it).
fn find(store: &Store, id: &str) -> Result<(String, Run)> {
    let key = key_of(id);
    if let Peeked::Found(run) = store.peek_run(&key)? {
        return Ok((key, *run));
    }
    let matches: Vec<(String, Run)> = store
        .runs()
        .into_iter()
        .filter(|(_, r)| r.session.as_ref().is_some_and(|s| s.id.starts_with(id)))
        .collect();
    match matches.len() {
        1 => Ok(matches.into_iter().next().expect("one")),
        0 => Err(InputError::NoSuchSession {
            id: crate::sanitize::printable(id),
        }
        .into()),
        count => Err(InputError::AmbiguousSession {
            id: crate::sanitize::printable(id),
            count,
        }
        .into()),
    }
}

/// One line per session of `branch` (all when `None`): its id, harness, state and rule.
pub(super) fn sessions_of(ws: &Workspace<'_>, branch: Option<&str>) -> Vec<SessionLine> {
    let config = ws.config.for_sessions();
    let now = ws.now();
    store_of(ws)
        .runs()
        .into_iter()
        .filter_map(|(_, run)| {
            let state = run.session.as_ref()?;
            if branch.is_some() && run.branch.as_deref() != branch {
                return None;
            }
            let b = run.effective_breaker(&config, now);
            let open = b.state() != State::Closed;
            Some(SessionLine {
                id: state.id.clone(),
                agent: state.harness,
                state: b.state(),
                rule: b.rule().filter(|_| open),
                reason: b.reason().filter(|_| open).map(str::to_owned),
                calls: run.recorded(),
                branch: run.branch.clone(),
            })
        })
        .collect()
}

/// The newest test run of a coding agent's session on `branch` that ran after `after` (both
/// by loopguard's clock): a session's test runs are evidence for its branch, so the
/// branch's next commit is judged with it (a test deleted right after the session saw it
/// fail was failing).
pub(super) fn latest_test_since(
    ws: &Workspace<'_>,
    branch: &str,
    after: Timestamp,
) -> Option<crate::iteration::TestEvidence> {
    let store = store_of(ws);
    if !store.exists() {
        return None;
    }
    store
        .runs()
        .into_iter()
        .filter(|(_, run)| run.branch.as_deref() == Some(branch))
        .filter_map(|(_, run)| run.session.as_ref()?.last_test.clone())
        .filter_map(|t| Some((t.at?, t.test)))
        .filter(|(at, _)| *at > after)
        .max_by_key(|(at, _)| *at)
        .map(|(_, test)| test)
}

/// The `sessions:` lines of `status`.
pub(super) fn sessions_text(sessions: &[SessionLine]) -> String {
    let mut out = String::new();
    if sessions.is_empty() {
        return out;
    }
    out.push_str("sessions:\n");
    for s in sessions {
        let rule = s
            .rule
            .map(|r| {
                format!(
                    " ({r}): {}",
                    crate::sanitize::printable(s.reason.as_deref().unwrap_or(""))
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} {} {}, breaker {}{rule}",
            s.agent,
            crate::sanitize::printable(&s.id),
            Unit::ToolCall.count(s.calls as u64),
            s.state,
        );
    }
    out
}

/// The harnesses whose hooks `init --agent` wrote into this project but that never ran a
/// session: one that runs a project's hooks only once the person trusted them (Codex,
/// Gemini CLI) says nothing when it runs none, so `status` says it.
pub(super) fn unstarted_text(ws: &Workspace<'_>) -> String {
    let ran: Vec<Harness> = sessions_of(ws, None).iter().map(|s| s.agent).collect();
    let mut out = String::new();
    for h in Harness::ALL.iter().copied() {
        let Some(step) = h.descriptor().quirks.trust.step() else {
            continue;
        };
        let hooked = std::fs::read_to_string(ws.root.join(h.descriptor().config.path))
            .is_ok_and(|t| t.contains(&format!(" agent-hook {h}")));
        if hooked && !ran.contains(&h) {
            let _ = writeln!(out, "{h} hooks have not run yet: {} {step}", h.title());
        }
    }
    out
}

/// `status --session ID`.
pub(super) fn status(ctx: &Ctx, id: &str, json_out: bool, exit_code: bool) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let store = store_of(&ws);
    let (_, run) = find(&store, id)?;
    let config = ws.config.for_sessions();
    let dropped = dropped_calls(&ws, &store, &run.id);
    // The branch's breaker: a trip in either shows in both.
    let branch = ws.run_or_new()?;
    let b = branch.effective_breaker(&ws.config, ws.now());
    let open = b.state() != State::Closed;
    let s = session_status(&config, &run, dropped, &[], ws.now())
        .with_session(&run)
        .with_branch_breaker(BranchBreaker {
            branch: ws.head.branch.clone(),
            state: b.state(),
            rule: b.rule().filter(|_| open),
        });
    if json_out {
        print_json(&s.to_json())?;
    } else {
        let mut out = text::status(&s);
        out.push_str(&edges_text(&run));
        let _ = writeln!(
            out,
            "branch {}: breaker {}{}",
            crate::sanitize::printable(ws.head.branch.as_deref().unwrap_or("(detached HEAD)")),
            b.state(),
            b.rule()
                .filter(|_| open)
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
        print(&out)?;
    }
    Ok(if exit_code && s.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

/// Each edge (sub-agent) with its count and latest reasons.
fn edges_text(run: &Run) -> String {
    text::edges(&EdgeRow::of(run), Unit::ToolCall)
}

/// `report --session ID`: the same Status document as a branch's report, over every call
/// of the session, in the same formats (plain text on a terminal, markdown elsewhere).
pub(super) fn report(ctx: &Ctx, id: &str, format: &ReportFormat) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let store = store_of(&ws);
    let (key, run) = find(&store, id)?;
    let (events, bad) = store.read_events(&key)?;
    for b in bad {
        ws.warn(&format!(
            "{}: {b}: skipped",
            store.events_path(&key).display()
        ));
    }
    let dropped = dropped_calls(&ws, &store, &run.id);
    let calls = session::all_calls(&run, dropped.clone());
    let s = session_status(&ws.config.for_sessions(), &run, dropped, &events, ws.now())
        .with_session(&run);
    if format.html {
        print(&crate::report::html::page(&s))?;
    } else if format.json {
        let own: Vec<Event> = events.into_iter().filter(|e| e.run == run.id).collect();
        print_json(&s.with_history(&calls).with_events(&own).to_json())?;
    } else if format.markdown || (!format.text && !ctx.settings.stdout_tty) {
        print(&markdown::report(&s))?;
    } else {
        print(&text::report(&s))?;
    }
    Ok(exit::OK)
}

/// `resume --session ID` and `reset --session ID`: a person's acts on a session.
pub(super) fn resume_or_reset(ctx: &Ctx, id: &str, reset: bool) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let store = store_of(&ws);
    let (key, found) = find(&store, id)?;
    let config = ws.config.for_sessions();
    let now = ws.now();
    let state = found
        .session
        .as_ref()
        .context("not a session's run: it has no session state")?;
    let event = HookEvent {
        harness: state.harness,
        name: "resume".to_owned(),
        kind: HookKind::Other,
        session: state.id.clone(),
        cwd: None,
        transcript: None,
        call: None,
        stop_hook_active: false,
        last_message: None,
        prompt: None,
    };
    let said = with_session(&ws, &config, &store, &key, &event, now, |run| {
        if reset {
            let old = run.breaker().state();
            let mut next = fresh(&ws, &event, now);
            next.id = format!(
                "{}-{}",
                session::run_id(event.harness, &event.session),
                now.as_second()
            );
            let e = Event {
                at: now,
                run: run.id.clone(),
                kind: crate::breaker::EventKind::Reset,
                from: old,
                to: State::Closed,
                rule: None,
                reason: Some(format!("reset; the session's new run is {}", next.id)),
                iteration: None,
                terminal_status: run.breaker().terminal_status(),
            };
            *run = next;
            return Ok((
                "breaker closed: the session starts a new run".to_owned(),
                vec![e],
            ));
        }
        let mut events: Vec<Event> = run.tick(&config, now).into_iter().collect();
        let rule = run.breaker().rule();
        match run.resume(&config, now) {
            Ok(e) => {
                events.extend(e);
                let kind = crate::report::RunKind::of(run);
                Ok((crate::report::resumed(rule, &kind), events))
            }
            Err(e) => Ok((format!("{e}"), events)),
        }
    })?;
    print(&said)?;
    Ok(exit::OK)
}

/// `replay` of a Claude Code transcript or a Codex rollout: every tool call judged as the
/// hooks would have, in order, with what they would have answered.
pub(super) fn replay_transcript(
    config: &Config,
    harness: Harness,
    text: &str,
    name: &str,
    json_out: bool,
    now: Timestamp,
) -> Result<u8> {
    let recorded = transcript::events(harness, text).map_err(|e| InputError::BadTranscript {
        name: name.to_owned(),
        line: e.line,
        why: e.why,
    })?;
    let judged = judge_recorded(config, harness, recorded, now);
    let config = config.for_sessions();
    let calls = session::all_calls(&judged.run, judged.dropped.clone());
    let s = session_status(&config, &judged.run, judged.dropped, &judged.events, now)
        .with_session(&judged.run);
    let open = s.state == State::Open;
    if json_out {
        print_json(
            &s.with_history(&calls)
                .with_events(&judged.events)
                .with_answers(judged.answers)
                .to_json(),
        )?;
    } else {
        let mut out = text::verdict(&s);
        out.push_str(&edges_text(&judged.run));
        out.push_str(&text::answers(&judged.answers));
        print(&out)?;
    }
    Ok(if open { exit::TRIPPED } else { exit::OK })
}

/// A recorded session judged through the hooks' functions.
pub(super) struct Judged {
    /// The session's run, as the hooks would have left it (its latest calls).
    pub run: Run,
    /// The calls its run dropped, oldest first.
    pub dropped: Vec<Iteration>,
    pub events: Vec<Event>,
    /// Every answer that was not "nothing".
    pub answers: Vec<HookAnswer>,
}

/// The recorded events through the hooks' functions, in order, the run compacted after
/// each as the hooks' store does. A call the pre-tool hook would have denied did not run:
/// its result is not recorded.
pub(super) fn judge_recorded(
    config: &Config,
    harness: Harness,
    recorded: Vec<transcript::Recorded>,
    now: Timestamp,
) -> Judged {
    let config = config.for_sessions();
    let start = recorded.iter().find_map(|r| r.at).unwrap_or(now);
    let id = recorded
        .first()
        .map_or_else(|| "replay".to_owned(), |r| r.event.session.clone());
    let mut run = session::new_run(harness, &id, None, start);
    let mut dropped: Vec<Iteration> = Vec::new();
    let mut events = Vec::new();
    let mut answers = Vec::new();
    let mut denied: Vec<String> = Vec::new();
    for r in recorded {
        let at = r.at.unwrap_or(now);
        let e = &r.event;
        let answer = match e.kind {
            HookKind::SessionStart => session::on_start(&config, &run, at),
            HookKind::Prompt => {
                let step = session::on_prompt(&config, &mut run, e.prompt.as_deref(), at);
                events.extend(step.events);
                step.answer
            }
            HookKind::PreTool => {
                let call = e.call.as_ref().expect("a tool call");
                let a = session::on_pre_tool(&config, &run, call, at, None, &|_| None);
                if let (Answer::Deny(_), Some(id)) = (&a, &call.id) {
                    denied.push(id.clone());
                }
                a
            }
            HookKind::PostTool => {
                let call = e.call.as_ref().expect("a tool call");
                if call.id.as_ref().is_some_and(|id| denied.contains(id)) {
                    continue;
                }
                let earlier = || dropped.clone();
                let step = session::on_post_tool(&config, &mut run, call, at, r.tokens, &earlier);
                events.extend(step.events);
                step.answer
            }
            HookKind::Stop => {
                let step = session::on_stop(
                    &config,
                    &mut run,
                    e.stop_hook_active,
                    e.last_message.as_deref(),
                    at,
                );
                events.extend(step.events);
                step.answer
            }
            HookKind::Other => Answer::Nothing,
        };
        dropped.extend(run.compact(&config));
        let (kind, text) = match answer {
            Answer::Nothing => continue,
            Answer::Deny(t) => ("deny", t),
            Answer::Context(t) => ("context", t),
            Answer::Block(t) => ("block", t),
            Answer::Failed(t) => ("failed", t),
        };
        answers.push(HookAnswer {
            after: run.iterations().last().map(|it| it.id.to_string()),
            event: e.name.clone(),
            answer: kind,
            text,
        });
    }
    Judged {
        run,
        dropped,
        events,
        answers,
    }
}
