//! Percent-encoding for path segments and query values built from data (label names,
//! refs, file paths).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but RFC 3986 unreserved characters.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One path segment or query value.
pub(super) fn component(value: &str) -> String {
    utf8_percent_encode(value, COMPONENT).to_string()
}

/// A repository file path: each segment encoded, the slashes kept.
pub(super) fn file_path(path: &str) -> String {
    path.trim_start_matches('/')
        .split('/')
        .map(component)
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes() {
        assert_eq!(component("loopguard:stuck"), "loopguard%3Astuck");
        assert_eq!(component("needs review"), "needs%20review");
        assert_eq!(component("feature/x#1"), "feature%2Fx%231");
        assert_eq!(
            file_path("/.github/workflows/ci yml"),
            ".github/workflows/ci%20yml"
        );
    }
}
