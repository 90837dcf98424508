//! Reading `.loopguard.yml` from disk (the core parses it). The file is in the working
//! tree, where anything may be put instead of it: it is read only when it is a regular file
//! (a link to one is fine), without blocking, and at most [`MAX_CONFIG_BYTES`] bytes (the
//! core's limit, which also bounds a config read at a commit or from the API).

use std::path::Path;

use loopguard_core::config::{Config, MAX_CONFIG_BYTES};

use crate::error::Error;
use crate::safe_fs::{self, Follow, is_refusal};

/// The bytes of the config file at `path`; `None` when there is none. A FIFO, a device, a
/// directory or a larger file is an input error naming the file (exit 2).
pub fn read(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    safe_fs::read_bounded(path, MAX_CONFIG_BYTES as u64, Follow::Yes).map_err(|e| {
        if is_refusal(&e) {
            Error::input(format!(
                "{e}; hint: .loopguard.yml must be a regular file of at most {} KiB",
                MAX_CONFIG_BYTES >> 10
            ))
        } else {
            Error::env(format!("cannot read {}: {e}", path.display()))
        }
    })
}

/// Reads the config file at `path`; a missing file gives the defaults.
pub fn load(path: &Path) -> Result<Config, Error> {
    match read(path)? {
        Some(bytes) => Ok(Config::parse_bytes(&bytes, path)?),
        None => Ok(Config::default()),
    }
}
