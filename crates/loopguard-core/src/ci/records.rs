//! Iteration records from GitHub's commit payloads, for a checkout that does not have the
//! PR's history (a shallow clone, a `workflow_run` job). Pure.
//!
//! The patch id and the test skips are computed from the per-file `patch` hunks GitHub
//! sends, with the same hashing and skip detection as the git reader, so a record from the
//! API judges like one from git. What the payload does not carry stays unknown: the parent
//! tree of a commit whose parent is outside the PR, and whatever a file without a `patch`
//! (binary, or too large) changed line by line.

use crate::config::TestPaths;
use crate::github::types::FileChangeStatus;
use crate::github::{Commit, CommitFile};
use crate::iteration::{FileChange, FileStatus, Iteration, skips_of};
use crate::patch::patch_id::{FilePatchHasher, PatchIdBuilder};
use crate::suite::{ChangedFile, TakenTest, taken};

/// A record for `commit` (with its `files` when it was fetched alone); `parent_tree` is the
/// tree of its first parent when known; `tests` says what a test is (`paths.tests`).
pub fn iteration_from_commit(
    commit: &Commit,
    parent_tree: Option<&str>,
    tests: &TestPaths,
) -> Iteration {
    let git = &commit.commit;
    let author = git
        .author
        .as_ref()
        .filter(|a| !a.name.is_empty() || !a.email.is_empty())
        .map(|a| format!("{} <{}>", a.name, a.email));
    let at = git
        .committer
        .as_ref()
        .or(git.author.as_ref())
        .and_then(|s| s.date);
    let tree = git
        .tree
        .as_ref()
        .map(|t| t.sha.clone())
        .filter(|t| !t.is_empty());
    let parents = commit.parents.iter().map(|p| p.sha.clone()).collect();
    let mut it = Iteration::new(commit.sha.clone());
    it.author = author;
    it.tree = tree;
    it.parent_tree = parent_tree.map(str::to_owned);
    it.parents = Some(parents);
    it.message = Some(crate::iteration::bounded_message(git.message.as_bytes()));
    it.at = at;
    add_file_evidence(&mut it, &commit.files, tests);
    it
}

/// The list form of a commit (PR commits) carries no files: only what that says.
pub fn iteration_from_listed_commit(commit: &Commit, parent_tree: Option<&str>) -> Iteration {
    let mut it = iteration_from_commit(commit, parent_tree, &TestPaths::Discovered);
    it.files = None;
    it.patch_id = None;
    it.whitespace_only = None;
    it.skips_added = None;
    it.tests_taken = None;
    it
}

fn status_of(file: &CommitFile) -> Option<FileStatus> {
    match file.status {
        FileChangeStatus::Added | FileChangeStatus::Copied => Some(FileStatus::Added),
        FileChangeStatus::Removed => Some(FileStatus::Deleted),
        FileChangeStatus::Renamed => Some(FileStatus::Renamed),
        FileChangeStatus::Unchanged => None,
        // Modified, a mode or type change, and anything new GitHub may add.
        FileChangeStatus::Modified | FileChangeStatus::Changed | FileChangeStatus::Other => {
            Some(FileStatus::Modified)
        }
    }
}

/// The added and removed lines of a `patch` (unified hunks without file headers).
fn changed_lines(patch: &str) -> (Vec<&str>, Vec<&str>) {
    let mut added = Vec::new();
    let mut removed = Vec::new();
    let mut in_hunk = false;
    for line in patch.lines() {
        if line.starts_with("@@") {
            in_hunk = true;
        } else if !in_hunk {
            continue;
        } else if let Some(rest) = line.strip_prefix('+') {
            added.push(rest);
        } else if let Some(rest) = line.strip_prefix('-') {
            removed.push(rest);
        }
    }
    (added, removed)
}

/// What a `patch` shows of each side of the file: its hunks' context and removed lines
/// (before), context and added lines (after), a blank line between hunks.
fn sides(patch: &str) -> (String, String) {
    let (mut old, mut new) = (String::new(), String::new());
    let mut in_hunk = false;
    for line in patch.lines() {
        if line.starts_with("@@") {
            if in_hunk {
                old.push('\n');
                new.push('\n');
            }
            in_hunk = true;
            continue;
        }
        if !in_hunk || line.starts_with('\\') {
            continue;
        }
        let (mark, rest) = line.split_at(line.len().min(1));
        for (side, wanted) in [(&mut old, "-"), (&mut new, "+")] {
            if mark == wanted || mark == " " || mark.is_empty() {
                side.push_str(rest);
                side.push('\n');
            }
        }
    }
    (old, new)
}

/// The tests the files of a commit take away, from what their patches show.
fn taken_from_patches(files: &[CommitFile], tests: &TestPaths) -> Vec<TakenTest> {
    let shown: Vec<Option<(String, String)>> = files
        .iter()
        .map(|f| f.patch.as_deref().map(sides))
        .collect();
    let changed: Vec<ChangedFile<'_>> = files
        .iter()
        .zip(&shown)
        .filter_map(|(f, shown)| {
            let status = status_of(f)?;
            let old_path = match status {
                FileStatus::Added => None,
                FileStatus::Renamed => f.previous_filename.as_deref().or(Some(&f.filename)),
                FileStatus::Modified | FileStatus::Deleted => Some(f.filename.as_str()),
            };
            let new_path = (status != FileStatus::Deleted).then_some(f.filename.as_str());
            Some(ChangedFile {
                old_path,
                new_path,
                old: shown
                    .as_ref()
                    .filter(|_| old_path.is_some())
                    .map(|s| s.0.as_str()),
                new: shown
                    .as_ref()
                    .filter(|_| new_path.is_some())
                    .map(|s| s.1.as_str()),
                // What a patch shows of a side is not the whole of it: never kept.
                ..ChangedFile::default()
            })
        })
        .collect();
    taken(&changed, |p| tests.role(p))
}

fn squeeze(lines: &[&str]) -> String {
    lines
        .iter()
        .flat_map(|l| l.chars())
        .filter(|c| !c.is_whitespace())
        .collect()
}

fn add_file_evidence(it: &mut Iteration, files: &[CommitFile], tests: &TestPaths) {
    let mut changes = Vec::new();
    let mut patch_id = PatchIdBuilder::default();
    let mut whitespace_only = true;
    for file in files {
        let Some(status) = status_of(file) else {
            continue;
        };
        let old = file
            .previous_filename
            .as_deref()
            .filter(|_| status == FileStatus::Renamed)
            .unwrap_or(&file.filename);
        let mut hasher = FilePatchHasher::new(status, old.as_bytes(), file.filename.as_bytes());
        match &file.patch {
            Some(patch) => {
                let (added, removed) = changed_lines(patch);
                for line in &removed {
                    hasher.removed(line.as_bytes());
                }
                for line in &added {
                    hasher.added(line.as_bytes());
                }
                whitespace_only &= status == FileStatus::Modified
                    && !(added.is_empty() && removed.is_empty())
                    && squeeze(&added) == squeeze(&removed);
            }
            None => {
                hasher.opaque(None, Some(file.filename.as_bytes()));
                whitespace_only = false;
            }
        }
        patch_id.push(hasher);
        changes.push(FileChange {
            path: file.filename.clone(),
            added: Some(file.additions),
            deleted: Some(file.deletions),
            status: Some(status),
            old_path: (status == FileStatus::Renamed)
                .then(|| file.previous_filename.clone())
                .flatten(),
            binary: file.patch.is_none() && file.additions == 0 && file.deletions == 0,
        });
    }
    it.whitespace_only = Some(!changes.is_empty() && whitespace_only);
    it.patch_id = patch_id.finish();
    let taken = taken_from_patches(files, tests);
    let skips = skips_of(&taken);
    it.skips_added = (!skips.is_empty()).then_some(skips);
    it.tests_taken = Some(taken);
    it.files = Some(changes);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(files: serde_json::Value) -> Commit {
        serde_json::from_value(serde_json::json!({
            "sha": "c1",
            "commit": {
                "message": "Fix counting\n\nCo-authored-by: Claude <noreply@anthropic.com>",
                "author": {"name": "Copilot", "email": "198982749+Copilot@users.noreply.github.com", "date": "2026-11-25T10:00:00Z"},
                "committer": {"name": "GitHub", "email": "noreply@github.com", "date": "2026-11-25T10:01:00Z"},
                "tree": {"sha": "tree1"}
            },
            "author": null,
            "parents": [{"sha": "p1"}],
            "files": files
        }))
        .unwrap()
    }

    #[test]
    fn fields_from_the_payload() {
        let it = iteration_from_commit(
            &commit(serde_json::json!([])),
            Some("tree0"),
            &TestPaths::Discovered,
        );
        assert_eq!(it.id, "c1");
        assert_eq!(
            it.author.as_deref(),
            Some("Copilot <198982749+Copilot@users.noreply.github.com>")
        );
        assert_eq!(it.tree.as_deref(), Some("tree1"));
        assert_eq!(it.parent_tree.as_deref(), Some("tree0"));
        assert_eq!(it.parents, Some(vec![crate::testing::id("p1")]));
        assert_eq!(it.at.unwrap().to_string(), "2026-11-25T10:01:00Z");
        assert_eq!(it.files, Some(vec![]));
        let unknown_parent =
            iteration_from_commit(&commit(serde_json::json!([])), None, &TestPaths::Discovered);
        assert!(unknown_parent.is_empty_change(), "no files: empty");
        assert_eq!(it.patch_id, None, "an empty change has no patch id");
    }

    #[test]
    fn patch_ids_ignore_whitespace_and_file_order() {
        let a = serde_json::json!([
            {"filename": "src/a.rs", "status": "modified", "additions": 1, "deletions": 1,
             "patch": "@@ -1,2 +1,2 @@\n fn a() {\n-    1\n+    2\n"},
            {"filename": "src/b.rs", "status": "added", "additions": 1, "deletions": 0,
             "patch": "@@ -0,0 +1 @@\n+pub fn b() {}\n"}
        ]);
        let b = serde_json::json!([
            {"filename": "src/b.rs", "status": "added", "additions": 1, "deletions": 0,
             "patch": "@@ -0,0 +1 @@\n+pub   fn b() {}\n"},
            {"filename": "src/a.rs", "status": "modified", "additions": 1, "deletions": 1,
             "patch": "@@ -7,2 +7,2 @@\n fn a() {\n-  1\n+  2\n"}
        ]);
        let x = iteration_from_commit(&commit(a), None, &TestPaths::Discovered);
        let y = iteration_from_commit(&commit(b), None, &TestPaths::Discovered);
        assert!(x.patch_id.is_some());
        assert_eq!(x.patch_id, y.patch_id);
        assert_eq!(x.whitespace_only, Some(false));
        let files = x.files.unwrap();
        assert_eq!(files[1].status, Some(FileStatus::Added));
        assert_eq!((files[0].added, files[0].deleted), (Some(1), Some(1)));
    }

    #[test]
    fn whitespace_only_skips_and_renames() {
        let ws = serde_json::json!([
            {"filename": "src/a.rs", "status": "modified", "additions": 1, "deletions": 1,
             "patch": "@@ -1 +1 @@\n-fn a(){}\n+fn a() {}\n"}
        ]);
        assert_eq!(
            iteration_from_commit(&commit(ws), None, &TestPaths::Discovered).whitespace_only,
            Some(true)
        );
        let skip = serde_json::json!([
            {"filename": "tests/count.rs", "status": "modified", "additions": 1, "deletions": 0,
             "patch": "@@ -3,2 +3,3 @@\n #[test]\n+#[ignore]\n fn counts() {}\n"},
            {"filename": "new/name.rs", "previous_filename": "old/name.rs", "status": "renamed",
             "additions": 0, "deletions": 0},
            {"filename": "logo.png", "status": "modified", "additions": 0, "deletions": 0}
        ]);
        let it = iteration_from_commit(&commit(skip), None, &TestPaths::Discovered);
        let skips = it.skips_added.unwrap();
        assert_eq!(skips[0].path, "tests/count.rs");
        assert_eq!(skips[0].line, "#[ignore]");
        let files = it.files.unwrap();
        assert_eq!(files[1].old_path.as_deref(), Some("old/name.rs"));
        assert!(files[2].binary);
        let listed = iteration_from_listed_commit(&commit(serde_json::json!([])), None);
        assert_eq!((listed.files, listed.patch_id), (None, None));
    }
}
