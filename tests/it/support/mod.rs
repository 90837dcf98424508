//! What every integration test shares: real repositories ([`TestRepo`]), the real binary
//! driven through a fluent builder ([`lg`] → [`Lg`] → [`Ran`]), the guarded repository most
//! scenarios start from, and the real runner logs under `tests/fixtures/logs`.
//!
//! ```ignore
//! let repo = guarded("");
//! repo.commit_empty("nothing");
//! lg(&repo).args(["status", "--json"]).run().ok().json()["state"] == "closed";
//! lg(&repo).args(["hook", "pre-commit"]).run().code(1).stderr_has("stagnation");
//! ```
//!
//! Every module of the test binary reaches it as `crate::support`.

pub(crate) mod ci;
pub(crate) mod fast_import;
pub(crate) mod github_fake;
pub(crate) mod gitrepo;
pub(crate) mod snapshots;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) use gitrepo::TestRepo;
use serde_json::Value;

/// The `loopguard` binary under test.
pub(crate) fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("loopguard")
}

/// A real runner log: `runner/failure/variant.log` under `tests/fixtures/logs`.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/logs")
        .join(rel)
}

/// The fenced blocks of `lang` in a markdown file (the documentation's examples).
pub(crate) fn fenced_blocks<'a>(md: &'a str, lang: &str) -> Vec<&'a str> {
    let fence = format!("```{lang}\n");
    md.split(&fence)
        .skip(1)
        .map(|rest| rest.split("```").next().expect("a closed fence"))
        .collect()
}

/// `loopguard …` in `repo`, with the repository's pinned environment.
pub(crate) fn lg(repo: &TestRepo) -> Lg {
    let mut cmd = repo.command(bin());
    // A test never answers the interactive prompt.
    cmd.env("LOOPGUARD_NO_PROMPT", "1");
    Lg {
        cmd,
        stdin: None,
        limit: None,
    }
}

/// `loopguard …` outside any test repository, in `dir` (git's variables of the caller
/// removed, so a test run from a hook still sees no repository).
pub(crate) fn lg_at(dir: &Path) -> Lg {
    let mut cmd = Command::new(bin());
    for (k, _) in std::env::vars() {
        if k.starts_with("GIT_") || k.starts_with("LOOPGUARD_") {
            cmd.env_remove(k);
        }
    }
    cmd.current_dir(dir).env("LOOPGUARD_NO_PROMPT", "1");
    Lg {
        cmd,
        stdin: None,
        limit: None,
    }
}

/// One invocation of the binary, built up and then [`Lg::run`].
pub(crate) struct Lg {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    /// Killed (with everything it started) when it runs longer: see [`Lg::within`].
    limit: Option<Duration>,
}

impl Lg {
    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.cmd.arg(arg);
        self
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub(crate) fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Runs in `dir` instead of the repository's root.
    pub(crate) fn dir(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    pub(crate) fn stdin(mut self, input: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(input.into());
        self
    }

    /// Kills the command, and every process it started, when it runs longer than `limit`
    /// (a read that blocks forever); [`Ran::code`] is then `None` and [`Ran::timed_out`]
    /// says so.
    pub(crate) fn within(mut self, limit: Duration) -> Self {
        self.limit = Some(limit);
        self
    }

    pub(crate) fn run(mut self) -> Ran {
        if let Some(limit) = self.limit {
            return run_within(self.cmd, self.stdin, limit);
        }
        let out = self.spawn().wait_with_output().expect("loopguard runs");
        Ran {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            timed_out: false,
        }
    }
}

impl Lg {
    /// Runs with stdout on a terminal (a pseudo-terminal a small Python process opens and
    /// reads; stdin and stderr stay as they are), as a person at a shell sees it. The
    /// terminal's `\r\n` line ends come back as `\n`.
    #[cfg(unix)]
    pub(crate) fn on_a_terminal(self) -> Lg {
        const TERMINAL: &str = "import os, pty, subprocess, sys\n\
            main, sub = pty.openpty()\n\
            child = subprocess.Popen(sys.argv[1:], stdout=sub)\n\
            os.close(sub)\n\
            out = b''\n\
            while True:\n\
            \x20   try:\n\
            \x20       chunk = os.read(main, 65536)\n\
            \x20   except OSError:\n\
            \x20       break\n\
            \x20   if not chunk:\n\
            \x20       break\n\
            \x20   out += chunk\n\
            code = child.wait()\n\
            sys.stdout.buffer.write(out.replace(b'\\r\\n', b'\\n'))\n\
            sys.exit(code if code >= 0 else 128 - code)\n";
        self.through_python(TERMINAL, &[])
    }

    /// Runs as a person does, from their own terminal: in a process session of its own, in
    /// no coding agent's process tree (a small Python program starts it from a grandchild
    /// that waits to be an orphan first), so not inside the harness the tests' agents run
    /// their hooks from (this process). The commands that relax a breaker refuse
    /// otherwise once a session's hooks have run here.
    #[cfg(unix)]
    pub(crate) fn by_a_person(self) -> Lg {
        const PERSON: &str = "import os, subprocess, sys, time\n\
            r, w = os.pipe()\n\
            child = os.fork()\n\
            if child == 0:\n\
            \x20   os.setsid()\n\
            \x20   me = os.getpid()\n\
            \x20   if os.fork() == 0:\n\
            \x20       while os.getppid() == me:\n\
            \x20           time.sleep(0.001)\n\
            \x20       code = subprocess.run(sys.argv[1:]).returncode\n\
            \x20       os.write(w, str(code if code >= 0 else 128 - code).encode())\n\
            \x20   os._exit(0)\n\
            os.close(w)\n\
            os.waitpid(child, 0)\n\
            sys.exit(int(os.read(r, 16) or b'1'))\n";
        self.through_python(PERSON, &[])
    }

    /// This command run by a small Python program (`script`, given `script_args` and then
    /// the command line), in the command's environment and directory.
    #[cfg(unix)]
    fn through_python(self, script: &str, script_args: &[&OsStr]) -> Lg {
        let mut cmd = Command::new("python3");
        cmd.args(["-I", "-S", "-c", script])
            .args(script_args)
            .arg(self.cmd.get_program())
            .args(self.cmd.get_args());
        for (k, v) in self.cmd.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(dir) = self.cmd.get_current_dir() {
            cmd.current_dir(dir);
        }
        Lg {
            cmd,
            stdin: self.stdin,
            limit: self.limit,
        }
    }

    /// Starts the binary with its output piped and its input written.
    fn spawn(&mut self) -> std::process::Child {
        use std::io::Write;
        self.cmd.stdin(if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        self.cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("loopguard starts");
        if let Some(input) = self.stdin.take() {
            let mut pipe = child.stdin.take().expect("a piped stdin");
            // The command may exit before it reads everything: that is its answer.
            let _ = pipe.write_all(&input);
        }
        child
    }

    /// [`Lg::run`], and the peak resident memory of the process in KiB. For memory
    /// bounds, never timings.
    ///
    /// Not measured from this process: Linux counts into a child's peak the peak of the
    /// address space it was forked (or vfork-spawned) from, and this test binary runs many
    /// tests at once. A small Python process starts it instead and reports its children's
    /// peak: that includes Python's own few MiB, so the figure errs high, never low.
    #[cfg(target_os = "linux")]
    pub(crate) fn run_measured(self) -> (Ran, u64) {
        const MEASURE: &str = "import resource, subprocess, sys\n\
            code = subprocess.run(sys.argv[2:]).returncode\n\
            open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n\
            sys.exit(code if code >= 0 else 128 - code)\n";
        let report = tempfile::NamedTempFile::new().expect("a temporary file");
        let ran = self
            .through_python(MEASURE, &[report.path().as_os_str()])
            .run();
        let kib = std::fs::read_to_string(report.path())
            .expect("the measuring process wrote the peak")
            .trim()
            .parse()
            .expect("a number of KiB");
        (ran, kib)
    }
}

/// Reads a child's pipe to its end on a thread of its own (neither pipe fills while the
/// other is read), as lossy UTF-8.
fn drain(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Runs `cmd` in its own process group and kills the group when it outlives `limit`, so a
/// hook blocked on a FIFO cannot hold the test (or the pipes) forever.
pub(crate) fn run_within(mut cmd: Command, stdin: Option<Vec<u8>>, limit: Duration) -> Ran {
    use std::io::Write;
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the command starts");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("a piped stdin");
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let out = drain(child.stdout.take().expect("piped"));
    let err = drain(child.stderr.take().expect("piped"));
    let deadline = Instant::now() + limit;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the command") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            timed_out = true;
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ran {
        code: status.and_then(|s| s.code()),
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
        timed_out,
    }
}

/// `git ARGS` in `repo` (hooks and all), killed when it outlives `limit`.
pub(crate) fn git_within(repo: &TestRepo, args: &[&str], limit: Duration) -> Ran {
    let mut cmd = repo.command("git");
    cmd.args(args);
    run_within(cmd, None, limit)
}

/// What one invocation left. The assertions return `self`, so they chain.
#[derive(Debug, Clone)]
pub(crate) struct Ran {
    /// `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Killed by [`Lg::within`]'s limit.
    pub timed_out: bool,
}

impl Ran {
    /// It ended by itself before its limit.
    #[track_caller]
    pub(crate) fn finished(self) -> Self {
        assert!(
            !self.timed_out,
            "still running at its limit (killed)\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }

    /// Exit 0, or a panic that shows everything.
    #[track_caller]
    pub(crate) fn ok(self) -> Self {
        self.code(0)
    }

    #[track_caller]
    pub(crate) fn code(self, expected: i32) -> Self {
        assert_eq!(
            self.code,
            Some(expected),
            "exit code\nstdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    pub(crate) fn stdout_has(self, needle: &str) -> Self {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}:\n{}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    pub(crate) fn stderr_has(self, needle: &str) -> Self {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}:\n{}",
            self.stderr
        );
        self
    }

    /// stdout as JSON.
    #[track_caller]
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }

    pub(crate) fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// `loopguard status --json`.
#[track_caller]
pub(crate) fn status(repo: &TestRepo) -> Value {
    lg(repo).args(["status", "--json"]).run().ok().json()
}

/// The breaker's state now.
#[track_caller]
pub(crate) fn state(repo: &TestRepo) -> String {
    status(repo)["state"]
        .as_str()
        .expect("status has a state")
        .to_owned()
}

/// A repository whose maintainer made the first commit (with `config` as `.loopguard.yml`,
/// when not empty) and ran `loopguard init` on `main`; commits after this are the agent's.
pub(crate) fn guarded(config: &str) -> TestRepo {
    guarded_in(TestRepo::new(), config)
}

/// [`guarded`] in `repo`, a fresh repository made some other way
/// ([`TestRepo::new_with`]: SHA-256 objects, say).
pub(crate) fn guarded_in(repo: TestRepo, config: &str) -> TestRepo {
    repo.author("Maintainer", "maintainer@example.com");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    41\n}\n");
    repo.write("README.md", "demo\n");
    if !config.is_empty() {
        repo.write(".loopguard.yml", config);
    }
    repo.commit("Initial commit");
    lg(&repo).arg("init").run().ok();
    repo.as_agent();
    repo
}

/// `n` commits that each add new content (`src/{tag}_{i}.rs`), with the hooks on.
pub(crate) fn productive(repo: &TestRepo, n: usize, tag: &str) {
    for i in 0..n {
        repo.write(
            &format!("src/{tag}_{i}.rs"),
            format!("pub fn f{i}() -> usize {{ {i} }}\n"),
        );
        repo.commit(&format!("Add {tag} step {i}"));
    }
}

/// A "test command" that prints a real runner log and exits as that runner did.
pub(crate) fn replay_log(log: &Path, code: i32) -> Vec<String> {
    vec![
        "sh".into(),
        "-c".into(),
        format!("cat '{}'; exit {code}", log.display()),
    ]
}

/// `loopguard run -- sh -c 'cat LOG; exit CODE'`: a test run that printed `log`.
pub(crate) fn run_log(repo: &TestRepo, log: &str, code: i32) -> Ran {
    lg(repo)
        .args(["run", "--"])
        .args(replay_log(&fixture(log), code))
        .run()
}

/// Another process holding the store's lock (`flock(1)`, whose child does not inherit it:
/// dropping the holder frees it), held once `new` returns.
pub(crate) struct LockHolder(std::process::Child);

impl LockHolder {
    pub(crate) fn new(repo: &TestRepo) -> LockHolder {
        let lock = repo.path().join(".git/loopguard/lock");
        let flock = |args: &[&str]| {
            let mut cmd = Command::new("flock");
            cmd.args(args).arg(&lock);
            cmd.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            cmd
        };
        let holder = flock(&["-o"])
            .args(["sleep", "120"])
            .spawn()
            .expect("flock(1) is needed for this test (util-linux)");
        // Held once `flock -n` fails.
        let mut tries = 0;
        while flock(&["-n"]).arg("true").status().unwrap().success() {
            tries += 1;
            assert!(tries < 500, "flock never took the lock");
            std::thread::sleep(Duration::from_millis(20));
        }
        LockHolder(holder)
    }
}

impl Drop for LockHolder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
