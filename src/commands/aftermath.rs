//! What happens after a run changed state: reports, per-iteration artifacts, the issues
//! file, the escalation context, notifications. Everything here is best effort: a failure
//! is a warning, never a failed hook.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::json;

use crate::breaker::{Event, EventKind, TerminalStatus};
use crate::config::{Notify, TripAction};
use crate::iteration::Outcome as TestOutcome;
use crate::notify::{self, Notice};
use crate::report::View;
use crate::rules::attempts;
use crate::run::Run;

use super::{Workspace, note, warn};

/// Runs the aftermath of `events` (the changes one command made to the run).
pub fn after(ws: &Workspace, events: &[Event]) {
    let ended = events.iter().any(|e| {
        matches!(
            e.kind,
            EventKind::Trip | EventKind::Reopen | EventKind::Finish | EventKind::Escalate
        )
    });
    if !ended {
        return;
    }
    let run = match ws.read_run() {
        Ok(Some(run)) => run,
        Ok(None) => return,
        Err(e) => {
            warn(&format!("cannot read the run for its report: {e:#}"));
            return;
        }
    };
    if let Err(e) = reports(ws, &run) {
        warn(&format!("cannot write the run report: {e:#}"));
    }
    if events.iter().any(|e| e.kind == EventKind::Escalate) {
        match failure_context(ws, &run) {
            Ok(path) => note(&format!(
                "loopguard: next model: {}; failure context for its prompt: {}",
                run.breaker.current_model(&ws.config).unwrap_or("?"),
                path.display()
            )),
            Err(e) => warn(&format!("cannot write the failure context: {e:#}")),
        }
    }
    if let Some(trip) = events
        .iter()
        .find(|e| matches!(e.kind, EventKind::Trip | EventKind::Reopen))
    {
        send_notices(ws, &run, trip);
    }
}

/// The markdown report in the store (and in `report.dir`), the iteration artifacts, and an
/// entry in `report.issues_file` for an aborted run.
fn reports(ws: &Workspace, run: &Run) -> Result<()> {
    let (events, _) = ws.store.read_events(&ws.key)?;
    let eval = run.evaluate(&ws.config);
    let md = View::of_run(&ws.config, run, &run.breaker, &eval, &events).to_markdown();
    let path = ws.store.write_report(&run.id, &md)?;
    note(&format!("loopguard: report: {}", path.display()));
    if let Some(dir) = &ws.config.report.dir {
        let path = ws.root.join(dir).join(format!("{}.md", run.id));
        crate::store::write_atomic(&path, md.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    artifacts(ws, run, &eval)?;
    if let (Some(file), Some(status)) = (&ws.config.report.issues_file, run.breaker.terminal_status)
        && !status.is_done()
    {
        let path = ws.root.join(file);
        let entry = issue_entry(ws, run, status);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        f.write_all(entry.as_bytes())?;
    }
    Ok(())
}

fn last_test(run: &Run) -> Option<&crate::iteration::TestEvidence> {
    run.iterations
        .iter()
        .rev()
        .find_map(|it| it.test.as_ref().filter(|t| t.outcome == TestOutcome::Fail))
        .or_else(|| run.iterations.iter().rev().find_map(|it| it.test.as_ref()))
}

/// A structured entry for the issues file: the loop, the last reason, the last test
/// command and signature.
fn issue_entry(ws: &Workspace, run: &Run, status: TerminalStatus) -> String {
    let b = &run.breaker;
    let mut s = String::new();
    let _ = writeln!(s, "\n## {} — {status}\n", run.id);
    let _ = writeln!(
        s,
        "- branch: `{}`",
        run.branch.as_deref().unwrap_or("(detached)")
    );
    let _ = writeln!(s, "- profile: {}", ws.config.profile);
    if let Some(rule) = b.rule {
        let _ = writeln!(s, "- rule: {rule}");
    }
    if let Some(reason) = &b.reason {
        let _ = writeln!(s, "- reason: {}", one_line(reason));
    }
    let _ = writeln!(s, "- iterations: {}", run.attempts(&ws.config));
    if let Some(t) = last_test(run) {
        if let Some(cmd) = &t.command {
            let _ = writeln!(
                s,
                "- last test command: `{}`",
                one_line(cmd).replace('`', "'")
            );
        }
        if let Some(sig) = &t.signature {
            let _ = writeln!(s, "- signature: `{sig}`");
        }
        if let Some(e) = &t.first_error {
            let _ = writeln!(s, "- first error: `{}`", one_line(e).replace('`', "'"));
        }
    }
    s
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// `runs/<run-id>/iterations/<NN>-<id>/`: `changes.patch`, `errors.json`, `metrics.json`,
/// `completion_signals.json` for every iteration of the run.
fn artifacts(ws: &Workspace, run: &Run, eval: &crate::rules::Evaluation) -> Result<()> {
    let base = ws.store.dir().join("runs").join(&run.id).join("iterations");
    let facts = attempts(&ws.config, &run.iterations);
    let mut previous_at = None;
    for (n, it) in run.iterations.iter().enumerate() {
        let dir = base.join(format!("{:03}-{}", n + 1, it.short_id()));
        std::fs::create_dir_all(&dir)?;
        let patch = dir.join("changes.patch");
        if !patch.exists() {
            std::fs::write(&patch, commit_patch(&ws.root, &it.id))?;
        }
        let errors = json!({
            "schema": 1,
            "test": it.test,
        });
        std::fs::write(dir.join("errors.json"), serde_json::to_vec_pretty(&errors)?)?;
        let (added, deleted) = it.files.iter().flatten().fold((0, 0), |(a, d), f| {
            (a + f.added.unwrap_or(0), d + f.deleted.unwrap_or(0))
        });
        let metrics = json!({
            "schema": 1,
            "at": it.at,
            "seconds_since_previous": match (previous_at, it.at) {
                (Some(p), Some(a)) => Some(a.duration_since(p).as_secs()),
                _ => None,
            },
            "files": it.files.as_ref().map(Vec::len),
            "lines_added": added,
            "lines_deleted": deleted,
            "run_tokens": run.usage.tokens,
            "run_cost": run.usage.cost,
            "run_steps": run.usage.steps,
        });
        previous_at = it.at.or(previous_at);
        std::fs::write(
            dir.join("metrics.json"),
            serde_json::to_vec_pretty(&metrics)?,
        )?;
        let f = facts.iter().find(|f| f.index == n);
        let matched: Vec<String> = it
            .message
            .as_deref()
            .map(|m| {
                ws.config
                    .completion_patterns
                    .iter()
                    .filter_map(|r| r.find(m).map(|x| m[x.range()].to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let signals = json!({
            "schema": 1,
            "attempt": f.is_some(),
            "claims_done": f.is_some_and(|f| f.claims_done),
            "matched": matched,
            "backed_by_passing_tests": f.is_some_and(|f| f.backed_by_pass),
            "subject": it.subject(),
        });
        std::fs::write(
            dir.join("completion_signals.json"),
            serde_json::to_vec_pretty(&signals)?,
        )?;
    }
    let _ = eval;
    Ok(())
}

/// The change of a commit as a patch (`git show`); empty for iterations that are not
/// commits (working-tree states, re-runs).
fn commit_patch(root: &Path, id: &str) -> Vec<u8> {
    if !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Vec::new();
    }
    std::process::Command::new("git")
        .args([
            "show",
            "--format=From %H%nSubject: %s%n",
            "--patch",
            "--stat",
            id,
        ])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout)
        .unwrap_or_default()
}

/// What the next model needs to know: the loop, the looping error, the recent diffs, what
/// was tried.
fn failure_context(ws: &Workspace, run: &Run) -> Result<PathBuf> {
    let path = ws
        .store
        .dir()
        .join("runs")
        .join(&run.id)
        .join("failure-context.md");
    let b = &run.breaker;
    let mut md = String::from("# Failure context\n\n");
    let _ = writeln!(
        md,
        "The previous attempts got stuck. Do not repeat them; try a different approach.\n"
    );
    if let Some(rule) = b.rule {
        let _ = writeln!(md, "- Stop rule: {rule}");
    }
    if let Some(reason) = b.first_reason.as_ref().or(b.reason.as_ref()) {
        let _ = writeln!(md, "- Why: {}", one_line(reason));
    }
    if let Some(model) = b.current_model(&ws.config) {
        let _ = writeln!(md, "- You are the next model: {model}");
    }
    if let Some(t) = last_test(run) {
        let _ = writeln!(md, "\n## The failing tests\n");
        if let Some(cmd) = &t.command {
            let _ = writeln!(md, "Command: `{}`\n", one_line(cmd).replace('`', "'"));
        }
        if let Some(e) = &t.first_error {
            let _ = writeln!(md, "First error: `{}`\n", one_line(e).replace('`', "'"));
        }
        for id in t.failures.iter().flatten() {
            let _ = writeln!(md, "- {id}");
        }
    }
    let _ = writeln!(md, "\n## What was tried (newest last)\n");
    let facts = attempts(&ws.config, &run.iterations);
    for f in facts.iter().rev().take(5).rev() {
        let it = &run.iterations[f.index];
        let _ = writeln!(md, "### {} {}\n", it.short_id(), one_line(it.subject()));
        let patch = commit_patch(&ws.root, &it.id);
        if !patch.is_empty() {
            let text = String::from_utf8_lossy(&patch);
            let clipped: String = text.chars().take(4000).collect();
            let fence = "~~~~~~";
            let _ = writeln!(md, "{fence}diff\n{clipped}\n{fence}\n");
        }
    }
    crate::store::write_atomic(&path, md.as_bytes())?;
    Ok(path)
}

fn send_notices(ws: &Workspace, run: &Run, trip: &Event) {
    let notify = &ws.config.on_trip.notify;
    let rule = trip.rule.map(|r| r.to_string()).unwrap_or_default();
    let branch = run.branch.as_deref().unwrap_or("(detached)");
    let repo = ws
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = format!(
        "loopguard: the agent on {repo}/{branch} is stuck ({rule}): {}",
        trip.reason.as_deref().unwrap_or("")
    );
    if notify.contains(&Notify::Webhook) {
        match &ws.config.webhook.url {
            None => warn("on_trip.notify has webhook but webhook.url is not set"),
            Some(url) => {
                let notice = Notice {
                    text: text.clone(),
                    facts: json!({
                        "schema": 1,
                        "event": trip.kind,
                        "state": run.breaker.state,
                        "terminal_status": run.breaker.terminal_status,
                        "rule": trip.rule,
                        "reason": trip.reason,
                        "run": run.id,
                        "branch": run.branch,
                        "repository": repo,
                        "iterations": run.attempts(&ws.config),
                        "next_model": (ws.config.on_trip.action == TripAction::Escalate)
                            .then(|| run.breaker.current_model(&ws.config)).flatten(),
                    }),
                };
                let timeout = std::time::Duration::from_millis(
                    ws.config.webhook.timeout.as_millis().clamp(1, 60_000) as u64,
                );
                if let Err(e) = notify::post_webhook(url, &notice, timeout) {
                    warn(&format!("webhook not delivered: {e}"));
                }
            }
        }
    }
    if notify.contains(&Notify::Desktop) {
        notify::desktop("loopguard: the agent is stuck", &text);
    }
}
