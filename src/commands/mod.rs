//! The shell: one function per command. Data goes to stdout, messages to stderr.
#![allow(clippy::print_stderr)]

mod aftermath;
mod check;
mod ci;
mod evidence;
mod harness;
mod hook;
mod init;
mod state;
mod workspace;

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use sha2::{Digest, Sha256};

use crate::cli::{Cli, Command};
use crate::error::exit;

pub use evidence::fingerprint_files;
pub use workspace::{Workspace, now};

/// Runs a parsed command line; the exit code follows CONTRACT.md.
pub fn run(cli: Cli) -> Result<u8> {
    let dir = match &cli.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()?,
    };
    match cli.command {
        Command::Init(a) => init::init(&dir, a),
        Command::Uninstall => init::uninstall(&dir),
        Command::Hook(a) => Ok(hook::hook(&dir, a)),
        Command::Status(a) => state::status(&dir, a),
        Command::Report(a) => state::report(&dir, a.json),
        Command::Resume => state::resume(&dir),
        Command::Reset => state::reset(&dir),
        Command::Check(a) => check::check(&dir, a),
        Command::Ci(a) => ci::ci(&dir, a),
        Command::Replay(a) => check::replay(&dir, a),
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
        Command::Fingerprint(a) => evidence::fingerprint(a),
        Command::Run(a) => evidence::run(&dir, a),
        Command::Ingest(a) => evidence::ingest(&dir, a),
        Command::Event(a) => harness::event(&dir, a),
        Command::Finish(a) => harness::finish(&dir, a),
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

/// Writes a JSON document to stdout, one line.
pub fn print_json(doc: &serde_json::Value) -> io::Result<()> {
    print(&doc.to_string())
}

fn color() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stderr().is_terminal()
}

/// `loopguard: warning: ...` on stderr.
pub fn warn(message: &str) {
    let label = if color() {
        "\x1b[33mwarning\x1b[0m"
    } else {
        "warning"
    };
    eprintln!("loopguard: {label}: {message}");
}

/// A message on stderr.
pub fn note(message: &str) {
    eprintln!("{message}");
}

/// Emphasis for stderr when it is a terminal (and `NO_COLOR` is unset).
pub fn bold_red(text: &str) -> String {
    if color() {
        format!("\x1b[1;31m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// A git error, classified for the exit code: a bad revision is the user's input (2);
/// everything else is the environment (3).
pub fn git_err(e: crate::git::GitError) -> anyhow::Error {
    match e {
        crate::git::GitError::BadRevision { .. } => {
            crate::error::Error::input(e.to_string()).into()
        }
        _ => crate::error::Error::env(e.to_string()).into(),
    }
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
