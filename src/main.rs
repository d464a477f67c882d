//! The `iolab` binary: parse, call app, map the error chain to an exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = iolab::cli::Cli::parse();
    match iolab::app::dispatch(cli) {
        Ok(code) => code,
        Err(err) => report_error(&err),
    }
}

/// Usage errors exit 2, an interrupted run 130, anything else 1.
fn report_error(err: &anyhow::Error) -> ExitCode {
    if let Some(usage) = err.downcast_ref::<iolab::error::UsageError>() {
        eprintln!("error: {usage}");
        return ExitCode::from(2);
    }
    if err.downcast_ref::<iolab::error::Interrupted>().is_some() {
        eprintln!("{err}");
        return ExitCode::from(130);
    }
    eprintln!("error: {err:#}");
    ExitCode::from(1)
}
