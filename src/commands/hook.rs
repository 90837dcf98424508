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
use crate::report::{NearWarning, text};
use crate::run::Run;
use crate::store::{Durability, Peeked, Store, branch_key_bytes};

use super::guard::{Guard, Refusal, Target};
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
    // A gate is a hook whose exit 1 refuses: pre-commit, pre-push, and
    // reference-transaction in its `prepared` phase.
    let gate = match args.name {
        HookName::PreCommit | HookName::PrePush => true,
        HookName::ReferenceTransaction => {
            args.args.first().and_then(|a| a.to_str()) == Some("prepared")
        }
        HookName::PostCommit | HookName::PostRewrite => false,
    };
    give_up_on_panic(ctx, name, gate);
    if let Some(limit) = ctx.settings.hook_timeout {
        deadline(ctx, name, gate, limit);
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
        Err(e) if unreadable_refs(&e) => unreadable(ctx, args.name, gate, &e),
        Err(e) => gave_up(
            ctx.ui,
            &ctx.dir,
            gate,
            &e.context(format!("the {name} hook could not run")),
        ),
    }
}

/// What a hook that could not finish its work (`err` says why) exits with. loopguard
/// breaking never fails git: a hook goes on (exit 0) and says why. Except a gate while
/// some breaker may be open (an open marker, or a store that cannot be listed): a gate
/// that cannot judge then refuses, so that nothing an agent can do to a hook (slow it past
/// its deadline, hold the store's lock, make a file unreadable) lets a known open breaker
/// through.
fn gave_up(ui: Ui, dir: &Path, gate: bool, err: &anyhow::Error) -> u8 {
    if gate && may_be_open(dir) {
        let shown = crate::error::render(err);
        ui.note_marked(
            &format!(
                "loopguard: refused: {}, and a breaker may be open\nhint: `loopguard status` says which; a person lets the agent go on with `loopguard resume` or `loopguard reset`",
                shown.message
            ),
            "refused",
        );
        return exit::TRIPPED;
    }
    ui.warn_error(err, "; git goes on (fail open)");
    exit::OK
}

/// Whether `err` says the repository keeps its refs where loopguard cannot read them.
fn unreadable_refs(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        matches!(
            e.downcast_ref(),
            Some(crate::error::GitError::RefFormat { .. })
        )
    })
}

/// A repository loopguard cannot read (its refs moved to reftable after `init`): nothing
/// can be judged, so no gate lets anything through — a gate refuses, whether a breaker is
/// open or not — and every hook makes sure the gates run from now on: the marker the shims
/// look at ([`crate::store::UNREADABLE`]) and `reference-transaction` armed. post-commit
/// says what came past, post-rewrite what it could not record; the other phases of
/// `reference-transaction` say nothing.
fn unreadable(ctx: &Ctx, hook: HookName, gate: bool, err: &anyhow::Error) -> u8 {
    if let Ok(repo) = Repo::discover_with_env(&ctx.dir) {
        let store = Store::new(repo.common_dir(), ctx.settings.clock);
        let chained = crate::hooks::chained_dir(store.dir());
        let armed =
            crate::hooks::arm_reference_transaction(&repo.hooks_dir(), &chained, true, true)
                .map_err(anyhow::Error::from);
        let marked = store
            .lock(GATE_LOCK_WAIT)
            .map_err(anyhow::Error::from)
            .and_then(|locked| Ok(locked.mark_unreadable(true)?));
        if let Some(e) = armed.err().or(marked.err()) {
            ctx.ui
                .warn(&format!("cannot make every gate run from now on: {e}"));
        }
    }
    let shown = crate::error::render(err);
    if gate {
        ctx.ui
            .note_marked(&format!("loopguard: refused: {shown}"), "refused");
        return exit::TRIPPED;
    }
    let past = match hook {
        HookName::PostRewrite => "the commits rewritten here are not recorded",
        _ => "this commit came past the gates (--no-verify) and is not recorded",
    };
    if hook != HookName::ReferenceTransaction {
        ctx.ui.warn(&format!(
            "{}: {past}; every gate refuses from now on\nhint: {}",
            shown.message,
            shown.hint.unwrap_or_default()
        ));
    }
    exit::OK
}

/// The repository can be read again (its refs moved back to files): the marker an
/// unreadable one left goes, and `reference-transaction` is disarmed when no breaker may
/// be open.
fn readable_again(ws: &Workspace<'_>) {
    // One stat on every commit; the lock only when there is something to take away.
    if fs_there(&ws.store.open_marker(crate::store::UNREADABLE))
        && let Ok(locked) = ws.store.lock(GATE_LOCK_WAIT)
        && locked.mark_unreadable(false).unwrap_or(false)
        && locked.open_keys().is_ok_and(|k| k.is_empty())
    {
        let _ = ws.arm_reference_transaction(false);
    }
}

/// Every other worktree whose hooks are off, said on every commit (post-commit, which the
/// shim always starts; pre-commit it may skip) and push here: the commits and pushes made
/// there pass no gate (a person turns them back on; `loopguard status` says the same).
fn say_unguarded_elsewhere(ws: &Workspace<'_>) {
    let place = crate::guard_surface::Place::of(&ws.repo, &ws.ctx.settings);
    let none_open = ws.store.open_keys().is_ok_and(|k| k.is_empty());
    for n in crate::guard_surface::unguarded_elsewhere(&place, &ws.root, none_open) {
        ws.warn(&format!("not guarded: {n}"));
    }
}

fn fs_there(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Whether some run's breaker may be open in the repository at `dir`: an open marker, or
/// markers that cannot be listed.
fn may_be_open(dir: &Path) -> bool {
    let Ok(repo) = Repo::discover_with_env(dir) else {
        return false;
    };
    Store::new(repo.common_dir(), crate::settings::Clock::System)
        .open_keys()
        .map_or(true, |keys| !keys.is_empty())
}

/// A panic in a hook is loopguard breaking: [`gave_up`], not git's business (the release
/// build aborts on panic, and the shim hands the exit status straight to git).
fn give_up_on_panic(ctx: &Ctx, name: &'static str, gate: bool) {
    let (ui, dir) = (ctx.ui, ctx.dir.clone());
    std::panic::set_hook(Box::new(move |info| {
        let err = anyhow::anyhow!("the {name} hook failed ({info})");
        std::process::exit(i32::from(gave_up(ui, &dir, gate, &err)));
    }));
}

/// Ends the process once `limit` has passed ([`gave_up`]): a hook that hangs (a lock never
/// released, a file that never ends) must not hold git. Writes are atomic renames behind a
/// journal, so stopping at any point leaves the store readable (the next writer finishes
/// the change).
fn deadline(ctx: &Ctx, name: &'static str, gate: bool, limit: Duration) {
    let (ui, dir) = (ctx.ui, ctx.dir.clone());
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        let err = anyhow::anyhow!(
            "the {name} hook took longer than {}s (LOOPGUARD_HOOK_TIMEOUT)",
            limit.as_secs()
        );
        std::process::exit(i32::from(gave_up(ui, &dir, gate, &err)));
    });
}

/// Whether git is in the middle of a rebase (its commits are rewrites, mapped by
/// post-rewrite when it ends).
fn rebasing(git_dir: &Path) -> bool {
    // Only git's own state of a rebase in progress: `GIT_REFLOG_ACTION` (and the reflog
    // message it writes) is anyone's to set, and would keep every commit from being
    // recorded.
    git_dir.join("rebase-merge").is_dir() || git_dir.join("rebase-apply").is_dir()
}

fn post_commit(ctx: &Ctx) -> Result<()> {
    let ws = Workspace::open(ctx, None)?;
    readable_again(&ws);
    say_unguarded_elsewhere(&ws);
    let Some(head) = ws.head.id.clone() else {
        return Ok(());
    };
    let reflog = ws.repo.reflog_head_last().ok().flatten();
    let message = reflog.as_ref().map_or("", |r| r.message.as_str());
    let action = ctx.settings.reflog_action.as_deref().unwrap_or_default();
    if rebasing(ws.repo.git_dir()) {
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
    // What guards the repository, changed since the last hook read it (not by loopguard):
    // put back, and pinned to this commit, the first to arrive after it.
    let guard_changed = super::session::guard_changed(&ws).map(|told| {
        format!(
            "before the commit {}, what guards this repository was changed (not by loopguard): {told}",
            head.short()
        )
    });
    // The commits it records are git's: after a crash of the machine the next hook
    // catches them up again (a change with events goes through the journal, synced).
    let mut recorded_before = 0;
    let (events, run) = ws.with_run(now, Durability::Derivable, |run, store| {
        ws.restart_if_finished(store, run, now)?;
        recorded_before = run.recorded();
        let mut it = ws.repo.iteration(&head)?;
        if cherry_pick && ws.moves_recorded_work(run, &it) {
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
                // Commits made with the hooks off since the last recorded one, all of them
                // (none before where the run starts: a branch whose run starts at this
                // commit, one another branch's run recorded, missed nothing).
                if !run.knows(&it.id) {
                    let parent = it.parents.as_ref().and_then(|p| p.first().cloned());
                    events.extend(ws.record_missed(run, parent, now)?);
                    // (The catch-up said which of those came past the gates.)
                    recorded_before = run.recorded();
                }
                // The tests a coding agent's session on this branch ran since the run
                // started are this commit's evidence from before it was made, unless an
                // attempt before it holds that run already.
                if let Some(branch) = ws.head.branch.as_deref()
                    && let Some(test) =
                        super::session::latest_test_since(&ws, branch, run.started_at)
                    && !run
                        .iterations()
                        .iter()
                        .any(|i| i.test_runs().any(|t| *t == test))
                {
                    it.superseded_tests.push(test);
                }
                events.extend(run.record_local(&ws.config, it, now).events);
            }
        }
        if let Some(why) = guard_changed.clone() {
            events.extend(run.tampered(&ws.config, why, now));
        }
        Ok(((events.clone(), run.clone()), events))
    })?;
    ws.mark_recorded(&run);
    ws.say_past_the_gates(&run, run.recorded() - recorded_before);
    // (Most commits change nothing but the run: no status to build, nothing to say.)
    // (The announcement carries the warnings one step before a trip; without events no
    // status is built, and the warnings are judged alone.)
    if events.is_empty() {
        warn_before_trip(&ws, run);
    } else {
        let s = ws.status(&run, &[]);
        aftermath::announce(&ws, &events, &s);
    }
    Ok(())
}

/// One commit before a rule would open the breaker, the agent reads what is repeating in
/// git's output (agents read it), while it can still get out by itself.
fn warn_before_trip(ws: &Workspace<'_>, mut run: Run) {
    if run.is_open() {
        return;
    }
    for near in run.near_trips(&ws.config) {
        ws.note(&NearWarning::in_run(&near, &ws.config, &run).line(crate::sanitize::printable));
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
    let (n, events, run) = ws.with_run(now, Durability::Synced, |run, _| {
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
    ws.mark_recorded(&run);
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

/// How long a gate waits for the store's lock before it judges without it (well within
/// the hook's deadline: a lock held for ever must not make the gate run out of time).
const GATE_LOCK_WAIT: Duration = Duration::from_secs(2);

fn pre_commit(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    readable_again(&ws);
    record_ignored_config(&ws);
    let shown = ws.head.branch.clone();
    // The commits made since the last one a hook recorded (hooks off, `--no-verify` with a
    // post-commit that never ran, a held lock) are caught up before the commit is judged.
    let (judged, recorded) = match caught_up(&ws)? {
        CaughtUp::Nothing(current) => {
            let recorded = match &current {
                BranchRun::Own(run) | BranchRun::Continues(run) | BranchRun::Fresh(run) => {
                    Some((**run).clone())
                }
                BranchRun::Unusable(_) => None,
            };
            let judged = blocking_of(
                &ws,
                current,
                ws.head.branch_name.as_deref(),
                ws.head.id.as_ref(),
            )?;
            (judged, recorded)
        }
        CaughtUp::Run { run, written } => {
            let recorded = written.then(|| (*run).clone());
            (blocking(&ws, *run)?, recorded)
        }
    };
    let code = match judged {
        Some((run, config)) => {
            let branch = shown.as_deref().unwrap_or("(detached HEAD)");
            refuse(&ws, &run, &config, branch, "the commit");
            exit::TRIPPED
        }
        None => exit::OK,
    };
    if code != exit::OK {
        return Ok(code);
    }
    if !ws.store.open_keys()?.is_empty() {
        // The commit about to be made, by what it builds on: HEAD's commit.
        let guard = Guard::load(&ws);
        let own = ws
            .head
            .branch_name
            .as_ref()
            .and_then(|_| guard.own(&ws.key));
        let target = Target { own, work: true };
        if let Some(refusal) = guard.judge_child(&ws.repo, ws.head.id.as_ref(), target)? {
            let what = format!(
                "the commit on {}",
                shown.as_deref().unwrap_or("detached HEAD")
            );
            refuse_for(&ws, &refusal, &what);
            return Ok(exit::TRIPPED);
        }
    }
    // HEAD as its stored run knows it: what the shim compares to skip the next pre-commit.
    if let Some(run) = recorded {
        ws.mark_recorded(&run);
    }
    Ok(exit::OK)
}

/// HEAD's run, read once for the gate: as stored when there is nothing to catch up,
/// else with the commits no hook recorded caught up.
enum CaughtUp {
    /// HEAD is a commit its run knows (or there is no HEAD): the run as read.
    Nothing(BranchRun),
    /// The run with the commits no hook recorded: `written` under the store's lock, or
    /// judged in memory only.
    Run { run: Box<Run>, written: bool },
}

/// HEAD's run with the commits no hook recorded caught up, when there are any: recorded
/// under the store's lock, or, when another holds the lock past [`GATE_LOCK_WAIT`],
/// judged in memory (nothing written: the next writer catches them up).
fn caught_up(ws: &Workspace<'_>) -> Result<CaughtUp> {
    let current = ws.current()?;
    let Some(head) = ws.head.id.clone() else {
        return Ok(CaughtUp::Nothing(current));
    };
    if let BranchRun::Own(run) | BranchRun::Continues(run) | BranchRun::Fresh(run) = &current
        && run.knows(&head)
    {
        return Ok(CaughtUp::Nothing(current));
    }
    let now = ws.now();
    let written = ws.with_run_within(now, GATE_LOCK_WAIT, Durability::Synced, |run, store| {
        ws.restart_if_finished(store, run, now)?;
        let events = if run.knows(&head) {
            Vec::new()
        } else {
            ws.record_missed(run, Some(head.clone()), now)?
        };
        Ok(((events.clone(), run.clone()), events))
    });
    match written {
        Ok(Some((events, run))) => {
            let s = ws.status(&run, &[]);
            aftermath::announce(ws, &events, &s);
            return Ok(CaughtUp::Run {
                run: Box::new(run),
                written: true,
            });
        }
        Ok(None) => ws.warn(&format!(
            "another loopguard holds {} for more than {}s: the commits no hook recorded are judged without recording them",
            ws.store.dir().join("lock").display(),
            GATE_LOCK_WAIT.as_secs()
        )),
        // A store that cannot be written (made read-only, full) records nothing, and must
        // not let what it would have recorded through.
        Err(e) => ws.warn(&format!(
            "{}: the commits no hook recorded are judged without recording them",
            crate::error::render(&e).message
        )),
    }
    let run = match current {
        BranchRun::Own(run) | BranchRun::Continues(run) | BranchRun::Fresh(run) => *run,
        BranchRun::Unusable(_) => ws.rebuild(now)?,
    };
    Ok(CaughtUp::Run {
        run: Box::new(ws.with_unrecorded(run)?.0),
        written: false,
    })
}

/// Tells the agent why `what` is refused: the run it would continue, its rule, reason
/// and ways out.
fn refuse_for(ws: &Workspace<'_>, refusal: &Refusal<'_>, what: &str) {
    let known = refusal.run();
    let branch = known.run.branch.as_deref().unwrap_or("(detached HEAD)");
    refuse(
        ws,
        &known.run,
        &known.config,
        branch,
        &refusal.explain(what),
    );
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
    if !recorded
        && let Err(e) = ws.with_run(ws.now(), Durability::Synced, |_, _| Ok(((), Vec::new())))
    {
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
    blocking_of(ws, ws.run_of_branch(name, tip)?, name, tip)
}

/// [`blocking_run`] of `found`, the run of branch `name` at `tip` as already read.
fn blocking_of(
    ws: &Workspace<'_>,
    found: BranchRun,
    name: Option<&[u8]>,
    tip: Option<&CommitId>,
) -> Result<Option<(Run, Config)>> {
    let run = match found {
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

/// [`blocking_run`] of a branch whose tip is there to stay (a push): with the commits up
/// to `tip` that no hook recorded judged in memory, as the next hook will record them — a
/// loop made where no post-commit records it (hooks off, a rebase that is not one) does
/// not leave by push.
fn blocking_run_caught_up(
    ws: &Workspace<'_>,
    name: &[u8],
    tip: Option<&CommitId>,
) -> Result<Option<(Run, Config)>> {
    let mut run = match ws.run_of_branch(Some(name), tip)? {
        BranchRun::Own(run) | BranchRun::Continues(run) => *run,
        BranchRun::Fresh(_) | BranchRun::Unusable(_) => {
            return blocking_run(ws, Some(name), tip);
        }
    };
    if let Some(tip) = tip
        && !run.knows(tip)
    {
        let (missed, _) = ws.unrecorded(&run, Some(tip.clone()))?;
        let config = ws.config_of(&run)?;
        missed.record(&config, &mut run, ws.now());
    }
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
    let head = format!("loopguard: the hook could not read which refs {what} ({why})");
    if refuse_while_open(ws, &head)? {
        return Ok(exit::TRIPPED);
    }
    ws.warn(&format!(
        "the hook could not read which refs {what} ({why}); no breaker is open, so git goes on"
    ));
    Ok(exit::OK)
}

/// A ref about to point at `new`, an object this repository does not have: refused (and
/// said) while a breaker blocks.
fn refuse_unseen(ws: &Workspace<'_>, new: &str, shown_ref: &str) -> Result<bool> {
    refuse_while_open(
        ws,
        &format!(
            "loopguard: {shown_ref} would point at {new}, which is not in this repository's objects (written to another object directory?): it cannot be judged"
        ),
    )
}

/// What cannot be judged (`head` says what) is refused while any breaker blocks: `head`,
/// then every blocking run's refusal. Whether it refused.
fn refuse_while_open(ws: &Workspace<'_>, head: &str) -> Result<bool> {
    let runs = blocking_runs(ws)?;
    if runs.is_empty() {
        return Ok(false);
    }
    ws.note(&format!("{head}, and a breaker is open: refused"));
    for (run, config) in &runs {
        let branch = run.branch.as_deref().unwrap_or("(detached HEAD)");
        refuse(ws, run, config, branch, "this");
    }
    Ok(true)
}

fn pre_push(ctx: &Ctx) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    say_unguarded_elsewhere(&ws);
    let input = match hook_input(ctx) {
        Input::Read(input) => input,
        Input::Lost(why) => return refuse_blind(&ws, &why, "are pushed"),
    };
    // `<local ref> <local sha> <remote ref> <remote sha>` per ref pushed: every commit
    // pushed is judged (pushes of `HEAD`, a sha, a tag, `v1:refs/heads/x`), and a branch
    // (its name's bytes, which need not be UTF-8) by its own run too.
    let pushed: Vec<Pushed<'_>> = fields(&input)
        .filter_map(|f| {
            let local_ref = *f.first()?;
            let local = object_id(f.get(1)?).filter(|id| !is_zero(id))?;
            let remote = f
                .get(3)
                .and_then(|r| object_id(r))
                .filter(|id| !is_zero(id))
                .and_then(|id| id.parse().ok());
            Some(Pushed {
                local_ref,
                local: local.parse().ok()?,
                remote,
            })
        })
        .collect();
    let mut branches: Vec<(Vec<u8>, Option<CommitId>)> = pushed
        .iter()
        .filter_map(|p| {
            let branch = p.local_ref.strip_prefix(b"refs/heads/")?;
            Some((branch.to_vec(), Some(p.local.clone())))
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
        if let Some((run, config)) = blocking_run_caught_up(&ws, b, tip.as_ref())? {
            refuse(&ws, &run, &config, &String::from_utf8_lossy(b), "the push");
            code = exit::TRIPPED;
        }
    }
    if branches.is_empty() && pushed.is_empty() && ws.head.detached {
        code = gate(&ws, None, ws.head.id.as_ref(), None, "the push")?;
    }
    // Every run is read, not only those with an open marker: a push is rare enough, and a
    // marker is a file anyone can delete.
    if code != exit::OK || pushed.is_empty() {
        return Ok(code);
    }
    // HEAD's branch as the next hook will record it: a loop made where no post-commit
    // recorded it leaves by no refspec (`HEAD`, a sha) either.
    let head_run = match caught_up(&ws)? {
        CaughtUp::Run { run, .. } => Some(*run),
        CaughtUp::Nothing(_) => None,
    };
    leaving(&ws, &pushed, head_run)
}

/// One line of pre-push's input: a ref pushed and what the remote has there.
struct Pushed<'i> {
    local_ref: &'i [u8],
    local: CommitId,
    remote: Option<CommitId>,
}

/// Every commit that leaves by push: none of a blocking run's (`head_run`: HEAD's, judged
/// with what no hook recorded), none built on them. What
/// the remote already has is what it said it has: the values of the refs pushed, from its
/// own advertisement (pre-push's `<remote sha>`). Remote-tracking refs are not asked: they
/// are this repository's refs, and anyone can point one at the stuck tip.
fn leaving(ws: &Workspace<'_>, pushed: &[Pushed<'_>], head_run: Option<Run>) -> Result<u8> {
    let mut guard = Guard::load(ws);
    if let Some(run) = head_run {
        guard.put(ws, ws.key.clone(), run);
    }
    let there: Vec<CommitId> = pushed
        .iter()
        .filter_map(|p| p.remote.clone())
        .filter(|id| ws.repo.resolve(id.as_str()).is_ok())
        .collect();
    let mut code = exit::OK;
    for p in pushed {
        let own = p
            .local_ref
            .strip_prefix(b"refs/heads/")
            .and_then(|b| guard.own(&branch_key_bytes(Some(b))));
        let work =
            !(p.local_ref.starts_with(b"refs/remotes/") || p.local_ref.starts_with(b"refs/notes/"));
        let target = Target { own, work };
        let refusal = match guard.leaves(&ws.repo, &p.local, &there)? {
            Some(r) => Some(r),
            None => guard.judge(&ws.repo, &p.local, target)?,
        };
        if let Some(refusal) = refusal {
            let what = format!(
                "the push of {} ({})",
                String::from_utf8_lossy(p.local_ref),
                p.local.short()
            );
            refuse_for(ws, &refusal, &what);
            code = exit::TRIPPED;
        }
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
    // (new value, ref name) of every ref that would point at an object.
    let updates: Vec<(&str, &[u8])> = fields(&input)
        .filter_map(|f| {
            let new = object_id(f.get(1)?).filter(|id| !is_zero(id))?;
            Some((new, *f.get(2)?))
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
    let guard = Guard::load(&ws);
    let mut code = exit::OK;
    let mut judged: Vec<(Option<Vec<u8>>, &str)> = Vec::new();
    for (new, name) in updates {
        // A branch, and `HEAD` while it is on one (git lists both for a commit there).
        let branch: Option<Vec<u8>> = match name.strip_prefix(b"refs/heads/") {
            Some(b) => Some(b.to_vec()),
            None if name == b"HEAD" => ws.head.branch_name.clone(),
            None => None,
        };
        let shown_ref = String::from_utf8_lossy(name).into_owned();
        if branch.is_some() || name == b"HEAD" {
            if judged.contains(&(branch.clone(), new)) {
                continue;
            }
            judged.push((branch.clone(), new));
        }
        if let Some(branch) = &branch {
            // A branch whose own run (or the open run it continues) blocks gains no
            // commit, whatever the commits are.
            let tip = match ws.repo.branch_tip(branch).ok().flatten() {
                Some(tip) => Some(tip),
                None => new.parse::<CommitId>().ok(),
            };
            if let Some((run, config)) = blocking_run(&ws, Some(branch), tip.as_ref())?
                && adds_commits(&ws, &run, branch, new)
            {
                let shown = String::from_utf8_lossy(branch);
                refuse(
                    &ws,
                    &run,
                    &config,
                    &shown,
                    "adding commits to it (a commit, merge, revert, cherry-pick or update-ref, with or without --no-verify)",
                );
                code = exit::TRIPPED;
                continue;
            }
        }
        // Whatever the ref: what the commits are. (A tag is judged by its commit; a ref
        // to a tree or a blob brings no commit.)
        let Ok(commit) = ws.repo.resolve(new) else {
            // An object this repository does not have (written to another object
            // directory, `GIT_OBJECT_DIRECTORY`) cannot be judged: refused while a breaker
            // blocks. A ref to a tree or a blob brings no commit.
            if !ws.repo.has_object(new) && refuse_unseen(&ws, new, &shown_ref)? {
                code = exit::TRIPPED;
            }
            continue;
        };
        let target = Target {
            own: branch
                .as_deref()
                .and_then(|b| guard.own(&branch_key_bytes(Some(b)))),
            work: branch.is_some() || name == b"HEAD",
        };
        if let Some(refusal) = guard.judge(&ws.repo, &commit, target)? {
            let what = format!("moving {shown_ref} to {}", commit.short());
            refuse_for(&ws, &refusal, &what);
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
