//! CI mode's decisions (`loopguard ci`), pure: the state kept in the sticky comment and
//! how far it is trusted (`trust`: sealed with the key, or derived again from what the
//! agent cannot edit — `derive`, `people`), the records read from GitHub's commit
//! payloads, the evidence of a run's logs, and the writes a verdict calls for. The judgement itself is [`crate::run::judge`], the same as
//! the hooks'; the text is [`crate::report::github`]. The shell (`commands/ci/`) reads
//! GitHub, git and the logs, and carries the decisions out.

pub mod cost;
pub mod dashboard;
pub mod decide;
pub mod derive;
pub mod evidence;
pub mod people;
pub mod plan;
pub mod records;
pub mod state;
pub mod trust;
