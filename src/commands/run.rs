//! `run -- CMD`: runs a test command with its output shown live, fingerprints it on the
//! way, and records the outcome on the current commit (or the working tree's changes).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::cli::RunArgs;
use crate::error::{InputError, exit};
use crate::fingerprint::{Fingerprint, Fingerprinter};
use crate::iteration::TestEvidence;
use crate::store::Durability;

use super::evidence::{NO_RESULT_HINT, catch_up, record_run, worktree_state};
use super::{Ctx, Workspace, aftermath, prompt};

pub(super) fn run(ctx: &Ctx, args: RunArgs) -> Result<u8> {
    let ws = Workspace::open(ctx, None)?;
    let command = shell_words(&args.command);
    let mut child = Command::new(&args.command[0])
        .args(&args.command[1..])
        .current_dir(&ctx.dir)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| InputError::CannotRun {
            command: command.clone(),
            source,
        })?;
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || tee(out, std::io::stdout()));
    let err_thread = std::thread::spawn(move || tee(err, std::io::stderr()));
    let status = child.wait().context("waiting for the test command")?;
    let fp_out = out_thread.join().expect("tee does not panic")?;
    let fp_err = err_thread.join().expect("tee does not panic")?;
    let code = status_code(status);
    let fp = Fingerprint::combine([fp_out.finish(), fp_err.finish()]).with_exit_code(code.into());
    let Some(outcome) = TestEvidence::outcome_of(Some(status.success()), &fp) else {
        ws.ctx.ui.warn_hint(
            &format!(
                "`{command}` exited {code} and printed no test result loopguard recognises: nothing recorded"
            ),
            NO_RESULT_HINT,
        );
        // Nothing changes, but an open breaker is still no place to go on from (judged by
        // the config the run is judged by).
        if let Some(run) = ws.read_run()? {
            let config = ws.config_of(&run)?;
            if run
                .effective_breaker(&config, ws.now())
                .blocks(config.on_trip.action)
            {
                ws.warn(
                    "the breaker is open: stop and look at `loopguard status` before trying again",
                );
                return Ok(exit::RUN_TRIPPED);
            }
        }
        return Ok(code);
    };
    let evidence = TestEvidence::from_fingerprint(outcome, &fp, Some(command));

    let state = worktree_state(&ws)?;
    let now = ws.now();
    let (out, mut blocks, run) = ws.with_run(now, Durability::Synced, |run, store| {
        ws.restart_if_finished(store, run, now)?;
        // The commits before the evidence's iteration that no hook recorded come first:
        // before HEAD when the working tree is HEAD, through HEAD when the evidence goes to
        // a working-tree iteration after it.
        let target = state.head.as_ref().filter(|_| state.dirty_tree.is_none());
        let caught = catch_up(&ws, run, target, now)?;
        let mut out = record_run(&ws, run, &state, evidence, now)?;
        out.events.splice(0..0, caught);
        let blocks = run.breaker().blocks(ws.config.on_trip.action);
        let events = out.events.clone();
        Ok(((out, blocks, run.clone()), events))
    })?;
    aftermath::announce(&ws, &out.events, &ws.status(&run, &[]));
    if out.tripped().is_some() && ctx.settings.interactive() {
        blocks = prompt::prompt_after_trip(&ws)?;
        if !blocks {
            return Ok(code);
        }
    }
    if out.tripped().is_some() || blocks {
        if out.tripped().is_none() {
            ws.warn("the breaker is open: stop and look at `loopguard status` before trying again");
        }
        return Ok(exit::RUN_TRIPPED);
    }
    Ok(code)
}

/// Copies a child's stream to ours as it comes, and fingerprints it on the way.
fn tee(mut from: impl Read, mut to: impl Write) -> std::io::Result<Fingerprinter> {
    let mut fp = Fingerprinter::new();
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        fp.feed(&buf[..n]);
        // The user may close our output (`| head`); keep fingerprinting the child anyway.
        let _ = to.write_all(&buf[..n]).and_then(|()| to.flush());
    }
    Ok(fp)
}

fn shell_words(cmd: &[OsString]) -> String {
    cmd.iter()
        .map(|a| {
            let s = a.to_string_lossy();
            if s.is_empty() || s.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
                format!("'{}'", s.replace('\'', r"'\''"))
            } else {
                s.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The exit status as a shell reports it (128 + signal for a killed process).
fn status_code(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return u8::try_from(128 + sig).unwrap_or(1);
        }
    }
    1
}
