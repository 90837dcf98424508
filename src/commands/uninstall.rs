//! `uninstall`: loopguard's hooks removed, and what was there before put back.

use anyhow::Result;

use crate::error::{HookError, exit};
use crate::hooks;

use super::{Ctx, Workspace, print};

pub(super) fn uninstall(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
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
