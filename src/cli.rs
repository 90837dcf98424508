//! The command line (clap only). Parsed once into plain values; clap never reaches the
//! engine.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::Profile;
use crate::session::Harness;

const AFTER_HELP: &str = "\
Exit codes: 0 done (breaker closed or half-open); 1 the breaker is open (check, replay, ci,
event, hook pre-commit, hook pre-push, status --exit-code); 2 bad usage, invalid configuration
or input; 3 environment failure (not a git repository, git, I/O, GitHub API).
`run -- CMD` passes the test command's own exit status through, and exits 86 when this
iteration trips the breaker.";

#[derive(Debug, Parser)]
#[command(
    name = "loopguard",
    version,
    about = "Stops autonomous coding agents from looping: a circuit breaker over commits, test failures and CI runs",
    after_help = AFTER_HELP,
    propagate_version = true
)]
pub struct Cli {
    /// Run as if started in this directory.
    #[arg(short = 'C', global = true, value_name = "PATH")]
    pub dir: Option<PathBuf>,

    /// The tests' knobs (`LOOPGUARD_NOW`, …) where the environment alone may not set them:
    /// in a hook, a coding agent's hook, a GitHub Actions job; with `init`, the shims ask
    /// for them too. Debug builds only: a release build has no knobs.
    #[arg(long, global = true, hide = true)]
    pub test_knobs: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set up loopguard in this repository: hooks, config, a run for the current branch.
    Init(InitArgs),
    /// Remove loopguard's hooks and put back the hooks that were there before.
    Uninstall(UninstallArgs),
    /// Called by the hook shims that `init` installs.
    Hook(HookArgs),
    /// Called by a coding agent's hooks (`init --agent`): the event's JSON on stdin, the
    /// answer in the agent's own format on stdout; always exits 0.
    AgentHook(AgentHookArgs),
    /// Show the breaker of the current branch's run.
    Status(StatusArgs),
    /// Judge a range of commits without writing anything.
    Check(CheckArgs),
    /// Judge recorded iterations (JSON lines, oldest first), e.g. to try a policy.
    Replay(ReplayArgs),
    /// Print the failure fingerprint of test output or a test report (JUnit, TRX, xUnit, NUnit XML).
    Fingerprint(FingerprintArgs),
    /// Run the test command, show its output, and record the outcome on HEAD.
    #[command(
        after_help = "Exit status: the test command's own while the breaker stays closed; 86 when this \
                      iteration trips the breaker, or when it is open and blocks (no ordinary test \
                      runner exits 86)."
    )]
    Run(RunArgs),
    /// Record the outcome of existing test logs or test reports (JUnit, TRX, xUnit, NUnit XML).
    Ingest(IngestArgs),
    /// Record a transition of an agent harness (planner -> researcher, ...).
    Event(EventArgs),
    /// End the run with its terminal status.
    Finish(JsonArgs),
    /// Let the agent try again: open -> half-open (the next iteration decides).
    Resume(ResumeArgs),
    /// Close the breaker and start a new run for the current branch (a person's act).
    Reset(ResetArgs),
    /// The run's report: status, counters, stop reason, a picture of the loop, iterations.
    Report(ReportArgs),
    /// The GitHub Actions entry point (see action.yml).
    Ci(CiArgs),
    /// Keep one issue listing every agent PR (stuck first), and resume the ticked ones.
    Dashboard(DashboardArgs),
    /// Print shell completions.
    Completions(CompletionsArgs),
    /// Print the man page (roff), for packagers: `loopguard man > loopguard.1`.
    #[command(hide = true)]
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Write `.loopguard.yml` with this profile (strict: more attempts; yolo: fewer).
    #[arg(long, value_parser = parse_profile)]
    pub profile: Option<Profile>,
    /// Set up the config and the run, but install no hooks.
    #[arg(long)]
    pub no_hooks: bool,
    /// Overwrite an existing `.loopguard.yml` with `--profile`'s.
    #[arg(long)]
    pub force: bool,
    /// Show no preview of what the config would have done on the recent history.
    #[arg(long)]
    pub no_preview: bool,
    /// Also hook into these coding agents (their project hook config); repeat or separate
    /// with commas. With --no-hooks, only these.
    #[arg(long = "agent", value_name = "AGENT", value_delimiter = ',', value_parser = harness_parser())]
    pub agents: Vec<Harness>,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Take loopguard's entries out of these agents' hook configs only (the git hooks
    /// stay); without it, the git hooks are removed.
    #[arg(long = "agent", value_name = "AGENT", value_delimiter = ',', value_parser = harness_parser())]
    pub agents: Vec<Harness>,
}

#[derive(Debug, Args)]
pub struct AgentHookArgs {
    /// The agent whose hook this is.
    #[arg(value_parser = harness_parser())]
    pub agent: Harness,
    /// The event, where the agent's input does not name it.
    pub event: Option<String>,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A coding agent's session instead of the branch (its id, or the start of it).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

/// An agent by its name: one of the harnesses' descriptors (help and completions list
/// them).
fn harness_parser() -> impl clap::builder::TypedValueParser<Value = Harness> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Harness::ALL.iter().map(|h| h.as_str())).map(|s| {
        s.parse::<Harness>()
            .expect("a possible value is a harness's name")
    })
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookName {
    PostCommit,
    PostRewrite,
    PreCommit,
    PrePush,
    ReferenceTransaction,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    pub name: HookName,
    /// The arguments git gave the hook.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when the breaker is open.
    #[arg(long)]
    pub exit_code: bool,
    /// A coding agent's session instead of the branch (its id, or the start of it).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

#[derive(Debug, Args)]
pub struct ResetArgs {
    /// Make `.loopguard.yml` as it is in the working tree the config in force (it must be
    /// valid); without it the new run keeps the config the old one was judged by.
    #[arg(long)]
    pub accept_config: bool,
    /// A coding agent's session instead of the branch (its id, or the start of it).
    #[arg(long, value_name = "ID", conflicts_with = "accept_config")]
    pub session: Option<String>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Commits to judge, e.g. `main..HEAD` (default: the current run's commits).
    #[arg(long, value_name = "REV_RANGE", conflicts_with = "windows")]
    pub range: Option<String>,
    /// Judge the newest N windows of first-parent commits before HEAD, each from scratch
    /// as a run of its own (with `agents` configured, of the agent's commits): what the
    /// config would have done on this history. Exit 1 when a window trips.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub windows: Option<u32>,
    /// Commits in each window of `--windows`.
    #[arg(long, value_name = "K", default_value_t = 20, requires = "windows", value_parser = clap::value_parser!(u32).range(2..=1_000))]
    pub size: u32,
    /// Config file to use instead of `.loopguard.yml`.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// Iteration records, one JSON object per line (`-`: standard input).
    #[arg(value_name = "FILE.jsonl|-")]
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct FingerprintArgs {
    #[arg(long)]
    pub json: bool,
    /// The exit code of the run that wrote the logs: a failing run (not 0) in which no
    /// failure is found gets the generic signature of what its output says failed.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub exit_code: Option<i32>,
    /// Logs or test reports: JUnit, TRX, xUnit or NUnit XML (`-` or none: standard input).
    #[arg(value_name = "FILE|-")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The test command and its arguments.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CMD"
    )]
    pub command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// The exit code of the run that wrote the files (0 = passed).
    #[arg(long, value_name = "N")]
    pub exit_code: Option<i32>,
    /// The commit the evidence belongs to (default: HEAD).
    #[arg(long, value_name = "REV")]
    pub commit: Option<String>,
    #[arg(long)]
    pub json: bool,
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct EventArgs {
    /// The transition, e.g. `planner_to_researcher`.
    #[arg(long, value_name = "NAME")]
    pub edge: String,
    /// The harness made progress (new files changed, a new test result, better research).
    #[arg(long)]
    pub progress: bool,
    /// What this step asks (a search query, a prompt); a repeat is no new information.
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,
    /// Tokens this step used.
    #[arg(long, value_name = "N")]
    pub tokens: Option<u64>,
    /// What this step cost.
    #[arg(long, value_name = "AMOUNT")]
    pub cost: Option<f64>,
    /// Why the harness takes this edge (the edge keeps a short history of reasons, shown
    /// in `status` and the report).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct JsonArgs {
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub format: ReportFormat,
    /// A coding agent's session instead of the branch (its id, or the start of it).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

/// Without a format flag: plain text when stdout is a terminal, markdown otherwise (a
/// file, a pipe, a CI log).
#[derive(Debug, Args)]
#[group(id = "format", multiple = false)]
pub struct ReportFormat {
    /// The status document with the iteration records and the run's events.
    #[arg(long)]
    pub json: bool,
    /// One self-contained HTML page (inline SVG and CSS, no script, nothing fetched).
    #[arg(long)]
    pub html: bool,
    /// Markdown, also on a terminal.
    #[arg(long)]
    pub markdown: bool,
    /// Plain text, also when stdout is not a terminal.
    #[arg(long)]
    pub text: bool,
}

#[derive(Debug, Args)]
pub struct CiArgs {
    /// Test logs of this run (paths or globs; repeatable).
    #[arg(long, value_name = "FILE")]
    pub log: Vec<String>,
    /// Test reports of this run: JUnit, TRX, xUnit or NUnit XML (paths or globs; repeatable).
    #[arg(long, value_name = "FILE")]
    pub junit: Vec<String>,
    /// Print the GitHub writes it would make, make none.
    #[arg(long)]
    pub dry_run: bool,
    /// Config file in the base commit (default `.loopguard.yml`).
    #[arg(long, value_name = "PATH")]
    pub config: Option<String>,
}

#[derive(Debug, Args)]
pub struct DashboardArgs {
    /// Print the GitHub writes it would make, make none.
    #[arg(long)]
    pub dry_run: bool,
    /// Config file (default: `.loopguard.yml` of the checkout, else of the commit the
    /// workflow runs on).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the dashboard as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write loopguard.1 and one page per command (loopguard-init.1, ...) into DIR instead.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn run_takes_everything_after_the_double_dash() {
        let cli = Cli::try_parse_from([
            "loopguard",
            "run",
            "--",
            "cargo",
            "test",
            "--",
            "--nocapture",
        ])
        .unwrap();
        match cli.command {
            Command::Run(r) => assert_eq!(r.command, ["cargo", "test", "--", "--nocapture"]),
            other => panic!("{other:?}"),
        }
        let cli = Cli::try_parse_from(["loopguard", "run", "pytest", "-q"]).unwrap();
        assert!(matches!(cli.command, Command::Run(r) if r.command == ["pytest", "-q"]));
    }

    #[test]
    fn hook_args_pass_through() {
        let cli = Cli::try_parse_from(["loopguard", "hook", "pre-push", "origin", "git@x:y.git"])
            .unwrap();
        assert!(
            matches!(cli.command, Command::Hook(h) if h.name == HookName::PrePush && h.args.len() == 2)
        );
    }
}
