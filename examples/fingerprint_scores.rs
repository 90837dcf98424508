//! Scores the fingerprinter per runner over a tree of real runner output laid out as
//! `tests/fixtures/logs` is (`<runner>/<failure>/<variant>.{log,xml,trx}`: every variant of
//! one failure directory is that failure, `passing/` passes), so the figures the README and
//! the closing notes quote can be made again:
//!
//!   cargo run --release --example fingerprint_scores -- [DIR] [--runner NAME]...
//!
//! DIR defaults to `tests/fixtures/logs/heldout` (the held-out set; `tests/fixtures/logs`
//! is the development set). Each failing run is fingerprinted as `run` sees it, with the
//! exit status it had (1; a passing run 0), and once more from its output alone (`signed
//! w/o status`, as `fingerprint FILE` sees it). Per runner:
//!
//! - *coverage*: the share of failing runs with a signature;
//! - *recall*: the share of pairs of runs of one failure that give one signature;
//! - *separation*: the share of pairs of runs of two failures that give two;
//! - *passing null*: passing runs without a signature;
//! - *claimed*: failing runs whose failures a parser gave (not the generic signature).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use loopguard::fingerprint::{FailureKind, Fingerprint, fingerprint_bytes};

/// One run: its failure directory and its fingerprints with and without the exit status.
struct Run {
    failure: String,
    with_status: Fingerprint,
    without_status: Fingerprint,
}

#[derive(Default)]
struct Score {
    runs: usize,
    failures: usize,
    failing: usize,
    signed: usize,
    signed_without_status: usize,
    claimed: usize,
    same: (usize, usize),
    different: (usize, usize),
    passing: usize,
    passing_null: usize,
}

fn ratio((n, of): (usize, usize)) -> f64 {
    if of == 0 { 1.0 } else { n as f64 / of as f64 }
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    entries
}

fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every run of one runner's directory.
fn runs_of(runner_dir: &Path) -> Vec<Run> {
    let mut runs = Vec::new();
    for failure_dir in sorted_dirs(runner_dir).into_iter().filter(|p| p.is_dir()) {
        let failure = name(&failure_dir);
        let code = i32::from(failure != "passing");
        for path in sorted_dirs(&failure_dir) {
            let bytes = std::fs::read(&path).expect("a readable fixture");
            let without_status = fingerprint_bytes(&bytes);
            runs.push(Run {
                failure: failure.clone(),
                with_status: without_status.clone().with_exit_code(code),
                without_status,
            });
        }
    }
    runs
}

fn score(runs: &[Run]) -> Score {
    let mut s = Score {
        runs: runs.len(),
        ..Score::default()
    };
    let mut by_failure: BTreeMap<&str, Vec<&Run>> = BTreeMap::new();
    for r in runs {
        by_failure.entry(&r.failure).or_default().push(r);
    }
    for (failure, group) in &by_failure {
        if *failure == "passing" {
            s.passing += group.len();
            s.passing_null += group
                .iter()
                .filter(|r| r.with_status.signature.is_none())
                .count();
            continue;
        }
        s.failures += 1;
        for (i, a) in group.iter().enumerate() {
            s.failing += 1;
            s.signed += usize::from(a.with_status.signature.is_some());
            s.signed_without_status += usize::from(a.without_status.signature.is_some());
            s.claimed += usize::from(
                a.with_status
                    .failures
                    .iter()
                    .any(|f| f.kind != FailureKind::Generic),
            );
            for b in &group[i + 1..] {
                s.same.1 += 1;
                s.same.0 += usize::from(a.with_status.signature == b.with_status.signature);
            }
        }
    }
    let failing: Vec<&Vec<&Run>> = by_failure
        .iter()
        .filter(|(f, _)| **f != "passing")
        .map(|(_, g)| g)
        .collect();
    for (i, a) in failing.iter().enumerate() {
        for b in &failing[i + 1..] {
            for x in a.iter() {
                for y in b.iter() {
                    s.different.1 += 1;
                    s.different.0 +=
                        usize::from(x.with_status.signature != y.with_status.signature);
                }
            }
        }
    }
    s
}

fn main() {
    let mut root = PathBuf::from("tests/fixtures/logs/heldout");
    let mut only: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runner" => only.extend(args.next()),
            _ => root = PathBuf::from(arg),
        }
    }
    println!(
        "| runner | runs | failures | coverage | signed w/o status | claimed by a parser | recall (pairs) | separation (pairs) | passing null |"
    );
    println!("|---|---:|---:|---|---|---|---|---|---|");
    for runner_dir in sorted_dirs(&root).into_iter().filter(|p| p.is_dir()) {
        let runner = name(&runner_dir);
        if runner == "heldout" || (!only.is_empty() && !only.contains(&runner)) {
            continue;
        }
        let s = score(&runs_of(&runner_dir));
        println!(
            "| `{runner}` | {} | {} | {:.3} ({}/{}) | {}/{} | {}/{} | {:.3} ({}/{}) | {:.3} ({}/{}) | {}/{} |",
            s.runs,
            s.failures,
            ratio((s.signed, s.failing)),
            s.signed,
            s.failing,
            s.signed_without_status,
            s.failing,
            s.claimed,
            s.failing,
            ratio(s.same),
            s.same.0,
            s.same.1,
            ratio(s.different),
            s.different.0,
            s.different.1,
            s.passing_null,
            s.passing,
        );
    }
}
