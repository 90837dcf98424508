//! `hook <name>`: what the shims call. A hook never fails git because loopguard broke:
//! every error becomes a warning on stderr and exit 0. Only an open breaker refuses
//! (exit 1, pre-commit and pre-push).

use std::io::Read;
use std::path::Path;

use anyhow::Result;

use crate::breaker::Event;
use crate::cli::{HookArgs, HookName};
use crate::error::exit;
use crate::iteration::{CommitId, Iteration, IterationKind};
use crate::report::{Status, text};
use crate::run::Run;
use crate::store::branch_key;

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
                for missed in missed_commits(&ws, run, &it)? {
                    events.extend(run.record(&ws.config, missed, now).events);
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

/// Commits on the branch since the last recorded iteration that no hook recorded (made
/// with hooks off, or before the shim was installed), oldest first. Follows first parents,
/// so a merge brings in the merge commit (context), not the other branch's commits.
fn missed_commits(ws: &Workspace<'_>, run: &Run, head: &Iteration) -> Result<Vec<Iteration>> {
    const LIMIT: usize = 50;
    let last = run
        .iterations()
        .last()
        .map(|it| it.id.clone())
        .or_else(|| run.start_commit.clone());
    let Some(last) = last else {
        return Ok(Vec::new());
    };
    if run.position(&head.id).is_some() {
        return Ok(Vec::new());
    }
    // Walk first parents cheaply; read evidence only once the chain is known to end at
    // the last recorded commit.
    let mut chain: Vec<CommitId> = Vec::new();
    let mut parent = head.parents.as_ref().and_then(|p| p.first().cloned());
    while let Some(id) = parent {
        if id == last {
            chain.reverse();
            let mut missed = ws.repo.iterations(&chain)?;
            for it in &mut missed {
                ws.classify_setup(run, it);
            }
            return Ok(missed);
        }
        if chain.len() == LIMIT || run.position(&id).is_some() {
            break;
        }
        parent = ws.repo.parents(&id)?.into_iter().next();
        chain.push(id);
    }
    // The last recorded commit is not a recent ancestor (a reset, a switch of history):
    // only HEAD is new.
    Ok(Vec::new())
}

/// Tells the agent on stderr what this change did to the breaker, then runs the
/// aftermath (reports, notifications).
pub(super) fn announce(ws: &Workspace<'_>, events: &[Event], s: &Status) {
    for line in text::announce(events, s) {
        if line.starts_with("loopguard: the breaker opened") {
            ws.ctx.ui.note_marked(&line, "the breaker opened");
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
    gate(&ws, &ws.key, ws.head.branch.as_deref(), "the commit")
}

/// Refuses (exit 1) when the run of `branch` has an open breaker that blocks.
fn gate(ws: &Workspace<'_>, key: &str, branch: Option<&str>, what: &str) -> Result<u8> {
    let Some(run) = ws.read_run_of(key)? else {
        return Ok(exit::OK);
    };
    let breaker = run.effective_breaker(&ws.config, ws.now());
    if !breaker.blocks(ws.config.on_trip.action) {
        return Ok(exit::OK);
    }
    let s = ws.status(&run, &[]);
    let msg = text::refusal(&s, branch.unwrap_or("(detached HEAD)"), what);
    ws.ctx.ui.note_marked(&msg, "refused");
    Ok(exit::TRIPPED)
}

fn pre_push(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let input = hook_input(ctx)?;
    // `<local ref> <local sha> <remote ref> <remote sha>` per ref pushed.
    let mut branches: Vec<String> = input
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let local_ref = parts.next()?;
            let local_sha = parts.next()?;
            let deleting = local_sha.bytes().all(|b| b == b'0');
            (!deleting)
                .then(|| local_ref.strip_prefix("refs/heads/").map(str::to_owned))
                .flatten()
        })
        .collect();
    if input.trim().is_empty() {
        // The pre-commit framework passes the branch in its environment, not on stdin.
        let framework = ctx
            .env
            .var("PRE_COMMIT_LOCAL_BRANCH")
            .map(|b| b.strip_prefix("refs/heads/").unwrap_or(b).to_owned());
        branches.extend(framework.or_else(|| ws.head.branch.clone()));
    }
    branches.dedup();
    let mut code = exit::OK;
    for b in &branches {
        if gate(&ws, &branch_key(Some(b)), Some(b), "the push")? == exit::TRIPPED {
            code = exit::TRIPPED;
        }
    }
    if branches.is_empty() && ws.head.detached {
        code = gate(&ws, &ws.key, None, "the push")?;
    }
    Ok(code)
}
