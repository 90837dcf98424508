//! The changes loopguard makes to the surface itself (`init`, `uninstall`, and their
//! `--agent` forms, `reset --accept-config`): the surface as it left it, so that a later comparison does not take
//! them for the agent's (see the module docs of [`super`] for what the record can and
//! cannot vouch for).

use std::io;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{Change, Surface};
use crate::safe_fs::{self, Follow};

/// Most bytes of a record read back.
const RECORD_LIMIT: u64 = 4 << 20;

/// The command that changed the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    Init,
    Uninstall,
    /// `reset --accept-config`: a new accepted config.
    AcceptConfig,
}

/// The surface as loopguard last left it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Own {
    pub by: By,
    pub at: Timestamp,
    pub surface: Surface,
}

impl Own {
    /// Whether `change` ends where loopguard left that thing: the state it recorded there
    /// is the state the change reached.
    pub fn explains(&self, change: &Change) -> bool {
        let recorded = self
            .surface
            .seen(&change.watched)
            .cloned()
            .unwrap_or_else(|| change.watched.nothing());
        recorded == change.after
    }
}

/// Where the record is: `<store>/surface.json`.
pub fn path(store_dir: &Path) -> PathBuf {
    store_dir.join("surface.json")
}

/// Records `surface` as the one `by` left at `at`: written whole, by rename (not under the
/// store's lock: it is no run's state, and of two writers the last one wins).
pub fn record(store_dir: &Path, by: By, at: Timestamp, surface: &Surface) -> io::Result<()> {
    let own = Own {
        by,
        at,
        surface: surface.clone(),
    };
    let bytes = serde_json::to_vec(&own).map_err(io::Error::other)?;
    std::fs::create_dir_all(store_dir)?;
    safe_fs::write_atomic(&path(store_dir), &bytes, || {})
}

/// The last record, when there is one that can be read.
pub fn last(store_dir: &Path) -> Option<Own> {
    let bytes = safe_fs::read_bounded(&path(store_dir), RECORD_LIMIT, Follow::No).ok()??;
    serde_json::from_slice(&bytes).ok()
}
