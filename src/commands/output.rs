//! Where output goes: data on stdout ([`print()`], [`print_json`], [`print_untrusted`]),
//! messages on stderr ([`Ui`]).

use std::io::{self, Write};

use anyhow::Result;

/// Writes data to stdout.
pub fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Writes a JSON document to stdout, one line; the characters a terminal would act on are
/// escaped even where JSON allows them raw (`sanitize::json_for_terminal`).
pub fn print_json(doc: &serde_json::Value) -> io::Result<()> {
    print(&crate::sanitize::json_for_terminal(&doc.to_string()))
}

/// Where messages go: stderr, in colour on a terminal unless `NO_COLOR`. Every message
/// goes through `sanitize::terminal` (controls shown, no line a workflow command), so
/// text from outside that reaches one — a name, a commit subject, a value quoted in an
/// error — is shown, never obeyed; loopguard's own colour is added after.
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    color: bool,
}

impl Ui {
    /// Messages in colour (`color`) or plain.
    pub fn new(color: bool) -> Ui {
        Ui { color }
    }

    /// `loopguard: warning: ...` on stderr.
    pub fn warn(&self, message: &str) {
        let label = if self.color {
            "\x1b[33mwarning\x1b[0m"
        } else {
            "warning"
        };
        to_stderr(&format!(
            "loopguard: {label}: {}",
            crate::sanitize::terminal(message)
        ));
    }

    /// A message on stderr.
    pub fn note(&self, message: &str) {
        to_stderr(&crate::sanitize::terminal(message));
    }

    /// A message on stderr whose first `marked` is emphasised in bold red.
    pub fn note_marked(&self, message: &str, marked: &str) {
        let safe = crate::sanitize::terminal(message);
        to_stderr(&safe.replacen(marked, &self.bold_red(marked), 1));
    }

    /// `loopguard: warning: ...`, then `hint: ...` on a line of its own.
    pub fn warn_hint(&self, message: &str, hint: &str) {
        self.warn(&format!("{message}\nhint: {hint}"));
    }

    /// An error as a warning (a hook that fails open): the message with `then` after it,
    /// and its hint on a line of its own.
    pub fn warn_error(&self, err: &anyhow::Error, then: &str) {
        let shown = crate::error::render(err);
        match &shown.hint {
            Some(hint) => self.warn_hint(&format!("{}{then}", shown.message), hint),
            None => self.warn(&format!("{}{then}", shown.message)),
        }
    }

    /// `loopguard: error: ...`, then its `hint: ...` on a line of its own (what `main`
    /// prints for a failed command).
    pub fn error(err: &anyhow::Error) {
        to_stderr(&format!(
            "loopguard: error: {}",
            crate::sanitize::terminal(&crate::error::render(err).to_string())
        ));
    }

    /// Emphasis for stderr.
    pub fn bold_red(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[1;31m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// A line on stderr. A stderr that is closed or full is no reason to stop (`eprintln!`
/// would panic, and a hook that panics exits with neither 0 nor 1): the line is lost.
fn to_stderr(line: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(line.as_bytes());
    let _ = err.write_all(b"\n");
}

/// Prints text that may quote logs or commit messages to stdout, where none of its lines
/// can act as a workflow command (`in_actions`: fenced as GitHub Actions wants).
pub fn print_untrusted(text: &str, in_actions: bool) -> Result<()> {
    let mut out = io::stdout().lock();
    crate::github::actions_io::write_untrusted(&mut out, text, in_actions)?;
    out.flush()?;
    Ok(())
}

/// What a dry run would have written to GitHub, in order (untrusted: titles, paths).
pub fn print_planned_writes(client: &crate::github::GitHubClient, in_actions: bool) -> Result<()> {
    use std::fmt::Write as _;
    let planned = client.planned_writes();
    let mut text = format!(
        "dry run: {} GitHub write(s) planned, none made\n",
        planned.len()
    );
    for w in &planned {
        let _ = writeln!(text, "  {w}");
    }
    print_untrusted(&text, in_actions)
}
