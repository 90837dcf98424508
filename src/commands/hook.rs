//! `hook <name>`: what the shims call. A hook never fails git because loopguard broke:
//! every error becomes a warning on stderr and exit 0, and so does running past the
//! deadline (`LOOPGUARD_HOOK_TIMEOUT`). Only an open breaker refuses (exit 1: pre-commit,
//! pre-push, and reference-transaction in its `prepared` phase). Losing git's input is not
//! loopguard breaking: a push whose refs cannot be read is refused while any branch's
//! breaker blocks.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::breaker::Event;
use crate::cli::{HookArgs, HookName};
use crate::error::exit;
use crate::git::Repo;
use crate::iteration::{CommitId, Iteration, IterationKind};
use crate::report::{Status, text};
use crate::run::Run;
use crate::store::{Store, branch_key_bytes};

use super::{Ctx, Ui, Workspace};

pub fn hook(ctx: &Ctx, args: HookArgs) -> u8 {
    let name = match args.name {
        HookName::PostCommit => "post-commit",
        HookName::PostRewrite => "post-rewrite",
        HookName::PreCommit => "pre-commit",
        HookName::PrePush => "pre-push",
        HookName::ReferenceTransaction => "reference-transaction",
    };
    if let Some(limit) = ctx.env.hook_timeout() {
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
            ctx.ui.warn(&format!(
                "the {name} hook could not run: {e:#}; git goes on (fail open)"
            ));
            exit::OK
        }
    }
}

/// Ends the process with exit 0 and a warning once `limit` has passed: a hook that hangs
/// (a lock never released, a file that never ends) must not hold git. Writes are atomic
/// renames, so stopping at any point leaves the store readable.
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

/// What git wrote on the hook's stdin, as bytes (ref names need not be UTF-8).
enum Input {
    Read(Vec<u8>),
    /// The input could not be read (the shim says so, or reading failed): why.
    Lost(String),
}

/// Reads git's input; nothing when stdin is a terminal (a person running the hook by hand)
/// so the hook never waits for input.
fn hook_input(ctx: &Ctx) -> Input {
    if ctx.env.var("LOOPGUARD_HOOK_INPUT") == Some("lost") {
        return Input::Lost("the hook shim could not read it".to_owned());
    }
    let mut input = Vec::new();
    if !ctx.env.stdin_tty
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
        Input::Lost(why) => anyhow::bail!("cannot read git's list of rewritten commits: {why}"),
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
    announce(&ws, &events, &s);
    Ok(())
}

fn pre_commit(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    gate(&ws, &ws.key, ws.head.branch.as_deref(), "the commit")
}

/// Refuses (exit 1) when the run of `branch` has an open breaker that blocks.
fn gate(ws: &Workspace<'_>, key: &str, branch: Option<&str>, what: &str) -> Result<u8> {
    let Some(run) = blocking_run(ws, key)? else {
        return Ok(exit::OK);
    };
    refuse(ws, &run, branch.unwrap_or("(detached HEAD)"), what);
    Ok(exit::TRIPPED)
}

/// The run stored under `key`, when its breaker blocks now.
fn blocking_run(ws: &Workspace<'_>, key: &str) -> Result<Option<Run>> {
    let Some(run) = ws.read_run_of(key)? else {
        return Ok(None);
    };
    let breaker = run.effective_breaker(&ws.config, ws.now());
    Ok(breaker.blocks(ws.config.on_trip.action).then_some(run))
}

/// Tells the agent why: the rule, the reason, how to go on.
fn refuse(ws: &Workspace<'_>, run: &Run, branch: &str, what: &str) {
    let s = ws.status(run, &[]);
    let msg = text::refusal(&s, branch, what);
    ws.note(&msg.replacen("refused", &ws.ctx.ui.bold_red("refused"), 1));
}

/// Every run whose breaker blocks now, found through the store's open markers.
fn blocking_runs(ws: &Workspace<'_>) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    for key in ws.store.open_keys()? {
        runs.extend(blocking_run(ws, &key)?);
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
    for run in &runs {
        let branch = run.branch.as_deref().unwrap_or("(detached HEAD)");
        refuse(ws, run, branch, "this");
    }
    Ok(exit::TRIPPED)
}

fn pre_push(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let input = match hook_input(ctx) {
        Input::Read(input) => input,
        Input::Lost(why) => return refuse_blind(&ws, &why, "are pushed"),
    };
    // `<local ref> <local sha> <remote ref> <remote sha>` per ref pushed. Ref names are
    // bytes: a branch whose name is not UTF-8 is looked up by its bytes.
    let mut branches: Vec<Vec<u8>> = fields(&input)
        .filter_map(|f| {
            let local_ref = *f.first()?;
            let deleting = object_id(f.get(1)?).is_none_or(is_zero);
            (!deleting)
                .then(|| local_ref.strip_prefix(b"refs/heads/").map(<[u8]>::to_vec))
                .flatten()
        })
        .collect();
    if input.iter().all(u8::is_ascii_whitespace) {
        // The pre-commit framework passes the branch in its environment, not on stdin.
        let framework = ctx
            .env
            .var("PRE_COMMIT_LOCAL_BRANCH")
            .map(|b| b.strip_prefix("refs/heads/").unwrap_or(b).to_owned());
        branches.extend(
            framework
                .or_else(|| ws.head.branch.clone())
                .map(String::into_bytes),
        );
    }
    branches.dedup();
    let mut code = exit::OK;
    for b in &branches {
        let shown = String::from_utf8_lossy(b);
        if gate(&ws, &branch_key_bytes(b), Some(&shown), "the push")? == exit::TRIPPED {
            code = exit::TRIPPED;
        }
    }
    if branches.is_empty() && ws.head.detached {
        code = gate(&ws, &ws.key, None, "the push")?;
    }
    Ok(code)
}

/// git runs `reference-transaction` for every ref update (commits, merges, reverts,
/// cherry-picks, `update-ref`, fetches, ...), `--no-verify` or not, with
/// `prepared|committed|aborted` and `<old> <new> <ref>` lines. In `prepared`, a non-zero
/// exit aborts the transaction: a branch whose breaker blocks may move backwards or be
/// deleted, never gain commits. Everything else leaves at once, and without an open
/// marker in the store nothing is read beyond the repository's location.
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
    if Store::new(repo.common_dir()).open_keys()?.is_empty() {
        return Ok(exit::OK);
    }
    let ws = Workspace::open(ctx, None)?;
    let mut code = exit::OK;
    for (new, branch) in updates {
        let Some(run) = blocking_run(&ws, &branch_key_bytes(branch))? else {
            continue;
        };
        if adds_commits(&ws, &run, branch, new) {
            let shown = String::from_utf8_lossy(branch);
            refuse(
                &ws,
                &run,
                &shown,
                "adding commits to it (a commit, merge, revert, cherry-pick or update-ref, with or without --no-verify)",
            );
            code = exit::TRIPPED;
        }
    }
    Ok(code)
}

/// Whether moving `branch` to `new` adds commits to it: `new` is not the branch's tip nor
/// one of its ancestors. A branch that does not exist (deleted, made again) is measured
/// against the newest commit its run recorded. When git cannot tell, it does (the breaker
/// blocks: an unknown is not waved through).
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
