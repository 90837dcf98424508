//! A judged history shown (`check`, `replay`): the verdict as text, or the status document
//! with the history and the events along the way; exit 1 when the breaker ends open.

use anyhow::Result;

use crate::breaker::State;
use crate::config::Config;
use crate::error::exit;
use crate::report::{Status, text};
use crate::run::Judgement;

use super::{print, print_json};

pub(super) fn show(config: &Config, j: &Judgement, json: bool) -> Result<u8> {
    let s = Status::of_judgement(config, j);
    if json {
        print_json(
            &s.with_history(j.run.iterations())
                .with_events(&j.events)
                .to_json(),
        )?;
    } else {
        print(&text::verdict(&s))?;
    }
    Ok(if j.run.breaker().state() == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}
