use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = loopguard::cli::Cli::parse();
    // A hook reports its own failures and never fails git for them (`hook` decides); one
    // that fails before it starts goes on too.
    let hook = matches!(cli.command, loopguard::cli::Command::Hook(_));
    let result = loopguard::env::Env::capture()
        .map_err(anyhow::Error::from)
        .and_then(|env| loopguard::commands::run(cli, env));
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // A closed pipe (`loopguard report | head`) is not an error.
            if err
                .chain()
                .filter_map(|e| e.downcast_ref::<std::io::Error>())
                .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            loopguard::commands::Ui::error(&format!("{err:#}"));
            if hook {
                return ExitCode::SUCCESS;
            }
            ExitCode::from(loopguard::error::exit_code_of(&err))
        }
    }
}
