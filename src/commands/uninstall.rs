//! `uninstall`: loopguard's hooks removed, and what was there before put back.

use anyhow::Result;

use crate::agents_config::{self, Change};
use crate::cli::UninstallArgs;
use crate::error::{HookError, exit};
use crate::hooks;
use crate::session::Harness;

use super::{Ctx, Workspace, print};

pub(super) fn uninstall(ctx: &Ctx, args: &UninstallArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    if !args.agents.is_empty() {
        return uninstall_agents(&ws, &args.agents);
    }
    let hooks_dir = ws.repo.hooks_dir();
    let changes =
        hooks::uninstall(&hooks_dir, &hooks::chained_dir(ws.store.dir())).map_err(|source| {
            HookError::Uninstall {
                dir: hooks_dir.clone(),
                source,
            }
        })?;
    for (hook, change) in &changes {
        ws.note(&format!("hook {hook}: {}", change.describe()));
    }
    print(&format!(
        "loopguard's hooks are removed; its records stay in {} (delete that directory to forget them)",
        ws.store.dir().display()
    ))?;
    Ok(exit::OK)
}

/// Takes loopguard's entries out of each agent's hook config; the git hooks stay.
fn uninstall_agents(ws: &Workspace<'_>, agents: &[Harness]) -> Result<u8> {
    for agent in agents {
        let (_, change) = agents_config::uninstall(&ws.root, *agent)?;
        let what = match change {
            Change::Written => "loopguard's hooks removed",
            Change::Removed => {
                "loopguard's hooks removed (the file was loopguard's alone: deleted)"
            }
            Change::Unchanged => "no loopguard hooks there",
        };
        ws.note(&format!(
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
