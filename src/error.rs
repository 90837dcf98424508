//! Errors that reach the user, and the one place they map to exit codes (docs/contract.md,
//! "Exit codes").
//!
//! Commands return `anyhow::Result`; [`exit_code_of`] walks the error chain and the first
//! error it knows decides. Every error type of the shell and the core is known here, so a
//! call site cannot forget to classify one: a bad revision from git is the user's input
//! (2) wherever it surfaces.

/// Exit codes, as documented in docs/contract.md.
pub mod exit {
    /// Done; the breaker is closed or half-open.
    pub const OK: u8 = 0;
    /// The breaker is open (gating commands).
    pub const TRIPPED: u8 = 1;
    /// Bad usage, invalid configuration, unreadable or invalid input.
    pub const USAGE: u8 = 2;
    /// Environment failure: not a git repository, git or I/O failure, GitHub API failure.
    pub const ENV: u8 = 3;
    /// `run -- CMD`: the iteration tripped the breaker (no ordinary test runner uses it).
    pub const RUN_TRIPPED: u8 = 86;
}

pub use loopguard_core::error::Error as Invalid;

/// An error for the user, classified by what they can do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Input the user can fix: usage, configuration, a log or record file.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// The environment failed: git, I/O, the network.
    #[error("{message}")]
    Env { message: String },
}

impl Error {
    pub fn input(message: impl Into<String>) -> Self {
        Error::Invalid(Invalid::input(message))
    }

    pub fn env(message: impl Into<String>) -> Self {
        Error::Env {
            message: message.into(),
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Invalid(_) => exit::USAGE,
            Error::Env { .. } => exit::ENV,
        }
    }
}

/// The exit code for any error chain: the first error in it that says what it is decides;
/// anything unknown (an I/O error, say) is an environment failure.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    err.chain()
        .find_map(|e| {
            if let Some(e) = e.downcast_ref::<Error>() {
                Some(e.exit_code())
            } else if e.downcast_ref::<Invalid>().is_some() {
                Some(exit::USAGE)
            } else {
                e.downcast_ref::<crate::git::GitError>()
                    .map(|g| if g.is_usage() { exit::USAGE } else { exit::ENV })
            }
        })
        .unwrap_or(exit::ENV)
}
