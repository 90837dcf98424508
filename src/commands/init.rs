//! `init` and `uninstall`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::cli::InitArgs;
use crate::config::{CONFIG_FILE, Profile};
use crate::error::{Error, exit};
use crate::hooks::{self, HookChange};
use crate::run::PinSource;

use super::{Ctx, Workspace, print, shown};

fn config_text(profile: Profile) -> String {
    let rules = crate::config::Rules::for_profile(profile);
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
        profile.window(),
        rules.stagnation.threshold,
        rules.same_error.threshold
    )
}

/// A hooks directory inside the working tree (`core.hooksPath=.githooks`) whose files are
/// tracked or would be committed: loopguard writes nothing there (a tracked hook would be
/// overwritten, and the shims hold this machine's path to loopguard). The error says what
/// to do instead. A directory git ignores, with nothing tracked in it, is private: fine.
fn hooks_in_the_tree(ws: &Workspace<'_>, hooks_dir: &Path) -> Result<Option<Error>> {
    let Some(root) = ws.repo.workdir() else {
        return Ok(None);
    };
    if !hooks_dir.starts_with(root)
        || hooks_dir.starts_with(ws.repo.git_dir())
        || hooks_dir.starts_with(ws.repo.common_dir())
    {
        return Ok(None);
    }
    // Relative to the root, where git runs: that is how it names them back.
    let paths: Vec<PathBuf> = hooks::HOOKS
        .iter()
        .map(|h| shown(&hooks_dir.join(h), root))
        .collect();
    // check-ignore takes the paths on stdin (-z only works with --stdin); ls-files as
    // literal pathspecs.
    let mut list = Vec::new();
    for p in &paths {
        list.extend_from_slice(p.as_os_str().as_encoded_bytes());
        list.push(0);
    }
    let literal: Vec<std::ffi::OsString> = paths
        .iter()
        .map(|p| {
            let mut spec = std::ffi::OsString::from(":(literal)");
            spec.push(p);
            spec
        })
        .collect();
    let git = |args: &[&str], specs: &[std::ffi::OsString], input: &[u8]| -> Result<Vec<PathBuf>> {
        use std::io::Write as _;
        let failed =
            |e: std::io::Error| Error::env(format!("cannot run git {}: {e}", args.join(" ")));
        let mut child = Command::new("git")
            .current_dir(root)
            .args(args)
            .args(specs)
            .stdin(if input.is_empty() {
                Stdio::null()
            } else {
                Stdio::piped()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(failed)?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(input).map_err(failed)?;
        }
        let out = child.wait_with_output().map_err(failed)?;
        // check-ignore exits 1 when nothing is ignored.
        if !out.status.success() && out.status.code() != Some(1) {
            return Err(Error::env(format!(
                "git {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
            .into());
        }
        Ok(out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).as_ref()))
            .collect())
    };
    let tracked = git(&["ls-files", "-z", "--full-name", "--"], &literal, &[])?;
    let ignored = git(&["check-ignore", "-z", "--stdin"], &[], &list)?;
    if tracked.is_empty() && paths.iter().all(|p| ignored.contains(p)) {
        return Ok(None);
    }
    let dir = shown(hooks_dir, root);
    let why = match tracked.first() {
        Some(t) => format!("{} is tracked", t.display()),
        None => "git would commit what is written there".to_owned(),
    };
    let ours: Vec<String> = tracked
        .iter()
        .filter(|t| hooks::is_ours(&root.join(t)))
        .map(|t| t.display().to_string())
        .collect();
    let mut msg = format!(
        "core.hooksPath is {}, inside the working tree, and {why}: loopguard does not write its hooks there \
         (it would overwrite the team's hooks, and its own hold this machine's path to loopguard)\n\
         hint: call loopguard from those hooks instead. Put this line right after the `#!` line of each \
         (create the missing ones, executable, starting with `#!/bin/sh`); it finds loopguard on PATH, does \
         nothing where loopguard is not installed, and reads git's input, so it goes before anything else \
         that does:\n",
        dir.display()
    );
    for hook in hooks::HOOKS {
        let _ = write!(
            msg,
            "  # {}\n  {}\n",
            dir.join(hook).display(),
            hooks::chain_line(hook)
        );
    }
    msg.push_str(
        "then commit them and run `loopguard init --no-hooks` to start the run. \
         Or, with nothing tracked there, add the directory to .gitignore and run `loopguard init` again.",
    );
    if !ours.is_empty() {
        let _ = write!(
            msg,
            "\nnote: {} {} loopguard's hook shim from an earlier `loopguard init`, with a machine's path \
             in it: replace {} with the line above",
            ours.join(", "),
            if ours.len() == 1 { "is" } else { "are" },
            if ours.len() == 1 { "it" } else { "them" },
        );
    }
    Ok(Some(Error::input(msg)))
}

pub(super) fn init(ctx: &Ctx, args: InitArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let config_path = ws.config_path();
    if !args.no_hooks
        && let Some(refusal) = hooks_in_the_tree(&ws, &ws.repo.hooks_dir())?
    {
        return Err(refusal.into());
    }

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
    }
    if !args.agents.is_empty() {
        install_agents(&ws, &args.agents)?;
    }
    // Stores written before the open markers existed get theirs (reference-transaction's
    // fast path relies on them); under the lock, so that no writer races it.
    {
        let _lock = ws
            .store
            .lock(ctx.env.lock_timeout())
            .map_err(|e| Error::env(format!("cannot lock the loopguard state: {e}")))?;
        ws.store
            .sync_open_markers()
            .map_err(|e| Error::env(format!("cannot update {}: {e}", ws.store.dir().display())))?;
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

/// Merges loopguard's entries into each agent's project hook config (see
/// `agents_config`): every agent's file is read first, so a broken one stops them all
/// before anything is written.
fn install_agents(ws: &Workspace<'_>, agents: &[crate::session::Harness]) -> Result<()> {
    let exe = std::env::current_exe().context("cannot tell where the loopguard binary is")?;
    let mut agents = agents.to_vec();
    agents.sort();
    agents.dedup();
    for agent in &agents {
        let (_, change) = crate::agents_config::install(&ws.root, *agent, &exe)?;
        let what = match change {
            crate::agents_config::Change::Written => "hooked in",
            crate::agents_config::Change::Unchanged | crate::agents_config::Change::Removed => {
                "already hooked in"
            }
        };
        ws.note(&format!(
            "{}: {what} ({})",
            agent.title(),
            crate::agents_config::config_path(*agent)
        ));
    }
    Ok(())
}

pub(super) fn uninstall(ctx: &Ctx, args: &crate::cli::UninstallArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    if !args.agents.is_empty() {
        for agent in &args.agents {
            let (_, change) = crate::agents_config::uninstall(&ws.root, *agent)?;
            let what = match change {
                crate::agents_config::Change::Written => "loopguard's hooks removed",
                crate::agents_config::Change::Removed => {
                    "loopguard's hooks removed (the file was loopguard's alone: deleted)"
                }
                crate::agents_config::Change::Unchanged => "no loopguard hooks there",
            };
            ws.note(&format!(
                "{}: {what} ({})",
                agent.title(),
                crate::agents_config::config_path(*agent)
            ));
        }
        print(
            "loopguard's agent hooks are removed; the git hooks, if any, stay (`loopguard uninstall` removes them)",
        )?;
        return Ok(exit::OK);
    }
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
