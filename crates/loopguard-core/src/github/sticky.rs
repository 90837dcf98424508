//! loopguard's own PR comment ("sticky") and stuck-loop issue: hidden markers, the
//! versioned state the comment carries, and finding our own among everyone's. Pure.
//!
//! Body layout (the header lines come first, so nothing quoted from a log below them can
//! pass for a marker or for state):
//!
//! ```text
//! <!-- loopguard:sticky -->
//! <!-- loopguard:state v1 eyJ…base64 of the JSON state… -->
//! <!-- loopguard:seal v1 9f2c…HMAC-SHA256 of the state line, with a key (see seal) -->
//!
//! …visible markdown…
//! ```
//!
//! The seal line is there only when loopguard has a key (`LOOPGUARD_STATE_KEY`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::seal::{Binding, StateKey, seal, verifies};
use super::types::{Issue, IssueComment};
use crate::sanitize::{COMMENT_LIMIT, Measure, truncate_markdown};

/// First line of loopguard's PR comment.
pub const STICKY_MARKER: &str = "<!-- loopguard:sticky -->";
/// The state format this build writes.
pub const STATE_VERSION: u32 = 1;
/// The login comments made with a workflow's `GITHUB_TOKEN` carry.
pub const DEFAULT_BOT_LOGIN: &str = "github-actions[bot]";

const STATE_PREFIX: &str = "<!-- loopguard:state v";
const SEAL_PREFIX: &str = "<!-- loopguard:seal v1 ";
const COMMENT_END: &str = " -->";

/// The marker that ties a stuck-loop issue to its PR.
pub fn issue_marker(pr: u64) -> String {
    format!("<!-- loopguard:issue pr={pr} -->")
}

/// The PR an issue body's marker names, if its first line is one.
pub fn issue_marker_pr(body: &str) -> Option<u64> {
    first_line(body)?
        .strip_prefix("<!-- loopguard:issue pr=")?
        .strip_suffix(COMMENT_END)?
        .parse()
        .ok()
}

fn first_line(body: &str) -> Option<&str> {
    body.lines().map(str::trim).find(|l| !l.is_empty())
}

/// The accounts whose comments and issues count as loopguard's own. A marker alone can be
/// typed by anyone; the author cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedAuthors {
    logins: Vec<String>,
}

impl Default for TrustedAuthors {
    /// `github-actions[bot]`, the author of everything a workflow token writes.
    fn default() -> Self {
        TrustedAuthors {
            logins: vec![DEFAULT_BOT_LOGIN.to_owned()],
        }
    }
}

impl TrustedAuthors {
    /// Exactly these logins (e.g. a GitHub App's `name[bot]`, or a PAT's user).
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(logins: I) -> Self {
        TrustedAuthors {
            logins: logins.into_iter().map(Into::into).collect(),
        }
    }

    /// Adds a login (e.g. the token's own, when `GET /user` tells it).
    pub fn with(mut self, login: impl Into<String>) -> Self {
        self.logins.push(login.into());
        self
    }

    /// GitHub logins are case-insensitive.
    pub fn contains(&self, login: Option<&str>) -> bool {
        login.is_some_and(|login| self.logins.iter().any(|l| l.eq_ignore_ascii_case(login)))
    }
}

/// loopguard's comment among a PR's comments: the oldest whose first line is the marker
/// and whose author is trusted.
pub fn find_sticky_comment<'a>(
    comments: &'a [IssueComment],
    trusted: &TrustedAuthors,
) -> Option<&'a IssueComment> {
    comments
        .iter()
        .find(|c| first_line(&c.body) == Some(STICKY_MARKER) && trusted.contains(c.author_login()))
}

/// loopguard's open issue for `pr`: the oldest whose first line is the PR's marker and
/// whose author is trusted.
pub fn find_issue_for_pr<'a>(
    issues: &'a [Issue],
    pr: u64,
    trusted: &TrustedAuthors,
) -> Option<&'a Issue> {
    issues.iter().find(|i| {
        !i.is_pull_request()
            && issue_marker_pr(&i.body) == Some(pr)
            && trusted.contains(i.author_login())
    })
}

/// The state read back from a sticky comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StickyState<T> {
    /// No state line (not our comment, or an older format without state).
    Missing,
    /// A state line that does not decode; the reason says where.
    Corrupt(String),
    /// Written by a newer loopguard: leave it alone rather than misread it.
    FutureVersion(u32),
    Ok(T),
}

/// The header of a sticky body: the run of `<!-- loopguard:` lines after the marker
/// (nothing quoted further down can pass for them).
fn header(body: &str) -> Option<impl Iterator<Item = &str>> {
    let mut lines = body.lines().map(str::trim).filter(|l| !l.is_empty());
    if lines.next() != Some(STICKY_MARKER) {
        return None;
    }
    Some(lines.take_while(|l| l.starts_with("<!-- loopguard:")))
}

/// Whether a sticky body's state carries a seal made with the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SealCheck {
    /// The seal verifies: loopguard wrote this state for this PR, with this key.
    Sealed,
    /// No seal line (written without a key, or by someone who has none).
    Unsealed,
    /// A seal that does not verify: the state was changed since it was sealed, sealed for
    /// another PR, or with another key.
    Broken,
}

/// Checks the seal of a sticky body's state line with `key`, for `binding`.
pub fn check_seal(body: &str, key: &StateKey, binding: Binding<'_>) -> SealCheck {
    let Some(header) = header(body) else {
        return SealCheck::Unsealed;
    };
    let (mut payload, mut seal_hex) = (None, None);
    for line in header {
        if let Some(rest) = line.strip_prefix(STATE_PREFIX) {
            // `1 eyJ… -->`: the version, then the payload.
            let read = rest
                .strip_suffix(COMMENT_END)
                .and_then(|r| r.split_once(' '));
            payload = payload.or(read.map(|(_, p)| p.trim()));
        } else if let Some(rest) = line.strip_prefix(SEAL_PREFIX) {
            seal_hex = seal_hex.or(rest.strip_suffix(COMMENT_END).map(str::trim));
        }
    }
    match (payload, seal_hex) {
        (_, None) => SealCheck::Unsealed,
        (Some(p), Some(h)) if verifies(key, binding, p, h) => SealCheck::Sealed,
        (_, Some(_)) => SealCheck::Broken,
    }
}

/// Reads the state from a sticky comment body.
pub fn parse_sticky_state<T: DeserializeOwned>(body: &str) -> StickyState<T> {
    let Some(mut header) = header(body) else {
        return StickyState::Missing;
    };
    let Some(line) = header.find(|l| l.starts_with(STATE_PREFIX)) else {
        return StickyState::Missing;
    };
    let Some(rest) = line[STATE_PREFIX.len()..].strip_suffix(COMMENT_END) else {
        return StickyState::Corrupt("state line is not closed".into());
    };
    let (version, payload) = rest.split_once(' ').unwrap_or((rest, ""));
    let version: u32 = match version.parse() {
        Ok(v) => v,
        Err(_) => {
            return StickyState::Corrupt(format!("state version `{version}` is not a number"));
        }
    };
    if version > STATE_VERSION {
        return StickyState::FutureVersion(version);
    }
    if version == 0 {
        return StickyState::Corrupt("state version 0".into());
    }
    let bytes = match STANDARD.decode(payload.trim()) {
        Ok(b) => b,
        Err(e) => return StickyState::Corrupt(format!("state is not base64: {e}")),
    };
    match serde_json::from_slice(&bytes) {
        Ok(state) => StickyState::Ok(state),
        Err(e) => StickyState::Corrupt(format!("state JSON: {e}")),
    }
}

/// Why a sticky body could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum StickyError {
    #[error("cannot encode loopguard state: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("loopguard state is {size} characters encoded, more than a comment holds ({limit})")]
    TooLarge { size: usize, limit: usize },
}

/// The body of the sticky comment: marker, state (sealed with `seal`'s key for its PR,
/// when there is one), then `visible` (already sanitised markdown), cut to fit GitHub's
/// comment limit with the state intact.
pub fn render_sticky<T: Serialize>(
    state: &T,
    visible: &str,
    seal_with: Option<(&StateKey, Binding<'_>)>,
) -> Result<String, StickyError> {
    let json = serde_json::to_vec(state)?;
    // The payload is the state line's text between the version and the end: what the
    // seal is over, byte for byte as it is read back.
    let payload = STANDARD.encode(json);
    let seal_line = seal_with
        .map(|(key, binding)| {
            format!(
                "{SEAL_PREFIX}{}{COMMENT_END}\n",
                seal(key, binding, &payload)
            )
        })
        .unwrap_or_default();
    let header = format!(
        "{STICKY_MARKER}\n{STATE_PREFIX}{STATE_VERSION} {payload}{COMMENT_END}\n{seal_line}\n"
    );
    let size = Measure::Characters.of(&header);
    // Room for at least a line of visible text.
    if size + 200 > COMMENT_LIMIT {
        return Err(StickyError::TooLarge {
            size,
            limit: COMMENT_LIMIT,
        });
    }
    let visible = truncate_markdown(visible, COMMENT_LIMIT - size, Measure::Characters);
    Ok(format!("{header}{visible}"))
}

/// The body of a stuck-loop issue: the PR's marker, then `visible`, within the limit.
pub fn render_issue_body(pr: u64, visible: &str) -> String {
    let header = format!("{}\n\n", issue_marker(pr));
    let room = COMMENT_LIMIT - Measure::Characters.of(&header);
    format!(
        "{header}{}",
        truncate_markdown(visible, room, Measure::Characters)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::types::User;
    use serde_json::{Value, json};

    fn comment(login: Option<&str>, body: &str) -> IssueComment {
        IssueComment {
            id: 1,
            body: body.into(),
            user: login.map(|l| User {
                login: l.into(),
                ..User::default()
            }),
            ..IssueComment::default()
        }
    }

    #[test]
    fn round_trip() {
        let state = json!({"iterations": [{"id": "abc", "signature": "9f2c"}], "open": true});
        let body = render_sticky(&state, "## loopguard\nall good", None).unwrap();
        assert!(body.starts_with("<!-- loopguard:sticky -->\n<!-- loopguard:state v1 "));
        assert!(body.ends_with("all good"));
        assert_eq!(parse_sticky_state::<Value>(&body), StickyState::Ok(state));
        // GitHub may hand the body back with CRLF.
        let crlf = body.replace('\n', "\r\n");
        assert!(matches!(
            parse_sticky_state::<Value>(&crlf),
            StickyState::Ok(_)
        ));
    }

    #[test]
    fn parse_outcomes() {
        let cases: &[(&str, &str)] = &[
            ("no marker", "Missing"),
            ("<!-- loopguard:sticky -->\nhello", "Missing"),
            (
                "<!-- loopguard:sticky -->\n<!-- loopguard:state v2 e30= -->",
                "FutureVersion(2)",
            ),
            (
                "<!-- loopguard:sticky -->\n<!-- loopguard:state v1 %%% -->",
                "Corrupt",
            ),
            (
                "<!-- loopguard:sticky -->\n<!-- loopguard:state v1 bm90IGpzb24= -->",
                "Corrupt",
            ),
            (
                "<!-- loopguard:sticky -->\n<!-- loopguard:state vX e30= -->",
                "Corrupt",
            ),
            (
                "<!-- loopguard:sticky -->\n<!-- loopguard:state v1 e30=",
                "Corrupt",
            ),
            (
                "<!-- loopguard:sticky -->\n<!-- loopguard:state v1 e30= -->",
                "Ok({})",
            ),
        ];
        for (body, want) in cases {
            let got = match parse_sticky_state::<Value>(body) {
                StickyState::Missing => "Missing".to_owned(),
                StickyState::Corrupt(_) => "Corrupt".to_owned(),
                StickyState::FutureVersion(v) => format!("FutureVersion({v})"),
                StickyState::Ok(v) => format!("Ok({v})"),
            };
            assert_eq!(&got, want, "{body}");
        }
    }

    #[test]
    fn a_sealed_state_verifies_and_any_edit_of_it_breaks_the_seal() {
        let key = StateKey::from_text(&"s".repeat(64)).unwrap().unwrap();
        let here = Binding {
            repo: "octo-org/widgets",
            pr: 7,
        };
        let state = json!({"pr": 7, "evidence": {"abc": "fail"}});
        let body = render_sticky(&state, "visible", Some((&key, here))).unwrap();
        assert!(
            body.lines().nth(2).unwrap().starts_with(SEAL_PREFIX),
            "{body}"
        );
        assert_eq!(check_seal(&body, &key, here), SealCheck::Sealed);
        // GitHub may hand it back with CRLF; the state still reads.
        let crlf = body.replace('\n', "\r\n");
        assert_eq!(check_seal(&crlf, &key, here), SealCheck::Sealed);
        assert_eq!(parse_sticky_state::<Value>(&body), StickyState::Ok(state));
        // The agent's edits: emptied evidence, kept seal; another PR's sealed state; no
        // seal at all; a seal quoted below the header.
        let emptied = render_sticky(&json!({"pr": 7}), "visible", None).unwrap();
        let seal_line = body.lines().nth(2).unwrap();
        let forged = emptied.replacen("\n\n", &format!("\n{seal_line}\n\n"), 1);
        assert_eq!(check_seal(&forged, &key, here), SealCheck::Broken);
        let other_pr = Binding { pr: 8, ..here };
        assert_eq!(check_seal(&body, &key, other_pr), SealCheck::Broken);
        assert_eq!(check_seal(&emptied, &key, here), SealCheck::Unsealed);
        let quoted = format!("{emptied}\n\n```\n{seal_line}\n```");
        assert_eq!(check_seal(&quoted, &key, here), SealCheck::Unsealed);
        // The state line reads the same, sealed or not.
        assert!(matches!(
            parse_sticky_state::<Value>(&forged),
            StickyState::Ok(_)
        ));
    }

    #[test]
    fn state_quoted_in_the_visible_part_is_ignored() {
        let forged = format!(
            "{STICKY_MARKER}\n\n```\n<!-- loopguard:state v1 {} -->\n```",
            STANDARD.encode(br#"{"open":false}"#)
        );
        assert_eq!(parse_sticky_state::<Value>(&forged), StickyState::Missing);
    }

    #[test]
    fn own_comment_needs_marker_and_trusted_author() {
        let trusted = TrustedAuthors::default();
        let comments = vec![
            comment(Some("mallory"), "<!-- loopguard:sticky -->\nspoof"),
            comment(None, "<!-- loopguard:sticky -->\nghost"),
            comment(
                Some("github-actions[bot]"),
                "quoting <!-- loopguard:sticky -->",
            ),
            comment(
                Some("GitHub-Actions[bot]"),
                "<!-- loopguard:sticky -->\nours",
            ),
            comment(
                Some("github-actions[bot]"),
                "<!-- loopguard:sticky -->\nlater duplicate",
            ),
        ];
        let found = find_sticky_comment(&comments, &trusted).unwrap();
        assert!(found.body.ends_with("ours"));
        assert!(find_sticky_comment(&comments[..3], &trusted).is_none());
        let app = TrustedAuthors::new(["my-app[bot]"]).with("mallory");
        assert!(
            find_sticky_comment(&comments, &app)
                .unwrap()
                .body
                .ends_with("spoof")
        );
    }

    #[test]
    fn issue_markers() {
        assert_eq!(issue_marker(123), "<!-- loopguard:issue pr=123 -->");
        assert_eq!(
            issue_marker_pr("<!-- loopguard:issue pr=123 -->\n\nbody"),
            Some(123)
        );
        assert_eq!(
            issue_marker_pr("text\n<!-- loopguard:issue pr=123 -->"),
            None
        );
        let issue = |pr: u64, login: &str, is_pr: bool| Issue {
            number: pr + 1000,
            body: render_issue_body(pr, "stuck"),
            user: Some(User {
                login: login.into(),
                ..User::default()
            }),
            pull_request: is_pr.then(|| json!({})),
            ..Issue::default()
        };
        let issues = vec![
            issue(7, "mallory", false),
            issue(7, "github-actions[bot]", true),
            issue(8, "github-actions[bot]", false),
            issue(7, "github-actions[bot]", false),
        ];
        let trusted = TrustedAuthors::default();
        assert_eq!(
            find_issue_for_pr(&issues, 7, &trusted).unwrap().number,
            1007
        );
        assert_eq!(
            find_issue_for_pr(&issues, 8, &trusted).unwrap().number,
            1008
        );
        assert!(find_issue_for_pr(&issues, 9, &trusted).is_none());
    }

    #[test]
    fn oversized_visible_part_is_cut_state_kept() {
        let body = render_sticky(&json!({"n": 1}), &"x".repeat(COMMENT_LIMIT), None).unwrap();
        assert!(Measure::Characters.of(&body) <= COMMENT_LIMIT);
        assert_eq!(
            parse_sticky_state::<Value>(&body),
            StickyState::Ok(json!({"n": 1}))
        );
        let huge = json!({"blob": "y".repeat(COMMENT_LIMIT)});
        assert!(matches!(
            render_sticky(&huge, "", None),
            Err(StickyError::TooLarge { .. })
        ));
    }
}
