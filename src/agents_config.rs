//! The coding agents' own hook configs, with loopguard's entries merged in
//! (`init --agent`) and taken out again (`uninstall --agent`). Which file, how its entries
//! are laid out and what loopguard's entry holds is each harness's descriptor
//! (`loopguard_core::session::harness`, its `config`); this is the reading and writing.
//!
//! Whatever else is in the file stays as the user wrote it: their settings and hooks, in
//! their order, with their indentation and line endings ([`crate::ordered_json`]); a
//! second run adds nothing (a file already as wanted is not written at all), and
//! uninstalling removes exactly loopguard's entries — those whose command runs `loopguard
//! agent-hook`. A file that is not valid JSON is never overwritten: the error names its
//! line and column and what to do.

use std::path::{Path, PathBuf};

use crate::ordered_json::{Json, Layout, Object};
use crate::session::Harness;
use crate::session::harness::{ConfigFile, Layout as Entries, Member};

/// What marks loopguard's own entries.
const MARK: &str = " agent-hook ";

/// The hook config of `harness`, relative to the repository root.
pub fn config_path(harness: Harness) -> &'static str {
    harness.descriptor().config.path
}

/// The command a hook runs: this loopguard, the agent, and the event where the agent's
/// input does not name it.
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
    if harness.descriptor().config.event_in_command {
        format!("{quoted}{MARK}{harness} {event}")
    } else {
        format!("{quoted}{MARK}{harness}")
    }
}

/// Whether `entry` is loopguard's: its command runs `loopguard agent-hook`.
fn is_ours(config: &ConfigFile, entry: &Json) -> bool {
    config
        .entry
        .iter()
        .filter(|(_, m)| *m == Member::Command)
        .filter_map(|(k, _)| entry.get(k).and_then(Json::as_str))
        .any(|c| c.contains(MARK) && c.contains("loopguard"))
}

/// What in an agent's hook config decides whether loopguard's hooks run, as one value to
/// compare: loopguard's own entries under `hooks` (with what holds them: an event's name,
/// a group's matcher), and every other top-level key about hooks (`disableAllHooks`, …).
/// The rest — the person's permissions, their model, their own hooks — is no part of the
/// guard. Not JSON: the text itself.
pub fn hooks_part(bytes: &[u8]) -> serde_json::Value {
    use serde_json::Value;
    /// `v` with only what leads to an entry of loopguard's (`None`: nothing does).
    fn ours_only(v: &Value) -> Option<Value> {
        match v {
            Value::String(s) => (s.contains(MARK) && s.contains("loopguard")).then(|| v.clone()),
            Value::Array(a) => {
                let kept: Vec<Value> = a.iter().filter_map(ours_only).collect();
                (!kept.is_empty()).then_some(Value::Array(kept))
            }
            Value::Object(o) => {
                let nested: serde_json::Map<String, Value> = o
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), ours_only(v)?)))
                    .collect();
                if nested.is_empty() {
                    return None;
                }
                let scalars: Vec<(String, Value)> = o
                    .iter()
                    .filter(|(k, v)| !v.is_array() && !v.is_object() && !nested.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                Some(Value::Object(nested.into_iter().chain(scalars).collect()))
            }
            _ => None,
        }
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(doc)) => Value::Object(
            doc.iter()
                .filter(|(k, _)| k.to_ascii_lowercase().contains("hook"))
                .map(|(k, v)| {
                    let v = if k == "hooks" {
                        ours_only(v).unwrap_or(Value::Null)
                    } else {
                        v.clone()
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        _ => Value::String(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// Whether a config's [`hooks_part`] holds an entry of loopguard's.
pub fn names_loopguard(part: &serde_json::Value) -> bool {
    part.get("hooks").is_some_and(|h| !h.is_null())
}

/// The same members, whatever their order.
fn same(a: &Json, b: &Json) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
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

/// Reads a JSON config, and how it is laid out; `None` when there is none. Not JSON: an
/// error naming the line, column and the fix.
fn read(path: &Path, shown: &str) -> Result<Option<(Object, Layout)>, AgentConfigError> {
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
        return Ok(Some((Object::default(), Layout::default())));
    }
    let layout = Layout::of(&String::from_utf8_lossy(&bytes));
    match serde_json::from_slice::<Json>(&bytes) {
        Ok(Json::Object(m)) => Ok(Some((m, layout))),
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

/// Writes `doc` to `path` laid out as `layout` says.
fn write(path: &Path, shown: &str, doc: Object, layout: &Layout) -> Result<(), AgentConfigError> {
    let cannot = |source| AgentConfigError::Write {
        path: shown.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(cannot)?;
    }
    let text = layout.write(&Json::Object(doc));
    crate::safe_fs::write_atomic(path, text.as_bytes(), || {}).map_err(cannot)
}

/// The hook entry loopguard adds for `event`.
fn entry(harness: Harness, exe: &Path, event: &str) -> Json {
    let members = harness.descriptor().config.entry.iter().map(|(k, m)| {
        let value = match m {
            Member::Command => Json::string(command(exe, harness, event)),
            Member::Text(t) => Json::string(*t),
            Member::Number(n) => Json::number(*n),
        };
        (*k, value)
    });
    Json::Object(Object::from_iter(members))
}

/// An agent's hook config read and merged with loopguard's entries, not written yet: a
/// command that changes several files (`init`: the git hooks, each agent's config) reads
/// and merges them all first, so a file it cannot change stops it before anything is
/// written.
#[derive(Debug)]
pub struct Planned {
    path: PathBuf,
    rel: &'static str,
    /// The merged document and its layout; `None` when the file is already as wanted.
    write: Option<(Object, Layout)>,
}

impl Planned {
    /// Writes the merged file (when it changed).
    pub fn apply(self) -> Result<(PathBuf, Change), AgentConfigError> {
        let Some((doc, layout)) = self.write else {
            return Ok((self.path, Change::Unchanged));
        };
        write(&self.path, self.rel, doc, &layout)?;
        Ok((self.path, Change::Written))
    }
}

/// Merges loopguard's entries into `harness`'s config under `root`.
pub fn install(
    root: &Path,
    harness: Harness,
    exe: &Path,
) -> Result<(PathBuf, Change), AgentConfigError> {
    plan(root, harness, exe)?.apply()
}

/// Reads `harness`'s config under `root` and merges loopguard's entries into it, writing
/// nothing ([`Planned::apply`] writes it).
pub fn plan(root: &Path, harness: Harness, exe: &Path) -> Result<Planned, AgentConfigError> {
    let d = harness.descriptor();
    let rel = d.config.path;
    let path = root.join(rel);
    let (mut doc, layout) = read(&path, rel)?.unwrap_or_default();
    let before = doc.clone();
    if let Some(version) = d.config.version {
        doc.entry("version", || Json::number(version));
    }
    let hooks = doc.entry("hooks", || Json::Object(Object::default()));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(AgentConfigError::WrongType {
            path: rel.to_owned(),
            key: "hooks".to_owned(),
            wanted: "an object",
        });
    };
    for event in d.events {
        let want = entry(harness, exe, event.name);
        let list = hooks.entry(event.name, || Json::Array(Vec::new()));
        let Some(list) = list.as_array_mut() else {
            return Err(AgentConfigError::WrongType {
                path: rel.to_owned(),
                key: format!("hooks.{}", event.name),
                wanted: "a list",
            });
        };
        if !update_ours(&d.config, list, &want) {
            list.push(match d.config.layout {
                Entries::Flat => want,
                Entries::Grouped { tool_matcher } => {
                    let hooks = ("hooks", Json::Array(vec![want]));
                    Json::Object(match tool_matcher.filter(|_| event.about_tools()) {
                        Some(m) => Object::from([("matcher", Json::string(m)), hooks]),
                        None => Object::from([hooks]),
                    })
                }
            });
        }
    }
    let write = (doc != before).then_some((doc, layout));
    Ok(Planned { path, rel, write })
}

/// Removes the directories from `file`'s up to `root` (not included) that are empty.
fn remove_empty_dirs(root: &Path, file: &Path) {
    let mut dir = file.parent();
    while let Some(d) = dir.filter(|d| d.starts_with(root) && *d != root) {
        // Fails, and stops, at the first directory that holds anything.
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Sets loopguard's entries in an event's `list` to `want`; whether there was one. An
/// entry of ours already as wanted stays as it is written (its keys' order too).
fn update_ours(config: &ConfigFile, list: &mut [Json], want: &Json) -> bool {
    let mut found = false;
    let mut update = |h: &mut Json| {
        if !same(h, want) {
            *h = want.clone();
        }
        found = true;
    };
    for item in list.iter_mut() {
        match config.layout {
            Entries::Flat => {
                if is_ours(config, item) {
                    update(item);
                }
            }
            Entries::Grouped { .. } => {
                if let Some(inner) = item.get_mut("hooks").and_then(Json::as_array_mut) {
                    inner
                        .iter_mut()
                        .filter(|h| is_ours(config, h))
                        .for_each(&mut update);
                }
            }
        }
    }
    found
}

/// Takes loopguard's entries out of `harness`'s config under `root`, and nothing else; a
/// file left with nothing in it (`{}`, or only a version) is removed, and so are the
/// directories below `root` it leaves empty.
pub fn uninstall(root: &Path, harness: Harness) -> Result<(PathBuf, Change), AgentConfigError> {
    let config = &harness.descriptor().config;
    let rel = config.path;
    let path = root.join(rel);
    let Some((mut doc, layout)) = read(&path, rel)? else {
        return Ok((path, Change::Unchanged));
    };
    let before = doc.clone();
    if let Some(hooks) = doc.get_mut("hooks").and_then(Json::as_object_mut) {
        for list in hooks.values_mut().filter_map(Json::as_array_mut) {
            match config.layout {
                Entries::Flat => list.retain(|e| !is_ours(config, e)),
                Entries::Grouped { .. } => {
                    for group in list.iter_mut() {
                        if let Some(inner) = group.get_mut("hooks").and_then(Json::as_array_mut) {
                            inner.retain(|h| !is_ours(config, h));
                        }
                    }
                    list.retain(|g| {
                        g.get("hooks")
                            .and_then(Json::as_array)
                            .is_none_or(|inner| !inner.is_empty())
                    });
                }
            }
        }
        hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    }
    if doc
        .get("hooks")
        .and_then(Json::as_object)
        .is_some_and(Object::is_empty)
        && !before
            .get("hooks")
            .and_then(Json::as_object)
            .is_some_and(Object::is_empty)
    {
        doc.remove("hooks");
    }
    if doc == before {
        return Ok((path, Change::Unchanged));
    }
    // Nothing left but what loopguard writes into a file it makes (`{}`, a version): the
    // file holds no setting of anyone's (it was not there before `init --agent`, or it is
    // loopguard's own), and it goes, with the directories it leaves empty.
    if doc.keys().all(|k| k == "version") {
        std::fs::remove_file(&path).map_err(|source| AgentConfigError::Write {
            path: rel.to_owned(),
            source,
        })?;
        remove_empty_dirs(root, &path);
        return Ok((path, Change::Removed));
    }
    write(&path, rel, doc, &layout)?;
    Ok((path, Change::Written))
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use serde_json::Value;

    #[test]
    fn the_users_file_keeps_its_order_and_layout() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let exe = Path::new("/opt/bin/loopguard");
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        // Keys out of alphabetical order, four spaces, no final newline.
        let users = "{\n    \"permissions\": {\n        \"deny\": [],\n        \"allow\": [\n            \"Bash(ls)\"\n        ]\n    },\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"./notify.sh\"\n                    }\n                ]\n            }\n        ]\n    }\n}";
        let file = root.join(".claude/settings.json");
        std::fs::write(&file, users).unwrap();
        install(root, Harness::Claude, exe).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.starts_with("{\n    \"permissions\": {\n        \"deny\": [],\n        \"allow\""),
            "{text}"
        );
        let keys: Vec<&str> = text.lines().filter(|l| l.starts_with("    \"")).collect();
        assert_eq!(
            keys,
            [
                "    \"permissions\": {",
                "    \"model\": \"opus\",",
                "    \"hooks\": {"
            ]
        );
        assert!(!text.ends_with('\n'), "no final newline, as it was");
        assert!(
            text.contains("\"type\": \"command\",\n                        \"command\": \"/opt/bin/loopguard agent-hook claude\",\n                        \"timeout\": 30"),
            "{text}"
        );
        // Nothing to change: the file is not written at all.
        let stamp = std::fs::metadata(&file).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            install(root, Harness::Claude, exe).unwrap().1,
            Change::Unchanged
        );
        assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), stamp);
        // Taken out again: the file as the user wrote it, byte for byte.
        uninstall(root, Harness::Claude).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), users);
    }

    #[test]
    fn an_entry_of_ours_in_another_order_is_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".codex")).unwrap();
        let mut text = String::from("{\n  \"hooks\": {\n");
        let events = [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
        ];
        for (i, e) in events.iter().enumerate() {
            let comma = if i + 1 < events.len() { "," } else { "" };
            let _ = writeln!(
                text,
                "    \"{e}\": [{{\"hooks\": [{{\"timeout\": 30, \"command\": \"/x/loopguard agent-hook codex\", \"type\": \"command\"}}]}}]{comma}"
            );
        }
        text.push_str("  }\n}\n");
        std::fs::write(root.join(".codex/hooks.json"), &text).unwrap();
        assert_eq!(
            install(root, Harness::Codex, Path::new("/x/loopguard"))
                .unwrap()
                .1,
            Change::Unchanged
        );
        assert_eq!(
            std::fs::read_to_string(root.join(".codex/hooks.json")).unwrap(),
            text
        );
    }

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

/// Records the person's review of loopguard's hooks where `harness` keeps one (its
/// descriptor's `review`: Codex's `/hooks`, in `$CODEX_HOME/config.toml`), as the review
/// would: each of loopguard's hooks in the project's config under `root`, by its hash. The
/// rest of the file stays as it was; an entry already there is updated in place. `home` is
/// the user's home, `var` reads an environment variable (the harness's home may be named
/// by one). Returns the file written, `None` where the harness keeps no review.
pub fn record_review(
    root: &Path,
    harness: Harness,
    home: Option<&Path>,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<Option<PathBuf>, AgentConfigError> {
    let Some(review) = harness.descriptor().review else {
        return Ok(None);
    };
    let rel = config_path(harness);
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).map_err(|source| AgentConfigError::Write {
        path: rel.to_owned(),
        source,
    })?;
    let Ok(config) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(None);
    };
    let dir = match var(review.home_var).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => match home {
            Some(home) => home.join(review.home_default),
            None => return Ok(None),
        },
    };
    let file = dir.join(review.file);
    let shown = file.display().to_string();
    let cannot = |source| AgentConfigError::Write {
        path: shown.clone(),
        source,
    };
    let before = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(cannot(e)),
    };
    let mut after = before.clone();
    for e in (review.entries)(&config, &path.to_string_lossy()) {
        if e.command.contains(MARK) && e.command.contains("loopguard") {
            after = set_toml_entry(&after, &e.header, &e.line);
        }
    }
    if after != before {
        std::fs::create_dir_all(&dir).map_err(cannot)?;
        crate::safe_fs::write_atomic(&file, after.as_bytes(), || {}).map_err(cannot)?;
    }
    Ok(Some(file))
}

/// `text` (TOML) with the table `header` holding `line` (a `key = value`): the table's
/// line of that key replaced where the table is there, the table appended where not.
fn set_toml_entry(text: &str, header: &str, line: &str) -> String {
    let key = line.split('=').next().unwrap_or(line).trim();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if let Some(at) = lines.iter().position(|l| l.trim() == header) {
        let end = lines[at + 1..]
            .iter()
            .position(|l| l.trim_start().starts_with('['))
            .map_or(lines.len(), |p| at + 1 + p);
        let existing = (at + 1..end).find(|&i| {
            lines[i]
                .split('=')
                .next()
                .is_some_and(|k| k.trim() == key && lines[i].contains('='))
        });
        match existing {
            Some(i) => lines[i] = line.to_owned(),
            None => lines.insert(at + 1, line.to_owned()),
        }
        let mut out = lines.join("\n");
        out.push('\n');
        return out;
    }
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for part in ["\n", header, "\n", line, "\n"] {
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod review_tests {
    use super::set_toml_entry;

    #[test]
    fn a_review_entry_is_set_in_place_or_appended() {
        let h = "[hooks.state.\"/r/.codex/hooks.json:stop:0:0\"]";
        let text = "model = \"x\"\n";
        let once = set_toml_entry(text, h, "trusted_hash = \"sha256:a\"");
        assert_eq!(
            once,
            format!("model = \"x\"\n\n{h}\ntrusted_hash = \"sha256:a\"\n")
        );
        let twice = set_toml_entry(&once, h, "trusted_hash = \"sha256:b\"");
        assert_eq!(twice, once.replace("sha256:a", "sha256:b"));
        assert_eq!(
            set_toml_entry(&twice, h, "trusted_hash = \"sha256:b\""),
            twice
        );
        let other = format!("{h}\nenabled = true\n[x]\ntrusted_hash = 1\n");
        assert_eq!(
            set_toml_entry(&other, h, "trusted_hash = \"sha256:c\""),
            format!("{h}\ntrusted_hash = \"sha256:c\"\nenabled = true\n[x]\ntrusted_hash = 1\n")
        );
    }
}
