//! `resume`: open → half-open; the next iteration decides.

use anyhow::Result;

use crate::breaker::{Event, ResumeError, State};
use crate::error::{InputError, exit};

use super::{Ctx, Workspace, print};

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
        Err(e) => Err(InputError::Breaker(e).into()),
    }
}
