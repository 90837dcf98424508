//! What a run is judged by and where it came from: its pinned config, and the run it
//! continues.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::CommitId;

/// The config a run is judged by. Locally an agent can edit `.loopguard.yml` in the working
/// tree at will, so the config in force is fixed when the run starts: the file a person
/// set up (`init`) or accepted (`reset --accept-config`), carried over by `reset`, taken
/// from the run a branch continues, or for a new branch the one last accepted in the
/// repository. Editing the file changes nothing until a person accepts it; committing a
/// change to it trips `constraint`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedConfig {
    /// The file's text; `None` when there was no file (the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// sha256 hex of the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The commit it was read from, or HEAD when a person accepted the file in the working
    /// tree: the commit whose other guarded files (workflows) are trusted with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitId>,
    pub source: PinSource,
    /// When it was fixed.
    pub at: Timestamp,
}

/// How a config came to be in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PinSource {
    /// A person ran `loopguard init`: the file in the working tree.
    Init,
    /// A person ran `loopguard reset --accept-config`: the file in the working tree.
    Accepted,
    /// `loopguard reset` carried the previous run's config over.
    Reset,
    /// The branch continues another run (see [`Inherited`]), and its config.
    Inherited,
    /// A new branch: the config last set up or accepted in this repository.
    Repository,
    /// No config was ever set up or accepted here (`loopguard init` never ran: the hooks
    /// of the pre-commit framework, `run` or `event` on their own): the file as committed
    /// where the run started.
    Committed,
}

impl PinSource {
    pub fn as_str(self) -> &'static str {
        match self {
            PinSource::Init => "init",
            PinSource::Accepted => "accepted",
            PinSource::Reset => "reset",
            PinSource::Inherited => "inherited",
            PinSource::Repository => "repository",
            PinSource::Committed => "committed",
        }
    }
}

/// Where a run that continues another started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inherited {
    /// The run it continues.
    pub run: String,
    /// That run's branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The commit of that run the branch started from.
    pub at: CommitId,
}
