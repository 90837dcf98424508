//! The ambient environment, read once at start-up into a value that is passed down: the
//! variables loopguard reads (`GITHUB_*`, `RUNNER_*`, `LOOPGUARD_*`, `CI`, `NO_COLOR`,
//! `GIT_REFLOG_ACTION`, `PRE_COMMIT_*`), whether stdin, stdout and stderr are terminals, the
//! working directory. Nothing below `main` reads the process environment itself.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use jiff::Timestamp;

/// Variable prefixes and names captured.
const PREFIXES: &[&str] = &["GITHUB_", "RUNNER_", "LOOPGUARD_", "PRE_COMMIT_"];
const NAMES: &[&str] = &[
    "CI",
    "NO_COLOR",
    "GIT_REFLOG_ACTION",
    "DISPLAY",
    "WAYLAND_DISPLAY",
];

/// The hooks' default deadline, in seconds (as long as the store lock's default wait, so a
/// hook queued behind others gives up on the lock before it is stopped).
pub const HOOK_TIMEOUT_SECS: u64 = 10;

#[derive(Clone)]
pub struct Env {
    vars: BTreeMap<String, String>,
    pub stdin_tty: bool,
    /// A person reads stdout: `report` prints text there instead of markdown.
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    pub cwd: PathBuf,
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tokens never reach a debug print.
        let shown: BTreeMap<&str, &str> = self
            .vars
            .iter()
            .map(|(k, v)| {
                let secret = k.contains("TOKEN") || k.contains("SECRET");
                (k.as_str(), if secret { "***" } else { v.as_str() })
            })
            .collect();
        f.debug_struct("Env")
            .field("vars", &shown)
            .field("stdin_tty", &self.stdin_tty)
            .field("stdout_tty", &self.stdout_tty)
            .field("stderr_tty", &self.stderr_tty)
            .field("cwd", &self.cwd)
            .finish()
    }
}

impl Env {
    /// Reads the process environment (the only place that does).
    pub fn capture() -> std::io::Result<Env> {
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| {
                PREFIXES.iter().any(|p| k.starts_with(p)) || NAMES.contains(&k.as_str())
            })
            .collect();
        Ok(Env {
            vars,
            stdin_tty: std::io::stdin().is_terminal(),
            stdout_tty: std::io::stdout().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
            cwd: std::env::current_dir()?,
        })
    }

    /// An environment made of these variables (tests, and `-C`).
    pub fn from_vars<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>, cwd: PathBuf) -> Env {
        Env {
            vars: vars
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            stdin_tty: false,
            stdout_tty: false,
            stderr_tty: false,
            cwd,
        }
    }

    /// A variable, when set and not empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The variables as a lookup function (what the GitHub readers take).
    pub fn lookup(&self) -> impl Fn(&str) -> Option<String> + '_ {
        |name| self.vars.get(name).cloned()
    }

    /// Running inside a GitHub Actions job.
    pub fn in_actions(&self) -> bool {
        self.var("GITHUB_ACTIONS") == Some("true")
    }

    /// Colour on stderr: a terminal, and `NO_COLOR` unset.
    pub fn color(&self) -> bool {
        self.stderr_tty && self.var("NO_COLOR").is_none()
    }

    /// A person at the keyboard (and not CI): the interactive prompt may ask.
    pub fn interactive(&self) -> bool {
        self.stdin_tty
            && self.stderr_tty
            && !self.vars.contains_key("CI")
            && !self.vars.contains_key("LOOPGUARD_NO_PROMPT")
    }

    /// The time: the clock, or `LOOPGUARD_NOW` (RFC 3339) for reproducible runs and tests.
    pub fn now(&self) -> Timestamp {
        self.var("LOOPGUARD_NOW")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(Timestamp::now)
    }

    /// How long work runs before its progress bar appears (`LOOPGUARD_PROGRESS_DELAY_MS`,
    /// default one second).
    pub fn progress_delay(&self) -> Duration {
        self.var("LOOPGUARD_PROGRESS_DELAY_MS")
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(1), Duration::from_millis)
    }

    /// How long a hook may take before it gives up and lets git go on
    /// (`LOOPGUARD_HOOK_TIMEOUT`, whole seconds; `0` for no limit; default
    /// [`HOOK_TIMEOUT_SECS`]). The shim enforces the same limit from outside.
    pub fn hook_timeout(&self) -> Option<Duration> {
        match self.var("LOOPGUARD_HOOK_TIMEOUT").map(str::parse::<u64>) {
            Some(Ok(0)) => None,
            Some(Ok(secs)) => Some(Duration::from_secs(secs)),
            _ => Some(Duration::from_secs(HOOK_TIMEOUT_SECS)),
        }
    }

    /// How long a hook waits for another loopguard holding the store.
    pub fn lock_timeout(&self) -> Duration {
        self.var("LOOPGUARD_LOCK_TIMEOUT_MS")
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(10), Duration::from_millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_never_show_in_debug() {
        let env = Env::from_vars(
            [("GITHUB_TOKEN", "ghs_secret"), ("GITHUB_ACTIONS", "true")],
            PathBuf::from("/"),
        );
        let shown = format!("{env:?}");
        assert!(!shown.contains("ghs_secret"), "{shown}");
        assert!(env.in_actions());
        assert_eq!(env.var("GITHUB_TOKEN"), Some("ghs_secret"));
    }

    #[test]
    fn time_and_timeouts() {
        let env = Env::from_vars(
            [
                ("LOOPGUARD_NOW", "2026-11-25T10:00:00Z"),
                ("LOOPGUARD_LOCK_TIMEOUT_MS", "250"),
            ],
            PathBuf::from("/"),
        );
        assert_eq!(env.now().to_string(), "2026-11-25T10:00:00Z");
        assert_eq!(env.lock_timeout(), Duration::from_millis(250));
        assert!(!env.interactive());
        assert_eq!(
            env.hook_timeout(),
            Some(Duration::from_secs(HOOK_TIMEOUT_SECS))
        );
        let env = |v| Env::from_vars([("LOOPGUARD_HOOK_TIMEOUT", v)], PathBuf::from("/"));
        assert_eq!(env("3").hook_timeout(), Some(Duration::from_secs(3)));
        assert_eq!(env("0").hook_timeout(), None);
        assert_eq!(
            env("soon").hook_timeout(),
            Some(Duration::from_secs(HOOK_TIMEOUT_SECS))
        );
    }
}
