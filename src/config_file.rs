//! Reading `.loopguard.yml` from disk (the core parses it). The file is in the working
//! tree, where anything may be put instead of it: it is read only when it is a regular file
//! (a link to one is fine), without blocking, and at most [`MAX_CONFIG_BYTES`] bytes (the
//! core's limit, which also bounds a config read at a commit or from the API).

use std::path::{Path, PathBuf};

use loopguard_core::config::{CONFIG_FILE, Config, MAX_CONFIG_BYTES};
use loopguard_core::error::ConfigError;

use crate::safe_fs::{self, Follow, is_refusal};

/// A config file that cannot be used: not there where it must be, not a file, or not a
/// config (its text's errors are [`ConfigError`]s).
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    /// The text is not a valid config.
    #[error(transparent)]
    Invalid(#[from] ConfigError),
    /// Something other than a regular file of a config's size is there (`why` names it).
    #[error("{why}")]
    Refused { path: PathBuf, why: String },
    /// The file system failed reading it.
    #[error("cannot read {}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `--config` names a file that is not there.
    #[error("{}: no such config file", path.display())]
    NoSuchFile { path: PathBuf },
    /// `ci --config` names a file the PR's base commit does not have.
    #[error("{path}: no such file in the base commit {at}")]
    NotInBase { path: String, at: String },
    /// `dashboard --config` names a file that is neither in the checkout nor at
    /// `GITHUB_SHA`.
    #[error("{path}: no such config file, neither here nor at GITHUB_SHA")]
    NowhereToBeFound { path: String },
    /// The config pinned in the run (its `source`) does not parse.
    #[error("the config in force ({source_name}) does not parse: {error}")]
    Pinned {
        source_name: &'static str,
        error: ConfigError,
    },
    /// `init` would overwrite a config that is there.
    #[error("{} exists already", path.display())]
    Exists { path: PathBuf },
}

impl ConfigFileError {
    /// How to fix it.
    pub fn hint(&self) -> Option<String> {
        match self {
            ConfigFileError::Invalid(e) => e.hint().map(str::to_owned),
            ConfigFileError::Refused { .. } => Some(format!(
                "{CONFIG_FILE} must be a regular file of at most {} KiB",
                MAX_CONFIG_BYTES >> 10
            )),
            ConfigFileError::Unreadable { .. } => None,
            ConfigFileError::NoSuchFile { .. } => {
                Some("pass an existing file to --config".to_owned())
            }
            ConfigFileError::NotInBase { .. } => Some(
                "the config is read from the PR's base, never its head: commit it to the base branch first"
                    .to_owned(),
            ),
            ConfigFileError::NowhereToBeFound { .. } => {
                Some("pass the path of the config in the repository".to_owned())
            }
            ConfigFileError::Pinned { .. } => Some(format!(
                "a person accepts a valid {CONFIG_FILE} with `loopguard reset --accept-config`"
            )),
            ConfigFileError::Exists { .. } => Some(
                "edit its `profile:` key, or pass --force to overwrite it".to_owned(),
            ),
        }
    }
}

/// The bytes of the config file at `path`; `None` when there is none. A FIFO, a device, a
/// directory or a larger file is refused, naming the file (exit 2).
pub fn read(path: &Path) -> Result<Option<Vec<u8>>, ConfigFileError> {
    safe_fs::read_bounded(path, MAX_CONFIG_BYTES as u64, Follow::Yes).map_err(|source| {
        if is_refusal(&source) {
            ConfigFileError::Refused {
                path: path.to_owned(),
                why: source.to_string(),
            }
        } else {
            ConfigFileError::Unreadable {
                path: path.to_owned(),
                source,
            }
        }
    })
}

/// Reads the config file at `path`; a missing file gives the defaults.
pub fn load(path: &Path) -> Result<Config, ConfigFileError> {
    match read(path)? {
        Some(bytes) => Ok(Config::parse_bytes(&bytes, path)?),
        None => Ok(Config::default()),
    }
}

/// Reads the config file `--config` names: it must be there.
pub fn load_named(path: &Path) -> Result<Config, ConfigFileError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Err(ConfigFileError::NoSuchFile {
            path: path.to_owned(),
        });
    }
    load(path)
}
