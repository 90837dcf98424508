//! A real git repository for tests, driven by the real `git` under a pinned environment so
//! commit ids are stable from run to run: fixed names, emails and dates (the clock moves a
//! minute per commit), no system or global config (`GIT_CONFIG_NOSYSTEM=1`, `HOME` and
//! `XDG_CONFIG_HOME` in a temp dir), and none of the caller's `GIT_*` variables (tests run
//! fine from inside a git hook).
//!
//! Include it with `#[path = "support/gitrepo.rs"] mod gitrepo;` (or from a `support`
//! module). Every method panics with git's stderr when git fails: these are tests.

use std::cell::{Cell, RefCell};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

/// 2023-11-14T22:13:20Z: commit times start here.
pub(crate) const EPOCH: i64 = 1_700_000_000;
pub(crate) const AGENT_NAME: &str = "Agent";
pub(crate) const AGENT_EMAIL: &str = "agent@example.com";

/// The variables git reads that a test must not inherit from its caller.
const INHERITED_GIT_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_REFLOG_ACTION",
    "GIT_PREFIX",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
];

pub(crate) struct TestRepo {
    /// Holds the temp dir (repository and home) alive.
    _tmp: TempDir,
    path: PathBuf,
    home: PathBuf,
    clock: Cell<i64>,
    author: RefCell<(String, String)>,
}

impl Default for TestRepo {
    fn default() -> Self {
        Self::new()
    }
}

impl TestRepo {
    /// An empty repository on branch `main`, committing as the agent.
    pub(crate) fn new() -> TestRepo {
        TestRepo::new_with(&[])
    }

    /// An empty repository on branch `main` made with these `git init` arguments
    /// (`--object-format=sha256`, `--ref-format=reftable`).
    pub(crate) fn new_with(init: &[&str]) -> TestRepo {
        let repo = TestRepo::bare_dirs();
        let mut args = vec!["init", "-q", "-b", "main"];
        args.extend_from_slice(init);
        args.push(".");
        repo.git(&args);
        repo.configure();
        repo
    }

    /// A clone of `source` (any `git clone` arguments may follow, e.g. `--depth 3`), in a
    /// fresh temp dir with its own pinned environment.
    pub(crate) fn clone_from(source: &TestRepo, extra: &[&str]) -> TestRepo {
        let repo = TestRepo::bare_dirs();
        let url = format!("file://{}", source.path().display());
        let mut args = vec!["clone", "-q"];
        args.extend_from_slice(extra);
        args.push(&url);
        args.push(".");
        repo.git(&args);
        repo.configure();
        repo.clock.set(source.clock.get());
        repo
    }

    fn bare_dirs() -> TestRepo {
        let tmp = tempfile::Builder::new()
            .prefix("loopguard-test-")
            .tempdir()
            .expect("a temp dir");
        let path = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&path).expect("create repo dir");
        std::fs::create_dir_all(&home).expect("create home dir");
        TestRepo {
            _tmp: tmp,
            path,
            home,
            clock: Cell::new(EPOCH),
            author: RefCell::new((AGENT_NAME.to_owned(), AGENT_EMAIL.to_owned())),
        }
    }

    fn configure(&self) {
        self.git(&["config", "commit.gpgsign", "false"]);
        self.git(&["config", "core.autocrlf", "false"]);
    }

    /// The worktree root.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The pinned `HOME` (empty unless a test writes there).
    pub(crate) fn home(&self) -> &Path {
        &self.home
    }

    /// The environment every command of this repository runs with; apply it to
    /// `assert_cmd` commands with [`TestRepo::command`] or by hand.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let date = format!("{} +0000", self.clock.get());
        let (name, email) = self.author.borrow().clone();
        let home = self.home.display().to_string();
        vec![
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("HOME".into(), home.clone()),
            ("XDG_CONFIG_HOME".into(), home.clone()),
            ("XDG_STATE_HOME".into(), format!("{home}/.local/state")),
            ("GIT_AUTHOR_NAME".into(), name),
            ("GIT_AUTHOR_EMAIL".into(), email),
            ("GIT_COMMITTER_NAME".into(), "Committer".into()),
            ("GIT_COMMITTER_EMAIL".into(), "committer@example.com".into()),
            ("GIT_AUTHOR_DATE".into(), date.clone()),
            ("GIT_COMMITTER_DATE".into(), date),
            ("GIT_EDITOR".into(), "true".into()),
            ("GIT_SEQUENCE_EDITOR".into(), "true".into()),
            ("LC_ALL".into(), "C".into()),
            ("TZ".into(), "UTC".into()),
        ]
    }

    /// `program` in the worktree with the pinned environment.
    pub(crate) fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        self.apply_env(&mut cmd);
        cmd.current_dir(&self.path);
        cmd
    }

    /// Puts the pinned environment on any command (e.g. an `assert_cmd` one).
    pub(crate) fn apply_env(&self, cmd: &mut Command) {
        for var in INHERITED_GIT_VARS {
            cmd.env_remove(var);
        }
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
    }

    /// Runs git; panics when it fails.
    pub(crate) fn git(&self, args: &[&str]) -> String {
        let out = self.try_git(args);
        assert!(
            out.status.success(),
            "git {} failed ({}):\n{}{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    /// Runs git and hands back its output, whatever the status.
    pub(crate) fn try_git(&self, args: &[&str]) -> Output {
        self.command("git").args(args).output().expect("git runs")
    }

    /// Moves the clock one minute on; every commit-making helper calls it first.
    pub(crate) fn tick(&self) -> &Self {
        self.clock.set(self.clock.get() + 60);
        self
    }

    /// Sets the clock (the next commit is a minute later): for histories with skewed dates.
    pub(crate) fn set_now(&self, seconds: i64) -> &Self {
        self.clock.set(seconds);
        self
    }

    /// The current commit time, seconds since the epoch.
    pub(crate) fn now(&self) -> i64 {
        self.clock.get()
    }

    /// Commits from now on are authored by `name <email>`.
    pub(crate) fn author(&self, name: &str, email: &str) -> &Self {
        *self.author.borrow_mut() = (name.to_owned(), email.to_owned());
        self
    }

    /// Back to the default agent identity.
    pub(crate) fn as_agent(&self) -> &Self {
        self.author(AGENT_NAME, AGENT_EMAIL)
    }

    /// Writes a file (parent directories created).
    pub(crate) fn write(&self, path: &str, content: impl AsRef<[u8]>) -> &Self {
        let full = self.path.join(path);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).expect("create parent dirs");
        }
        std::fs::write(&full, content).expect("write file");
        self
    }

    /// Appends to a file.
    pub(crate) fn append(&self, path: &str, content: &str) -> &Self {
        let mut old = self.read(path).unwrap_or_default();
        old.push_str(content);
        self.write(path, old)
    }

    pub(crate) fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.path.join(path)).ok()
    }

    /// Removes a file from the worktree (the next commit records the deletion).
    pub(crate) fn remove(&self, path: &str) -> &Self {
        std::fs::remove_file(self.path.join(path)).expect("remove file");
        self
    }

    /// `git mv from to`.
    pub(crate) fn rename(&self, from: &str, to: &str) -> &Self {
        if let Some(dir) = self.path.join(to).parent() {
            std::fs::create_dir_all(dir).expect("create parent dirs");
        }
        self.git(&["mv", from, to]);
        self
    }

    /// Stages everything and commits; returns the new commit id.
    pub(crate) fn commit(&self, message: &str) -> String {
        self.tick();
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.head()
    }

    /// A commit of `tree`'s tree on the parent `parent`, made with plumbing: no ref moves
    /// and no hook runs. Its id.
    pub(crate) fn commit_tree(&self, parent: &str, tree: &str, message: &str) -> String {
        self.git(&["commit-tree", "-p", parent, "-m", message, &self.tree(tree)])
    }

    /// A remote `origin` for this repository (a non-bare one that accepts pushes to its
    /// checked-out branch), returned so that it lives as long as the test needs it.
    pub(crate) fn with_remote(&self) -> TestRepo {
        let format = self.git(&["rev-parse", "--show-object-format"]);
        let remote = TestRepo::new_with(&[&format!("--object-format={format}")]);
        remote.git(&["config", "receive.denyCurrentBranch", "ignore"]);
        self.git(&[
            "remote",
            "add",
            "origin",
            &remote.path().display().to_string(),
        ]);
        remote
    }

    /// Stages everything and commits with the hooks off (`-c core.hooksPath=/dev/null`), as
    /// an agent dodging the guard would; returns the new commit id.
    pub(crate) fn commit_hooks_off(&self, message: &str) -> String {
        self.tick();
        self.git(&["-c", "core.hooksPath=/dev/null", "add", "-A"]);
        self.git(&[
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            message,
        ]);
        self.head()
    }

    /// Commits what is staged (nothing is added) and hands back git's output, refused or
    /// not: for commits a hook may refuse.
    pub(crate) fn try_commit_staged(&self, message: &str) -> Output {
        self.tick();
        self.try_git(&["commit", "-q", "--allow-empty", "-m", message])
    }

    /// Runs git with arguments that need not be UTF-8 (branch names with any bytes);
    /// hands back its output whatever the status.
    pub(crate) fn try_git_os(&self, args: &[&OsStr]) -> Output {
        self.command("git").args(args).output().expect("git runs")
    }

    /// [`TestRepo::try_git_os`], panicking when git fails.
    pub(crate) fn git_os(&self, args: &[&OsStr]) -> String {
        let out = self.try_git_os(args);
        assert!(
            out.status.success(),
            "git {:?} failed ({}):\n{}{}",
            args,
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    /// An empty commit (no change at all).
    pub(crate) fn commit_empty(&self, message: &str) -> String {
        self.tick();
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.head()
    }

    /// `git commit --amend` with everything staged and a new message.
    pub(crate) fn amend(&self, message: &str) -> String {
        self.tick();
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--amend", "--allow-empty", "-m", message]);
        self.head()
    }

    /// The full id of `HEAD`.
    pub(crate) fn head(&self) -> String {
        self.rev_parse("HEAD")
    }

    pub(crate) fn rev_parse(&self, rev: &str) -> String {
        self.git(&["rev-parse", "--verify", "-q", &format!("{rev}^{{commit}}")])
    }

    /// The tree id of `rev`.
    pub(crate) fn tree(&self, rev: &str) -> String {
        self.git(&["rev-parse", &format!("{rev}^{{tree}}")])
    }

    /// Creates branch `name` at `HEAD` (without switching).
    pub(crate) fn branch(&self, name: &str) -> &Self {
        self.git(&["branch", name]);
        self
    }

    /// Switches to an existing branch or commit (detached for a commit id).
    pub(crate) fn checkout(&self, rev: &str) -> &Self {
        self.git(&["checkout", "-q", rev]);
        self
    }

    /// Creates branch `name` at `HEAD` and switches to it.
    pub(crate) fn checkout_new(&self, name: &str) -> &Self {
        self.git(&["checkout", "-q", "-b", name]);
        self
    }

    /// Merges `rev` into the current branch with a merge commit; returns its id.
    pub(crate) fn merge(&self, rev: &str, message: &str) -> String {
        self.tick();
        self.git(&["merge", "-q", "--no-ff", "--no-edit", "-m", message, rev]);
        self.head()
    }

    /// `git revert` of `rev` with git's message; returns the new commit id.
    pub(crate) fn revert(&self, rev: &str) -> String {
        self.tick();
        self.git(&["revert", "--no-edit", rev]);
        self.head()
    }

    /// `git cherry-pick` of `rev`; returns the new commit id.
    pub(crate) fn cherry_pick(&self, rev: &str) -> String {
        self.tick();
        self.git(&["cherry-pick", rev]);
        self.head()
    }

    /// `git rebase onto` of the current branch; returns the new `HEAD`.
    pub(crate) fn rebase(&self, onto: &str) -> String {
        self.tick();
        self.git(&["rebase", "-q", onto]);
        self.head()
    }

    /// `git reset --hard rev`.
    pub(crate) fn reset_hard(&self, rev: &str) -> &Self {
        self.git(&["reset", "-q", "--hard", rev]);
        self
    }

    /// Makes the `path` file executable (the next commit records a mode change).
    #[cfg(unix)]
    pub(crate) fn chmod_x(&self, path: &str) -> &Self {
        use std::os::unix::fs::PermissionsExt;
        let full = self.path.join(path);
        let mut perms = std::fs::metadata(&full).expect("stat").permissions();
        perms.set_mode(0o755);
        std::fs::set_permissions(&full, perms).expect("chmod");
        self
    }

    /// `git worktree add -b branch <dir>`: a linked worktree in the same temp dir; returns
    /// its path.
    pub(crate) fn add_worktree(&self, name: &str, branch: &str) -> PathBuf {
        let dir = self.path.parent().expect("repo has a parent").join(name);
        self.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            branch,
            &dir.display().to_string(),
        ]);
        dir
    }

    /// The ids of `git rev-list` with the given arguments, in its order.
    pub(crate) fn rev_list(&self, args: &[&str]) -> Vec<String> {
        let mut all = vec!["rev-list"];
        all.extend_from_slice(args);
        self.git(&all).lines().map(str::to_owned).collect()
    }
}
