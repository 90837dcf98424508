//! What now, after `run` tripped the breaker on a terminal: continue, skip, abort, or
//! retry with the next model.
#![allow(clippy::print_stderr)]

use std::io::{BufRead, Write};

use anyhow::Result;

use crate::config::TripAction;
use crate::error::{InputError, StoreError};
use crate::iteration::{Intervention, InterventionKind};
use crate::report::text;
use crate::store::Durability;

use super::{Workspace, aftermath};

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
            let events = ws.with_run(now, Durability::Synced, |run, _| {
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
