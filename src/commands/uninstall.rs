//! `uninstall`: loopguard's hooks removed, and what was there before put back.

use anyhow::Result;

use crate::agents_config::{self, Change};
use crate::cli::UninstallArgs;
use std::path::Path;

use crate::error::{HookError, exit};
use crate::git::Repo;
use crate::guard_surface::{Place, Surface, own};
use crate::hooks;
use crate::session::Harness;
use crate::store::Store;

use super::{Ctx, print};

/// Works in any repository git can open, one whose refs loopguard cannot read too (a
/// migration to reftable after `init`): taking the hooks out is the way back from there.
pub(super) fn uninstall(ctx: &Ctx, args: &UninstallArgs) -> Result<u8> {
    let repo = Repo::discover_with_env(&ctx.dir)?;
    let store = Store::new(repo.common_dir(), ctx.settings.clock);
    let place = Place::of(&repo, &ctx.settings);
    if !args.agents.is_empty() {
        let code = uninstall_agents(ctx, &place.root, &args.agents)?;
        record_own(ctx, &place, &store);
        return Ok(code);
    }
    let hooks_dir = repo.hooks_dir();
    let changes =
        hooks::uninstall(&hooks_dir, &hooks::chained_dir(store.dir())).map_err(|source| {
            HookError::Uninstall {
                dir: hooks_dir.clone(),
                source,
            }
        })?;
    for (hook, change) in &changes {
        ctx.ui.note(&format!("hook {hook}: {}", change.describe()));
    }
    // Nothing is left to refuse: the mark an unreadable repository left goes too.
    if store.exists()
        && let Ok(locked) = store.lock(ctx.settings.lock_timeout)
    {
        let _ = locked.mark_unreadable(false);
    }
    record_own(ctx, &place, &store);
    print(&format!(
        "loopguard's hooks are removed; its records stay in {} (delete that directory to forget them)",
        store.dir().display()
    ))?;
    Ok(exit::OK)
}

/// The surface as `uninstall` leaves it, so that it is not taken for an agent's change.
fn record_own(ctx: &Ctx, place: &Place, store: &Store) {
    if !store.exists() {
        return;
    }
    let surface = Surface::snapshot(place, None);
    if let Err(e) = own::record(
        store.dir(),
        own::By::Uninstall,
        ctx.settings.now(),
        &surface,
    ) {
        ctx.ui
            .warn(&format!("cannot record what uninstall changed: {e}"));
    }
}

/// Takes loopguard's entries out of each agent's hook config; the git hooks stay.
fn uninstall_agents(ctx: &Ctx, root: &Path, agents: &[Harness]) -> Result<u8> {
    for agent in agents {
        let (_, change) = agents_config::uninstall(root, *agent)?;
        let what = match change {
            Change::Written => "loopguard's hooks removed",
            Change::Removed if agent.descriptor().config.owned => {
                "loopguard's hooks removed (the file was loopguard's alone: deleted)"
            }
            Change::Removed => "loopguard's hooks removed (nothing else was in the file: deleted)",
            Change::Unchanged => "no loopguard hooks there",
        };
        ctx.ui.note(&format!(
            "{}: {what} ({})",
            agent.title(),
            agents_config::config_path(*agent)
        ));
    }
    print(
        "loopguard's agent hooks are removed; the git hooks, if any, stay (`loopguard uninstall` removes them)",
    )?;
    Ok(exit::OK)
}
