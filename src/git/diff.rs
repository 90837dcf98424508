//! Line diffs of blob contents: counts, the changed lines in diff order, binary and
//! whitespace-only tests.
//!
//! Pure (bytes in, values out). Lines keep their terminator, so a change of line ending or
//! of the final newline is a change, as in `git diff --numstat`. The algorithm is Myers,
//! git's default, so the counts match git's; hunks are then slid to a canonical position so
//! that the same edit yields the same line sequence wherever it sits in a file.

use imara_diff::{Algorithm, Diff, InternedInput};

/// Blobs larger than this are not diffed line by line: their counts are unknown (`None`)
/// and they enter the patch id by blob id. 8 MiB keeps one commit's diff bounded in time
/// and memory while covering every source file in practice.
pub const MAX_LINE_DIFF_BYTES: usize = 8 << 20;

/// How far git looks for a NUL byte to call content binary.
const BINARY_PROBE: usize = 8000;

/// Whether git would call this content binary (a NUL byte in its first 8000 bytes).
pub fn is_binary(data: &[u8]) -> bool {
    memchr::memchr(0, &data[..data.len().min(BINARY_PROBE)]).is_some()
}

/// One changed line, in diff order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangedLine<'a> {
    Removed(&'a [u8]),
    Added(&'a [u8]),
}

/// Lines added and removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    pub added: u64,
    pub removed: u64,
}

/// The lines of `data`, each with its terminator.
pub fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    imara_diff::sources::byte_lines(data)
}

/// Diffs line sequences, reusing its buffers across files.
#[derive(Default)]
pub struct LineDiffer {
    diff: Diff,
}

impl LineDiffer {
    /// Diffs `before` against `after`, calling `each` for every changed line in order
    /// (within a hunk, the removed lines before the added ones).
    pub fn diff<'a>(
        &mut self,
        before: &'a [u8],
        after: &'a [u8],
        mut each: impl FnMut(ChangedLine<'a>),
    ) -> LineCounts {
        let input = InternedInput::new(before, after);
        self.diff.compute_with(
            Algorithm::Myers,
            &input.before,
            &input.after,
            input.interner.num_tokens(),
        );
        self.diff.postprocess_no_heuristic(&input);
        let mut counts = LineCounts::default();
        for hunk in self.diff.hunks() {
            for t in &input.before[hunk.before.start as usize..hunk.before.end as usize] {
                each(ChangedLine::Removed(input.interner[*t]));
            }
            for t in &input.after[hunk.after.start as usize..hunk.after.end as usize] {
                each(ChangedLine::Added(input.interner[*t]));
            }
            counts.removed += u64::from(hunk.before.end - hunk.before.start);
            counts.added += u64::from(hunk.after.end - hunk.after.start);
        }
        counts
    }
}

/// Whether `a` and `b` are the same once every whitespace byte is removed.
pub fn equal_ignoring_whitespace(a: &[u8], b: &[u8]) -> bool {
    let mut a = a.iter().filter(|c| !c.is_ascii_whitespace());
    let mut b = b.iter().filter(|c| !c.is_ascii_whitespace());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(before: &str, after: &str) -> (LineCounts, Vec<String>) {
        let mut out = Vec::new();
        let counts = LineDiffer::default().diff(before.as_bytes(), after.as_bytes(), |l| {
            out.push(match l {
                ChangedLine::Removed(t) => format!("-{}", String::from_utf8_lossy(t)),
                ChangedLine::Added(t) => format!("+{}", String::from_utf8_lossy(t)),
            })
        });
        (counts, out)
    }

    #[test]
    fn counts_like_numstat() {
        let cases: &[(&str, &str, u64, u64)] = &[
            ("a\nb\nc\n", "a\nB\nc\n", 1, 1),
            ("a\n", "a\nb\nc\n", 2, 0),
            ("a\nb\n", "", 0, 2),
            // The final newline is part of the line.
            ("a\nb", "a\nb\n", 1, 1),
            // A CRLF line differs from an LF line.
            ("a\r\n", "a\n", 1, 1),
            ("same\n", "same\n", 0, 0),
        ];
        for (before, after, added, removed) in cases {
            let (c, _) = changed(before, after);
            assert_eq!(
                (c.added, c.removed),
                (*added, *removed),
                "{before:?} -> {after:?}"
            );
        }
    }

    #[test]
    fn lines_come_in_hunk_order() {
        let (_, lines) = changed("a\nb\nc\nd\n", "a\nX\nc\nY\nd\n");
        assert_eq!(lines, ["-b\n", "+X\n", "+Y\n"]);
    }

    #[test]
    fn the_same_edit_gives_the_same_lines_at_any_offset() {
        let body = "fn f() {\n}\n\nfn g() {\n}\n";
        let edited = "fn f() {\n}\n\nfn h() {\n}\n\nfn g() {\n}\n";
        let (_, plain) = changed(body, edited);
        let shift = "// header\n// more\n";
        let (_, shifted) = changed(&format!("{shift}{body}"), &format!("{shift}{edited}"));
        assert_eq!(plain, shifted);
    }

    #[test]
    fn binary_and_whitespace_tests() {
        assert!(is_binary(b"PNG\0\x01"));
        assert!(!is_binary(b"plain text\n"));
        let mut late_nul = vec![b'a'; BINARY_PROBE];
        late_nul.push(0);
        assert!(!is_binary(&late_nul));

        assert!(equal_ignoring_whitespace(
            b"fn a(){x}",
            b"fn a() {\n    x\n}\n"
        ));
        assert!(!equal_ignoring_whitespace(b"a b", b"ab c"));
        assert!(equal_ignoring_whitespace(b"", b" \n\t"));
    }

    #[test]
    fn lines_keep_terminators() {
        let got: Vec<&[u8]> = lines(b"a\nb").collect();
        assert_eq!(got, [b"a\n".as_slice(), b"b".as_slice()]);
    }
}
