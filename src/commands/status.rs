//! `status`: the breaker of the current branch's run, and whether the hooks guard it.

use anyhow::Result;

use crate::breaker::State;
use crate::cli::StatusArgs;
use crate::error::exit;
use crate::hooks;
use crate::report::text;

use super::{Ctx, Workspace, print, print_json};

pub(super) fn status(ctx: &Ctx, args: StatusArgs) -> Result<u8> {
    if let Some(id) = &args.session {
        return super::session::status(ctx, id, args.json, args.exit_code);
    }
    let ws = Workspace::open(ctx, None)?;
    let dir = ws.repo.hooks_dir();
    let mut hooks = hooks::installed(&dir, &ws.root);
    // reference-transaction waits disarmed (not there) while no breaker may be open: that
    // is guarding, as long as no marker says one may be and pre-commit's shim guards.
    let none_open = ws.store.open_keys().is_ok_and(|k| k.is_empty());
    let pre_commit_guards = hooks.iter().any(|(h, on)| *h == "pre-commit" && on.is_ok());
    for (hook, on) in &mut hooks {
        if *hook == "reference-transaction"
            && on.is_err()
            && none_open
            && pre_commit_guards
            && hooks::disarmed(&dir)
        {
            *on = Ok(());
        }
    }
    let missing = hooks
        .iter()
        .filter(|(_, on)| on.is_err())
        .map(|(h, _)| (*h).to_owned())
        .collect();
    let some = hooks.iter().any(|(_, on)| on.is_ok());
    // What looks like a hook and is not one that guards: said, never counted as guarding.
    for (hook, on) in &hooks {
        if let Err(why) = on
            && some_trace(why)
        {
            ws.warn(&format!("the {hook} hook {why}: it does not guard"));
        }
    }
    // As the next hook will judge it: with the commits no hook recorded.
    let (run, unrecorded) = ws.with_unrecorded(ws.run_or_new()?)?;
    if unrecorded > 0 {
        ws.note(&format!(
            "loopguard: {unrecorded} commit(s) that no hook recorded are judged here too (the next hook records them)"
        ));
    }
    // The agents' sessions on this branch: a trip in either shows in both.
    let sessions = super::session::sessions_of(&ws, ws.head.branch.as_deref());
    let s = ws
        .status(&run, &[])
        .with_guard(missing, some)
        .with_sessions(sessions);
    if args.json {
        print_json(&s.to_json())?;
    } else {
        let mut out = text::status(&s);
        out.push_str(&super::session::sessions_text(
            s.sessions.as_deref().unwrap_or_default(),
        ));
        print(&out)?;
    }
    Ok(if args.exit_code && s.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

/// Whether a hook's problem is worth a warning: something is there that is not what it
/// seems (an absent hook is said by `guarded` and the missing list).
fn some_trace(why: &str) -> bool {
    why != "not installed" && why != "does not run loopguard"
}
