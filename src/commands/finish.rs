//! `finish`: the run ends with its terminal status; the next commit or event starts a new
//! one.

use anyhow::Result;

use crate::cli::JsonArgs;
use crate::error::exit;
use crate::store::Durability;

use super::{Ctx, Workspace, aftermath, print, print_json};

pub(super) fn finish(ctx: &Ctx, args: JsonArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let now = ws.now();
    let (run, event) = ws.with_run(now, Durability::Synced, |run, _| {
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
