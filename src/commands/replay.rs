//! `replay`: iteration records (a file, or stdin) judged from scratch through the same
//! steps as the hooks, nothing written.

use std::io::Read;

use anyhow::Result;

use crate::cli::ReplayArgs;
use crate::config::CONFIG_FILE;
use crate::error::InputError;
use crate::iteration::parse_record;
use crate::run::judge;

use super::progress::{Progress, Reading};
use super::verdict::show;
use super::{Ctx, Workspace};

pub(super) fn replay(ctx: &Ctx, args: ReplayArgs) -> Result<u8> {
    let config = match &args.config {
        Some(p) => crate::config_file::load_named(&ctx.dir.join(p))?,
        None => match Workspace::open(ctx, None) {
            Ok(ws) => ws.config,
            // Outside a repository: the file in this directory, or the defaults.
            Err(_) => crate::config_file::load(&ctx.dir.join(CONFIG_FILE))?,
        },
    };
    let name = args.file.display().to_string();
    let mut text = String::new();
    let mut progress = Progress::new(&ctx.settings, args.json);
    if name == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        let path = ctx.dir.join(&args.file);
        let cannot = |source| InputError::Unreadable {
            path: args.file.clone(),
            source,
        };
        let file = std::fs::File::open(&path).map_err(|source| {
            InputError::opening(
                args.file.clone(),
                source,
                "pass a file of iteration records (`report --json` keeps a run's), a Claude Code transcript or a Codex rollout, or `-` for standard input",
            )
        })?;
        let size = file.metadata().map_or(0, |m| m.len());
        progress.start_bytes(size, "reading records");
        Reading {
            inner: file,
            progress: &mut progress,
        }
        .read_to_string(&mut text)
        .map_err(cannot)?;
    }
    if let Some(harness) = crate::session::transcript::recognise(&text) {
        progress.finish();
        return super::session::replay_transcript(
            &config,
            harness,
            &text,
            &name,
            args.json,
            ctx.settings.now(),
        );
    }
    progress.start_bytes(text.len() as u64, "parsing records");
    let mut history = Vec::new();
    for (n, line) in text.lines().enumerate() {
        progress.add(line.len() as u64 + 1);
        if !line.trim().is_empty() {
            history.push(parse_record(line, &name, n + 1)?);
        }
    }
    progress.finish();
    let j = judge(&config, history, "replay", ctx.settings.now());
    show(&config, &j, args.json)
}
