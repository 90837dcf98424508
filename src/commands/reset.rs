//! `reset`: the run ends with its report and a new one starts (`--accept-config`: judged
//! by the working tree's `.loopguard.yml`, which a person accepts).

use anyhow::Result;

use crate::breaker::{Event, EventKind, State};
use crate::cli::ResetArgs;
use crate::config::CONFIG_FILE;
use crate::error::exit;
use crate::run::PinSource;
use crate::store::Durability;

use super::{Ctx, Workspace, print};

pub(super) fn reset(ctx: &Ctx, args: ResetArgs) -> Result<u8> {
    if let Some(id) = &args.session {
        return super::session::resume_or_reset(ctx, id, true);
    }
    let mut ws = Workspace::open_quietly(ctx, None)?;
    let accepted = if args.accept_config {
        // The file is what is being accepted: it must be valid, and it is not "ignored".
        let pin = ws.pin_worktree(PinSource::Accepted)?;
        ws.pin_new_runs(pin.clone());
        ws.ignored = None;
        Some(pin)
    } else {
        ws.warn_ignored();
        None
    };
    let now = ws.now();
    let (old_id, new_id) = ws.with_run(now, Durability::Synced, |run, store| {
        let next = ws.next_run(run, now);
        let old = std::mem::replace(run, next);
        let config = match &accepted {
            Some(pin) => {
                store.set_accepted_config(pin)?;
                format!(
                    ", judged by the {CONFIG_FILE} a person accepted (sha256 {})",
                    pin.sha256
                        .as_deref()
                        .map_or("-, no file: the defaults", |s| s.get(..12).unwrap_or(s))
                )
            }
            None => String::new(),
        };
        let event = Event {
            at: now,
            run: old.id.clone(),
            kind: EventKind::Reset,
            from: old.breaker().state(),
            to: State::Closed,
            rule: None,
            reason: Some(format!("reset; the new run is {}{config}", run.id)),
            iteration: None,
            terminal_status: old.breaker().terminal_status(),
        };
        if !old.iterations().is_empty() {
            // The run as it ended: its trips and everything else its log holds, and the
            // reset that ended it.
            let (id, md) = ws.render_report(&old, std::slice::from_ref(&event))?;
            store.write_report(&id, &md)?;
        }
        Ok(((old.id.clone(), run.id.clone()), vec![event]))
    })?;
    if accepted.is_some() {
        super::init::record_own(&ws, crate::guard_surface::own::By::AcceptConfig);
    }
    ws.note(&format!(
        "the run {old_id} ended; its report is in {}",
        ws.store.dir().join("reports").display()
    ));
    match &accepted {
        Some(_) => print(&format!(
            "breaker closed: new run {new_id}; {CONFIG_FILE} as it is in the working tree is accepted as the config in force"
        ))?,
        None => print(&format!("breaker closed: new run {new_id}"))?,
    }
    Ok(exit::OK)
}
