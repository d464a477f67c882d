//! The command line, as clap derive types; meaning is given in app.rs
//! and validation in plan/. What `--help` shows after the options (notes,
//! examples, exit statuses) is each command's page of the manual
//! (`cli/manual.rs`), put there by `command()`.

pub(crate) mod manual;

use clap::{ArgGroup, Args, CommandFactory, Parser, Subcommand, ValueEnum, ValueHint};
use std::path::PathBuf;

/// The command line iolab parses: the derive types with each command's
/// notes, examples and exit statuses after its options.
pub fn command() -> clap::Command {
    let with_page = |cmd: clap::Command| match manual::page(cmd.get_name()) {
        Some(page) => cmd.after_help(manual::after_help(page)),
        None => cmd,
    };
    let mut cmd = Cli::command();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, with_page);
    }
    let top = manual::page("").expect("iolab's own page");
    cmd.after_help(manual::after_help(top))
}

/// The smallest change that counts, in percent, unless `--min-effect`
/// says otherwise: the repetitions of one run do not see what drifts
/// between two runs (another tenant of the VM, frequency, cache layout),
/// which moves identical runs by a few percent.
pub(crate) const DEFAULT_MIN_EFFECT_PCT: f64 = 5.0;

#[derive(Debug, Parser)]
#[command(
    name = "iolab",
    version,
    about = "A laboratory for Linux IPC and I/O primitives",
    long_about = "iolab re-runs the classic IPC and I/O experiments on this machine and kernel, \
measures them properly (latency percentiles, CPU, context switches, repetitions), verifies \
that the data really moved, and keeps every run in a SQLite store.\n\n\
Start with `iolab run` (the quick suite, about a minute), then `iolab history` and \
`iolab show latest`."
)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run scenarios or suites (default: the quick suite) and store the results
    Run(Box<RunArgs>),
    /// List scenarios, mechanisms and suites, and what this machine supports
    List(ListArgs),
    /// Print this machine's environment fingerprint
    Env(EnvArgs),
    /// List the runs in the store
    History(HistoryArgs),
    /// Show a stored run as the table, or write it as JSON, CSV, Markdown or an export
    Show(ShowArgs),
    /// Write a stored run as an HTML page with charts, as Markdown, or for Prometheus, Bencher, github-action-benchmark
    Report(ReportArgs),
    /// Compare two stored runs case by case: ratios and their significance
    Compare(CompareArgs),
    /// Which classic claims (E1-E6) hold in a stored run, with the evidence
    Claims(ClaimsArgs),
    /// Store a run saved as JSON: by `run --json`, or by a run whose storing failed
    Import(ImportArgs),
    /// Copy stored runs into another store, e.g. a team's PostgreSQL fleet store
    Push(PushArgs),
    /// One metric of a scenario's cases across every host and kernel in the store
    Fleet(FleetArgs),
    /// Serve the far side of `iolab run --peer` cases from this host
    Agent(AgentArgs),
    /// Compare two cases in randomized interleaved rounds: their paired ratio, its interval and a verdict
    Ab(AbArgs),
    /// Watch a running program (or start one): its IPC channels, what each costs, with a tracer on only a small share of the time
    Doctor(DoctorArgs),
    /// Print the completion script of a shell (bash, zsh, fish, ...) to source or install
    Completions(CompletionsArgs),
    /// Print iolab's man page (roff), or write one page per command into a directory
    Man(ManArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// Each side is its own thread in one process
    Threads,
    /// Each side is its own forked process
    Processes,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Scenarios or suites to run (see `iolab list`); default: quick
    #[arg(value_name = "SCENARIO|SUITE")]
    pub(crate) targets: Vec<String>,
    /// Mechanisms to use, comma-separated, or all (the default: every one,
    /// unsupported ones listed with the reason)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(crate) mech: Vec<String>,
    /// Placements: same-cpu, cross-cpu, unpinned, smt-sibling, shared-l2, shared-l3, cross-l3, cross-node (default: same-cpu,cross-cpu)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(crate) placement: Vec<String>,
    /// Run the two sides as threads or processes
    #[arg(long, value_enum, default_value = "processes")]
    pub(crate) mode: ModeArg,
    /// Set a scenario parameter, e.g. size=1,64,4096 (repeatable; a list sweeps)
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub(crate) params: Vec<String>,
    /// Small sizes: a suite runs its `-quick` variant (e.g. seeds-quick) or
    /// the quick suite's entries for its scenarios; a scenario its quick entry
    #[arg(long)]
    pub(crate) quick: bool,
    /// Repetitions per case; the headline is their median (default 5, or the suite's)
    #[arg(long, value_name = "N")]
    pub(crate) repeat: Option<String>,
    /// Run the whole invocation K times as independent runs (each stored),
    /// then print the CV of each case's headline across them (K from 2 to 1000; not
    /// with --json/--csv: `iolab show RUN --json` gives each run)
    #[arg(long, value_name = "K")]
    pub(crate) repeat_runs: Option<String>,
    /// Repeat each case in further batches until the 95% interval of its
    /// headline's median is within PCT of it (e.g. 2%), at most 10x the
    /// repetitions (at least 30; 4x and 10 under the default) and 10 s per
    /// case; `off` for none (default: 2%; suites, --quick and --repeat N
    /// only report the interval)
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub(crate) precision: Option<String>,
    /// The seed of the interleaved rounds in a suite that decides claims
    /// (seeds): the cases a claim compares run as rounds, one repetition
    /// of each per round in an order drawn from it, until the claims are
    /// decided or 35 s per group of compared cases (10 s with --quick)
    /// (default: drawn from the clock; stored with every result)
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// Untimed warm-up operations before the repetitions (default: a tenth of count)
    #[arg(long, value_name = "N")]
    pub(crate) warmup: Option<String>,
    /// A label stored with the run, e.g. a kernel or host name
    #[arg(long, value_name = "TEXT")]
    pub(crate) label: Option<String>,
    /// Write the run as JSON to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) json: Option<PathBuf>,
    /// Write one CSV row per result to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) csv: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) exports: ExportArgs,
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB", value_hint = ValueHint::FilePath)]
    pub(crate) db: Option<PathBuf>,
    /// Do not store the run
    #[arg(long)]
    pub(crate) no_store: bool,
    /// Once the run is stored here, push it, and every run still pending
    /// for DB, to the store DB (e.g. the team's postgresql:// fleet store;
    /// default: $IOLAB_PUSH); a run that cannot reach DB stays stored here
    /// and pending, for the next --push or `iolab push --pending --to DB`.
    /// A password comes the libpq way: PGPASSWORD, ~/.pgpass or PGPASSFILE,
    /// a service (?service=NAME or PGSERVICE), never needed in the URL
    #[arg(long, value_name = "DB", conflicts_with = "no_store")]
    pub(crate) push: Option<PathBuf>,
    /// Exit 1 when a case is unsupported here too, not only when one failed
    /// (for CI, where every case is expected to run)
    #[arg(long)]
    pub(crate) fail_on_unsupported: bool,
    /// No progress bar and no table (errors and --json/--csv output only)
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Every column and note per case, and each claim's evidence in full
    /// (by default: one row per case with placements side by side, one
    /// line of noise per scenario, one line per claim)
    #[arg(long, short)]
    pub(crate) verbose: bool,
    /// Sample the CPU while each case runs and attach its top kernel and
    /// user functions to the result (perf_event_open; needs root or
    /// perf_event_paranoid <= 1)
    #[arg(long)]
    pub(crate) profile: bool,
    /// Say where each operation's time went: CPU time, run-queue wait,
    /// context switches, IPIs and idle entries per operation, and with
    /// root the scheduler's blocked time, wake-up latency and preemptions
    /// (sched tracepoints), and what is left unattributed (pingpong, stream,
    /// contention; with --profile also each case's off-CPU flame graph)
    #[arg(long)]
    pub(crate) explain: bool,
    /// Run the far side of each case on an `iolab agent` at HOST[:PORT]
    /// (default port 5207): pingpong and stream over tcp or udp, and
    /// file-transfer; --placement then pins the local side
    #[arg(long, value_name = "HOST[:PORT]")]
    pub(crate) peer: Option<String>,
    /// The agent's CPU for the far side (with --peer; default: unpinned)
    #[arg(long, value_name = "N")]
    pub(crate) peer_cpu: Option<String>,
    /// The shared secret the agent asks for (default: $IOLAB_TOKEN)
    #[arg(long, value_name = "TOKEN")]
    pub(crate) token: Option<String>,
    /// Also run the same suite under kernel K in a guest through virtme-ng
    /// (repeatable): an image file, an installed release
    /// (/boot/vmlinuz-K) or a Debian package (linux-image-...); each run is
    /// stored with its kernel, then the claims are shown per kernel
    #[arg(long = "kernel", value_name = "K")]
    pub(crate) kernels: Vec<String>,
    /// Install a --kernel named as a Debian package that is not installed
    /// (apt-get install -y)
    #[arg(long, requires = "kernels")]
    pub(crate) install_kernels: bool,
    /// The guests' CPU: auto (KVM where a probe boot shows it works, else
    /// emulated), kvm or emulated
    #[arg(long, value_name = "HOW", default_value = "auto", value_parser = ["auto", "kvm", "emulated"], requires = "kernels")]
    pub(crate) guest_accel: String,
    /// QEMU's -cpu model for a guest under KVM
    #[arg(long, value_name = "MODEL", default_value = crate::guest::accel::DEFAULT_CPU, requires = "kernels")]
    pub(crate) guest_cpu: String,
    /// Test-only fault injection: corrupt (one message arrives damaged),
    /// stall (pingpong's echoer sleeps once for 50 ms), die-sender (one
    /// fan-in or hackbench sender quits after the start), phantom (a
    /// stream's receiver reports its repetitions as 1 ns long, as if
    /// its messages arrived outside the timed window) or store (the store
    /// refuses the run at the end)
    #[arg(long, hide = true, value_name = "KIND")]
    pub(crate) fault: Option<String>,
}

impl RunArgs {
    /// `iolab run` with every option at clap's default, for a case built in
    /// code (doctor's alternatives) that then sets the fields it needs.
    pub(crate) fn defaults() -> Self {
        use clap::FromArgMatches;
        let command = <Self as Args>::augment_args(clap::Command::new("run"));
        let matches = command
            .try_get_matches_from(["run"])
            .expect("run's options all have defaults");
        Self::from_arg_matches(&matches).expect("run's defaults are its own arguments")
    }
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Show one scenario in full: parameters, defaults and metrics
    #[arg(long, value_name = "NAME")]
    pub(crate) scenario: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct EnvArgs {
    /// Print the fingerprint as JSON
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
    /// Show at most N runs, newest first
    #[arg(long, value_name = "N", default_value = "20")]
    pub(crate) limit: usize,
    /// Only runs made on this host (its host name)
    #[arg(long, value_name = "H")]
    pub(crate) host: Option<String>,
    /// Only runs on this kernel release, or releases it starts (6.1: 6.1.0-18-amd64)
    #[arg(long, value_name = "K")]
    pub(crate) kernel: Option<String>,
    /// Only runs with results of this scenario
    #[arg(long, value_name = "S")]
    pub(crate) scenario: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct PushArgs {
    /// The runs to copy: run ids, `latest` or `latest~N`
    #[arg(value_name = "RUN", required_unless_present = "pending")]
    pub(crate) runs: Vec<String>,
    /// Also copy every run that `iolab run --push` left pending for this
    /// store (it could not reach it), each once
    #[arg(long)]
    pub(crate) pending: bool,
    /// The store to copy them into: a postgresql:// URL (or a file)
    /// (default: $IOLAB_PUSH)
    #[arg(long, value_name = "DB", value_hint = ValueHint::FilePath)]
    pub(crate) to: Option<PathBuf>,
    /// The store to copy them from (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB", value_hint = ValueHint::FilePath)]
    pub(crate) db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct FleetArgs {
    /// The scenario whose cases are compared (see `iolab list`)
    #[arg(value_name = "SCENARIO")]
    pub(crate) scenario: String,
    /// The metric shown (see `iolab list --scenario SCENARIO`)
    #[arg(long, value_name = "M")]
    pub(crate) metric: String,
    /// Only this case (default: every case of the scenario)
    #[arg(long, value_name = "C")]
    pub(crate) case: Option<String>,
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// A run id, `latest` or `latest~N`
    #[arg(value_name = "RUN", default_value = "latest")]
    pub(crate) run: String,
    /// Write the run as JSON to FILE ('-' for stdout) instead of the table
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) json: Option<PathBuf>,
    /// Write one CSV row per result to FILE ('-' for stdout) instead of the table
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) csv: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) exports: ExportArgs,
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ClaimsArgs {
    /// A run id, `latest` or `latest~N`
    #[arg(value_name = "RUN", default_value = "latest")]
    pub(crate) run: String,
    /// Each claim's verdict over several stored runs side by side (ids,
    /// `latest` or `latest~N`), marking the claims whose verdicts differ
    #[arg(long, value_name = "RUN", num_args = 2.., conflicts_with = "run")]
    pub(crate) across: Vec<String>,
    /// With --across: the runs as one column per kernel in version order,
    /// the claims whose verdict turns between adjacent kernels marked with
    /// the cause (a known change, the guest, or unknown) and what to bisect
    #[arg(long, requires = "across")]
    pub(crate) kernels: bool,
    /// With --kernels: also write the matrix as an HTML page to FILE
    #[arg(long, value_name = "FILE", requires = "kernels", value_hint = ValueHint::FilePath)]
    pub(crate) html: Option<PathBuf>,
    /// Write the claims as JSON to FILE ('-' for stdout) instead of the text
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The run's JSON file ('-' for stdin)
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
}

/// clap's own usage line would show RUN as required (`<RUN>`) in an error
/// about a command line that gave it.
const REPORT_USAGE: &str = "iolab report [OPTIONS] <--html <FILE>|--markdown <FILE>> [RUN]
       iolab report [OPTIONS] <--openmetrics <FILE>|--bmf <FILE>|--smaller-is-better <FILE>|--bigger-is-better <FILE>|--hdr <FILE>> [RUN]
       iolab report [OPTIONS] <--html <FILE>|--markdown <FILE>> --compare <A> <B>
       iolab report [OPTIONS] --html <FILE> [RUN] --diff <CASE_A> <CASE_B>
       iolab report [OPTIONS] --fleet --html <FILE>";

#[derive(Debug, Args)]
#[command(
    override_usage = REPORT_USAGE,
    group(ArgGroup::new("output").required(true).multiple(true).args(
        ["html", "markdown", "openmetrics", "bmf", "smaller_is_better", "bigger_is_better", "hdr"]
    )))]
pub(crate) struct ReportArgs {
    /// A run id, `latest` or `latest~N`
    #[arg(
        value_name = "RUN",
        default_value = "latest",
        conflicts_with = "compare"
    )]
    pub(crate) run: String,
    /// Write a self-contained HTML page (inline CSS and SVG) to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) html: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) exports: ExportArgs,
    /// Report two runs together: A (the baseline, dashed or lighter) and B
    #[arg(long, num_args = 2, value_names = ["A", "B"],
          conflicts_with_all = ["openmetrics", "bmf", "smaller_is_better", "bigger_is_better", "hdr"])]
    pub(crate) compare: Vec<String>,
    /// Add the differential flame graph from CASE_A to CASE_B (cases of the run profiled with `run --profile`)
    #[arg(long, num_args = 2, value_names = ["CASE_A", "CASE_B"], requires = "html")]
    pub(crate) diff: Vec<String>,
    /// Every host and kernel in the store on one HTML page, from the newest
    /// run of each: the claims' verdicts in one grid (a host or kernel that
    /// disagrees marked) and each case's headline as small multiples
    #[arg(
        long,
        requires = "html",
        conflicts_with_all = ["run", "compare", "diff", "markdown", "openmetrics", "bmf",
            "smaller_is_better", "bigger_is_better", "hdr"]
    )]
    pub(crate) fleet: bool,
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The baseline run: a run id, `latest` or `latest~N`
    #[arg(value_name = "A")]
    pub(crate) a: String,
    /// The run compared against it
    #[arg(value_name = "B")]
    pub(crate) b: String,
    /// Exit 1 when a case got significantly worse by more than PCT percent
    #[arg(long, value_name = "PCT")]
    pub(crate) fail_on_regression: Option<f64>,
    /// A change smaller than PCT percent is no change, however consistent
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_MIN_EFFECT_PCT)]
    pub(crate) min_effect: f64,
    /// Write the comparison as JSON to FILE ('-' for stdout) instead of the table
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
    /// The result store: a file, or a postgresql:// URL (default: $IOLAB_DB,
    /// else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    /// The address and port clients connect to (port default 5207)
    #[arg(long, value_name = "ADDR[:PORT]", default_value = "0.0.0.0:5207")]
    pub(crate) listen: String,
    /// The shared secret a client must present (default: $IOLAB_TOKEN; none: any client)
    #[arg(long, value_name = "TOKEN")]
    pub(crate) token: Option<String>,
    /// The ports data connections may use, e.g. 5201-5210 for a firewall
    /// (default: any the kernel picks)
    #[arg(long, value_name = "A-B")]
    pub(crate) data_ports: Option<String>,
    /// Serve one client that authenticated (one `iolab run`), then exit
    #[arg(long)]
    pub(crate) once: bool,
    /// Drop a client that sends nothing for SECS seconds between tests
    #[arg(long, value_name = "SECS", default_value = "60")]
    pub(crate) idle_timeout: String,
}

#[derive(Debug, Args)]
pub(crate) struct AbArgs {
    /// The first case, as `iolab run` arguments naming exactly one case
    #[arg(value_name = "A")]
    pub(crate) a: String,
    /// The second case, likewise; its headline metric must be A's
    #[arg(value_name = "B")]
    pub(crate) b: String,
    /// The equivalence band in percent: within it either way, the two are about the same
    #[arg(long, value_name = "PCT", default_value = "5")]
    pub(crate) band: String,
    /// Rounds before a verdict may stop the comparison (it looks at 9, 14, 21, 32, ... rounds)
    #[arg(long, value_name = "N", default_value = "10")]
    pub(crate) min_rounds: String,
    /// Rounds at most
    #[arg(long, value_name = "N", default_value = "1000")]
    pub(crate) max_rounds: String,
    /// The rounds end by this long: no round starts that would not fit, judged by the rounds so far
    #[arg(long, value_name = "DURATION", default_value = "120s")]
    pub(crate) time_cap: String,
    /// The seed of the rounds' orders (default: drawn from the clock)
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// Every round of A, then every round of B, --max-rounds each: the sequential method, for contrast (the host's drift between the blocks reads as a difference)
    #[arg(long)]
    pub(crate) sequential: bool,
    /// A label stored with the run
    #[arg(long, value_name = "TEXT")]
    pub(crate) label: Option<String>,
    /// Also write the run as JSON to FILE (`-`: stdout)
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
    /// The results database
    #[arg(long, value_name = "DB")]
    pub(crate) db: Option<PathBuf>,
    /// Do not store the run
    #[arg(long)]
    pub(crate) no_store: bool,
    /// No progress bar and no text on stdout
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// The process to watch (all its threads)
    #[arg(long, value_name = "PID", conflicts_with = "command")]
    pub(crate) pid: Option<String>,
    /// Watch this long at most (default: until Ctrl-C with --pid, until the command exits with -- CMD)
    #[arg(long = "for", value_name = "DURATION")]
    pub(crate) for_: Option<String>,
    /// With --pid: follow the processes it starts too (a command's are always followed)
    #[arg(long)]
    pub(crate) children: bool,
    /// How long each traced window lasts
    #[arg(long, value_name = "DURATION", default_value = "10ms")]
    pub(crate) window: String,
    /// One traced window per period
    #[arg(long, value_name = "DURATION", default_value = "500ms")]
    pub(crate) period: String,
    /// After the watch, measure the pattern of the N busiest channels over the alternatives that keep their semantics, in interleaved rounds (0: none)
    #[arg(long, value_name = "N", default_value = "1")]
    pub(crate) alternatives: String,
    /// Time for each channel's alternatives at most
    #[arg(long, value_name = "DURATION", default_value = "20s")]
    pub(crate) alternatives_time: String,
    /// With `-- CMD`: after the watch, run the command again N times all on one CPU and N times as scheduled, interleaved, and advise a placement only when it was faster in every pair (0: placement is not tried on the program)
    #[arg(long, value_name = "N", default_value = "0")]
    pub(crate) try_placement: String,
    /// Also write the diagnosis as JSON to FILE (`-`: stdout)
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
    /// No progress and no summary on stdout
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// The command to start and watch, after `--`
    #[arg(last = true, value_name = "CMD")]
    pub(crate) command: Vec<String>,
}

/// A run's files in other formats, shared by `run`, `show` and `report`:
/// Markdown tables, the figures for the tools that track them
/// (`src/report/openmetrics.rs`, `bmf.rs`, `benchmark_action.rs`), and the
/// latency histograms (`src/report/hdr.rs`).
#[derive(Debug, Default, Args)]
pub(crate) struct ExportArgs {
    /// Write GitHub-flavoured Markdown tables to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) markdown: Option<PathBuf>,
    /// Write every metric of the run as OpenMetrics text gauges in base
    /// units (e.g. iolab_pingpong_rtt_seconds), for Prometheus through
    /// node_exporter's textfile collector, to FILE ('-' for stdout); a file
    /// is replaced at once (a temp file renamed), never seen half-written
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) openmetrics: Option<PathBuf>,
    /// Write each headline with its 95% interval as Bencher Metric Format
    /// JSON (bencher run --adapter json) to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) bmf: Option<PathBuf>,
    /// Write the headlines where smaller is better (times) as
    /// github-action-benchmark's customSmallerIsBetter JSON to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) smaller_is_better: Option<PathBuf>,
    /// Write the headlines where bigger is better (rates) as
    /// github-action-benchmark's customBiggerIsBetter JSON to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) bigger_is_better: Option<PathBuf>,
    /// Write each case's latency histogram as an HdrHistogram interval log
    /// (one interval per case, tagged SCENARIO/CASE, values in ns), for
    /// HistogramLogAnalyzer or HistogramLogProcessor, to FILE ('-' for stdout)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) hdr: Option<PathBuf>,
}

impl ExportArgs {
    /// Each export asked for: its option and its path.
    pub(crate) fn given(&self) -> Vec<(&'static str, &std::path::Path)> {
        [
            ("--markdown", &self.markdown),
            ("--openmetrics", &self.openmetrics),
            ("--bmf", &self.bmf),
            ("--smaller-is-better", &self.smaller_is_better),
            ("--bigger-is-better", &self.bigger_is_better),
            ("--hdr", &self.hdr),
        ]
        .into_iter()
        .filter_map(|(option, path)| Some((option, path.as_deref()?)))
        .collect()
    }
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_name = "SHELL", value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write one page per command (iolab.1, iolab-run.1, ...) into DIR
    /// instead of iolab's page on stdout
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub(crate) dir: Option<PathBuf>,
}
