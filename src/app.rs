//! The commands, each a short pipeline: run / list / env / history / show.

use crate::cli::{Cli, Command};
use std::process::ExitCode;

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        _ => anyhow::bail!("not yet wired"),
    }
}
