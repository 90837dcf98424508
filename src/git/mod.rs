//! Reading commits in-process: trees, diffs, patch ids, the evidence of an iteration.
//!
//! The shell module between git and the rules: [`Repo`] opens a repository and answers
//! what loopguard asks (HEAD, ranges, a branch's own commits, blobs, the HEAD reflog), and
//! turns a commit into an [`Iteration`](crate::iteration::Iteration) record. Nothing here
//! runs `git`; everything is read in-process with [gix](https://docs.rs/gix).
//!
//! # gix, and which of it
//!
//! `gix` with `default-features = false` and four features: `sha1` and `sha256` (the
//! object hashes: a repository of SHA-256 objects, `git init --object-format=sha256`, is
//! read as a SHA-1 one is, and `tests/it/neighbours.rs` holds the two to the same
//! verdicts), `revision` (rev-spec parsing: `HEAD~3`, `main..topic`, `v1^{commit}`) and
//! `max-performance` (the delta-base and object caches and the thread-safe object store
//! that [`Repo::iterations`] shares between threads; with gix 0.90 it uses zlib-rs, pure
//! Rust, no C). Left out: networking, worktree checkout and status, attributes and filters,
//! blame, merge, and gix's own blob diff (`blob-diff`): tree diffs use `gix::diff::tree`
//! (always built), line diffs use `imara-diff` directly (the engine gix would use), and
//! rename detection is ours ([`renames`]), so the attribute and filter machinery `blob-diff`
//! drags in is not compiled. A debug build of the whole library, gix included, took 75 s
//! on two shared cores.
//!
//! # The evidence of a commit
//!
//! Against its first parent (merges included; a root commit against the empty tree): the
//! changed files with status (added, modified, deleted, renamed with `old_path`), lines
//! added and deleted (Myers, git's default; on the 1,335 newest commits of rust-lang/cargo
//! paths, statuses and renames equal `git diff-tree -M --numstat` everywhere and the
//! counts in 97% of commits; the rest differ by a line or two where git's xdiff sets
//! aside frequent lines, such as a blank line beside a changed run), `binary` for content
//! with a NUL byte in its first 8000 bytes (git's test; `.gitattributes` is not read) with
//! counts unknown, whether the change is whitespace-only, and the test skips it adds
//! ([`skips_of`](crate::iteration::skips_of)). Renames follow git's defaults: exact
//! renames, then similarity of at least 50% (chunk-hash scoring like git's
//! `diffcore-delta`), at most 1000 x 1000 candidates.
//! A submodule change reads as one line, `Subproject commit <id>`, as git prints it.
//!
//! Blobs larger than [`MAX_LINE_DIFF_BYTES`] (8 MiB) are not diffed line by line: their
//! counts are unknown (`None`, `binary: false` unless they are binary), they count as a
//! change for `whitespace_only`, and they enter the patch id by blob id.
//!
//! A commit at a shallow boundary (its parent is not in the repository) has no known
//! change: `parent_tree`, `files`, `patch_id`, `whitespace_only` and `skips_added` are
//! `None`. Ranges stop there without error, as `git rev-list` does.
//!
//! `whitespace_only` is true when the change is not empty, every changed file is a
//! modification with the same mode, and each file's content with all whitespace removed
//! is the same before and after.
//!
//! # Patch id
//!
//! What a change does, independent of whitespace, of line numbers and of the order of
//! files, in the spirit of `git patch-id --stable`:
//!
//! 1. Per changed file, a SHA-256 over: a status tag (`A`, `M`, `D`, `R`), the old and
//!    the new path (equal except for renames); then, in diff order (each hunk's removed
//!    lines before its added ones), every removed and added line with all ASCII
//!    whitespace removed, prefixed by its sign `-` or `+`. Lines that are empty once
//!    whitespace is removed are skipped. Context lines and hunk headers are not hashed, so
//!    the same edit at other line numbers hashes the same; ambiguous hunk positions are
//!    made canonical (shifted as far down as they go) so it also does in a file with
//!    different surroundings. A binary or oversized file contributes its old and new blob
//!    ids instead of lines; a mode change contributes both modes.
//! 2. A modified file that contributes no line, blob or mode contributes nothing; an
//!    added, deleted or renamed file always contributes (its paths).
//! 3. The per-file digests are sorted and hashed again, under a version tag, into one
//!    SHA-256: the patch id, 64 hex digits.
//!
//! An empty change (the tree equals the parent's, or only blank lines change) has no patch
//! id, and neither has a merge commit, as with `git patch-id`. A revert has a different id
//! (the signs swap); a cherry-pick, a rebase onto a moved base, or a re-indented version of
//! the same change has the same one. SHA-256 because the id is compared across runs and
//! machines, and the crate already uses it for failure signatures.
//!
//! # Speed
//!
//! Opening a repository reads its config and refs lazily; the evidence of one commit
//! costs a tree diff and the changed blobs. [`Repo::iterations`] reads a range on up to
//! four threads (contiguous slices, so consecutive commits share caches), with a 64 MiB
//! delta-base cache and a 4 MiB object cache per thread, keeps each commit's new blobs
//! for the next commit, and diffs only what lies between the lines two versions share at
//! their start and end. The tests a change takes away are read from whole files: each blob
//! once per range (by its id; the blob one commit writes is the old side of a later one),
//! and not at all when no side before the change can declare a test (a Rust source file
//! without the words every Rust test is declared with). `scripts/bench-git.sh` measures
//! it against git, `scripts/bench-check.sh` the whole of `check` on a real history.
//!
//! # Environment
//!
//! [`Repo::discover`] looks only at the directory; [`Repo::discover_with_env`] also honours
//! `GIT_DIR` and `GIT_WORK_TREE` like git, which hooks need (git sets `GIT_DIR` for hooks in
//! linked worktrees).
mod diff;
mod error;
mod evidence;
mod range;
pub mod renames;
mod repo;
mod submodules;

pub use diff::MAX_LINE_DIFF_BYTES;
pub use error::GitError;
pub use repo::{Head, ReflogEntry, Repo, plain_history};
