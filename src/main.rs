//! The `iolab` binary: parse, call app, map the error chain to an exit code.

#![deny(unsafe_code)]

use clap::FromArgMatches;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Asked by a completion script (IOLAB_COMPLETE): answer and exit.
    iolab::app::complete_if_asked();
    let matches = iolab::app::command().get_matches();
    let cli = match iolab::cli::Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    };
    match iolab::app::dispatch(cli) {
        Ok(code) => code,
        Err(err) => report_error(&err),
    }
}

/// Usage errors exit 2, a run stopped by a signal 128 + the signal (130 for
/// Ctrl-C, 143 for SIGTERM), a reader of the output that closed early
/// (`iolab history | head`) 0 without a word, as is normal in a pipeline,
/// anything else 1. A command that ends without an error chooses its own
/// status: `run` 1 when a case failed, `compare` 1 on a regression
/// (`app.rs`).
fn report_error(err: &anyhow::Error) -> ExitCode {
    let broken_pipe = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::SUCCESS;
    }
    if let Some(usage) = err.downcast_ref::<iolab::error::UsageError>() {
        eprintln!("error: {}", one_line(&usage.to_string()));
        return ExitCode::from(2);
    }
    if let Some(interrupted) = err.downcast_ref::<iolab::error::Interrupted>() {
        eprintln!("{interrupted}");
        return ExitCode::from(interrupted.exit_status());
    }
    eprintln!("error: {}", one_line(&format!("{err:#}")));
    ExitCode::from(1)
}

/// An error as one line a terminal may print: it can quote what a file or
/// a peer held, control characters and line breaks included.
fn one_line(text: &str) -> String {
    iolab::format::printable(text, usize::MAX)
}
