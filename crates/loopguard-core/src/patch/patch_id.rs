//! The patch id: a digest of what a change does, blind to whitespace, line numbers and the
//! order of files (the definition is in the [module doc](super)).
//!
//! Pure: the diff code feeds each changed file's paths and its removed and added lines, in
//! diff order; this module only hashes.

use sha2::{Digest, Sha256};

use crate::iteration::FileStatus;

/// The digest of one changed file, fed in diff order.
pub struct FilePatchHasher {
    hasher: Sha256,
    /// Whether anything beyond the header was hashed (a line, blob ids, a mode change).
    has_content: bool,
    /// Whether the header alone makes the file count (an add, delete or rename is a change
    /// even when the file is empty or the content is untouched).
    structural: bool,
    scratch: Vec<u8>,
}

fn status_tag(status: FileStatus) -> u8 {
    match status {
        FileStatus::Added => b'A',
        FileStatus::Modified => b'M',
        FileStatus::Deleted => b'D',
        FileStatus::Renamed => b'R',
    }
}

impl FilePatchHasher {
    /// Starts a file: `old_path` and `new_path` are the same except for renames.
    pub fn new(status: FileStatus, old_path: &[u8], new_path: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update([status_tag(status), 0]);
        hasher.update(old_path);
        hasher.update([0]);
        hasher.update(new_path);
        hasher.update([0]);
        FilePatchHasher {
            hasher,
            has_content: false,
            structural: status != FileStatus::Modified,
            scratch: Vec::with_capacity(128),
        }
    }

    fn line(&mut self, sign: u8, line: &[u8]) {
        self.scratch.clear();
        super::visible::push_visible(line, &mut self.scratch);
        if self.scratch.is_empty() {
            return;
        }
        self.hasher.update([sign]);
        self.hasher.update(&self.scratch);
        self.hasher.update([b'\n']);
        self.has_content = true;
    }

    /// A removed line (its terminator included or not: whitespace is dropped anyway).
    pub fn removed(&mut self, line: &[u8]) {
        self.line(b'-', line);
    }

    /// An added line.
    pub fn added(&mut self, line: &[u8]) {
        self.line(b'+', line);
    }

    /// Content that is not diffed line by line (binary or huge): hashed by its blob ids,
    /// `None` for a missing side.
    pub fn opaque(&mut self, old_blob: Option<&[u8]>, new_blob: Option<&[u8]>) {
        self.hasher.update(b"B\0");
        self.hasher.update(old_blob.unwrap_or_default());
        self.hasher.update([0]);
        self.hasher.update(new_blob.unwrap_or_default());
        self.hasher.update([0]);
        self.has_content = true;
    }

    /// A file mode change (e.g. made executable).
    pub fn mode_change(&mut self, old_mode: u16, new_mode: u16) {
        self.hasher.update(b"P\0");
        self.hasher.update(old_mode.to_be_bytes());
        self.hasher.update(new_mode.to_be_bytes());
        self.has_content = true;
    }

    /// The file's digest, or `None` when it contributes nothing (a modification whose
    /// changed lines are all blank once whitespace is removed).
    pub fn finish(self) -> Option<[u8; 32]> {
        (self.has_content || self.structural).then(|| self.hasher.finalize().into())
    }
}

/// Combines per-file digests into the patch id: sorted, so file order cannot matter.
#[derive(Default)]
pub struct PatchIdBuilder {
    files: Vec<[u8; 32]>,
}

impl PatchIdBuilder {
    pub fn push(&mut self, file: FilePatchHasher) {
        if let Some(digest) = file.finish() {
            self.files.push(digest);
        }
    }

    /// The patch id in hex (64 digits), or `None` for an empty change.
    pub fn finish(mut self) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        self.files.sort_unstable();
        let mut hasher = Sha256::new();
        hasher.update(b"loopguard-patch-id-v1\0");
        for digest in &self.files {
            hasher.update(digest);
        }
        Some(hex(&hasher.finalize()))
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0xf) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file as `(status, old, new, lines)` with lines like `"-x"` / `"+y"`.
    type File<'a> = (FileStatus, &'a str, &'a str, &'a [&'a str]);

    fn id(files: &[File<'_>]) -> Option<String> {
        let mut b = PatchIdBuilder::default();
        for (status, old, new, lines) in files {
            let mut f = FilePatchHasher::new(*status, old.as_bytes(), new.as_bytes());
            for l in *lines {
                let (sign, text) = l.split_at(1);
                match sign {
                    "-" => f.removed(text.as_bytes()),
                    "+" => f.added(text.as_bytes()),
                    _ => panic!("bad line {l}"),
                }
            }
            b.push(f);
        }
        b.finish()
    }

    const M: FileStatus = FileStatus::Modified;

    #[test]
    fn ignores_whitespace_and_file_order() {
        let a = id(&[
            (M, "a.rs", "a.rs", &["-let x=1;", "+let x=2;"]),
            (M, "b.rs", "b.rs", &["+fn b() {}"]),
        ]);
        let reformatted = id(&[
            (M, "b.rs", "b.rs", &["+fn b() { }\n"]),
            (M, "a.rs", "a.rs", &["-\tlet x = 1;", "+    let  x = 2 ;"]),
        ]);
        assert!(a.is_some());
        assert_eq!(a, reformatted);
    }

    #[test]
    fn distinguishes_direction_paths_and_content() {
        let fwd = id(&[(M, "a.rs", "a.rs", &["-old", "+new"])]);
        let rev = id(&[(M, "a.rs", "a.rs", &["-new", "+old"])]);
        let other_path = id(&[(M, "b.rs", "b.rs", &["-old", "+new"])]);
        let other_text = id(&[(M, "a.rs", "a.rs", &["-old", "+newer"])]);
        assert_ne!(fwd, rev);
        assert_ne!(fwd, other_path);
        assert_ne!(fwd, other_text);
    }

    #[test]
    fn blank_only_changes_have_no_id() {
        assert_eq!(id(&[]), None);
        assert_eq!(id(&[(M, "a.rs", "a.rs", &["+", "+   ", "-\t"])]), None);
        // But adding an empty file is a change.
        assert!(id(&[(FileStatus::Added, "e.py", "e.py", &[])]).is_some());
    }

    #[test]
    fn renames_hash_both_paths() {
        let r1 = id(&[(FileStatus::Renamed, "a.rs", "b.rs", &[])]);
        let r2 = id(&[(FileStatus::Renamed, "a.rs", "c.rs", &[])]);
        assert!(r1.is_some());
        assert_ne!(r1, r2);
    }

    #[test]
    fn opaque_content_and_modes_count() {
        let mut f = FilePatchHasher::new(M, b"x.bin", b"x.bin");
        f.opaque(Some(b"aaaa"), Some(b"bbbb"));
        assert!(f.finish().is_some());
        let mut f = FilePatchHasher::new(M, b"run.sh", b"run.sh");
        f.mode_change(0o100644, 0o100755);
        assert!(f.finish().is_some());
        assert_eq!(FilePatchHasher::new(M, b"a", b"a").finish(), None);
    }

    #[test]
    fn hex_encodes() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f]), "00ab7f");
    }
}
