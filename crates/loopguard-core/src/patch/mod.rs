//! What a change shows, from its text: the patch id ([`patch_id`]). The shell feeds it
//! git's diffs; CI feeds it GitHub's patches. (The tests a change takes away are
//! [`crate::suite`]'s.)

pub mod patch_id;
pub mod visible;
