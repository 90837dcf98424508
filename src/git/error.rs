use std::path::PathBuf;

/// What went wrong reading git, or running it.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("not a git repository (or any of its parents): {}: {reason}", path.display())]
    NotARepository { path: PathBuf, reason: String },

    /// The repository keeps its refs in a format loopguard cannot read
    /// (`extensions.refStorage`): gix reads loose and packed refs only.
    #[error(
        "this repository keeps its refs as {format} (extensions.refStorage in {}), which loopguard cannot read",
        config.display()
    )]
    RefFormat { format: String, config: PathBuf },

    /// A repository git finds that cannot be opened: a config file it reads cannot be
    /// (a bad line, an unknown `extensions.*`, an include that is not a file).
    #[error("cannot open the git repository {}: {reason}", git_dir.display())]
    CannotOpen { git_dir: PathBuf, reason: String },

    #[error("bad revision `{rev}`: {reason}")]
    BadRevision {
        rev: String,
        reason: String,
        hint: &'static str,
    },

    #[error("{what}: the file is {size} bytes, more than the {max} loopguard reads")]
    TooLarge { what: String, size: u64, max: u64 },

    /// A walk that would read more commits than it may (see `Repo::new_commits`).
    #[error("{what}: more than {max} commits to read")]
    TooManyCommits { what: String, max: usize },

    #[error("{context}: {message}")]
    Other { context: String, message: String },

    /// `git` itself (which `init` runs to ask what git ignores) could not be started.
    #[error("cannot run git {args}")]
    CannotRun {
        args: String,
        #[source]
        source: std::io::Error,
    },

    /// `git` ran and failed.
    #[error("git {args} failed: {stderr}")]
    Failed { args: String, stderr: String },
}

impl GitError {
    /// How to fix it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            GitError::NotARepository { .. } => {
                Some("run loopguard inside a git repository (`git init` makes one)")
            }
            GitError::RefFormat { .. } => Some(
                "loopguard reads refs kept as files only (the git library it uses cannot read reftable): \
                 move them back with `git refs migrate --ref-format=files` (git 2.48 and later move the \
                 reflogs too; git 2.47 refuses a repository that has any: clone it with \
                 `git clone --ref-format=files` instead) and run `loopguard init`. Where loopguard's hooks \
                 are installed they refuse every commit, push and ref update until then (the migration \
                 too): `loopguard uninstall` takes them out first",
            ),
            GitError::CannotOpen { .. } => Some(
                "fix the file and line named (git names them: `git status` there says the same), \
                 and loopguard reads the repository again; until then git runs no hook there",
            ),
            GitError::BadRevision { hint, .. } => Some(hint),
            GitError::TooLarge { .. } => {
                Some("a config holds settings and a few globs: use fewer, broader globs")
            }
            GitError::CannotRun { .. } => Some("check that git is installed and on PATH"),
            GitError::TooManyCommits { .. } | GitError::Other { .. } | GitError::Failed { .. } => {
                None
            }
        }
    }

    pub(crate) fn other(context: impl Into<String>, err: impl std::fmt::Display) -> Self {
        GitError::Other {
            context: context.into(),
            message: err.to_string(),
        }
    }

    pub(crate) fn bad_rev(rev: &str, reason: impl std::fmt::Display) -> Self {
        GitError::BadRevision {
            rev: rev.to_owned(),
            reason: reason.to_string(),
            hint: "give a commit, branch or tag that exists here (`git log --oneline` lists them); in a shallow clone, fetch more history (`git fetch --unshallow`)",
        }
    }
}
