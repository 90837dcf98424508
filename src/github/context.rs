//! The workflow's trigger read from the Actions environment: the `GITHUB_*` variables and
//! the payload file, parsed by the core's `github::event::parse_event`.

use loopguard_core::github::event::{ActionsVars, CiContext, parse_event};

use crate::error::Error;

/// Reads the variables (through `lookup`) and the payload file they point at.
pub fn ci_context(lookup: impl Fn(&str) -> Option<String>) -> Result<CiContext, Error> {
    let vars = ActionsVars::from_lookup(lookup);
    let payload = match &vars.event_path {
        Some(path) => std::fs::read_to_string(path).map_err(|e| {
            Error::input(format!(
                "GITHUB_EVENT_PATH ({}): cannot read: {e}",
                path.display()
            ))
        })?,
        None if vars.event_name.is_empty() => {
            return Err(Error::input(
                "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set\nhint: `loopguard ci` runs inside a GitHub Actions job",
            ));
        }
        None => {
            return Err(Error::input(
                "GITHUB_EVENT_PATH is not set\nhint: `loopguard ci` runs inside a GitHub Actions job",
            ));
        }
    };
    Ok(parse_event(&vars, &payload)?)
}
