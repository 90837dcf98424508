//! `resume`: open → half-open; the next iteration decides. On a run that is not stuck, a
//! person's turn: a new episode.

use anyhow::Result;

use crate::breaker::{Event, ResumeError, State};
use crate::error::{InputError, exit};
use crate::report::{RunKind, already_resumed, resumed};
use crate::store::Durability;

use super::{Ctx, Workspace, print};

pub(super) fn resume(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let now = ws.now();
    let (result, rule) = ws.with_run(now, Durability::Synced, |run, _| {
        let mut events: Vec<Event> = run.tick(&ws.config, now).into_iter().collect();
        let rule = run.breaker().rule();
        let result = match run.resume(&ws.config, now) {
            Ok(e) => {
                events.extend(e);
                Ok(false)
            }
            // A person resuming a run that is not stuck takes a turn: a new episode.
            Err(ResumeError::NotOpen(State::Closed)) if !run.iterations().is_empty() => {
                run.new_episode(&ws.config, now, None).map(|e| {
                    events.extend(e);
                    true
                })
            }
            Err(e) => Err(e),
        };
        Ok(((result, rule), events))
    })?;
    match result {
        Ok(false) => {
            print(&resumed(rule, &RunKind::Branch))?;
            Ok(exit::OK)
        }
        Ok(true) => {
            print(
                "breaker closed: a new episode; the loop counters start again (the budget keeps counting the whole run)",
            )?;
            Ok(exit::OK)
        }
        Err(ResumeError::NotOpen(State::HalfOpen)) => {
            print(&already_resumed(rule, &RunKind::Branch))?;
            Ok(exit::OK)
        }
        Err(ResumeError::NotOpen(s)) => {
            print(&format!("breaker {s}: nothing to resume"))?;
            Ok(exit::OK)
        }
        Err(e) => Err(InputError::Breaker(e).into()),
    }
}
