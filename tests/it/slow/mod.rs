//! The slow tests, grouped: the release archives of every target packed from the real
//! binary, and the dashboard's requests over 1,000 PRs.

mod dashboard_scale;
#[cfg(unix)]
mod release_archives;
