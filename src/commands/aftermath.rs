//! What happens after a run changed state: the agent told on stderr ([`announce`]), then
//! reports, per-iteration artifacts, the issues file, the escalation context,
//! notifications. Everything here is best effort: a failure
//! is a warning, never a failed hook.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::documents::{
    CompletionSignals, IterationErrors, IterationMetrics, Schema, WebhookFacts,
};
use anyhow::{Context, Result};

use crate::breaker::{Event, EventKind};
use crate::config::Notify;
use crate::iteration::CommitId;
use crate::notify::{self, Notice};
use crate::report::{Status, markdown, text};
use crate::rules::attempts;
use crate::run::Run;
use crate::sanitize::code_block;

use super::Workspace;

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
    after(ws, events);
}

/// Runs the aftermath of `events` (the changes one command made to the run).
pub(super) fn after(ws: &Workspace<'_>, events: &[Event]) {
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
            ws.warn(&format!("cannot read the run for its report: {e:#}"));
            return;
        }
    };
    let (log, _) = ws.store.read_events(&ws.key).unwrap_or_default();
    let s = ws.status(&run, &log);
    if let Err(e) = reports(ws, &run, &s) {
        ws.warn(&format!("cannot write the run report: {e:#}"));
    }
    if events.iter().any(|e| e.kind == EventKind::Escalate) {
        match failure_context(ws, &run, &s) {
            Ok(path) => ws.note(&format!(
                "loopguard: next model: {}; failure context for its prompt: {}",
                s.next_model.as_deref().unwrap_or("?"),
                path.display()
            )),
            Err(e) => ws.warn(&format!("cannot write the failure context: {e:#}")),
        }
    }
    if let Some(trip) = events.iter().find(|e| e.kind.opens()) {
        send_notices(ws, &run, &s, trip);
    }
}

/// The markdown report in the store (and in `report.dir`), the iteration artifacts, and an
/// entry in `report.issues_file` for an aborted run.
fn reports(ws: &Workspace<'_>, run: &Run, s: &Status) -> Result<()> {
    // The store's copy was written with the change itself (see `store`).
    let md = markdown::report(s);
    ws.note(&format!(
        "loopguard: report: {}",
        ws.store.report_path(&run.id).display()
    ));
    if let Some(dir) = &ws.config.report.dir {
        let path = ws.root.join(dir).join(format!("{}.md", run.id));
        crate::safe_fs::write_atomic(&path, md.as_bytes(), || {})
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    artifacts(ws, run)?;
    if let (Some(file), Some(status)) = (&ws.config.report.issues_file, s.terminal_status)
        && !status.is_done()
    {
        let path = ws.root.join(file);
        // Never through a link or into a FIFO an agent put there.
        crate::safe_fs::append(&path, markdown::issue_entry(s).as_bytes())
            .with_context(|| format!("cannot append to {}", path.display()))?;
    }
    Ok(())
}

/// Most iterations a trip writes artifacts for: the newest (the loop), not every commit of
/// a run that may hold thousands (a catch-up of commits made with the hooks off).
const ARTIFACT_ITERATIONS: usize = 100;
/// Most bytes of a `changes.patch`.
const PATCH_BYTES: u64 = 1 << 20;

/// `runs/<run-id>/iterations/<NN>-<id>/`: `changes.patch` (at most 1 MiB), `errors.json`,
/// `metrics.json`, `completion_signals.json` for each of the newest
/// [`ARTIFACT_ITERATIONS`] iterations of the run.
fn artifacts(ws: &Workspace<'_>, run: &Run) -> Result<()> {
    // Every directory on the way is one of the store's own (no link followed), and no file
    // is written through a link.
    let runs = ws.store.dir().join("runs");
    let base = runs.join(&run.id).join("iterations");
    ws.store.ready_artifact_dir(&base)?;
    let write = |path: &Path, bytes: &[u8]| crate::safe_fs::write_in_place(path, bytes);
    let facts = attempts(&ws.config, run.iterations());
    let mut previous_at = None;
    let skip = run.iterations().len().saturating_sub(ARTIFACT_ITERATIONS);
    for (n, it) in run.iterations().iter().enumerate().skip(skip) {
        let dir = base.join(format!("{:03}-{}", n + 1, it.id.short()));
        ws.store.ready_artifact_dir(&dir)?;
        let patch = dir.join("changes.patch");
        if std::fs::symlink_metadata(&patch).is_err() {
            write(&patch, &commit_patch(&ws.root, &it.id))?;
        }
        let errors = IterationErrors {
            schema: Schema,
            test: it.test.as_ref(),
        };
        write(
            &dir.join("errors.json"),
            &serde_json::to_vec_pretty(&errors)?,
        )?;
        let metrics = IterationMetrics::of(it, previous_at, &run.usage);
        previous_at = it.at.or(previous_at);
        write(
            &dir.join("metrics.json"),
            &serde_json::to_vec_pretty(&metrics)?,
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
        let signals = CompletionSignals::of(it, f, matched);
        write(
            &dir.join("completion_signals.json"),
            &serde_json::to_vec_pretty(&signals)?,
        )?;
    }
    Ok(())
}

/// The change of a commit as a patch (`git show`); empty for iterations that are not
/// commits (working-tree states, re-runs).
fn commit_patch(root: &Path, id: &CommitId) -> Vec<u8> {
    use std::io::Read as _;
    if !id.is_object_id() {
        return Vec::new();
    }
    let child = crate::git::plain_history(&mut std::process::Command::new("git"))
        .args([
            "show",
            "--format=From %H%nSubject: %s%n",
            "--patch",
            "--stat",
            id.as_str(),
        ])
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return Vec::new();
    };
    let mut patch = Vec::new();
    if let Some(out) = child.stdout.take() {
        let _ = out.take(PATCH_BYTES).read_to_end(&mut patch);
    }
    // Past the bound git is not waited for: its pipe closes and it ends.
    let _ = child.kill();
    let _ = child.wait();
    patch
}

/// What the next model needs to know: the loop, the looping error, the recent diffs, what
/// was tried. Commit text and diffs are quoted inside fences nothing in them can close.
fn failure_context(ws: &Workspace<'_>, run: &Run, s: &Status) -> Result<PathBuf> {
    let path = ws
        .store
        .dir()
        .join("runs")
        .join(&run.id)
        .join("failure-context.md");
    let mut md = String::from("# Failure context\n\n");
    md.push_str(
        "The previous attempts got stuck. Do not repeat them; try a different approach.\n\n",
    );
    // Each escalation hands over the trip just before it: this one's is the newest.
    let handed_over = handed_over(s);
    let trip = handed_over.last().copied().flatten();
    if let Some(rule) = trip.and_then(|t| t.rule) {
        let _ = writeln!(md, "- Stop rule: {rule}");
    }
    if let Some(reason) = trip.and_then(|t| t.reason.as_deref()) {
        let _ = writeln!(md, "- Why: {}", markdown::cell(reason));
    }
    if let Some(model) = &s.next_model {
        let _ = writeln!(md, "- You are the next model: {}", markdown::cell(model));
    }
    if handed_over.len() > 1 {
        md.push_str("\n## The models before you\n\n");
        let models = &ws.config.escalation_models;
        for (k, t) in handed_over.iter().enumerate() {
            let Some(t) = t else { continue };
            let model = models.get(k).map_or("?", String::as_str);
            let _ = writeln!(
                md,
                "- {} got stuck: {}: {}",
                markdown::cell(model),
                t.rule.map(|r| r.to_string()).unwrap_or_default(),
                markdown::cell(t.reason.as_deref().unwrap_or(""))
            );
        }
    }
    if let Some(t) = s.looping_failure.as_ref().or(s.last_failure()) {
        md.push_str("\n## The failing tests\n\n");
        md.push_str(&markdown::failure(t));
    }
    md.push_str("\n## What was tried (newest last)\n\n");
    for r in s.rows.iter().rev().take(5).rev() {
        let _ = writeln!(md, "### {} {}\n", r.id.short(), markdown::cell(&r.subject));
        let patch = commit_patch(&ws.root, &r.id);
        if !patch.is_empty() {
            let text = String::from_utf8_lossy(&patch);
            let clipped: String = text.chars().take(4000).collect();
            md.push_str(&code_block(&clipped, "diff"));
            md.push('\n');
        }
    }
    crate::safe_fs::write_atomic(&path, md.as_bytes(), || {})?;
    Ok(path)
}

/// The trip each of the run's escalations handed over, oldest first (the k-th escalation
/// left the k-th model): the breaker's last opening before it, if any.
fn handed_over(s: &Status) -> Vec<Option<&Event>> {
    let mut trips = Vec::new();
    let mut last_open = None;
    for e in &s.transitions {
        if e.kind.opens() {
            last_open = Some(e);
        } else if e.kind == EventKind::Escalate {
            trips.push(last_open.take());
        }
    }
    trips
}

fn send_notices(ws: &Workspace<'_>, run: &Run, s: &Status, trip: &Event) {
    let notify = &ws.config.on_trip.notify;
    let rule = trip.rule.map(|r| r.to_string()).unwrap_or_default();
    let branch = run.branch.as_deref().unwrap_or("(detached)");
    let repo = ws
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = crate::sanitize::printable(&format!(
        "loopguard: the agent on {repo}/{branch} is stuck ({rule}): {}",
        trip.reason.as_deref().unwrap_or("")
    ));
    if notify.contains(&Notify::Webhook) {
        match &ws.config.webhook.url {
            None => ws.warn("on_trip.notify has webhook but webhook.url is not set"),
            Some(url) => {
                let notice = Notice {
                    text: text.clone(),
                    facts: WebhookFacts {
                        schema: Schema,
                        event: trip.kind,
                        state: s.state,
                        terminal_status: s.terminal_status,
                        rule: trip.rule,
                        reason: trip.reason.clone(),
                        run: run.id.clone(),
                        branch: run.branch.clone(),
                        repository: repo.clone(),
                        iterations: s.iterations,
                        next_model: s.next_model.clone(),
                    },
                };
                let timeout = std::time::Duration::from_millis(
                    ws.config.webhook.timeout.as_millis().clamp(1, 60_000) as u64,
                );
                if let Err(e) = notify::post_webhook(url, &notice, timeout) {
                    ws.warn(&format!("webhook not delivered: {e}"));
                }
            }
        }
    }
    if notify.contains(&Notify::Desktop) {
        notify::desktop(
            "loopguard: the agent is stuck",
            &text,
            ws.ctx.settings.display,
        );
    }
}
