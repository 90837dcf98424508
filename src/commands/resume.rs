//! `resume`: open → half-open; the next iteration decides. On a run that is not stuck, a
//! person's turn: a new episode.

use anyhow::Result;

use crate::breaker::{Event, ResumeError, State};
use crate::error::{InputError, exit};
use crate::store::Durability;

use super::{Ctx, Workspace, print};

pub(super) fn resume(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let now = ws.now();
    let result = ws.with_run(now, Durability::Synced, |run, _| {
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
        Err(e) => Err(InputError::Breaker(e).into()),
    }
}
