//! The evidence of one commit: its change against the first parent, read in-process.
//!
//! One [`EvidenceReader`] per thread: it owns the buffers that tree diffs, blob reads and
//! line diffs reuse from commit to commit, and remembers the tree of every commit it read,
//! so the parent of the next commit in a range costs nothing.

use std::collections::{HashMap, HashSet};

use gix::ObjectId;
use gix::bstr::BString;
use gix::diff::tree::recorder::Change;
use gix::diff::tree::{Recorder, State};
use gix::objs::tree::EntryMode;
use gix::objs::{Find, FindExt, TreeRefIter};

use super::GitError;
use super::diff::{
    ChangedLine, LineDiffer, MAX_LINE_DIFF_BYTES, equal_ignoring_whitespace, is_binary,
    lines as text_lines,
};
use super::renames::{DEFAULT_RENAME_LIMIT, RenameSide, detect_renames};
use super::submodules::Submodules;
use crate::config::TestPaths;
use crate::iteration::{FileChange, FileStatus, Iteration, skips_of};
use loopguard_core::patch::patch_id::{FilePatchHasher, PatchIdBuilder};
use loopguard_core::suite::{ChangedFile, Parses, Role, TakenTest, taken_with};

/// Buffers kept between commits, at most (pool and previous blobs each).
const MAX_KEPT_BLOBS: usize = 64;
/// Bytes of the previous commit's blobs kept for the next one, at most.
const MAX_KEPT_BYTES: usize = 32 << 20;

/// One side of a changed file, its content loaded.
struct Side {
    path: BString,
    id: ObjectId,
    mode: EntryMode,
    data: Vec<u8>,
    /// Larger than [`MAX_LINE_DIFF_BYTES`]: `data` is empty and the blob is opaque.
    too_big: bool,
}

/// A changed file: `old`/`new` absent for additions/deletions.
struct FilePair {
    status: FileStatus,
    old: Option<Side>,
    new: Option<Side>,
}

impl Side {
    fn rename_side(&self) -> RenameSide<'_> {
        RenameSide {
            path: self.path.as_slice(),
            id: self.id.as_bytes(),
            data: (!self.too_big).then_some(self.data.as_slice()),
            // Too big to read: a size no smaller file can be similar to.
            size: if self.too_big {
                u64::MAX / 2
            } else {
                self.data.len() as u64
            },
        }
    }
}

impl FilePair {
    fn path(&self) -> &BString {
        let side = self.new.as_ref().or(self.old.as_ref());
        &side.expect("a file pair has at least one side").path
    }
}

/// Everything the files of one change contribute.
struct ChangeSummary {
    files: Vec<FileChange>,
    patch: PatchIdBuilder,
    taken: Vec<TakenTest>,
    whitespace_only: bool,
}

pub(crate) struct EvidenceReader<'r> {
    repo: &'r gix::Repository,
    shallow: &'r HashSet<ObjectId>,
    tests: &'r TestPaths,
    state: State,
    recorder: Recorder,
    commit_buf: Vec<u8>,
    parent_buf: Vec<u8>,
    lhs_buf: Vec<u8>,
    rhs_buf: Vec<u8>,
    differ: LineDiffer,
    /// Blob buffers handed back after each commit.
    pool: Vec<Vec<u8>>,
    /// The blobs the previous commit wrote, by id.
    previous_blobs: HashMap<ObjectId, Vec<u8>>,
    /// Commit id -> tree id, for parents read before.
    trees: HashMap<ObjectId, ObjectId>,
    /// The tests of the blobs read before, by blob id: a blob one commit writes is read
    /// again as the old side of a later one.
    parses: Parses,
    /// The submodules whose bumps were judged.
    submodules: Submodules,
}

fn hex(id: &ObjectId) -> String {
    id.to_hex().to_string()
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl<'r> EvidenceReader<'r> {
    pub(crate) fn new(
        repo: &'r gix::Repository,
        shallow: &'r HashSet<ObjectId>,
        tests: &'r TestPaths,
    ) -> Self {
        EvidenceReader {
            repo,
            shallow,
            tests,
            state: State::default(),
            recorder: Recorder::default(),
            commit_buf: Vec::new(),
            parent_buf: Vec::new(),
            lhs_buf: Vec::new(),
            rhs_buf: Vec::new(),
            differ: LineDiffer::default(),
            pool: Vec::new(),
            previous_blobs: HashMap::new(),
            trees: HashMap::new(),
            parses: Parses::default(),
            submodules: Submodules::default(),
        }
    }

    /// The tree of commit `id`, or `None` when the commit is not in the repository (beyond
    /// a shallow boundary).
    fn tree_of(&mut self, id: ObjectId) -> Result<Option<ObjectId>, GitError> {
        if let Some(tree) = self.trees.get(&id) {
            return Ok(Some(*tree));
        }
        let found = self
            .repo
            .objects
            .try_find(&id, &mut self.parent_buf)
            .map_err(|e| GitError::other(format!("cannot read commit {id}"), e))?;
        let Some(data) = found else {
            return Ok(None);
        };
        let tree = data
            .try_into_commit_iter()
            .and_then(|mut c| c.tree_id().ok())
            .ok_or_else(|| GitError::other(format!("cannot read commit {id}"), "not a commit"))?;
        self.trees.insert(id, tree);
        Ok(Some(tree))
    }

    /// What commit `id` says of itself, without its change: author, tree, parents, the
    /// message (bounded: [`loopguard_core::iteration::bounded_message`]), the time.
    pub(crate) fn header(&mut self, id: ObjectId) -> Result<Iteration, GitError> {
        let commit = self
            .repo
            .objects
            .find_commit(&id, &mut self.commit_buf)
            .map_err(|e| GitError::other(format!("cannot read commit {id}"), e))?;
        let author = gix::actor::SignatureRef::from_bytes(commit.author)
            .map(|s| {
                let s = s.trim();
                format!("{} <{}>", lossy(s.name), lossy(s.email))
            })
            .unwrap_or_else(|_| lossy(commit.author).trim().to_owned());
        let at = gix::actor::SignatureRef::from_bytes(commit.committer)
            .ok()
            .and_then(|s| jiff::Timestamp::from_second(s.seconds()).ok());
        let mut it = Iteration::new(super::repo::cid(&id));
        it.author = Some(author);
        it.tree = Some(hex(&commit.tree()));
        it.parents = Some(commit.parents().map(|p| super::repo::cid(&p)).collect());
        it.message = Some(loopguard_core::iteration::bounded_message(commit.message));
        it.at = at;
        Ok(it)
    }

    pub(crate) fn iteration(&mut self, id: ObjectId) -> Result<Iteration, GitError> {
        let mut it = self.header(id)?;
        let tree = ObjectId::from_hex(it.tree.as_deref().unwrap_or_default().as_bytes())
            .map_err(|e| GitError::other(format!("cannot read commit {id}"), e))?;
        let parents: Vec<ObjectId> = it
            .parents
            .iter()
            .flatten()
            .filter_map(|p| ObjectId::from_hex(p.as_str().as_bytes()).ok())
            .collect();
        self.trees.insert(id, tree);

        let parent_tree = match parents.first() {
            None => None,
            // A shallow boundary: git itself treats the commit as parentless, but its
            // change is unknown, not "everything added".
            Some(_) if self.shallow.contains(&id) => return Ok(it),
            Some(parent) => match self.tree_of(*parent)? {
                Some(t) => Some(t),
                None => return Ok(it),
            },
        };
        it.parent_tree = parent_tree.as_ref().map(hex);
        self.describe(&mut it, parent_tree, tree, parents.len() > 1)?;
        Ok(it)
    }

    /// The evidence of a change that no commit holds (a working-tree state `loopguard run`
    /// tested): from `it`'s `parent_tree` to its `tree`, as a commit of that tree on that
    /// parent would have it. Nothing when its tree is unknown.
    pub(crate) fn tree_change(&mut self, it: &mut Iteration) -> Result<(), GitError> {
        let id = |hex: &str| {
            ObjectId::from_hex(hex.as_bytes())
                .map_err(|e| GitError::other(format!("not a tree id: {hex}"), e))
        };
        let Some(tree) = it.tree.as_deref().map(id).transpose()? else {
            return Ok(());
        };
        let parent_tree = it.parent_tree.as_deref().map(id).transpose()?;
        self.describe(it, parent_tree, tree, false)
    }

    /// Sets `it`'s files, patch id (none for a merge), added skips and whether the change
    /// is whitespace only, from `parent_tree` (none: everything is added) to `tree`.
    fn describe(
        &mut self,
        it: &mut Iteration,
        parent_tree: Option<ObjectId>,
        tree: ObjectId,
        merge: bool,
    ) -> Result<(), GitError> {
        let summary = if parent_tree == Some(tree) {
            ChangeSummary {
                files: Vec::new(),
                patch: PatchIdBuilder::default(),
                taken: Vec::new(),
                whitespace_only: false,
            }
        } else {
            let pairs = self.changed_files(parent_tree, tree)?;
            let summary = self.summarise(&pairs);
            it.empty_bump = self.empty_bump(&pairs, tree).filter(|_| !merge);
            self.recycle(pairs);
            summary
        };
        it.whitespace_only = Some(summary.whitespace_only);
        it.patch_id = if merge { None } else { summary.patch.finish() };
        it.files = Some(summary.files);
        it.skips_added = Some(skips_of(&summary.taken));
        it.tests_taken = Some(summary.taken);
        Ok(())
    }

    /// Whether every changed file is a submodule moved to commits that change nothing of
    /// its own ([`Submodules::changed`]); `None` when not every one is a submodule moved.
    fn empty_bump(&mut self, pairs: &[FilePair], tree: ObjectId) -> Option<bool> {
        let mut bumps = Vec::new();
        for pair in pairs {
            match (&pair.old, &pair.new) {
                (Some(old), Some(new)) if old.mode.is_commit() && new.mode.is_commit() => {
                    bumps.push((new.path.clone(), old.id, new.id));
                }
                _ => return None,
            }
        }
        if bumps.is_empty() {
            return None;
        }
        let repo = self.repo;
        Some(
            bumps.into_iter().all(|(path, old, new)| {
                !self.submodules.changed(repo, tree, path.as_ref(), old, new)
            }),
        )
    }

    /// Keeps the new side of every file for the next commit (in a range, the blobs one
    /// commit writes are the ones the next one changes again) and returns the rest of the
    /// buffers to the pool.
    fn recycle(&mut self, pairs: Vec<FilePair>) {
        let mut previous = std::mem::take(&mut self.previous_blobs);
        let mut kept_bytes = 0;
        for pair in pairs {
            if let Some(new) = pair.new {
                if !new.too_big
                    && !new.mode.is_commit()
                    && self.previous_blobs.len() < MAX_KEPT_BLOBS
                    && kept_bytes + new.data.len() <= MAX_KEPT_BYTES
                {
                    kept_bytes += new.data.len();
                    self.previous_blobs.insert(new.id, new.data);
                } else {
                    self.give_back(new.data);
                }
            }
            if let Some(old) = pair.old {
                self.give_back(old.data);
            }
        }
        for (_, data) in previous.drain() {
            self.give_back(data);
        }
    }

    fn give_back(&mut self, mut data: Vec<u8>) {
        if self.pool.len() < MAX_KEPT_BLOBS && data.capacity() <= MAX_LINE_DIFF_BYTES {
            data.clear();
            self.pool.push(data);
        }
    }

    fn load(&mut self, path: BString, id: ObjectId, mode: EntryMode) -> Result<Side, GitError> {
        if let Some(data) = self.previous_blobs.remove(&id) {
            return Ok(Side {
                path,
                id,
                mode,
                data,
                too_big: false,
            });
        }
        let mut data = self.pool.pop().unwrap_or_default();
        if mode.is_commit() {
            // A submodule: git shows its commit id as one line of text.
            data.extend_from_slice(format!("Subproject commit {id}\n").as_bytes());
            return Ok(Side {
                path,
                id,
                mode,
                data,
                too_big: false,
            });
        }
        // The size from the object's header first: a blob too big to diff is never
        // loaded (a 500 MB binary would otherwise take twice that in memory); it is opaque,
        // its ids all it contributes.
        let size = match self.repo.find_header(id) {
            Ok(header) => header.size(),
            // Not in this clone (a partial clone's filtered blob, a mirror without its
            // large files): opaque, as a blob too big to read is.
            Err(_) if !self.repo.has_object(id) => u64::MAX,
            Err(e) => return Err(GitError::other(format!("cannot read {path} ({id})"), e)),
        };
        if size > MAX_LINE_DIFF_BYTES as u64 {
            self.give_back(data);
            return Ok(Side {
                path,
                id,
                mode,
                data: Vec::new(),
                too_big: true,
            });
        }
        let len = self
            .repo
            .objects
            .find_blob(&id, &mut data)
            .map_err(|e| GitError::other(format!("cannot read {path} ({id})"), e))?
            .data
            .len();
        data.truncate(len);
        Ok(Side {
            path,
            id,
            mode,
            data,
            too_big: false,
        })
    }

    /// The files that differ between the two trees, renames paired, sorted by path.
    fn changed_files(
        &mut self,
        parent_tree: Option<ObjectId>,
        tree: ObjectId,
    ) -> Result<Vec<FilePair>, GitError> {
        let records = self.tree_changes(parent_tree, tree)?;
        let mut pairs = Vec::new();
        let mut deleted = Vec::new();
        let mut added = Vec::new();
        for change in records {
            self.sort_change(change, &mut pairs, &mut deleted, &mut added)?;
        }
        pair_renames(&mut pairs, deleted, added);
        pairs.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(pairs)
    }

    /// gix's tree diff between the two trees (an absent parent is the empty tree).
    fn tree_changes(
        &mut self,
        parent_tree: Option<ObjectId>,
        tree: ObjectId,
    ) -> Result<Vec<Change>, GitError> {
        let kind = self.repo.object_hash();
        let lhs = match parent_tree {
            Some(t) => self
                .repo
                .objects
                .find_tree_iter(&t, &mut self.lhs_buf)
                .map_err(|e| GitError::other(format!("cannot read tree {t}"), e))?,
            None => TreeRefIter::from_bytes(&[], kind),
        };
        let rhs = self
            .repo
            .objects
            .find_tree_iter(&tree, &mut self.rhs_buf)
            .map_err(|e| GitError::other(format!("cannot read tree {tree}"), e))?;
        // A fresh recorder: it tracks the current path across calls.
        self.recorder = Recorder::default();
        gix::diff::tree(
            lhs,
            rhs,
            &mut self.state,
            &self.repo.objects,
            &mut self.recorder,
        )
        .map_err(|e| GitError::other(format!("cannot diff tree {tree}"), e))?;
        Ok(std::mem::take(&mut self.recorder.records))
    }

    /// One change of the tree diff, loaded: a modified file into `pairs`, an added or a
    /// deleted one into `added` or `deleted` (renames are paired from those); directories
    /// are left out (the diff reports their entries).
    fn sort_change(
        &mut self,
        change: Change,
        pairs: &mut Vec<FilePair>,
        deleted: &mut Vec<Side>,
        added: &mut Vec<Side>,
    ) -> Result<(), GitError> {
        match change {
            Change::Addition {
                entry_mode,
                oid,
                path,
                ..
            } if !entry_mode.is_tree() => added.push(self.load(path, oid, entry_mode)?),
            Change::Deletion {
                entry_mode,
                oid,
                path,
                ..
            } if !entry_mode.is_tree() => deleted.push(self.load(path, oid, entry_mode)?),
            Change::Modification {
                previous_entry_mode,
                previous_oid,
                entry_mode,
                oid,
                path,
            } => match (previous_entry_mode.is_tree(), entry_mode.is_tree()) {
                (false, false) => {
                    let old = self.load(path.clone(), previous_oid, previous_entry_mode)?;
                    let new = self.load(path, oid, entry_mode)?;
                    pairs.push(FilePair {
                        status: FileStatus::Modified,
                        old: Some(old),
                        new: Some(new),
                    });
                }
                // A file replaced by a directory or back: the tree diff reports the
                // directory's entries separately; the file is an add or a delete.
                (true, false) => added.push(self.load(path, oid, entry_mode)?),
                (false, true) => {
                    deleted.push(self.load(path, previous_oid, previous_entry_mode)?);
                }
                (true, true) => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// The tests the change takes away (see [`loopguard_core::suite`]), read from both
    /// sides of every file, when a file that bears tests changed at all. A blob's tests are
    /// read once in a range (`parses`, by blob id).
    fn taken(&mut self, pairs: &[FilePair]) -> Vec<TakenTest> {
        let tests = self.tests;
        let bears = |side: &Option<Side>| {
            side.as_ref().is_some_and(|s| {
                let path = String::from_utf8_lossy(&s.path);
                matches!(tests.role(&path), Some(Role::Tests(_))) || path.ends_with(".rs")
            })
        };
        if !pairs.iter().any(|p| bears(&p.old) || bears(&p.new)) {
            return Vec::new();
        }
        fn text(side: &Option<Side>) -> Option<std::borrow::Cow<'_, str>> {
            side.as_ref()
                .filter(|s| !s.too_big && !s.mode.is_commit() && !is_binary(&s.data))
                .map(|s| match std::str::from_utf8(&s.data) {
                    Ok(text) => std::borrow::Cow::Borrowed(text),
                    Err(_) => String::from_utf8_lossy(&s.data),
                })
        }
        fn key(side: &Option<Side>) -> Option<&[u8]> {
            side.as_ref().map(|s| s.id.as_bytes())
        }
        let paths: Vec<(Option<String>, Option<String>)> = pairs
            .iter()
            .map(|p| {
                let path = |s: &Option<Side>| s.as_ref().map(|s| lossy(&s.path));
                (path(&p.old), path(&p.new))
            })
            .collect();
        let texts: Vec<_> = pairs.iter().map(|p| (text(&p.old), text(&p.new))).collect();
        let files: Vec<ChangedFile<'_>> = paths
            .iter()
            .zip(&texts)
            .zip(pairs)
            .map(|(((old_path, new_path), (old, new)), pair)| ChangedFile {
                old_path: old_path.as_deref(),
                new_path: new_path.as_deref(),
                old: old.as_deref(),
                new: new.as_deref(),
                old_key: key(&pair.old),
                new_key: key(&pair.new),
            })
            .collect();
        taken_with(&files, |p| tests.role(p), &mut self.parses)
    }

    fn summarise(&mut self, pairs: &[FilePair]) -> ChangeSummary {
        let mut summary = ChangeSummary {
            files: Vec::with_capacity(pairs.len()),
            patch: PatchIdBuilder::default(),
            taken: self.taken(pairs),
            whitespace_only: !pairs.is_empty(),
        };
        for pair in pairs {
            let path = pair.path();
            let old_path = pair.old.as_ref().map_or(path, |s| &s.path);
            let mut hasher = FilePatchHasher::new(pair.status, old_path, path);
            let mut file = FileChange {
                path: lossy(path),
                status: Some(pair.status),
                old_path: (pair.status == FileStatus::Renamed).then(|| lossy(old_path)),
                ..FileChange::default()
            };
            let mut ws_equal = pair.status == FileStatus::Modified;
            if let (Some(old), Some(new)) = (&pair.old, &pair.new)
                && old.mode != new.mode
            {
                hasher.mode_change(old.mode.value(), new.mode.value());
                ws_equal = false;
            }
            let (old, new) = (pair.old.as_ref(), pair.new.as_ref());
            let too_big = old.is_some_and(|s| s.too_big) || new.is_some_and(|s| s.too_big);
            let binary = !too_big
                && (old.is_some_and(|s| is_binary(&s.data))
                    || new.is_some_and(|s| is_binary(&s.data)));
            if too_big || binary {
                if old.map(|s| s.id) != new.map(|s| s.id) {
                    hasher.opaque(old.map(|s| s.id.as_bytes()), new.map(|s| s.id.as_bytes()));
                    ws_equal = false;
                }
                file.binary = binary;
            } else {
                let (added, removed) = self.diff_lines(old, new, &mut hasher, &mut ws_equal);
                file.added = Some(added);
                file.deleted = Some(removed);
            }
            summary.whitespace_only &= ws_equal;
            summary.patch.push(hasher);
            summary.files.push(file);
        }
        summary
    }

    /// The lines a text file's change adds and removes, into its patch id: their counts.
    /// `ws_equal` turns false when the change is more than whitespace.
    fn diff_lines(
        &mut self,
        old: Option<&Side>,
        new: Option<&Side>,
        hasher: &mut FilePatchHasher,
        ws_equal: &mut bool,
    ) -> (u64, u64) {
        match (old, new) {
            (None, Some(n)) => {
                let mut count = 0;
                for l in text_lines(&n.data) {
                    hasher.added(l);
                    count += 1;
                }
                (count, 0)
            }
            (Some(o), None) => {
                let mut count = 0;
                for l in text_lines(&o.data) {
                    hasher.removed(l);
                    count += 1;
                }
                (0, count)
            }
            (Some(o), Some(n)) if o.id != n.id => {
                let diff = self.differ.diff(&o.data, &n.data, |line| match line {
                    ChangedLine::Added(l) => hasher.added(l),
                    ChangedLine::Removed(l) => hasher.removed(l),
                });
                // Outside the changed ranges both sides are identical.
                if *ws_equal
                    && !equal_ignoring_whitespace(
                        &o.data[diff.changed_before],
                        &n.data[diff.changed_after],
                    )
                {
                    *ws_equal = false;
                }
                (diff.counts.added, diff.counts.removed)
            }
            _ => (0, 0),
        }
    }
}

/// Pairs renames among the deleted and added files (into `pairs`, as renames), and puts
/// the rest in as added and deleted files.
fn pair_renames(pairs: &mut Vec<FilePair>, deleted: Vec<Side>, added: Vec<Side>) {
    let renames = {
        let d: Vec<RenameSide<'_>> = deleted.iter().map(Side::rename_side).collect();
        let a: Vec<RenameSide<'_>> = added.iter().map(Side::rename_side).collect();
        detect_renames(&d, &a, DEFAULT_RENAME_LIMIT)
    };
    let mut deleted: Vec<Option<Side>> = deleted.into_iter().map(Some).collect();
    let mut added: Vec<Option<Side>> = added.into_iter().map(Some).collect();
    for r in renames {
        pairs.push(FilePair {
            status: FileStatus::Renamed,
            old: deleted[r.deleted].take(),
            new: added[r.added].take(),
        });
    }
    pairs.extend(added.into_iter().flatten().map(|s| FilePair {
        status: FileStatus::Added,
        old: None,
        new: Some(s),
    }));
    pairs.extend(deleted.into_iter().flatten().map(|s| FilePair {
        status: FileStatus::Deleted,
        old: Some(s),
        new: None,
    }));
}

/// Ids of the commits beyond which history is cut (empty unless shallow).
pub(crate) fn shallow_set(repo: &gix::Repository) -> HashSet<ObjectId> {
    repo.shallow_commits()
        .ok()
        .flatten()
        .map(|commits| commits.iter().copied().collect())
        .unwrap_or_default()
}
