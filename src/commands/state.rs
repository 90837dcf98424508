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
    let ws = Workspace::open(ctx, None)?;
    let hooks = hooks::installed(&ws.repo.hooks_dir(), &ws.root);
    let missing = hooks
        .iter()
        .filter(|(_, on)| !on)
        .map(|(h, _)| (*h).to_owned())
        .collect();
    let some = hooks.iter().any(|(_, on)| *on);
    let s = ws.status(&current(&ws)?, &[]).with_guard(missing, some);
    if args.json {
        print_json(&s.to_json())?;
    } else {
        print(&text::status(&s))?;
    }
    Ok(if args.exit_code && s.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

pub(super) fn report(ctx: &Ctx, args: &ReportArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let run = current(&ws)?;
    let (events, bad) = ws.store.read_events(&ws.key)?;
    for b in bad {
        ws.warn(&format!(
            "{}: {b}: skipped",
            ws.store.events_path(&ws.key).display()
        ));
    }
    let s = ws.status(&run, &events);
    if args.html {
        print(&html::page(&s))?;
    } else if args.json {
        let mut doc = s.with_history(run.iterations()).to_json();
        doc["events"] = serde_json::to_value(&events)?;
        print_json(&doc)?;
    } else {
        print(&markdown::report(&s))?;
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
                Ok((Ok(false), events))
            }
            // A person resuming a run that is not stuck takes a turn: a new episode.
            Err(ResumeError::NotOpen(State::Closed)) if !run.iterations().is_empty() => {
                match run.new_episode(&ws.config, now, None) {
                    Ok(e) => {
                        events.extend(e);
                        Ok((Ok(true), events))
                    }
                    Err(e) => Ok((Err(e), events)),
                }
            }
            Err(e) => Ok((Err(e), events)),
        }
    })?;
    match result {
        Ok(false) => {
            print(
                "breaker half-open: the agent may commit again; the next iteration decides (progress closes the breaker, none opens it again)",
            )?;
            Ok(exit::OK)
        }
        Ok(true) => {
            print(
                "breaker closed: a new episode; the loop counters start again (the budget keeps counting the whole run)",
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
            let md = markdown::report(&ws.status(&old, &[]));
            ws.store.write_report(&old.id, &md)?;
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
