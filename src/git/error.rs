use std::path::PathBuf;

/// What went wrong reading git; each message ends with a `hint:` when the user can act.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error(
        "not a git repository (or any of its parents): {}: {reason}\nhint: run loopguard inside a git repository (`git init` makes one)",
        path.display()
    )]
    NotARepository { path: PathBuf, reason: String },

    #[error("bad revision `{rev}`: {reason}\nhint: {hint}")]
    BadRevision {
        rev: String,
        reason: String,
        hint: &'static str,
    },

    #[error(
        "{what}: the file is {size} bytes, more than the {max} loopguard reads\nhint: a config holds settings and a few globs: use fewer, broader globs"
    )]
    TooLarge { what: String, size: u64, max: u64 },

    /// A walk that would read more commits than it may (see `Repo::new_commits`).
    #[error("{what}: more than {max} commits to read")]
    TooManyCommits { what: String, max: usize },

    #[error("{context}: {message}")]
    Other { context: String, message: String },
}

impl GitError {
    /// Whether the user gave something wrong (exit 2) rather than git failing (exit 3).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            GitError::BadRevision { .. } | GitError::TooLarge { .. }
        )
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
