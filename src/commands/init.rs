//! `init`: the hooks installed (chaining any that were there), the config pinned, and the
//! current branch's run started.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::agents_config;
use crate::cli::InitArgs;
use crate::config::{CONFIG_FILE, Profile};
use crate::error::{ConfigFileError, GitError, HookError, InputError, StoreError, exit};
use crate::guard_surface::{Place, Surface, own};
use crate::hooks::{self, HookChange};
use crate::run::{PinSource, PinnedConfig};
use crate::session::Harness;
use crate::settings::Build;
use crate::store::Durability;

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
fn hooks_in_the_tree(ws: &Workspace<'_>, hooks_dir: &Path) -> Result<Option<HookError>> {
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
    let literal: Vec<OsString> = paths
        .iter()
        .map(|p| {
            let mut spec = OsString::from(":(literal)");
            spec.push(p);
            spec
        })
        .collect();
    let tracked = git_paths(
        root,
        &["ls-files", "-z", "--full-name", "--"],
        &literal,
        &[],
    )?;
    let ignored = git_paths(root, &["check-ignore", "-z", "--stdin"], &[], &list)?;
    if tracked.is_empty() && paths.iter().all(|p| ignored.contains(p)) {
        return Ok(None);
    }
    let why = match tracked.first() {
        Some(t) => format!("{} is tracked", t.display()),
        None => "git would commit what is written there".to_owned(),
    };
    let ours: Vec<String> = tracked
        .iter()
        .filter(|t| hooks::is_ours(&root.join(t)))
        .map(|t| t.display().to_string())
        .collect();
    Ok(Some(HookError::InWorkTree {
        dir: shown(hooks_dir, root),
        why,
        ours,
    }))
}

/// The NUL-separated paths `git <args> <specs>` prints in `root`, given `input` on stdin.
fn git_paths(
    root: &Path,
    args: &[&str],
    specs: &[OsString],
    input: &[u8],
) -> Result<Vec<PathBuf>, GitError> {
    use std::io::Write as _;
    let failed = |source| GitError::CannotRun {
        args: args.join(" "),
        source,
    };
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
        return Err(GitError::Failed {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(out
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(String::from_utf8_lossy(p).as_ref()))
        .collect())
}

pub(super) fn init(ctx: &Ctx, args: InitArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    if ws.repo.workdir().is_none() {
        return Err(InputError::BareRepository {
            path: ws.repo.git_dir().to_owned(),
        }
        .into());
    }
    if !args.no_hooks
        && let Some(refusal) = hooks_in_the_tree(&ws, &ws.repo.hooks_dir())?
    {
        return Err(refusal.into());
    }
    // Every agent's config is read and merged before anything is written: a broken one
    // stops `init` with nothing changed.
    let agents = plan_agents(&ws, &args.agents)?;
    if let Some(profile) = args.profile {
        write_config(&ws, profile, args.force)?;
    }
    // The config must be valid before anything relies on it; a new run is judged by it.
    let mut ws = Workspace::open_quietly(ctx, None)?;
    // The repository can be read (again): no mark of one that could not be is left to
    // keep reference-transaction armed.
    if let Ok(locked) = ws.store.lock(ctx.settings.lock_timeout) {
        let _ = locked.mark_unreadable(false);
    }
    let pin = ws.pin_worktree(PinSource::Init)?;
    ws.pin_new_runs(pin.clone());
    if !args.no_hooks {
        install_hooks(&ws)?;
    }
    install_agents(&ws, agents)?;
    let started = start_run(&ws, &pin)?;
    record_own(&ws, own::By::Init);
    say_started(&ws, &started)?;
    if !args.no_preview {
        show_preview(&ws)?;
    }
    Ok(exit::OK)
}

/// What the config in force would have done on the recent first-parent history: printed
/// when the history holds at least one window (`check --windows` shows it on demand).
fn show_preview(ws: &Workspace<'_>) -> Result<()> {
    use super::preview::{INIT_WINDOWS, WINDOW_SIZE, of};
    let Some(head) = &ws.head.id else {
        return Ok(());
    };
    if let Some(p) = of(ws, &ws.config, head, INIT_WINDOWS, WINDOW_SIZE)? {
        print(&crate::preview::text(&p, &ws.config.profile.to_string()))?;
    }
    Ok(())
}

/// The surface as `init` (or `by`) leaves it, so that it is not taken for an agent's
/// change.
pub(super) fn record_own(ws: &Workspace<'_>, by: own::By) {
    let place = Place::of(&ws.repo, &ws.ctx.settings);
    let surface = Surface::snapshot(&place, None);
    if let Err(e) = own::record(ws.store.dir(), by, ws.now(), &surface) {
        ws.warn(&format!("cannot record what loopguard changed: {e}"));
    }
    // What the agents' hooks put back, should a call change it.
    super::session::keep_guard(ws, &surface);
}

/// Writes the config of `profile`, unless another is there (and not `force`).
fn write_config(ws: &Workspace<'_>, profile: Profile, force: bool) -> Result<()> {
    let path = ws.config_path();
    let text = config_text(profile);
    match std::fs::read_to_string(&path) {
        Ok(existing) if existing == text => {}
        Ok(_) if !force => return Err(ConfigFileError::Exists { path }.into()),
        _ => {
            std::fs::write(&path, &text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            ws.note(&format!("wrote {CONFIG_FILE} (profile {profile})"));
        }
    }
    Ok(())
}

/// Installs the shims, keeping the hooks that were there; says what it did.
fn install_hooks(ws: &Workspace<'_>) -> Result<()> {
    let dir = ws.repo.hooks_dir();
    let exe = std::env::current_exe().context("cannot tell where the loopguard binary is")?;
    // A test repository's hooks honour the tests' knobs (a debug build's only).
    let test_knobs = ws.ctx.settings.invocation.test_knobs && Build::this() == Build::Debug;
    // A disarmed reference-transaction is an installed one: install writes it again.
    let waited = hooks::disarmed(&dir);
    let changes = hooks::install(&dir, &hooks::chained_dir(ws.store.dir()), &exe, test_knobs)
        .map_err(|source| HookError::Install {
            dir: dir.clone(),
            source,
        })?;
    // reference-transaction waits disarmed while no breaker may be open.
    let open = ws.store.open_keys().map_or(true, |k| !k.is_empty());
    ws.arm_reference_transaction(open)?;
    let armed = dir.join("reference-transaction").exists();
    // It waited disarmed as a copy of the shims: it changed as they did.
    let shims = changes
        .iter()
        .find(|(hook, _)| *hook == "pre-commit")
        .map(|(_, c)| *c);
    for (hook, change) in &changes {
        let change = match shims {
            Some(c)
                if waited
                    && *hook == "reference-transaction"
                    && *change == HookChange::Installed =>
            {
                c
            }
            _ => *change,
        };
        if *hook == "reference-transaction" && !armed {
            ws.note(&format!(
                "hook {hook}: {} (armed only while a breaker is open)",
                change.describe()
            ));
        } else {
            ws.note(&format!("hook {hook}: {}", change.describe()));
        }
    }
    if changes.iter().any(|(_, c)| *c == HookChange::Chained) {
        ws.note(&format!(
            "the hooks that were there before are kept in {} and run first",
            hooks::chained_dir(ws.store.dir()).display()
        ));
    }
    Ok(())
}

/// The run `init` starts or finds.
struct Started {
    run: String,
    /// A run that was already going keeps the config it started with (not `pin`).
    kept: bool,
}

/// Starts the current branch's run (or finds it going) and makes `pin` the repository's
/// accepted config, unless the run keeps another.
fn start_run(ws: &Workspace<'_>, pin: &PinnedConfig) -> Result<Started> {
    ws.with_run(ws.now(), Durability::Synced, |run, store| {
        let kept = run
            .pinned_config
            .as_ref()
            .is_some_and(|p| p.sha256 != pin.sha256);
        if !kept {
            store
                .set_accepted_config(pin)
                .map_err(StoreError::io("write", &store.accepted_path()))?;
        }
        let started = Started {
            run: run.id.clone(),
            kept,
        };
        Ok((started, Vec::new()))
    })
}

/// Says what is guarded now, and what to do next.
fn say_started(ws: &Workspace<'_>, started: &Started) -> Result<()> {
    if started.kept {
        ws.ctx.ui.warn_hint(
            &format!(
                "the run {} keeps the config it started with: {CONFIG_FILE} in the working tree differs and is not in force",
                started.run
            ),
            "a person makes it the policy with `loopguard reset --accept-config`",
        );
    }
    let branch = ws.head.branch.as_deref().unwrap_or("(detached HEAD)");
    if ws.head.detached {
        ws.warn(
            "HEAD is detached: this run is keyed `(detached)`; check out a branch to give the agent its own run",
        );
    }
    print(&format!(
        "loopguard is guarding {branch} (run {}, profile {})",
        started.run, ws.config.profile
    ))?;
    if !ws.config_path().exists() {
        ws.note(
            "no .loopguard.yml: the balanced defaults apply; `loopguard init --profile strict|balanced|yolo` writes one",
        );
    } else {
        ws.note(
            "hint: commit .loopguard.yml now, before the agent starts: committing exactly this file is setup, an agent changing it trips `constraint`",
        );
    }
    Ok(())
}

/// Reads each agent's project hook config and merges loopguard's entries into it (see
/// `agents_config`), writing nothing: a broken file stops them all, and `init`, before
/// anything is written.
fn plan_agents(
    ws: &Workspace<'_>,
    agents: &[Harness],
) -> Result<Vec<(Harness, agents_config::Planned)>> {
    if agents.is_empty() {
        return Ok(Vec::new());
    }
    let exe = std::env::current_exe().context("cannot tell where the loopguard binary is")?;
    let mut agents = agents.to_vec();
    agents.sort();
    agents.dedup();
    let mut planned = Vec::with_capacity(agents.len());
    for agent in agents {
        planned.push((agent, agents_config::plan(&ws.root, agent, &exe)?));
    }
    Ok(planned)
}

/// Writes the agents' configs [`plan_agents`] merged; says what it did.
fn install_agents(
    ws: &Workspace<'_>,
    planned: Vec<(Harness, agents_config::Planned)>,
) -> Result<()> {
    for (agent, plan) in planned {
        let (_, change) = plan.apply()?;
        let what = match change {
            agents_config::Change::Written => "hooked in",
            agents_config::Change::Unchanged | agents_config::Change::Removed => {
                "already hooked in"
            }
        };
        ws.note(&format!(
            "{}: {what} ({})",
            agent.title(),
            agents_config::config_path(agent)
        ));
        trust_note(ws, agent)?;
    }
    Ok(())
}

/// What the person must do before `agent` runs loopguard's hooks, and what loopguard did
/// of it: the review it recorded as the person's (Codex's `/hooks`).
fn trust_note(ws: &Workspace<'_>, agent: Harness) -> Result<()> {
    let Some(step) = agent.descriptor().quirks.trust.step() else {
        return Ok(());
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let recorded =
        agents_config::record_review(&ws.root, agent, home.as_deref(), |v| std::env::var_os(v))?;
    let done = match recorded {
        Some(file) => format!(
            "; loopguard recorded the review of its own hooks in {} as `/hooks` would, so trusting the project is the one step left",
            file.display()
        ),
        None => String::new(),
    };
    ws.note(&format!("{}: {step}{done}", agent.title()));
    Ok(())
}
