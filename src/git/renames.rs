//! Rename detection over the deleted and added files of one change, in the manner of git's
//! default (`diff.renames=true`, `-M50%`, `diff.renameLimit=1000`).
//!
//! Pure. First exact renames (same blob id; among several sources the one with the same
//! file name wins), then inexact ones: a similarity score like git's `diffcore-delta` (the
//! contents cut into chunks at each newline or every 64 bytes; score = bytes in common /
//! size of the larger side), at least 50%, best pairs first, each file used once. Empty
//! files never pair (as in git). Above `limit x limit` candidate pairs only exact renames
//! are found (git does the same and says so).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// The default `diff.renameLimit`.
pub const DEFAULT_RENAME_LIMIT: usize = 1000;

/// One side of a potential rename.
#[derive(Debug, Clone, Copy)]
pub struct RenameSide<'a> {
    pub path: &'a [u8],
    /// The blob id (raw bytes); equal ids mean equal content.
    pub id: &'a [u8],
    /// The content, when it was read (`None` for blobs too large to compare; they can
    /// still pair exactly).
    pub data: Option<&'a [u8]>,
    pub size: u64,
}

/// A detected rename: indices into the `deleted` and `added` slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenamePair {
    pub deleted: usize,
    pub added: usize,
}

const MIN_SCORE: f64 = 0.5;

fn basename(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

/// Pairs deleted with added files. The result is sorted by `added`.
pub fn detect_renames(
    deleted: &[RenameSide<'_>],
    added: &[RenameSide<'_>],
    limit: usize,
) -> Vec<RenamePair> {
    let mut pairs = Vec::new();
    if deleted.is_empty() || added.is_empty() {
        return pairs;
    }
    let mut src_used = vec![false; deleted.len()];
    let mut dst_used = vec![false; added.len()];

    // Exact renames.
    let mut by_id: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (i, d) in deleted.iter().enumerate() {
        if d.size > 0 {
            by_id.entry(d.id).or_default().push(i);
        }
    }
    for (j, a) in added.iter().enumerate() {
        if a.size == 0 {
            continue;
        }
        let Some(sources) = by_id.get(a.id) else {
            continue;
        };
        let free = sources.iter().copied().filter(|&i| !src_used[i]);
        let same_name = free
            .clone()
            .find(|&i| basename(deleted[i].path) == basename(a.path));
        if let Some(i) = same_name.or_else(|| free.clone().next()) {
            src_used[i] = true;
            dst_used[j] = true;
            pairs.push(RenamePair {
                deleted: i,
                added: j,
            });
        }
    }

    // Inexact renames.
    let srcs: Vec<usize> = (0..deleted.len())
        .filter(|&i| !src_used[i] && deleted[i].size > 0 && deleted[i].data.is_some())
        .collect();
    let dsts: Vec<usize> = (0..added.len())
        .filter(|&j| !dst_used[j] && added[j].size > 0 && added[j].data.is_some())
        .collect();
    if !srcs.is_empty()
        && !dsts.is_empty()
        && (limit == 0 || srcs.len().saturating_mul(dsts.len()) <= limit.saturating_mul(limit))
    {
        let src_fp: Vec<Fingerprint> = srcs
            .iter()
            .map(|&i| Fingerprint::of(deleted[i].data.unwrap_or_default()))
            .collect();
        let mut candidates: Vec<(f64, bool, usize, usize)> = Vec::new();
        for &j in &dsts {
            let a = &added[j];
            let dst_fp = Fingerprint::of(a.data.unwrap_or_default());
            for (k, &i) in srcs.iter().enumerate() {
                let d = &deleted[i];
                let (small, large) = (d.size.min(a.size), d.size.max(a.size));
                // Sizes too far apart can never reach the minimum score.
                if ((large - small) as f64) > large as f64 * (1.0 - MIN_SCORE) {
                    continue;
                }
                let score = src_fp[k].similarity(&dst_fp);
                if score >= MIN_SCORE {
                    candidates.push((score, basename(d.path) == basename(a.path), i, j));
                }
            }
        }
        candidates.sort_by(|x, y| {
            y.0.total_cmp(&x.0)
                .then(y.1.cmp(&x.1))
                .then(x.3.cmp(&y.3))
                .then(x.2.cmp(&y.2))
        });
        for (_, _, i, j) in candidates {
            if !src_used[i] && !dst_used[j] {
                src_used[i] = true;
                dst_used[j] = true;
                pairs.push(RenamePair {
                    deleted: i,
                    added: j,
                });
            }
        }
    }
    pairs.sort_by_key(|p| p.added);
    pairs
}

/// Byte counts per content chunk, sorted by chunk hash.
struct Fingerprint {
    chunks: Vec<(u64, u64)>,
    size: u64,
}

/// A fixed-key hasher: fingerprints must be comparable across files.
#[derive(Clone, Copy, Default)]
struct FixedState;

impl BuildHasher for FixedState {
    type Hasher = std::collections::hash_map::DefaultHasher;
    fn build_hasher(&self) -> Self::Hasher {
        std::collections::hash_map::DefaultHasher::new()
    }
}

impl Fingerprint {
    fn of(data: &[u8]) -> Fingerprint {
        let mut counts: HashMap<u64, u64, FixedState> = HashMap::with_hasher(FixedState);
        let mut rest = data;
        while !rest.is_empty() {
            let max = rest.len().min(64);
            let end = memchr::memchr(b'\n', &rest[..max]).map_or(max, |p| p + 1);
            let chunk = &rest[..end];
            // A CRLF line and an LF line count as the same chunk, as in git.
            let key = match chunk {
                [head @ .., b'\r', b'\n'] => (head, true),
                [head @ .., b'\n'] => (head, true),
                _ => (chunk, false),
            };
            let mut h = FixedState.build_hasher();
            h.write(key.0);
            h.write_u8(u8::from(key.1));
            *counts.entry(h.finish()).or_default() += chunk.len() as u64;
            rest = &rest[end..];
        }
        let mut chunks: Vec<(u64, u64)> = counts.into_iter().collect();
        chunks.sort_unstable();
        Fingerprint {
            chunks,
            size: data.len() as u64,
        }
    }

    fn similarity(&self, other: &Fingerprint) -> f64 {
        let large = self.size.max(other.size);
        if large == 0 {
            return 0.0;
        }
        let (mut i, mut j, mut common) = (0, 0, 0u64);
        while i < self.chunks.len() && j < other.chunks.len() {
            let (a, b) = (self.chunks[i], other.chunks[j]);
            match a.0.cmp(&b.0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    common += a.1.min(b.1);
                    i += 1;
                    j += 1;
                }
            }
        }
        common as f64 / large as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side<'a>(path: &'a str, id: &'a str, data: &'a str) -> RenameSide<'a> {
        RenameSide {
            path: path.as_bytes(),
            id: id.as_bytes(),
            data: Some(data.as_bytes()),
            size: data.len() as u64,
        }
    }

    fn lines(n: usize, tag: &str) -> String {
        (0..n).map(|i| format!("line {i} of {tag}\n")).collect()
    }

    #[test]
    fn exact_renames_prefer_the_same_file_name() {
        let deleted = [side("a/x.rs", "1", "same"), side("b/y.rs", "1", "same")];
        let added = [side("c/y.rs", "1", "same")];
        assert_eq!(
            detect_renames(&deleted, &added, DEFAULT_RENAME_LIMIT),
            [RenamePair {
                deleted: 1,
                added: 0
            }]
        );
    }

    #[test]
    fn similar_content_pairs_at_half_or_more() {
        let base = lines(20, "base");
        let edited = format!("{}{}", lines(15, "base"), lines(5, "new"));
        let rewritten = lines(20, "other");
        let deleted = [side("old.rs", "1", &base)];
        let cases: &[(&str, bool)] = &[(&edited, true), (&rewritten, false)];
        for (content, pairs) in cases {
            let added = [side("new.rs", "2", content)];
            let got = detect_renames(&deleted, &added, DEFAULT_RENAME_LIMIT);
            assert_eq!(!got.is_empty(), *pairs, "{content}");
        }
    }

    #[test]
    fn best_pair_wins_and_each_file_pairs_once() {
        let a = lines(20, "a");
        let a_edit = format!("{}{}", lines(19, "a"), lines(1, "x"));
        let a_more = format!("{}{}", lines(14, "a"), lines(6, "y"));
        let deleted = [side("a.rs", "1", &a)];
        let added = [side("b.rs", "2", &a_more), side("c.rs", "3", &a_edit)];
        assert_eq!(
            detect_renames(&deleted, &added, DEFAULT_RENAME_LIMIT),
            [RenamePair {
                deleted: 0,
                added: 1
            }]
        );
    }

    #[test]
    fn empty_files_and_exceeded_limits_do_not_pair() {
        let deleted = [side("a.txt", "e", "")];
        let added = [side("b.txt", "e", "")];
        assert!(detect_renames(&deleted, &added, DEFAULT_RENAME_LIMIT).is_empty());

        let base = lines(10, "z");
        let edited = format!("{}{}", lines(9, "z"), lines(1, "w"));
        let deleted = [side("a.rs", "1", &base), side("b.rs", "3", "other\n")];
        let added = [side("c.rs", "2", &edited)];
        assert!(detect_renames(&deleted, &added, 1).is_empty());
        assert_eq!(detect_renames(&deleted, &added, 2).len(), 1);
    }
}
