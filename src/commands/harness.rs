//! `event`, `finish`, and the interactive prompt after a trip: what agent harnesses call.
#![allow(clippy::print_stderr)]

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use anyhow::Result;
use serde_json::json;

use crate::breaker::State;
use crate::cli::{EventArgs, JsonArgs};
use crate::error::{Error, exit};
use crate::report::View;
use crate::run::{EdgeInput, Run};

use super::{Workspace, aftermath, hook, note, now, print, print_json};

fn check_edge(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.:/>".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::input(format!(
            "--edge `{name}`: an edge is a name like planner_to_researcher (letters, digits, _ - . : / >, at most 100)"
        ))
        .into())
    }
}

pub fn event(dir: &Path, args: EventArgs) -> Result<u8> {
    check_edge(&args.edge)?;
    if let Some(c) = args.cost
        && !(c.is_finite() && c >= 0.0)
    {
        return Err(Error::input("--cost must be a number >= 0").into());
    }
    let ws = Workspace::open(dir, None)?;
    let now = now();
    let input = EdgeInput {
        edge: args.edge.clone(),
        progress: args.progress,
        query: args.query.clone(),
        tokens: args.tokens,
        cost: args.cost,
    };
    let (out, run) = ws.with_run(now, |run| {
        ws.restart_if_finished(run, now)?;
        let out = run.event(&ws.config, input, now);
        let events = out.outcome.events.clone();
        Ok(((out, run.clone()), events))
    })?;
    hook::announce(&ws, &out.outcome)?;
    let b = &run.breaker;
    let next_model = View::of_run(&ws.config, &run, b, &out.outcome.evaluation, &[])
        .next_model()
        .map(str::to_owned);
    let open = b.state == State::Open;
    if args.json {
        print_json(&json!({
            "schema": 1,
            "edge": out.edge,
            "count": out.count,
            "threshold": out.threshold,
            "new_information": out.new_information,
            "asked_at_step": out.asked_at_step,
            "step": out.step,
            "max_steps": ws.config.rules.edge_loop.max_steps,
            "state": b.state,
            "terminal_status": b.terminal_status,
            "rule": if b.state == State::Closed { None } else { b.rule },
            "reason": if b.state == State::Closed { None } else { b.reason.clone() },
            "next_model": next_model,
        }))?;
    } else {
        let mut text = format!(
            "{}: {}/{} without progress (step {}, breaker {})",
            out.edge, out.count, out.threshold, out.step, b.state
        );
        if let Some(step) = out.asked_at_step {
            text.push_str(&format!(
                "\nno new information: step {step} asked the same query on this edge"
            ));
        }
        if open && let Some(reason) = &b.reason {
            text.push_str(&format!("\nstop: {reason}"));
        }
        print(&text)?;
    }
    Ok(if open { exit::TRIPPED } else { exit::OK })
}

pub fn finish(dir: &Path, args: JsonArgs) -> Result<u8> {
    let ws = Workspace::open(dir, None)?;
    let now = now();
    let run = ws.with_run(now, |run| {
        let e = run.finish(&ws.config, now);
        Ok((run.clone(), vec![e]))
    })?;
    let (events, _) = ws.store.read_events(&ws.key)?;
    aftermath::after(&ws, &events[events.len().saturating_sub(1)..]);
    let eval = run.evaluate(&ws.config);
    let view = View::of_run(&ws.config, &run, &run.breaker, &eval, &[]);
    if args.json {
        print_json(&view.to_json(false))?;
    } else {
        print(&format!(
            "run {} finished: {}",
            run.id,
            run.breaker
                .terminal_status
                .map(|t| t.to_string())
                .unwrap_or_default()
        ))?;
    }
    Ok(exit::OK)
}

/// Whether a person is at the keyboard (and this is not CI).
pub fn interactive() -> bool {
    std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
        && std::env::var_os("LOOPGUARD_NO_PROMPT").is_none()
}

/// After `run` tripped on a terminal: what now? Returns whether the breaker still blocks.
pub fn prompt_after_trip(ws: &Workspace) -> Result<bool> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        let run = ws
            .read_run()?
            .ok_or_else(|| Error::env("the run disappeared"))?;
        let next = ws
            .config
            .escalation_models
            .get(run.breaker.model + 1)
            .cloned();
        let retry = next
            .as_deref()
            .map(|m| format!(" / [r]etry with the next model ({m})"))
            .unwrap_or_default();
        eprint!(
            "loopguard: what now? [c]ontinue (reset the counters) / [s]kip (the run stays blocked) / [a]bort{retry} / [h]elp: "
        );
        std::io::stderr().flush()?;
        let Some(line) = lines.next() else {
            return Ok(true);
        };
        let now = now();
        let choice = line?.trim().to_lowercase();
        let act = |f: &dyn Fn(&mut Run) -> Option<crate::breaker::Event>| -> Result<()> {
            let events = ws.with_run(now, |run| {
                let e: Vec<_> = f(run).into_iter().collect();
                Ok((e.clone(), e))
            })?;
            aftermath::after(ws, &events);
            Ok(())
        };
        match choice.chars().next() {
            Some('c') => {
                act(&|run| Some(run.continue_after_trip(now)))?;
                note("loopguard: the breaker is closed; counting starts again");
                return Ok(false);
            }
            Some('s') => {
                note(
                    "loopguard: the run stays blocked; `loopguard resume` lets the agent try again",
                );
                return Ok(true);
            }
            Some('a') => {
                act(&|run| Some(run.abort(now)))?;
                note("loopguard: the run is aborted; `loopguard reset` starts a new one");
                return Ok(true);
            }
            Some('r') if next.is_some() => {
                act(&|run| run.next_model(&ws.config, now))?;
                note(&format!(
                    "loopguard: retry with {}; the next iteration must make progress",
                    next.as_deref().unwrap_or("?")
                ));
                return Ok(false);
            }
            Some('h') => {
                let eval = run.evaluate(&ws.config);
                let view = View::of_run(&ws.config, &run, &run.breaker, &eval, &[]);
                eprintln!("{}", view.to_text());
                eprintln!("{}", view.iterations_table(8));
            }
            _ => eprintln!("loopguard: answer c, s, a, r or h"),
        }
    }
}
