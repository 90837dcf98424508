//! `completions <shell>`: the shell's completion script, on stdout.

use std::io;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::exit;

pub(super) fn completions(args: CompletionsArgs) -> Result<u8> {
    let mut cmd = Cli::command();
    let mut out = io::stdout().lock();
    clap_complete::generate(args.shell, &mut cmd, "loopguard", &mut out);
    Ok(exit::OK)
}
