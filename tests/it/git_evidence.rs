//! `loopguard::git` against real repositories made by real `git`, checked against what
//! git itself reports (`diff-tree --numstat`, `rev-list --topo-order`, `patch-id`).

use std::collections::HashMap;
use std::path::Path;

use crate::support::TestRepo;
use loopguard::error::exit_code_of_one;
use loopguard::git::{GitError, Repo};
use loopguard::iteration::{FileChange, FileStatus, Iteration};

fn open(repo: &TestRepo) -> Repo {
    Repo::discover(repo.path()).unwrap()
}

fn lines(n: usize, tag: &str) -> String {
    (0..n).map(|i| format!("{tag} line {i}\n")).collect()
}

/// The changed files of `rev` against its first parent, as git reports them:
/// `(path, status, old_path, added, deleted)`, sorted by path.
type GitFile = (String, FileStatus, Option<String>, Option<u64>, Option<u64>);

fn git_files(repo: &TestRepo, rev: &str) -> Vec<GitFile> {
    let parents = repo.git(&["rev-list", "--parents", "-n1", rev]);
    let parent = parents.split(' ').nth(1);
    let mut base = vec!["diff-tree", "-z", "-r", "-M", "--no-commit-id"];
    let root_args;
    match parent {
        Some(p) => {
            root_args = [p.to_owned(), rev.to_owned()];
            base.extend(root_args.iter().map(String::as_str));
        }
        None => {
            base.push("--root");
            base.push(rev);
        }
    }
    let mut numstat = base.clone();
    numstat.push("--numstat");
    let mut name_status = base.clone();
    name_status.push("--name-status");

    let out = repo.git(&name_status);
    let mut fields = out.split('\0').filter(|f| !f.is_empty());
    let mut statuses: Vec<(FileStatus, Option<String>, String)> = Vec::new();
    while let Some(code) = fields.next() {
        let (status, old) = match code.as_bytes()[0] {
            b'A' => (FileStatus::Added, None),
            b'M' | b'T' => (FileStatus::Modified, None),
            b'D' => (FileStatus::Deleted, None),
            b'R' => (FileStatus::Renamed, Some(fields.next().unwrap().to_owned())),
            other => panic!("unexpected status {}", other as char),
        };
        statuses.push((status, old, fields.next().unwrap().to_owned()));
    }

    let out = repo.git(&numstat);
    let mut counts: HashMap<String, (Option<u64>, Option<u64>)> = HashMap::new();
    let mut fields = out.split('\0');
    while let Some(head) = fields.next() {
        if head.is_empty() {
            continue;
        }
        let mut parts = head.splitn(3, '\t');
        let added = parts.next().unwrap().parse().ok();
        let deleted = parts.next().unwrap().parse().ok();
        let mut path = parts.next().unwrap().to_owned();
        if path.is_empty() {
            let _old = fields.next().unwrap();
            path = fields.next().unwrap().to_owned();
        }
        counts.insert(path, (added, deleted));
    }

    let mut files: Vec<GitFile> = statuses
        .into_iter()
        .map(|(status, old, path)| {
            let (a, d) = counts[&path];
            (path, status, old, a, d)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn our_files(it: &Iteration) -> Vec<GitFile> {
    let mut files: Vec<GitFile> = it
        .files
        .as_ref()
        .unwrap()
        .iter()
        .map(|f: &FileChange| {
            (
                f.path.clone(),
                f.status.unwrap(),
                f.old_path.clone(),
                f.added,
                f.deleted,
            )
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// A history with every kind of change: adds, edits, deletes, exact and similar renames,
/// binaries, a mode change, a symlink, a file replaced by a directory, line-ending and
/// final-newline changes, whitespace-only and empty commits, a merge.
fn varied_history() -> TestRepo {
    let r = TestRepo::new();
    r.write("src/lib.rs", lines(20, "lib"))
        .write("README.md", "# demo\n")
        .write("tests/a_test.rs", "#[test]\nfn a() {}\n")
        .write("bin/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
        .write("script.sh", "echo hi\n");
    r.commit("Initial import");

    let edited = lines(20, "lib").replace("lib line 3\n", "lib line three\n")
        + "fn more() {}\nfn again() {}\n";
    r.write("src/lib.rs", &edited).remove("README.md");
    r.commit("Edit lib, drop readme");

    r.rename("tests/a_test.rs", "tests/b_test.rs");
    r.commit("Rename test file");

    r.rename("src/lib.rs", "src/core.rs");
    r.append("src/core.rs", "fn renamed_and_edited() {}\n");
    r.write("docs/x.md", "doc\n");
    r.commit("Move lib to core, add docs");

    r.write("bin/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\x01\x02");
    r.commit("New logo");

    r.chmod_x("script.sh");
    r.commit("Make script executable");

    let reindented: String = r
        .read("src/core.rs")
        .unwrap()
        .lines()
        .map(|l| format!("    {l}\n"))
        .collect();
    r.write("src/core.rs", reindented);
    r.commit("Reindent");

    r.commit_empty("Nothing");

    std::os::unix::fs::symlink("src/core.rs", r.path().join("link")).unwrap();
    r.commit("Add a symlink");

    r.remove("docs/x.md")
        .write("docs/x.md/inner.txt", "inside\n");
    r.commit("Turn a file into a directory");

    r.write("crlf.txt", "one\r\ntwo\r\n")
        .write("nonl.txt", "no newline");
    r.commit("Line endings");
    r.write("crlf.txt", "one\ntwo\r\n")
        .write("nonl.txt", "no newline\n");
    r.commit("Fix line endings");

    r.checkout_new("side");
    r.write("side.txt", lines(5, "side"));
    r.commit("Side work");
    r.append("side.txt", "more\n");
    r.commit("More side work");
    r.checkout("main");
    r.write("main.txt", "main\n");
    r.commit("Main work");
    r.merge("side", "Merge side");
    r.append("main.txt", "after merge\n");
    r.commit("After merge");
    r
}

#[test]
fn files_and_counts_match_git_for_every_commit() {
    let r = varied_history();
    let repo = open(&r);
    let ids = r.rev_list(&["--all"]);
    assert!(ids.len() >= 17);
    for id in &ids {
        let it = repo.iteration(id).unwrap();
        assert_eq!(
            our_files(&it),
            git_files(&r, id),
            "commit {id} ({})",
            it.subject()
        );
    }
}

#[test]
fn commit_fields_match_git() {
    let r = varied_history();
    let repo = open(&r);
    for id in r.rev_list(&["--all"]) {
        let it = repo.iteration(&id).unwrap();
        let show = r.git(&["show", "-s", "--format=%T%n%P%n%an <%ae>%n%ct%n%B", &id]);
        let mut parts = show.splitn(5, '\n');
        let tree = parts.next().unwrap();
        let parents: Vec<String> = parts
            .next()
            .unwrap()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        assert_eq!(it.tree.as_deref(), Some(tree));
        assert_eq!(it.parents.clone().unwrap_or_default(), parents);
        assert_eq!(it.author.as_deref(), Some(parts.next().unwrap()));
        assert_eq!(
            it.at.unwrap().as_second(),
            parts.next().unwrap().parse::<i64>().unwrap()
        );
        assert_eq!(
            it.message.as_deref(),
            Some(parts.next().unwrap().trim_end())
        );
        let parent_tree = parents.first().map(|p| r.tree(p));
        assert_eq!(it.parent_tree, parent_tree);
        assert_eq!(it.test, None);
        assert_eq!(it.claims_done, None);
        assert_eq!(it.kind, None);
    }
}

fn root_id(r: &TestRepo) -> String {
    r.git(&["rev-list", "--max-parents=0", "HEAD"])
}

#[test]
fn binaries_modes_empty_and_whitespace_commits() {
    let r = varied_history();
    let repo = open(&r);
    let by_subject = |subject: &str| {
        let id = r.git(&[
            "log",
            "--all",
            "--format=%H",
            "-F",
            "--grep",
            subject,
            "-n1",
        ]);
        repo.iteration(&id).unwrap()
    };

    let logo = by_subject("New logo");
    let file = &logo.files.as_ref().unwrap()[0];
    assert!(file.binary);
    assert_eq!((file.added, file.deleted), (None, None));
    assert!(logo.patch_id.is_some());
    assert_eq!(logo.whitespace_only, Some(false));

    let chmod = by_subject("Make script executable");
    assert_eq!(chmod.files.as_ref().unwrap()[0].added, Some(0));
    assert!(chmod.patch_id.is_some(), "a mode change is a change");
    assert_eq!(chmod.whitespace_only, Some(false));

    let reindent = by_subject("Reindent");
    assert_eq!(reindent.whitespace_only, Some(true));

    let empty = by_subject("Nothing");
    assert!(empty.is_empty_change());
    assert_eq!(empty.files.as_deref(), Some(&[][..]));
    assert_eq!(empty.patch_id, None);
    assert_eq!(empty.whitespace_only, Some(false));

    let merge = by_subject("Merge side");
    assert_eq!(
        repo.parents(&merge.id).unwrap(),
        *merge.parents.as_ref().unwrap()
    );
    assert_eq!(repo.parents(root_id(&r)).unwrap(), Vec::<String>::new());
    assert_eq!(merge.parents.as_ref().unwrap().len(), 2);
    assert_eq!(merge.patch_id, None, "merges have no patch id, as in git");
    assert_eq!(merge.parent_tree, Some(r.tree("HEAD~1^1")));

    let root = by_subject("Initial import");
    assert_eq!(root.parent_tree, None);
    assert!(root.patch_id.is_some());
    assert!(
        root.files
            .as_ref()
            .unwrap()
            .iter()
            .all(|f| f.status == Some(FileStatus::Added))
    );
}

#[test]
fn huge_files_are_not_diffed_by_line() {
    let r = TestRepo::new();
    r.write("small.txt", "x\n");
    r.commit("Start");
    let huge = "0123456789abcdef\n".repeat((loopguard::git::MAX_LINE_DIFF_BYTES / 17) + 10);
    r.write("huge.txt", &huge);
    let first = r.commit("Add a huge text file");
    let it = open(&r).iteration(&first).unwrap();
    let f = &it.files.as_ref().unwrap()[0];
    assert_eq!((f.added, f.deleted, f.binary), (None, None, false));
    assert!(it.patch_id.is_some());

    r.write("huge.txt", huge.replacen('0', "Z", 1));
    let second = r.commit("Edit it");
    let again = open(&r).iteration(&second).unwrap();
    assert!(again.patch_id.is_some());
    assert_ne!(again.patch_id, it.patch_id);
}

#[test]
fn a_blob_the_clone_does_not_have_is_opaque() {
    // A partial clone (`--filter=blob:limit=…`), or a mirror without its largest files:
    // the commit is still read, the missing blob by its id only.
    let r = TestRepo::new();
    r.write("small.txt", "x\n");
    r.commit("Start");
    r.write("data.bin", "large enough to be filtered\n");
    let commit = r.commit("Add data");
    let blob = r.git(&["rev-parse", "HEAD:data.bin"]);
    let loose = r
        .path()
        .join(".git/objects")
        .join(&blob[..2])
        .join(&blob[2..]);
    std::fs::remove_file(loose).expect("the blob is a loose object");
    let it = open(&r).iteration(&commit).unwrap();
    let f = &it.files.as_ref().unwrap()[0];
    assert_eq!(
        (f.path.as_str(), f.added, f.deleted),
        ("data.bin", None, None)
    );
    assert!(it.patch_id.is_some());
}

/// Each patch id, compared in pairs: ours are equal exactly when git's `--stable` ones are.
#[test]
fn patch_ids_agree_with_git_patch_id_on_equal_changes() {
    let r = TestRepo::new();
    r.write("a.txt", lines(30, "a"))
        .write("b.txt", lines(30, "b"));
    r.commit("Base");
    r.branch("other");

    // The change, on main.
    let change = |r: &TestRepo| {
        r.write(
            "a.txt",
            r.read("a.txt")
                .unwrap()
                .replace("a line 5\n", "a line FIVE\n"),
        );
        r.write(
            "b.txt",
            r.read("b.txt")
                .unwrap()
                .replace("b line 20\n", "b line 20!\n"),
        );
    };
    change(&r);
    let original = r.commit("Change a and b");

    // The same change on a base where line numbers differ (cherry-pick).
    r.checkout("other");
    r.write(
        "a.txt",
        format!("{}{}", lines(3, "header"), r.read("a.txt").unwrap()),
    );
    r.commit("Shift lines");
    let picked = r.cherry_pick(&original);

    // Its revert.
    let reverted = r.revert(&picked);

    let repo = open(&r);
    let ours = |id: &str| repo.iteration(id).unwrap().patch_id.unwrap();
    let git = |id: &str| {
        let show = r.command("git").args(["show", id]).output().unwrap().stdout;
        let mut child = r
            .command("git")
            .args(["patch-id", "--stable"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&show).unwrap();
        let out = child.wait_with_output().unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(ours(&original), ours(&picked), "line numbers do not matter");
    assert_eq!(git(&original), git(&picked));
    assert_ne!(
        ours(&original),
        ours(&reverted),
        "a revert is another change"
    );
    assert_ne!(git(&original), git(&reverted));
    assert_eq!(ours(&original).len(), 64);
}

#[test]
fn whitespace_reformat_of_the_change_keeps_the_patch_id() {
    let r = TestRepo::new();
    r.write("f.py", "def f():\n    return 1\n");
    r.commit("Base");
    r.branch("b");
    r.write("f.py", "def f():\n    return 2\n");
    let plain = r.commit("Return two");
    r.checkout("b");
    r.write("f.py", "def f():\n    return  2 \n");
    let spaced = r.commit("Return two, spaced");
    let repo = open(&r);
    let plain_id = repo.iteration(&plain).unwrap().patch_id;
    assert!(plain_id.is_some(), "a real change has a patch id");
    assert_eq!(plain_id, repo.iteration(&spaced).unwrap().patch_id);
    // A different change has a different one.
    r.write("f.py", "def f():\n    return 3\n");
    let three = r.commit("Return three");
    assert_ne!(repo.iteration(&three).unwrap().patch_id, plain_id);
}

#[test]
fn tests_taken_away_are_reported_as_each_ecosystem_means_them() {
    use loopguard_core::suite::{Doubt, TakenHow};
    let r = TestRepo::new();
    r.write("tests/it.rs", "#[test]\nfn a() {}\n").write(
        "t/test_x.py",
        "def test_x():\n    pass\n\ndef test_y():\n    pass\n",
    );
    r.commit("Tests");
    r.write("tests/it.rs", "#[test]\n#[ignore]\nfn a() {}\n")
        .write(
            "t/test_x.py",
            "import pytest, sys\n\n@pytest.mark.skipif(True, reason='c')\ndef test_x():\n    pass\n\n@pytest.mark.skipif(sys.platform == 'win32', reason='posix')\ndef test_y():\n    pass\n",
        );
    let skip = r.commit("Skip tests");
    r.write(
        "tests/it.rs",
        "#[test]\nfn b() {}\n\n#[test]\n#[ignore]\nfn a() {}\n",
    );
    let moved = r.commit("Move the skipped test");
    let repo = open(&r);
    let it = repo.iteration(&skip).unwrap();
    let taken: Vec<_> = it
        .tests_taken
        .unwrap()
        .into_iter()
        .map(|t| (t.path, t.name, t.how, t.doubt))
        .collect();
    assert_eq!(
        taken,
        [
            (
                "t/test_x.py".into(),
                "test_x".into(),
                TakenHow::Skipped,
                None
            ),
            (
                "t/test_x.py".into(),
                "test_y".into(),
                TakenHow::Skipped,
                Some(Doubt::Conditional)
            ),
            ("tests/it.rs".into(), "a".into(), TakenHow::Skipped, None),
        ],
        "skipif(True) is a skip, skipif(a platform) a conditional one"
    );
    let skips = it.skips_added.unwrap();
    assert_eq!(skips.len(), 3, "{skips:?}");
    assert_eq!(skips[2].line, "#[ignore]");
    let moved = repo.iteration(&moved).unwrap();
    assert_eq!(moved.tests_taken, Some(vec![]), "a test already skipped");
    assert_eq!(moved.skips_added, Some(vec![]));
}

fn topo(r: &TestRepo, spec: &str) -> Vec<String> {
    r.rev_list(&["--reverse", "--topo-order", spec])
}

#[test]
fn ranges_match_rev_list_topo_order() {
    let r = TestRepo::new();
    for i in 0..3 {
        r.write("f.txt", format!("{i}\n"));
        r.commit(&format!("main {i}"));
    }
    let base = r.head();
    r.checkout_new("topic");
    for i in 0..3 {
        r.write("t.txt", format!("{i}\n"));
        r.commit(&format!("topic {i}"));
    }
    r.checkout("main");
    for i in 0..2 {
        r.write("g.txt", format!("{i}\n"));
        r.commit(&format!("main more {i}"));
    }
    r.merge("topic", "Merge topic");
    r.checkout("topic");
    r.write("t.txt", "after\n");
    r.commit("topic after merge");
    r.checkout("main");

    let repo = open(&r);
    for spec in [
        "HEAD",
        "main",
        "topic",
        &format!("{base}..main"),
        "topic..main",
        "main..topic",
        "main...topic",
        "HEAD~1..HEAD",
        "HEAD..HEAD",
        "HEAD^!",
    ] {
        assert_eq!(
            repo.rev_range(spec).unwrap(),
            topo(&r, spec),
            "range {spec}"
        );
    }
}

#[test]
fn ranges_survive_skewed_commit_dates() {
    let r = TestRepo::new();
    for i in 0..4 {
        r.write("f.txt", format!("{i}\n"));
        r.commit(&format!("main {i}"));
    }
    r.checkout_new("topic");
    // The topic's clock runs two days behind its base.
    r.set_now(crate::support::gitrepo::EPOCH - 2 * 86_400);
    for i in 0..3 {
        r.write("t.txt", format!("{i}\n"));
        r.commit(&format!("topic {i}"));
    }
    r.checkout("main");
    r.set_now(crate::support::gitrepo::EPOCH + 86_400);
    r.write("f.txt", "later\n");
    r.commit("main later");
    r.merge("topic", "Merge topic");

    let repo = open(&r);
    for spec in [
        "main..topic",
        "topic..main",
        "HEAD~1..HEAD",
        "HEAD",
        "topic",
    ] {
        assert_eq!(
            repo.rev_range(spec).unwrap(),
            topo(&r, spec),
            "range {spec}"
        );
    }
}

#[test]
fn bad_revisions_and_non_repositories_say_what_to_do() {
    let r = TestRepo::new();
    let repo = open(&r);
    let unborn = repo.resolve("HEAD").unwrap_err();
    assert!(matches!(unborn, GitError::BadRevision { .. }), "{unborn}");
    assert!(unborn.to_string().contains("no commits yet"), "{unborn}");
    assert_eq!(
        unborn.hint(),
        Some("make a first commit, then run this again")
    );
    let head = repo.head().unwrap();
    assert_eq!(
        (head.id, head.branch.as_deref(), head.detached),
        (None, Some("main"), false)
    );
    assert!(repo.rev_range("HEAD").is_err());

    r.write("a", "a\n");
    r.commit("First");
    let repo = open(&r);
    let err = repo.resolve("no-such-branch").unwrap_err();
    assert!(matches!(err, GitError::BadRevision { .. }));
    assert!(err.to_string().contains("no-such-branch"), "{err}");
    assert!(
        !err.to_string().contains("hint"),
        "the hint is not in the message: {err}"
    );
    assert!(err.hint().is_some_and(|h| h.contains("git log --oneline")));
    assert_eq!(exit_code_of_one(&err), 2);
    assert!(repo.rev_range("nope..HEAD").is_err());

    let outside = tempfile::tempdir().unwrap();
    let err = Repo::discover(outside.path()).err().unwrap();
    assert!(matches!(err, GitError::NotARepository { .. }));
    assert!(err.to_string().starts_with("not a git repository"), "{err}");
    assert_eq!(exit_code_of_one(&err), 3);
}

#[test]
fn resolves_revisions_and_reads_blobs() {
    let r = TestRepo::new();
    r.write("cfg.yml", "v: 1\n").write("dir/x.txt", "x\n");
    let first = r.commit("One");
    r.git(&["tag", "-a", "v1", "-m", "tagged"]);
    r.write("cfg.yml", "v: 2\n");
    let second = r.commit("Two");

    std::fs::create_dir_all(r.path().join("deep/er")).unwrap();
    let repo = Repo::discover(&r.path().join("deep/er")).unwrap();
    assert_eq!(repo.resolve("HEAD").unwrap(), second);
    assert_eq!(repo.resolve("HEAD~1").unwrap(), first);
    assert_eq!(
        repo.resolve("v1").unwrap(),
        first,
        "annotated tags peel to commits"
    );
    assert_eq!(repo.resolve(&first[..8]).unwrap(), first);
    assert_eq!(
        repo.blob_at("v1", "cfg.yml").unwrap().as_deref(),
        Some(&b"v: 1\n"[..])
    );
    assert_eq!(
        repo.blob_at("HEAD", "cfg.yml").unwrap().as_deref(),
        Some(&b"v: 2\n"[..])
    );
    assert_eq!(repo.blob_at("HEAD", "missing.yml").unwrap(), None);
    assert_eq!(repo.blob_at("HEAD", "dir").unwrap(), None);
    assert!(repo.blob_at("nope", "cfg.yml").is_err());
}

#[test]
fn detached_head_and_reflog() {
    let r = TestRepo::new();
    r.write("a", "1\n");
    let one = r.commit("One");
    let repo = open(&r);
    let last = repo.reflog_head_last().unwrap().unwrap();
    assert_eq!(last.new, one);
    assert!(
        last.message.starts_with("commit (initial): One"),
        "{last:?}"
    );

    r.write("a", "2\n");
    let two = r.commit("Two");
    let amended = r.amend("Two, amended");
    let last = open(&r).reflog_head_last().unwrap().unwrap();
    assert_eq!(
        (last.old.as_str(), last.new.as_str()),
        (two.as_str(), amended.as_str())
    );
    assert!(last.message.starts_with("commit (amend): "), "{last:?}");

    r.checkout_new("b").reset_hard(&one);
    let picked = r.cherry_pick(&amended);
    let last = open(&r).reflog_head_last().unwrap().unwrap();
    assert_eq!(last.new, picked);
    assert!(last.message.starts_with("cherry-pick: "), "{last:?}");

    r.checkout(&one);
    let head = open(&r).head().unwrap();
    assert_eq!(
        (
            head.id.as_ref().map(loopguard::iteration::CommitId::as_str),
            head.branch,
            head.detached
        ),
        (Some(one.as_str()), None, true)
    );
}

#[test]
fn shallow_clones_stop_at_the_boundary() {
    let origin = TestRepo::new();
    for i in 0..6 {
        origin.write("f.txt", format!("{i}\n"));
        origin.commit(&format!("c{i}"));
    }
    let r = TestRepo::clone_from(&origin, &["--depth", "3"]);
    let repo = open(&r);
    assert!(repo.is_shallow());
    assert!(!open(&origin).is_shallow());
    let range = repo.rev_range("HEAD").unwrap();
    assert_eq!(range, topo(&r, "HEAD"));
    assert_eq!(range.len(), 3);
    let its = repo.iterations(&range).unwrap();
    let boundary = &its[0];
    assert_eq!(boundary.parent_tree, None);
    assert_eq!(
        boundary.files, None,
        "the change of a boundary commit is unknown"
    );
    assert_eq!(boundary.patch_id, None);
    assert_eq!(boundary.parents.as_ref().unwrap().len(), 1);
    assert_eq!(its[2].files.as_ref().unwrap().len(), 1);
    assert!(its[2].patch_id.is_some());
}

#[test]
fn hooks_dir_follows_core_hooks_path() {
    let r = TestRepo::new();
    let repo = open(&r);
    let git_common =
        Path::new(&r.git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]))
            .to_path_buf();
    assert_eq!(repo.hooks_dir(), git_common.join("hooks"));

    r.git(&["config", "core.hooksPath", ".githooks"]);
    assert_eq!(open(&r).hooks_dir(), r.path().join(".githooks"));
    std::fs::create_dir_all(r.path().join("sub")).unwrap();
    assert_eq!(
        Repo::discover(&r.path().join("sub")).unwrap().hooks_dir(),
        r.path().join(".githooks"),
        "relative to the worktree root, not the current directory"
    );
    r.git(&["config", "core.hooksPath", "/opt/hooks"]);
    assert_eq!(open(&r).hooks_dir(), Path::new("/opt/hooks"));
}

#[test]
fn linked_worktrees_share_the_common_dir() {
    let r = TestRepo::new();
    r.write("a", "a\n");
    r.commit("One");
    let wt = r.add_worktree("wt", "feature");
    let main_repo = open(&r);
    let linked = Repo::discover(&wt).unwrap();
    assert_eq!(linked.common_dir(), main_repo.common_dir());
    assert_ne!(linked.git_dir(), linked.common_dir());
    assert_eq!(
        linked.git_dir(),
        main_repo.common_dir().join("worktrees/wt")
    );
    assert_eq!(linked.workdir(), Some(wt.as_path()));
    assert_eq!(linked.head().unwrap().branch.as_deref(), Some("feature"));
    assert_eq!(linked.hooks_dir(), main_repo.common_dir().join("hooks"));
}

#[test]
fn branch_commits_exclude_other_branches_but_not_the_branch_upstream() {
    let origin = TestRepo::new();
    for i in 0..3 {
        origin.write("m.txt", format!("{i}\n"));
        origin.commit(&format!("main {i}"));
    }
    let r = TestRepo::clone_from(&origin, &[]);
    r.checkout_new("agent/fix");
    let mut mine = Vec::new();
    for i in 0..4 {
        r.write("fix.txt", format!("{i}\n"));
        mine.push(r.commit(&format!("attempt {i}")));
    }
    r.git(&["push", "-q", "-u", "origin", "agent/fix"]);
    // Main moves on after the branch started; a maintainer's merge of it into the branch
    // is context, but its main-side commits are not the branch's.
    origin.checkout("main");
    origin.write("m.txt", "moved\n");
    origin.commit("main moved");
    r.git(&["fetch", "-q", "origin"]);
    r.merge("origin/main", "Merge main");
    r.write("fix.txt", "last\n");
    let last = r.commit("attempt last");

    let repo = open(&r);
    let got = repo.branch_commits("HEAD", Some("agent/fix"), 100).unwrap();
    let merge = r.rev_parse("HEAD~1");
    let mut want = mine.clone();
    want.push(merge);
    want.push(last.clone());
    assert_eq!(got, want);

    let limited = repo.branch_commits("HEAD", Some("agent/fix"), 2).unwrap();
    assert_eq!(limited, want[want.len() - 2..]);

    // Detached at the tip: the same commits (the remote-tracking ref is behind the tip, so
    // without the branch name it bounds the run).
    r.checkout(&last);
    let detached = repo.branch_commits("HEAD", None, 100).unwrap();
    assert_eq!(detached, want[mine.len()..]);

    // A copy of the branch at its tip does not hide it.
    r.git(&["branch", "backup", &last]);
    assert_eq!(
        open(&r)
            .branch_commits(&last, Some("agent/fix"), 100)
            .unwrap(),
        want
    );
}

#[test]
fn iterations_in_parallel_equal_one_by_one() {
    let r = TestRepo::new();
    for i in 0..90 {
        r.write(
            &format!("f{}.txt", i % 7),
            lines(i % 13 + 1, &format!("v{i}")),
        );
        if i % 11 == 0 {
            r.write(
                "tests/t.rs",
                format!("#[test]\n#[ignore]\nfn t{i}() {{}}\n"),
            );
        }
        r.commit(&format!("c{i}"));
    }
    let repo = open(&r);
    let ids = repo.rev_range("HEAD").unwrap();
    assert_eq!(ids.len(), 90);
    let all = repo.iterations(&ids).unwrap();
    let one_by_one: Vec<Iteration> = ids.iter().map(|id| repo.iteration(id).unwrap()).collect();
    assert_eq!(all, one_by_one);
    assert_eq!(all.iter().map(|i| i.id.clone()).collect::<Vec<_>>(), ids);
}
