//! Reading commits in-process (gix): trees, diffs, patch ids, the evidence of an iteration.
//!
//! TODO module doc
mod diff;
mod error;
mod evidence;
pub mod patch_id;
mod range;
pub mod renames;
mod repo;
pub mod skips;

pub use diff::MAX_LINE_DIFF_BYTES;
pub use error::GitError;
pub use repo::{Head, ReflogEntry, Repo};
