//! `report`: the current run's report, as markdown, JSON or one HTML page.

use anyhow::Result;

use crate::cli::ReportArgs;
use crate::error::exit;
use crate::report::{html, markdown, text};

use super::{Ctx, Workspace, print, print_json};

pub(super) fn report(ctx: &Ctx, args: &ReportArgs) -> Result<u8> {
    if let Some(id) = &args.session {
        return super::session::report(ctx, id, &args.format);
    }
    let ws = Workspace::open(ctx, None)?;
    let run = ws.run_or_new()?;
    let (mut events, bad) = ws.store.read_events(&ws.key)?;
    for b in bad {
        ws.warn(&format!(
            "{}: {b}: skipped",
            ws.store.events_path(&ws.key).display()
        ));
    }
    // The branch's log holds the runs a reset ended too: this run's report is its own.
    events.retain(|e| e.run == run.id);
    let s = ws.status(&run, &events);
    if args.format.html {
        print(&html::page(&s))?;
    } else if args.format.json {
        print_json(
            &s.with_history(run.iterations())
                .with_events(&events)
                .to_json(),
        )?;
    } else if args.format.markdown || (!args.format.text && !ctx.settings.stdout_tty) {
        print(&markdown::report(&s))?;
    } else {
        print(&text::report(&s))?;
    }
    Ok(exit::OK)
}
