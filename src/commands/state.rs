//! `status`, `report`, `resume`, `reset`: the current branch's run.

use anyhow::Result;

use crate::breaker::{Event, EventKind, ResumeError, State};
use crate::cli::{ReportArgs, ResetArgs, StatusArgs};
use crate::config::CONFIG_FILE;
use crate::error::{Error, exit};
use crate::hooks;
use crate::report::{html, markdown, text};
use crate::run::{PinSource, Run};

use super::{Ctx, Workspace, print, print_json};

/// The stored run (or the one the branch continues), or the run it would start.
pub(super) fn current(ws: &Workspace<'_>) -> Result<Run> {
    match ws.read_run()? {
        Some(run) => Ok(run),
        None => ws.new_run(ws.now()),
    }
}

pub(super) fn status(ctx: &Ctx, args: StatusArgs) -> Result<u8> {
    if let Some(id) = &args.session {
        return super::session::status(ctx, id, args.json, args.exit_code);
    }
    let ws = Workspace::open(ctx, None)?;
    let hooks = hooks::installed(&ws.repo.hooks_dir(), &ws.root);
    let missing = hooks
        .iter()
        .filter(|(_, on)| !on)
        .map(|(h, _)| (*h).to_owned())
        .collect();
    let some = hooks.iter().any(|(_, on)| *on);
    // The agents' sessions on this branch: a trip in either shows in both.
    let sessions = super::session::sessions_of(&ws, ws.head.branch.as_deref());
    let s = ws
        .status(&current(&ws)?, &[])
        .with_guard(missing, some)
        .with_sessions(sessions);
    if args.json {
        print_json(&s.to_json())?;
    } else {
        let mut out = text::status(&s);
        out.push_str(&super::session::sessions_text(
            s.sessions.as_deref().unwrap_or_default(),
        ));
        print(&out)?;
    }
    Ok(if args.exit_code && s.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

pub(super) fn report(ctx: &Ctx, args: &ReportArgs) -> Result<u8> {
    if let Some(id) = &args.session {
        return super::session::report(ctx, id, &args.format);
    }
    let ws = Workspace::open(ctx, None)?;
    let run = current(&ws)?;
    let (mut events, bad) = ws.store.read_events(&ws.key)?;
    for b in bad {
        ws.warn(&format!(
            "{}: {b}: skipped",
            ws.store.events_path(&ws.key).display()
        ));
    }
    // The branch's log holds the runs a reset ended too: this run's report is its own.
    events.retain(|e| e.run == run.id);
    let s = ws.status(&run, &events);
    if args.format.html {
        print(&html::page(&s))?;
    } else if args.format.json {
        print_json(
            &s.with_history(run.iterations())
                .with_events(&events)
                .to_json(),
        )?;
    } else if args.format.markdown || (!args.format.text && !ctx.env.stdout_tty) {
        print(&markdown::report(&s))?;
    } else {
        print(&text::report(&s))?;
    }
    Ok(exit::OK)
}

pub(super) fn resume(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let now = ws.now();
    let result = ws.with_run(now, |run| {
        let mut events: Vec<Event> = run.tick(&ws.config, now).into_iter().collect();
        match run.resume(&ws.config, now) {
            Ok(e) => {
                events.extend(e);
                Ok((Ok(()), events))
            }
            Err(e) => Ok((Err(e), events)),
        }
    })?;
    match result {
        Ok(()) => {
            print(
                "breaker half-open: the agent may commit again; the next iteration decides (progress closes the breaker, none opens it again)",
            )?;
            Ok(exit::OK)
        }
        Err(ResumeError::NotOpen(State::HalfOpen)) => {
            print("breaker already half-open: the next iteration decides")?;
            Ok(exit::OK)
        }
        Err(ResumeError::NotOpen(s)) => {
            print(&format!("breaker {s}: nothing to resume"))?;
            Ok(exit::OK)
        }
        Err(e) => Err(Error::input(format!("{e}")).into()),
    }
}

pub(super) fn reset(ctx: &Ctx, args: ResetArgs) -> Result<u8> {
    if let Some(id) = &args.session {
        return super::session::resume_or_reset(ctx, id, true);
    }
    let mut ws = Workspace::open_quietly(ctx, None)?;
    let accepted = if args.accept_config {
        // The file is what is being accepted: it must be valid, and it is not "ignored".
        let pin = ws.pin_worktree(PinSource::Accepted)?;
        ws.pin_new_runs(pin.clone());
        ws.ignored = None;
        Some(pin)
    } else {
        ws.warn_ignored();
        None
    };
    let now = ws.now();
    let (old_id, new_id) = ws.with_run(now, |run| {
        let next = ws.next_run(run, now);
        let old = std::mem::replace(run, next);
        let config = match &accepted {
            Some(pin) => {
                ws.store.set_accepted_config(pin)?;
                format!(
                    ", judged by the {CONFIG_FILE} a person accepted (sha256 {})",
                    pin.sha256
                        .as_deref()
                        .map_or("-, no file: the defaults", |s| s.get(..12).unwrap_or(s))
                )
            }
            None => String::new(),
        };
        let event = Event {
            at: now,
            run: old.id.clone(),
            kind: EventKind::Reset,
            from: old.breaker().state(),
            to: State::Closed,
            rule: None,
            reason: Some(format!("reset; the new run is {}{config}", run.id)),
            iteration: None,
            terminal_status: old.breaker().terminal_status(),
        };
        if !old.iterations().is_empty() {
            // The run as it ended: its trips and everything else its log holds, and the
            // reset that ended it.
            let (id, md) = ws.render_report(&old, std::slice::from_ref(&event))?;
            ws.store.write_report(&id, &md)?;
        }
        Ok(((old.id.clone(), run.id.clone()), vec![event]))
    })?;
    ws.note(&format!(
        "the run {old_id} ended; its report is in {}",
        ws.store.dir().join("reports").display()
    ));
    match &accepted {
        Some(_) => print(&format!(
            "breaker closed: new run {new_id}; {CONFIG_FILE} as it is in the working tree is accepted as the config in force"
        ))?,
        None => print(&format!("breaker closed: new run {new_id}"))?,
    }
    Ok(exit::OK)
}
