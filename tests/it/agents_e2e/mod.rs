//! The real coding agents, end to end: Claude Code, Codex and Gemini CLI, as npm installs
//! them (`.ci/install-agents.sh`, pinned in [`VERSIONS`]), each run headless as a person
//! runs it after `loopguard init --agent <cli>` — the real binary, the config it wrote, a
//! real git repository — against a fake model on 127.0.0.1 ([`model`]) that plays a
//! scripted session, one tool call per turn, and records every request. The tests assert on
//! what the model was told: the hooks' context, the denials, the blocked stops.
//!
//! Without the CLIs [`the_real_agent_clis_are_installed`] fails with the install hint, and
//! the scenarios have nothing to run; `LOOPGUARD_SKIP_AGENT_CLIS=1` turns that failure into
//! one line on the test run's stderr. `cargo test --test it agents_e2e::` runs them alone;
//! what the model was told in each is kept in `target/tmp/agents-e2e/<test>.txt`.
//! `scripts/bench-agent-hooks.sh` times every hook they run: `LOOPGUARD_E2E_LOOPGUARD` is
//! the loopguard `init` writes into the hook configs, `LOOPGUARD_E2E_HOOK_PREFIX` a command
//! put before each hook command.
//!
//! How each CLI is pointed at the fake and trusts the project's hooks:
//! - Claude Code: `ANTHROPIC_BASE_URL`, any `ANTHROPIC_API_KEY`,
//!   `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`; `claude -p … --dangerously-skip-permissions`
//!   (as root only with `IS_SANDBOX=1`), the next turn `--continue`. Project hooks run in
//!   `-p` mode with no trust step.
//! - Codex: a `[model_providers.fake]` with `wire_api = "responses"` in
//!   `$CODEX_HOME/config.toml` and a model of its catalog (`gpt-5.5`: it offers
//!   `apply_patch`); `codex exec --trust --json --dangerously-bypass-approvals-and-sandbox`,
//!   the next turn `codex exec resume --last`. Codex runs a project's hooks only when the
//!   project is trusted (`--trust` saves that) *and* the person reviewed each hook (`/hooks`
//!   in the TUI): `init --agent codex` records that review of loopguard's hooks, as the TUI
//!   would, so trusting the project is the person's one step.
//! - Gemini CLI: `GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY` and `security.auth.selectedType =
//!   "gemini-api-key"` in `~/.gemini/settings.json`; the folder trusted in
//!   `~/.gemini/trustedFolders.json` as the trust dialog writes it (project hooks load only in
//!   a trusted folder); `gemini --yolo -p …`, the next turn `--resume latest`.
//!   `GEMINI_CLI_NO_RELAUNCH` spares the second Node process it starts to raise its heap
//!   limit.

/// Each scenario as one test per CLI it holds for: `agents_e2e::scenarios::claude::…`.
macro_rules! per_cli {
    ($($cli:ident: [$($scenario:ident),* $(,)?]),* $(,)?) => {
        $(
            mod $cli {
                $(
                    #[test]
                    fn $scenario() {
                        super::$scenario(super::Cli::from_module(stringify!($cli)));
                    }
                )*
            }
        )*
    };
}

mod model;
mod scenarios;

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

pub(crate) use model::{Conversation, FakeModel, Provider, Reply};

use crate::support::{Ran, TestRepo, bin, lg, run_within};

/// What `.ci/install-agents.sh` installs; the tests run only these.
pub(crate) const VERSIONS: &str =
    "@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @google/gemini-cli@0.61.0";

/// Set (to anything) to run `cargo test` without the CLIs.
const SKIP: &str = "LOOPGUARD_SKIP_AGENT_CLIS";

/// The longest one CLI run may take (a 2-core machine under load).
const LIMIT: Duration = Duration::from_secs(240);

/// Where `.ci/install-agents.sh` installed the CLIs: `target/agent-clis` of this build, or
/// `LOOPGUARD_AGENT_CLIS` (a copy another checkout installed).
fn install_dir() -> PathBuf {
    std::env::var_os("LOOPGUARD_AGENT_CLIS").map_or_else(
        || {
            Path::new(env!("CARGO_TARGET_TMPDIR"))
                .parent()
                .expect("CARGO_TARGET_TMPDIR is under the target directory")
                .join("agent-clis")
        },
        PathBuf::from,
    )
}

/// The directory of the CLIs' executables, when the pinned versions are installed.
fn installed() -> Option<PathBuf> {
    let dir = install_dir();
    let versions = std::fs::read_to_string(dir.join("versions")).ok()?;
    (versions.trim() == VERSIONS).then(|| dir.join("node_modules/.bin"))
}

#[test]
fn the_real_agent_clis_are_installed() {
    if installed().is_some() {
        return;
    }
    let hint = format!(
        "the real agent CLIs ({VERSIONS}) are not installed in {}, so the session tests \
         through Claude Code, Codex and Gemini CLI did not run; hint: .ci/install-agents.sh \
         (npm, about a minute; .ci/run does it), LOOPGUARD_AGENT_CLIS=<a directory it \
         installed into>, or {SKIP}=1 to run without them",
        install_dir().display()
    );
    if std::env::var_os(SKIP).is_some() {
        // Past the test harness's capture: one line the run shows even on success.
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "\nagents_e2e: skipped ({SKIP}): {hint}");
        return;
    }
    panic!("{hint}");
}

/// One thing the scripted model does in a turn, said once for every CLI.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Runs a shell command.
    Shell(String),
    /// Reads a file (relative to the repository).
    Read(&'static str),
    /// Replaces `old` by `new` in a file, with the CLI's edit tool.
    Edit {
        path: &'static str,
        old: &'static str,
        new: &'static str,
    },
    /// Searches the repository for a pattern, as the CLI's model does.
    Search(&'static str),
    /// Hands a task to a sub-agent.
    Delegate(&'static str),
    /// Says something, which ends the turn.
    Say(&'static str),
}

pub(crate) fn shell(command: impl Into<String>) -> Step {
    Step::Shell(command.into())
}

/// A coding-agent CLI: its name for `init --agent`, how it reaches a model, which tools it
/// gives the model, how a person runs it headless.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cli {
    Claude,
    Codex,
    Gemini,
}

/// The model name each CLI asks for (Codex: one of its catalog, so its tools are the real
/// ones).
const CODEX_MODEL: &str = "gpt-5.5";

impl Cli {
    /// The CLI of a `per_cli!` module.
    fn from_module(name: &str) -> Cli {
        match name {
            "claude" => Cli::Claude,
            "codex" => Cli::Codex,
            "gemini" => Cli::Gemini,
            other => panic!("no CLI {other}"),
        }
    }

    /// Its name for `init --agent`, `agent-hook` and its executable.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
        }
    }

    fn provider(self) -> Provider {
        match self {
            Cli::Claude => Provider::Anthropic,
            Cli::Codex => Provider::OpenAiResponses,
            Cli::Gemini => Provider::Gemini,
        }
    }

    /// The hook config `init --agent` writes.
    pub(crate) fn hook_config(self) -> &'static str {
        match self {
            Cli::Claude => ".claude/settings.json",
            Cli::Codex => ".codex/hooks.json",
            Cli::Gemini => ".gemini/settings.json",
        }
    }

    /// `step` as this CLI's model makes it, in the repository at `root`.
    pub(crate) fn reply(self, step: &Step, root: &Path) -> Reply {
        let abs = |p: &str| root.join(p).display().to_string();
        let call = |name: &str, input: Value| Reply::Call {
            name: name.to_owned(),
            input,
        };
        match (self, step) {
            (_, Step::Say(text)) => Reply::Text((*text).to_owned()),
            (Cli::Claude, Step::Shell(c)) => {
                call("Bash", json!({"command": c, "description": "Run it"}))
            }
            (Cli::Codex, Step::Shell(c)) => call("exec_command", json!({"cmd": c})),
            (Cli::Gemini, Step::Shell(c)) => call(
                "run_shell_command",
                json!({"command": c, "description": "Run it"}),
            ),
            (Cli::Claude, Step::Read(p)) => call("Read", json!({"file_path": abs(p)})),
            (Cli::Codex, Step::Read(p)) => call("exec_command", json!({"cmd": format!("cat {p}")})),
            (Cli::Gemini, Step::Read(p)) => call("read_file", json!({"file_path": abs(p)})),
            (Cli::Claude, Step::Edit { path, old, new }) => call(
                "Edit",
                json!({"file_path": abs(path), "old_string": old, "new_string": new}),
            ),
            (Cli::Codex, Step::Edit { path, old, new }) => Reply::Freeform {
                name: "apply_patch".into(),
                input: format!(
                    "*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
                ),
            },
            (Cli::Gemini, Step::Edit { path, old, new }) => call(
                "replace",
                json!({"file_path": abs(path), "instruction": "Make the change", "old_string": old, "new_string": new}),
            ),
            // Claude Code's shell has its bundled ripgrep as `rg`; Codex's model searches
            // through the shell too (its own `rg` is on PATH only outside /tmp).
            (Cli::Claude, Step::Search(pattern)) => call(
                "Bash",
                json!({"command": format!("rg -n '{pattern}' ."), "description": "Search"}),
            ),
            (Cli::Codex, Step::Search(pattern)) => call(
                "exec_command",
                json!({"cmd": format!("git grep -n '{pattern}'")}),
            ),
            (Cli::Gemini, Step::Search(pattern)) => {
                call("grep_search", json!({"pattern": pattern}))
            }
            (Cli::Claude, Step::Delegate(task)) => call(
                "Agent",
                json!({"description": "Get the tests passing", "prompt": task, "subagent_type": "general-purpose"}),
            ),
            (Cli::Gemini, Step::Delegate(task)) => call(
                "invoke_agent",
                json!({"agent_name": "generalist", "prompt": task}),
            ),
            (Cli::Codex, Step::Delegate(_)) => panic!("no sub-agent step for Codex"),
        }
    }

    /// What a person sets up in their home before the first run.
    fn prepare_home(self, home: &Path, repo: &Path, model: &str) {
        match self {
            Cli::Claude => {}
            Cli::Codex => {
                let config = format!(
                    "model = \"{CODEX_MODEL}\"\nmodel_provider = \"fake\"\n\n\
                     [model_providers.fake]\nname = \"fake\"\nbase_url = \"{model}/v1\"\n\
                     wire_api = \"responses\"\nenv_key = \"FAKE_MODEL_KEY\"\n"
                );
                // After what `init --agent codex` recorded there (its review of loopguard's
                // hooks): top-level keys come before TOML tables.
                let path = home.join(".codex/config.toml");
                let recorded = std::fs::read_to_string(&path).unwrap_or_default();
                write(&path, &(config + &recorded));
            }
            Cli::Gemini => {
                write(
                    &home.join(".gemini/settings.json"),
                    &json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
                        "privacy": {"usageStatisticsEnabled": false},
                        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}})
                    .to_string(),
                );
                write(
                    &home.join(".gemini/trustedFolders.json"),
                    &json!({ repo.display().to_string(): "TRUST_FOLDER" }).to_string(),
                );
            }
        }
    }

    /// The command line of a person's first prompt, or of their next one (`next`).
    fn args(self, prompt: &str, next: bool) -> Vec<String> {
        let mut args: Vec<&str> = match (self, next) {
            (Cli::Claude, false) => vec!["-p", prompt],
            (Cli::Claude, true) => vec!["-p", prompt, "--continue"],
            (Cli::Codex, false) => vec!["exec", "--trust"],
            (Cli::Codex, true) => vec!["exec", "resume", "--last"],
            (Cli::Gemini, false) => vec!["--yolo", "-p", prompt],
            (Cli::Gemini, true) => vec!["--yolo", "--resume", "latest", "-p", prompt],
        };
        match self {
            Cli::Claude => {
                args.extend(["--dangerously-skip-permissions", "--output-format", "json"]);
            }
            Cli::Codex => args.extend([
                "--json",
                "--dangerously-bypass-approvals-and-sandbox",
                prompt,
            ]),
            Cli::Gemini => args.extend(["--output-format", "json"]),
        }
        args.into_iter().map(str::to_owned).collect()
    }

    /// The environment that points it at the fake model (and nowhere else).
    fn env(self, home: &Path, model: &str) -> Vec<(&'static str, String)> {
        match self {
            Cli::Claude => vec![
                ("ANTHROPIC_BASE_URL", model.to_owned()),
                ("ANTHROPIC_API_KEY", "sk-ant-fake".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
                ("IS_SANDBOX", "1".into()),
            ],
            Cli::Codex => vec![
                ("CODEX_HOME", home.join(".codex").display().to_string()),
                ("FAKE_MODEL_KEY", "fake".into()),
            ],
            Cli::Gemini => vec![
                ("GOOGLE_GEMINI_BASE_URL", model.to_owned()),
                ("GEMINI_API_KEY", "fake".into()),
                ("GEMINI_CLI_NO_RELAUNCH", "true".into()),
            ],
        }
    }
}

/// The variables of a caller that would point a CLI elsewhere (a real key, a proxy, another
/// home): none reaches it.
const FOREIGN_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_HOME",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GEMINI_CLI_TRUST_WORKSPACE",
];

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file in a directory")).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The Python project every scenario starts from: `count()` counts characters, its test
/// wants words, so `python3 -m unittest` fails with `AssertionError: 3 != 2`.
pub(crate) const TEST: &str = "python3 -m unittest";

fn project(cli: Cli, config: Option<&str>) -> TestRepo {
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    if let Some(config) = config {
        repo.write(".loopguard.yml", config);
    }
    repo.write("src/__init__.py", "");
    repo.write("src/wc.py", "def count(s):\n    return len(s)\n");
    repo.write("tests/__init__.py", "");
    repo.write(
        "tests/test_wc.py",
        "import unittest\n\nfrom src.wc import count\n\n\nclass TestCount(unittest.TestCase):\n    \
         def test_count(self):\n        self.assertEqual(count(\"a b\"), 2)\n",
    );
    repo.commit("Initial commit");
    let mut init = repo.command(hooks_loopguard());
    init.args(["init", "--agent", cli.name()])
        .env_remove("CODEX_HOME")
        .env("LOOPGUARD_NO_PROMPT", "1");
    let ran = run_within(init, None, Duration::from_secs(60));
    assert!(ran.success(), "init --agent failed: {}", ran.stderr);
    if let Ok(prefix) = std::env::var(HOOK_PREFIX) {
        prefix_hooks(&repo, cli, &prefix);
    }
    repo.as_agent();
    repo
}

/// The loopguard that `init` writes into the hook configs: the one under test, or
/// `LOOPGUARD_E2E_LOOPGUARD` (`scripts/bench-agent-hooks.sh` measures a release build).
fn hooks_loopguard() -> PathBuf {
    std::env::var_os("LOOPGUARD_E2E_LOOPGUARD").map_or_else(bin, PathBuf::from)
}

/// A command put before every hook command (`scripts/bench-agent-hooks.sh`: its timer).
const HOOK_PREFIX: &str = "LOOPGUARD_E2E_HOOK_PREFIX";

fn prefix_hooks(repo: &TestRepo, cli: Cli, prefix: &str) {
    fn walk(v: &mut Value, prefix: &str) {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    match v {
                        Value::String(c) if k == "command" && c.contains(" agent-hook ") => {
                            *c = format!("{prefix} {c}");
                        }
                        _ => walk(v, prefix),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, prefix)),
            _ => {}
        }
    }
    let path = cli.hook_config();
    let mut config: Value = serde_json::from_str(&repo.read(path).expect("init wrote it"))
        .expect("the hook config is JSON");
    walk(&mut config, prefix);
    repo.write(path, config.to_string());
    // Codex runs a hook whose command changed only after a new review: recorded again, as
    // `init` recorded it.
    if let Ok(harness) = cli.name().parse::<loopguard::session::Harness>() {
        loopguard::agents_config::record_review(repo.path(), harness, Some(repo.home()), |_| None)
            .expect("the review recorded");
    }
}

/// A person's machine with one CLI, a project guarded by `init --agent`, and the fake
/// model the CLI talks to.
pub(crate) struct Session {
    pub cli: Cli,
    pub repo: TestRepo,
    pub model: FakeModel,
    bin: PathBuf,
    started: Cell<bool>,
}

impl Session {
    /// `None` when the CLIs are not installed ([`the_real_agent_clis_are_installed`] says
    /// so).
    pub(crate) fn new(cli: Cli) -> Option<Session> {
        Session::build(cli, None, true)
    }

    /// [`Session::new`] with `config` as the project's `.loopguard.yml`.
    pub(crate) fn with_config(cli: Cli, config: &str) -> Option<Session> {
        Session::build(cli, Some(config), true)
    }

    /// [`Session::new`] where Codex's record of the person's hook review (`/hooks`), which
    /// `init --agent codex` writes, is gone (another `CODEX_HOME` at `init`): the project
    /// is trusted, the hooks are not.
    pub(crate) fn unreviewed(cli: Cli) -> Option<Session> {
        Session::build(cli, None, false)
    }

    fn build(cli: Cli, config: Option<&str>, review: bool) -> Option<Session> {
        let bin = installed()?.join(cli.name());
        let repo = project(cli, config);
        let model = FakeModel::start(cli.provider());
        cli.prepare_home(repo.home(), repo.path(), &model.uri());
        if cli == Cli::Codex && !review {
            forget_codex_hook_review(&repo);
        }
        Some(Session {
            cli,
            repo,
            model,
            bin,
            started: Cell::new(false),
        })
    }

    /// The model answers the conversation `prompt` opens with `steps`.
    pub(crate) fn script(&self, prompt: &str, steps: &[Step]) {
        let replies = steps
            .iter()
            .map(|s| self.cli.reply(s, self.repo.path()))
            .collect();
        self.model.script(prompt, replies);
    }

    /// A person's prompt: the session's first, or the next turn of it (resumed, continued).
    pub(crate) fn prompt(&self, prompt: &str) -> Ran {
        let next = self.started.replace(true);
        let mut cmd = self.repo.command(&self.bin);
        for var in FOREIGN_VARS {
            cmd.env_remove(var);
        }
        for (k, _) in std::env::vars() {
            if k.starts_with("LOOPGUARD_") {
                cmd.env_remove(k);
            }
        }
        cmd.envs(self.cli.env(self.repo.home(), &self.model.uri()))
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .args(self.cli.args(prompt, next));
        let ran = run_within(cmd, None, LIMIT).finished();
        assert!(
            ran.success(),
            "{} exited {:?}\nstdout: {}\nstderr: {}",
            self.cli.name(),
            ran.code,
            ran.stdout,
            ran.stderr
        );
        ran
    }

    /// What the model was told in the conversation `prompt` opened (its last request).
    pub(crate) fn told(&self, prompt: &str) -> Conversation {
        self.model.conversation(prompt)
    }

    /// How many times the model was asked in the conversation `prompt` opened.
    pub(crate) fn turns(&self, prompt: &str) -> usize {
        self.model.requests_of(prompt).len()
    }

    /// `loopguard status --json`.
    pub(crate) fn status(&self) -> Value {
        lg(&self.repo).args(["status", "--json"]).run().ok().json()
    }

    /// The one session's `status --session ID --json`.
    pub(crate) fn session_status(&self) -> Value {
        let status = self.status();
        let sessions = status["sessions"].as_array().cloned().unwrap_or_default();
        assert_eq!(sessions.len(), 1, "one session: {status:#}");
        let id = sessions[0]["id"].as_str().expect("a session id").to_owned();
        lg(&self.repo)
            .args(["status", "--session", &id, "--json"])
            .run()
            .ok()
            .json()
    }

    /// This machine's loopguard, as `init` wrote it into the hook config.
    pub(crate) fn loopguard(&self) -> String {
        hooks_loopguard().display().to_string()
    }
}

impl Drop for Session {
    /// Keeps what the model was told, one file per test under `target/tmp/agents-e2e/`:
    /// each scripted conversation as its last request carried it, then every request.
    fn drop(&mut self) {
        use std::fmt::Write;
        let name = std::thread::current()
            .name()
            .unwrap_or("session")
            .replace("::", "-");
        let mut text = String::new();
        for prompt in self.model.prompts() {
            if self.turns(&prompt) > 0 {
                let _ = write!(
                    text,
                    "==== {prompt} ({} requests)\n{}",
                    self.turns(&prompt),
                    self.told(&prompt)
                );
            }
        }
        text.push_str("==== every request\n");
        for r in self.model.requests() {
            let _ = writeln!(text, "{} {}", r.path, r.script.as_deref().unwrap_or("-"));
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agents-e2e");
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{name}.txt")), text);
    }
}

/// Takes the hook review `init --agent codex` recorded out of `$CODEX_HOME/config.toml`
/// (its `[hooks.state."…"]` tables).
fn forget_codex_hook_review(repo: &TestRepo) {
    let path = repo.home().join(".codex/config.toml");
    let text = std::fs::read_to_string(&path).expect("init recorded the review");
    assert!(
        text.contains("[hooks.state."),
        "no review recorded:\n{text}"
    );
    let mut kept = Vec::new();
    let mut in_review = false;
    for line in text.lines() {
        if line.starts_with('[') {
            in_review = line.starts_with("[hooks.state.");
        }
        if !in_review {
            kept.push(line);
        }
    }
    write(&path, &kept.join("\n"));
}
