//! `status`: the breaker of the current branch's run, and whether the hooks guard it.

use anyhow::Result;

use crate::breaker::State;
use crate::cli::StatusArgs;
use crate::error::exit;
use crate::hooks;
use crate::report::text;

use super::{Ctx, Workspace, print, print_json};

pub(super) fn status(ctx: &Ctx, args: StatusArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let hooks = hooks::installed(&ws.repo.hooks_dir(), &ws.root);
    let missing = hooks
        .iter()
        .filter(|(_, on)| !on)
        .map(|(h, _)| (*h).to_owned())
        .collect();
    let some = hooks.iter().any(|(_, on)| *on);
    let s = ws.status(&ws.run_or_new()?, &[]).with_guard(missing, some);
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
