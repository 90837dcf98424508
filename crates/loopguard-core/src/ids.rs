//! Identifiers that come from outside (git, GitHub, `replay` records) and are shown to
//! people: validated once, when they are made, so nothing downstream can slice them wrong.
//!
//! - [`CommitId`] — an iteration's id: a commit id, or any id a record gives (`worktree-…`,
//!   `c0ffee+run2`). At most [`CommitId::MAX_CHARS`] characters, no whitespace or control
//!   characters. Its short form is the first 7 characters, as `git log --oneline` shows.
//! - [`Signature`] — a failure signature: 4 to 128 hexadecimal digits (loopguard's own are
//!   64, a sha256), kept lowercase. Its short form is the first 12.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why an identifier was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("empty")]
    Empty,
    #[error("longer than {max} characters")]
    TooLong { max: usize },
    #[error("contains whitespace or a control character")]
    BadCharacter,
    #[error(
        "not hexadecimal: a signature is 4 to 128 hex digits, as `loopguard fingerprint` prints"
    )]
    NotHex,
}

/// The first `n` characters of `s` (never splits a character).
pub fn prefix_chars(s: &str, n: usize) -> &str {
    let end = s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
    &s[..end]
}

/// The id of one iteration.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CommitId(String);

impl CommitId {
    pub const MAX_CHARS: usize = 200;
    /// Characters in the short form.
    pub const SHORT: usize = 7;

    pub fn new(id: impl Into<String>) -> Result<CommitId, IdError> {
        let id = id.into();
        if id.is_empty() {
            return Err(IdError::Empty);
        }
        if id.chars().count() > Self::MAX_CHARS {
            return Err(IdError::TooLong {
                max: Self::MAX_CHARS,
            });
        }
        if id.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(IdError::BadCharacter);
        }
        Ok(CommitId(id))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 7 characters, as `git log --oneline` shows a commit; an id a record gives
    /// keeps the kind it names first (`worktree-4b82aa1`, not `worktre`).
    pub fn short(&self) -> &str {
        let kind = self.0.rfind('-').map_or(0, |i| i + 1);
        let end = kind + prefix_chars(&self.0[kind..], Self::SHORT).len();
        &self.0[..end]
    }

    /// Whether the id is a git object id (hex), i.e. names a commit `git show` knows.
    pub fn is_object_id(&self) -> bool {
        self.0.len() >= 4 && self.0.bytes().all(|b| b.is_ascii_hexdigit())
    }
}

impl TryFrom<String> for CommitId {
    type Error = IdError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        CommitId::new(s)
    }
}

impl From<CommitId> for String {
    fn from(id: CommitId) -> String {
        id.0
    }
}

impl FromStr for CommitId {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CommitId::new(s)
    }
}

impl fmt::Display for CommitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for CommitId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for CommitId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for CommitId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<CommitId> for String {
    fn eq(&self, other: &CommitId) -> bool {
        *self == other.0
    }
}

impl PartialEq<CommitId> for &str {
    fn eq(&self, other: &CommitId) -> bool {
        *self == other.0
    }
}

impl AsRef<str> for CommitId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A failure signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Signature(String);

impl Signature {
    pub const MIN_DIGITS: usize = 4;
    pub const MAX_DIGITS: usize = 128;
    /// Characters in the short form.
    pub const SHORT: usize = 12;

    pub fn new(s: impl Into<String>) -> Result<Signature, IdError> {
        let s = s.into();
        if s.is_empty() {
            return Err(IdError::Empty);
        }
        if !s.bytes().all(|b| b.is_ascii_hexdigit()) || s.len() < Self::MIN_DIGITS {
            return Err(IdError::NotHex);
        }
        if s.len() > Self::MAX_DIGITS {
            return Err(IdError::TooLong {
                max: Self::MAX_DIGITS,
            });
        }
        Ok(Signature(s.to_ascii_lowercase()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 12 hex digits.
    pub fn short(&self) -> &str {
        prefix_chars(&self.0, Self::SHORT)
    }
}

impl TryFrom<String> for Signature {
    type Error = IdError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Signature::new(s)
    }
}

impl From<Signature> for String {
    fn from(s: Signature) -> String {
        s.0
    }
}

impl FromStr for Signature {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Signature::new(s)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_ids_are_validated_and_shortened_by_characters() {
        let cases: &[(&str, Result<&str, IdError>)] = &[
            ("0123456789abcdef", Ok("0123456")),
            ("c1", Ok("c1")),
            ("aéééééééé", Ok("aéééééé")),
            ("worktree-4b82aa", Ok("worktree-4b82aa")),
            ("worktree-4b82aa91c0ffee", Ok("worktree-4b82aa9")),
            ("", Err(IdError::Empty)),
            ("a b", Err(IdError::BadCharacter)),
            ("a\u{1b}[2K", Err(IdError::BadCharacter)),
        ];
        for (raw, want) in cases {
            let got = CommitId::new(*raw);
            match want {
                Ok(short) => assert_eq!(got.unwrap().short(), *short, "{raw:?}"),
                Err(e) => assert_eq!(got.unwrap_err(), *e, "{raw:?}"),
            }
        }
        let long = "x".repeat(CommitId::MAX_CHARS + 1);
        assert!(matches!(CommitId::new(long), Err(IdError::TooLong { .. })));
        assert!(CommitId::new("0123abcd").unwrap().is_object_id());
        assert!(!CommitId::new("worktree-1").unwrap().is_object_id());
    }

    #[test]
    fn signatures_are_hex_and_lowercase() {
        assert_eq!(Signature::new("9F2C").unwrap().as_str(), "9f2c");
        assert_eq!(
            Signature::new("9f2c".repeat(16)).unwrap().short(),
            "9f2c9f2c9f2c"
        );
        for bad in ["aéééééééé", "xyz0", "abc", ""] {
            assert!(Signature::new(bad).is_err(), "{bad:?}");
        }
        assert!(Signature::new("a".repeat(129)).is_err());
    }

    #[test]
    fn serde_validates() {
        let id: Result<CommitId, _> = serde_json::from_str(r#""a b""#);
        assert!(id.is_err());
        let sig: Result<Signature, _> = serde_json::from_str(r#""aéééééééé""#);
        assert!(sig.unwrap_err().to_string().contains("not hexadecimal"));
        assert_eq!(
            serde_json::to_string(&CommitId::new("abc").unwrap()).unwrap(),
            r#""abc""#
        );
    }
}
