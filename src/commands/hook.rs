//! `hook <name>`: what the shims call. A hook never fails git because loopguard broke:
//! every error becomes a warning on stderr and exit 0. Only an open breaker refuses
//! (exit 1, pre-commit and pre-push).

use std::io::Read;
use std::path::Path;

use anyhow::Result;
use jiff::Timestamp;

use crate::breaker::EventKind;
use crate::cli::{HookArgs, HookName};
use crate::config::{CONFIG_FILE, Config, TripAction};
use crate::error::{Error, exit};
use crate::iteration::{Iteration, IterationKind};
use crate::report::View;
use crate::run::{Outcome, Run};
use crate::store::branch_key;

use super::{Workspace, bold_red, git_err, note, now, warn};

pub fn hook(dir: &Path, args: HookArgs) -> u8 {
    let name = match args.name {
        HookName::PostCommit => "post-commit",
        HookName::PostRewrite => "post-rewrite",
        HookName::PreCommit => "pre-commit",
        HookName::PrePush => "pre-push",
    };
    let result = match args.name {
        HookName::PostCommit => post_commit(dir).map(|()| exit::OK),
        HookName::PostRewrite => post_rewrite(dir, &args.args).map(|()| exit::OK),
        HookName::PreCommit => pre_commit(dir),
        HookName::PrePush => pre_push(dir),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            warn(&format!(
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

fn post_commit(dir: &Path) -> Result<()> {
    let ws = Workspace::open(dir, None)?;
    let Some(head) = ws.head.id.clone() else {
        return Ok(());
    };
    let reflog = ws.repo.reflog_head_last().ok().flatten();
    let message = reflog.as_ref().map_or("", |r| r.message.as_str());
    let action = std::env::var("GIT_REFLOG_ACTION").unwrap_or_default();
    if rebasing(ws.repo.git_dir(), &action, message) {
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

    let now = now();
    let outcome = ws.with_run(now, |run| {
        let mut it = ws.repo.iteration(&head).map_err(git_err)?;
        if cherry_pick {
            it.kind = Some(IterationKind::Rewrite);
        } else if is_setup_commit(&ws, run, &it) {
            it.kind = Some(IterationKind::Context);
        }
        let mut events = Vec::new();
        // Tests run on uncommitted changes (`loopguard run`) were recorded as a working-tree
        // iteration; committing exactly that tree is the same attempt.
        let adopted = run
            .iterations
            .last()
            .filter(|l| l.id.starts_with("worktree-") && l.tree == it.tree)
            .map(|l| l.id.clone());
        let outcome = match amended
            .filter(|old| run.position(old).is_some())
            .or(adopted)
        {
            Some(old) => run.rewrite(&ws.config, vec![(old, it)], now).1,
            None => {
                for missed in missed_commits(&ws, run, &it)? {
                    events.extend(run.record(&ws.config, missed, now).events);
                }
                run.record(&ws.config, it, now)
            }
        };
        events.extend(outcome.events.iter().cloned());
        let outcome = Outcome { events, ..outcome };
        Ok((outcome.clone(), outcome.events))
    })?;
    announce(&ws, &outcome)?;
    Ok(())
}

/// Commits on the branch since the last recorded iteration that no hook recorded (made
/// with hooks off, or before the shim was installed), oldest first. Follows first parents,
/// so a merge brings in the merge commit (context), not the other branch's commits.
fn missed_commits(ws: &Workspace, run: &Run, head: &Iteration) -> Result<Vec<Iteration>> {
    const LIMIT: usize = 50;
    let last = run
        .iterations
        .last()
        .map(|it| it.id.clone())
        .or_else(|| run.start_commit.clone());
    let Some(last) = last else {
        return Ok(Vec::new());
    };
    let mut missed = Vec::new();
    let mut parent = head.parents.as_ref().and_then(|p| p.first().cloned());
    while let Some(id) = parent {
        if id == last {
            missed.reverse();
            return Ok(missed);
        }
        if missed.len() == LIMIT || run.position(&id).is_some() {
            break;
        }
        let it = ws.repo.iteration(&id).map_err(git_err)?;
        parent = it.parents.as_ref().and_then(|p| p.first().cloned());
        missed.push(it);
    }
    // The last recorded commit is not a recent ancestor (a reset, a switch of history):
    // only HEAD is new.
    Ok(Vec::new())
}

/// A commit that only adds or updates `.loopguard.yml` to exactly the content the run
/// started with is the maintainer setting the guard up, not an agent loosening it.
fn is_setup_commit(ws: &Workspace, run: &Run, it: &Iteration) -> bool {
    let Some(trusted) = &run.trusted_config else {
        return false;
    };
    let only_config = it
        .files
        .as_ref()
        .is_some_and(|f| !f.is_empty() && f.iter().all(|c| c.path == CONFIG_FILE));
    only_config
        && ws
            .repo
            .blob_at(&it.id, CONFIG_FILE)
            .ok()
            .flatten()
            .is_some_and(|b| &super::content_hash(&b) == trusted)
}

/// Tells the agent on stderr what this iteration did to the breaker.
pub(super) fn announce(ws: &Workspace, outcome: &Outcome) -> Result<()> {
    for e in &outcome.events {
        match e.kind {
            EventKind::Warn => warn(&format!(
                "{}: {}",
                e.rule.map(|r| r.to_string()).unwrap_or_default(),
                e.reason.as_deref().unwrap_or("")
            )),
            EventKind::Close => note("loopguard: progress: the breaker is closed again"),
            _ => {}
        }
    }
    if let Some(trip) = outcome.tripped() {
        let rule = trip.rule.map(|r| r.to_string()).unwrap_or_default();
        note(&format!(
            "loopguard: {} ({rule}): {}",
            bold_red("the breaker opened"),
            trip.reason.as_deref().unwrap_or("")
        ));
        note(&what_now(&ws.config));
        write_report(ws);
    }
    Ok(())
}

fn what_now(config: &Config) -> String {
    match config.on_trip.action {
        TripAction::Alert => {
            "loopguard: on_trip.action is alert: commits go on; the next iteration that makes progress closes the breaker".to_owned()
        }
        TripAction::Abort => {
            "loopguard: the run is aborted: commits and pushes are refused; `loopguard reset` starts a new run".to_owned()
        }
        TripAction::Pause | TripAction::Escalate => {
            "loopguard: commits and pushes are refused until `loopguard resume` (the next iteration must make progress) or `loopguard reset`".to_owned()
        }
    }
}

/// The run's report in the store; a failure to write it is only a warning.
fn write_report(ws: &Workspace) {
    let result = (|| -> Result<std::path::PathBuf> {
        let run = ws
            .read_run()?
            .ok_or_else(|| Error::env("the run disappeared"))?;
        let (events, _) = ws.store.read_events(&ws.key)?;
        let eval = run.evaluate(&ws.config);
        let md = View {
            config: &ws.config,
            run_id: Some(&run.id),
            branch: run.branch.as_deref(),
            breaker: &run.breaker,
            eval: &eval,
            history: &run.iterations,
            events: &events,
        }
        .to_markdown();
        Ok(ws.store.write_report(&run.id, &md)?)
    })();
    match result {
        Ok(path) => note(&format!("loopguard: report: {}", path.display())),
        Err(e) => warn(&format!("cannot write the run report: {e:#}")),
    }
}

/// What git wrote on the hook's stdin; nothing when stdin is a terminal (a person running
/// the hook by hand) so the hook never waits for input.
fn hook_input() -> Result<String> {
    use std::io::IsTerminal;
    let mut input = String::new();
    if !std::io::stdin().is_terminal() {
        std::io::stdin().read_to_string(&mut input)?;
    }
    Ok(input)
}

fn post_rewrite(dir: &Path, args: &[std::ffi::OsString]) -> Result<()> {
    let ws = Workspace::open(dir, None)?;
    let input = hook_input()?;
    let pairs: Vec<(String, String)> = input
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            Some((parts.next()?.to_owned(), parts.next()?.to_owned()))
        })
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    let kind = args.first().map(|a| a.to_string_lossy().into_owned());
    let now = now();
    let (n, outcome) = ws.with_run(now, |run| {
        let known: Vec<&(String, String)> = pairs
            .iter()
            .filter(|(old, new)| run.position(old).is_some() || run.position(new).is_some())
            .collect();
        let news: Vec<String> = known.iter().map(|(_, new)| new.clone()).collect();
        let fresh = ws.repo.iterations(&news).map_err(git_err)?;
        let rewritten = known
            .iter()
            .map(|(old, _)| old.clone())
            .zip(fresh)
            .collect();
        let (n, outcome) = run.rewrite(&ws.config, rewritten, now);
        let events = outcome.events.clone();
        Ok(((n, outcome), events))
    })?;
    if n > 0 {
        note(&format!(
            "loopguard: {} rewrote {n} recorded iteration(s); rewrites are not new attempts",
            kind.as_deref().unwrap_or("a rewrite")
        ));
    }
    announce(&ws, &outcome)
}

fn pre_commit(dir: &Path) -> Result<u8> {
    let ws = Workspace::open(dir, None)?;
    gate(&ws, &ws.key, ws.head.branch.as_deref())
}

/// Refuses (exit 1) when the run of `branch` has an open breaker that blocks.
fn gate(ws: &Workspace, key: &str, branch: Option<&str>) -> Result<u8> {
    let Some(run) = ws.read_run_of(key)? else {
        return Ok(exit::OK);
    };
    let now: Timestamp = now();
    let breaker = run.effective_breaker(&ws.config, now);
    if !breaker.blocks(&ws.config) {
        return Ok(exit::OK);
    }
    let branch = branch.unwrap_or("(detached HEAD)");
    let rule = breaker.rule.map(|r| r.to_string()).unwrap_or_default();
    let mut msg = format!(
        "loopguard: {} on {branch}: the agent is stuck.\n  rule:   {rule}\n  reason: {}\n",
        bold_red("refused: the breaker is open"),
        breaker.reason.as_deref().unwrap_or("")
    );
    if breaker.aborted {
        msg.push_str(
            "  the run was aborted (on_trip.action: abort); to start a new run: loopguard reset\n",
        );
    } else {
        msg.push_str("  to let the agent try again: loopguard resume   (the next iteration must make progress, or the breaker opens again)\n  to start a new run:        loopguard reset\n");
    }
    let eval = run.evaluate(&ws.config);
    let view = View {
        config: &ws.config,
        run_id: Some(&run.id),
        branch: run.branch.as_deref(),
        breaker: &breaker,
        eval: &eval,
        history: &run.iterations,
        events: &[],
    };
    if let Some(m) = view.next_model() {
        msg.push_str(&format!("  next model: {m}\n"));
    }
    note(msg.trim_end());
    Ok(exit::TRIPPED)
}

fn pre_push(dir: &Path) -> Result<u8> {
    let ws = Workspace::open(dir, None)?;
    let input = hook_input()?;
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
        let framework = std::env::var("PRE_COMMIT_LOCAL_BRANCH")
            .ok()
            .map(|b| b.strip_prefix("refs/heads/").unwrap_or(&b).to_owned());
        branches.extend(framework.or_else(|| ws.head.branch.clone()));
    }
    branches.dedup();
    let mut code = exit::OK;
    for b in &branches {
        if gate(&ws, &branch_key(Some(b)), Some(b))? == exit::TRIPPED {
            code = exit::TRIPPED;
        }
    }
    if branches.is_empty() && ws.head.detached {
        code = gate(&ws, &ws.key, None)?;
    }
    Ok(code)
}
