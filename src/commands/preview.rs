//! Try before you enforce: `check --windows N` and `init`'s preview. The recent
//! first-parent history of HEAD, cut into windows of consecutive commits (with `agents`
//! configured: of the agent's commits, the people's in between as context), each judged
//! from scratch by the config in force ([`loopguard_core::preview`]). The cost is that of
//! the windows' commits, whatever the history's length: only the newest are read.

use anyhow::Result;

use crate::agents::AgentFilter;
use crate::config::Config;
use crate::iteration::CommitId;
use crate::preview::{Preview, preview};

use super::Workspace;

/// Windows `init` judges.
pub(super) const INIT_WINDOWS: usize = 50;
/// Commits in a window: a session of an agent's work.
pub(super) const WINDOW_SIZE: usize = 20;
/// First-parent commits read, at most, to find the agent's commits for the windows.
const AGENT_WALK_LIMIT: usize = 20_000;

/// The preview of `windows` windows of `size` commits before `tip`, judged by `config`;
/// `None` when the history is shorter than one window.
pub(super) fn of(
    ws: &Workspace<'_>,
    config: &Config,
    tip: &CommitId,
    windows: usize,
    size: usize,
) -> Result<Option<Preview>> {
    let cut = if config.agents.is_empty() {
        windows_of_line(ws, tip, windows, size)?
    } else {
        agents_windows(ws, config, tip, windows, size)?
    };
    if cut.is_empty() {
        return Ok(None);
    }
    let all: Vec<&CommitId> = cut.iter().flatten().collect();
    let mut read = ws.repo.iterations(&all)?.into_iter();
    let mut config = config.clone();
    // The workflows that ran loopguard before the oldest window are protected, as in
    // `check`.
    if config.rules.constraint.guard_workflows
        && let Some(base) = ws
            .repo
            .parents(cut.last().and_then(|w| w.first()).expect("a window"))?
            .first()
    {
        let guarded = super::guarded_workflows_at(&ws.repo, base.as_str())?;
        config.rules.constraint.guard(guarded);
    }
    let histories = cut
        .iter()
        .map(|w| read.by_ref().take(w.len()).collect())
        .collect();
    Ok(Some(preview(&config, histories, size, ws.now())))
}

/// The first-parent line from `tip` back, newest first, at most `n` commits (and the
/// walk stops at a root, a shallow boundary or a missing commit).
fn first_parents(ws: &Workspace<'_>, tip: &CommitId, n: usize) -> Vec<CommitId> {
    let mut line = Vec::with_capacity(n);
    let mut next = Some(tip.clone());
    while let Some(id) = next.take() {
        if line.len() == n {
            break;
        }
        next = ws
            .repo
            .parents(id.as_str())
            .ok()
            .and_then(|p| p.into_iter().next());
        line.push(id);
    }
    line
}

/// `windows` windows of `size` consecutive first-parent commits before `tip`, newest
/// first, each oldest first; a window starts after a commit (the root has none before it).
fn windows_of_line(
    ws: &Workspace<'_>,
    tip: &CommitId,
    windows: usize,
    size: usize,
) -> Result<Vec<Vec<CommitId>>> {
    let mut line = first_parents(ws, tip, windows * size + 1);
    // The oldest commit read begins no window when the root is reached before it: a
    // window is the change after a commit.
    line.pop();
    Ok(line
        .chunks_exact(size)
        .map(|w| w.iter().rev().cloned().collect())
        .collect())
}

/// `windows` windows of `size` consecutive commits of the agent on the first-parent line
/// before `tip`, newest first; each runs from the first of its agent's commits to the
/// last, the people's commits between them included (as context).
fn agents_windows(
    ws: &Workspace<'_>,
    config: &Config,
    tip: &CommitId,
    windows: usize,
    size: usize,
) -> Result<Vec<Vec<CommitId>>> {
    let line = first_parents(ws, tip, AGENT_WALK_LIMIT);
    let filter = AgentFilter::for_history(config, &[]);
    let mut agents: Vec<usize> = Vec::new();
    // The root begins no window.
    for (i, id) in line.iter().enumerate().take(line.len().saturating_sub(1)) {
        if agents.len() == windows * size {
            break;
        }
        let it = ws.repo.commit_header(id.as_str())?;
        if it.parents.as_ref().is_some_and(|p| p.len() == 1) && filter.is_agent(config, &it) {
            agents.push(i);
        }
    }
    Ok(agents
        .chunks_exact(size)
        .map(|w| {
            let (newest, oldest) = (w[0], w[size - 1]);
            line[newest..=oldest].iter().rev().cloned().collect()
        })
        .collect())
}
