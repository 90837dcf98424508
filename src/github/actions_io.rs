//! The Actions runtime's file and log protocol: step outputs (`GITHUB_OUTPUT`), the step
//! summary (`GITHUB_STEP_SUMMARY`), annotations, and printing untrusted text to the log
//! without letting it issue workflow commands.
//!
//! The formatting is pure; the file functions append, as the runner expects.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::GitHubError;
use crate::sanitize::{Measure, SUMMARY_LIMIT, defuse_workflow_commands, truncate_markdown};

/// The runtime files of the current step, from `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionsFiles {
    pub output: Option<PathBuf>,
    pub summary: Option<PathBuf>,
    /// `GITHUB_ACTIONS=true`: the log is read by the runner.
    pub in_actions: bool,
}

impl ActionsFiles {
    pub fn from_settings(github: &crate::settings::GitHubSettings) -> Self {
        ActionsFiles {
            output: github.output.clone(),
            summary: github.summary.clone(),
            in_actions: github.actions,
        }
    }
}

/// A random token of 32 hex digits.
fn random_token() -> String {
    format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..))
}

/// A heredoc delimiter that does not occur in `value`.
pub fn output_delimiter(value: &str) -> String {
    loop {
        let delimiter = format!("ghadelimiter_{}", random_token());
        if !value.contains(&delimiter) {
            return delimiter;
        }
    }
}

/// Output names the runner accepts.
fn valid_output_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One `GITHUB_OUTPUT` entry: `name<<DELIMITER\nvalue\nDELIMITER\n`, safe for any value.
pub fn format_output(name: &str, value: &str, delimiter: &str) -> Result<String, GitHubError> {
    if !valid_output_name(name) {
        return Err(GitHubError::BadOutput {
            name: name.to_owned(),
            problem: "its name must be letters, digits, `_` or `-`",
        });
    }
    if value.contains(delimiter) || delimiter.is_empty() {
        return Err(GitHubError::BadOutput {
            name: name.to_owned(),
            problem: "its value contains the delimiter",
        });
    }
    Ok(format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"))
}

/// Appends outputs to the `GITHUB_OUTPUT` file, each with its own random delimiter.
pub fn write_outputs(path: &Path, outputs: &[(&str, &str)]) -> Result<(), GitHubError> {
    let mut text = String::new();
    for (name, value) in outputs {
        text.push_str(&format_output(name, value, &output_delimiter(value))?);
    }
    append(path, "GITHUB_OUTPUT", text.as_bytes())
}

/// Appends markdown to the step summary, keeping the file within GitHub's 1 MiB; `true`
/// when the text had to be cut (or, with no room left, dropped).
pub fn append_summary(path: &Path, markdown: &str) -> Result<bool, GitHubError> {
    let existing = match std::fs::metadata(path) {
        Ok(meta) => usize::try_from(meta.len()).unwrap_or(usize::MAX),
        Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
        Err(source) => {
            return Err(GitHubError::ActionsFile {
                var: "GITHUB_STEP_SUMMARY",
                path: path.to_owned(),
                source,
            });
        }
    };
    let room = SUMMARY_LIMIT.saturating_sub(existing);
    if room < 256 && markdown.len() > room {
        return Ok(true);
    }
    let text = truncate_markdown(markdown, room, Measure::Bytes);
    let cut = text.len() != markdown.len();
    append(path, "GITHUB_STEP_SUMMARY", text.as_bytes())?;
    Ok(cut)
}

fn append(path: &Path, var: &'static str, bytes: &[u8]) -> Result<(), GitHubError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|source| GitHubError::ActionsFile {
            var,
            path: path.to_owned(),
            source,
        })
}

/// Escapes a command's message (the toolkit's `escapeData`).
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property value (the toolkit's `escapeProperty`).
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The severity of an annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotationLevel {
    Error,
    Warning,
    Notice,
}

impl AnnotationLevel {
    fn command(self) -> &'static str {
        match self {
            AnnotationLevel::Error => "error",
            AnnotationLevel::Warning => "warning",
            AnnotationLevel::Notice => "notice",
        }
    }
}

/// Where an annotation points, and its title.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnnotationProps {
    pub title: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// `::error title=…,file=…,line=…::message` with every part escaped.
pub fn annotation(level: AnnotationLevel, props: &AnnotationProps, message: &str) -> String {
    let mut parts = Vec::new();
    if let Some(title) = &props.title {
        parts.push(format!("title={}", escape_property(title)));
    }
    if let Some(file) = &props.file {
        parts.push(format!("file={}", escape_property(file)));
    }
    if let Some(line) = props.line {
        parts.push(format!("line={line}"));
    }
    let props = if parts.is_empty() {
        String::new()
    } else {
        format!(" {}", parts.join(","))
    };
    format!("::{}{props}::{}", level.command(), escape_data(message))
}

/// Writes untrusted text to the log so that none of its lines acts as a workflow command.
/// In Actions the runner is told to ignore commands (`::stop-commands::TOKEN`) until a
/// random token no line of the text contains; elsewhere command-like lines are defused.
pub fn write_untrusted(out: &mut impl Write, text: &str, in_actions: bool) -> io::Result<()> {
    if !in_actions {
        let mut safe = defuse_workflow_commands(text);
        if !safe.ends_with('\n') {
            safe.push('\n');
        }
        return out.write_all(safe.as_bytes());
    }
    let token = loop {
        let token = random_token();
        if !text.contains(&token) {
            break token;
        }
    };
    writeln!(out, "::stop-commands::{token}")?;
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    writeln!(out, "::{token}::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_multiline_safe() {
        let value = "line one\nghadelimiter_x\nEOF\n";
        let delimiter = output_delimiter(value);
        assert!(!value.contains(&delimiter));
        let entry = format_output("reason", value, &delimiter).unwrap();
        assert_eq!(
            entry,
            format!("reason<<{delimiter}\n{value}\n{delimiter}\n")
        );
        assert!(format_output("bad name", "v", "D").is_err());
        assert!(format_output("x", "has D in it", "D").is_err());
    }

    #[test]
    fn escaping_follows_the_toolkit() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        let line = annotation(
            AnnotationLevel::Error,
            &AnnotationProps {
                title: Some("loopguard: same_error, tripped".into()),
                file: None,
                line: None,
            },
            "3 iterations\nsame failure",
        );
        assert_eq!(
            line,
            "::error title=loopguard%3A same_error%2C tripped::3 iterations%0Asame failure"
        );
        let line = annotation(
            AnnotationLevel::Warning,
            &AnnotationProps {
                title: None,
                file: Some("src/a,b.rs".into()),
                line: Some(4),
            },
            "x",
        );
        assert_eq!(line, "::warning file=src/a%2Cb.rs,line=4::x");
    }

    #[test]
    fn untrusted_text_is_fenced_by_stop_commands() {
        let text = "ok\n::add-mask::x\n::error::fake";
        let mut out = Vec::new();
        write_untrusted(&mut out, text, true).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        let token = lines[0].strip_prefix("::stop-commands::").unwrap();
        assert_eq!(token.len(), 32);
        assert_eq!(lines[1..4], ["ok", "::add-mask::x", "::error::fake"]);
        assert_eq!(lines[4], format!("::{token}::"));

        let mut out = Vec::new();
        write_untrusted(&mut out, text, false).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.lines().all(|l| !l.starts_with("::")), "{out}");
    }

    #[test]
    fn files_append_and_summary_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("output");
        write_outputs(&output, &[("tripped", "true"), ("reason", "a\nb")]).unwrap();
        write_outputs(&output, &[("rule", "same_error")]).unwrap();
        let text = std::fs::read_to_string(&output).unwrap();
        assert!(text.starts_with("tripped<<ghadelimiter_"), "{text}");
        assert!(text.contains("\na\nb\nghadelimiter_"), "{text}");
        assert!(text.contains("rule<<ghadelimiter_"), "{text}");

        let summary = dir.path().join("summary");
        assert!(!append_summary(&summary, "## loopguard\n").unwrap());
        let big = "row\n".repeat(SUMMARY_LIMIT / 2);
        assert!(append_summary(&summary, &big).unwrap());
        assert!(std::fs::metadata(&summary).unwrap().len() <= SUMMARY_LIMIT as u64);
        assert!(
            append_summary(&summary, &big).unwrap(),
            "no room left: dropped"
        );
        assert!(std::fs::metadata(&summary).unwrap().len() <= SUMMARY_LIMIT as u64);
    }
}
