//! Setting up at the edges (issue 27): `init` in a bare repository refuses and writes
//! nothing; `init --agent` with an agent config it cannot read writes nothing at all (not
//! the git hooks first); `uninstall --agent` leaves no file that was not there. The real
//! binary on repositories made by real git; every file is compared before and after.

use std::collections::BTreeMap;
use std::path::Path;

use crate::errors::error_and_hint;
use crate::support::{TestRepo, lg};

/// Every file under `dir` (`.git` included) with its bytes, and every directory.
fn snapshot(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in std::fs::read_dir(dir).expect("a directory").flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("below")
                .display()
                .to_string();
            if entry.file_type().expect("a type").is_dir() {
                out.insert(format!("{rel}/"), None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// What changed between two snapshots: the paths added, removed or rewritten.
fn changed(
    before: &BTreeMap<String, Option<Vec<u8>>>,
    after: &BTreeMap<String, Option<Vec<u8>>>,
) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(v))
        .map(|(p, _)| p.clone())
        .collect();
    out.extend(
        before
            .keys()
            .filter(|p| !after.contains_key(*p))
            .map(|p| format!("-{p}")),
    );
    out
}

/// A repository with a commit by its maintainer.
fn with_a_commit() -> TestRepo {
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    repo.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    repo.commit("Initial commit");
    repo
}

#[test]
fn init_in_a_bare_repository_refuses_and_writes_nothing() {
    let source = with_a_commit();
    let bare = TestRepo::clone_from(&source, &["--bare"]);
    let before = snapshot(bare.path());
    for args in [&["init"][..], &["init", "--agent", "claude"]] {
        let out = lg(&bare).args(args).run().code(2);
        let (error, hint) = error_and_hint(&out.stderr);
        assert_eq!(
            error,
            format!(
                "loopguard: error: {} is a bare repository: it has no working tree for an agent to work in",
                bare.path().display()
            ),
            "{}",
            out.stderr
        );
        assert_eq!(
            hint,
            "run `loopguard init` in the clone or worktree the agent works in (`git clone` it, or `git worktree add`); nothing was written"
        );
        assert_eq!(out.stdout, "");
        assert_eq!(
            changed(&before, &snapshot(bare.path())),
            Vec::<String>::new()
        );
    }

    // A clone of it is where init works.
    let clone = TestRepo::clone_from(&bare, &[]);
    lg(&clone).arg("init").run().ok();
}

#[test]
fn init_with_a_broken_agent_config_writes_nothing_at_all() {
    let repo = with_a_commit();
    let broken = "{\n  \"model\": \"opus\",\n}\n";
    repo.write(".claude/settings.json", broken);
    // Another agent's file that would be written: it is not either.
    let before = snapshot(repo.path());
    for args in [
        &["init", "--agent", "claude"][..],
        &["init", "--agent", "gemini,claude"],
        &["init", "--profile", "strict", "--agent", "codex,claude"],
    ] {
        let out = lg(&repo).args(args).run().code(2);
        let (error, hint) = error_and_hint(&out.stderr);
        assert!(
            error.starts_with(
                "loopguard: error: .claude/settings.json:3:1: not valid JSON: trailing comma"
            ),
            "{}",
            out.stderr
        );
        assert_eq!(
            hint,
            "fix the file (a trailing comma or a comment is the usual cause) and run the command again; nothing was written"
        );
        assert_eq!(out.stdout, "", "{args:?}");
        assert_eq!(
            changed(&before, &snapshot(repo.path())),
            Vec::<String>::new(),
            "{args:?}: no hook, no store, no other agent's file, no config"
        );
    }

    // Fixed, the same command sets everything up.
    repo.write(".claude/settings.json", "{\n  \"model\": \"opus\"\n}\n");
    lg(&repo)
        .args(["init", "--agent", "claude"])
        .run()
        .ok()
        .stderr_has("Claude Code: hooked in (.claude/settings.json)");
    assert!(repo.path().join(".git/hooks/pre-commit").exists());
}

#[test]
fn uninstall_agent_leaves_no_file_that_was_not_there() {
    let repo = with_a_commit();
    let agents = "claude,codex,gemini,copilot,cursor";
    // The user's own Gemini settings, kept as they were.
    let users = "{\n  \"theme\": \"dark\"\n}\n";
    repo.write(".gemini/settings.json", users);
    let before = snapshot(repo.path());
    lg(&repo)
        .args(["init", "--no-hooks", "--no-preview", "--agent", agents])
        .run()
        .ok();
    for file in [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".github/hooks/loopguard.json",
        ".cursor/hooks.json",
    ] {
        assert!(repo.path().join(file).exists(), "{file}");
    }
    let out = lg(&repo).args(["uninstall", "--agent", agents]).run().ok();
    assert_eq!(
        out.stderr.lines().collect::<Vec<_>>(),
        [
            "Claude Code: loopguard's hooks removed (nothing else was in the file: deleted) (.claude/settings.json)",
            "Codex: loopguard's hooks removed (nothing else was in the file: deleted) (.codex/hooks.json)",
            "Gemini CLI: loopguard's hooks removed (.gemini/settings.json)",
            "GitHub Copilot: loopguard's hooks removed (the file was loopguard's alone: deleted) (.github/hooks/loopguard.json)",
            "Cursor: loopguard's hooks removed (nothing else was in the file: deleted) (.cursor/hooks.json)",
        ]
    );
    // The working tree as it was before init: no `{}` left, no empty directory.
    let after = snapshot(repo.path());
    let outside_git: Vec<String> = changed(&before, &after)
        .into_iter()
        .filter(|p| !p.trim_start_matches('-').starts_with(".git/"))
        .collect();
    assert_eq!(outside_git, Vec::<String>::new());
    assert_eq!(repo.read(".gemini/settings.json").as_deref(), Some(users));
}
