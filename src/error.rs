//! Errors that reach the user, and the one place they map to exit codes (CONTRACT.md).

use std::path::PathBuf;

/// Exit codes, as documented in CONTRACT.md.
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

/// An error for the user, classified by what they can do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Invalid input the user can fix: usage, configuration, a log or record file.
    #[error("{message}")]
    Input { message: String },
    /// A configuration error at a place in a file.
    #[error("{}:{line}:{column}: {key}: {message}", path.display())]
    Config {
        path: PathBuf,
        line: u32,
        column: u32,
        key: String,
        message: String,
    },
    /// The environment failed: git, I/O, the network.
    #[error("{message}")]
    Env { message: String },
}

impl Error {
    pub fn input(message: impl Into<String>) -> Self {
        Error::Input {
            message: message.into(),
        }
    }

    pub fn env(message: impl Into<String>) -> Self {
        Error::Env {
            message: message.into(),
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input { .. } | Error::Config { .. } => exit::USAGE,
            Error::Env { .. } => exit::ENV,
        }
    }
}

/// The exit code for any error chain: the first [`Error`] in it decides; anything else is
/// an environment failure.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    err.chain()
        .find_map(|e| e.downcast_ref::<Error>())
        .map_or(exit::ENV, Error::exit_code)
}
