//! `constraint` before a tool call runs: an agent may not switch its guard off from inside
//! its session — edit loopguard's config, its hooks or its state, or the harness's own hook
//! config — nor write a test skip. Judged from the call's input, before anything happens.

use super::call::{CallInput, Kind};
use super::files::FileEdit;
use super::harness::Harness;
use crate::config::Config;

/// What guards a session besides `rules.constraint.protected` (which holds
/// `.loopguard.yml`), the workflows that run loopguard and the harnesses' hook configs
/// (their descriptors' `guards`): git's hooks and config, and loopguard's state.
const GIT_PATHS: &[&str] = &[".git/hooks/", ".git/loopguard/", ".git/config"];

/// Why `path` (relative to the repository) may not be written from a session, if so.
pub fn protected_reason(config: &Config, path: &str) -> Option<String> {
    let path = path.trim_start_matches("./");
    if config.rules.constraint.protects(path) {
        return Some(format!("would edit {path}, which guards this repository"));
    }
    let mut guards = Harness::guarded_paths().chain(GIT_PATHS.iter().copied());
    guards
        .any(|g| {
            if let Some(dir) = g.strip_suffix('/') {
                path.starts_with(g) || path.trim_end_matches('/') == dir
            } else {
                path == g
            }
        })
        .then(|| format!("would edit {path}, the agent hooks or loopguard's own state"))
}

/// A path a tool gave, relative to `root` when it is inside it.
fn relative<'a>(path: &'a str, root: Option<&str>) -> &'a str {
    match root {
        Some(r) => path
            .strip_prefix(r.trim_end_matches('/'))
            .map_or(path, |p| p.trim_start_matches('/')),
        None => path,
    }
}

/// Why the call may not run, if so.
pub(super) fn check(
    config: &Config,
    call: &CallInput,
    root: Option<&str>,
    read: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    match call.kind() {
        Kind::Edit => {
            for edit in call.edits() {
                let path = relative(edit.path(), root);
                if let Some(why) = protected_reason(config, path) {
                    return Some(why);
                }
                if config.rules.constraint.forbid_test_skips
                    && let Some(skip) = skip_written(&edit, path, read)
                {
                    return Some(format!("would add a test skip in {path}: {skip}"));
                }
            }
            None
        }
        Kind::Shell => shell_writes_guard(config, &call.command()?, root),
        Kind::Other => None,
    }
}

/// The first test the edit would take out of the run with no condition (a skip, a todo,
/// an early return, …: [`crate::suite`]), given the file as it is. A whole file written
/// over one that cannot be read: every test it writes out of the run is such a test.
fn skip_written(
    edit: &FileEdit,
    path: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let (before, after) = match (edit, read(edit.path())) {
        (FileEdit::Delete { .. }, _) => return None,
        (FileEdit::Write { content, .. }, Some(now)) => (now, content.clone()),
        (
            FileEdit::Write {
                content, before, ..
            },
            None,
        ) => match before {
            Some(b) => (b.clone(), content.clone()),
            None => return crate::suite::skipped_in(path, content),
        },
        (FileEdit::Replace { removed, added, .. }, Some(now)) if now.contains(removed.as_str()) => {
            let after = now.replacen(removed.as_str(), added, 1);
            (now, after)
        }
        // Not readable: what the edit shows of the file.
        (FileEdit::Replace { removed, added, .. }, _) => (removed.clone(), added.clone()),
    };
    crate::suite::taken_by_edit(path, &before, Some(&after))
        .into_iter()
        .find(|t| t.how.is_skip() && t.doubt.is_none())
        .and_then(|t| t.line)
}

/// A shell command that would write what guards the session: loopguard's commands that
/// only a person runs, git's hooks switched off, or a write (redirection, `rm`, `mv`,
/// `cp`, `sed -i`, `tee`, ...) naming a protected path. Reading one is fine.
fn shell_writes_guard(config: &Config, command: &str, root: Option<&str>) -> Option<String> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if pair[0].ends_with("loopguard")
            && matches!(pair[1], "resume" | "reset" | "uninstall" | "init")
        {
            return Some(format!(
                "would run `loopguard {}`, which a person runs",
                pair[1]
            ));
        }
    }
    if command.contains("core.hooksPath") || command.contains("core.hookspath") {
        return Some("would switch git's hooks off (core.hooksPath)".to_owned());
    }
    let writes = command.contains('>')
        || words.iter().any(|w| {
            matches!(
                *w,
                "rm" | "mv" | "cp" | "tee" | "truncate" | "chmod" | "ln" | "install" | "dd"
            ) || w.starts_with("-i")
                || *w == "--in-place"
        });
    if !writes {
        return None;
    }
    words.iter().find_map(|w| {
        let w = w.trim_matches(|c| matches!(c, '"' | '\'' | '>' | '<'));
        let w = w.split_once('=').map_or(w, |(_, v)| v);
        protected_reason(config, relative(w, root))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Shell commands, each a call of the shell tool.
    fn shell(commands: &[&str]) -> Vec<CallInput> {
        commands
            .iter()
            .map(|c| CallInput::new("Bash", json!({ "command": c })))
            .collect()
    }

    /// Calls of other tools.
    fn tools(calls: &[(&str, Value)]) -> Vec<CallInput> {
        calls
            .iter()
            .map(|(tool, input)| CallInput::new(tool, input.clone()))
            .collect()
    }

    #[test]
    fn what_an_agent_may_not_do_from_inside_its_session() {
        let c = Config::default();
        let none = |_: &str| None;
        let mut denied = tools(&[
            (
                "Edit",
                json!({"file_path": "/repo/.loopguard.yml", "old_string": "3", "new_string": "30"}),
            ),
            (
                "Write",
                json!({"file_path": "/repo/.claude/settings.json", "content": "{}"}),
            ),
            (
                "apply_patch",
                json!({"command": "*** Begin Patch\n*** Update File: .codex/hooks.json\n-a\n+b\n*** End Patch\n"}),
            ),
            (
                "Edit",
                json!({"file_path": "tests/test_wc.py", "old_string": "def test_count():", "new_string": "@pytest.mark.skip\ndef test_count():"}),
            ),
        ]);
        denied.extend(shell(&[
            "rm -rf .git/loopguard",
            "echo '{}' > .gemini/settings.json",
            "sed -i 's/3/99/' .loopguard.yml",
            "loopguard reset --session s1",
            "git -c core.hooksPath=/dev/null commit -m x",
        ]));
        for d in &denied {
            assert!(
                check(&c, d, Some("/repo"), &none).is_some(),
                "{:?}",
                d.input
            );
        }
        let mut allowed = tools(&[
            ("Read", json!({"file_path": "/repo/.claude/settings.json"})),
            (
                "Edit",
                json!({"file_path": "/repo/src/wc.py", "old_string": "a", "new_string": "b"}),
            ),
        ]);
        allowed.extend(shell(&[
            "cat .loopguard.yml",
            "loopguard status --session s1",
            "pytest -q > out.txt",
        ]));
        for a in &allowed {
            assert_eq!(check(&c, a, Some("/repo"), &none), None, "{:?}", a.input);
        }
        // A Write that keeps a skip the file already had adds none.
        let keep = CallInput::new(
            "Write",
            json!({"file_path": "tests/test_a.py", "content": "@pytest.mark.skip\ndef test_a(): pass\ndef test_b(): pass\n"}),
        );
        let had = |_: &str| Some("@pytest.mark.skip\ndef test_a(): pass\n".to_owned());
        assert_eq!(check(&c, &keep, None, &had), None);
        assert!(check(&c, &keep, None, &none).is_some());
    }
}
