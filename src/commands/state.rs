//! `status`, `report`, `resume`, `reset`: the current branch's run.

use std::path::Path;

use anyhow::Result;

use crate::breaker::{Breaker, Event, EventKind, ResumeError, State};
use crate::cli::StatusArgs;
use crate::error::{Error, exit};
use crate::report::View;
use crate::run::Run;

use super::{Workspace, note, now, print, print_json};

/// The run to show: the stored one with its cooldown applied, or an empty one.
fn current(ws: &Workspace) -> Result<(Run, Breaker)> {
    let now = now();
    let run = ws.read_run()?.unwrap_or_else(|| ws.new_run(now));
    let breaker = run.effective_breaker(&ws.config, now);
    Ok((run, breaker))
}

pub fn status(dir: &Path, args: StatusArgs) -> Result<u8> {
    let ws = Workspace::open(dir, None)?;
    let (run, breaker) = current(&ws)?;
    let eval = run.evaluate(&ws.config);
    let view = View {
        config: &ws.config,
        run_id: Some(&run.id),
        branch: run.branch.as_deref(),
        breaker: &breaker,
        eval: &eval,
        history: &run.iterations,
        events: &[],
    };
    if args.json {
        print_json(&view.to_json(false))?;
    } else {
        print(&view.to_text())?;
    }
    Ok(if args.exit_code && breaker.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

pub fn report(dir: &Path, json: bool) -> Result<u8> {
    let ws = Workspace::open(dir, None)?;
    let (run, breaker) = current(&ws)?;
    let (events, bad) = ws.store.read_events(&ws.key)?;
    for b in bad {
        super::warn(&format!(
            "{}: {b}: skipped",
            ws.store.events_path(&ws.key).display()
        ));
    }
    let eval = run.evaluate(&ws.config);
    let view = View {
        config: &ws.config,
        run_id: Some(&run.id),
        branch: run.branch.as_deref(),
        breaker: &breaker,
        eval: &eval,
        history: &run.iterations,
        events: &events,
    };
    if json {
        let mut doc = view.to_json(true);
        doc["events"] = serde_json::to_value(&events)?;
        print_json(&doc)?;
    } else {
        print(&view.to_markdown())?;
    }
    Ok(exit::OK)
}

pub fn resume(dir: &Path) -> Result<u8> {
    let ws = Workspace::open(dir, None)?;
    let now = now();
    let result = ws.with_run(now, |run| {
        let mut events: Vec<Event> = run.tick(&ws.config, now).into_iter().collect();
        match run.resume(now) {
            Ok(e) => {
                events.push(e);
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

pub fn reset(dir: &Path) -> Result<u8> {
    let ws = Workspace::open(dir, None)?;
    let now = now();
    let (old_id, new_id) = ws.with_run(now, |run| {
        let old = std::mem::replace(run, ws.new_run(now));
        let event = Event {
            at: now,
            run: old.id.clone(),
            kind: EventKind::Reset,
            from: old.breaker.state,
            to: State::Closed,
            rule: None,
            reason: Some(format!("reset; the new run is {}", run.id)),
            iteration: None,
            terminal_status: old.breaker.terminal_status,
        };
        if !old.iterations.is_empty() {
            let eval = old.evaluate(&ws.config);
            let md = View {
                config: &ws.config,
                run_id: Some(&old.id),
                branch: old.branch.as_deref(),
                breaker: &old.breaker,
                eval: &eval,
                history: &old.iterations,
                events: &[],
            }
            .to_markdown();
            ws.store.write_report(&old.id, &md)?;
        }
        Ok(((old.id, run.id.clone()), vec![event]))
    })?;
    note(&format!(
        "the run {old_id} ended; its report is in {}",
        ws.store.dir().join("reports").display()
    ));
    print(&format!("breaker closed: new run {new_id}"))?;
    Ok(exit::OK)
}
