//! Inputs too large to trust: a commit that adds a 200 MB binary is read in bounded memory
//! (its blob is never loaded).

mod support;

use std::io::Write;
use std::path::Path;

use support::{TestRepo, guarded, lg, status};

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

/// Commits everything without running the hooks (the test runs them itself).
fn commit_without_hooks(repo: &TestRepo, message: &str) -> String {
    repo.tick();
    repo.git(&["add", "-A"]);
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "commit",
        "-q",
        "-m",
        message,
    ]);
    repo.head()
}

const MIB: u64 = 1024;

#[cfg(target_os = "linux")]
#[test]
fn a_200_mb_binary_in_a_commit_is_never_loaded_whole() {
    let repo = guarded("");
    random_file(&repo.path().join("assets/model.bin"), 200 << 20);
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    let added = commit_without_hooks(&repo, "Add the model");

    let (ran, kib) = lg(&repo).args(["hook", "post-commit"]).run_measured();
    let ran = ran.ok();
    eprintln!("hook post-commit, a 200 MB blob added: peak RSS {kib} KiB");
    assert!(
        kib < 100 * MIB,
        "hook post-commit peaked at {} MiB for a 200 MB blob\n{}",
        kib / MIB,
        ran.stderr
    );
    let s = status(&repo);
    assert_eq!(s["iterations"], 1, "{s}");

    // The blob changes again: its old and new ids are its part of the patch id, read from
    // headers only, in `check` as in the hook.
    random_file(&repo.path().join("assets/model.bin"), 200 << 20);
    std::fs::OpenOptions::new()
        .append(true)
        .open(repo.path().join("assets/model.bin"))
        .unwrap()
        .write_all(b"v2")
        .unwrap();
    commit_without_hooks(&repo, "Retrain the model");
    let (ran, kib) = lg(&repo)
        .args(["check", "--range", &format!("{added}~1..HEAD"), "--json"])
        .run_measured();
    assert!(ran.code == Some(0) || ran.code == Some(1), "{ran:?}");
    eprintln!("check over two 200 MB blobs: peak RSS {kib} KiB");
    assert!(
        kib < 100 * MIB,
        "check peaked at {} MiB over two 200 MB blobs",
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

