//! `event`, `finish`, and the interactive prompt after a trip: what agent harnesses call.
#![allow(clippy::print_stderr)]

use std::fmt::Write as _;
use std::io::{BufRead, Write};

use crate::documents::EventDocument;
use anyhow::Result;

use crate::breaker::State;
use crate::cli::{EventArgs, JsonArgs};
use crate::config::TripAction;
use crate::error::{InputError, StoreError, exit};
use crate::iteration::{Intervention, InterventionKind};
use crate::report::text;
use crate::run::EdgeInput;

use super::{Ctx, Workspace, aftermath, hook, print, print_json};

fn check_edge(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.:/>".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(InputError::BadEdge {
            edge: crate::sanitize::printable(name),
        }
        .into())
    }
}

pub(super) fn event(ctx: &Ctx, args: EventArgs) -> Result<u8> {
    check_edge(&args.edge)?;
    if let Some(c) = args.cost
        && !(c.is_finite() && c >= 0.0)
    {
        return Err(InputError::BadCost { cost: c }.into());
    }
    let ws = Workspace::open(ctx, None)?;
    let now = ws.now();
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
    let s = ws.status(&run, &[]);
    hook::announce(&ws, &out.outcome.events, &s);
    let open = s.state == State::Open;
    if args.json {
        let doc = EventDocument::new(&out, ws.config.rules.edge_loop.max_steps, &s);
        print_json(&serde_json::to_value(doc)?)?;
    } else {
        let mut out_text = format!(
            "{}: {}/{} without progress (step {}, breaker {})",
            out.edge, out.count, out.threshold, out.step, s.state
        );
        if out.refused {
            out_text.push_str("\nrefused: the breaker is open; this step was not counted");
        }
        if let Some(step) = out.asked_at_step {
            let _ = write!(
                out_text,
                "\nno new information: step {step} asked the same query on this edge"
            );
        }
        if open && let Some(reason) = &s.reason {
            let _ = write!(out_text, "\nstop: {}", crate::sanitize::printable(reason));
        }
        print(&out_text)?;
    }
    Ok(if open { exit::TRIPPED } else { exit::OK })
}

pub(super) fn finish(ctx: &Ctx, args: JsonArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let now = ws.now();
    let (run, event) = ws.with_run(now, |run| {
        let e = run.finish(&ws.config, now);
        Ok(((run.clone(), e.clone()), vec![e]))
    })?;
    aftermath::after(&ws, std::slice::from_ref(&event));
    let s = ws.status(&run, &[]);
    if args.json {
        print_json(&s.to_json())?;
    } else {
        print(&format!(
            "run {} finished: {}",
            run.id,
            s.terminal_status.map(|t| t.to_string()).unwrap_or_default()
        ))?;
    }
    Ok(exit::OK)
}

/// After `run` tripped on a terminal: what now? Returns whether the breaker still blocks.
pub(super) fn prompt_after_trip(ws: &Workspace<'_>) -> Result<bool> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        let run = ws.read_run()?.ok_or(StoreError::Vanished)?;
        // Another model only where escalation is the policy.
        let next = (ws.config.on_trip.action == TripAction::Escalate)
            .then(|| {
                ws.config
                    .escalation_models
                    .get(run.breaker().model() + 1)
                    .cloned()
            })
            .flatten();
        let retry = next
            .as_deref()
            .map(|m| format!(" / [r]etry with the next model ({m})"))
            .unwrap_or_default();
        eprint!(
            "{}",
            crate::sanitize::terminal(&format!(
                "loopguard: what now? [c]ontinue (reset the counters) / [s]kip (the run stays blocked) / [a]bort{retry} / [h]elp: "
            ))
        );
        std::io::stderr().flush()?;
        let Some(line) = lines.next() else {
            return Ok(true);
        };
        let now = ws.now();
        let choice = line?.trim().to_lowercase();
        let act = |action: InterventionKind| -> Result<()> {
            let events = ws.with_run(now, |run| {
                let e = run
                    .intervene(
                        &ws.config,
                        Intervention {
                            action,
                            at: now,
                            by: None,
                        },
                    )
                    .map_err(InputError::Breaker)?;
                Ok((e.clone(), e))
            })?;
            aftermath::after(ws, &events);
            Ok(())
        };
        match choice.chars().next() {
            Some('c') => {
                act(InterventionKind::Continue)?;
                ws.note("loopguard: the breaker is closed; counting starts again");
                return Ok(false);
            }
            Some('s') => {
                ws.note(
                    "loopguard: the run stays blocked; `loopguard resume` lets the agent try again",
                );
                return Ok(true);
            }
            Some('a') => {
                act(InterventionKind::Abort)?;
                ws.note("loopguard: the run is aborted; `loopguard reset` starts a new one");
                return Ok(true);
            }
            Some('r') if next.is_some() => {
                act(InterventionKind::NextModel)?;
                ws.note(&format!(
                    "loopguard: retry with {}; it starts with fresh counters",
                    next.as_deref().unwrap_or("?")
                ));
                return Ok(false);
            }
            Some('h') => {
                let s = ws.status(&run, &[]);
                ws.note(&text::status(&s));
                ws.note(&text::iterations(&s, 8));
            }
            _ => {
                let options = if next.is_some() {
                    "c, s, a, r or h"
                } else {
                    "c, s, a or h"
                };
                eprintln!("loopguard: answer {options}");
            }
        }
    }
}
