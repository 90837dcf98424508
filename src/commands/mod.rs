//! The shell: one function per command. Data goes to stdout, messages to stderr.
#![allow(clippy::print_stderr)]

mod aftermath;
mod check;
mod ci;
mod dashboard;
mod evidence;
mod guard;
mod harness;
mod hook;
mod init;
pub mod progress;
mod state;
mod workspace;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use sha2::{Digest, Sha256};

use crate::cli::{Cli, Command};
use crate::env::Env;
use crate::error::exit;

pub use evidence::fingerprint_files;
pub use workspace::Workspace;

/// What every command runs with: the environment read at start-up, the directory it works
/// in, and where its messages go.
pub struct Ctx {
    pub env: Env,
    pub dir: PathBuf,
    pub ui: Ui,
}

impl Ctx {
    pub fn new(env: Env, dir: Option<PathBuf>) -> Ctx {
        let dir = match dir {
            Some(d) if d.is_absolute() => d,
            Some(d) => env.cwd.join(d),
            None => env.cwd.clone(),
        };
        let ui = Ui { color: env.color() };
        Ctx { env, dir, ui }
    }
}

/// Runs a parsed command line; the exit code follows the contract.
pub fn run(cli: Cli, env: Env) -> Result<u8> {
    let ctx = Ctx::new(env, cli.dir);
    match cli.command {
        Command::Init(a) => init::init(&ctx, a),
        Command::Uninstall => init::uninstall(&ctx),
        Command::Hook(a) => Ok(hook::hook(&ctx, a)),
        Command::Status(a) => state::status(&ctx, a),
        Command::Report(a) => state::report(&ctx, &a),
        Command::Resume => state::resume(&ctx),
        Command::Reset(a) => state::reset(&ctx, a),
        Command::Check(a) => check::check(&ctx, a),
        Command::Ci(a) => ci::ci(&ctx, a),
        Command::Dashboard(a) => dashboard::dashboard(&ctx, a),
        Command::Replay(a) => check::replay(&ctx, a),
        Command::Completions(a) => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            let mut out = io::stdout().lock();
            clap_complete::generate(a.shell, &mut cmd, "loopguard", &mut out);
            Ok(exit::OK)
        }
        Command::Man(a) => {
            use clap::CommandFactory;
            match a.dir {
                Some(dir) => {
                    std::fs::create_dir_all(&dir)?;
                    clap_mangen::generate_to(Cli::command(), &dir)?;
                }
                None => clap_mangen::Man::new(Cli::command()).render(&mut io::stdout().lock())?,
            }
            Ok(exit::OK)
        }
        Command::Fingerprint(a) => evidence::fingerprint(&ctx, a),
        Command::Run(a) => evidence::run(&ctx, a),
        Command::Ingest(a) => evidence::ingest(&ctx, a),
        Command::Event(a) => harness::event(&ctx, a),
        Command::Finish(a) => harness::finish(&ctx, a),
    }
}

/// Writes data to stdout.
pub fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Writes a JSON document to stdout, one line; the characters a terminal would act on are
/// escaped even where JSON allows them raw (`sanitize::json_for_terminal`).
pub fn print_json(doc: &serde_json::Value) -> io::Result<()> {
    print(&crate::sanitize::json_for_terminal(&doc.to_string()))
}

/// Where messages go: stderr, in colour on a terminal unless `NO_COLOR`. Every message
/// goes through `sanitize::terminal` (controls shown, no line a workflow command), so
/// text from outside that reaches one — a name, a commit subject, a value quoted in an
/// error — is shown, never obeyed; loopguard's own colour is added after.
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    color: bool,
}

impl Ui {
    /// `loopguard: warning: ...` on stderr.
    pub fn warn(&self, message: &str) {
        let label = if self.color {
            "\x1b[33mwarning\x1b[0m"
        } else {
            "warning"
        };
        eprintln!("loopguard: {label}: {}", crate::sanitize::terminal(message));
    }

    /// A message on stderr.
    pub fn note(&self, message: &str) {
        eprintln!("{}", crate::sanitize::terminal(message));
    }

    /// A message on stderr whose first `marked` is emphasised in bold red.
    pub fn note_marked(&self, message: &str, marked: &str) {
        let safe = crate::sanitize::terminal(message);
        eprintln!("{}", safe.replacen(marked, &self.bold_red(marked), 1));
    }

    /// `loopguard: error: ...` on stderr (what `main` prints for a failed command).
    pub fn error(message: &str) {
        eprintln!("loopguard: error: {}", crate::sanitize::terminal(message));
    }

    /// Emphasis for stderr.
    pub fn bold_red(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[1;31m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
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

/// Prints text that may quote logs or commit messages to stdout, where none of its lines
/// can act as a workflow command (`in_actions`: fenced as GitHub Actions wants).
pub fn print_untrusted(text: &str, in_actions: bool) -> Result<()> {
    let mut out = io::stdout().lock();
    crate::github::actions_io::write_untrusted(&mut out, text, in_actions)?;
    out.flush()?;
    Ok(())
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
