//! Input the user can fix: a malformed config, record, payload or log. The shell wraps
//! these in its own error type, which maps every error to its exit code in one place.

use std::path::PathBuf;

/// Invalid input, named precisely enough to fix (file, line, column, key).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Invalid input the user can fix: usage, a log or record file, a payload.
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
}

impl Error {
    pub fn input(message: impl Into<String>) -> Self {
        Error::Input {
            message: message.into(),
        }
    }
}
