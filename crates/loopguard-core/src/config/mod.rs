//! `.loopguard.yml`: schema, profiles, validation (docs/contract.md, "Configuration").
//!
//! Parsing is two steps: serde-saphyr reads the YAML into `raw` structs that deny unknown
//! keys and keep the location of every value that needs checking; `resolve` then turns
//! them into a [`Config`] of plain, compiled values (glob sets, regexes, durations). Every
//! error names the file, line, column and key.

pub mod agents;
mod duration;
mod profile;
mod raw;
mod resolve;
mod session;
mod unit;

use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use jiff::SignedDuration;
use serde::Serialize;
use serde_saphyr::Spanned;

pub use duration::{format_duration, parse_duration};
pub use profile::Profile;
pub(crate) use raw::{BoundedMap, Globs};
pub use session::SessionSettings;
pub use unit::{Counted, Unit, plural, times};

pub use crate::rules::budget::BudgetRule;
pub use crate::rules::constraint::ConstraintRule;
pub use crate::rules::edge_loop::EdgeLoopRule;
pub use crate::rules::false_completion::FalseCompletionRule;
pub use crate::rules::test_only::TestOnlyRule;
pub use crate::rules::{CountRule, Rules};

use crate::error::ConfigError;
use crate::suite::{Lang, Role};

/// The file name at the repository root.
pub const CONFIG_FILE: &str = ".loopguard.yml";

// Limits (docs/contract.md, "Limits"): a config is read on every commit, so what it can
// make loopguard build is bounded: the cost is in compiling globs and regexes, about a
// millisecond per kilobyte of complex globs. The largest config within the limits loads in
// about 20 ms (`scripts/bench-config.sh`).

/// The largest config file, in bytes.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;
/// Most iterations a budget may allow: as many as the hooks catch up at once (commits
/// made with the hooks off), so that more than that spends any budget.
pub const MAX_BUDGET_ITERATIONS: u32 = 10_000;
/// Globs in each of `paths.tests`, `rules.constraint.protected` and `agents`.
pub const MAX_GLOBS: usize = 64;
/// The longest glob, in bytes.
pub const MAX_GLOB_BYTES: usize = 128;
/// Entries of `escalation.models`, `on_trip.notify` and `rules.edge_loop.edges`.
pub const MAX_LIST_ENTRIES: usize = 256;
/// The longest model or edge name, in bytes.
pub const MAX_NAME_BYTES: usize = 256;
/// Entries of `completion_patterns` (each a compiled regex).
pub const MAX_COMPLETION_PATTERNS: usize = 8;
/// The longest completion pattern, in bytes.
pub const MAX_REGEX_BYTES: usize = 256;
/// The largest compiled completion pattern (the heap its NFA takes), in bytes: a few
/// Unicode classes (`\w`) fit, `\w{100}` does not.
pub const MAX_REGEX_NFA_BYTES: usize = 128 << 10;

/// What a rule does when its count reaches its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    /// Open the breaker.
    Trip,
    /// Report, never open the breaker.
    Warn,
    /// Disabled: not evaluated, not in `counters`.
    Off,
}

impl RuleAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleAction::Trip => "trip",
            RuleAction::Warn => "warn",
            RuleAction::Off => "off",
        }
    }
}

/// What a trip does to the agent (`on_trip.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TripAction {
    /// Hooks refuse further commits and pushes until `resume`.
    #[default]
    Pause,
    /// Report and let the agent continue.
    Alert,
    /// Terminal at once; only `reset` starts again.
    Abort,
    /// Hand out the next model of `escalation.models`; pause when the last one trips.
    Escalate,
}

/// Where a trip is reported (`on_trip.notify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notify {
    Summary,
    Label,
    Comment,
    Issue,
    Webhook,
    Desktop,
}

/// Where GitHub keeps workflows: the files [`runs_loopguard`] is asked about.
pub const WORKFLOWS_DIR: &str = ".github/workflows";

/// Whether a workflow file runs loopguard: a line that is not a comment names it (the
/// action in `uses:`, or the command in `run:`). Asked of the trusted version of the file,
/// so an agent cannot unprotect a workflow by editing it.
pub fn runs_loopguard(workflow: &str) -> bool {
    workflow.lines().any(|line| {
        let code = line.trim_start();
        !code.starts_with('#') && contains_word(&code.to_ascii_lowercase(), "loopguard")
    })
}

/// Of the files of [`WORKFLOWS_DIR`] (path and content), the workflows that run loopguard.
pub fn guarded_workflows(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Vec<String> {
    let mut out: Vec<String> = files
        .into_iter()
        .filter(|(path, _)| is_workflow_file(path))
        .filter(|(_, text)| runs_loopguard(&String::from_utf8_lossy(text)))
        .map(|(path, _)| path)
        .collect();
    out.sort();
    out
}

/// A workflow file by its name: YAML directly under [`WORKFLOWS_DIR`].
pub fn is_workflow_file(path: &str) -> bool {
    path.strip_prefix(WORKFLOWS_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| {
            !name.contains('/') && (name.ends_with(".yml") || name.ends_with(".yaml"))
        })
}

fn contains_word(haystack: &str, word: &str) -> bool {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    haystack.match_indices(word).any(|(i, _)| {
        !is_word(haystack[..i].chars().next_back())
            && !is_word(haystack[i + word.len()..].chars().next())
    })
}

/// CI configuration other than the workflows that run loopguard: touching it is reported
/// as a note, not a trip (agents are often asked to change CI).
pub const CI_PATHS: &[&str] = &[
    ".github/workflows/**",
    ".github/actions/**",
    ".gitlab-ci.yml",
    ".circleci/**",
    ".travis.yml",
    "azure-pipelines.yml",
    ".buildkite/**",
    "Jenkinsfile",
];

/// Glob patterns, compiled, with their source text kept for display.
#[derive(Debug, Clone)]
pub struct PatternSet {
    pub patterns: Vec<String>,
    set: GlobSet,
}

impl PatternSet {
    pub fn is_match(&self, path: &str) -> bool {
        self.set.is_match(path)
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Compiles glob patterns that are known to be valid (built-in defaults).
    pub(crate) fn builtin(patterns: &[&str], kind: GlobKind) -> PatternSet {
        let mut builder = GlobSetBuilder::new();
        for p in patterns {
            builder.add(compile_glob(p, kind).expect("built-in globs are valid"));
        }
        PatternSet {
            patterns: patterns.iter().map(|p| (*p).to_owned()).collect(),
            set: builder.build().expect("built-in globs are valid"),
        }
    }
}

/// What a glob list matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GlobKind {
    /// Paths in the repository: `*` stays within one directory, `**` crosses them
    /// (`**/test_*.py` matches `a/test_b.py`, not `test_a/b.py`); case matters.
    Path,
    /// `Name <email>` identities (`agents`): any case, `*` matches anything.
    Identity,
}

fn compile_glob(pattern: &str, kind: GlobKind) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .case_insensitive(kind == GlobKind::Identity)
        .literal_separator(kind == GlobKind::Path)
        .backslash_escape(true)
        .build()
}

#[derive(Debug, Clone)]
pub struct OnTrip {
    pub action: TripAction,
    pub notify: Vec<Notify>,
    pub cooldown: Option<SignedDuration>,
}

#[derive(Debug, Clone)]
pub struct Webhook {
    pub url: Option<String>,
    pub timeout: SignedDuration,
}

#[derive(Debug, Clone)]
pub struct GitHubConfig {
    pub label: String,
    pub issue_label: String,
    /// The title of the `loopguard dashboard` issue.
    pub dashboard_title: String,
}

/// The dashboard issue's title unless `github.dashboard_title` says another.
pub const DEFAULT_DASHBOARD_TITLE: &str = "loopguard dashboard";

#[derive(Debug, Clone, Default)]
pub struct ReportConfig {
    /// Where finished runs' reports go in the working tree (relative to its root).
    pub dir: Option<PathBuf>,
    /// A markdown file that gets an entry for every aborted run.
    pub issues_file: Option<PathBuf>,
}

/// The resolved configuration: plain values, patterns compiled.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where it came from (`None`: built-in defaults).
    pub source: Option<PathBuf>,
    pub profile: Profile,
    pub window: u32,
    pub rules: Rules,
    /// `Name <email>` globs of the agent's commits; empty: see [`agents`].
    pub agents: PatternSet,
    /// What a test is (`paths.tests`).
    pub tests: TestPaths,
    pub completion_patterns: Vec<CompletionPattern>,
    pub on_trip: OnTrip,
    pub escalation_models: Vec<String>,
    pub webhook: Webhook,
    pub github: GitHubConfig,
    pub report: ReportConfig,
    /// How a coding agent's session is judged (`session:`).
    pub session: SessionSettings,
    /// What one attempt is, in the rules' reasons: iterations here, tool calls in a
    /// session ([`Config::for_sessions`]).
    pub unit: Unit,
}

/// What a test is (`paths.tests`; docs/rules.md, "What a test is").
#[derive(Debug, Clone)]
pub enum TestPaths {
    /// Each ecosystem's own discovery rules ([`crate::suite::discovery`]): the default.
    Discovered,
    /// The configured globs: the files they match hold tests, in a language whose tests
    /// loopguard reads; fixtures, snapshots and data under them stay support.
    Globs(PatternSet),
}

impl TestPaths {
    /// What `path` is to the tests: a file of tests, one that serves them (fixtures,
    /// snapshots, helpers), or neither.
    pub fn role(&self, path: &str) -> Option<Role> {
        let discovered = crate::suite::role(path);
        match self {
            TestPaths::Discovered => discovered,
            TestPaths::Globs(globs) => {
                if discovered == Some(Role::Support) {
                    Some(Role::Support)
                } else if globs.is_match(path) {
                    Some(Lang::of(path).map_or(Role::Support, Role::Tests))
                } else {
                    None
                }
            }
        }
    }
}
pub const DEFAULT_PROTECTED: &[&str] = &[".loopguard.yml"];
pub const DEFAULT_COMPLETION: &str = r"(?i)\b(done|completed?|all tests pass(ing)?|fixed)\b";
pub const DEFAULT_MODELS: &[&str] = &["haiku", "sonnet", "opus"];

/// A compiled completion pattern. Commit messages are short, so the pattern is built
/// without a literal prefilter: building one (aho-corasick over every case variant of every
/// word of `(?i)done|completed|...`) cost most of a hook's CPU time, and matching a
/// message never needed it.
pub type CompletionPattern = regex_automata::meta::Regex;

/// Why a completion pattern did not build.
#[derive(Debug)]
pub(super) struct PatternError {
    /// The regex syntax error, or what the compiler said.
    detail: String,
    /// It is valid, but compiles larger than [`MAX_REGEX_NFA_BYTES`].
    too_large: bool,
}

fn completion_pattern(pattern: &str, unicode: bool) -> Result<CompletionPattern, PatternError> {
    regex_automata::meta::Regex::builder()
        .configure(
            regex_automata::meta::Config::new()
                .auto_prefilter(false)
                .nfa_size_limit(Some(MAX_REGEX_NFA_BYTES)),
        )
        .syntax(regex_automata::util::syntax::Config::new().unicode(unicode))
        .build(pattern)
        .map_err(|e| PatternError {
            detail: match e.syntax_error() {
                Some(syntax) => syntax.to_string(),
                None => match std::error::Error::source(&e) {
                    // "error building NFA: exceeds size limit of …"
                    Some(cause) => format!("{e}: {cause}"),
                    None => e.to_string(),
                },
            },
            too_large: e.size_limit().is_some(),
        })
}

/// The default completion pattern, compiled with ASCII classes: on ASCII text it matches
/// exactly what the Unicode build would, and it builds in a fraction of the time. Built
/// once per process (a clone shares it): a hook builds a config more than once.
fn default_completion() -> CompletionPattern {
    static DEFAULT: std::sync::LazyLock<CompletionPattern> = std::sync::LazyLock::new(|| {
        completion_pattern(DEFAULT_COMPLETION, false).expect("the default pattern is valid")
    });
    DEFAULT.clone()
}

impl Default for Config {
    fn default() -> Self {
        Config::for_profile(Profile::Balanced)
    }
}

impl Config {
    /// The built-in configuration of a profile.
    pub fn for_profile(profile: Profile) -> Config {
        Config {
            source: None,
            profile,
            window: profile.window(),
            rules: Rules::for_profile(profile),
            agents: PatternSet::builtin(&[], GlobKind::Identity),
            tests: TestPaths::Discovered,
            completion_patterns: vec![default_completion()],
            on_trip: OnTrip {
                action: TripAction::Pause,
                notify: vec![Notify::Summary],
                cooldown: None,
            },
            escalation_models: DEFAULT_MODELS.iter().map(|m| (*m).to_owned()).collect(),
            webhook: Webhook {
                url: None,
                timeout: SignedDuration::from_secs(5),
            },
            github: GitHubConfig {
                label: "loopguard:stuck".to_owned(),
                issue_label: "loopguard".to_owned(),
                dashboard_title: DEFAULT_DASHBOARD_TITLE.to_owned(),
            },
            report: ReportConfig::default(),
            session: SessionSettings::default(),
            unit: Unit::Iteration,
        }
    }

    /// Parses config text; `path` is only used in messages and `source`.
    pub fn parse_bytes(bytes: &[u8], path: &Path) -> Result<Config, ConfigError> {
        too_large(path, bytes.len())?;
        let text = std::str::from_utf8(bytes).map_err(|e| ConfigError::NotUtf8 {
            path: path.to_owned(),
            line: line_of_offset(bytes, e.valid_up_to()),
        })?;
        Config::parse(text, path)
    }

    /// Parses config text; `path` is only used in messages and `source`.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        too_large(path, text.len())?;
        let raw = raw::parse(text, path)?;
        let mut config = resolve::resolve(raw, path)?;
        config.source = Some(path.to_owned());
        Ok(config)
    }

    /// Whether the commit message claims completion.
    pub fn claims_done(&self, message: &str) -> bool {
        self.completion_patterns.iter().any(|r| r.is_match(message))
    }

    /// What `path` is to the tests (see [`TestPaths::role`]).
    pub fn test_role(&self, path: &str) -> Option<Role> {
        self.tests.role(path)
    }

    /// Whether a path belongs to the tests: a test file or what serves them (`test_only`).
    pub fn is_test_path(&self, path: &str) -> bool {
        self.test_role(path).is_some()
    }
}

/// A config larger than [`MAX_CONFIG_BYTES`] is refused before it is parsed.
fn too_large(path: &Path, len: usize) -> Result<(), ConfigError> {
    if len <= MAX_CONFIG_BYTES {
        return Ok(());
    }
    Err(ConfigError::TooLarge {
        path: path.to_owned(),
        size: len as u64,
        max: MAX_CONFIG_BYTES as u64,
    })
}

/// A pattern or name longer than `max` bytes is refused before it is compiled.
fn not_too_long(
    path: &Path,
    key: &str,
    v: &Spanned<String>,
    what: &str,
    max: usize,
) -> Result<(), ConfigError> {
    if v.value.len() <= max {
        return Ok(());
    }
    Err(at(
        path,
        key,
        v,
        format!(
            "the {what} is {} bytes, more than the {max} loopguard reads",
            v.value.len()
        ),
    )
    .with_hint("shorten it (docs/contract.md, \"Limits\")"))
}

fn line_of_offset(bytes: &[u8], offset: usize) -> u32 {
    let lines = bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count();
    u32::try_from(lines).unwrap_or(u32::MAX).saturating_add(1)
}

/// A [`ConfigError::Key`] at the place of `spanned` (add a hint with `with_hint`).
pub(crate) fn at<T>(
    path: &Path,
    key: &str,
    spanned: &Spanned<T>,
    problem: impl Into<String>,
) -> ConfigError {
    ConfigError::Key {
        path: path.to_owned(),
        line: u32::try_from(spanned.referenced.line()).unwrap_or(0),
        column: u32::try_from(spanned.referenced.column()).unwrap_or(0),
        key: key.to_owned(),
        problem: problem.into(),
        hint: None,
    }
}

/// A [`ConfigError::Key`] with no place in the file.
pub(crate) fn nowhere(path: &Path, key: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError::Key {
        path: path.to_owned(),
        line: 0,
        column: 0,
        key: key.to_owned(),
        problem: problem.into(),
        hint: None,
    }
}

pub(crate) fn positive(
    path: &Path,
    key: &str,
    v: &Option<Spanned<u32>>,
    default: u32,
) -> Result<u32, ConfigError> {
    match v {
        None => Ok(default),
        Some(s) if s.value == 0 => Err(at(path, key, s, "must be at least 1")),
        Some(s) => Ok(s.value),
    }
}

pub(crate) fn patterns(
    path: &Path,
    key: &str,
    list: &Option<Globs>,
    default: &PatternSet,
    kind: GlobKind,
) -> Result<PatternSet, ConfigError> {
    let Some(raw::Bounded(list)) = list else {
        return Ok(default.clone());
    };
    let mut builder = GlobSetBuilder::new();
    for (i, p) in list.iter().enumerate() {
        not_too_long(path, &format!("{key}[{i}]"), p, "glob", MAX_GLOB_BYTES)?;
        let glob = compile_glob(&p.value, kind).map_err(|e| {
            at(
                path,
                &format!("{key}[{i}]"),
                p,
                format!("invalid glob `{}`: {}", p.value, e.kind()),
            )
            .with_hint("use `*`, `**`, `?`, `[..]`, `{a,b}`")
        })?;
        builder.add(glob);
    }
    let set = builder
        .build()
        .map_err(|e| nowhere(path, key, e.to_string()))?;
    Ok(PatternSet {
        patterns: list.iter().map(|p| p.value.clone()).collect(),
        set,
    })
}

#[cfg(test)]
mod tests;
