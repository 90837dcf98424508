//! `man [--dir DIR]`: the man pages, on stdout (loopguard.1) or one per command in DIR.

use std::io;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::error::exit;

pub(super) fn man(args: ManArgs) -> Result<u8> {
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)?;
            clap_mangen::generate_to(Cli::command(), &dir)?;
        }
        None => clap_mangen::Man::new(Cli::command()).render(&mut io::stdout().lock())?,
    }
    Ok(exit::OK)
}
