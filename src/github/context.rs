//! The workflow's trigger read from the Actions environment: the `GITHUB_*` variables
//! (captured at start-up, `crate::settings`) and the payload file, parsed by the core's
//! `github::event::parse_event`.

use loopguard_core::error::EventError;
use loopguard_core::github::event::{ActionsVars, CiContext, parse_event};

use super::error::GitHubError;

/// Reads the payload file the variables point at, and the trigger from both.
pub fn ci_context(vars: &ActionsVars) -> Result<CiContext, GitHubError> {
    let payload = match &vars.event_path {
        Some(path) => std::fs::read_to_string(path).map_err(|source| GitHubError::EventFile {
            path: path.clone(),
            source,
        })?,
        None => {
            return Err(GitHubError::Event(EventError::Unset {
                name: if vars.event_name.is_empty() {
                    "GITHUB_EVENT_NAME"
                } else {
                    "GITHUB_EVENT_PATH"
                },
                detail: String::new(),
            }));
        }
    };
    Ok(parse_event(vars, &payload)?)
}
