//! What a change shows, from its text: the patch id ([`patch_id`]) and the test skips it
//! adds ([`skips`]). The shell feeds them git's diffs; CI feeds them GitHub's patches.

pub mod patch_id;
pub mod skips;
pub mod visible;
