//! The files a session edited, as the edits themselves say: what a tool call's edit did
//! to a file is known from its input (the lines an `Edit` replaces and writes, a `Write`'s
//! whole content, the `-`/`+` lines of an `apply_patch`), so a live hook and a replay of
//! the transcript compute the same states without reading the disk.
//!
//! A file's state is its content when a call wrote all of it (`Write`, a file an
//! `apply_patch` adds), and on top of that the lines the later edits removed and added,
//! counted: an edit undone by the reverse edit returns the file to exactly the state it
//! had, and a file returning to earlier content is what `oscillation` counts. The state of
//! the session's files together is its *tree*, as a commit has one.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One file's state since the session started.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// sha256 (16 hex digits) of the content a call last wrote whole; `None` while only
    /// edits are known (the content before them is the one the session started with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
    /// The lines added minus removed since then, as one multiset digest: the wrapping sum
    /// of each added line's 64-bit digest, minus each removed one's. An edit undone by the
    /// reverse edit returns it exactly; 0: none (or they cancel out). One number, however
    /// many lines, so a session's state stays small.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lines: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl FileState {
    /// Whether the file is as the session found it.
    pub fn untouched(&self) -> bool {
        self.written.is_none() && self.lines == 0
    }

    /// A digest of this state.
    pub fn digest(&self) -> u64 {
        let mut h = Sha256::new();
        h.update(self.written.as_deref().unwrap_or("-"));
        h.update(self.lines.to_le_bytes());
        first_u64(&h.finalize())
    }
}

/// What one call did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileEdit {
    /// The whole content written (a `Write`, a file added); `before` is the content it
    /// replaced when the tool says so.
    Write {
        path: String,
        content: String,
        before: Option<String>,
    },
    /// Lines replaced: `removed` by `added` (an `Edit`, an `apply_patch` hunk).
    Replace {
        path: String,
        removed: String,
        added: String,
    },
    /// The file was deleted.
    Delete { path: String },
}

impl FileEdit {
    pub fn path(&self) -> &str {
        match self {
            FileEdit::Write { path, .. }
            | FileEdit::Replace { path, .. }
            | FileEdit::Delete { path } => path,
        }
    }

    /// The lines the edit removes and adds (for the patch id and the test skips).
    pub fn lines(&self) -> (Vec<&str>, Vec<&str>) {
        match self {
            FileEdit::Write {
                content, before, ..
            } => (
                before
                    .as_deref()
                    .map_or_else(Vec::new, |b| b.lines().collect()),
                content.lines().collect(),
            ),
            FileEdit::Replace { removed, added, .. } => {
                (removed.lines().collect(), added.lines().collect())
            }
            FileEdit::Delete { .. } => (Vec::new(), Vec::new()),
        }
    }
}

/// The session's files: the state of each one it edited, and their tree.
///
/// The states are kept as text, one line a file —
/// `<the path as a JSON string> <its lines, 16 hex digits> <its written digest, or ->` —
/// so that a session that edited hundreds of files reads and writes them as one string: a
/// call costs the same however many files came before it, but for a scan of that string
/// when it edits one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Files {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    states: String,
    /// The tree, kept up to date as edits come: the wrapping sum of each touched file's
    /// [`file_term`]. An edit changes only its own file's term.
    #[serde(default, skip_serializing_if = "is_zero")]
    tree: u64,
}

/// What one touched file adds to the tree.
fn file_term(path: &str, state: &FileState) -> u64 {
    let mut h = Sha256::new();
    h.update(path.as_bytes());
    h.update([0]);
    h.update(state.digest().to_le_bytes());
    first_u64(&h.finalize())
}

/// The start of a file's line in [`Files::states`]: its path as a JSON string, a space.
fn line_key(path: &str) -> String {
    let mut key = serde_json::to_string(path).expect("a string serialises");
    key.push(' ');
    key
}

impl Files {
    /// The state of every file together (16 hex digits): equal exactly when every file is
    /// as it was (the order the edits came in does not matter).
    pub fn tree(&self) -> String {
        format!("{:016x}", self.tree)
    }

    /// The state of the file at `path` (untouched when the session did not change it).
    pub fn get(&self, path: &str) -> FileState {
        self.find(&line_key(path))
            .map(|(_, s)| s)
            .unwrap_or_default()
    }

    /// Where the line of the file keyed `key` is in [`Files::states`], and its state.
    fn find(&self, key: &str) -> Option<(std::ops::Range<usize>, FileState)> {
        let mut at = 0;
        for line in self.states.split_inclusive('\n') {
            let start = at;
            at += line.len();
            let Some(rest) = line.strip_prefix(key) else {
                continue;
            };
            let mut parts = rest.trim_end().split(' ');
            let lines = parts
                .next()
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .unwrap_or(0);
            let written = parts.next().filter(|w| *w != "-").map(str::to_owned);
            return Some((start..at, FileState { written, lines }));
        }
        None
    }

    /// Applies `edit` (its file's term in the tree replaced, its line written again).
    pub fn apply(&mut self, edit: &FileEdit) {
        let path = edit.path();
        let key = line_key(path);
        let mut state = match self.find(&key) {
            Some((range, state)) => {
                self.states.replace_range(range, "");
                self.tree = self.tree.wrapping_sub(file_term(path, &state));
                state
            }
            None => FileState::default(),
        };
        match edit {
            FileEdit::Write { content, .. } => {
                state.written = Some(digest(content));
                state.lines = 0;
            }
            FileEdit::Delete { .. } => {
                state.written = Some("deleted".to_owned());
                state.lines = 0;
            }
            FileEdit::Replace { removed, added, .. } => {
                for line in removed.lines() {
                    state.lines = state.lines.wrapping_sub(line_digest(line));
                }
                for line in added.lines() {
                    state.lines = state.lines.wrapping_add(line_digest(line));
                }
            }
        }
        if !state.untouched() {
            self.tree = self.tree.wrapping_add(file_term(path, &state));
            let written = state.written.as_deref().unwrap_or("-");
            let _ = writeln!(self.states, "{key}{:016x} {written}", state.lines);
        }
    }

    /// The files edited and not back as the session found them.
    pub fn len(&self) -> usize {
        self.states.lines().count()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
}

/// A line's 64-bit digest.
fn line_digest(line: &str) -> u64 {
    first_u64(&Sha256::digest(line.as_bytes()))
}

fn first_u64(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().expect("a sha256 has 32 bytes"))
}

/// sha256 of `text`, 16 hex digits.
pub fn digest(text: &str) -> String {
    short_hex(&Sha256::digest(text.as_bytes()))
}

fn short_hex(bytes: &[u8]) -> String {
    bytes[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(path: &str, removed: &str, added: &str) -> FileEdit {
        FileEdit::Replace {
            path: path.into(),
            removed: removed.into(),
            added: added.into(),
        }
    }

    #[test]
    fn an_edit_undone_returns_the_file_and_the_tree_to_their_state() {
        let mut files = Files::default();
        let start = files.tree();
        files.apply(&replace("src/wc.py", "return n", "return n + 1"));
        let a = files.tree();
        assert_ne!(a, start);
        files.apply(&replace("src/wc.py", "return n + 1", "return n"));
        assert_eq!(
            files.tree(),
            start,
            "the reverse edit is the state it started from"
        );
        assert!(files.is_empty());
        files.apply(&replace("src/wc.py", "return n", "return n + 1"));
        assert_eq!(files.tree(), a);
    }

    #[test]
    fn a_write_sets_the_content_and_edits_count_from_there() {
        let mut files = Files::default();
        let write = |c: &str| FileEdit::Write {
            path: "a.txt".into(),
            content: c.into(),
            before: None,
        };
        files.apply(&write("one\n"));
        let one = files.tree();
        files.apply(&write("two\n"));
        assert_ne!(files.tree(), one);
        files.apply(&write("one\n"));
        assert_eq!(files.tree(), one, "writing the same content again");
        files.apply(&replace("a.txt", "one", "uno"));
        assert_ne!(files.tree(), one);
        // Two files: the order edits came in does not matter, only where each file is.
        let mut x = Files::default();
        x.apply(&replace("a", "1", "2"));
        x.apply(&replace("b", "1", "2"));
        let mut y = Files::default();
        y.apply(&replace("b", "1", "2"));
        y.apply(&replace("a", "1", "2"));
        assert_eq!(x.tree(), y.tree());
        // Each file is where it is: the same edit to another file is another tree.
        let mut z = Files::default();
        z.apply(&replace("a", "1", "2"));
        z.apply(&replace("c", "1", "2"));
        assert_ne!(x.tree(), z.tree());
        // Every file back: the tree the session started with, and no state kept.
        x.apply(&replace("a", "2", "1"));
        x.apply(&replace("b", "2", "1"));
        assert_eq!((x.tree(), x.len()), (Files::default().tree(), 0));
        // A path with spaces, quotes or a newline is one file; a prefix of it another.
        let mut odd = Files::default();
        for p in ["a b \"c\"\n.py", "a b", "a"] {
            odd.apply(&replace(p, "1", "2"));
        }
        assert_eq!(odd.len(), 3);
        odd.apply(&replace("a b", "2", "1"));
        assert_eq!(odd.len(), 2);
        assert!(odd.get("a b").untouched());
        assert!(!odd.get("a").untouched() && odd.get("a").written.is_none());
        // Written back from its JSON, the same files.
        let back: Files = serde_json::from_str(&serde_json::to_string(&odd).unwrap()).unwrap();
        assert_eq!(back, odd);
    }
}
