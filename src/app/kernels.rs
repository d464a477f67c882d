//! `run --kernel K...` and `claims --across RUN... --kernels`: the same
//! suite under other kernels (`guest`), each stored as a run of its
//! kernel, and the claims of the host's run and the guests' as one matrix
//! of claim x kernel (`claims::kernels`) on the terminal and, with
//! `--html`, as a page (`report::kernels_view`).

use super::keep::keep;
use crate::claims::kernels::{self, KernelRun};
use crate::cli::{ClaimsArgs, RunArgs};
use crate::error::UsageError;
use crate::guest::{self, Kernel};
use crate::model::Run;
use crate::store::Store;

/// Checks what `--kernel` needs before anything runs: the options it
/// cannot go with, the tools to boot a guest, and each kernel named.
pub(super) fn prepare(args: &RunArgs) -> anyhow::Result<Vec<Kernel>> {
    let refused = [
        (args.peer.is_some(), "--peer"),
        (args.repeat_runs.is_some(), "--repeat-runs"),
        (
            args.json.as_deref() == Some(std::path::Path::new("-")),
            "--json -",
        ),
        (
            args.csv.as_deref() == Some(std::path::Path::new("-")),
            "--csv -",
        ),
    ];
    if let Some((_, option)) = refused.iter().find(|(given, _)| *given) {
        return Err(UsageError::new(format!(
            "--kernel cannot go with {option}: the guests run the suite on this host's own cases, \
             and print the matrix on stdout"
        ))
        .into());
    }
    guest::prereq::check()?;
    guest::kernel::resolve(&args.kernels, args.install_kernels)
}

/// The arguments of `iolab run` in a guest: what chooses and sizes the
/// cases, nothing that writes, stores or reaches another host.
fn guest_args(args: &RunArgs) -> Vec<String> {
    let mut out: Vec<String> = args.targets.clone();
    let mut pair = |flag: &str, value: &Option<String>| {
        if let Some(v) = value {
            out.push(format!("--{flag}={v}"));
        }
    };
    pair("repeat", &args.repeat);
    pair("precision", &args.precision);
    pair("warmup", &args.warmup);
    pair("label", &args.label);
    pair("seed", &args.seed.map(|s| s.to_string()));
    for (flag, list) in [("mech", &args.mech), ("placement", &args.placement)] {
        if !list.is_empty() {
            out.push(format!("--{flag}={}", list.join(",")));
        }
    }
    out.extend(args.params.iter().map(|p| format!("--param={p}")));
    let mode = match args.mode {
        crate::cli::ModeArg::Threads => "threads",
        crate::cli::ModeArg::Processes => "processes",
    };
    out.push(format!("--mode={mode}"));
    if args.quick {
        out.push("--quick".into());
    }
    out
}

/// Runs the suite under each kernel of `kernels`, stores each run, and
/// prints the matrix of `host` and the guests' runs.
pub(super) fn run_guests(
    args: &RunArgs,
    kernels: &[Kernel],
    mut store: Option<&mut Store>,
    host: &Run,
) -> anyhow::Result<Vec<Run>> {
    let accel = guest::accel::choose(&args.guest_accel, &args.guest_cpu, &kernels[0])?;
    let boot = guest::Boot {
        accel,
        mirror: guest::mirror::Mirror::of_host(),
    };
    let guest_args = guest_args(args);
    let mut runs = Vec::new();
    for kernel in kernels {
        if !args.quiet {
            eprintln!(
                "guest: {} ({}, {} CPUs, {} MiB): iolab run {}",
                kernel.release,
                boot.accel.name(),
                boot.mirror.cpus,
                boot.mirror.memory_mib,
                guest_args.join(" ")
            );
        }
        let run = guest::run(kernel, &boot, &guest_args)?;
        if let Some(store) = store.as_deref_mut() {
            keep(store, &run, &args.db, args.quiet, None)?;
        }
        runs.push(run);
    }
    if !args.quiet {
        let mut all: Vec<&Run> = vec![host];
        all.extend(&runs);
        print_matrix(&all)?;
        if !args.no_store {
            let ids: Vec<&str> = all.iter().map(|r| r.run_id.as_str()).collect();
            eprintln!(
                "again: iolab claims --across {} --kernels [--html FILE]",
                ids.join(" ")
            );
        }
    }
    Ok(runs)
}

fn matrix(runs: &[&Run]) -> kernels::Matrix {
    let columns: Vec<KernelRun> = runs
        .iter()
        .map(|r| KernelRun {
            run_id: &r.run_id,
            environment: &r.environment,
            claims: &r.claims,
        })
        .collect();
    kernels::build(&columns, &guest::kernel::installed())
}

fn print_matrix(runs: &[&Run]) -> anyhow::Result<()> {
    let mut out = crate::stdout::lock();
    kernels::render::write(&mut out, &matrix(runs))?;
    Ok(())
}

/// `iolab claims --across RUN... --kernels [--html FILE]`.
pub(super) fn claims_kernels(store: &mut Store, args: &ClaimsArgs) -> anyhow::Result<()> {
    let mut runs = Vec::new();
    for selector in &args.across {
        runs.push(store.load(selector)?);
    }
    let refs: Vec<&Run> = runs.iter().collect();
    let m = matrix(&refs);
    if let Some(path) = &args.html {
        crate::report::kernels_view::write(path, &m)?;
    }
    kernels::render::write(&mut crate::stdout::lock(), &m)?;
    Ok(())
}
