use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = loopguard::cli::Cli::parse();
    // A hook reports its own failures and never fails git for them (`hook` decides); one
    // that fails before it starts goes on too.
    let hook = matches!(cli.command, loopguard::cli::Command::Hook(_));
    let at = loopguard::settings::Invocation {
        by_a_hook: matches!(
            cli.command,
            loopguard::cli::Command::Hook(_) | loopguard::cli::Command::AgentHook(_)
        ),
        test_knobs: cli.test_knobs,
    };
    let result = loopguard::settings::Settings::capture(at)
        .map_err(|e| anyhow::Error::new(e).context("cannot read the working directory"))
        .and_then(|(settings, problems)| loopguard::commands::run(cli, settings, problems));
    match result {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`loopguard report | head`) is not an error.
        Err(err) if loopguard::error::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            loopguard::commands::Ui::error(&err);
            if hook {
                return ExitCode::SUCCESS;
            }
            ExitCode::from(loopguard::error::exit_code_of(&err))
        }
    }
}
