//! `check` (a range of commits) and `replay` (recorded iterations): judged from scratch
//! through the same steps as the hooks, nothing written.

use std::io::Read;

use anyhow::Result;

use crate::breaker::State;
use crate::cli::{CheckArgs, ReplayArgs};
use crate::config::{CONFIG_FILE, Config};
use crate::error::{Error, exit};
use crate::iteration::{CommitId, parse_record};
use crate::report::{Status, text};
use crate::run::{Judgement, judge};

use super::progress::{Progress, Reading};
use super::{Ctx, Workspace, print, print_json};

/// Commits read between two moves of the progress bar.
const PROGRESS_CHUNK: usize = 512;

pub(super) fn check(ctx: &Ctx, args: CheckArgs) -> Result<u8> {
    let mut ws = Workspace::open(ctx, args.config.as_deref())?;
    let run = ws.read_run().ok().flatten();
    let ids = match &args.range {
        Some(range) => ws.repo.rev_range_line(range)?,
        None => default_range(&ws, run.as_ref())?,
    };
    let mut progress = Progress::new(&ctx.env, args.json);
    let mut history = if progress.enabled() && ids.len() > PROGRESS_CHUNK {
        // In chunks, so a bar can move; each chunk is still read in parallel.
        progress.start(ids.len() as u64, "reading commits");
        let mut all = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(PROGRESS_CHUNK) {
            all.extend(ws.repo.iterations(chunk)?);
            progress.add(chunk.len() as u64);
        }
        progress.finish();
        all
    } else {
        ws.repo.iterations(&ids)?
    };
    // What the hooks know about these commits and git does not: their test evidence, the
    // setup commit, and what people did to the breaker after them.
    if let Some(run) = &run {
        for it in &mut history {
            ws.classify_setup(run, it);
            if let Some(i) = run.position(&it.id) {
                let recorded = &run.iterations()[i];
                it.test = recorded.test.clone();
                it.interventions = recorded.interventions.clone();
                if recorded.kind.is_some() {
                    it.kind = recorded.kind;
                }
            }
        }
    }
    // The workflows that run loopguard before the range are protected, as in CI.
    let base = history
        .first()
        .and_then(|it| it.parents.as_ref())
        .and_then(|p| p.first());
    if ws.config.rules.constraint.guard_workflows
        && let Some(base) = base
    {
        if ws.repo.resolve(base.as_str()).is_ok() {
            let guarded = super::guarded_workflows_at(&ws.repo, base.as_str())?;
            ws.config.rules.constraint.guard(guarded);
        } else {
            // What the workspace protected where the run's config came from still holds.
            let also = if ws.config.rules.constraint.guarded.is_empty() {
                ""
            } else {
                " and the workflows that ran loopguard where the run's config came from"
            };
            ws.warn(&format!(
                "the commit before the range ({}) is not in this clone: the workflows that run loopguard there are not known, so only rules.constraint.protected{also} is protected; hint: `git fetch --unshallow`",
                base.short()
            ));
        }
    }
    let j = judge(&ws.config, history, "check", ws.now());
    show(&ws.config, &j, args.json)
}

/// The run's commits: from where the run started to HEAD, or the branch's own commits
/// when there is no run.
fn default_range(ws: &Workspace<'_>, run: Option<&crate::run::Run>) -> Result<Vec<CommitId>> {
    let Some(head) = &ws.head.id else {
        return Err(
            Error::input("the current branch has no commits yet; hint: pass --range").into(),
        );
    };
    if let Some(start) = run.and_then(|r| r.start_commit.clone())
        && ws.repo.resolve(start.as_str()).is_ok()
    {
        return Ok(ws.repo.rev_range_line(&format!("{start}..{head}"))?);
    }
    let limit = ws.config.rules.budget.max_iterations as usize + 1;
    Ok(ws
        .repo
        .branch_commits(head, ws.head.branch.as_deref(), limit)?)
}

pub(super) fn replay(ctx: &Ctx, args: ReplayArgs) -> Result<u8> {
    let config = match &args.config {
        Some(p) => {
            let p = ctx.dir.join(p);
            if !p.exists() {
                return Err(Error::input(format!("{}: no such config file", p.display())).into());
            }
            crate::config_file::load(&p)?
        }
        None => match Workspace::open(ctx, None) {
            Ok(ws) => ws.config,
            // Outside a repository: the file in this directory, or the defaults.
            Err(_) => crate::config_file::load(&ctx.dir.join(CONFIG_FILE))?,
        },
    };
    let name = args.file.display().to_string();
    let mut text = String::new();
    let mut progress = Progress::new(&ctx.env, args.json);
    if name == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        let path = ctx.dir.join(&args.file);
        let cannot = |e: std::io::Error| {
            Error::input(format!("{name}: cannot read the iteration records: {e}"))
        };
        let file = std::fs::File::open(&path).map_err(cannot)?;
        let size = file.metadata().map_or(0, |m| m.len());
        progress.start_bytes(size, "reading records");
        Reading {
            inner: file,
            progress: &mut progress,
        }
        .read_to_string(&mut text)
        .map_err(cannot)?;
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
    let j = judge(&config, history, "replay", ctx.env.now());
    show(&config, &j, args.json)
}

fn show(config: &Config, j: &Judgement, json: bool) -> Result<u8> {
    let s = Status::of_judgement(config, j);
    if json {
        let mut doc = s.with_history(j.run.iterations()).to_json();
        // What the guard would have done along the way, not only where it ended.
        doc["events"] = serde_json::to_value(&j.events)?;
        print_json(&doc)?;
    } else {
        print(&text::verdict(&s))?;
    }
    Ok(if j.run.breaker().state() == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}
