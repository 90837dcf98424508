//! Times `loopguard::git` alone (used by `scripts/bench-git.sh`):
//!
//!   evidence REPO head [REV]    the evidence of HEAD or REV (what post-commit reads)
//!   evidence REPO range SPEC    the evidence of every commit of a range (`check --range`)
//!
//! Prints only counts, so the measurement is the library's work.

use std::path::Path;

use anyhow::{Context, bail};
use loopguard::git::Repo;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [repo, what, rest @ ..] = args.as_slice() else {
        bail!("usage: evidence REPO head [REV] | evidence REPO range SPEC");
    };
    let repo = Repo::discover(Path::new(repo))?;
    match (what.as_str(), rest) {
        ("head", [] | [_]) => {
            let it = repo.iteration(rest.first().map_or("HEAD", String::as_str))?;
            println!("{} files", it.files.map_or(0, |f| f.len()));
        }
        ("range", [spec]) => {
            let started = std::time::Instant::now();
            let ids = repo.rev_range(spec)?;
            let walked = started.elapsed();
            let its = repo.iterations(&ids).context("reading the range")?;
            if std::env::var_os("EVIDENCE_TIMES").is_some() {
                eprintln!("walk {walked:?}, evidence {:?}", started.elapsed() - walked);
            }
            let with_patch = its.iter().filter(|i| i.patch_id.is_some()).count();
            println!("{} commits, {with_patch} with a patch id", its.len());
        }
        _ => bail!("usage: evidence REPO head [REV] | evidence REPO range SPEC"),
    }
    Ok(())
}
