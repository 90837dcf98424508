//! Histories of real repository shapes, written as a `git fast-import` stream: branches,
//! merges, renames, deletions and submodules by several people, at pinned times, without
//! running a hook or a checkout per commit.
//!
//! ```ignore
//! let mut h = Stream::new();
//! let base = h.commit("main", MAINTAINER, "Initial", &[Op::Write("src/a.py", "x = 1\n")]);
//! h.branch("feature", base);
//! h.commit("feature", CONTRIBUTOR, "Add b", &[Op::Write("src/b.py", "y = 2\n")]);
//! let marks = h.import(&repo);
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;

use super::TestRepo;
use super::gitrepo::EPOCH;

/// One change of a commit.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Op<'a> {
    /// The file with this content (added or modified).
    Write(&'a str, &'a str),
    /// The file deleted.
    Delete(&'a str),
    /// The file moved, its content kept (a rename git detects).
    Rename(&'a str, &'a str),
    /// A submodule at this path, at this commit of its own repository (a gitlink).
    Gitlink(&'a str, &'a str),
}

/// A commit, by its mark in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Mark(u32);

/// A fast-import stream being written.
#[derive(Debug, Default)]
pub(crate) struct Stream {
    text: String,
    marks: u32,
}

impl Stream {
    pub(crate) fn new() -> Stream {
        Stream::default()
    }

    /// Branch `name` starts (or moves) at `at`.
    pub(crate) fn branch(&mut self, name: &str, at: Mark) -> &mut Self {
        let _ = write!(self.text, "reset refs/heads/{name}\nfrom :{}\n\n", at.0);
        self
    }

    /// A commit on `branch` (continuing it) by `who` (`Name <email>`).
    pub(crate) fn commit(
        &mut self,
        branch: &str,
        who: &str,
        message: &str,
        ops: &[Op<'_>],
    ) -> Mark {
        self.write_commit(branch, who, message, None, ops)
    }

    /// A merge commit on `branch` of `other` (its second parent).
    pub(crate) fn merge(
        &mut self,
        branch: &str,
        who: &str,
        message: &str,
        other: Mark,
        ops: &[Op<'_>],
    ) -> Mark {
        self.write_commit(branch, who, message, Some(other), ops)
    }

    fn write_commit(
        &mut self,
        branch: &str,
        who: &str,
        message: &str,
        merge: Option<Mark>,
        ops: &[Op<'_>],
    ) -> Mark {
        self.marks += 1;
        let mark = Mark(self.marks);
        let time = EPOCH + 60 * i64::from(mark.0);
        let t = &mut self.text;
        let _ = write!(t, "commit refs/heads/{branch}\nmark :{}\n", mark.0);
        let _ = write!(
            t,
            "author {who} {time} +0000\ncommitter {who} {time} +0000\n"
        );
        let _ = write!(t, "data {}\n{message}\n", message.len());
        if let Some(other) = merge {
            let _ = writeln!(t, "merge :{}", other.0);
        }
        for op in ops {
            match op {
                Op::Write(path, content) => {
                    let _ = write!(
                        t,
                        "M 100644 inline {path}\ndata {}\n{content}\n",
                        content.len()
                    );
                }
                Op::Delete(path) => {
                    let _ = writeln!(t, "D {path}");
                }
                Op::Rename(from, to) => {
                    let _ = writeln!(t, "R {from} {to}");
                }
                Op::Gitlink(path, commit) => {
                    let _ = writeln!(t, "M 160000 {commit} {path}");
                }
            }
        }
        t.push('\n');
        mark
    }

    /// Imports the stream into `repo` and checks out `main`; the commit id of each mark.
    pub(crate) fn import(&self, repo: &TestRepo) -> HashMap<Mark, String> {
        let marks_file = repo.home().join("fast-import.marks");
        let mut child = repo
            .command("git")
            .args(["fast-import", "--quiet"])
            .arg(format!("--export-marks={}", marks_file.display()))
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("git fast-import runs");
        {
            use std::io::Write as _;
            let mut stdin = child.stdin.take().expect("piped");
            stdin
                .write_all(self.text.as_bytes())
                .expect("the stream is written");
        }
        let status = child.wait().expect("git fast-import ends");
        assert!(
            status.success(),
            "git fast-import failed on:\n{}",
            self.text
        );
        repo.git(&["checkout", "-q", "-f", "main"]);
        std::fs::read_to_string(&marks_file)
            .expect("the marks are exported")
            .lines()
            .filter_map(|l| {
                let (mark, id) = l.strip_prefix(':')?.split_once(' ')?;
                Some((Mark(mark.parse().ok()?), id.to_owned()))
            })
            .collect()
    }
}
