//! `hook <name>`: what the shims call. A hook never fails git because loopguard broke:
//! every error becomes a warning on stderr and exit 0. Only an open breaker refuses
//! (exit 1, pre-commit and pre-push).

use std::io::Read;
use std::path::Path;

use anyhow::Result;

use crate::breaker::Event;
use crate::cli::{HookArgs, HookName};
use crate::error::exit;
use crate::iteration::{CommitId, IterationKind};
use crate::report::{Status, text};

use super::workspace::{BranchRun, status_of};
use super::{Ctx, Workspace};

pub fn hook(ctx: &Ctx, args: HookArgs) -> u8 {
    let name = match args.name {
        HookName::PostCommit => "post-commit",
        HookName::PostRewrite => "post-rewrite",
        HookName::PreCommit => "pre-commit",
        HookName::PrePush => "pre-push",
    };
    let result = match args.name {
        HookName::PostCommit => post_commit(ctx).map(|()| exit::OK),
        HookName::PostRewrite => post_rewrite(ctx, &args.args).map(|()| exit::OK),
        HookName::PreCommit => pre_commit(ctx),
        HookName::PrePush => pre_push(ctx),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            ctx.ui.warn(&format!(
                "the {name} hook could not run: {e:#}; git goes on (fail open)"
            ));
            exit::OK
        }
    }
}

/// Whether git is in the middle of a rebase (its commits are rewrites, mapped by
/// post-rewrite when it ends).
fn rebasing(git_dir: &Path, action: &str, reflog: &str) -> bool {
    action.starts_with("rebase")
        || reflog.starts_with("rebase")
        || git_dir.join("rebase-merge").is_dir()
        || git_dir.join("rebase-apply").is_dir()
}

fn post_commit(ctx: &Ctx) -> Result<()> {
    let ws = Workspace::open(ctx, None)?;
    let Some(head) = ws.head.id.clone() else {
        return Ok(());
    };
    let reflog = ws.repo.reflog_head_last().ok().flatten();
    let message = reflog.as_ref().map_or("", |r| r.message.as_str());
    let action = ctx.env.var("GIT_REFLOG_ACTION").unwrap_or_default();
    if rebasing(ws.repo.git_dir(), action, message) {
        return Ok(());
    }
    let amended = message
        .starts_with("commit (amend)")
        .then(|| reflog.as_ref().map(|r| r.old.clone()))
        .flatten();
    let cherry_pick = action.starts_with("cherry-pick")
        || message.starts_with("cherry-pick")
        || ws.repo.git_dir().join("CHERRY_PICK_HEAD").exists()
        || ws.repo.git_dir().join("sequencer").is_dir();

    let now = ws.now();
    let (events, run) = ws.with_run(now, |run| {
        ws.restart_if_finished(run, now)?;
        let mut it = ws.repo.iteration(&head)?;
        if cherry_pick {
            it.kind = Some(IterationKind::Rewrite);
        } else {
            ws.classify_setup(run, &mut it);
        }
        let mut events = Vec::new();
        // Tests run on uncommitted changes (`loopguard run`) were recorded as a working-tree
        // iteration; committing exactly that tree is the same attempt.
        let adopted = run
            .iterations()
            .last()
            .filter(|l| l.id.as_str().starts_with("worktree-") && l.tree == it.tree)
            .map(|l| l.id.clone());
        match amended
            .filter(|old| run.position(old).is_some())
            .or(adopted)
        {
            Some(old) => events.extend(run.rewrite(&ws.config, vec![(old, it)], now).1.events),
            None => {
                // Commits made with the hooks off since the last recorded one, all of them.
                if run.position(&it.id).is_none() {
                    let parent = it.parents.as_ref().and_then(|p| p.first().cloned());
                    for missed in ws.catch_up(run, parent)? {
                        events.extend(run.record(&ws.config, missed, now).events);
                    }
                }
                events.extend(run.record(&ws.config, it, now).events);
            }
        }
        Ok(((events.clone(), run.clone()), events))
    })?;
    let s = ws.status(&run, &[]);
    announce(&ws, &events, &s);
    Ok(())
}

/// Tells the agent on stderr what this change did to the breaker, then runs the
/// aftermath (reports, notifications).
pub(super) fn announce(ws: &Workspace<'_>, events: &[Event], s: &Status) {
    for line in text::announce(events, s) {
        if line.starts_with("loopguard: the breaker opened") {
            ws.note(&line.replacen(
                "the breaker opened",
                &ws.ctx.ui.bold_red("the breaker opened"),
                1,
            ));
        } else {
            ws.note(&line);
        }
    }
    super::aftermath::after(ws, events);
}

/// What git wrote on the hook's stdin; nothing when stdin is a terminal (a person running
/// the hook by hand) so the hook never waits for input.
fn hook_input(ctx: &Ctx) -> Result<String> {
    let mut input = String::new();
    if !ctx.env.stdin_tty {
        std::io::stdin().read_to_string(&mut input)?;
    }
    Ok(input)
}

fn post_rewrite(ctx: &Ctx, args: &[std::ffi::OsString]) -> Result<()> {
    let ws = Workspace::open(ctx, None)?;
    let input = hook_input(ctx)?;
    let pairs: Vec<(CommitId, CommitId)> = input
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
        })
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    let kind = args.first().map(|a| a.to_string_lossy().into_owned());
    let now = ws.now();
    let (n, events, run) = ws.with_run(now, |run| {
        let known: Vec<&(CommitId, CommitId)> = pairs
            .iter()
            .filter(|(old, new)| run.position(old).is_some() || run.position(new).is_some())
            .collect();
        let news: Vec<CommitId> = known.iter().map(|(_, new)| new.clone()).collect();
        let fresh = ws.repo.iterations(&news)?;
        let rewritten = known
            .iter()
            .map(|(old, _)| old.clone())
            .zip(fresh)
            .collect();
        let (n, outcome) = run.rewrite(&ws.config, rewritten, now);
        let events = outcome.events;
        Ok(((n, events.clone(), run.clone()), events))
    })?;
    if n > 0 {
        ws.note(&format!(
            "loopguard: {} rewrote {n} recorded iteration(s); rewrites are not new attempts",
            kind.as_deref().unwrap_or("a rewrite")
        ));
    }
    let s = ws.status(&run, &[]);
    announce(&ws, &events, &s);
    Ok(())
}

fn pre_commit(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    record_ignored_config(&ws);
    let shown = ws.head.branch.clone();
    gate(
        &ws,
        ws.head.branch_name.as_deref(),
        ws.head.id.as_ref(),
        shown.as_deref(),
        "the commit",
    )
}

/// An edit of the working-tree config that is ignored leaves its event even when no commit
/// gets through to record it (once per content; best effort).
fn record_ignored_config(ws: &Workspace<'_>) {
    let Some(ignored) = &ws.ignored else {
        return;
    };
    let recorded = ws
        .read_run()
        .ok()
        .flatten()
        .is_some_and(|r| r.ignored_config.as_deref() == Some(ignored.what.as_str()));
    if !recorded && let Err(e) = ws.with_run(ws.now(), |_| Ok(((), Vec::new()))) {
        ws.warn(&format!("cannot record the ignored config: {e:#}"));
    }
}

/// Refuses (exit 1) when the run of branch `name` at `tip` (its own, or the one it
/// continues) has an open breaker that blocks, judged by that run's config. A state that
/// cannot be used is judged from git history instead: an open breaker is still enforced.
fn gate(
    ws: &Workspace<'_>,
    name: Option<&[u8]>,
    tip: Option<&CommitId>,
    shown: Option<&str>,
    what: &str,
) -> Result<u8> {
    let run = match ws.run_of_branch(name, tip)? {
        BranchRun::Own(run) | BranchRun::Continues(run) => *run,
        BranchRun::Fresh(_) => return Ok(exit::OK),
        BranchRun::Unusable(why) => {
            ws.warn(&format!(
                "{why}; until the next commit rebuilds the run, the breaker is judged from git history"
            ));
            ws.rebuild_branch(name, tip, ws.now())?
        }
    };
    let config = ws.config_of(&run)?;
    let breaker = run.effective_breaker(&config, ws.now());
    if !breaker.blocks(config.on_trip.action) {
        return Ok(exit::OK);
    }
    let s = status_of(&config, &run, &[], ws.now());
    let msg = text::refusal(&s, shown.unwrap_or("(detached HEAD)"), what);
    ws.note(&msg.replacen("refused", &ws.ctx.ui.bold_red("refused"), 1));
    Ok(exit::TRIPPED)
}

fn pre_push(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let input = hook_input(ctx)?;
    // `<local ref> <local sha> <remote ref> <remote sha>` per ref pushed.
    let mut branches: Vec<(String, Option<CommitId>)> = input
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let local_ref = parts.next()?;
            let local_sha = parts.next()?;
            let deleting = local_sha.bytes().all(|b| b == b'0');
            (!deleting)
                .then(|| {
                    local_ref
                        .strip_prefix("refs/heads/")
                        .map(|b| (b.to_owned(), local_sha.parse().ok()))
                })
                .flatten()
        })
        .collect();
    if input.trim().is_empty() {
        // The pre-commit framework passes the branch in its environment, not on stdin.
        let framework = ctx
            .env
            .var("PRE_COMMIT_LOCAL_BRANCH")
            .map(|b| b.strip_prefix("refs/heads/").unwrap_or(b).to_owned());
        match framework {
            Some(b) => {
                let tip = ws.repo.resolve(&format!("refs/heads/{b}")).ok();
                branches.push((b, tip));
            }
            None => branches.extend(ws.head.branch.clone().map(|b| (b, ws.head.id.clone()))),
        }
    }
    branches.dedup();
    let mut code = exit::OK;
    for (b, tip) in &branches {
        if gate(&ws, Some(b.as_bytes()), tip.as_ref(), Some(b), "the push")? == exit::TRIPPED {
            code = exit::TRIPPED;
        }
    }
    if branches.is_empty() && ws.head.detached {
        code = gate(&ws, None, ws.head.id.as_ref(), None, "the push")?;
    }
    Ok(code)
}
