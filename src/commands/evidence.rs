//! Test evidence: `fingerprint` (print), `run -- CMD` (run, show, record), `ingest` (record
//! existing logs / JUnit XML).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::cli::{FingerprintArgs, IngestArgs, RunArgs};
use crate::error::{Error, exit};
use crate::fingerprint::{Fingerprint, Fingerprinter, fingerprint_reader};
use crate::iteration::{CommitId, Iteration, IterationKind, Outcome as TestOutcome, TestEvidence};
use crate::run::{Outcome, Run};

use super::progress::{Progress, Reading};
use super::{Ctx, Workspace, hook, print, print_json};

/// What to do about output that holds no test result.
const NO_RESULT_HINT: &str = "check the command (a typo, a missing tool), run the test runner itself (cargo test, pytest, go test, npx jest, ...), or ingest its JUnit XML";

/// Fingerprints files (`-` is standard input) as one run.
pub fn fingerprint_files(files: &[PathBuf]) -> Result<Fingerprint> {
    fingerprint_files_with(files, &mut Progress::hidden())
}

/// [`fingerprint_files`], moving `progress` over the files' bytes.
fn fingerprint_files_with(files: &[PathBuf], progress: &mut Progress) -> Result<Fingerprint> {
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    progress.start_bytes(total, "fingerprinting");
    if files.is_empty() {
        return Ok(fingerprint_reader(std::io::stdin().lock())?);
    }
    let mut parts = Vec::with_capacity(files.len());
    for f in files {
        let fp = if f.as_os_str() == "-" {
            fingerprint_reader(std::io::stdin().lock())
        } else {
            if f.is_dir() {
                return Err(Error::input(format!(
                    "{}: is a directory; hint: pass the log or JUnit XML files in it",
                    f.display()
                ))
                .into());
            }
            std::fs::File::open(f).and_then(|file| {
                fingerprint_reader(Reading {
                    inner: file,
                    progress: &mut *progress,
                })
            })
        }
        .map_err(|e| Error::input(format!("{}: cannot read: {e}", f.display())))?;
        parts.push(fp);
    }
    Ok(Fingerprint::combine(parts))
}

pub(super) fn fingerprint(ctx: &Ctx, args: FingerprintArgs) -> Result<u8> {
    let mut progress = Progress::new(&ctx.env, args.json);
    let fp = fingerprint_files_with(&args.files, &mut progress)?;
    progress.finish();
    if args.json {
        print_json(&fp.to_json())?;
    } else {
        print(&fp.render_text())?;
    }
    Ok(exit::OK)
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
        .map_err(|e| Error::input(format!("cannot run `{command}`: {e}")))?;
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || tee(out, std::io::stdout()));
    let err_thread = std::thread::spawn(move || tee(err, std::io::stderr()));
    let status = child.wait().context("waiting for the test command")?;
    let fp_out = out_thread.join().expect("tee does not panic")?;
    let fp_err = err_thread.join().expect("tee does not panic")?;
    let fp = Fingerprint::combine([fp_out.finish(), fp_err.finish()]);
    let code = status_code(status);
    let Some(outcome) = TestEvidence::outcome_of(Some(status.success()), &fp) else {
        ws.warn(&format!(
            "`{command}` exited {code} and printed no test result loopguard recognises: nothing recorded\nhint: {NO_RESULT_HINT}"
        ));
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
    let (out, mut blocks, run) = ws.with_run(now, |run| {
        ws.restart_if_finished(run, now)?;
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
    hook::announce(&ws, &out.events, &ws.status(&run, &[]));
    if out.tripped().is_some() && ctx.env.interactive() {
        blocks = super::harness::prompt_after_trip(&ws)?;
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

/// Records the commits before `target` that no hook recorded (made with the hooks off), so
/// evidence attached to it does not leave a gap behind it; their events. `target` itself
/// is left to the caller, which records it with its evidence as one attempt (an attempt
/// that mends a trip must arrive with its evidence). When `target` is not HEAD, HEAD's
/// commits are caught up through HEAD.
fn catch_up(
    ws: &Workspace<'_>,
    run: &mut Run,
    target: Option<&CommitId>,
    now: jiff::Timestamp,
) -> Result<Vec<crate::breaker::Event>> {
    let Some(head) = ws.head.id.clone() else {
        return Ok(Vec::new());
    };
    let from = if target == Some(&head) {
        if run.position(&head).is_some() {
            return Ok(Vec::new());
        }
        ws.repo.parents(&head)?.into_iter().next()
    } else {
        Some(head)
    };
    ws.record_missed(run, from, now)
}

/// What the working tree holds compared to HEAD.
struct WorktreeState {
    head: Option<CommitId>,
    head_tree: Option<String>,
    /// The tree of the working tree with every change (untracked files too, ignored ones
    /// not); `None` when it equals HEAD's tree or could not be computed.
    dirty_tree: Option<String>,
}

/// The working tree as a tree id, written the way `git stash` does: a temporary index,
/// `git add -A`, `git write-tree`. Nothing of the user's index or files changes.
fn worktree_state(ws: &Workspace<'_>) -> Result<WorktreeState> {
    let head = ws.head.id.clone();
    let git = |args: &[&str], index: Option<&Path>| -> Option<String> {
        let mut cmd = Command::new("git");
        crate::git::plain_history(&mut cmd)
            .args(args)
            .current_dir(&ws.root);
        if let Some(index) = index {
            cmd.env("GIT_INDEX_FILE", index);
        }
        let out = cmd.stderr(Stdio::null()).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let head_tree = head
        .as_ref()
        .and_then(|_| git(&["rev-parse", "HEAD^{tree}"], None));
    let tmp = tempfile::tempdir().context("cannot make a temporary directory")?;
    let index = tmp.path().join("index");
    let real_index = ws.repo.git_dir().join("index");
    if real_index.exists() {
        // A copy keeps the stat cache: `add -A` then only hashes what changed.
        let _ = std::fs::copy(&real_index, &index);
    }
    let tree = git(&["add", "-A"], Some(&index)).and_then(|_| git(&["write-tree"], Some(&index)));
    if tree.is_none() {
        ws.warn(
            "cannot tell whether the working tree has changes (git add -A failed); the evidence goes to HEAD",
        );
    }
    Ok(WorktreeState {
        dirty_tree: tree.filter(|t| Some(t) != head_tree.as_ref()),
        head,
        head_tree,
    })
}

/// Puts the evidence of a test run where it belongs: on HEAD's iteration when the working
/// tree is HEAD and it has none yet; on a new "re-run" iteration when the same state was
/// already tested (no code change: only better tests are progress); on a working-tree
/// iteration when there are uncommitted changes (the next commit of that tree adopts it).
fn record_run(
    ws: &Workspace<'_>,
    run: &mut Run,
    state: &WorktreeState,
    evidence: TestEvidence,
    now: jiff::Timestamp,
) -> Result<Outcome> {
    let config = &ws.config;
    let tree = state.dirty_tree.clone().or_else(|| state.head_tree.clone());
    let last = run.iterations().last();
    // The state under test was already tested: a re-run.
    if let Some(last) = last.filter(|l| l.tree.is_some() && l.tree == tree && l.test.is_some()) {
        let base = last
            .id
            .as_str()
            .split('+')
            .next()
            .unwrap_or(last.id.as_str())
            .to_owned();
        let n = run
            .iterations()
            .iter()
            .filter(|i| i.id.as_str().starts_with(&base))
            .count();
        let mut rerun = Iteration::new(CommitId::new(format!("{base}+run{}", n + 1))?);
        rerun.tree = tree.clone();
        rerun.parent_tree = tree;
        rerun.files = Some(Vec::new());
        rerun.message = last.message.clone();
        rerun.author = last.author.clone();
        rerun.at = Some(now);
        rerun.kind = Some(IterationKind::Attempt);
        rerun.uncommitted = true;
        rerun.test = Some(evidence);
        return Ok(run.record(config, rerun, now));
    }
    if let Some(dirty) = &state.dirty_tree {
        let parent_tree = last
            .and_then(|l| l.tree.clone())
            .or_else(|| state.head_tree.clone());
        let short: String = dirty.chars().take(12).collect();
        let mut it = Iteration::new(CommitId::new(format!("worktree-{short}"))?);
        it.tree = Some(dirty.clone());
        it.parent_tree = parent_tree;
        it.parents = state.head.clone().map(|h| vec![h]);
        it.at = Some(now);
        it.kind = Some(IterationKind::Attempt);
        it.uncommitted = true;
        it.test = Some(evidence);
        return Ok(run.record(config, it, now));
    }
    let Some(head) = &state.head else {
        return Err(Error::input(
            "the repository has no commit yet: commit first, then run the tests",
        )
        .into());
    };
    if let Some(out) = run.attach_test(config, head, evidence.clone(), now) {
        return Ok(out);
    }
    let mut it = ws.repo.iteration(head)?;
    if run.start_commit.as_ref() == Some(head) {
        // The state the run started from: evidence about it is the baseline, not an attempt.
        it.kind = Some(IterationKind::Context);
    }
    it.test = Some(evidence);
    Ok(run.record_local(config, it, now))
}

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
    let fp = fingerprint_files(&files)?;
    let source = format!(
        "ingest {}",
        args.files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let Some(outcome) = TestEvidence::outcome_of(args.exit_code.map(|c| c == 0), &fp) else {
        ws.warn(&format!(
            "`{source}`: no test result loopguard recognises in the files: nothing recorded\nhint: {NO_RESULT_HINT}"
        ));
        if args.json {
            let run = super::state::current(&ws)?;
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
    let (out, run) = ws.with_run(now, |run| {
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
    hook::announce(&ws, &out.events, &s);
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
