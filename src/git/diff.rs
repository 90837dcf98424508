//! Line diffs of blob contents: counts, the changed lines in diff order, binary and
//! whitespace-only tests.
//!
//! Pure (bytes in, values out). Lines keep their terminator, so a change of line ending or
//! of the final newline is a change, as in `git diff --numstat`. The algorithm is Myers,
//! git's default, so the counts are git's but where git's heuristics for frequent lines
//! differ (see the [module doc](super)); hunks are slid to a canonical position so that
//! the same edit yields the same line sequence wherever it sits in a file.

use imara_diff::{Algorithm, Diff, InternedInput};

/// Blobs larger than this are not diffed line by line: their counts are unknown (`None`)
/// and they enter the patch id by blob id. 8 MiB keeps one commit's diff bounded in time
/// and memory while covering every source file in practice.
pub const MAX_LINE_DIFF_BYTES: usize = 8 << 20;

/// How far git looks for a NUL byte to call content binary.
const BINARY_PROBE: usize = 8000;

/// Whether git would call this content binary (a NUL byte in its first 8000 bytes).
pub(super) fn is_binary(data: &[u8]) -> bool {
    memchr::memchr(0, &data[..data.len().min(BINARY_PROBE)]).is_some()
}

/// One changed line, in diff order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ChangedLine<'a> {
    Removed(&'a [u8]),
    Added(&'a [u8]),
}

/// Lines added and removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LineCounts {
    pub added: u64,
    pub removed: u64,
}

/// The lines of `data`, each with its terminator.
pub(super) fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    imara_diff::sources::byte_lines(data)
}

/// The result of a line diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineDiff {
    pub counts: LineCounts,
    /// The byte ranges of `before` and `after` outside which both are identical (whole
    /// lines): whatever differs lies within them.
    pub changed_before: std::ops::Range<usize>,
    pub changed_after: std::ops::Range<usize>,
}

/// Compared a block at a time: slice equality is a `memcmp`, far faster than byte steps.
const BLOCK: usize = 64;

fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    let max = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= max && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < max && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    let max = a.len().min(b.len());
    let (a_end, b_end) = (a.len(), b.len());
    let mut n = 0;
    while n + BLOCK <= max && a[a_end - n - BLOCK..a_end - n] == b[b_end - n - BLOCK..b_end - n] {
        n += BLOCK;
    }
    while n < max && a[a_end - n - 1] == b[b_end - n - 1] {
        n += 1;
    }
    n
}

/// The lengths of the longest common prefix and suffix of `a` and `b` that consist of
/// whole lines and do not overlap.
pub(super) fn common_lines(a: &[u8], b: &[u8]) -> (usize, usize) {
    let max = a.len().min(b.len());
    let same = common_prefix_len(a, b);
    // Back to the start of the line the first difference is on.
    let prefix = if same == a.len() && same == b.len() {
        same
    } else {
        memchr::memrchr(b'\n', &a[..same]).map_or(0, |p| p + 1)
    };
    let (a_rest, b_rest) = (&a[prefix..], &b[prefix..]);
    let mut suffix = common_suffix_len(a_rest, b_rest).min(max - prefix);
    // The suffix must start at a line start on both sides.
    let starts_line =
        |rest: &[u8], suffix: usize| suffix == rest.len() || rest[rest.len() - suffix - 1] == b'\n';
    if !(starts_line(a_rest, suffix) && starts_line(b_rest, suffix)) {
        let region = &a_rest[a_rest.len() - suffix..];
        suffix = memchr::memchr(b'\n', region).map_or(0, |p| suffix - (p + 1));
    }
    (prefix, suffix)
}

/// Diffs line sequences, reusing its buffers across files.
#[derive(Default)]
pub(super) struct LineDiffer {
    diff: Diff,
}

impl LineDiffer {
    /// Diffs `before` against `after`, calling `each` for every changed line in order
    /// (within a hunk, the removed lines before the added ones).
    ///
    /// The lines both sides share at the start and the end are set aside first, by a
    /// byte comparison: a typical commit changes a few lines of a long file, and only the
    /// rest is tokenised and diffed.
    pub(super) fn diff<'a>(
        &mut self,
        before: &'a [u8],
        after: &'a [u8],
        mut each: impl FnMut(ChangedLine<'a>),
    ) -> LineDiff {
        let (prefix, suffix) = common_lines(before, after);
        let changed_before = prefix..before.len() - suffix;
        let changed_after = prefix..after.len() - suffix;
        let (b, a) = (
            &before[changed_before.clone()],
            &after[changed_after.clone()],
        );
        let mut counts = LineCounts::default();
        if b.is_empty() || a.is_empty() {
            // One side is empty: every line of the other is the change.
            for line in lines(b) {
                each(ChangedLine::Removed(line));
                counts.removed += 1;
            }
            for line in lines(a) {
                each(ChangedLine::Added(line));
                counts.added += 1;
            }
        } else {
            let input = InternedInput::new(b, a);
            self.diff.compute_with(
                Algorithm::Myers,
                &input.before,
                &input.after,
                input.interner.num_tokens(),
            );
            self.diff.postprocess_no_heuristic(&input);
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
        }
        LineDiff {
            counts,
            changed_before,
            changed_after,
        }
    }
}

/// Whether `a` and `b` are the same once everything that shows nothing is removed (every
/// Unicode blank and invisible character: [`loopguard_core::patch::visible`]).
pub(super) fn equal_ignoring_whitespace(a: &[u8], b: &[u8]) -> bool {
    loopguard_core::patch::visible::same_visible(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(before: &str, after: &str) -> (LineCounts, Vec<String>) {
        let mut out = Vec::new();
        let diff = LineDiffer::default().diff(before.as_bytes(), after.as_bytes(), |l| {
            out.push(match l {
                ChangedLine::Removed(t) => format!("-{}", String::from_utf8_lossy(t)),
                ChangedLine::Added(t) => format!("+{}", String::from_utf8_lossy(t)),
            });
        });
        (diff.counts, out)
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
    fn common_prefix_and_suffix_lengths() {
        let long: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
        let mut other = long.clone();
        other[200] = 255;
        assert_eq!(common_prefix_len(&long, &other), 200);
        assert_eq!(common_suffix_len(&long, &other), 99);
        assert_eq!(common_prefix_len(&long, &long[..150]), 150);
        assert_eq!(common_suffix_len(&long, &long[100..]), 200);
        assert_eq!(common_prefix_len(b"", b"abc"), 0);
    }

    #[test]
    fn common_lines_are_whole_lines() {
        let cases: &[(&str, &str, usize, usize)] = &[
            ("a\nb\nc\n", "a\nB\nc\n", 2, 2),
            ("a\nb", "a\nbc", 2, 0),
            ("a\n", "a\nb\n", 2, 0),
            ("b\n", "a\nb\n", 0, 2),
            ("xa\n", "ya\n", 0, 0),
            ("a\nb\n", "a\nb\n", 4, 0),
            ("a", "a\n", 0, 0),
            ("same\nx\n", "same\ny\nx\n", 5, 2),
            // Prefix and suffix never overlap: the inserted run is one copy of "z\n".
            ("z\nz\n", "z\nz\nz\n", 4, 0),
        ];
        for (a, b, prefix, suffix) in cases {
            assert_eq!(
                common_lines(a.as_bytes(), b.as_bytes()),
                (*prefix, *suffix),
                "{a:?} vs {b:?}"
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
