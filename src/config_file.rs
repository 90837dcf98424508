//! Reading `.loopguard.yml` from disk (the core parses it).

use std::path::Path;

use loopguard_core::config::Config;

use crate::error::Error;

/// Reads the config file at `path`; a missing file gives the defaults.
pub fn load(path: &Path) -> Result<Config, Error> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Config::parse_bytes(&bytes, path)?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
        Err(e) => Err(Error::env(format!("cannot read {}: {e}", path.display()))),
    }
}
