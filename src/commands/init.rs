//! `init` and `uninstall`.

use anyhow::{Context, Result};

use crate::cli::InitArgs;
use crate::config::{CONFIG_FILE, Profile};
use crate::error::{Error, exit};
use crate::hooks::{self, HookChange};
use crate::run::PinSource;

use super::{Ctx, Workspace, print, shown};

fn config_text(profile: Profile) -> String {
    let t = profile.thresholds();
    format!(
        "# loopguard: stops autonomous coding agents from looping.\n\
         # Every key is optional; README.md documents them all. Commit this file: in CI the\n\
         # guard reads it from the base branch, and an agent changing it trips `constraint`.\n\
         profile: {profile}\n\
         # window: {}\n\
         # rules:\n\
         #   stagnation: {{threshold: {}}}\n\
         #   same_error: {{threshold: {}}}\n\
         #   test_only: {{action: warn}}\n\
         # agents: []            # \"Name <email>\" globs of the agent's commits\n\
         # on_trip:\n\
         #   action: pause       # pause | alert | abort | escalate\n",
        t.window, t.stagnation, t.same_error
    )
}

pub fn init(ctx: &Ctx, args: InitArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let config_path = ws.config_path();

    if let Some(profile) = args.profile {
        let text = config_text(profile);
        match std::fs::read_to_string(&config_path) {
            Ok(existing) if existing == text => {}
            Ok(_) if !args.force => {
                return Err(Error::input(format!(
                    "{} exists already; hint: edit its `profile:` key, or pass --force to overwrite it",
                    config_path.display()
                ))
                .into());
            }
            _ => {
                std::fs::write(&config_path, &text)
                    .with_context(|| format!("cannot write {}", config_path.display()))?;
                ws.note(&format!("wrote {CONFIG_FILE} (profile {profile})"));
            }
        }
    }
    // The config must be valid before anything relies on it; a new run is judged by it.
    let ws = Workspace::open_quietly(ctx, None)?;
    let pin = ws.pin_worktree(PinSource::Init)?;
    ws.pin_new_runs(pin.clone());

    if !args.no_hooks {
        let hooks_dir = ws.repo.hooks_dir();
        let exe = std::env::current_exe().context("cannot tell where the loopguard binary is")?;
        let changes = hooks::install(&hooks_dir, &hooks::chained_dir(ws.store.dir()), &exe)
            .map_err(|e| {
                Error::env(format!(
                    "cannot install the hooks in {}: {e}",
                    hooks_dir.display()
                ))
            })?;
        for (hook, change) in &changes {
            ws.note(&format!("hook {hook}: {}", change.describe()));
        }
        if changes.iter().any(|(_, c)| *c == HookChange::Chained) {
            ws.note(&format!(
                "the hooks that were there before are kept in {} and run first",
                hooks::chained_dir(ws.store.dir()).display()
            ));
        }
        if let Some(root) = ws.repo.workdir()
            && hooks_dir.starts_with(root)
            && !hooks_dir.starts_with(ws.repo.common_dir())
        {
            ws.note(&format!(
                "note: core.hooksPath is {} inside the working tree; if those hooks are tracked, git status shows loopguard's shims",
                shown(&hooks_dir, root).display()
            ));
        }
    }

    let started = ws.with_run(ws.now(), |run| {
        let fresh = run.iterations().is_empty() && *run.breaker() == Default::default();
        // A run that was already going keeps the config it started with.
        let kept = run
            .pinned_config
            .as_ref()
            .is_some_and(|p| p.sha256 != pin.sha256);
        if !kept {
            ws.store.set_accepted_config(&pin)?;
        }
        Ok(((fresh, run.id.clone(), kept), Vec::new()))
    })?;
    if started.2 {
        ws.warn(&format!(
            "the run {} keeps the config it started with: {CONFIG_FILE} in the working tree differs and is not in force; hint: a person makes it the policy with `loopguard reset --accept-config`",
            started.1
        ));
    }
    let branch = ws.head.branch.as_deref().unwrap_or("(detached HEAD)");
    if ws.head.detached {
        ws.warn(
            "HEAD is detached: this run is keyed `(detached)`; check out a branch to give the agent its own run",
        );
    }
    print(&format!(
        "loopguard is guarding {branch} (run {}, profile {})",
        started.1, ws.config.profile
    ))?;
    if !config_path.exists() {
        ws.note(
            "no .loopguard.yml: the balanced defaults apply; `loopguard init --profile strict|balanced|yolo` writes one",
        );
    } else {
        ws.note(
            "hint: commit .loopguard.yml now, before the agent starts: committing exactly this file is setup, an agent changing it trips `constraint`",
        );
    }
    Ok(exit::OK)
}

pub fn uninstall(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let hooks_dir = ws.repo.hooks_dir();
    let changes =
        hooks::uninstall(&hooks_dir, &hooks::chained_dir(ws.store.dir())).map_err(|e| {
            Error::env(format!(
                "cannot remove the hooks from {}: {e}",
                hooks_dir.display()
            ))
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
