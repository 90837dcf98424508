//! `event --edge NAME`: one transition of an agent harness, counted per edge (what
//! harnesses call, beside `finish`).

use std::fmt::Write as _;

use crate::documents::EventDocument;
use anyhow::Result;

use crate::breaker::State;
use crate::cli::EventArgs;
use crate::error::{InputError, exit};
use crate::run::EdgeInput;
use crate::store::Durability;

use super::{Ctx, Workspace, aftermath, print, print_json};

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
        reason: args.reason.clone(),
    };
    let (out, run) = ws.with_run(now, Durability::Synced, |run, store| {
        ws.restart_if_finished(store, run, now)?;
        let out = run.event(&ws.config, input, now);
        let events = out.outcome.events.clone();
        Ok(((out, run.clone()), events))
    })?;
    let s = ws.status(&run, &[]);
    aftermath::announce(&ws, &out.outcome.events, &s);
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
