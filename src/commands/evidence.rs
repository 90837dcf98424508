//! Test evidence, the steps `fingerprint`, `run`, `ingest` and `ci` share: logs and test
//! reports (JUnit, TRX, xUnit.net or NUnit XML, told apart by their content) fingerprinted
//! (paths and globs expanded), and a test result recorded on the run (the commits the hooks
//! missed caught up first; a working-tree iteration for tests run on uncommitted changes).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use globset::GlobBuilder;

use crate::ci::evidence::evidence_from_fingerprint;
use crate::error::InputError;
use crate::fingerprint::{Fingerprint, fingerprint_reader};
use crate::iteration::{CommitId, Iteration, IterationKind, TestEvidence};
use crate::run::{Outcome, Run};

use super::Workspace;
use super::progress::{Progress, Reading};

/// What to do about output that holds no test result.
pub(super) const NO_RESULT_HINT: &str = "check the command (a typo, a missing tool), run the test runner itself (cargo test, pytest, go test, npx jest, dotnet test, ...), or ingest its test report (JUnit, TRX, xUnit or NUnit XML)";

/// What to pass when a file named is not there.
const FILE_HINT: &str = "pass the test log or the test report (JUnit, TRX, xUnit or NUnit XML) the test step wrote (globs like `reports/*.xml` are fine), or `-` for standard input";

/// Fingerprints files (`-` is standard input) as one run.
pub fn fingerprint_files(files: &[PathBuf]) -> Result<Fingerprint> {
    fingerprint_files_with(files, &mut Progress::hidden())
}

/// [`fingerprint_files`], moving `progress` over the files' bytes.
pub(super) fn fingerprint_files_with(
    files: &[PathBuf],
    progress: &mut Progress,
) -> Result<Fingerprint> {
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
                return Err(InputError::IsADirectory { path: f.clone() }.into());
            }
            std::fs::File::open(f).and_then(|file| {
                fingerprint_reader(Reading {
                    inner: file,
                    progress: &mut *progress,
                })
            })
        }
        .map_err(|source| InputError::opening(f.clone(), source, FILE_HINT))?;
        parts.push(fp);
    }
    Ok(Fingerprint::combine(parts))
}

/// Records the commits before `target` that no hook recorded (made with the hooks off), so
/// evidence attached to it does not leave a gap behind it; their events. `target` itself
/// is left to the caller, which records it with its evidence as one attempt (an attempt
/// that mends a trip must arrive with its evidence). When `target` is not HEAD, HEAD's
/// commits are caught up through HEAD.
pub(super) fn catch_up(
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
pub(super) struct WorktreeState {
    pub(super) head: Option<CommitId>,
    head_tree: Option<String>,
    /// The tree of the working tree as `git stash` would save it: the index and the
    /// tracked files' changes, no untracked file (a scratch file is not the agent's
    /// attempt); `None` when it equals HEAD's tree or could not be computed.
    pub(super) dirty_tree: Option<String>,
}

/// The working tree as a tree id, written the way `git stash` does: a temporary copy of
/// the index, `git add -u` (tracked files only: what is staged stays, untracked files are
/// left out, as `git stash` leaves them), `git write-tree`. Nothing of the user's index or
/// files changes.
pub(super) fn worktree_state(ws: &Workspace<'_>) -> Result<WorktreeState> {
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
        // A copy keeps the stat cache: `add -u` then only hashes what changed.
        copy_index(&real_index, &index);
    }
    if !index.exists() && head.is_some() {
        // No index to copy (none yet, or the copy failed): the tracked files are HEAD's.
        git(&["read-tree", "HEAD"], Some(&index));
    }
    let tree = git(&["add", "-u"], Some(&index)).and_then(|_| git(&["write-tree"], Some(&index)));
    if tree.is_none() {
        ws.warn(
            "cannot tell whether the working tree has changes (git add -u failed); the evidence goes to HEAD",
        );
    }
    Ok(WorktreeState {
        dirty_tree: tree.filter(|t| Some(t) != head_tree.as_ref()),
        head,
        head_tree,
    })
}

/// Copies the index with its modification time. Git trusts a cached stat only for files
/// older than the index file (racy-git detection): a copy stamped "now" would make a file
/// rewritten within the second of the last commit, at the same size, look unchanged.
fn copy_index(from: &Path, to: &Path) {
    let copied = std::fs::copy(from, to).is_ok();
    let modified = std::fs::metadata(from).and_then(|m| m.modified());
    if let (true, Ok(modified)) = (copied, modified) {
        let stamped = std::fs::File::options()
            .write(true)
            .open(to)
            .and_then(|f| f.set_modified(modified));
        if stamped.is_err() {
            // Without the stamp the cache cannot be trusted: an empty index hashes all.
            let _ = std::fs::remove_file(to);
        }
    } else {
        let _ = std::fs::remove_file(to);
    }
}

/// Puts the evidence of a test run where it belongs: on HEAD's iteration when the working
/// tree is HEAD and it has none yet; on a new "re-run" iteration when the same state was
/// already tested (no code change: only better tests are progress); on a working-tree
/// iteration when there are uncommitted changes (the next commit of that tree adopts it).
pub(super) fn record_run(
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
        if last.uncommitted {
            // Still the working tree on the same commit: committing it as it was tested is
            // this attempt, as it is after one run (`Run::tested_as`).
            rerun.parents = last.parents.clone();
        }
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
        // Its change, as the commit of this tree will carry it: the files and lines the
        // reports show, and what the rules judge (a protected path, a test skip).
        if let Err(e) = ws.repo.describe_tree_change(&mut it) {
            ws.warn(&format!(
                "cannot read the change of the working tree: {e}; it is recorded as unknown"
            ));
        }
        it.parents = state.head.clone().map(|h| vec![h]);
        it.at = Some(now);
        it.kind = Some(IterationKind::Attempt);
        it.uncommitted = true;
        it.test = Some(evidence);
        return Ok(run.record(config, it, now));
    }
    let Some(head) = &state.head else {
        return Err(InputError::NoCommits {
            what: "the repository",
            hint: "commit first, then run the tests",
        }
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

/// The evidence of logs and test reports, fingerprinted together as one run.
pub(super) fn evidence_from_files(paths: &[PathBuf], base: &Path) -> Result<Option<TestEvidence>> {
    let fp = fingerprint_files(paths)?;
    let shown: Vec<String> = paths
        .iter()
        .map(|p| super::shown(p, base).display().to_string())
        .collect();
    Ok(evidence_from_fingerprint(&fp, &shown.join(", ")))
}

fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

/// Expands paths and globs (relative to `base`): existing files, sorted, without
/// duplicates; and the globs that matched nothing. A plain path that does not exist is an
/// error. Each pattern may hold several, one per line (the action's inputs).
pub(super) fn expand_globs(
    patterns: &[String],
    base: &Path,
) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let mut files = Vec::new();
    let mut unmatched = Vec::new();
    let mut seen = HashSet::new();
    let lines = patterns
        .iter()
        .flat_map(|p| p.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty());
    for pattern in lines {
        if !has_glob(pattern) {
            let path = base.join(pattern);
            if !path.is_file() {
                return Err(InputError::NoSuchFile {
                    path: PathBuf::from(pattern),
                    hint: FILE_HINT,
                }
                .into());
            }
            if seen.insert(path.clone()) {
                files.push(path);
            }
            continue;
        }
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| InputError::BadGlob {
                pattern: pattern.to_owned(),
                reason: e.kind().to_string(),
            })?
            .compile_matcher();
        // Walk only below the part of the pattern without wildcards.
        let fixed: PathBuf = Path::new(pattern)
            .components()
            .take_while(|c| !has_glob(&c.as_os_str().to_string_lossy()))
            .collect();
        let root = base.join(&fixed);
        // An absolute pattern (a directory outside the checkout, `${{ runner.temp }}/…`)
        // matches whole paths; a relative one, paths below `base`.
        let absolute = Path::new(pattern).is_absolute();
        let mut matched: Vec<PathBuf> = Vec::new();
        walk(&root, &mut |path| {
            let shown = if absolute {
                Some(path)
            } else {
                path.strip_prefix(base).ok()
            };
            if shown.is_some_and(|p| glob.is_match(p)) {
                matched.push(path.to_owned());
            }
        });
        if matched.is_empty() {
            unmatched.push(pattern.to_owned());
        }
        matched.sort();
        for m in matched {
            if seen.insert(m.clone()) {
                files.push(m);
            }
        }
    }
    Ok((files, unmatched))
}

/// Calls `f` for every file below `dir` (symlinked directories are not followed, and
/// `.git` is skipped).
fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if entry.file_name() != ".git" {
                walk(&path, f);
            }
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            f(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_expand_below_their_fixed_part() {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "reports/a.xml",
            "reports/sub/b.xml",
            "reports/c.txt",
            "test.log",
        ] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let rel = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
                .collect()
        };
        let (files, none) = expand_globs(
            &[
                "reports/*.xml\nreports/**/*.xml".into(),
                "test.log".into(),
                "out/*.log".into(),
            ],
            dir.path(),
        )
        .unwrap();
        assert_eq!(
            rel(files),
            ["reports/a.xml", "reports/sub/b.xml", "test.log"]
        );
        assert_eq!(none, ["out/*.log"]);
        // Outside the checkout: an absolute pattern.
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("test.log"), "x").unwrap();
        let pattern = format!("{}/*.log", elsewhere.path().display());
        let (files, none) = expand_globs(&[pattern], dir.path()).unwrap();
        assert_eq!(files, [elsewhere.path().join("test.log")]);
        assert!(none.is_empty());
        let err = expand_globs(&["missing.log".into()], dir.path()).unwrap_err();
        assert_eq!(crate::error::exit_code_of(&err), 2);
        assert!(
            err.to_string().starts_with("missing.log: no such file"),
            "{err}"
        );
    }
}
