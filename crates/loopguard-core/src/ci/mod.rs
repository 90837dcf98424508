//! CI mode's decisions (`loopguard ci`), pure: the state kept in the sticky comment, the
//! records read from GitHub's commit payloads, the judgement of a PR's history, the writes
//! a verdict calls for, and the comment, issue and summary text. The shell
//! (`commands/ci.rs`) reads GitHub, git and the logs, and carries the decisions out.

pub mod evidence;
pub mod judge;
pub mod plan;
pub mod records;
pub mod render;
pub mod state;
