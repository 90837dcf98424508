use std::fs;
use std::path::{Path, PathBuf};

use super::*;

/// A repository's layout without git: `<tmp>/repo/.git` with a config and loopguard's
/// store, and a home.
struct Layout {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Layout {
    fn new() -> Layout {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        let home = tmp.path().join("home");
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        fs::create_dir_all(root.join(".git/loopguard/open")).unwrap();
        fs::create_dir_all(&home).unwrap();
        fs::write(root.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
        Layout {
            _tmp: tmp,
            root,
            home,
        }
    }

    fn common(&self) -> PathBuf {
        self.root.join(".git")
    }

    fn place(&self) -> Place {
        Place {
            common_dir: self.common(),
            root: self.root.clone(),
            env: GitEnv {
                home: Some(self.home.clone()),
                no_system: true,
                ..GitEnv::default()
            },
            sessions: self.sessions(),
        }
    }

    /// The sessions' directory, where `crate::store::place` puts it: out of the repository.
    fn sessions(&self) -> PathBuf {
        crate::store::place::sessions_dir(Some(&self.home.join(".local/state")), &self.common())
    }

    fn snapshot(&self, previous: Option<&Surface>) -> Surface {
        Surface::snapshot(&self.place(), previous)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A linked worktree `name` at `<tmp>/name`.
    fn link_worktree(&self, name: &str) -> PathBuf {
        let root = self.root.parent().unwrap().join(name);
        fs::create_dir_all(&root).unwrap();
        let admin = self.common().join("worktrees").join(name);
        fs::create_dir_all(&admin).unwrap();
        fs::write(
            admin.join("gitdir"),
            format!("{}\n", root.join(".git").display()),
        )
        .unwrap();
        root
    }
}

fn shown(changes: &[Change]) -> Vec<String> {
    changes.iter().map(ToString::to_string).collect()
}

#[test]
fn the_same_repository_is_the_same_surface_and_round_trips() {
    let l = Layout::new();
    let a = l.snapshot(None);
    let b = l.snapshot(Some(&a));
    assert_eq!(a, b);
    assert!(b.changes_since(&a).is_empty());
    let json = serde_json::to_string(&a).unwrap();
    let back: Surface = serde_json::from_str(&json).unwrap();
    assert_eq!(back, a);
    assert_eq!(a.worktrees().len(), 1);
    assert_eq!(a.worktrees()[0].dirs[0].dir, l.common().join("hooks"));
    assert_eq!(a.worktrees()[0].dirs[0].set, None);
    assert_eq!(a.ref_format(), "files");
}

#[test]
fn a_key_spelled_in_capitals_is_the_key_and_is_named_with_its_scope() {
    let l = Layout::new();
    let before = l.snapshot(None);
    // What `git config CORE.HOOKSPATH /dev/null` writes, and a key that does not matter.
    l.write(
        ".git/config",
        "[core]\n\tbare = false\n\tHOOKSPATH = /dev/null\n[user]\n\tname = x\n",
    );
    let after = l.snapshot(Some(&before));
    let config = l.common().join("config");
    assert_eq!(
        shown(&after.changes_since(&before)),
        [format!(
            "the local git config {}: core.hookspath unset → /dev/null",
            config.display()
        )]
    );
    let dirs = &after.worktrees()[0].dirs;
    assert_eq!(dirs.len(), 1);
    assert_eq!(dirs[0].dir, Path::new("/dev/null"));
    assert_eq!(dirs[0].set.as_ref().unwrap().scope, Scope::Local);
    // A key that does not move hooks is no change.
    l.write(
        ".git/config",
        "[core]\n\tbare = false\n\tHOOKSPATH = /dev/null\n[user]\n\tname = y\n",
    );
    assert!(l.snapshot(Some(&after)).changes_since(&after).is_empty());
}

#[test]
fn a_write_that_keeps_the_size_and_puts_the_time_back_is_seen() {
    let l = Layout::new();
    l.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\nexec loopguard hook pre-commit\n",
    );
    let hook = l.common().join("hooks/pre-commit");
    let mtime = fs::metadata(&hook).unwrap().modified().unwrap();
    // Settled: taken well after the write (as a snapshot a few seconds later would be).
    let mut before = l.snapshot(None);
    before.taken.0 += 10;
    l.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\nexit 0 # hook pre-commit------\n",
    );
    assert_eq!(fs::metadata(&hook).unwrap().len(), 41);
    fs::File::options()
        .write(true)
        .open(&hook)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let after = l.snapshot(Some(&before));
    let changes = shown(&after.changes_since(&before));
    assert_eq!(
        changes,
        [format!(
            "the pre-commit hook in {}: its content changed",
            l.common().join("hooks").display()
        )]
    );
}

#[test]
fn a_worktree_with_its_own_hooks_path_and_an_include_are_followed() {
    let l = Layout::new();
    let wt = l.link_worktree("second");
    let before = l.snapshot(None);
    assert_eq!(before.worktrees().len(), 2);
    // Its config.worktree is read once extensions.worktreeConfig says so.
    fs::write(
        l.common().join("worktrees/second/config.worktree"),
        "[core]\n\thooksPath = /dev/null\n",
    )
    .unwrap();
    assert!(
        l.snapshot(Some(&before)).worktrees()[1].dirs[0]
            .set
            .is_none()
    );
    l.write(
        ".git/config",
        "[core]\n\tbare = false\n[extensions]\n\tworktreeConfig = true\n",
    );
    let after = l.snapshot(Some(&before));
    let second = &after.worktrees()[1];
    assert_eq!(second.root, wt);
    assert_eq!(second.dirs[0].dir, Path::new("/dev/null"));
    assert_eq!(
        second.dirs[0].set.as_ref().unwrap().scope,
        Scope::Worktree {
            worktree: wt.clone()
        }
    );
    assert_eq!(after.worktrees()[0].dirs[0].dir, l.common().join("hooks"));
    let changes = shown(&after.changes_since(&before));
    assert!(
        changes
            .iter()
            .any(|c| c.contains("extensions.worktreeconfig unset → true")),
        "{changes:?}"
    );
    assert!(
        changes.iter().any(
            |c| c.starts_with(&format!("the worktree {} git config", wt.display()))
                && c.ends_with("core.hookspath unset → /dev/null")
        ),
        "{changes:?}"
    );

    // include.path in the user's config pointing core.hooksPath elsewhere, relative to
    // the file that includes it.
    fs::write(l.home.join(".gitconfig"), "[include]\n\tpath = more.inc\n").unwrap();
    let mid = l.snapshot(Some(&after));
    fs::write(
        l.home.join("more.inc"),
        "[core]\n\thooksPath = ~/elsewhere\n",
    )
    .unwrap();
    let last = l.snapshot(Some(&mid));
    assert_eq!(last.worktrees()[0].dirs[0].dir, l.home.join("elsewhere"));
    assert_eq!(
        shown(&last.changes_since(&mid)),
        [format!(
            "the global git config {}: core.hookspath unset → ~/elsewhere",
            l.home.join("more.inc").display()
        )]
    );
}

#[test]
fn markers_agent_configs_and_formats_are_watched() {
    let l = Layout::new();
    fs::write(l.common().join("loopguard/open/main"), "").unwrap();
    let before = l.snapshot(None);
    fs::remove_file(l.common().join("loopguard/open/main")).unwrap();
    l.write(".claude/settings.json", "{}\n");
    l.write(
        ".git/config",
        "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n",
    );
    let after = l.snapshot(Some(&before));
    let changes = after.changes_since(&before);
    let text = shown(&changes);
    assert!(
        text.contains(&"loopguard's markers in open/: main gone".to_owned()),
        "{text:?}"
    );
    assert!(
        text.contains(&".claude/settings.json: created (a file)".to_owned()),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|c| c.ends_with("extensions.refstorage unset → reftable")),
        "{text:?}"
    );
    assert_eq!(after.ref_format(), "reftable");
    let state: Vec<bool> = changes.iter().map(|c| c.watched.is_state()).collect();
    assert_eq!(state.iter().filter(|s| **s).count(), 1);
    assert!(matches!(
        after.not_guarded(&l.common(), true).first(),
        Some(NotGuarded::RefFormat { format, .. }) if format == "reftable"
    ));
}

#[test]
fn a_change_loopguard_recorded_is_explained_and_another_is_not() {
    let l = Layout::new();
    let before = l.snapshot(None);
    l.write(".git/hooks/pre-commit", "#!/bin/sh\n# loopguard-shim\n");
    let after = l.snapshot(Some(&before));
    let store = l.common().join("loopguard");
    own::record(&store, own::By::Init, jiff::Timestamp::UNIX_EPOCH, &after).unwrap();
    let own = own::last(&store).unwrap();
    assert_eq!(own.by, own::By::Init);
    let changes = after.changes_since(&before);
    assert_eq!(changes.len(), 1);
    assert!(own.explains(&changes[0]));
    l.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    let later = l.snapshot(Some(&after));
    let changes = later.changes_since(&before);
    assert!(!own.explains(&changes[0]), "{changes:?}");
}

#[test]
fn the_sessions_are_watched_where_they_live() {
    let l = Layout::new();
    let open = l.sessions().join("open");
    fs::create_dir_all(&open).unwrap();
    fs::write(open.join("s1"), "").unwrap();
    let before = l.snapshot(None);
    assert!(
        !l.sessions().starts_with(&l.root),
        "{}",
        l.sessions().display()
    );
    assert!(
        matches!(before.seen(&Watched::Markers { of: MarkersOf::Sessions }), Some(Seen::Names { names }) if names == &["s1".to_owned()]),
        "{before:?}"
    );
    // A store path no session lives in changes nothing.
    fs::create_dir_all(l.common().join("loopguard/sessions/open")).unwrap();
    fs::write(l.common().join("loopguard/sessions/open/s2"), "").unwrap();
    assert!(l.snapshot(Some(&before)).changes_since(&before).is_empty());
    fs::remove_file(open.join("s1")).unwrap();
    let after = l.snapshot(Some(&before));
    let text = shown(&after.changes_since(&before));
    assert_eq!(
        text,
        ["loopguard's markers of the sessions' breakers: s1 gone"],
        "{text:?}"
    );
    fs::remove_dir_all(l.sessions()).unwrap();
    let gone = l.snapshot(Some(&after));
    let text = shown(&gone.changes_since(&after));
    assert!(
        text.contains(&"loopguard's sessions directory: removed".to_owned()),
        "{text:?}"
    );
    assert!(
        gone.changes_since(&after)
            .iter()
            .all(|c| c.watched.is_state())
    );
}
