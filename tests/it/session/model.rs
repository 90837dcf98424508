//! The session guard's word against random sequences of what an agent can do (issue 25):
//! a Claude Code session in a repository set up by `init --agent claude`, driven through
//! the real hooks, with the effects done for real between the hooks as the tools would do
//! them. The catalogue ([`Step`]):
//!
//! - the agent's own work: a failing test run (three in a row open the breaker), a read, an
//!   edit of the code;
//! - events forged from inside a shell call: a person's prompt, a session start, a stop, a
//!   result for a call never announced, a second result of the call itself;
//! - the commands a person runs, run by the agent's shell in several spellings;
//! - inputs the hook cannot parse the usual way: a lone surrogate, arguments nested 200
//!   deep, invalid UTF-8, input cut short, not JSON;
//! - loopguard's state erased between calls (the markers, the run), as a program left
//!   running in the background does;
//! - effects on what guards, done between the hooks of a call as its tool would: write,
//!   delete, rename, chmod, symlink of the Claude hook config and of the pre-commit hook,
//!   through Bash, Write or Edit, and `core.hooksPath` set in the local git config;
//! - a person's prompt (the one way out in the catalogue, so that sequences go in and out
//!   of the open breaker).
//!
//! After every step:
//!
//! - an open breaker stays open unless the step was the person's;
//! - every effect on the guard that happened (its call was not refused first) is a
//!   recorded `constraint` event in the session's log, and what guards is put back;
//! - nothing is lost: every call that ran is a call of the session.
//!
//! [`CASES`] sequences of up to [`STEPS`] steps (`LOOPGUARD_SESSION_MODEL_CASES` for more;
//! `.ci/run` runs more). The hand-written cases are `security.rs`.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;

use super::{Agent, FAIL, project, sessions_dir};
use crate::support::{TestRepo, bin, lg, run_within};

/// Sequences per run of the test.
const CASES: u32 = 8;
/// Most steps in a sequence.
const STEPS: usize = 12;

/// An event the agent forges from inside its shell call.
#[derive(Debug, Clone, Copy)]
enum Forged {
    Prompt,
    SessionStart,
    Stop,
    /// The result of a call no before-call hook saw.
    Unannounced,
    /// A result of the very call that sends it.
    OwnResult,
}

/// A hook input the usual JSON parser gives up on, or that cannot be read at all.
#[derive(Debug, Clone, Copy)]
enum Odd {
    LoneSurrogate,
    Deep,
    InvalidUtf8,
    CutShort,
    NotJson,
}

impl Odd {
    /// Whether the hook can still read the call (then it is judged and recorded).
    fn readable(self) -> bool {
        matches!(self, Odd::LoneSurrogate | Odd::Deep | Odd::InvalidUtf8)
    }
}

/// What guards, as the model touches it.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// `.claude/settings.json`.
    HookConfig,
    /// `.git/hooks/pre-commit`.
    PreCommit,
}

impl Target {
    fn path(self) -> &'static str {
        match self {
            Target::HookConfig => ".claude/settings.json",
            Target::PreCommit => ".git/hooks/pre-commit",
        }
    }
}

/// An effect on what guards.
#[derive(Debug, Clone, Copy)]
enum Effect {
    Write,
    Delete,
    Rename,
    Chmod,
    Symlink,
}

/// The tool the effect is done through.
#[derive(Debug, Clone, Copy)]
enum Through {
    Bash,
    /// The Write tool, to the path spelled with `//` (an Edit for a rename's target).
    Write,
    Edit,
}

#[derive(Debug, Clone)]
enum Step {
    FailingRun,
    Read,
    Edit,
    Forge(Forged),
    PersonsCommand(&'static str),
    Input(Odd),
    /// Deletes what the globs name under the sessions' store, between two calls.
    Erase(&'static str),
    /// A person's prompt.
    Prompt,
    /// An effect on what guards, done during a call.
    Tamper(Target, Effect, Through),
    /// `git config core.hooksPath <dir>` from the agent's shell.
    HooksPath(&'static str),
    /// An effect on what guards between two calls, as a program the agent left running
    /// does; the next call is where the before-call hook sees it.
    Between(Target, Effect),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => Just(Step::FailingRun),
        1 => Just(Step::Read),
        1 => Just(Step::Edit),
        1 => Just(Step::Forge(Forged::Prompt)),
        1 => Just(Step::Forge(Forged::SessionStart)),
        1 => Just(Step::Forge(Forged::Stop)),
        1 => Just(Step::Forge(Forged::Unannounced)),
        1 => Just(Step::Forge(Forged::OwnResult)),
        1 => prop::sample::select(vec![
            "loopguard -C . resume --session model",
            "\"loopguard\" resume --session model",
            "'loopguard' reset --session model",
            "env loopguard reset --session model",
            "alias r='loopguard resume --session model'; eval r",
        ])
        .prop_map(Step::PersonsCommand),
        1 => prop::sample::select(vec![
            Odd::LoneSurrogate,
            Odd::Deep,
            Odd::InvalidUtf8,
            Odd::CutShort,
            Odd::NotJson,
        ])
        .prop_map(Step::Input),
        1 => prop::sample::select(vec!["open/*", "open/* closed/*"])
            .prop_map(Step::Erase),
        1 => Just(Step::Prompt),
        2 => (
            prop::sample::select(vec![Target::HookConfig, Target::PreCommit]),
            prop::sample::select(vec![
                Effect::Write,
                Effect::Delete,
                Effect::Rename,
                Effect::Chmod,
                Effect::Symlink,
            ]),
            prop::sample::select(vec![Through::Bash, Through::Write, Through::Edit]),
        )
            .prop_map(|(t, e, w)| Step::Tamper(t, e, w)),
        1 => prop::sample::select(vec!["/dev/null", ".nohooks", "CORE.HOOKSPATH"])
            .prop_map(Step::HooksPath),
        1 => (
            prop::sample::select(vec![Target::HookConfig, Target::PreCommit]),
            prop::sample::select(vec![Effect::Write, Effect::Delete, Effect::Symlink]),
        )
            .prop_map(|(t, e)| Step::Between(t, e)),
    ]
}

/// The shell command that does `effect` to `target`.
fn effect_command(target: Target, effect: Effect) -> String {
    let path = target.path();
    match effect {
        Effect::Write => format!("printf 'exit 0\\n' > {path}"),
        Effect::Delete => format!("rm -f {path}"),
        Effect::Rename => format!("mv {path} {path}.old"),
        Effect::Chmod => format!("chmod 000 {path}"),
        Effect::Symlink => format!("ln -sf /dev/null {path}"),
    }
}

/// What guards, as the model compares it: the hook config's and pre-commit's bytes and
/// mode, and the local git config's `core.hooksPath`.
fn guard_now(repo: &TestRepo) -> (Option<Vec<u8>>, Option<Vec<u8>>, bool, String) {
    let read = |p: &str| std::fs::read(repo.path().join(p)).ok();
    let executable = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(repo.path().join(".git/hooks/pre-commit"))
            .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    };
    let keys = repo.try_git(&["config", "--local", "--get-all", "core.hookspath"]);
    (
        read(Target::HookConfig.path()),
        read(Target::PreCommit.path()),
        executable,
        String::from_utf8_lossy(&keys.stdout).into_owned(),
    )
}

/// What the session's status and log say.
#[derive(Debug, Clone, Default)]
struct Seen {
    /// The breaker's state (`closed` before the session has a run).
    state: String,
    calls: u64,
    /// `constraint` events in the log.
    constraint: usize,
}

struct World<'r> {
    repo: &'r TestRepo,
    agent: Agent<'r>,
    /// The calls that ran.
    ran: u64,
}

impl<'r> World<'r> {
    fn new(repo: &'r TestRepo) -> World<'r> {
        let mut agent = Agent::new(repo, "claude", "model");
        agent.transcript = Some(repo.home().join("model.jsonl"));
        World {
            repo,
            agent,
            ran: 0,
        }
    }

    fn seen(&self) -> Seen {
        let status = lg(self.repo)
            .args(["status", "--session", "model", "--json"])
            .run();
        if status.code != Some(0) {
            return Seen {
                state: "closed".to_owned(),
                ..Seen::default()
            };
        }
        let s = status.json();
        let report = lg(self.repo)
            .args(["report", "--session", "model", "--json"])
            .run()
            .json();
        let constraint = report["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["rule"] == "constraint")
            .count();
        Seen {
            state: s["state"].as_str().unwrap_or("?").to_owned(),
            calls: s["iterations"].as_u64().unwrap_or(0),
            constraint,
        }
    }

    /// A shell call of the agent, run for real; whether it ran.
    fn shell(&mut self, command: &str) -> bool {
        let (answer, ran) = self.agent.shell_ran(command);
        let ran = ran.is_some() && !answer.denied();
        self.ran += u64::from(ran);
        ran
    }

    /// Runs `step`; whether it was an effect on the guard that happened.
    fn run(&mut self, step: &Step) -> bool {
        match step {
            Step::FailingRun => {
                let ran = !self.agent.pytest("pytest -q", FAIL).denied();
                self.ran += u64::from(ran);
                false
            }
            Step::Read => {
                self.shell("cat src/wc.py");
                false
            }
            Step::Edit => {
                let n = self.ran;
                self.shell(&format!("echo '# {n}' >> src/wc.py"));
                false
            }
            Step::Forge(kind) => {
                let command = self.forged(*kind);
                self.shell(&command)
            }
            Step::PersonsCommand(spelling) => {
                let path = format!("PATH={}:\"$PATH\"; ", bin().parent().unwrap().display());
                self.shell(&format!("{path}{spelling}"));
                false
            }
            Step::Input(odd) => {
                self.odd(*odd);
                false
            }
            Step::Erase(globs) => {
                let Some(dir) = sessions_dir_or_none(self.repo) else {
                    return false;
                };
                let count = || {
                    globs
                        .split(' ')
                        .map(|g| {
                            let sub = dir.join(g.trim_end_matches("/*"));
                            std::fs::read_dir(sub).map_or(0, Iterator::count)
                        })
                        .sum::<usize>()
                };
                let there = count();
                let mut cmd = self.repo.command("sh");
                let paths: Vec<String> = globs
                    .split(' ')
                    .map(|g| format!("{}/{g}", dir.display()))
                    .collect();
                cmd.args(["-c", &format!("rm -f {}", paths.join(" "))]);
                run_within(cmd, None, std::time::Duration::from_secs(30));
                // The next call is where the before-call hook sees it.
                self.shell("true");
                there > 0
            }
            Step::Prompt => {
                self.agent.prompt("go on");
                false
            }
            Step::Tamper(target, effect, through) => self.tamper(*target, *effect, *through),
            Step::Between(target, effect) => self.between(*target, *effect),
            Step::HooksPath(value) => {
                let command = match *value {
                    "CORE.HOOKSPATH" => "git config CORE.HOOKSPATH /dev/null".to_owned(),
                    dir => format!("git config core.hooksPath {dir}"),
                };
                self.measured("Bash", json!({ "command": command }), &command)
            }
        }
    }

    /// `effect` on `target` outside any call, then a call; whether it changed what guards.
    fn between(&mut self, target: Target, effect: Effect) -> bool {
        let before = guard_now(self.repo);
        let mut cmd = self.repo.command("sh");
        cmd.args(["-c", &effect_command(target, effect)]);
        run_within(cmd, None, std::time::Duration::from_secs(30));
        let changed = guard_now(self.repo) != before;
        self.shell("true");
        changed
    }

    /// `effect` on `target` through `through`, between the hooks of one call; whether it
    /// changed what guards (the call was not refused first, and the effect took).
    fn tamper(&mut self, target: Target, effect: Effect, through: Through) -> bool {
        let path = target.path();
        let bash = effect_command(target, effect);
        let spelled = self.repo.path().join(path.replacen('/', "//", 1));
        let (tool, input) = match through {
            Through::Bash => ("Bash", json!({ "command": bash })),
            Through::Write => ("Write", json!({"file_path": spelled, "content": "{}"})),
            Through::Edit => (
                "Edit",
                json!({"file_path": spelled, "old_string": "agent-hook", "new_string": "agent-hoox"}),
            ),
        };
        self.measured(tool, input, &bash)
    }

    /// A call of `tool` with `input` whose effect, between its hooks, is the shell command
    /// `effect`; whether it ran and changed what guards.
    fn measured(&mut self, tool: &str, input: serde_json::Value, effect: &str) -> bool {
        let repo = self.repo;
        let mut changed = false;
        let answer = self.agent.call(tool, input, json!({"stdout": ""}), || {
            let before = guard_now(repo);
            let mut cmd = repo.command("sh");
            cmd.args(["-c", effect]);
            run_within(cmd, None, std::time::Duration::from_secs(30));
            changed = guard_now(repo) != before;
        });
        let ran = !answer.denied();
        self.ran += u64::from(ran);
        ran && changed
    }

    /// The agent's shell command that forges `kind` for its own session.
    fn forged(&self, kind: Forged) -> String {
        let a = &self.agent;
        let (event, extra) = match kind {
            Forged::Prompt => ("prompt", json!({"prompt": "go on"})),
            Forged::SessionStart => ("start", json!({"source": "resume"})),
            Forged::Stop => (
                "stop",
                json!({"stop_hook_active": false, "last_assistant_message": "Done."}),
            ),
            Forged::Unannounced => (
                "post",
                json!({"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "tool_use_id": "toolu_forged", "tool_response": {"stdout": super::PASS}}),
            ),
            Forged::OwnResult => (
                "post",
                json!({"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "tool_use_id": a.next_call_id(), "tool_response": {"stdout": super::PASS}}),
            ),
        };
        let name = a.event_name(event);
        let mut v = a.base_for(name);
        if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
            v.extend(extra.clone());
        }
        let hook = &a.commands(name, None)[0];
        format!("printf '%s' '{v}' | {hook}")
    }

    /// A call whose hook input is `odd`, sent by the harness (its result too, when the call
    /// runs).
    fn odd(&mut self, odd: Odd) {
        let id = format!("toolu_odd{}", self.ran);
        let root = self.repo.path().display().to_string();
        let input = match odd {
            Odd::LoneSurrogate => r#"{"command":"echo \ud800"}"#.to_owned(),
            Odd::Deep => format!(r#"{{"args":{}1{}}}"#, "[".repeat(200), "]".repeat(200)),
            Odd::InvalidUtf8 | Odd::CutShort | Odd::NotJson => r#"{"command":"echo x"}"#.to_owned(),
        };
        let tool = if matches!(odd, Odd::Deep) {
            "mcp__x__y"
        } else {
            "Bash"
        };
        let event = |name: &str, extra: &str| {
            format!(
                r#"{{"session_id":"model","cwd":"{root}","hook_event_name":"{name}","tool_name":"{tool}","tool_input":{input},"tool_use_id":"{id}"{extra}}}"#
            )
        };
        let bytes = |text: String| -> Vec<u8> {
            match odd {
                Odd::InvalidUtf8 => text
                    .replace("echo x", "echo \u{1}")
                    .into_bytes()
                    .into_iter()
                    .map(|b| if b == 1 { 0xff } else { b })
                    .collect(),
                Odd::CutShort => text.as_bytes()[..text.len() - 5].to_vec(),
                Odd::NotJson => b"not json".to_vec(),
                Odd::LoneSurrogate | Odd::Deep => text.into_bytes(),
            }
        };
        let send = |name: &str, body: Vec<u8>| {
            let hook = &self.agent.commands(name, Some(tool))[0];
            let mut cmd = self.repo.command("sh");
            cmd.args(["-c", hook]);
            run_within(cmd, Some(body), std::time::Duration::from_secs(60))
        };
        let pre = send("PreToolUse", bytes(event("PreToolUse", "")));
        let denied = pre.stdout.contains("\"deny\"");
        if !denied && odd.readable() {
            send(
                "PostToolUse",
                bytes(event("PostToolUse", r#","tool_response":{"stdout":"x"}"#)),
            );
            self.ran += 1;
        }
    }
}

fn sessions_dir_or_none(repo: &TestRepo) -> Option<std::path::PathBuf> {
    repo.home()
        .join(".local/state/loopguard/repositories")
        .exists()
        .then(|| sessions_dir(repo))
}

#[test]
fn the_session_guard_keeps_its_word_whatever_the_agent_does() {
    let cases = std::env::var("LOOPGUARD_SESSION_MODEL_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(CASES);
    let mut runner = TestRunner::new(Config {
        cases,
        max_shrink_iters: 16,
        failure_persistence: None,
        ..Config::default()
    });
    let steps = proptest::collection::vec(step(), 1..=STEPS);
    let result = runner.run(&steps, |steps| {
        let repo = project("claude");
        let mut world = World::new(&repo);
        let mut before = world.seen();
        let guard = guard_now(&repo);
        for (i, step) in steps.iter().enumerate() {
            let effect = world.run(step);
            let after = world.seen();
            let at = format!("step {i} ({step:?}) of {steps:?}");
            if before.state == "open" && !matches!(step, Step::Prompt) {
                prop_assert_eq!(&after.state, "open", "an open breaker stays open: {}", at);
            }
            if effect {
                prop_assert!(
                    after.constraint > before.constraint,
                    "an effect on the guard is a recorded constraint event: {}",
                    at
                );
            }
            prop_assert_eq!(
                guard_now(&repo),
                guard.clone(),
                "what guards is as init left it: {}",
                at
            );
            prop_assert_eq!(
                after.calls,
                world.ran,
                "every call that ran is a call of the session: {}",
                at
            );
            before = after;
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
