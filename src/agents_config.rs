//! The coding agents' own hook configs, with loopguard's entries merged in
//! (`init --agent`) and taken out again (`uninstall --agent`):
//!
//! | agent | file | shape |
//! |---|---|---|
//! | Claude Code | `.claude/settings.json` | `hooks.<Event>: [{matcher?, hooks: [{type: command, command, timeout}]}]` |
//! | Codex | `.codex/hooks.json` | the same |
//! | Gemini CLI | `.gemini/settings.json` | the same, with `name` and a timeout in milliseconds |
//! | Copilot | `.github/hooks/loopguard.json` | `{version: 1, hooks: {<event>: [{type: command, bash, timeoutSec}]}}` |
//!
//! Whatever else is in the file stays: the user's settings and hooks are kept, a second
//! run adds nothing (a file already as wanted is not written at all), and uninstalling
//! removes exactly loopguard's entries — those whose command runs `loopguard agent-hook`.
//! A file that is not valid JSON is never overwritten: the error names its line and
//! column and what to do.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::session::Harness;

/// What marks loopguard's own entries.
const MARK: &str = " agent-hook ";

/// The hook config of `harness`, relative to the repository root.
pub fn config_path(harness: Harness) -> &'static str {
    match harness {
        Harness::Claude => ".claude/settings.json",
        Harness::Codex => ".codex/hooks.json",
        Harness::Gemini => ".gemini/settings.json",
        Harness::Copilot => ".github/hooks/loopguard.json",
    }
}

/// The events loopguard hooks, and whether each is about tools (it takes a matcher).
fn events(harness: Harness) -> &'static [(&'static str, bool)] {
    match harness {
        Harness::Claude => &[
            ("SessionStart", false),
            ("UserPromptSubmit", false),
            ("PreToolUse", true),
            ("PostToolUse", true),
            ("PostToolUseFailure", true),
            ("Stop", false),
            ("SubagentStop", false),
        ],
        Harness::Codex => &[
            ("SessionStart", false),
            ("UserPromptSubmit", false),
            ("PreToolUse", true),
            ("PostToolUse", true),
            ("Stop", false),
        ],
        Harness::Gemini => &[
            ("SessionStart", false),
            ("BeforeAgent", false),
            ("BeforeTool", true),
            ("AfterTool", true),
            ("AfterAgent", false),
        ],
        Harness::Copilot => &[
            ("sessionStart", false),
            ("userPromptSubmitted", false),
            ("preToolUse", true),
            ("postToolUse", true),
            ("agentStop", false),
            ("subagentStop", false),
        ],
    }
}

/// The command a hook runs: this loopguard, the agent, and for Copilot (whose input does
/// not name it) the event.
pub fn command(exe: &Path, harness: Harness, event: &str) -> String {
    let exe = exe.to_string_lossy();
    let quoted = if exe
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        exe.into_owned()
    } else {
        format!("'{}'", exe.replace('\'', r"'\''"))
    };
    match harness {
        Harness::Copilot => format!("{quoted}{MARK}copilot {event}"),
        Harness::Claude | Harness::Codex | Harness::Gemini => format!("{quoted}{MARK}{harness}"),
    }
}

fn is_ours(entry: &Value) -> bool {
    ["command", "bash"]
        .iter()
        .filter_map(|k| entry.get(*k).and_then(Value::as_str))
        .any(|c| c.contains(MARK) && c.contains("loopguard"))
}

/// What installing or removing did to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Written,
    Unchanged,
    Removed,
}

/// An agent's hook config that cannot be read, changed or written. Nothing is written
/// when one is found: every file is read and merged before the first write.
#[derive(Debug, thiserror::Error)]
pub enum AgentConfigError {
    #[error("cannot read {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Valid JSON, but not one object.
    #[error("{path}:1:1: not a JSON object")]
    NotAnObject { path: String },
    #[error("{path}:{line}:{column}: not valid JSON: {why}")]
    NotJson {
        path: String,
        line: usize,
        column: usize,
        why: String,
    },
    /// A key loopguard merges into (`hooks`, `hooks.<event>`) has another type.
    #[error("{path}: `{key}` is not {wanted}")]
    WrongType {
        path: String,
        key: String,
        wanted: &'static str,
    },
    #[error("cannot write {path}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl AgentConfigError {
    /// How to fix it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            AgentConfigError::Read { .. } | AgentConfigError::Write { .. } => None,
            AgentConfigError::NotAnObject { .. } => Some(
                "the file must hold one object ({ … }); fix or move it, then run the command again (nothing was written)",
            ),
            AgentConfigError::NotJson { .. } => Some(
                "fix the file (a trailing comma or a comment is the usual cause) and run the command again; nothing was written",
            ),
            AgentConfigError::WrongType { .. } => {
                Some("fix it, then run the command again (nothing was written)")
            }
        }
    }
}

/// Reads a JSON config; `None` when there is none. Not JSON: an error naming the line,
/// column and the fix.
fn read(path: &Path, shown: &str) -> Result<Option<Map<String, Value>>, AgentConfigError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(AgentConfigError::Read {
                path: shown.to_owned(),
                source,
            });
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Some(Map::new()));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(AgentConfigError::NotAnObject {
            path: shown.to_owned(),
        }),
        Err(e) => Err(AgentConfigError::NotJson {
            path: shown.to_owned(),
            line: e.line(),
            column: e.column(),
            why: e.to_string(),
        }),
    }
}

fn write(path: &Path, shown: &str, doc: &Map<String, Value>) -> Result<(), AgentConfigError> {
    let cannot = |source| AgentConfigError::Write {
        path: shown.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(cannot)?;
    }
    let mut text =
        serde_json::to_string_pretty(&Value::Object(doc.clone())).expect("JSON serialises");
    text.push('\n');
    crate::store::write_atomic(path, text.as_bytes()).map_err(cannot)
}

/// The hook entry loopguard adds for `event`.
fn entry(harness: Harness, exe: &Path, event: &str) -> Value {
    let cmd = command(exe, harness, event);
    match harness {
        Harness::Claude | Harness::Codex => {
            json!({"type": "command", "command": cmd, "timeout": 30})
        }
        Harness::Gemini => {
            json!({"type": "command", "command": cmd, "name": "loopguard", "timeout": 30000})
        }
        Harness::Copilot => json!({"type": "command", "bash": cmd, "timeoutSec": 30}),
    }
}

/// Merges loopguard's entries into `harness`'s config under `root`.
pub fn install(
    root: &Path,
    harness: Harness,
    exe: &Path,
) -> Result<(PathBuf, Change), AgentConfigError> {
    let rel = config_path(harness);
    let path = root.join(rel);
    let mut doc = read(&path, rel)?.unwrap_or_default();
    let before = doc.clone();
    if harness == Harness::Copilot {
        doc.entry("version").or_insert(json!(1));
    }
    let hooks = doc.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(AgentConfigError::WrongType {
            path: rel.to_owned(),
            key: "hooks".to_owned(),
            wanted: "an object",
        });
    };
    for &(event, tools) in events(harness) {
        let want = entry(harness, exe, event);
        let list = hooks.entry(event).or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            return Err(AgentConfigError::WrongType {
                path: rel.to_owned(),
                key: format!("hooks.{event}"),
                wanted: "a list",
            });
        };
        let mut found = false;
        for group in list.iter_mut() {
            if harness == Harness::Copilot {
                if is_ours(group) {
                    *group = want.clone();
                    found = true;
                }
                continue;
            }
            if let Some(inner) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                for h in inner.iter_mut().filter(|h| is_ours(h)) {
                    *h = want.clone();
                    found = true;
                }
            }
        }
        if !found {
            list.push(match harness {
                Harness::Copilot => want,
                Harness::Gemini if tools => json!({"matcher": ".*", "hooks": [want]}),
                Harness::Claude | Harness::Codex | Harness::Gemini => json!({"hooks": [want]}),
            });
        }
    }
    if doc == before {
        return Ok((path, Change::Unchanged));
    }
    write(&path, rel, &doc)?;
    Ok((path, Change::Written))
}

/// Takes loopguard's entries out of `harness`'s config under `root`, and nothing else; a
/// Copilot file left with no hooks is removed (loopguard made it).
pub fn uninstall(root: &Path, harness: Harness) -> Result<(PathBuf, Change), AgentConfigError> {
    let rel = config_path(harness);
    let path = root.join(rel);
    let Some(mut doc) = read(&path, rel)? else {
        return Ok((path, Change::Unchanged));
    };
    let before = doc.clone();
    if let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_object_mut) {
        for list in hooks.values_mut().filter_map(Value::as_array_mut) {
            if harness == Harness::Copilot {
                list.retain(|e| !is_ours(e));
                continue;
            }
            for group in list.iter_mut() {
                if let Some(inner) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                    inner.retain(|h| !is_ours(h));
                }
            }
            list.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|inner| !inner.is_empty())
            });
        }
        hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    }
    if doc
        .get("hooks")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
        && !before
            .get("hooks")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
    {
        doc.remove("hooks");
    }
    if doc == before {
        return Ok((path, Change::Unchanged));
    }
    let only_version = doc.keys().all(|k| k == "version");
    if harness == Harness::Copilot && only_version {
        std::fs::remove_file(&path).map_err(|source| AgentConfigError::Write {
            path: rel.to_owned(),
            source,
        })?;
        return Ok((path, Change::Removed));
    }
    write(&path, rel, &doc)?;
    Ok((path, Change::Written))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_keeps_the_users_hooks_twice_is_once_and_uninstall_takes_only_ours() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let exe = Path::new("/opt/bin/loopguard");
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        let users = r#"{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}]}}"#;
        std::fs::write(root.join(".claude/settings.json"), users).unwrap();
        assert_eq!(
            install(root, Harness::Claude, exe).unwrap().1,
            Change::Written
        );
        assert_eq!(
            install(root, Harness::Claude, exe).unwrap().1,
            Change::Unchanged
        );
        let doc: Value =
            serde_json::from_slice(&std::fs::read(root.join(".claude/settings.json")).unwrap())
                .unwrap();
        assert_eq!(doc["model"], "opus");
        let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["hooks"][0]["command"], "./audit.sh");
        assert_eq!(
            pre[1]["hooks"][0]["command"],
            "/opt/bin/loopguard agent-hook claude"
        );
        assert_eq!(uninstall(root, Harness::Claude).unwrap().1, Change::Written);
        let doc: Value =
            serde_json::from_slice(&std::fs::read(root.join(".claude/settings.json")).unwrap())
                .unwrap();
        assert_eq!(doc, serde_json::from_str::<Value>(users).unwrap());
        // Copilot's file is loopguard's own: gone when empty.
        install(root, Harness::Copilot, exe).unwrap();
        assert_eq!(
            uninstall(root, Harness::Copilot).unwrap().1,
            Change::Removed
        );
        assert!(!root.join(".github/hooks/loopguard.json").exists());
    }

    #[test]
    fn bad_json_names_the_line_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".gemini")).unwrap();
        let bad = "{\n  \"theme\": \"dark\",\n}\n";
        std::fs::write(dir.path().join(".gemini/settings.json"), bad).unwrap();
        let err = install(dir.path(), Harness::Gemini, Path::new("/x/loopguard")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(".gemini/settings.json:3:1: not valid JSON"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".gemini/settings.json")).unwrap(),
            bad
        );
    }
}
