//! The GitHub Action's install step, `scripts/action-install.sh`, against a fake release: the
//! archives and `.sha256` files that `scripts/package-release.sh` (the release workflow's
//! packer) makes of the real binary, served over HTTP on 127.0.0.1 at GitHub's release paths.
//! The script runs as action.yml runs it (bash, the runner's variables); `gh` is a stub on
//! PATH, so the attestation step is exercised without GitHub.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use tempfile::TempDir;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const VERSION: &str = env!("CARGO_PKG_VERSION");
const REPO: &str = "octo/loopguard";
/// A commit sha the fake API says tag v<VERSION> points at.
const RELEASE_SHA: &str = "1111111111111111111111111111111111111111";
const OTHER_SHA: &str = "2222222222222222222222222222222222222222";

/// Every runner the Action knows, and the archive it must pick there.
const RUNNERS: &[(&str, &str, &str)] = &[
    ("Linux", "X64", "loopguard-x86_64-unknown-linux-musl.tar.gz"),
    (
        "Linux",
        "ARM64",
        "loopguard-aarch64-unknown-linux-musl.tar.gz",
    ),
    ("macOS", "X64", "loopguard-x86_64-apple-darwin.tar.gz"),
    ("macOS", "ARM64", "loopguard-aarch64-apple-darwin.tar.gz"),
    ("Windows", "X64", "loopguard-x86_64-pc-windows-msvc.zip"),
    ("Windows", "ARM64", "loopguard-x86_64-pc-windows-msvc.zip"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn write_executable(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The release archives of the real binary (stripped when `strip` is there: the debug
/// binary is large), packed once for every target by the release workflow's script.
fn release_assets() -> &'static BTreeMap<String, Vec<u8>> {
    static ASSETS: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    ASSETS.get_or_init(|| {
        let dir = TempDir::new().unwrap();
        let bin = dir.path().join("loopguard");
        fs::copy(env!("CARGO_BIN_EXE_loopguard"), &bin).unwrap();
        let _ = Command::new("strip").arg(&bin).status();
        let out = dir.path().join("out");
        let mut targets: Vec<&str> = RUNNERS
            .iter()
            .map(|(_, _, a)| {
                a.trim_start_matches("loopguard-")
                    .trim_end_matches(".tar.gz")
                    .trim_end_matches(".zip")
            })
            .collect();
        targets.dedup();
        // One packer per target, all at once.
        let packers: Vec<_> = targets
            .iter()
            .map(|target| {
                let child = Command::new("bash")
                    .arg(root().join("scripts/package-release.sh"))
                    .arg(target)
                    .arg(&bin)
                    .arg(&out)
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap();
                (target, child)
            })
            .collect();
        for (target, mut child) in packers {
            assert!(
                child.wait().unwrap().success(),
                "package-release.sh {target}"
            );
        }
        fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().into_string().unwrap(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect()
    })
}

/// Serves files by path; 404 for anything else. Records every request.
#[derive(Clone, Default)]
struct Files {
    files: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Respond for Files {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let path = request.url.path().to_owned();
        self.seen.lock().unwrap().push(path.clone());
        match self.files.lock().unwrap().get(&path) {
            Some(body) => ResponseTemplate::new(200).set_body_bytes(body.clone()),
            None => ResponseTemplate::new(404).set_body_string("Not Found"),
        }
    }
}

/// A fake GitHub: releases under /octo/loopguard/releases/download/<tag>/, the API under /api.
struct FakeGitHub {
    _runtime: tokio::runtime::Runtime,
    server: MockServer,
    files: Files,
}

impl FakeGitHub {
    /// Serving release v<VERSION> with every archive and checksum.
    fn with_release() -> Self {
        let fake = Self::empty();
        for (name, body) in release_assets() {
            fake.put(
                &format!("/{REPO}/releases/download/v{VERSION}/{name}"),
                body.clone(),
            );
        }
        fake.put(
            &format!("/api/repos/{REPO}/commits/v{VERSION}"),
            RELEASE_SHA.as_bytes().to_vec(),
        );
        fake
    }

    fn empty() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let files = Files::default();
        let server = runtime.block_on(async {
            let server = MockServer::start().await;
            Mock::given(any())
                .respond_with(files.clone())
                .mount(&server)
                .await;
            server
        });
        FakeGitHub {
            _runtime: runtime,
            server,
            files,
        }
    }

    fn put(&self, path: &str, body: Vec<u8>) {
        self.files.lock_files().insert(path.to_owned(), body);
    }

    fn remove(&self, path: &str) {
        self.files.lock_files().remove(path);
    }

    fn asset_path(name: &str) -> String {
        format!("/{REPO}/releases/download/v{VERSION}/{name}")
    }

    fn seen(&self) -> Vec<String> {
        self.files.seen.lock().unwrap().clone()
    }

    fn uri(&self) -> String {
        self.server.uri()
    }
}

impl Files {
    fn lock_files(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        self.files.lock().unwrap()
    }
}

/// One run of the install step: a runner's environment, the action checked out where the
/// runner puts it (`_actions/OWNER/REPO/REF`), a `gh` stub.
struct Runner {
    dir: TempDir,
    os: &'static str,
    arch: &'static str,
    action_ref: String,
    /// Whether `github.action_ref` reaches the step (it does not always in composite
    /// actions; the script then reads the ref from the action's path).
    pass_ref: bool,
    gh: Gh,
}

#[derive(Clone, Copy, PartialEq)]
enum Gh {
    /// A gh without `attestation` (older than 2.49).
    Old,
    /// `gh attestation verify` succeeds.
    Verifies,
    /// `gh attestation verify` fails: the archive was not built by the repository's workflow.
    Refuses,
}

struct Run {
    out: Output,
    outputs: BTreeMap<String, String>,
    gh_log: String,
}

impl Run {
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    fn ok(&self) -> &Self {
        assert!(
            self.out.status.success(),
            "exit {:?}\nstdout: {}\nstderr: {}",
            self.out.status.code(),
            self.stdout(),
            self.stderr()
        );
        self
    }
    fn failed(&self) -> &Self {
        assert_eq!(
            self.out.status.code(),
            Some(1),
            "stdout: {}\nstderr: {}",
            self.stdout(),
            self.stderr()
        );
        assert!(
            self.outputs.is_empty(),
            "a failed install sets no output: {:?}",
            self.outputs
        );
        self
    }
    fn output(&self, key: &str) -> &str {
        self.outputs
            .get(key)
            .map(String::as_str)
            .unwrap_or_else(|| {
                panic!(
                    "no output {key}: {:?}\nstderr: {}",
                    self.outputs,
                    self.stderr()
                )
            })
    }
}

impl Runner {
    fn new(os: &'static str, arch: &'static str, action_ref: &str) -> Self {
        Runner {
            dir: TempDir::new().unwrap(),
            os,
            arch,
            action_ref: action_ref.to_owned(),
            pass_ref: true,
            gh: Gh::Old,
        }
    }

    fn run(&self, fake: &FakeGitHub) -> Run {
        let d = self.dir.path();
        let action = d.join("_actions/octo/loopguard").join(&self.action_ref);
        fs::create_dir_all(&action).unwrap();
        if !action.join("Cargo.toml").exists() {
            for file in ["Cargo.toml", "Cargo.lock"] {
                fs::copy(root().join(file), action.join(file)).unwrap();
            }
            for dir in ["src", "crates", "hooks"] {
                copy_dir(&root().join(dir), &action.join(dir));
            }
        }
        for dir in ["temp", "toolcache", "stub"] {
            fs::create_dir_all(d.join(dir)).unwrap();
        }
        let gh_log = d.join("gh.log");
        let verify_status = match self.gh {
            Gh::Old => None,
            Gh::Verifies => Some(0),
            Gh::Refuses => Some(1),
        };
        let gh = match verify_status {
            None => "#!/bin/sh\necho \"unknown command \\\"$1\\\" for \\\"gh\\\"\" >&2\nexit 1\n"
                .to_owned(),
            Some(status) => format!(
                "#!/bin/sh\n[ \"$3\" = --help ] && exit 0\necho \"$*\" >>'{}'\n\
                 [ {status} = 0 ] || echo 'verification failed: no attestation matched' >&2\nexit {status}\n",
                gh_log.display()
            ),
        };
        write_executable(&d.join("stub/gh"), &gh);
        let output = d.join("github_output");
        fs::write(&output, "").unwrap();
        let path = format!(
            "{}:{}",
            d.join("stub").display(),
            std::env::var("PATH").unwrap()
        );
        let out = Command::new("bash")
            .arg(root().join("scripts/action-install.sh"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", d)
            .env("GITHUB_ACTION_PATH", &action)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_SERVER_URL", fake.uri())
            .env("GITHUB_API_URL", format!("{}/api", fake.uri()))
            .env("RUNNER_OS", self.os)
            .env("RUNNER_ARCH", self.arch)
            .env("RUNNER_TEMP", d.join("temp"))
            .env("RUNNER_TOOL_CACHE", d.join("toolcache"))
            .env("ACTION_REPOSITORY", if self.pass_ref { REPO } else { "" })
            .env(
                "ACTION_REF",
                if self.pass_ref { &self.action_ref } else { "" },
            )
            .env("GH_TOKEN", "test-token")
            .output()
            .unwrap();
        let outputs = fs::read_to_string(&output)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        Run {
            out,
            outputs,
            gh_log: fs::read_to_string(&gh_log).unwrap_or_default(),
        }
    }
}

fn release_ref() -> String {
    format!("v{VERSION}")
}

#[test]
fn each_runner_gets_its_own_archive_checked_and_runnable() {
    let fake = FakeGitHub::with_release();
    for &(os, arch, asset) in RUNNERS {
        let before = fake.seen().len();
        let runner = Runner::new(os, arch, &release_ref());
        let run = runner.run(&fake);
        run.ok();
        assert_eq!(run.output("source"), "release", "{os} {arch}");
        assert_eq!(run.output("version"), VERSION);
        let dir = asset.trim_end_matches(".tar.gz").trim_end_matches(".zip");
        let exe = if os == "Windows" {
            "loopguard.exe"
        } else {
            "loopguard"
        };
        let bin = PathBuf::from(run.output("bin"));
        assert!(
            bin.ends_with(format!("{dir}/{exe}")),
            "{os} {arch}: {}",
            bin.display()
        );
        // The script ran it already (`--version`); it is the real binary.
        let version = Command::new(&bin).arg("--version").output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&version.stdout).trim(),
            format!("loopguard {VERSION}")
        );
        assert!(run.stdout().contains("sha256"), "{}", run.stdout());
        assert_eq!(
            fake.seen()[before..],
            [
                FakeGitHub::asset_path(asset),
                FakeGitHub::asset_path(&format!("{asset}.sha256"))
            ],
            "{os} {arch}: downloads exactly its archive and checksum"
        );
    }
}

#[test]
fn a_checksum_mismatch_is_refused_and_the_binary_never_runs() {
    let fake = FakeGitHub::with_release();
    let asset = "loopguard-x86_64-unknown-linux-musl.tar.gz";
    // A tampered archive of the same name: its "loopguard" leaves a mark when it runs.
    let tamper = TempDir::new().unwrap();
    let mark = tamper.path().join("it-ran");
    let evil = tamper.path().join("evil");
    write_executable(
        &evil,
        &format!(
            "#!/bin/sh\ntouch '{}'\necho loopguard {VERSION}\n",
            mark.display()
        ),
    );
    let status = Command::new("bash")
        .arg(root().join("scripts/package-release.sh"))
        .arg("x86_64-unknown-linux-musl")
        .arg(&evil)
        .arg(tamper.path().join("out"))
        .arg(env!("CARGO_BIN_EXE_loopguard"))
        .status()
        .unwrap();
    assert!(status.success());
    let tampered = fs::read(tamper.path().join("out").join(asset)).unwrap();
    assert_ne!(&tampered, &release_assets()[asset]);
    fake.put(&FakeGitHub::asset_path(asset), tampered);

    let runner = Runner::new("Linux", "X64", &release_ref());
    let run = runner.run(&fake);
    run.failed();
    assert!(
        run.stderr().contains("checksum mismatch"),
        "{}",
        run.stderr()
    );
    assert!(
        run.stdout()
            .contains("::error title=loopguard install::checksum mismatch")
    );
    assert!(!mark.exists(), "the tampered binary ran");
    // Nothing of the archive was unpacked.
    let unpacked: Vec<_> = walk(&runner.dir.path().join("temp"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "loopguard"))
        .collect();
    assert!(unpacked.is_empty(), "{unpacked:?}");
}

#[test]
fn a_malformed_or_missing_checksum_is_refused() {
    let fake = FakeGitHub::with_release();
    let sum = FakeGitHub::asset_path("loopguard-aarch64-apple-darwin.tar.gz.sha256");
    fake.put(&sum, b"<html>rate limited</html>\n".to_vec());
    let run = Runner::new("macOS", "ARM64", &release_ref()).run(&fake);
    run.failed();
    assert!(run.stderr().contains("malformed"), "{}", run.stderr());

    fake.remove(&sum);
    let run = Runner::new("macOS", "ARM64", &release_ref()).run(&fake);
    run.failed();
    assert!(
        run.stderr()
            .contains("has no loopguard-aarch64-apple-darwin.tar.gz.sha256"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_missing_asset_is_an_error_at_a_release_ref_and_nothing_is_built() {
    let fake = FakeGitHub::with_release();
    fake.remove(&FakeGitHub::asset_path(
        "loopguard-x86_64-apple-darwin.tar.gz",
    ));
    let run = Runner::new("macOS", "X64", &release_ref()).run(&fake);
    run.failed();
    assert!(
        run.stderr()
            .contains("has no usable loopguard-x86_64-apple-darwin.tar.gz"),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("HTTP 404"), "{}", run.stderr());
    assert!(
        run.stderr().contains("never builds from source"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_non_release_ref_builds_from_source_without_downloading() {
    let fake = FakeGitHub::with_release();
    for action_ref in ["main", "feature/x", OTHER_SHA] {
        let runner = Runner::new("Linux", "X64", action_ref);
        let run = runner.run(&fake);
        run.ok();
        assert_eq!(run.output("source"), "build", "{action_ref}");
        let root = run.output("root");
        assert!(
            root.starts_with(
                runner
                    .dir
                    .path()
                    .join("toolcache/loopguard")
                    .to_str()
                    .unwrap()
            )
        );
        assert_eq!(run.output("bin"), format!("{root}/bin/loopguard"));
        assert!(run.output("key").starts_with("loopguard-Linux-X64-"));
    }
    // A branch asks nothing; the sha asks the API whether it is the release's commit.
    assert_eq!(
        fake.seen(),
        [format!("/api/repos/{REPO}/commits/v{VERSION}")]
    );
    // On Windows the build is loopguard.exe.
    let runner = Runner::new("Windows", "X64", "main");
    let a = runner.run(&fake);
    assert_eq!(
        a.ok().output("bin"),
        format!("{}/bin/loopguard.exe", a.output("root"))
    );
    // The cache key is the digest of the source, the core crate's included.
    let core = runner
        .dir
        .path()
        .join("_actions/octo/loopguard/main/crates/loopguard-core/src/lib.rs");
    fs::write(&core, fs::read_to_string(&core).unwrap() + "\n// changed\n").unwrap();
    let b = runner.run(&fake);
    assert_ne!(a.output("key"), b.ok().output("key"));
}

#[test]
fn a_pinned_release_sha_and_the_moving_tag_are_releases() {
    let fake = FakeGitHub::with_release();
    let run = Runner::new("Linux", "ARM64", RELEASE_SHA).run(&fake);
    run.ok();
    assert_eq!(run.output("source"), "release");
    assert!(
        run.stdout()
            .contains(&format!("is the commit of release v{VERSION}"))
    );

    let (major, rest) = VERSION.split_once('.').unwrap();
    let moving = if major == "0" {
        format!("v0.{}", rest.split('.').next().unwrap())
    } else {
        format!("v{major}")
    };
    let mut runner = Runner::new("Linux", "X64", &moving);
    // Composite actions do not always get github.action_ref: the ref and repository come
    // from the action's path then.
    runner.pass_ref = false;
    let run = runner.run(&fake);
    run.ok();
    assert_eq!(run.output("source"), "release");
    assert!(fake.seen().contains(&FakeGitHub::asset_path(
        "loopguard-x86_64-unknown-linux-musl.tar.gz"
    )));
}

#[test]
fn a_release_tag_that_is_not_the_source_version_is_an_error() {
    let fake = FakeGitHub::with_release();
    let run = Runner::new("Linux", "X64", "v99.0.0").run(&fake);
    run.failed();
    assert!(
        run.stderr()
            .contains(&format!("its Cargo.toml says version {VERSION}")),
        "{}",
        run.stderr()
    );
    assert!(fake.seen().is_empty());
}

#[test]
fn the_attestation_is_verified_where_gh_can_and_a_failure_refuses_the_binary() {
    let fake = FakeGitHub::with_release();
    let mut runner = Runner::new("Linux", "X64", &release_ref());
    runner.gh = Gh::Verifies;
    let run = runner.run(&fake);
    run.ok();
    assert!(
        run.stdout()
            .contains("attestation of octo/loopguard verified"),
        "{}",
        run.stdout()
    );
    assert!(
        run.gh_log.starts_with("attestation verify ")
            && run
                .gh_log
                .contains("loopguard-x86_64-unknown-linux-musl.tar.gz --repo octo/loopguard"),
        "{}",
        run.gh_log
    );

    let mut runner = Runner::new("Linux", "X64", &release_ref());
    runner.gh = Gh::Refuses;
    let run = runner.run(&fake);
    run.failed();
    assert!(
        run.stderr().contains("no attestation matched"),
        "gh's reason is shown: {}",
        run.stderr()
    );
    assert!(
        run.stderr().contains("does not verify for octo/loopguard"),
        "{}",
        run.stderr()
    );

    // An older gh cannot: the checksum alone is checked, and the step says so.
    let run = Runner::new("Linux", "X64", &release_ref()).run(&fake);
    run.ok();
    assert!(
        run.stdout().contains("the checksum alone was checked"),
        "{}",
        run.stdout()
    );
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}
