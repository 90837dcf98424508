//! `check` (a range of commits) and `replay` (recorded iterations): judged from scratch,
//! nothing written.

use std::io::Read;
use std::path::Path;

use anyhow::Result;

use crate::breaker::State;
use crate::cli::{CheckArgs, ReplayArgs};
use crate::config::{CONFIG_FILE, Config};
use crate::error::{Error, exit};
use crate::iteration::Iteration;
use crate::report::View;
use crate::run::{Simulation, simulate};

use super::{Workspace, git_err, now, print, print_json};

pub fn check(dir: &Path, args: CheckArgs) -> Result<u8> {
    let ws = Workspace::open(dir, args.config.as_deref())?;
    let ids = match &args.range {
        Some(range) => ws.repo.rev_range(range).map_err(git_err)?,
        None => default_range(&ws)?,
    };
    let history = ws.repo.iterations(&ids).map_err(git_err)?;
    let sim = simulate(&ws.config, history, now());
    show(&ws.config, &sim, args.json)
}

/// The run's commits: from where the run started to HEAD, or the branch's own commits
/// when there is no run.
fn default_range(ws: &Workspace) -> Result<Vec<String>> {
    let Some(head) = &ws.head.id else {
        return Err(
            Error::input("the current branch has no commits yet; hint: pass --range").into(),
        );
    };
    if let Some(start) = ws.read_run().ok().flatten().and_then(|r| r.start_commit)
        && ws.repo.resolve(&start).is_ok()
    {
        return ws
            .repo
            .rev_range(&format!("{start}..{head}"))
            .map_err(git_err);
    }
    let limit = ws.config.rules.budget.max_iterations as usize + 1;
    ws.repo
        .branch_commits(head, ws.head.branch.as_deref(), limit)
        .map_err(git_err)
}

pub fn replay(dir: &Path, args: ReplayArgs) -> Result<u8> {
    let config = match &args.config {
        Some(p) if !p.exists() => {
            return Err(Error::input(format!("{}: no such config file", p.display())).into());
        }
        Some(p) => crate::config_file::load(p)?,
        None => match Workspace::open(dir, None) {
            Ok(ws) => ws.config,
            // Outside a repository: the file in this directory, or the defaults.
            Err(_) => crate::config_file::load(&dir.join(CONFIG_FILE))?,
        },
    };
    let name = args.file.display().to_string();
    let mut text = String::new();
    if name == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(&args.file)
            .map_err(|e| Error::input(format!("{name}: cannot read the iteration records: {e}")))?;
    }
    let history = parse_records(&text, &name)?;
    let sim = simulate(&config, history, now());
    show(&config, &sim, args.json)
}

/// JSON lines, oldest first; blank lines are skipped, anything else that is not an
/// iteration record is an error naming the line.
pub fn parse_records(text: &str, name: &str) -> Result<Vec<Iteration>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let it: Iteration = serde_json::from_str(line).map_err(|e| {
            Error::input(format!(
                "{name}:{}: not an iteration record: {e}; hint: one JSON object per line, with at least \"id\"",
                n + 1
            ))
        })?;
        out.push(it);
    }
    Ok(out)
}

fn show(config: &Config, sim: &Simulation, json: bool) -> Result<u8> {
    let view = View {
        config,
        run_id: None,
        branch: None,
        breaker: &sim.run.breaker,
        eval: &sim.evaluation,
        history: &sim.run.iterations,
        events: &sim.events,
    };
    if json {
        print_json(&view.to_json(true))?;
    } else {
        let mut text = view.to_text();
        if let Some(trip) = sim.events.first() {
            text.push_str(&format!(
                "tripped at: {}\n",
                trip.iteration.as_deref().unwrap_or("?")
            ));
        }
        print(&text)?;
    }
    Ok(if sim.run.breaker.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}
