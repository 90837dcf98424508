//! The shell's commands, one module each (`init.rs` is `loopguard init`, …), and the steps
//! they share: [`Workspace`] (the repository, the config in force, the store, a branch's
//! run), `evidence` (test results fingerprinted and recorded), `aftermath` (what follows a
//! trip), `verdict` (a judged history shown), `prompt`, `progress` and `output` (data on
//! stdout, messages on stderr).

mod aftermath;
mod evidence;
mod guard;
mod output;
mod preview;
pub mod progress;
mod prompt;
mod session;
mod verdict;
mod workspace;

mod check;
mod ci;
mod completions;
mod dashboard;
mod event;
mod fingerprint;
mod finish;
mod hook;
mod ingest;
mod init;
mod man;
mod replay;
mod report;
mod reset;
mod resume;
mod run;
mod status;
mod uninstall;

use std::path::{Path, PathBuf};

use anyhow::Result;
use sha2::{Digest, Sha256};

use crate::cli::{Cli, Command};
use crate::settings::{Settings, SettingsError};

pub use evidence::fingerprint_files;
pub use output::{Ui, print, print_json, print_planned_writes, print_untrusted};
pub use workspace::Workspace;

/// What every command runs with: the settings read at start-up, the directory it works
/// in, and where its messages go.
pub struct Ctx {
    pub settings: Settings,
    pub dir: PathBuf,
    pub ui: Ui,
}

impl Ctx {
    pub fn new(settings: Settings, dir: Option<PathBuf>) -> Ctx {
        let dir = match dir {
            Some(d) if d.is_absolute() => d,
            Some(d) => settings.cwd.join(d),
            None => settings.cwd.clone(),
        };
        let ui = Ui::new(settings.color());
        Ctx { settings, dir, ui }
    }
}

/// Runs a parsed command line with the settings read at start-up; the exit code follows
/// the contract. A variable that did not parse (`problems`) is an error (exit 2), except in
/// a hook: there it is a warning and the default applies, because a hook that stopped at a
/// bad variable would let git go on past an open breaker.
pub fn run(cli: Cli, settings: Settings, problems: Vec<SettingsError>) -> Result<u8> {
    let ctx = Ctx::new(settings, cli.dir);
    if let Command::Hook(_) | Command::AgentHook(_) = &cli.command {
        for p in &problems {
            ctx.ui
                .warn_hint(&format!("{p}; the default applies"), p.hint());
        }
    } else if let Some(first) = problems.into_iter().next() {
        return Err(first.into());
    }
    if let Some(name) = relaxes(&cli.command) {
        let common = crate::git::Repo::discover_with_env(&ctx.dir)
            .ok()
            .map(|r| r.common_dir().to_owned());
        session::refuse_inside_agent(&ctx.settings, common.as_deref(), name)?;
    }
    for knob in &ctx.settings.ignored_knobs {
        ctx.ui.warn(&format!(
            "{knob} is a test knob, not honoured here (a hook, a GitHub Actions job, a release build)"
        ));
    }
    match cli.command {
        Command::Init(a) => init::init(&ctx, a),
        Command::Uninstall(a) => uninstall::uninstall(&ctx, &a),
        Command::AgentHook(a) => Ok(session::agent_hook(&ctx, a)),
        Command::Hook(a) => Ok(hook::hook(&ctx, a)),
        Command::Status(a) => status::status(&ctx, a),
        Command::Report(a) => report::report(&ctx, &a),
        Command::Resume(a) => match &a.session {
            Some(id) => session::resume_or_reset(&ctx, id, false),
            None => resume::resume(&ctx),
        },
        Command::Reset(a) => reset::reset(&ctx, a),
        Command::Check(a) => check::check(&ctx, a),
        Command::Ci(a) => ci::ci(&ctx, a),
        Command::Dashboard(a) => dashboard::dashboard(&ctx, a),
        Command::Replay(a) => replay::replay(&ctx, a),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => man::man(a),
        Command::Fingerprint(a) => fingerprint::fingerprint(&ctx, a),
        Command::Run(a) => run::run(&ctx, a),
        Command::Ingest(a) => ingest::ingest(&ctx, a),
        Command::Event(a) => event::event(&ctx, a),
        Command::Finish(a) => finish::finish(&ctx, a),
    }
}

/// The name of a command that relaxes a breaker (a person's act: refused inside a coding
/// agent, `session/inside.rs`).
fn relaxes(command: &Command) -> Option<&'static str> {
    match command {
        Command::Init(_) => Some("init"),
        Command::Uninstall(_) => Some("uninstall"),
        Command::Resume(_) => Some("resume"),
        Command::Reset(_) => Some("reset"),
        Command::Finish(_) => Some("finish"),
        Command::Event(a) if a.progress => Some("event --progress"),
        Command::Event(_)
        | Command::AgentHook(_)
        | Command::Hook(_)
        | Command::Status(_)
        | Command::Report(_)
        | Command::Check(_)
        | Command::Ci(_)
        | Command::Dashboard(_)
        | Command::Replay(_)
        | Command::Completions(_)
        | Command::Man(_)
        | Command::Fingerprint(_)
        | Command::Run(_)
        | Command::Ingest(_) => None,
    }
}

/// Workflow files larger than this are not read for `loopguard` (no real workflow is).
const MAX_WORKFLOW_BYTES: u64 = 1 << 20;

/// The workflows that run loopguard in the tree of `rev` (protected by `constraint`).
pub fn guarded_workflows_at(repo: &crate::git::Repo, rev: &str) -> Result<Vec<String>> {
    use crate::config::{WORKFLOWS_DIR, guarded_workflows};
    let files = repo.files_in(rev, WORKFLOWS_DIR, MAX_WORKFLOW_BYTES)?;
    Ok(guarded_workflows(files))
}

/// sha256 hex of some content (the trusted config).
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A path shown relative to `base` when inside it.
pub fn shown(path: &Path, base: &Path) -> PathBuf {
    path.strip_prefix(base)
        .map_or_else(|_| path.to_owned(), Path::to_owned)
}
