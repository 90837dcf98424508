//! The environment, read once at start-up into typed settings that are passed down:
//! durations, flags, the terminals, the clock, the GitHub context, and — apart, in
//! [`Knobs`] — the test and tuning knobs. Nothing below `main` reads the process environment or the clock
//! itself: the variables are captured here ([`Settings::capture`]), and the time is
//! [`Clock::now`] (or [`wall_clock`] where a server's clock is what counts).
//!
//! A value that does not parse is a [`SettingsError`] naming the variable and the fix
//! (exit 2), never silently the default; `commands::run` decides what to do with them
//! (a hook warns and goes on with the defaults: a bad variable must not switch a gate
//! off). The GitHub client's settings are parsed here too, and their errors surface only
//! in the commands that talk to GitHub ([`GitHubSettings::client`]).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use http::Uri;
use jiff::Timestamp;

use loopguard_core::github::event::ActionsVars;
use loopguard_core::github::seal::StateKey;
use loopguard_core::github::types::RepoId;

/// Variable prefixes and names captured.
const PREFIXES: &[&str] = &["GITHUB_", "RUNNER_", "LOOPGUARD_", "PRE_COMMIT_"];
const NAMES: &[&str] = &[
    "CI",
    "NO_COLOR",
    "GIT_REFLOG_ACTION",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "PATH",
];

/// The hooks' default deadline, in seconds (as long as the store lock's default wait, so a
/// hook queued behind others gives up on the lock before it is stopped).
pub const HOOK_TIMEOUT_SECS: u64 = 10;
/// How long a writer waits for the store's lock by default.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(10);
/// How long work runs before its progress bar shows by default.
pub const PROGRESS_DELAY: Duration = Duration::from_secs(1);
/// Longest one attempt of a GitHub request may take by default.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(30);
/// Longest all of a run's GitHub requests and waits may take together by default.
pub const RUN_DEADLINE: Duration = Duration::from_secs(600);
/// The variable that sets the run's deadline.
pub const RUN_DEADLINE_ENV: &str = "LOOPGUARD_CI_DEADLINE";
/// The variable that sets the deadline of each attempt.
pub const REQUEST_DEADLINE_ENV: &str = "LOOPGUARD_GITHUB_REQUEST_DEADLINE";

/// The GitHub API's root when `GITHUB_API_URL` is unset (github.com).
pub const DEFAULT_API_URL: &str = "https://api.github.com";
/// GitHub's web root when `GITHUB_SERVER_URL` is unset (github.com).
pub const DEFAULT_SERVER_URL: &str = "https://github.com";

/// The API token (`GITHUB_TOKEN`). It is only ever sent to the API host, never to a
/// redirect target (`crate::github`); it has no `Display`, its `Debug` is redacted, and
/// error messages are scrubbed of it.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// Trims surrounding whitespace (secrets read from files end in a newline) and refuses
    /// characters that cannot be in a header, without echoing the value.
    pub fn new(raw: &str) -> Result<Self, SettingsError> {
        let token = raw.trim();
        if token.is_empty() {
            return Err(SettingsError::Secret {
                name: "GITHUB_TOKEN",
                problem: "is empty",
                fix: "set it from the action's `token` input (default `${{ github.token }}`)",
            });
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(SettingsError::Secret {
                name: "GITHUB_TOKEN",
                problem: "holds characters a token cannot have (inner whitespace or non-ASCII)",
                fix: "check the `token` input",
            });
        }
        Ok(Token(token.to_owned()))
    }

    /// The secret itself: for the GitHub client's `Authorization` header and the scrubber
    /// of its errors, nothing else.
    pub(crate) fn secret(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

/// A variable that does not hold what loopguard reads from it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// Set, but not a value of its kind (`value` is shown bounded; never a secret's).
    #[error("{name}=`{value}`: {problem}")]
    Invalid {
        name: &'static str,
        value: String,
        problem: String,
        fix: String,
    },
    /// A secret that cannot be one (its value is never shown).
    #[error("{name} {problem}")]
    Secret {
        name: &'static str,
        problem: &'static str,
        fix: &'static str,
    },
    /// Not set, where the command needs it.
    #[error("{name} is not set")]
    Unset {
        name: &'static str,
        fix: &'static str,
    },
}

impl SettingsError {
    /// How to fix it.
    pub fn hint(&self) -> &str {
        match self {
            SettingsError::Invalid { fix, .. } => fix,
            SettingsError::Secret { fix, .. } | SettingsError::Unset { fix, .. } => fix,
        }
    }

    /// The variable it is about.
    pub fn variable(&self) -> &'static str {
        match self {
            SettingsError::Invalid { name, .. }
            | SettingsError::Secret { name, .. }
            | SettingsError::Unset { name, .. } => name,
        }
    }

    fn invalid(name: &'static str, value: &str, problem: impl Into<String>, fix: String) -> Self {
        // The value is shown, bounded: it may be long, and it is quoted back as it is.
        let mut shown: String = value.chars().take(80).collect();
        if shown.len() < value.len() {
            shown.push('…');
        }
        SettingsError::Invalid {
            name,
            value: shown,
            problem: problem.into(),
            fix,
        }
    }
}

/// Where "now" comes from: the system clock, or a fixed time ([`Knobs::now`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    System,
    Fixed(Timestamp),
}

impl Clock {
    /// The time loopguard judges by (iterations, cooldowns, events, file tags).
    pub fn now(self) -> Timestamp {
        match self {
            Clock::System => wall_clock(),
            Clock::Fixed(t) => t,
        }
    }
}

/// The system's clock: the one read of it. [`Clock::now`] is the time loopguard judges
/// by; this is for what a server compares with its own clock (GitHub's `since`, its
/// rate-limit resets), which a fixed time must not change.
pub fn wall_clock() -> Timestamp {
    Timestamp::now()
}

/// Test and tuning knobs: not settings a setup relies on. They let the tests fix the
/// clock, crash at a write point, show the progress bar at once, and run GitHub's retry
/// waits in milliseconds. Whether they are honoured at all is decided in one place,
/// [`Knobs::honoured`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Knobs {
    /// `LOOPGUARD_NOW`: an RFC 3339 time to use as "now".
    pub now: Option<Timestamp>,
    /// `LOOPGUARD_FAILPOINT`: a store write point to crash at (see
    /// `Store::with_failpoint`).
    pub failpoint: Option<String>,
    /// `LOOPGUARD_PROGRESS_DELAY_MS`: how long work runs before its progress bar shows.
    pub progress_delay: Option<Duration>,
    /// `LOOPGUARD_GITHUB_TIME_SCALE`: a factor on every GitHub retry wait (`0.001`).
    pub github_time_scale: Option<f64>,
}

/// `LOOPGUARD_HOOK_TIMEOUT` set below [`HOOK_TIMEOUT_SECS`]: a test knob ([`Knobs`]).
pub const HOOK_TIMEOUT_BELOW_DEFAULT: &str = "LOOPGUARD_HOOK_TIMEOUT below 10 seconds";

/// The knobs' variables.
pub const KNOB_VARIABLES: [&str; 4] = [
    "LOOPGUARD_NOW",
    "LOOPGUARD_FAILPOINT",
    "LOOPGUARD_PROGRESS_DELAY_MS",
    "LOOPGUARD_GITHUB_TIME_SCALE",
];

/// How loopguard was started, as far as the knobs care.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Invocation {
    /// By git or a coding agent (`hook`, `agent-hook`): the environment is the agent's.
    pub by_a_hook: bool,
    /// `--test-knobs` on the command line (hidden): the tests' way to ask for the knobs
    /// where the environment alone may not (what `init --test-knobs` writes into the
    /// shims of a test repository, what the tests give `ci`).
    pub test_knobs: bool,
}

/// The kind of build: only a debug build (the tests') has knobs at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    Debug,
    Release,
}

impl Build {
    /// This binary's.
    pub const fn this() -> Build {
        if cfg!(debug_assertions) {
            Build::Debug
        } else {
            Build::Release
        }
    }
}

impl Knobs {
    /// Whether the knobs are read at all: the one place that decides. An agent sets the
    /// environment of what it runs, and of the hooks git runs for it; in CI, a PR's own
    /// steps write `$GITHUB_ENV` for the steps after them. So the knobs are honoured only
    /// in a debug build (a release build — `cargo install`, the wheel, the Action — has
    /// none), and there not in a hook, a coding agent's hook or a GitHub Actions job,
    /// unless the command line asks for them (`--test-knobs`, which no variable can add).
    pub fn honoured(build: Build, github_actions: bool, at: Invocation) -> bool {
        match build {
            Build::Release => false,
            Build::Debug => at.test_knobs || !(at.by_a_hook || github_actions),
        }
    }

    fn read(
        vars: &Vars,
        at: Invocation,
        problems: &mut Vec<SettingsError>,
    ) -> (Knobs, Vec<&'static str>) {
        let set: Vec<&'static str> = KNOB_VARIABLES
            .into_iter()
            .filter(|name| vars.get(name).is_some())
            .collect();
        let actions = vars.get("GITHUB_ACTIONS") == Some("true");
        if !Knobs::honoured(Build::this(), actions, at) {
            return (Knobs::default(), set);
        }
        let knobs = Knobs {
            now: vars.parse(
                "LOOPGUARD_NOW",
                problems,
                "is not an RFC 3339 time",
                "write a time such as 2026-11-25T10:00:00Z, or unset it",
                |v| v.parse::<Timestamp>().ok(),
            ),
            failpoint: vars.get("LOOPGUARD_FAILPOINT").map(str::to_owned),
            progress_delay: vars.millis("LOOPGUARD_PROGRESS_DELAY_MS", problems),
            github_time_scale: vars.parse(
                "LOOPGUARD_GITHUB_TIME_SCALE",
                problems,
                "is not a number >= 0",
                "write a factor such as 0.001, or unset it",
                |v| v.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0),
            ),
        };
        (knobs, Vec::new())
    }
}

/// What the GitHub client is configured with (`ci`, `dashboard`).
#[derive(Debug, Clone)]
pub struct ClientSettings {
    pub api_url: String,
    pub server_url: String,
    pub token: Option<Token>,
    pub repo: Option<RepoId>,
    pub run_deadline: Duration,
    pub request_deadline: Duration,
}

/// The GitHub Actions context of the job, when there is one.
#[derive(Debug, Clone)]
pub struct GitHubSettings {
    /// `GITHUB_ACTIONS=true`: inside a job, whose log the runner reads.
    pub actions: bool,
    /// The trigger's variables (`GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`, `GITHUB_SHA`, …).
    pub vars: ActionsVars,
    /// `GITHUB_OUTPUT`.
    pub output: Option<PathBuf>,
    /// `GITHUB_STEP_SUMMARY`.
    pub summary: Option<PathBuf>,
    client: Result<ClientSettings, SettingsError>,
    /// `LOOPGUARD_STATE_KEY`: the key that seals the state in loopguard's comment.
    state_key: Result<Option<StateKey>, SettingsError>,
}

impl GitHubSettings {
    /// The client's settings, or the first variable among them that is wrong.
    pub fn client(&self) -> Result<&ClientSettings, SettingsError> {
        self.client.as_ref().map_err(Clone::clone)
    }

    /// The key that seals the state in loopguard's comment (`LOOPGUARD_STATE_KEY`; unset
    /// or empty: none), or why it cannot be one.
    pub fn state_key(&self) -> Result<Option<&StateKey>, SettingsError> {
        self.state_key
            .as_ref()
            .map(Option::as_ref)
            .map_err(Clone::clone)
    }

    fn read(vars: &Vars) -> GitHubSettings {
        GitHubSettings {
            actions: vars.get("GITHUB_ACTIONS") == Some("true"),
            vars: ActionsVars::from_lookup(|name| vars.get(name).map(str::to_owned)),
            output: vars.get("GITHUB_OUTPUT").map(PathBuf::from),
            summary: vars.get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            client: client_settings(vars),
            state_key: StateKey::from_text(vars.raw("LOOPGUARD_STATE_KEY").unwrap_or(""))
                .map_err(|_| SettingsError::Secret {
                    name: "LOOPGUARD_STATE_KEY",
                    problem: "is shorter than 32 characters",
                    fix: "make a key with `openssl rand -hex 32` and keep it in an environment secret only loopguard's own workflows get (docs/contract.md, \"Signing the state\")",
                }),
        }
    }
}

fn client_settings(vars: &Vars) -> Result<ClientSettings, SettingsError> {
    let api_url = vars.trimmed("GITHUB_API_URL").unwrap_or(DEFAULT_API_URL);
    let server_url = vars
        .trimmed("GITHUB_SERVER_URL")
        .unwrap_or(DEFAULT_SERVER_URL);
    parse_http_url("GITHUB_API_URL", api_url)?;
    parse_http_url("GITHUB_SERVER_URL", server_url)?;
    let token = vars.raw("GITHUB_TOKEN").map(Token::new).transpose()?;
    let repo = match vars.trimmed("GITHUB_REPOSITORY") {
        Some(text) => Some(text.parse::<RepoId>().map_err(|e| {
            SettingsError::invalid(
                "GITHUB_REPOSITORY",
                text,
                e.to_string(),
                "set it to `owner/name`, or unset it (GitHub Actions sets it)".to_owned(),
            )
        })?),
        None => None,
    };
    Ok(ClientSettings {
        api_url: api_url.to_owned(),
        server_url: server_url.to_owned(),
        token,
        repo,
        run_deadline: deadline(vars, RUN_DEADLINE_ENV, "10m")?.unwrap_or(RUN_DEADLINE),
        request_deadline: deadline(vars, REQUEST_DEADLINE_ENV, "30s")?.unwrap_or(REQUEST_DEADLINE),
    })
}

/// A deadline: a duration such as `90s`, `10m` or `1h`, more than 0.
fn deadline(
    vars: &Vars,
    name: &'static str,
    example: &str,
) -> Result<Option<Duration>, SettingsError> {
    let Some(text) = vars.trimmed(name) else {
        return Ok(None);
    };
    crate::config::parse_duration(text)
        .and_then(|d| {
            Duration::try_from(d)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| "must be more than 0".to_owned())
        })
        .map(Some)
        .map_err(|why| {
            SettingsError::invalid(
                name,
                text,
                why,
                format!("write a duration such as {example}, 90s or 1h, or unset it"),
            )
        })
}

/// An http(s) URL with a host, named by its variable in errors.
pub(crate) fn parse_http_url(name: &'static str, url: &str) -> Result<Uri, SettingsError> {
    let fix = || "set it to an http(s) URL such as https://api.github.com, or unset it".to_owned();
    let uri: Uri = url
        .parse()
        .map_err(|_| SettingsError::invalid(name, url, "is not a URL", fix()))?;
    match (uri.scheme_str(), uri.authority()) {
        (Some("http" | "https"), Some(_)) => Ok(uri),
        _ => Err(SettingsError::invalid(
            name,
            url,
            "is not an http(s) URL",
            fix(),
        )),
    }
}

/// Where git finds its config files, as the environment says (git's own variables): what
/// the guard surface (`guard_surface`) reads as git would.
#[derive(Debug, Clone, Default)]
pub struct GitEnv {
    /// `HOME`: `~/.gitconfig`, `~` in config paths.
    pub home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (else `~/.config`): `git/config` there.
    pub xdg_config_home: Option<PathBuf>,
    /// `GIT_CONFIG_GLOBAL`: the global config file instead of the usual two.
    pub config_global: Option<PathBuf>,
    /// `GIT_CONFIG_SYSTEM`: the system config file instead of the installation's.
    pub config_system: Option<PathBuf>,
    /// `GIT_CONFIG_NOSYSTEM` is true: no system config.
    pub no_system: bool,
    /// `PATH`: where the `git` that runs the hooks is (its installation's system config).
    pub path: Option<String>,
}

impl GitEnv {
    fn read(vars: &Vars) -> GitEnv {
        let path = |name: &str| vars.get(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        GitEnv {
            home: path("HOME"),
            xdg_config_home: path("XDG_CONFIG_HOME"),
            config_global: path("GIT_CONFIG_GLOBAL"),
            config_system: path("GIT_CONFIG_SYSTEM"),
            // git's boolean: anything but a false spelling is true.
            no_system: vars.get("GIT_CONFIG_NOSYSTEM").is_some_and(|v| {
                !matches!(
                    v.to_ascii_lowercase().as_str(),
                    "" | "0" | "false" | "no" | "off"
                )
            }),
            path: vars.get("PATH").map(str::to_owned),
        }
    }
}

/// Everything loopguard reads from its environment, parsed.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The working directory.
    pub cwd: PathBuf,
    pub stdin_tty: bool,
    /// A person reads stdout: `report` prints text there instead of markdown.
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    /// `NO_COLOR` is set.
    pub no_color: bool,
    /// `CI` is set (to anything).
    pub ci: bool,
    /// `LOOPGUARD_NO_PROMPT` is set: never ask what to do after a trip.
    pub no_prompt: bool,
    /// `LOOPGUARD_LOCK_TIMEOUT_MS`: how long a writer waits for another.
    pub lock_timeout: Duration,
    /// `LOOPGUARD_HOOK_TIMEOUT` (whole seconds; `0`: `None`, no limit).
    pub hook_timeout: Option<Duration>,
    /// `LOOPGUARD_HOOK_INPUT=lost`: the hook shim could not read git's input.
    pub hook_input_lost: bool,
    /// `GIT_REFLOG_ACTION`: what git says it is doing (`rebase`, `cherry-pick`, …).
    pub reflog_action: Option<String>,
    /// `PRE_COMMIT_LOCAL_BRANCH`: the pushed branch, when the pre-commit framework runs
    /// the pre-push hook.
    pub pre_commit_local_branch: Option<String>,
    /// `DISPLAY` or `WAYLAND_DISPLAY` is set: a desktop may show notifications.
    pub display: bool,
    pub github: GitHubSettings,
    /// Where "now" comes from (`LOOPGUARD_NOW` fixes it).
    pub clock: Clock,
    pub knobs: Knobs,
    /// The knobs' variables that are set and not honoured here ([`Knobs::honoured`]).
    pub ignored_knobs: Vec<&'static str>,
    /// How loopguard was started.
    pub invocation: Invocation,
    /// Where git finds its config files.
    pub git: GitEnv,
    /// Where this user's state goes (`XDG_STATE_HOME` when absolute, else
    /// `$HOME/.local/state`): the coding agents' sessions, out of reach of a search of the
    /// repository. `None` without either.
    pub state_home: Option<PathBuf>,
}

/// `XDG_STATE_HOME` when it is absolute (the XDG spec ignores a relative one), else
/// `$HOME/.local/state`.
fn state_home(vars: &Vars) -> Option<PathBuf> {
    let absolute = |v: &str| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    vars.get("XDG_STATE_HOME").and_then(absolute).or_else(|| {
        vars.get("HOME")
            .and_then(absolute)
            .map(|h| h.join(".local/state"))
    })
}

impl Settings {
    /// Reads the process environment (the only place that does), the terminals and the
    /// working directory. Values that do not parse are returned beside the settings,
    /// which hold the defaults for them.
    pub fn capture(at: Invocation) -> std::io::Result<(Settings, Vec<SettingsError>)> {
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| {
                PREFIXES.iter().any(|p| k.starts_with(p)) || NAMES.contains(&k.as_str())
            })
            .collect();
        let (mut settings, problems) = Settings::read(Vars(vars), std::env::current_dir()?, at);
        settings.stdin_tty = std::io::stdin().is_terminal();
        settings.stdout_tty = std::io::stdout().is_terminal();
        settings.stderr_tty = std::io::stderr().is_terminal();
        Ok((settings, problems))
    }

    /// Settings made of these variables, no terminal (tests).
    pub fn from_vars<'a>(
        vars: impl IntoIterator<Item = (&'a str, &'a str)>,
        cwd: PathBuf,
    ) -> (Settings, Vec<SettingsError>) {
        let vars = vars
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        Settings::read(Vars(vars), cwd, Invocation::default())
    }

    fn read(vars: Vars, cwd: PathBuf, at: Invocation) -> (Settings, Vec<SettingsError>) {
        let mut problems = Vec::new();
        let (knobs, mut ignored_knobs) = Knobs::read(&vars, at, &mut problems);
        let actions = vars.get("GITHUB_ACTIONS") == Some("true");
        let default = Duration::from_secs(HOOK_TIMEOUT_SECS);
        let hook_timeout = match vars.seconds("LOOPGUARD_HOOK_TIMEOUT", &mut problems) {
            Some(d) if d.is_zero() => None,
            // Shorter than the default, every hook would fail open at will (a commit that
            // takes a second to record is easy to make): a test knob.
            Some(d) if d < default && !Knobs::honoured(Build::this(), actions, at) => {
                ignored_knobs.push(HOOK_TIMEOUT_BELOW_DEFAULT);
                Some(default)
            }
            Some(d) => Some(d),
            None => Some(default),
        };
        let settings = Settings {
            cwd,
            stdin_tty: false,
            stdout_tty: false,
            stderr_tty: false,
            no_color: vars.get("NO_COLOR").is_some(),
            ci: vars.0.contains_key("CI"),
            no_prompt: vars.0.contains_key("LOOPGUARD_NO_PROMPT"),
            lock_timeout: vars
                .millis("LOOPGUARD_LOCK_TIMEOUT_MS", &mut problems)
                .unwrap_or(LOCK_TIMEOUT),
            hook_timeout,
            hook_input_lost: vars.get("LOOPGUARD_HOOK_INPUT") == Some("lost"),
            reflog_action: vars.get("GIT_REFLOG_ACTION").map(str::to_owned),
            pre_commit_local_branch: vars.get("PRE_COMMIT_LOCAL_BRANCH").map(str::to_owned),
            display: vars.get("DISPLAY").is_some() || vars.get("WAYLAND_DISPLAY").is_some(),
            github: GitHubSettings::read(&vars),
            clock: knobs.now.map_or(Clock::System, Clock::Fixed),
            knobs,
            ignored_knobs,
            invocation: at,
            git: GitEnv::read(&vars),
            state_home: state_home(&vars),
        };
        (settings, problems)
    }

    /// The time loopguard judges by.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Colour on stderr: a terminal, and `NO_COLOR` unset.
    pub fn color(&self) -> bool {
        self.stderr_tty && !self.no_color
    }

    /// A person at the keyboard (and not CI): the interactive prompt may ask.
    pub fn interactive(&self) -> bool {
        self.stdin_tty && self.stderr_tty && !self.ci && !self.no_prompt
    }

    /// How long work runs before its progress bar appears.
    pub fn progress_delay(&self) -> Duration {
        self.knobs.progress_delay.unwrap_or(PROGRESS_DELAY)
    }
}

/// The captured variables. Tokens never reach a debug print.
#[derive(Clone)]
struct Vars(BTreeMap<String, String>);

impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.0.keys().map(String::as_str).collect();
        f.debug_tuple("Vars").field(&names).finish()
    }
}

impl Vars {
    /// A variable, when set and not empty.
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A variable as it is, empty included.
    fn raw(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// A variable, trimmed, when that leaves something.
    fn trimmed(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
    }

    /// A variable parsed by `parse`; a value it refuses is a problem (and `None`).
    fn parse<T>(
        &self,
        name: &'static str,
        problems: &mut Vec<SettingsError>,
        problem: &str,
        fix: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let text = self.trimmed(name)?;
        let parsed = parse(text);
        if parsed.is_none() {
            problems.push(SettingsError::invalid(name, text, problem, fix.to_owned()));
        }
        parsed
    }

    /// Whole milliseconds.
    fn millis(&self, name: &'static str, problems: &mut Vec<SettingsError>) -> Option<Duration> {
        self.parse(
            name,
            problems,
            "is not a whole number of milliseconds",
            "write a number of milliseconds such as 2500, or unset it",
            |v| v.parse::<u64>().ok().map(Duration::from_millis),
        )
    }

    /// Whole seconds.
    fn seconds(&self, name: &'static str, problems: &mut Vec<SettingsError>) -> Option<Duration> {
        self.parse(
            name,
            problems,
            "is not a whole number of seconds",
            "write a number of seconds such as 10 (0 for no limit), or unset it",
            |v| v.parse::<u64>().ok().map(Duration::from_secs),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)]) -> (Settings, Vec<SettingsError>) {
        Settings::from_vars(vars.iter().copied(), PathBuf::from("/"))
    }

    #[test]
    fn tokens_never_show_in_debug() {
        let (settings, problems) =
            read(&[("GITHUB_TOKEN", "ghs_secret"), ("GITHUB_ACTIONS", "true")]);
        assert!(problems.is_empty(), "{problems:?}");
        let shown = format!("{settings:?}");
        assert!(!shown.contains("ghs_secret"), "{shown}");
        assert!(settings.github.actions);
        assert!(settings.github.client().unwrap().token.is_some());
    }

    #[test]
    fn time_and_timeouts() {
        let (s, problems) = read(&[
            ("LOOPGUARD_NOW", "2026-11-25T10:00:00Z"),
            ("LOOPGUARD_LOCK_TIMEOUT_MS", "250"),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(s.now().to_string(), "2026-11-25T10:00:00Z");
        assert_eq!(
            s.clock,
            Clock::Fixed("2026-11-25T10:00:00Z".parse().unwrap())
        );
        assert_eq!(s.lock_timeout, Duration::from_millis(250));
        assert!(!s.interactive());
        assert_eq!(s.hook_timeout, Some(Duration::from_secs(HOOK_TIMEOUT_SECS)));
        assert_eq!(read(&[]).0.clock, Clock::System);
        let hook = |v| read(&[("LOOPGUARD_HOOK_TIMEOUT", v)]).0.hook_timeout;
        assert_eq!(hook("3"), Some(Duration::from_secs(3)));
        assert_eq!(hook("0"), None);
    }

    #[test]
    fn the_knobs_are_honoured_only_where_no_agent_sets_them() {
        let direct = Invocation::default();
        let hook = Invocation {
            by_a_hook: true,
            test_knobs: false,
        };
        let asked = |at: Invocation| Invocation {
            test_knobs: true,
            ..at
        };
        // A release build has none, whatever asks.
        for (actions, at) in [(false, direct), (true, asked(hook)), (false, asked(direct))] {
            assert!(!Knobs::honoured(Build::Release, actions, at));
        }
        // A debug build: not in a hook, nor in GitHub Actions, unless the command line asks.
        assert!(Knobs::honoured(Build::Debug, false, direct));
        assert!(!Knobs::honoured(Build::Debug, false, hook));
        assert!(!Knobs::honoured(Build::Debug, true, direct));
        assert!(Knobs::honoured(Build::Debug, false, asked(hook)));
        assert!(Knobs::honoured(Build::Debug, true, asked(direct)));

        // Not honoured: the default, and the variable named as ignored.
        let vars = Vars(
            [
                ("LOOPGUARD_NOW", "2099-01-01T00:00:00Z"),
                ("GITHUB_ACTIONS", "true"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
        );
        let (s, problems) = Settings::read(vars.clone(), PathBuf::from("/"), direct);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(s.clock, Clock::System);
        assert_eq!(s.ignored_knobs, ["LOOPGUARD_NOW"]);
        let (s, _) = Settings::read(vars, PathBuf::from("/"), asked(direct));
        assert_eq!(s.clock == Clock::System, Build::this() == Build::Release);
    }

    #[test]
    fn a_bad_value_names_its_variable_and_the_fix_and_keeps_the_default() {
        let cases = [
            ("LOOPGUARD_LOCK_TIMEOUT_MS", "abc", "milliseconds"),
            ("LOOPGUARD_NOW", "garbage", "RFC 3339"),
            ("LOOPGUARD_HOOK_TIMEOUT", "soon", "seconds"),
            ("LOOPGUARD_PROGRESS_DELAY_MS", "-1", "milliseconds"),
            ("LOOPGUARD_GITHUB_TIME_SCALE", "fast", "number >= 0"),
        ];
        for (name, value, what) in cases {
            let (s, problems) = read(&[(name, value)]);
            let [e] = problems.as_slice() else {
                panic!("{name}: {problems:?}")
            };
            assert_eq!(e.variable(), name);
            let shown = e.to_string();
            assert!(shown.starts_with(&format!("{name}=`{value}`: ")), "{shown}");
            assert!(shown.contains(what), "{shown}");
            assert!(e.hint().ends_with("or unset it"), "{}", e.hint());
            assert_eq!(s.lock_timeout, LOCK_TIMEOUT);
            assert_eq!(s.clock, Clock::System);
            assert_eq!(s.hook_timeout, Some(Duration::from_secs(HOOK_TIMEOUT_SECS)));
        }
    }

    #[test]
    fn the_github_client_settings_fail_only_where_they_are_used() {
        let client = |vars: &[(&str, &str)]| {
            let (s, problems) = read(vars);
            assert!(problems.is_empty(), "{problems:?}");
            s.github.client().cloned()
        };
        let c = client(&[
            ("GITHUB_API_URL", " https://ghe.example.com/api/v3/ "),
            ("GITHUB_REPOSITORY", "octo-org/widgets"),
            (RUN_DEADLINE_ENV, "20m"),
            (REQUEST_DEADLINE_ENV, "90"),
        ])
        .unwrap();
        assert_eq!(c.api_url, "https://ghe.example.com/api/v3/");
        assert_eq!(c.server_url, DEFAULT_SERVER_URL);
        assert_eq!(c.repo.unwrap().to_string(), "octo-org/widgets");
        assert_eq!(c.run_deadline, Duration::from_secs(1200));
        assert_eq!(c.request_deadline, Duration::from_secs(90));
        let defaults = client(&[]).unwrap();
        assert_eq!(
            (defaults.run_deadline, defaults.request_deadline),
            (RUN_DEADLINE, REQUEST_DEADLINE)
        );

        let errors = [
            (
                vec![("GITHUB_REPOSITORY", "nope")],
                "GITHUB_REPOSITORY=`nope`: expected `owner/name`",
            ),
            (vec![("GITHUB_TOKEN", "")], "GITHUB_TOKEN is empty"),
            (
                vec![(RUN_DEADLINE_ENV, "soon")],
                "LOOPGUARD_CI_DEADLINE=`soon`: invalid duration",
            ),
            (
                vec![(REQUEST_DEADLINE_ENV, "0s")],
                "LOOPGUARD_GITHUB_REQUEST_DEADLINE=`0s`: must be more than 0",
            ),
            (
                vec![("GITHUB_API_URL", "ftp://x")],
                "GITHUB_API_URL=`ftp://x`: is not an http(s) URL",
            ),
        ];
        for (vars, want) in errors {
            let err = client(&vars).unwrap_err();
            assert!(err.to_string().starts_with(want), "{err}");
            assert!(!err.hint().is_empty());
        }
    }
}
