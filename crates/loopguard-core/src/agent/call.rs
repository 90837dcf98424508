//! One tool call, whatever the harness: what kind of call it is, its normalised input (the
//! *action*), what it edits, and how it came out (the *outcome*: success or failure, the
//! exit status, the normalised error; for a test run, the failure signature from the same
//! parsers `loopguard run` uses).
//!
//! The harnesses name the same tools differently (Claude Code `Bash`, `Edit`, `Write`;
//! Codex `Bash`/`shell`, `apply_patch`; Gemini CLI `run_shell_command`, `replace`,
//! `write_file`; Copilot `bash`, `edit`, `create`) and their inputs' fields too
//! (`file_path`, `path`, `absolute_path`; `old_string`, `old_str`): both are read here, once.

use serde_json::Value;

use super::files::FileEdit;
use crate::fingerprint::{fingerprint_bytes, normalize_message};
use crate::iteration::{Outcome, TestEvidence};

/// What kind of call it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Runs a shell command.
    Shell,
    /// Writes files.
    Edit,
    /// Anything else (reads, searches, web, MCP tools, sub-agents).
    Other,
}

/// A call as the harness reported it.
#[derive(Debug, Clone, Default)]
pub struct CallInput {
    pub tool: String,
    pub input: Value,
    /// What the tool returned (after the call).
    pub response: Option<Value>,
    /// The harness says it failed (Claude Code's `PostToolUseFailure`).
    pub failed: bool,
    /// The sub-agent that made it.
    pub agent: Option<String>,
    /// The harness's id of the call.
    pub id: Option<String>,
    /// The harness reports a shell call's output only, no exit status
    /// ([`super::harness::ShellStatus::OutputOnly`]): without one, the output decides.
    pub output_only: bool,
    /// The exit status the harness recorded elsewhere than in the hook's input (Codex's
    /// rollout: `session::transcript::exit_status`).
    pub exit_code: Option<i32>,
    /// The directory the harness made the call in (its `cwd`, the project's root): a path
    /// inside it is read relative to it, as the repository names its files (tools give
    /// absolute paths).
    pub root: Option<String>,
}

/// The most characters of output kept to judge a call (the end of a long test log holds
/// its summary; its failures are read from all of it by the fingerprinter).
const MAX_OUTPUT: usize = 4 << 20;

impl CallInput {
    /// A call of `tool` with `input`, not yet made.
    pub fn new(tool: &str, input: Value) -> CallInput {
        CallInput {
            tool: tool.to_owned(),
            input,
            ..CallInput::default()
        }
    }

    /// The same call, made: it returned `response`.
    pub fn returned(mut self, response: Value) -> CallInput {
        self.response = Some(response);
        self
    }

    pub fn kind(&self) -> Kind {
        let t = self.tool.to_ascii_lowercase();
        let shell = [
            "bash",
            "shell",
            "run_shell_command",
            "exec_command",
            "local_shell",
            "powershell",
            "terminal",
        ];
        let edit = [
            "edit",
            "multiedit",
            "write",
            "apply_patch",
            "replace",
            "write_file",
            "create",
            "str_replace",
            "str_replace_editor",
            "notebookedit",
            "edit_file",
        ];
        if shell.contains(&t.as_str()) {
            Kind::Shell
        } else if edit.contains(&t.as_str()) || patch_text(&self.input).is_some() {
            Kind::Edit
        } else {
            Kind::Other
        }
    }

    /// The command of a shell call as it does its work: whitespace collapsed, without
    /// what only changes its spelling ([`canonical_command`]).
    pub fn canonical_command(&self) -> Option<String> {
        self.command().map(|c| canonical_command(&c).0)
    }

    /// The command of a shell call, whitespace collapsed.
    pub fn command(&self) -> Option<String> {
        let c = match self
            .input
            .get("command")
            .or_else(|| self.input.get("cmd"))?
        {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => return None,
        };
        Some(c.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    /// The path a call is about (the file it reads or writes): relative to the call's
    /// root when it is inside it, else as given.
    pub fn path(&self) -> Option<String> {
        let path = str_field(
            &self.input,
            &[
                "file_path",
                "path",
                "absolute_path",
                "filePath",
                "notebook_path",
                "target_file",
            ],
        )?;
        let inside = self.root.as_deref().and_then(|root| {
            path.strip_prefix(root.trim_end_matches('/'))?
                .strip_prefix('/')
                .filter(|rest| !rest.is_empty())
        });
        Some(inside.map_or(path.clone(), str::to_owned))
    }

    /// The normalised input: what makes two calls the same call. Object keys are sorted
    /// (serde_json's map), strings keep their text; a shell command is compared by its
    /// words.
    pub fn action(&self) -> String {
        match (self.kind(), self.canonical_command()) {
            // Any harness's shell: the same command is the same call.
            (Kind::Shell, Some(c)) => format!("shell\0{c}"),
            _ => format!(
                "{}\0{}",
                self.tool.to_ascii_lowercase(),
                canonical(&self.input)
            ),
        }
    }

    /// A short line naming the call: `Bash: pytest -q`, `Edit: src/wc.py`.
    pub fn summary(&self) -> String {
        let what = match self.kind() {
            Kind::Shell => self.command(),
            Kind::Edit => self.edits().first().map(|e| e.path().to_owned()),
            Kind::Other => self
                .path()
                .or_else(|| str_field(&self.input, &["pattern", "query", "url", "description"])),
        };
        let what: String = what.unwrap_or_default().chars().take(120).collect();
        if what.is_empty() {
            self.tool.clone()
        } else {
            format!("{}: {what}", self.tool)
        }
    }

    /// What the call writes, as its input says (see [`super::files`]). The content a
    /// `Write` replaced comes from the tool's response where the harness reports it
    /// (`originalFile`).
    pub fn edits(&self) -> Vec<FileEdit> {
        if let Some(patch) = patch_text(&self.input) {
            return parse_patch(&patch);
        }
        if self.kind() != Kind::Edit {
            return Vec::new();
        }
        let Some(path) = self.path() else {
            return Vec::new();
        };
        let old = ["old_string", "old_str", "oldString"];
        let new = ["new_string", "new_str", "newString"];
        if let Some(edits) = self.input.get("edits").and_then(Value::as_array) {
            return edits
                .iter()
                .map(|e| FileEdit::Replace {
                    path: path.clone(),
                    removed: str_field(e, &old).unwrap_or_default(),
                    added: str_field(e, &new).unwrap_or_default(),
                })
                .collect();
        }
        if let Some(added) = str_field(&self.input, &new) {
            return vec![FileEdit::Replace {
                path,
                removed: str_field(&self.input, &old).unwrap_or_default(),
                added,
            }];
        }
        if let Some(content) = str_field(&self.input, &["content", "file_text", "contents"]) {
            let before = self
                .response
                .as_ref()
                .and_then(|r| str_field(r, &["originalFile", "original_file"]));
            return vec![FileEdit::Write {
                path,
                content,
                before,
            }];
        }
        Vec::new()
    }

    /// How the call came out.
    pub fn outcome(&self) -> CallOutcome {
        let (text, code, error_flag) = self
            .response
            .as_ref()
            .map_or_else(|| (String::new(), None, false), read_response);
        let code = code.or(self.exit_code).or_else(|| exit_code_in(&text));
        // A command that throws its status away (`make; true`) has none: its output decides.
        let masked =
            self.kind() == Kind::Shell && self.command().is_some_and(|c| canonical_command(&c).1);
        let code = code.filter(|_| !masked);
        let unknown = masked || (self.output_only && code.is_none());
        let known_failed = self.failed
            || error_flag
            || code.is_some_and(|c| c != 0)
            || (unknown && self.kind() == Kind::Shell && output_says_failed(&text));
        // Without an exit status (Claude Code reports none on success), the output decides.
        let passed = if known_failed {
            Some(false)
        } else {
            code.map(|c| c == 0)
        };
        let test = if self.kind() == Kind::Shell {
            let fp = fingerprint_bytes(text.as_bytes());
            // Only a test runner's output is a test result: `ls` printing nothing is not.
            (fp.recognised)
                .then(|| TestEvidence::outcome_of(passed, &fp))
                .flatten()
                .map(|o| TestEvidence::from_fingerprint(o, &fp, self.command()))
        } else {
            None
        };
        let failed = known_failed || test.as_ref().is_some_and(TestEvidence::fails);
        let error = (failed && test.is_none())
            .then(|| first_error(&text))
            .flatten();
        // The outcome of a test run is its result; of anything else, its status and error
        // (or, for a success, its output: the same read twice is the same outcome).
        let digest_of = match (&test, &error) {
            (Some(t), _) => format!(
                "test\0{:?}\0{}\0{:?}",
                t.outcome,
                t.signature.as_ref().map_or("", |s| s.as_str()),
                t.failing
            ),
            // The error as printed: the same failure whatever status came with it.
            (None, Some(e)) => format!("error\0{e}"),
            (None, None) => format!(
                "{}\0{code:?}\0{}",
                if failed { "failed" } else { "ok" },
                normalize_output(&text)
            ),
        };
        let printed = test
            .as_ref()
            .filter(|t| t.fails())
            .and_then(|t| t.first_error.as_deref())
            .and_then(|m| printed_line(&text, m));
        // A failure's effect: all it printed, normalised (not its spelling, nor its status).
        let evidence = (failed && test.is_none() && !text.trim().is_empty())
            .then(|| super::files::digest(&format!("printed\0{}", normalize_output(&text))));
        CallOutcome {
            failed,
            code,
            error,
            evidence,
            test,
            printed,
            digest: super::files::digest(&digest_of),
        }
    }
}

/// How a call came out.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub failed: bool,
    pub code: Option<i32>,
    /// The normalised first error line of a failure that is no test run.
    pub error: Option<String>,
    /// A digest of all a failure that is no test run printed, normalised: the same
    /// failure whatever the command's spelling (`None`: a success, a test run, a failure
    /// that printed nothing).
    pub evidence: Option<String>,
    /// The test result, when the call ran tests.
    pub test: Option<TestEvidence>,
    /// The first failure's error line of a failing test run as the runner printed it
    /// (whitespace collapsed, at most [`PRINTED_CHARS`] characters): what the model is
    /// told, where the evidence keeps it normalised (`<n>` for each number).
    pub printed: Option<String>,
    pub digest: String,
}

/// The most characters of a failure line quoted to the model.
pub const PRINTED_CHARS: usize = 200;

/// The line of `text` whose normalised form holds `message` (a failure's normalised first
/// error line), or its text after the exception's name (pytest's `AssertionError: assert
/// <n> == <n>` is printed `E   assert 2 == 3`): the failure as printed. Only lines with
/// the message's longest word are normalised, so a long log costs a scan.
fn printed_line(text: &str, message: &str) -> Option<String> {
    let after_name = message.split_once(": ").map(|(_, rest)| rest);
    [Some(message), after_name]
        .into_iter()
        .flatten()
        .filter(|m| !m.is_empty())
        .find_map(|m| line_holding(text, m))
        .map(|l| {
            let line = l.split_whitespace().collect::<Vec<_>>().join(" ");
            match line.char_indices().nth(PRINTED_CHARS) {
                Some((cut, _)) => format!("{}…", &line[..cut]),
                None => line,
            }
        })
}

/// The first line of `text` whose normalised form holds `message`.
fn line_holding<'t>(text: &'t str, message: &str) -> Option<&'t str> {
    let word = message
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && w != &"n")
        .max_by_key(|w| w.len())?;
    text.lines()
        .filter(|l| l.contains(word))
        .find(|l| normalize_message(l).contains(message))
}

impl CallOutcome {
    pub fn test_failed(&self) -> bool {
        self.test
            .as_ref()
            .is_some_and(|t| t.outcome == Outcome::Fail)
    }
}

/// The first string among `keys` in `v`.
fn str_field(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// JSON with sorted keys (serde_json's map is ordered by key).
fn canonical(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A patch in the input (`apply_patch`: `*** Begin Patch`).
fn patch_text(input: &Value) -> Option<String> {
    let text = if let Value::String(s) = input {
        s.clone()
    } else {
        str_field(input, &["input", "patch", "command"]).or_else(|| {
            input
                .get("command")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().rev().find_map(Value::as_str).map(str::to_owned))
        })?
    };
    text.contains("*** Begin Patch").then_some(text)
}

/// The files of an `apply_patch` patch: `*** Add File:` (its `+` lines are the content),
/// `*** Delete File:`, `*** Update File:` (its `-` and `+` lines).
pub fn parse_patch(patch: &str) -> Vec<FileEdit> {
    enum Op {
        Add,
        Update,
    }
    let mut out = Vec::new();
    let mut current: Option<(Op, String, Vec<&str>, Vec<&str>)> = None;
    let flush = |c: Option<(Op, String, Vec<&str>, Vec<&str>)>, out: &mut Vec<FileEdit>| {
        if let Some((op, path, removed, added)) = c {
            out.push(match op {
                Op::Add => FileEdit::Write {
                    path,
                    content: lines_text(&added),
                    before: None,
                },
                Op::Update => FileEdit::Replace {
                    path,
                    removed: lines_text(&removed),
                    added: lines_text(&added),
                },
            });
        }
    };
    for line in patch.lines() {
        if let Some(p) = line.strip_prefix("*** Add File: ") {
            flush(current.take(), &mut out);
            current = Some((Op::Add, p.trim().to_owned(), Vec::new(), Vec::new()));
        } else if let Some(p) = line.strip_prefix("*** Update File: ") {
            flush(current.take(), &mut out);
            current = Some((Op::Update, p.trim().to_owned(), Vec::new(), Vec::new()));
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            flush(current.take(), &mut out);
            out.push(FileEdit::Delete {
                path: p.trim().to_owned(),
            });
        } else if line.starts_with("*** ") {
            // `*** End Patch`, `*** Move to:`, `*** End of File`.
        } else if let Some((_, _, removed, added)) = current.as_mut() {
            if let Some(l) = line.strip_prefix('+') {
                added.push(l);
            } else if let Some(l) = line.strip_prefix('-') {
                removed.push(l);
            }
        }
    }
    flush(current.take(), &mut out);
    out
}

fn lines_text(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The output text, the exit status and whether the tool said it failed, from whatever
/// shape the harness gives the response: a string, or an object with `stdout`/`stderr`,
/// `output`, `llmContent`, `textResultForLlm`, `error`, `exit_code`/`exitCode`,
/// `is_error`, `success`, `resultType`.
fn read_response(r: &Value) -> (String, Option<i32>, bool) {
    let mut text = String::new();
    let mut push = |s: &str| {
        if text.len() < MAX_OUTPUT {
            if !text.is_empty() {
                text.push('\n');
            }
            let room = MAX_OUTPUT - text.len();
            let mut end = s.len().min(room);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            text.push_str(&s[..end]);
        }
    };
    match r {
        Value::String(s) => {
            push(s);
            return (text, None, false);
        }
        Value::Array(parts) => {
            for p in parts {
                if let Some(t) = p.get("text").and_then(Value::as_str).or(p.as_str()) {
                    push(t);
                }
            }
            return (text, None, false);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => {}
    }
    for key in [
        "stdout",
        "stderr",
        "output",
        "aggregated_output",
        "llmContent",
        "textResultForLlm",
        "content",
        "result",
    ] {
        match r.get(key) {
            Some(Value::String(s)) => push(s),
            Some(Value::Array(parts)) => {
                for p in parts {
                    if let Some(t) = p.get("text").and_then(Value::as_str) {
                        push(t);
                    }
                }
            }
            _ => {}
        }
    }
    let error = match r.get("error") {
        Some(Value::String(s)) if !s.is_empty() => {
            push(s);
            true
        }
        Some(Value::Object(e)) => {
            if let Some(m) = e.get("message").and_then(Value::as_str) {
                push(m);
            }
            true
        }
        _ => false,
    };
    let code = ["exit_code", "exitCode", "returncode", "code"]
        .iter()
        .find_map(|k| r.get(*k).and_then(Value::as_i64))
        .and_then(|c| i32::try_from(c).ok());
    let flagged = r.get("is_error").and_then(Value::as_bool) == Some(true)
        || r.get("success").and_then(Value::as_bool) == Some(false)
        || r.get("interrupted").and_then(Value::as_bool) == Some(true)
        || r.get("resultType").and_then(Value::as_str) == Some("failure");
    (text, code, error || flagged)
}

/// `Error: Exit code 2` (Claude Code), `Exit code: 2`, `exit status 2`: the status a
/// tool's text reports.
fn exit_code_in(text: &str) -> Option<i32> {
    for line in text.lines().take(5).chain(text.lines().rev().take(5)) {
        let l = line.trim().to_ascii_lowercase();
        for prefix in [
            "error: exit code ",
            "exit code: ",
            "exit code ",
            "exit status ",
        ] {
            if let Some(rest) = l.strip_prefix(prefix)
                && let Ok(c) = rest.trim().parse::<i32>()
            {
                return Some(c);
            }
        }
    }
    None
}

/// A shell command as it does its work, and whether it throws its exit status away:
/// leading variable assignments (`LANG=C make`, `env LANG=C make`) dropped, a `bash -c
/// '…'` (`sh`, `zsh`, `-lc`) unwrapped, a trailing `; true`, `|| true`, `|| :` or `; exit
/// 0` dropped (and said: the status is then no evidence), words separated by one space.
pub fn canonical_command(command: &str) -> (String, bool) {
    let mut c = command.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut masked = false;
    loop {
        let before = c.clone();
        for suffix in [
            "; true", ";true", "|| true", "||true", "|| :", "; :", "; exit 0",
        ] {
            if let Some(rest) = c.strip_suffix(suffix) {
                c = rest.trim_end().trim_end_matches(';').trim_end().to_owned();
                masked = true;
            }
        }
        let mut words: Vec<&str> = c.split(' ').collect();
        if words.first() == Some(&"env") {
            words.remove(0);
        }
        let assignments = words.iter().take_while(|w| is_assignment(w)).count();
        if assignments > 0 && assignments < words.len() {
            c = words[assignments..].join(" ");
        }
        if let Some(script) = shell_script(&c) {
            c = script.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        if c == before {
            return (c, masked);
        }
    }
}

/// `NAME=value`: a variable assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            && !name.starts_with(|ch: char| ch.is_ascii_digit())
    })
}

/// The script of `bash -c '…'` (and `sh`, `zsh`, `dash`, `-lc`), its quotes taken off.
fn shell_script(command: &str) -> Option<&str> {
    let (shell, rest) = command.split_once(' ')?;
    let shell = shell.rsplit('/').next().unwrap_or(shell);
    if !matches!(shell, "bash" | "sh" | "zsh" | "dash") {
        return None;
    }
    let (flag, script) = rest.split_once(' ')?;
    if !matches!(flag, "-c" | "-lc" | "-ic" | "-ec") {
        return None;
    }
    let script = script.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = script.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return (!inner.contains(q)).then_some(inner);
        }
    }
    (!script.contains(['\'', '"'])).then_some(script)
}

/// Whether a command's output alone says it failed, where no exit status says how it
/// ended (Codex's shell results, a status thrown away): a shell's `command not found`, a
/// missing file, a Python traceback, `error:`/`fatal:` at a line's start, make's `***`.
pub fn output_says_failed(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        let low = l.to_ascii_lowercase();
        low.starts_with("traceback (most recent call last)")
            || low.starts_with("error:")
            || low.starts_with("error[")
            || low.starts_with("fatal:")
            || low.starts_with("make: ***")
            || low.starts_with("npm err!")
            || low.ends_with(": command not found")
            || low.ends_with(": not found")
            || low.ends_with(": no such file or directory")
            || low.ends_with(": permission denied")
    })
}

/// The first line of a failure that says what went wrong, normalised (numbers, paths,
/// addresses replaced) so that the same error compares equal across runs.
fn first_error(text: &str) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && exit_code_in(l).is_none())
        .collect();
    let pick = lines
        .iter()
        .find(|l| {
            let low = l.to_ascii_lowercase();
            [
                "error",
                "fatal",
                "failed",
                "not found",
                "no such",
                "denied",
                "cannot",
                "unable",
            ]
            .iter()
            .any(|w| low.contains(w))
        })
        .or_else(|| lines.first())?;
    Some(normalize_message(pick))
}

/// Output compared by its normalised lines (at most the first 200), so that timestamps and
/// temp paths don't make the same result look new.
fn normalize_output(text: &str) -> String {
    text.lines()
        .take(200)
        .map(normalize_message)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(tool: &str, input: Value, response: Value) -> CallInput {
        CallInput::new(tool, input).returned(response)
    }

    /// A path inside the call's root is the repository's path of the file; one outside it
    /// (or a sibling whose name starts the same) stays as given.
    #[test]
    fn a_path_inside_the_root_is_relative_to_it() {
        let edit = |path: &str| {
            let mut c = CallInput::new("Edit", json!({"file_path": path}));
            c.root = Some("/work/repo/".to_owned());
            c.path()
        };
        assert_eq!(edit("/work/repo/src/wc.py").as_deref(), Some("src/wc.py"));
        assert_eq!(edit("src/wc.py").as_deref(), Some("src/wc.py"));
        assert_eq!(
            edit("/work/repo2/x.py").as_deref(),
            Some("/work/repo2/x.py")
        );
        assert_eq!(edit("/work/repo").as_deref(), Some("/work/repo"));
        assert_eq!(edit("/etc/passwd").as_deref(), Some("/etc/passwd"));
    }

    #[test]
    fn the_same_failure_however_the_command_is_spelled() {
        let log = "============================= FAILURES =============================\n\
                   ___________________________ test_count ___________________________\n\n    \
                   def test_count():\n>       assert count('a b') == 3\nE       assert 2 == 3\n\n\
                   tests/test_wc.py:4: AssertionError\n\
                   =========================== short test summary info ===========================\n\
                   FAILED tests/test_wc.py::test_count - assert 2 == 3\n\
                   ============================== 1 failed in 0.02s ==============================\n";
        let a = call(
            "Bash",
            json!({"command": "pytest -q"}),
            json!({"stdout": log, "stderr": "", "interrupted": false}),
        );
        let b = call(
            "Bash",
            json!({"command": "python -m   pytest tests/test_wc.py"}),
            json!({"stdout": log.replace("0.02s", "0.05s")}),
        );
        let (oa, ob) = (a.outcome(), b.outcome());
        assert!(oa.test_failed(), "{oa:?}");
        assert_eq!(
            oa.test.as_ref().unwrap().signature,
            ob.test.as_ref().unwrap().signature
        );
        assert_eq!(oa.digest, ob.digest);
        assert_ne!(a.action(), b.action());
    }

    #[test]
    fn one_failing_command_whatever_its_spelling() {
        let out = json!({"stdout": "", "stderr": "make: *** No rule to make target 'al'.  Stop.", "exit_code": 2});
        let base = call("Bash", json!({"command": "make al"}), out.clone());
        let spellings = [
            "make   al",
            "LANG=C make al",
            "env LANG=C CI=1 make al",
            "bash -c 'make al'",
            "sh -lc \"make al\"",
            "/bin/bash -c 'LANG=C make al'",
        ];
        for spelled in spellings {
            let c = call("Bash", json!({"command": spelled}), out.clone());
            assert_eq!(c.action(), base.action(), "{spelled}");
            assert_eq!(c.outcome().digest, base.outcome().digest, "{spelled}");
        }
        // The status thrown away: the output says it failed, the same failure.
        let masked = call(
            "Bash",
            json!({"command": "make al; true"}),
            json!({"stdout": "", "stderr": "make: *** No rule to make target 'al'.  Stop.", "exit_code": 0}),
        );
        assert_eq!(masked.action(), base.action());
        let o = masked.outcome();
        assert!(o.failed, "{o:?}");
        assert_eq!(o.digest, base.outcome().digest);
        // Not a spelling: another command, another file, a command that only starts alike.
        for other in [
            "make all",
            "make al > log",
            "bash -c 'make al' extra",
            "X=1",
        ] {
            let c = call("Bash", json!({"command": other}), out.clone());
            assert_ne!(c.action(), base.action(), "{other}");
        }
    }

    #[test]
    fn a_failing_run_keeps_its_failure_as_printed() {
        let log = "F\n======================================================================\n\
                   FAIL: test_count (tests.test_wc.TestCount.test_count)\n\
                   ----------------------------------------------------------------------\n\
                   Traceback (most recent call last):\n  \
                   File \"/tmp/x/tests/test_wc.py\", line 8, in test_count\n    \
                   self.assertEqual(count(\"a b\"), 5)\n\
                   AssertionError: -1 != 5\n\n\
                   ----------------------------------------------------------------------\n\
                   Ran 1 test in 0.000s\n\nFAILED (failures=1)\n";
        let o = call(
            "Bash",
            json!({"command": "python3 -m unittest"}),
            json!({"stdout": log, "exit_code": 1}),
        )
        .outcome();
        assert!(o.test_failed(), "{o:?}");
        assert_eq!(o.printed.as_deref(), Some("AssertionError: -1 != 5"));
        let long = format!("AssertionError: {} != 5", "9".repeat(400));
        let o = call(
            "Bash",
            json!({"command": "python3 -m unittest"}),
            json!({"stdout": log.replace("-1", &long["AssertionError: ".len()..long.len() - 5]), "exit_code": 1}),
        )
        .outcome();
        let printed = o.printed.expect("a printed line");
        assert_eq!(printed.chars().count(), PRINTED_CHARS + 1, "{printed}");
        assert!(printed.starts_with("AssertionError: 999") && printed.ends_with('…'));
    }

    #[test]
    fn failures_and_their_errors_from_each_harness_shape() {
        let cases = [
            // Claude Code's PostToolUseFailure: the error text, with the exit code.
            (
                json!("Error: Exit code 2\nssh: connect to host build port 22: Connection refused"),
                Some(2),
            ),
            (
                json!({"stdout": "", "stderr": "make: *** No rule to make target 'al'.  Stop.", "exit_code": 2}),
                Some(2),
            ),
            (
                json!({"llmContent": "", "error": {"message": "command failed: no such file"}}),
                None,
            ),
            (
                json!({"resultType": "failure", "textResultForLlm": "fatal: not a git repository"}),
                None,
            ),
        ];
        for (response, code) in cases {
            let mut c = call("Bash", json!({"command": "make all"}), response.clone());
            c.failed = matches!(response, Value::String(_));
            let o = c.outcome();
            assert!(o.failed, "{response}");
            assert_eq!(o.code, code, "{response}");
            assert!(o.error.is_some(), "{response}");
            assert!(o.test.is_none());
        }
        let ok = call(
            "Bash",
            json!({"command": "ls"}),
            json!({"stdout": "", "stderr": ""}),
        );
        let o = ok.outcome();
        assert!(!o.failed && o.test.is_none() && o.error.is_none(), "{o:?}");
    }

    #[test]
    fn edits_from_every_harness() {
        let claude = call(
            "Edit",
            json!({"file_path": "src/wc.py", "old_string": "a", "new_string": "b"}),
            json!({}),
        );
        assert_eq!(
            claude.edits(),
            [FileEdit::Replace {
                path: "src/wc.py".into(),
                removed: "a".into(),
                added: "b".into()
            }]
        );
        let copilot = call(
            "edit",
            json!({"path": "x.rs", "old_str": "1", "new_str": "2"}),
            json!({}),
        );
        assert_eq!(copilot.edits()[0].path(), "x.rs");
        let write = call(
            "Write",
            json!({"file_path": "n.txt", "content": "new\n"}),
            json!({"type": "update", "originalFile": "old\n"}),
        );
        assert_eq!(write.edits()[0].lines(), (vec!["old"], vec!["new"]));
        let codex = call(
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Update File: src/wc.py\n@@\n-    return n\n+    return n + 1\n*** Add File: t.py\n+x = 1\n*** End Patch\n"}),
            json!("Success"),
        );
        assert_eq!(codex.kind(), Kind::Edit);
        let edits = codex.edits();
        assert_eq!(edits.len(), 2);
        assert_eq!(
            edits[0].lines(),
            (vec!["    return n"], vec!["    return n + 1"])
        );
        assert_eq!(codex.summary(), "apply_patch: src/wc.py");
    }
}
