//! Input the user can fix, one error type per kind of input: the config ([`ConfigError`]),
//! iteration records ([`RecordError`]), and the GitHub Actions trigger ([`EventError`]).
//!
//! Each names where the input is wrong (file, line, column, key or field) in its message,
//! and says how to fix it in [`hint`](ConfigError::hint), apart from the message: the shell
//! prints the hint on a line of its own and maps every variant to an exit code in one
//! place (`src/error.rs`).

use std::path::PathBuf;

/// A config that cannot be used, and where: the file, its line and column, and the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Larger than a config may be (refused before it is parsed).
    #[error("{}:1:1: (file): the file is {size} bytes, more than the {max} a config may have", path.display())]
    TooLarge { path: PathBuf, size: u64, max: u64 },
    /// Not UTF-8; `line` is where the first invalid byte is.
    #[error("{}:{line}:1: (file): the file is not valid UTF-8", path.display())]
    NotUtf8 { path: PathBuf, line: u32 },
    /// A key that is unknown, of the wrong type, or whose value is wrong (`line` and
    /// `column` are 0 when the value has no place in the file).
    #[error("{}:{line}:{column}: {key}: {problem}", path.display())]
    Key {
        path: PathBuf,
        line: u32,
        column: u32,
        key: String,
        problem: String,
        hint: Option<String>,
    },
}

impl ConfigError {
    /// How to fix it.
    pub fn hint(&self) -> Option<&str> {
        match self {
            ConfigError::TooLarge { .. } => {
                Some("a config holds settings and a few globs: use fewer, broader globs")
            }
            ConfigError::NotUtf8 { .. } => Some("save the file as UTF-8"),
            ConfigError::Key { hint, .. } => hint.as_deref(),
        }
    }

    /// The file it is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ConfigError::TooLarge { path, .. }
            | ConfigError::NotUtf8 { path, .. }
            | ConfigError::Key { path, .. } => path,
        }
    }

    /// The same error with this hint (a [`ConfigError::Key`]; the others have their own).
    pub fn with_hint(mut self, text: impl Into<String>) -> Self {
        if let ConfigError::Key { hint, .. } = &mut self {
            *hint = Some(text.into());
        }
        self
    }
}

/// A line of an iteration-record file that is not a record (`replay`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Longer than any record is.
    #[error("{name}:{line}: a line of {bytes} bytes is not an iteration record (at most {} MiB)", max >> 20)]
    TooLong {
        name: String,
        line: usize,
        bytes: usize,
        max: usize,
    },
    /// Not JSON, or not a record; `field` is where it went wrong, when inside the object.
    #[error("{name}:{line}: not an iteration record{}: {reason}", at_field(field.as_deref()))]
    Invalid {
        name: String,
        line: usize,
        field: Option<String>,
        reason: String,
    },
}

impl RecordError {
    /// How to fix it.
    pub fn hint(&self) -> &'static str {
        match self {
            RecordError::TooLong { .. } => "one JSON object per line",
            RecordError::Invalid { .. } => {
                "one JSON object per line, with at least \"id\" (docs/contract.md, \"Iteration records\")"
            }
        }
    }
}

/// The GitHub Actions trigger cannot be read: a variable of the job, or the event payload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// A variable the job should have set is not set (`detail` says why it is needed).
    #[error("{name} is not set{detail}")]
    Unset { name: &'static str, detail: String },
    /// A variable (or a payload field) holds something that is not what it should be.
    #[error("{name}: {reason}")]
    Invalid { name: String, reason: String },
    /// The payload file is not JSON.
    #[error("{file}:{line}:{column}: not valid JSON: {reason}")]
    NotJson {
        file: String,
        line: usize,
        column: usize,
        reason: String,
    },
    /// The payload is JSON but not the event's: `at` is the field.
    #[error("{file}: unexpected payload{}: {reason}", at_field(at.as_deref()))]
    Unexpected {
        file: String,
        at: Option<String>,
        reason: String,
    },
}

impl EventError {
    /// How to fix it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            EventError::Unset {
                name: "GITHUB_REPOSITORY",
                ..
            } => Some("set GITHUB_REPOSITORY to `owner/name` (GitHub Actions sets it)"),
            EventError::Unset { .. } => {
                Some("`loopguard ci` runs inside a GitHub Actions job, which sets it")
            }
            EventError::Invalid { .. } => None,
            EventError::NotJson { .. } | EventError::Unexpected { .. } => Some(
                "GITHUB_EVENT_PATH is the payload GitHub Actions writes for the event in GITHUB_EVENT_NAME",
            ),
        }
    }
}

/// ` at `field``, or nothing at the top level.
fn at_field(field: Option<&str>) -> String {
    match field {
        Some(f) if !f.is_empty() && f != "." => format!(" at `{f}`"),
        _ => String::new(),
    }
}
