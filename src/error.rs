//! Errors that reach the user: one type per area, each variant with the fields that say
//! what went wrong and a hint that says what to do, and the two places that turn them into
//! what the user sees — [`render`] (the message, then the hint on a line of its own) and
//! [`exit_code_of`] (docs/contract.md, "Exit codes": user input 2, environment 3).
//!
//! | area | type |
//! |---|---|
//! | the config | [`ConfigError`] (its text, core), [`ConfigFileError`] (the file) |
//! | iteration records | [`RecordError`] (core) |
//! | the Actions trigger | [`EventError`] (core) |
//! | the store | [`StoreError`] |
//! | git | [`GitError`] |
//! | GitHub | [`GitHubError`] (its transport failures as variants) |
//! | hooks: installing them, git's input | [`HookError`] |
//! | the coding agents' hook configs | [`AgentConfigError`] |
//! | the environment | [`SettingsError`] |
//! | arguments and the files they name | [`InputError`] |
//!
//! Commands return `anyhow::Result` and add context at the edges; the first error of a
//! known type in the chain decides the exit code and gives the hint. Every variant is
//! classified below by name, with no default arm: a new one does not compile until its
//! exit code is decided. Nothing here, or anywhere, reads an error's text.

use std::path::PathBuf;

pub use loopguard_core::error::{ConfigError, EventError, RecordError};

pub use crate::agents_config::AgentConfigError;
pub use crate::config_file::ConfigFileError;
pub use crate::git::GitError;
pub use crate::github::GitHubError;
pub use crate::hooks::HookError;
pub use crate::settings::SettingsError;
pub use crate::store::StoreError;

/// Exit codes, as documented in docs/contract.md.
pub mod exit {
    /// Done; the breaker is closed or half-open.
    pub const OK: u8 = 0;
    /// The breaker is open (gating commands).
    pub const TRIPPED: u8 = 1;
    /// Bad usage, invalid configuration, unreadable or invalid input.
    pub const USAGE: u8 = 2;
    /// Environment failure: not a git repository, git or I/O failure, GitHub API failure.
    pub const ENV: u8 = 3;
    /// `run -- CMD`: the iteration tripped the breaker (no ordinary test runner uses it).
    pub const RUN_TRIPPED: u8 = 86;
}

/// What the command line asked for that cannot be done: an argument, or a file it names.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A file named on the command line is not there.
    #[error("{}: no such file", path.display())]
    NoSuchFile { path: PathBuf, hint: &'static str },
    /// A directory where a file was expected.
    #[error("{}: is a directory", path.display())]
    IsADirectory { path: PathBuf },
    /// A file named on the command line cannot be read.
    #[error("{}: cannot read", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A glob that does not parse.
    #[error("{pattern}: invalid glob: {reason}")]
    BadGlob { pattern: String, reason: String },
    /// `--edge` is not an edge name.
    #[error("--edge `{edge}`: not an edge name")]
    BadEdge { edge: String },
    /// `--cost` is negative, or not a number.
    #[error("--cost {cost}: not a number >= 0")]
    BadCost { cost: f64 },
    /// There is no commit to work on yet.
    #[error("{what} has no commits yet")]
    NoCommits {
        what: &'static str,
        hint: &'static str,
    },
    /// `check --windows`: the first-parent history is shorter than one window.
    #[error(
        "--windows: the history before HEAD has fewer than {size} commits to judge (with `agents`: of the agent's)"
    )]
    TooLittleHistory { size: usize },
    /// The test command cannot be started.
    #[error("cannot run `{command}`")]
    CannotRun {
        command: String,
        #[source]
        source: std::io::Error,
    },
    /// `--session` names no session of this repository.
    #[error("no session `{id}` in this repository")]
    NoSuchSession { id: String },
    /// `--session` is the start of several sessions' ids.
    #[error("`{id}` names {count} sessions")]
    AmbiguousSession { id: String, count: usize },
    /// `replay` of a transcript with a line that is not what the agent writes.
    #[error("{name}:{line}: {why}")]
    BadTranscript {
        name: String,
        line: usize,
        why: String,
    },
    /// `init` in a bare repository: no working tree, no agent commits from it.
    #[error("{} is a bare repository: it has no working tree for an agent to work in", path.display())]
    BareRepository { path: PathBuf },
    /// The breaker is not where the command takes it from.
    #[error(transparent)]
    Breaker(#[from] loopguard_core::breaker::ResumeError),
    /// A command that relaxes a breaker, run inside a coding agent's tool call.
    #[error(
        "`loopguard {command}` relaxes a breaker, so only a person runs it, and here it runs inside a coding agent: {why}"
    )]
    InsideAgent { command: &'static str, why: String },
}

impl InputError {
    /// A file named on the command line that could not be opened: not there (with `hint`,
    /// what to pass instead), or unreadable.
    pub fn opening(path: PathBuf, source: std::io::Error, hint: &'static str) -> InputError {
        if source.kind() == std::io::ErrorKind::NotFound {
            InputError::NoSuchFile { path, hint }
        } else {
            InputError::Unreadable { path, source }
        }
    }

    /// How to fix it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            InputError::NoSuchFile { hint, .. } | InputError::NoCommits { hint, .. } => Some(hint),
            InputError::IsADirectory { .. } => Some("pass the log or test report files in it"),
            InputError::TooLittleHistory { .. } => Some("pass a smaller --size"),
            InputError::Unreadable { .. } => None,
            InputError::BadGlob { .. } => Some("use `*`, `**`, `?`, `[..]`, `{a,b}`"),
            InputError::BadEdge { .. } => Some(
                "an edge is a name like planner_to_researcher (letters, digits, _ - . : / >, at most 100)",
            ),
            InputError::BadCost { .. } => Some("pass the cost of this step, e.g. --cost 0.02"),
            InputError::CannotRun { .. } => {
                Some("check the command's spelling, and that it is on PATH")
            }
            InputError::BareRepository { .. } => Some(
                "run `loopguard init` in the clone or worktree the agent works in (`git clone` it, or `git worktree add`); nothing was written",
            ),
            InputError::Breaker(_) => Some("`loopguard status` shows the breaker"),
            InputError::NoSuchSession { .. } => Some("`loopguard status` lists the sessions"),
            InputError::AmbiguousSession { .. } => Some("give more of the id"),
            InputError::BadTranscript { .. } => {
                Some("a Claude Code transcript or a Codex rollout, one JSON object per line")
            }
            InputError::InsideAgent { .. } => Some(
                "run it yourself from your own terminal, not through the agent or a program it started",
            ),
        }
    }
}

/// An error of a known area, found in a chain.
#[derive(Debug, Clone, Copy)]
enum Known<'a> {
    Config(&'a ConfigError),
    ConfigFile(&'a ConfigFileError),
    Record(&'a RecordError),
    Event(&'a EventError),
    Store(&'a StoreError),
    Git(&'a GitError),
    GitHub(&'a GitHubError),
    Hook(&'a HookError),
    AgentConfig(&'a AgentConfigError),
    Settings(&'a SettingsError),
    Input(&'a InputError),
}

impl<'a> Known<'a> {
    fn of(e: &'a (dyn std::error::Error + 'static)) -> Option<Known<'a>> {
        None.or_else(|| e.downcast_ref().map(Known::Config))
            .or_else(|| e.downcast_ref().map(Known::ConfigFile))
            .or_else(|| e.downcast_ref().map(Known::Record))
            .or_else(|| e.downcast_ref().map(Known::Event))
            .or_else(|| e.downcast_ref().map(Known::Store))
            .or_else(|| e.downcast_ref().map(Known::Git))
            .or_else(|| e.downcast_ref().map(Known::GitHub))
            .or_else(|| e.downcast_ref().map(Known::Hook))
            .or_else(|| e.downcast_ref().map(Known::AgentConfig))
            .or_else(|| e.downcast_ref().map(Known::Settings))
            .or_else(|| e.downcast_ref().map(Known::Input))
    }

    /// The first known error in the chain (outermost first).
    fn find(err: &'a anyhow::Error) -> Option<Known<'a>> {
        err.chain().find_map(Known::of)
    }

    fn hint(self) -> Option<String> {
        match self {
            Known::Config(e) => e.hint().map(str::to_owned),
            Known::ConfigFile(e) => e.hint(),
            Known::Record(e) => Some(e.hint().to_owned()),
            Known::Event(e) => e.hint().map(str::to_owned),
            Known::Store(e) => e.hint().map(str::to_owned),
            Known::Git(e) => e.hint().map(str::to_owned),
            Known::GitHub(e) => e.hint(),
            Known::Hook(e) => e.hint(),
            Known::AgentConfig(e) => e.hint().map(str::to_owned),
            Known::Settings(e) => Some(e.hint().to_owned()),
            Known::Input(e) => e.hint().map(str::to_owned),
        }
    }

    /// The one place exit codes are decided.
    fn exit_code(self) -> u8 {
        use exit::{ENV, USAGE};
        match self {
            Known::Config(_) | Known::Record(_) | Known::Event(_) | Known::Settings(_) => USAGE,
            Known::Input(_) => USAGE,
            Known::ConfigFile(e) => match e {
                ConfigFileError::Invalid(_)
                | ConfigFileError::Refused { .. }
                | ConfigFileError::NoSuchFile { .. }
                | ConfigFileError::NotInBase { .. }
                | ConfigFileError::NowhereToBeFound { .. }
                | ConfigFileError::Pinned { .. }
                | ConfigFileError::Exists { .. } => USAGE,
                ConfigFileError::Unreadable { .. } => ENV,
            },
            Known::Store(e) => match e {
                StoreError::Unusable { .. } => USAGE,
                StoreError::Locked { .. } | StoreError::Io { .. } | StoreError::Vanished => ENV,
            },
            Known::Git(e) => match e {
                // A repository format loopguard cannot read is the user's to change (one
                // command moves the refs back), as a hooks directory in the working tree
                // is (`HookError::InWorkTree`): nothing in the environment failed.
                GitError::BadRevision { .. }
                | GitError::TooLarge { .. }
                | GitError::RefFormat { .. }
                | GitError::CannotOpen { .. } => USAGE,
                GitError::NotARepository { .. }
                | GitError::TooManyCommits { .. }
                | GitError::Other { .. }
                | GitError::CannotRun { .. }
                | GitError::Failed { .. } => ENV,
            },
            Known::GitHub(e) => match e {
                GitHubError::Unauthorized { .. }
                | GitHubError::Forbidden { .. }
                | GitHubError::NotAFile { .. }
                | GitHubError::EventFile { .. }
                | GitHubError::Event(_) => USAGE,
                GitHubError::Timeout { .. }
                | GitHubError::RunDeadline { .. }
                | GitHubError::Connection { .. }
                | GitHubError::RateLimited { .. }
                | GitHubError::Status { .. }
                | GitHubError::UnexpectedStatus { .. }
                | GitHubError::Payload { .. }
                | GitHubError::TooManyPages { .. }
                | GitHubError::BadLink { .. }
                | GitHubError::Download { .. }
                | GitHubError::BadContent { .. }
                | GitHubError::Sticky { .. }
                | GitHubError::ActionsFile { .. }
                | GitHubError::BadOutput { .. } => ENV,
            },
            Known::AgentConfig(e) => match e {
                AgentConfigError::NotAnObject { .. }
                | AgentConfigError::NotJson { .. }
                | AgentConfigError::WrongType { .. } => USAGE,
                AgentConfigError::Read { .. } | AgentConfigError::Write { .. } => ENV,
            },
            Known::Hook(e) => match e {
                HookError::InWorkTree { .. } => USAGE,
                HookError::Install { .. }
                | HookError::Uninstall { .. }
                | HookError::InputLost { .. } => ENV,
            },
        }
    }
}

/// The exit code of one error of a known area (its causes not looked at).
pub fn exit_code_of_one(e: &(dyn std::error::Error + 'static)) -> u8 {
    Known::of(e).map_or(exit::ENV, Known::exit_code)
}

/// The exit code for any error chain: the first error in it of a known area decides;
/// anything else (an I/O error, say) is an environment failure.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    Known::find(err).map_or(exit::ENV, Known::exit_code)
}

/// What the user is told: the message (the chain, outermost first) and the hint of the
/// first error in it that has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub message: String,
    pub hint: Option<String>,
}

impl std::fmt::Display for Rendered {
    /// The message, then `hint: …` on a line of its own.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

/// The one renderer of errors (`main`, and the hooks' fail-open warnings).
pub fn render(err: &anyhow::Error) -> Rendered {
    Rendered {
        message: format!("{err:#}"),
        hint: err.chain().filter_map(Known::of).find_map(Known::hint),
    }
}

/// Whether the chain holds a closed pipe (`loopguard report | head`): not an error.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_is_on_a_line_of_its_own_and_the_code_follows_the_variant() {
        let err = anyhow::Error::from(GitError::bad_rev("nope", "not found"))
            .context("cannot judge the range");
        let shown = render(&err).to_string();
        let (message, hint) = shown.split_once('\n').unwrap();
        assert_eq!(
            message,
            "cannot judge the range: bad revision `nope`: not found"
        );
        assert!(hint.starts_with("hint: give a commit"), "{hint}");
        assert_eq!(exit_code_of(&err), exit::USAGE);

        let io = anyhow::Error::from(std::io::Error::other("disk on fire"));
        assert_eq!(render(&io).hint, None);
        assert_eq!(exit_code_of(&io), exit::ENV);
    }
}
