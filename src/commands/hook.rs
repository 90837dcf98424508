//! `hook <name>`: what the shims call. A hook never fails git because loopguard broke:
//! every error becomes a warning on stderr and exit 0, and so does running past the
//! deadline (`LOOPGUARD_HOOK_TIMEOUT`). Only an open breaker refuses (exit 1: pre-commit,
//! pre-push, and reference-transaction in its `prepared` phase), and every gate judges a
//! branch by [`Workspace::run_of_branch`]: its own run, or the open run it continues. Losing
//! git's input is not loopguard breaking: a push whose refs cannot be read is refused while
//! any branch's breaker blocks.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::cli::{HookArgs, HookName};
use crate::config::Config;
use crate::error::{HookError, exit};
use crate::git::Repo;
use crate::iteration::{CommitId, IterationKind};
use crate::report::text;
use crate::run::Run;
use crate::store::{Peeked, Store};

use super::workspace::{BranchRun, status_of};
use super::{Ctx, Ui, Workspace, aftermath};

pub(super) fn hook(ctx: &Ctx, args: HookArgs) -> u8 {
    let name = match args.name {
        HookName::PostCommit => "post-commit",
        HookName::PostRewrite => "post-rewrite",
        HookName::PreCommit => "pre-commit",
        HookName::PrePush => "pre-push",
        HookName::ReferenceTransaction => "reference-transaction",
    };
    if let Some(limit) = ctx.settings.hook_timeout {
        deadline(ctx.ui, name, limit);
    }
    let result = match args.name {
        HookName::PostCommit => post_commit(ctx).map(|()| exit::OK),
        HookName::PostRewrite => post_rewrite(ctx, &args.args).map(|()| exit::OK),
        HookName::PreCommit => pre_commit(ctx),
        HookName::PrePush => pre_push(ctx),
        HookName::ReferenceTransaction => reference_transaction(ctx, &args.args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let e = e.context(format!("the {name} hook could not run"));
            ctx.ui.warn_error(&e, "; git goes on (fail open)");
            exit::OK
        }
    }
}

/// Ends the process with exit 0 and a warning once `limit` has passed: a hook that hangs
/// (a lock never released, a file that never ends) must not hold git. Writes are atomic
/// renames behind a journal, so stopping at any point leaves the store readable (the next
/// writer finishes the change).
fn deadline(ui: Ui, name: &'static str, limit: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        ui.warn(&format!(
            "the {name} hook took longer than {}s (LOOPGUARD_HOOK_TIMEOUT); git goes on (fail open)",
            limit.as_secs()
        ));
        std::process::exit(i32::from(exit::OK));
    });
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
    let action = ctx.settings.reflog_action.as_deref().unwrap_or_default();
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
        // iteration; committing exactly that tree is the same attempt, now a commit.
        let tested = run.tested_as(&it);
        match (amended.filter(|old| run.position(old).is_some()), tested) {
            (Some(old), _) => {
                events.extend(run.rewrite(&ws.config, vec![(old, it)], now).1.events);
            }
            (None, Some(tested)) => {
                events.extend(run.commit_tested(&ws.config, tested, it, now).events);
            }
            (None, None) => {
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
    aftermath::announce(&ws, &events, &s);
    warn_before_trip(&ws, run, &events);
    Ok(())
}

/// One commit before a rule would open the breaker, the agent reads what is repeating in
/// git's output (agents read it), while it can still get out by itself.
fn warn_before_trip(ws: &Workspace<'_>, mut run: Run, events: &[crate::breaker::Event]) {
    if run.is_open() || events.iter().any(|e| e.kind.opens()) {
        return;
    }
    for near in run.near_trips(&ws.config) {
        ws.note(&format!(
            "loopguard: warning ({}): {}; the next such attempt opens the breaker and refuses commits — change approach, or ask the user",
            near.rule,
            crate::sanitize::printable(&near.reason)
        ));
    }
}

/// What git wrote on the hook's stdin, as bytes (ref names need not be UTF-8).
enum Input {
    Read(Vec<u8>),
    /// The input could not be read (the shim says so, or reading failed): why.
    Lost(String),
}

/// Reads git's input; nothing when stdin is a terminal (a person running the hook by hand)
/// so the hook never waits for input.
fn hook_input(ctx: &Ctx) -> Input {
    if ctx.settings.hook_input_lost {
        return Input::Lost("the hook shim could not read it".to_owned());
    }
    let mut input = Vec::new();
    if !ctx.settings.stdin_tty
        && let Err(e) = std::io::stdin().read_to_end(&mut input)
    {
        return Input::Lost(e.to_string());
    }
    Input::Read(input)
}

/// The lines of git's input, each split at spaces (ref names have none).
fn fields(input: &[u8]) -> impl Iterator<Item = Vec<&[u8]>> {
    input
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty())
        .map(|l| l.split(|&b| b == b' ').filter(|f| !f.is_empty()).collect())
}

/// An object id as git writes it; `None` for anything else (`ref:<target>` of a symbolic
/// ref).
fn object_id(field: &[u8]) -> Option<&str> {
    let hex = std::str::from_utf8(field).ok()?;
    (matches!(hex.len(), 40 | 64) && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hex)
}

fn is_zero(id: &str) -> bool {
    id.bytes().all(|b| b == b'0')
}

fn post_rewrite(ctx: &Ctx, args: &[OsString]) -> Result<()> {
    let ws = Workspace::open(ctx, None)?;
    let input = match hook_input(ctx) {
        Input::Read(input) => input,
        Input::Lost(why) => {
            return Err(HookError::InputLost {
                what: "list of rewritten commits",
                why,
            }
            .into());
        }
    };
    let pairs: Vec<(CommitId, CommitId)> = fields(&input)
        .filter_map(|f| {
            let old = object_id(f.first()?)?.parse().ok()?;
            let new = object_id(f.get(1)?)?.parse().ok()?;
            Some((old, new))
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
    aftermath::announce(&ws, &events, &s);
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
/// continues) has an open breaker that blocks, judged by that run's config.
fn gate(
    ws: &Workspace<'_>,
    name: Option<&[u8]>,
    tip: Option<&CommitId>,
    shown: Option<&str>,
    what: &str,
) -> Result<u8> {
    let Some((run, config)) = blocking_run(ws, name, tip)? else {
        return Ok(exit::OK);
    };
    refuse(ws, &run, &config, shown.unwrap_or("(detached HEAD)"), what);
    Ok(exit::TRIPPED)
}

/// The run of branch `name` at `tip` ([`Workspace::run_of_branch`]: its own, or the one it
/// continues because it was started from a commit of an open run) and the config it is
/// judged by, when its breaker blocks now. A state that cannot be used is judged from git
/// history instead: an open breaker is still enforced.
fn blocking_run(
    ws: &Workspace<'_>,
    name: Option<&[u8]>,
    tip: Option<&CommitId>,
) -> Result<Option<(Run, Config)>> {
    let run = match ws.run_of_branch(name, tip)? {
        BranchRun::Own(run) | BranchRun::Continues(run) => *run,
        BranchRun::Fresh(_) => return Ok(None),
        BranchRun::Unusable(why) => {
            ws.warn(&format!(
                "{why}; until the next commit rebuilds the run, the breaker is judged from git history"
            ));
            ws.rebuild_branch(name, tip, ws.now())?
        }
    };
    blocking(ws, run)
}

/// `run` and its config, when its breaker blocks now.
fn blocking(ws: &Workspace<'_>, run: Run) -> Result<Option<(Run, Config)>> {
    let config = ws.config_of(&run)?;
    let breaker = run.effective_breaker(&config, ws.now());
    Ok(breaker
        .blocks(config.on_trip.action)
        .then_some((run, config)))
}

/// Tells the agent why: the rule, the reason, how to go on.
fn refuse(ws: &Workspace<'_>, run: &Run, config: &Config, branch: &str, what: &str) {
    let s = status_of(config, run, &[], ws.now());
    let msg = text::refusal(&s, branch, what);
    ws.ctx.ui.note_marked(&msg, "refused");
}

/// Every stored run whose breaker blocks now, found through the store's open markers (a
/// branch that continues an open run is blocked by that run, which has its marker).
fn blocking_runs(ws: &Workspace<'_>) -> Result<Vec<(Run, Config)>> {
    let mut runs = Vec::new();
    for key in ws.store.open_keys()? {
        match ws.store.peek_run(&key)? {
            Peeked::Found(run) => runs.extend(blocking(ws, *run)?),
            Peeked::Missing => {}
            Peeked::Unusable(why) => ws.warn(&format!("{why}: not judged")),
        }
    }
    Ok(runs)
}

/// Without git's input nobody can tell which refs move: refuse while any branch's breaker
/// blocks (the input is lost, loopguard did not break).
fn refuse_blind(ws: &Workspace<'_>, why: &str, what: &str) -> Result<u8> {
    let runs = blocking_runs(ws)?;
    if runs.is_empty() {
        ws.warn(&format!(
            "the hook could not read which refs {what} ({why}); no breaker is open, so git goes on"
        ));
        return Ok(exit::OK);
    }
    ws.note(&format!(
        "loopguard: the hook could not read which refs {what} ({why}), and a breaker is open: refused"
    ));
    for (run, config) in &runs {
        let branch = run.branch.as_deref().unwrap_or("(detached HEAD)");
        refuse(ws, run, config, branch, "this");
    }
    Ok(exit::TRIPPED)
}

fn pre_push(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let input = match hook_input(ctx) {
        Input::Read(input) => input,
        Input::Lost(why) => return refuse_blind(&ws, &why, "are pushed"),
    };
    // `<local ref> <local sha> <remote ref> <remote sha>` per ref pushed: the branch (its
    // name's bytes, which need not be UTF-8) and the commit pushed, which decides the run
    // a branch with none of its own continues.
    let mut branches: Vec<(Vec<u8>, Option<CommitId>)> = fields(&input)
        .filter_map(|f| {
            let local_ref = *f.first()?;
            let local_sha = object_id(f.get(1)?).filter(|id| !is_zero(id))?;
            let branch = local_ref.strip_prefix(b"refs/heads/")?;
            Some((branch.to_vec(), local_sha.parse().ok()))
        })
        .collect();
    if input.iter().all(u8::is_ascii_whitespace) {
        // The pre-commit framework passes the branch in its environment, not on stdin.
        let framework = ctx.settings.pre_commit_local_branch.as_deref().map(|b| {
            b.strip_prefix("refs/heads/")
                .unwrap_or(b)
                .as_bytes()
                .to_vec()
        });
        match framework {
            Some(b) => {
                let tip = ws.repo.branch_tip(&b).ok().flatten();
                branches.push((b, tip));
            }
            None => branches.extend(ws.head.branch_name.clone().map(|b| (b, ws.head.id.clone()))),
        }
    }
    branches.dedup();
    let mut code = exit::OK;
    for (b, tip) in &branches {
        let shown = String::from_utf8_lossy(b);
        if gate(&ws, Some(b), tip.as_ref(), Some(&shown), "the push")? == exit::TRIPPED {
            code = exit::TRIPPED;
        }
    }
    if branches.is_empty() && ws.head.detached {
        code = gate(&ws, None, ws.head.id.as_ref(), None, "the push")?;
    }
    Ok(code)
}

/// git runs `reference-transaction` for every ref update (commits, merges, reverts,
/// cherry-picks, `update-ref`, fetches, ...), `--no-verify` or not, with
/// `prepared|committed|aborted` and `<old> <new> <ref>` lines. In `prepared`, a non-zero
/// exit aborts the transaction: a branch whose breaker blocks (its own run's, or that of
/// the open run it continues) may move backwards or be deleted, never gain commits.
/// Everything else leaves at once, and without an open marker in the store nothing is
/// read beyond the repository's location: a branch that continues an open run has no
/// marker of its own, but the run it continues has one.
fn reference_transaction(ctx: &Ctx, args: &[OsString]) -> Result<u8> {
    if args.first().and_then(|a| a.to_str()) != Some("prepared") {
        return Ok(exit::OK);
    }
    let input = match hook_input(ctx) {
        Input::Read(input) => input,
        Input::Lost(why) => {
            let ws = Workspace::open(ctx, None)?;
            return refuse_blind(&ws, &why, "are updated");
        }
    };
    // (new commit, branch name) of every branch that would point at a commit.
    let updates: Vec<(&str, &[u8])> = fields(&input)
        .filter_map(|f| {
            let new = object_id(f.get(1)?).filter(|id| !is_zero(id))?;
            let branch = f.get(2)?.strip_prefix(b"refs/heads/")?;
            Some((new, branch))
        })
        .collect();
    if updates.is_empty() {
        return Ok(exit::OK);
    }
    let repo = Repo::discover_with_env(&ctx.dir)?;
    if Store::new(repo.common_dir(), ctx.settings.clock)
        .open_keys()?
        .is_empty()
    {
        return Ok(exit::OK);
    }
    let ws = Workspace::open(ctx, None)?;
    let mut code = exit::OK;
    for (new, branch) in updates {
        // The branch's run as it is before the update: found from its tip, or, for a
        // branch being made, from the commit it will point at.
        let tip = match ws.repo.branch_tip(branch).ok().flatten() {
            Some(tip) => Some(tip),
            None => new.parse::<CommitId>().ok(),
        };
        let Some((run, config)) = blocking_run(&ws, Some(branch), tip.as_ref())? else {
            continue;
        };
        if adds_commits(&ws, &run, branch, new) {
            let shown = String::from_utf8_lossy(branch);
            refuse(
                &ws,
                &run,
                &config,
                &shown,
                "adding commits to it (a commit, merge, revert, cherry-pick or update-ref, with or without --no-verify)",
            );
            code = exit::TRIPPED;
        }
    }
    Ok(code)
}

/// Whether moving `branch` to `new` adds commits to it: `new` is not the branch's tip nor
/// one of its ancestors. A branch that does not exist (deleted, made again, or made from
/// a commit of the open run it continues) is measured against the newest commit its run
/// recorded. When git cannot tell, it does (the breaker blocks: an unknown is not waved
/// through).
fn adds_commits(ws: &Workspace<'_>, run: &Run, branch: &[u8], new: &str) -> bool {
    let tip = ws.repo.branch_tip(branch).ok().flatten().or_else(|| {
        run.iterations()
            .iter()
            .rev()
            .map(|it| &it.id)
            .chain(run.start_commit.as_ref())
            .find_map(|id| ws.repo.resolve(id.as_str()).ok())
    });
    let Some(tip) = tip else {
        return true;
    };
    if tip.as_str() == new {
        return false;
    }
    ws.repo
        .rev_range(&format!("{tip}..{new}"))
        .map_or(true, |added| !added.is_empty())
}
