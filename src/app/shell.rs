//! `iolab completions SHELL` and `iolab man`: generated from the clap types
//! (`cli.rs`) by clap_complete and clap_mangen. The names the types do not
//! hold, because `plan/` checks them with its own messages (scenarios,
//! suites, mechanisms, placements, parameters), are added here as the
//! values to complete; parsing the command line never sees them.

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use anyhow::Context;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::CommandFactory;
use clap_complete::Shell;
use std::process::ExitCode;

/// `iolab completions SHELL`: the script on stdout.
pub(super) fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = with_names(Cli::command(), args.shell);
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "iolab", &mut script);
    super::out(&String::from_utf8(script)?)?;
    Ok(ExitCode::SUCCESS)
}

/// `iolab man`: iolab's page on stdout, or with `--dir` one page per
/// command (`iolab.1`, `iolab-run.1`, ...) written there.
pub(super) fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    let cmd = Cli::command();
    let Some(dir) = &args.dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        super::out(&String::from_utf8(page)?)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    clap_mangen::generate_to(cmd, dir)
        .with_context(|| format!("cannot write the man pages into {}", dir.display()))?;
    super::out(&format!(
        "wrote the man pages of iolab and its commands into {}\n",
        dir.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// The command with the names to complete: scenarios and suites as `run`'s
/// targets, mechanisms and placements for `--mech` and `--placement`,
/// scenarios where a command takes one; and, in fish, which puts no space
/// after a completed `KEY=`, the parameters of `--param` (bash and zsh
/// would, leaving `size= 64`).
fn with_names(cmd: clap::Command, shell: Shell) -> clap::Command {
    use crate::scenario::{self, suite};
    let mut targets = scenario::names();
    targets.extend(suite::ALL.iter().map(|s| s.name));
    let mut mechs = crate::mechanism::names();
    mechs.push("all");
    let placements: Vec<&str> = crate::measure::pin::ALL_PLACEMENTS
        .iter()
        .map(|p| p.name())
        .collect();
    let values = |names: &[&str]| {
        PossibleValuesParser::new(names.iter().map(|n| PossibleValue::new(n.to_string())))
    };
    let scenarios = scenario::names();
    let mut cmd = cmd
        .mut_subcommand("run", |run| {
            let run = run
                .mut_arg("targets", |a| a.value_parser(values(&targets)))
                .mut_arg("mech", |a| a.value_parser(values(&mechs)))
                .mut_arg("placement", |a| a.value_parser(values(&placements)));
            match shell {
                Shell::Fish => {
                    let keys = param_keys();
                    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                    run.mut_arg("params", |a| a.value_parser(values(&keys)))
                }
                _ => run,
            }
        })
        .mut_subcommand("fleet", |c| {
            c.mut_arg("scenario", |a| a.value_parser(values(&scenarios)))
        });
    for command in ["list", "history"] {
        cmd = cmd.mut_subcommand(command, |c| {
            c.mut_arg("scenario", |a| a.value_parser(values(&scenarios)))
        });
    }
    cmd
}

/// Every scenario's parameter names, each as `KEY=`.
fn param_keys() -> Vec<String> {
    let mut keys: Vec<String> = crate::scenario::ALL
        .iter()
        .flat_map(|s| s.params().iter())
        .map(|p| format!("{}=", p.name))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_a_value_to_complete() {
        let cmd = with_names(Cli::command(), Shell::Fish);
        let run = cmd.find_subcommand("run").unwrap();
        let possible = |id: &str| -> Vec<String> {
            let arg = run.get_arguments().find(|a| a.get_id() == id).unwrap();
            arg.get_possible_values()
                .iter()
                .map(|v| v.get_name().to_string())
                .collect()
        };
        let targets = possible("targets");
        for name in ["pingpong", "stream", "quick", "seeds"] {
            assert!(targets.iter().any(|t| t == name), "{name}: {targets:?}");
        }
        assert!(possible("mech").iter().any(|m| m == "eventfd"));
        assert!(possible("placement").iter().any(|p| p == "cross-cpu"));
        assert!(possible("params").iter().any(|p| p == "size="));
    }
}
