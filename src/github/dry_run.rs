//! The writes a `--dry-run` would have made.

use std::fmt;

/// One write that was described instead of sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedWrite {
    /// `POST`, `PATCH`, `DELETE`, …
    pub method: String,
    /// The API path, relative to `GITHUB_API_URL`.
    pub path: String,
    /// What the body would do, in a few words.
    pub summary: String,
}

impl fmt::Display for PlannedWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.method, self.path, self.summary)
    }
}

/// `N chars, first line: …` for a comment or issue body.
pub(crate) fn describe_body(body: &str) -> String {
    let first = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("<!--"))
        .unwrap_or("");
    let mut shown: String = first.chars().take(80).collect();
    if shown.len() < first.len() {
        shown.push('…');
    }
    format!("{} chars, first line: {shown:?}", body.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_description_skips_markers() {
        let d = describe_body("<!-- loopguard:sticky -->\n\n## loopguard tripped\nmore");
        assert_eq!(d, r###"52 chars, first line: "## loopguard tripped""###);
    }
}
