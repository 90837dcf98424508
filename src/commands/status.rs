//! `status`: the breaker of the current branch's run, and whether the repository is
//! guarded: its hooks here, every worktree's hooks (`guard_surface`), and whether
//! loopguard can read it at all.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::breaker::State;
use crate::cli::StatusArgs;
use crate::error::{GitError, exit};
use crate::git::Repo;
use crate::guard_surface::{NotGuarded, Place, Surface};
use crate::hooks;
use crate::report::text;
use crate::store::Store;

use super::{Ctx, Workspace, print, print_json};

pub(super) fn status(ctx: &Ctx, args: StatusArgs) -> Result<u8> {
    if let Some(id) = &args.session {
        return super::session::status(ctx, id, args.json, args.exit_code);
    }
    let repo = match Repo::discover_with_env(&ctx.dir) {
        // git finds a repository no one can open (nor git: its hooks never run).
        Err(e @ GitError::CannotOpen { .. }) => {
            let why = Why::new(e.to_string(), e.hint().map(str::to_owned));
            return not_guarded_at_all(&args, "this repository", &why, &[], ctx);
        }
        r => r?,
    };
    let store = Store::new(repo.common_dir(), ctx.settings.clock);
    // No marker: no breaker may be open, so a disarmed reference-transaction guards.
    let open_keys = store.open_keys();
    let none_open = open_keys.as_ref().is_ok_and(Vec::is_empty);
    let surface = Surface::snapshot(&Place::of(&repo, &ctx.settings), None);
    let not_guarded = surface.not_guarded(repo.common_dir(), none_open);
    if let Err(e) = repo.readable() {
        let why = Why::new(e.to_string(), e.hint().map(str::to_owned));
        return not_guarded_at_all(&args, "this repository", &why, &not_guarded, ctx);
    }
    match guarded(ctx, &args, &not_guarded, none_open) {
        // loopguard's own state cannot be read (not merely corrupt, which the next hook
        // mends): the hooks cannot judge either. A gate then refuses while a breaker may
        // be open (a marker, or markers that cannot be listed) and lets git go on if not.
        Err(e)
            if crate::error::exit_code_of(&e) == exit::ENV && !crate::error::is_broken_pipe(&e) =>
        {
            let shown = crate::error::render(&e);
            let gates_refuse = !open_keys.is_ok_and(|k| k.is_empty());
            let gates = if gates_refuse {
                "every gate refuses until it can (a breaker may be open)"
            } else {
                "its hooks let every commit and push through (fail open) until it can"
            };
            let why = Why {
                message: format!(
                    "loopguard cannot read its state ({}): {gates}",
                    shown.message
                ),
                hint: shown.hint,
                gates_refuse,
            };
            not_guarded_at_all(&args, "its state", &why, &not_guarded, ctx)
        }
        r => r,
    }
}

/// `status` of a repository loopguard can read: the breaker, the hooks here, and what the
/// surface says about every other worktree.
fn guarded(
    ctx: &Ctx,
    args: &StatusArgs,
    not_guarded: &[NotGuarded],
    none_open: bool,
) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let dir = ws.repo.hooks_dir();
    let hooks = hooks::guarding(&dir, &ws.root, none_open);
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
    // Every other worktree, and this one's hooks where git may run others than those
    // above (a conditional include, a system config of another git): said by the surface.
    let elsewhere = not_guarded
        .iter()
        .filter(|n| !said_above(n, &ws.root, &dir))
        .map(ToString::to_string)
        .collect();
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
        .with_not_guarded(elsewhere)
        .with_sessions(sessions);
    if args.json {
        print_json(&s.to_json())?;
    } else {
        let mut out = text::status(&s);
        out.push_str(&super::session::sessions_text(
            s.sessions.as_deref().unwrap_or_default(),
        ));
        out.push_str(&super::session::unstarted_text(&ws));
        print(&out)?;
    }
    Ok(if args.exit_code && s.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

/// Whether `n` is about this worktree's hooks in git's own hooks directory `dir`, which
/// the hooks' own lines say (a `core.hooksPath` elsewhere is said again, with where it is
/// set).
fn said_above(n: &NotGuarded, root: &Path, dir: &Path) -> bool {
    let same = |a: &Path, b: &Path| {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        canonical(a) == canonical(b)
    };
    match n {
        NotGuarded::HooksOff {
            worktree, dir: d, ..
        } => d.set.is_none() && same(worktree, root) && same(&d.dir, dir),
        NotGuarded::RefFormat { .. } => false,
    }
}

/// `status --json` where loopguard cannot read the repository or its state.
#[derive(Serialize)]
struct Unreadable<'a> {
    schema: u32,
    guarded: bool,
    not_guarded: &'a [String],
}

/// Why loopguard cannot judge here, what a person does, and whether every gate refuses
/// meanwhile.
struct Why {
    message: String,
    hint: Option<String>,
    gates_refuse: bool,
}

impl Why {
    /// A reason every gate refuses for (or git itself does).
    fn new(message: String, hint: Option<String>) -> Why {
        Why {
            message,
            hint,
            gates_refuse: true,
        }
    }
}

/// `status` where loopguard cannot read `what` (the repository: its refs kept as reftable,
/// a config gix cannot read; or its own state): not guarded, why, and what a person
/// does; no breaker to show. `--exit-code` exits 1 when every gate refuses (the refs:
/// as while a breaker is open), 0 when they let git go on.
fn not_guarded_at_all(
    args: &StatusArgs,
    what: &str,
    why: &Why,
    not_guarded: &[NotGuarded],
    ctx: &Ctx,
) -> Result<u8> {
    use std::fmt::Write as _;
    // The reason's own words first, then what else the surface saw.
    let reasons: Vec<String> = std::iter::once(why.message.clone())
        .chain(
            not_guarded
                .iter()
                .filter(|n| !matches!(n, NotGuarded::RefFormat { .. }))
                .map(ToString::to_string),
        )
        .collect();
    if args.json {
        print_json(&serde_json::json!(Unreadable {
            schema: crate::documents::SCHEMA,
            guarded: false,
            not_guarded: &reasons,
        }))?;
    } else {
        let mut out = format!("breaker: unknown (loopguard cannot read {what})\n");
        for reason in &reasons {
            let _ = writeln!(out, "guard: not guarded: {reason}");
        }
        print(&out)?;
    }
    if let Some(hint) = &why.hint {
        ctx.ui.note(&format!("hint: {hint}"));
    }
    Ok(if args.exit_code && why.gates_refuse {
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
