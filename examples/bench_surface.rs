//! What a guard-surface snapshot costs (`scripts/bench-surface.sh`): a repository with
//! loopguard's hooks, linked worktrees (`extensions.worktreeConfig`), a global config with
//! an include, the agents' hook configs and a store; then `Surface::snapshot` many times
//! without the previous snapshot (everything read), with it (nothing changed: the stat
//! path), with one hook rewritten before each call, and the check every gate makes of the
//! other worktrees (`unguarded_elsewhere`). Prints the CPU time (user +
//! system, `getrusage`) and the wall time per call: medians of rounds, and the slowest.
//!
//!     cargo run --release --example bench_surface -- [CALLS] [WORKTREES]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use loopguard::guard_surface::{Place, Surface};
use loopguard::settings::GitEnv;

fn git(dir: &Path, home: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// CPU seconds this process has used (user + system).
fn cpu() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Runs `f` `calls` times in rounds of 100: the median and the slowest round's CPU and
/// wall time per call, in microseconds.
fn measure(calls: usize, mut f: impl FnMut()) -> (f64, f64, f64, f64) {
    let mut rounds = Vec::new();
    for _ in 0..calls.div_ceil(100) {
        let (c0, w0) = (cpu(), Instant::now());
        for _ in 0..100 {
            f();
        }
        let cpu_us = (cpu() - c0) * 1e6 / 100.0;
        let wall_us = w0.elapsed().as_secs_f64() * 1e6 / 100.0;
        rounds.push((cpu_us, wall_us));
    }
    let mut cpus: Vec<f64> = rounds.iter().map(|r| r.0).collect();
    let mut walls: Vec<f64> = rounds.iter().map(|r| r.1).collect();
    cpus.sort_by(f64::total_cmp);
    walls.sort_by(f64::total_cmp);
    let mid = cpus.len() / 2;
    (
        cpus[mid],
        cpus[cpus.len() - 1],
        walls[mid],
        walls[walls.len() - 1],
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let worktrees: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let tmp = tempfile::tempdir().expect("a temp dir");
    let (root, home) = (tmp.path().join("repo"), tmp.path().join("home"));
    std::fs::create_dir_all(&root).expect("repo dir");
    std::fs::create_dir_all(&home).expect("home dir");
    git(&root, &home, &["init", "-q", "-b", "main"]);
    git(
        &root,
        &home,
        &["commit", "-q", "--allow-empty", "-m", "one"],
    );
    git(
        &root,
        &home,
        &["config", "extensions.worktreeConfig", "true"],
    );
    for i in 0..worktrees {
        let dir = tmp.path().join(format!("wt{i}"));
        git(
            &root,
            &home,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                &format!("wt{i}"),
                &dir.display().to_string(),
            ],
        );
    }
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = a\n[include]\n\tpath = ~/more.inc\n",
    )
    .expect("write");
    std::fs::write(home.join("more.inc"), "[alias]\n\tst = status\n").expect("write");
    let common = root.join(".git");
    let exe = std::env::current_exe().expect("this binary");
    let store = common.join("loopguard");
    loopguard::hooks::install(
        &common.join("hooks"),
        &loopguard::hooks::chained_dir(&store),
        &exe,
        false,
    )
    .expect("hooks installed");
    for dir in ["open", "runs"] {
        std::fs::create_dir_all(store.join(dir)).expect("store dirs");
    }
    // The sessions, where loopguard keeps them: under the user's state directory.
    let sessions = loopguard::store::place::sessions_dir(Some(&home.join(".local/state")), &common);
    std::fs::create_dir_all(sessions.join("open")).expect("sessions dir");
    std::fs::create_dir_all(root.join(".claude")).expect("agent dir");
    std::fs::write(root.join(".claude/settings.json"), "{\"hooks\": {}}\n").expect("write");
    let place = Place {
        common_dir: common.clone(),
        root: root.clone(),
        env: GitEnv {
            home: Some(home.clone()),
            no_system: false,
            path: std::env::var("PATH").ok(),
            ..GitEnv::default()
        },
        sessions,
    };
    let first = Surface::snapshot(&place, None);
    // Settled: the files were written more than the racy margin before the snapshots
    // compared with it.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let settled = Surface::snapshot(&place, None);
    assert!(settled.changes_since(&first).is_empty());
    let cold = measure(calls, || {
        std::hint::black_box(Surface::snapshot(&place, None));
    });
    let warm = measure(calls, || {
        std::hint::black_box(Surface::snapshot(&place, Some(&settled)));
    });
    // What post-commit and pre-push do: a snapshot with everything read, and
    // each worktree's hooks judged.
    let gates = measure(calls, || {
        std::hint::black_box(loopguard::guard_surface::unguarded_elsewhere(
            &place, &root, true,
        ));
    });
    let hook = common.join("hooks/post-commit");
    let text = std::fs::read(&hook).expect("the hook");
    let changed = measure(calls, || {
        std::fs::write(&hook, &text).expect("rewrite");
        std::hint::black_box(Surface::snapshot(&place, Some(&settled)));
    });
    let items = serde_json::to_value(&settled).expect("json")["items"]
        .as_array()
        .map_or(0, Vec::len);
    println!(
        "guard surface: {items} watched paths, {} worktrees, {calls} calls each (µs per call: median round / slowest round)",
        settled.worktrees().len()
    );
    for (what, (c, cmax, w, wmax)) in [
        ("everything read (no previous snapshot)", cold),
        ("nothing changed (stat path)", warm),
        ("one hook rewritten before each call", changed),
        ("a hook's check of the other worktrees", gates),
    ] {
        println!("  {what:<40} cpu {c:>7.1} / {cmax:>7.1}   wall {w:>7.1} / {wmax:>7.1}");
    }
}
