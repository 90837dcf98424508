//! `check`: a range of commits (by default the current run's) judged from scratch through
//! the same steps as the hooks, nothing written.

use anyhow::Result;

use crate::cli::CheckArgs;
use crate::error::InputError;
use crate::iteration::CommitId;
use crate::run::judge;

use super::progress::Progress;
use super::verdict::show;
use super::{Ctx, Workspace};

/// Commits read between two moves of the progress bar.
const PROGRESS_CHUNK: usize = 512;

pub(super) fn check(ctx: &Ctx, args: CheckArgs) -> Result<u8> {
    let mut ws = Workspace::open(ctx, args.config.as_deref())?;
    if let Some(windows) = args.windows {
        return check_windows(&ws, windows as usize, args.size as usize, args.json);
    }
    let run = ws.read_run().ok().flatten();
    let ids = match &args.range {
        Some(range) => ws.repo.rev_range_line(range)?,
        None => default_range(&ws, run.as_ref())?,
    };
    let mut progress = Progress::new(&ctx.settings, args.json);
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
            ws.ctx.ui.warn_hint(
                &format!(
                    "the commit before the range ({}) is not in this clone: the workflows that run loopguard there are not known, so only rules.constraint.protected{also} is protected",
                    base.short()
                ),
                "`git fetch --unshallow`",
            );
        }
    }
    let j = judge(&ws.config, history, "check", ws.now());
    show(&ws.config, &j, args.json)
}

/// The run's commits: from where the run started to HEAD, or the branch's own commits
/// when there is no run.
fn default_range(ws: &Workspace<'_>, run: Option<&crate::run::Run>) -> Result<Vec<CommitId>> {
    let Some(head) = &ws.head.id else {
        return Err(InputError::NoCommits {
            what: "the current branch",
            hint: "pass --range",
        }
        .into());
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

/// `check --windows N`: what the config would have done on the newest `windows` windows of
/// `size` commits before HEAD; exit 1 when one trips.
fn check_windows(ws: &Workspace<'_>, windows: usize, size: usize, json: bool) -> Result<u8> {
    let Some(head) = &ws.head.id else {
        return Err(InputError::NoCommits {
            what: "the current branch",
            hint: "commit first",
        }
        .into());
    };
    let Some(p) = super::preview::of(ws, &ws.config, head, windows, size)? else {
        return Err(InputError::TooLittleHistory { size }.into());
    };
    if json {
        super::print_json(&crate::documents::PreviewDocument::of(&p))?;
    } else {
        super::print(&crate::preview::text(&p, &ws.config.profile.to_string()))?;
    }
    Ok(if p.trips.is_empty() {
        crate::error::exit::OK
    } else {
        crate::error::exit::TRIPPED
    })
}
