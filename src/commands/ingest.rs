//! `ingest`: records the outcome of existing logs or JUnit files on a commit.

use std::path::PathBuf;

use anyhow::Result;

use crate::cli::IngestArgs;
use crate::error::exit;
use crate::iteration::{IterationKind, Outcome as TestOutcome, TestEvidence};
use crate::store::Durability;

use super::evidence::{NO_RESULT_HINT, catch_up, fingerprint_files};
use super::{Ctx, Workspace, aftermath, print, print_json};

pub(super) fn ingest(ctx: &Ctx, args: IngestArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let files: Vec<PathBuf> = args
        .files
        .iter()
        .map(|f| {
            if f.as_os_str() == "-" {
                f.clone()
            } else {
                ctx.dir.join(f)
            }
        })
        .collect();
    let mut fp = fingerprint_files(&files)?;
    if let Some(code) = args.exit_code {
        fp = fp.with_exit_code(code);
    }
    let source = format!(
        "ingest {}",
        args.files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let Some(outcome) = TestEvidence::outcome_of(args.exit_code.map(|c| c == 0), &fp) else {
        ws.ctx.ui.warn_hint(
            &format!(
                "`{source}`: no test result loopguard recognises in the files: nothing recorded"
            ),
            NO_RESULT_HINT,
        );
        if args.json {
            let run = ws.run_or_new()?;
            print_json(&ws.status(&run, &[]).to_json())?;
        } else {
            print("not recorded: no test result in the files")?;
        }
        return Ok(exit::OK);
    };
    let evidence = TestEvidence::from_fingerprint(outcome, &fp, Some(source));
    let rev = args.commit.as_deref().unwrap_or("HEAD");
    let commit = ws.repo.resolve(rev)?;
    let now = ws.now();
    let (out, run) = ws.with_run(now, Durability::Synced, |run, _| {
        let caught = catch_up(&ws, run, Some(&commit), now)?;
        let mut out = match run.attach_test(&ws.config, &commit, evidence.clone(), now) {
            Some(out) => out,
            None => {
                let mut it = ws.repo.iteration(&commit)?;
                if run.start_commit.as_ref() == Some(&commit) {
                    it.kind = Some(IterationKind::Context);
                }
                it.test = Some(evidence.clone());
                run.record_local(&ws.config, it, now)
            }
        };
        out.events.splice(0..0, caught);
        let events = out.events.clone();
        Ok(((out, run.clone()), events))
    })?;
    let s = ws.status(&run, &[]);
    aftermath::announce(&ws, &out.events, &s);
    let what = match (&evidence.outcome, &evidence.signature) {
        (TestOutcome::Pass, _) => "pass".to_owned(),
        (TestOutcome::Fail, Some(sig)) => format!(
            "fail, {} failure(s), signature {}",
            evidence.failing.unwrap_or(0),
            sig.short()
        ),
        (TestOutcome::Fail, None) => "fail (no failure recognised in the files)".to_owned(),
    };
    if args.json {
        print_json(&s.to_json())?;
    } else {
        print(&format!("recorded on {}: {what}", commit.short()))?;
    }
    Ok(exit::OK)
}
