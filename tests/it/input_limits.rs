//! Inputs too large to trust: a commit that adds a 64 MiB binary is read in bounded memory
//! (its blob is never loaded), and a config is bounded in entries and pattern sizes
//! (docs/contract.md, "Limits").

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use crate::support::{TestRepo, guarded, lg, status};
use loopguard::error::exit_code_of_one;

/// `len` bytes of pseudo-random data (xorshift64*): incompressible, with NUL bytes early.
fn random_file(path: &Path, len: usize) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut chunk = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        for word in chunk.chunks_exact_mut(8) {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            word.copy_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
        }
        let n = left.min(chunk.len());
        out.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    out.flush().unwrap();
}

const MIB: u64 = 1024;
/// The binary's size, and the peak memory (KiB) the commands must stay under: less than the
/// blob, so a blob read whole fails it.
const BLOB: usize = 64 << 20;
const BOUND: u64 = 48 * MIB;

#[cfg(target_os = "linux")]
#[test]
fn a_64_mib_binary_in_a_commit_is_never_loaded_whole() {
    let repo = guarded("");
    // Stored, not deflated: git's zlib is most of this test's time otherwise. Whole, the
    // blob alone would take the process past the bound (the hook needs about 25 MiB).
    repo.git(&["config", "core.compression", "0"]);
    random_file(&repo.path().join("assets/model.bin"), BLOB);
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    let added = repo.commit_hooks_off("Add the model");

    let (ran, kib) = lg(&repo).args(["hook", "post-commit"]).run_measured();
    let ran = ran.ok();
    eprintln!("hook post-commit, a 64 MiB blob added: peak RSS {kib} KiB");
    assert!(
        kib < BOUND,
        "hook post-commit peaked at {} MiB for a 64 MiB blob\n{}",
        kib / MIB,
        ran.stderr
    );
    let s = status(&repo);
    assert_eq!(s["iterations"], 1, "{s}");

    // The blob changes again: its old and new ids are its part of the patch id, read from
    // headers only, in `check` as in the hook.
    random_file(&repo.path().join("assets/model.bin"), BLOB);
    std::fs::OpenOptions::new()
        .append(true)
        .open(repo.path().join("assets/model.bin"))
        .unwrap()
        .write_all(b"v2")
        .unwrap();
    repo.commit_hooks_off("Retrain the model");
    let (ran, kib) = lg(&repo)
        .args(["check", "--range", &format!("{added}~1..HEAD"), "--json"])
        .run_measured();
    assert!(ran.code == Some(0) || ran.code == Some(1), "{ran:?}");
    eprintln!("check over two 64 MiB blobs: peak RSS {kib} KiB");
    assert!(
        kib < BOUND,
        "check peaked at {} MiB over two 64 MiB blobs",
        kib / MIB
    );

    let r = loopguard::git::Repo::discover(repo.path()).unwrap();
    let first = r.iteration(&added).unwrap();
    let second = r.iteration(repo.head()).unwrap();
    let model = |it: &loopguard::iteration::Iteration| {
        it.files
            .as_ref()
            .unwrap()
            .iter()
            .find(|f| f.path == "assets/model.bin")
            .cloned()
            .unwrap()
    };
    // Opaque: no line counts.
    assert_eq!((model(&first).added, model(&first).deleted), (None, None));
    assert_eq!((model(&second).added, model(&second).deleted), (None, None));
    assert!(first.patch_id.is_some() && second.patch_id.is_some());
    assert_ne!(
        first.patch_id, second.patch_id,
        "other blob ids, another patch"
    );
}

/// What a 1 MiB config can hold: 40,000 test globs. Loading it took seconds and gigabytes
/// on every commit; it is refused at once, naming the key and the line.
fn forty_thousand_globs() -> String {
    let mut config = String::from("window: 10\npaths:\n  tests:\n");
    for i in 0..40_000 {
        let _ = writeln!(config, "    - \"dir{i}/**/*.rs\"");
    }
    config
}

#[test]
fn a_config_of_forty_thousand_globs_is_refused_naming_the_key_and_line() {
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    repo.write("README.md", "demo\n");
    repo.write(".loopguard.yml", forty_thousand_globs());
    repo.commit("Initial commit");
    let init = lg(&repo).arg("init").run().code(2);
    assert!(
        init.stderr
            .contains(".loopguard.yml:4:5: paths.tests: the list has more than 64 entries"),
        "{}",
        init.stderr
    );
    assert!(init.stderr.contains("hint:"), "{}", init.stderr);

    // A hook fails open on it, saying why.
    let hook = lg(&repo).args(["hook", "post-commit"]).run().ok();
    assert!(hook.stderr.contains("paths.tests"), "{}", hook.stderr);
}

#[test]
fn replay_takes_a_config_at_the_limits_and_refuses_one_past_them() {
    let dir = tempfile::tempdir().unwrap();
    let records = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/iterations.jsonl");
    let globs = |n: usize| -> String {
        (0..n)
            .map(|i| format!("    - 'src/{i}/**/*_{{test,spec}}.*'\n"))
            .collect()
    };
    let cases = [
        // (config, the error, or None when it loads)
        (format!("paths:\n  tests:\n{}", globs(64)), None),
        (
            format!("paths:\n  tests:\n{}", globs(65)),
            Some("cfg.yml:3:5: paths.tests: the list has more than 64 entries"),
        ),
        (
            format!("agents:\n  - '{}'\n", "x".repeat(129)),
            Some("cfg.yml:2:5: agents[0]: the glob is 129 bytes, more than the 128"),
        ),
        (
            "completion_patterns:\n  - '(done|fixed)'\n  - '(?i)(\\w{20}){20}'\n".to_owned(),
            Some("cfg.yml:3:5: completion_patterns[1]: invalid regex"),
        ),
    ];
    for (config, error) in cases {
        let path = dir.path().join("cfg.yml");
        std::fs::write(&path, &config).unwrap();
        let out = crate::support::lg_at(dir.path())
            .arg("replay")
            .arg("--config")
            .arg(&path)
            .arg(&records)
            .run();
        match error {
            None => assert!(matches!(out.code, Some(0 | 1)), "{out:?}"),
            Some(e) => {
                let out = out.code(2);
                assert!(out.stderr.contains(e), "want {e:?}:\n{}", out.stderr);
                assert!(out.stderr.contains("hint:"), "{}", out.stderr);
            }
        }
    }
}

#[test]
fn a_config_blob_past_the_size_limit_is_refused_from_its_header() {
    // In CI the config is read from git at the base commit, not from a file.
    let mut config = String::from("window: 10\n");
    while config.len() <= 2 << 20 {
        config.push_str("# a comment to pad the file past a mebibyte\n");
    }
    let mut p = crate::support::ci::Project::new(&config);
    let head = p.attempt("s.len()", "Try 1");
    let r = loopguard::git::Repo::discover(p.repo.path()).unwrap();
    match r.blob_at(&p.base, ".loopguard.yml") {
        Err(e @ loopguard::git::GitError::TooLarge { .. }) => {
            assert_eq!(exit_code_of_one(&e), 2, "{e}");
        }
        other => panic!("{other:?}"),
    }
    let gh = crate::support::github_fake::FakeGitHub::start_blocking();
    let event = crate::support::ci::payload(
        "push.json",
        &[("{{HEAD_SHA}}", &head), ("{{BEFORE}}", &p.base)],
    );
    let out = crate::support::ci::run_ci(&gh, &p.repo, "push", &event, &[]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr.contains(".loopguard.yml at ") && out.stderr.contains("more than the 1048576"),
        "{}",
        out.stderr
    );
}
