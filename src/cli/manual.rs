//! What each command's `--help` ends with and its man page holds beside
//! its options: notes, examples, exit statuses, the environment variables
//! and files it reads, and the pages to see also. Written once here:
//! `command()` (`cli/mod.rs`) puts the notes, examples and exit statuses after
//! each `--help`, and `iolab man` (`src/app/shell.rs`) renders every part
//! as a section of the page.

/// One command's part of the manual; `command` is empty for iolab itself.
pub(crate) struct Page {
    pub(crate) command: &'static str,
    /// Prose that does not fit one option's help (how `ab` decides, ...).
    pub(crate) notes: &'static str,
    /// A command line and what it does.
    pub(crate) examples: &'static [(&'static str, &'static str)],
    /// An exit status (`N` for the command's own) and what it means.
    pub(crate) exit: &'static [(&'static str, &'static str)],
    /// Names from `ENVIRONMENT`.
    pub(crate) environment: &'static [&'static str],
    /// Names from `FILES`.
    pub(crate) files: &'static [&'static str],
    /// Other pages, as `iolab-run(1)`.
    pub(crate) see_also: &'static [&'static str],
}

/// Every environment variable iolab reads, and how.
pub(crate) const ENVIRONMENT: &[(&str, &str)] = &[
    ("IOLAB_DB", "The result store when --db is not given: a file, or a postgresql:// URL (the fleet feature)."),
    ("IOLAB_PUSH", "The store `run` pushes its run to, and `push` copies into, when --push or --to is not given (as a systemd unit's environment file sets it, so the URL is on no command line)."),
    ("IOLAB_TOKEN", "The shared secret of `agent` and of `run --peer` when --token is not given."),
    ("XDG_DATA_HOME", "The default store is $XDG_DATA_HOME/iolab/results.db (else $HOME/.local/share/iolab/results.db)."),
    ("TMPDIR", "Where a run makes its private 0700 directory for FIFOs, files and sockets (default /tmp); a killed run's leftovers there are swept by the next."),
    ("PGPASSWORD", "The fleet store's password when its URL has none (libpq's variable, as psql reads it)."),
    ("PGPASSFILE", "The password file read when no password is given otherwise (default ~/.pgpass); one its group or others may read is passed over."),
    ("PGSERVICE", "A connection service of pg_service.conf naming the fleet store's host, database, user and password (or ?service=NAME in the URL)."),
    ("PGSERVICEFILE", "The user's service file (default ~/.pg_service.conf)."),
    ("PGSYSCONFDIR", "The directory of the system's pg_service.conf (default /etc/postgresql-common)."),
    ("PGHOST, PGPORT, PGDATABASE, PGUSER", "What the fleet store's URL leaves out, as libpq reads them (PGHOSTADDR, PGOPTIONS, PGAPPNAME, PGCONNECT_TIMEOUT, PGSSLMODE, PGTARGETSESSIONATTRS, PGCHANNELBINDING and PGLOADBALANCEHOSTS too)."),
    ("NO_COLOR", "No colour on the terminal (CLICOLOR_FORCE=1 forces it)."),
    ("IOLAB_COMPLETE", "Set by the completion scripts of `iolab completions` to ask iolab for the completions of a command line."),
];

/// Every file iolab reads or writes by itself, and what it holds.
pub(crate) const FILES: &[(&str, &str)] = &[
    ("$XDG_DATA_HOME/iolab/results.db", "The default result store (SQLite, WAL), usually ~/.local/share/iolab/results.db."),
    ("iolab-run-ID.json", "A run the store refused, saved beside the store (or in the working directory) for `iolab import`."),
    ("~/.pgpass", "Lines HOST:PORT:DB:USER:PASSWORD giving the fleet store's password (mode 0600)."),
    ("~/.pg_service.conf, /etc/postgresql-common/pg_service.conf", "Connection services: [NAME] sections of KEY=VALUE settings."),
    ("$TMPDIR/iolab-PID-*", "A run's private directory, removed when it ends."),
    ("/var/lib/prometheus/node-exporter/iolab.prom", "Where the fleet unit (contrib/systemd) writes --openmetrics for Debian's node_exporter."),
    ("/etc/iolab/fleet.env, /etc/iolab/pgpass", "The fleet unit's store URL (IOLAB_PUSH) and its password, handed to the service as a credential."),
    ("/proc/PID/fd, /proc/PID/task", "What doctor reads of the program it watches: its descriptors and threads."),
];

/// The variables every command that opens a store reads.
const STORE_ENV: &[&str] = &[
    "IOLAB_DB",
    "XDG_DATA_HOME",
    "PGPASSWORD",
    "PGPASSFILE",
    "PGSERVICE",
    "PGSERVICEFILE",
    "PGSYSCONFDIR",
    "PGHOST, PGPORT, PGDATABASE, PGUSER",
];

const STORE_FILES: &[&str] = &[
    "$XDG_DATA_HOME/iolab/results.db",
    "~/.pgpass",
    "~/.pg_service.conf, /etc/postgresql-common/pg_service.conf",
];

/// The exit statuses of a command that reads or writes and measures nothing.
const PLAIN_EXIT: &[(&str, &str)] = &[
    (
        "0",
        "Done; also when the reader of the output closed early (`| head`).",
    ),
    ("1", "iolab itself failed (a store failing mid-way)."),
    (
        "2",
        "Bad input or an unusable store: one line naming it, nothing written.",
    ),
];

pub(crate) const PAGES: &[Page] = &[
    Page {
        command: "",
        notes: "",
        examples: &[
            ("iolab run", "the quick suite, about a minute, stored"),
            ("iolab run pingpong --mech pipe,eventfd", "round trips over two mechanisms"),
            ("iolab history", "the runs in the store"),
            ("iolab show latest", "the latest run as the table"),
            ("iolab report --html report.html", "the latest run with charts"),
            ("iolab compare latest~1 latest", "the last two runs, case by case"),
            ("iolab doctor --pid 1234 --for 10s", "what a running program's IPC costs"),
        ],
        exit: &[
            ("0", "Success (for `run`, every case ok or unsupported)."),
            ("1", "A case failed (`run`, `ab`), a regression (`compare --fail-on-regression`), or iolab itself failed."),
            ("2", "Bad input or an unusable store: one line naming it, nothing measured or written."),
            ("130", "Stopped by Ctrl-C (128 + SIGINT): everything cleaned up, nothing stored."),
            ("143", "Stopped by SIGTERM (128 + SIGTERM), likewise."),
        ],
        environment: &["IOLAB_DB", "IOLAB_PUSH", "IOLAB_TOKEN", "XDG_DATA_HOME", "TMPDIR", "PGPASSWORD", "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGSYSCONFDIR", "PGHOST, PGPORT, PGDATABASE, PGUSER", "NO_COLOR", "IOLAB_COMPLETE"],
        files: &["$XDG_DATA_HOME/iolab/results.db", "iolab-run-ID.json", "~/.pgpass", "~/.pg_service.conf, /etc/postgresql-common/pg_service.conf", "$TMPDIR/iolab-PID-*", "/var/lib/prometheus/node-exporter/iolab.prom", "/etc/iolab/fleet.env, /etc/iolab/pgpass"],
        see_also: &["iolab-run(1)", "iolab-show(1)", "iolab-report(1)", "iolab-ab(1)", "iolab-doctor(1)", "psql(1)", "prometheus-node-exporter(1)"],
    },
    Page {
        command: "run",
        notes: "`iolab list --scenario NAME` shows a scenario's parameters and metrics.",
        examples: &[
            ("iolab run", "the quick suite (about a minute)"),
            ("iolab run pingpong --mech pipe,eventfd", "round trips over two mechanisms"),
            ("iolab run stream --param size=64,65536 --placement cross-cpu", "a sweep of sizes"),
            ("iolab run pingpong --json - --no-store", "JSON on stdout, nothing stored"),
            ("iolab run seeds", "re-test the classic claims"),
            ("iolab run probe --quick --kernel linux-image-amd64", "the probe suite here and in a guest of Debian's 6.1 kernel, then the claims per kernel"),
            ("IOLAB_PUSH=postgresql://iolab@db.example/iolab iolab run --quiet", "stored here, then pushed to a fleet store (its password from ~/.pgpass)"),
        ],
        exit: &[
            ("0", "Every case ok or unsupported (a capability this machine lacks); also when --push could not reach its store (the run stays pending, a warning says so)."),
            ("1", "A case failed (or, with --fail-on-unsupported, was unsupported): the run is still printed, written and stored; or iolab failed (e.g. storing the run)."),
            ("2", "Bad input or an unusable store: one line naming it, nothing measured or stored (an export the run gives nothing to write: refused once the rest is written)."),
            ("130", "Stopped by Ctrl-C (128 + SIGINT): everything cleaned up, nothing stored."),
            ("143", "Stopped by SIGTERM (128 + SIGTERM), likewise."),
        ],
        environment: &["IOLAB_DB", "IOLAB_PUSH", "IOLAB_TOKEN", "XDG_DATA_HOME", "TMPDIR", "PGPASSWORD", "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGSYSCONFDIR", "PGHOST, PGPORT, PGDATABASE, PGUSER", "NO_COLOR"],
        files: &["$XDG_DATA_HOME/iolab/results.db", "iolab-run-ID.json", "$TMPDIR/iolab-PID-*", "~/.pgpass"],
        see_also: &["iolab-list(1)", "iolab-show(1)", "iolab-report(1)", "iolab-ab(1)", "iolab-push(1)"],
    },
    Page {
        command: "list",
        notes: "",
        examples: &[
            ("iolab list", "scenarios, mechanisms, suites, placements and what this machine supports"),
            ("iolab list --scenario pingpong", "one scenario's parameters, defaults and metrics"),
        ],
        exit: PLAIN_EXIT,
        environment: &[],
        files: &[],
        see_also: &["iolab-run(1)", "iolab-env(1)"],
    },
    Page {
        command: "env",
        notes: "",
        examples: &[
            ("iolab env", "kernel, CPUs, governor, clock source, mitigations, hypervisor, perf and io_uring"),
            ("iolab env --json", "the same as a JSON document"),
        ],
        exit: PLAIN_EXIT,
        environment: &[],
        files: &[],
        see_also: &["iolab-list(1)", "iolab-run(1)"],
    },
    Page {
        command: "history",
        notes: "",
        examples: &[
            ("iolab history", "the 20 newest runs"),
            ("iolab history --host vm1 --kernel 6.1", "runs of one host on kernel 6.1.*"),
            ("iolab history --db postgresql://iolab@db.example/iolab", "a fleet store (the password from ~/.pgpass)"),
        ],
        exit: PLAIN_EXIT,
        environment: STORE_ENV,
        files: STORE_FILES,
        see_also: &["iolab-show(1)", "iolab-run(1)"],
    },
    Page {
        command: "show",
        notes: "",
        examples: &[
            ("iolab show", "the latest run as the table"),
            ("iolab show latest~1 --json run.json", "the run before it as JSON"),
            ("iolab show latest --csv - | column -ts,", "one CSV row per result"),
            ("iolab show latest --markdown run.md", "Markdown tables to paste into an issue"),
            ("iolab show latest --hdr latency.hlog", "each case's latency histogram for HistogramLogAnalyzer"),
        ],
        exit: PLAIN_EXIT,
        environment: STORE_ENV,
        files: STORE_FILES,
        see_also: &["iolab-history(1)", "iolab-report(1)", "iolab-compare(1)"],
    },
    Page {
        command: "report",
        notes: "",
        examples: &[
            ("iolab report --html r.html", "the latest run, with charts"),
            ("iolab report latest~1 --markdown r.md", "tables to paste into an issue"),
            ("iolab report --openmetrics /var/lib/prometheus/node-exporter/iolab.prom", "for Prometheus"),
            ("iolab report --bmf bmf.json", "for Bencher"),
            ("iolab report --compare latest~1 latest --html c.html", "both runs on the same charts"),
            ("iolab report --html r.html --diff pipe/cross-cpu/threads/64B eventfd/cross-cpu/threads/64B", "with a differential flame graph"),
            ("iolab report --fleet --html f.html --db postgresql://iolab@db.example/iolab", "every host and kernel on one page"),
        ],
        exit: PLAIN_EXIT,
        environment: STORE_ENV,
        files: STORE_FILES,
        see_also: &["iolab-show(1)", "iolab-compare(1)", "iolab-fleet(1)"],
    },
    Page {
        command: "compare",
        notes: "",
        examples: &[
            ("iolab compare latest~1 latest", "the last two runs"),
            ("iolab compare BASE latest --fail-on-regression 10", "exit 1 on a >10% regression"),
            ("iolab compare BASE latest --json -", "the comparison as JSON"),
        ],
        exit: &[
            ("0", "Compared, and no regression past --fail-on-regression (or none asked for)."),
            ("1", "A case regressed past --fail-on-regression; or iolab failed."),
            ("2", "Bad input or an unusable store: one line naming it."),
        ],
        environment: STORE_ENV,
        files: STORE_FILES,
        see_also: &["iolab-show(1)", "iolab-report(1)", "iolab-ab(1)"],
    },
    Page {
        command: "claims",
        notes: "",
        examples: &[
            ("iolab claims", "which classic claims hold in the latest run"),
            ("iolab claims --across latest~2 latest~1 latest", "each claim's verdict over three runs"),
            ("iolab claims --across latest~2 latest~1 latest --kernels --html k.html", "the three runs as a matrix of claim x kernel, also as a page"),
            ("iolab claims latest --json -", "the claims as JSON"),
        ],
        exit: PLAIN_EXIT,
        environment: STORE_ENV,
        files: STORE_FILES,
        see_also: &["iolab-run(1)", "iolab-report(1)"],
    },
    Page {
        command: "import",
        notes: "",
        examples: &[
            ("iolab import iolab-run-20261122-031502-4f1a-9c0e.json", "a run the store refused, stored now"),
            ("iolab import - < run.json", "a run written by `run --json` elsewhere"),
        ],
        exit: &[
            ("0", "Stored, or already there (said so)."),
            ("1", "iolab failed (the store failing mid-way)."),
            ("2", "Not a run iolab reads (no schema_version, an unknown scenario, ...), another run under its id, or an unusable store: one line, nothing stored."),
        ],
        environment: STORE_ENV,
        files: &["iolab-run-ID.json", "$XDG_DATA_HOME/iolab/results.db"],
        see_also: &["iolab-run(1)", "iolab-push(1)"],
    },
    Page {
        command: "push",
        notes: "",
        examples: &[
            ("iolab push latest --to postgresql://iolab@db.example/iolab", "the latest run (the password from ~/.pgpass)"),
            ("iolab push latest~2 latest~1 latest --to postgresql://?service=fleet", "the last three, to the store of a pg_service.conf service"),
            ("iolab push --pending", "what `run --push` could not send to $IOLAB_PUSH"),
        ],
        exit: &[
            ("0", "Every run pushed, or already there."),
            ("1", "iolab failed (the server failing mid-way); what did not go stays pending."),
            ("2", "Bad input, a store that cannot be reached or refuses the login, or another run under a run's id: one line."),
        ],
        environment: &["IOLAB_DB", "IOLAB_PUSH", "XDG_DATA_HOME", "PGPASSWORD", "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGSYSCONFDIR", "PGHOST, PGPORT, PGDATABASE, PGUSER"],
        files: STORE_FILES,
        see_also: &["iolab-run(1)", "iolab-fleet(1)", "psql(1)"],
    },
    Page {
        command: "fleet",
        notes: "",
        examples: &[
            ("iolab fleet pingpong --metric rtt_ns --db postgresql://iolab@db.example/iolab", "every case across hosts and kernels"),
            ("iolab fleet pingpong --metric rtt_ns --case pipe/cross-cpu/processes/64B", "one case"),
        ],
        exit: PLAIN_EXIT,
        environment: STORE_ENV,
        files: STORE_FILES,
        see_also: &["iolab-push(1)", "iolab-report(1)"],
    },
    Page {
        command: "agent",
        notes: "A connection must send its whole hello, token included, within 5 s (or --idle-timeout, if shorter); until then it holds no session, and its hello is read as soon as it arrives, so neither silent or trickling strangers nor a flood of them can lock a client out. At most 8 connections from one address (an IPv6 /64) may be saying hello at once, 256 in all: a newer one takes the place of the oldest of its address (or, when all 256 are taken, of the address with the most). A client told the agent is busy tries again for up to 20 s. Strangers' refusals are logged as counts every 10 s. --once ends after the first client that authenticated.\n\nEach test a client asks for is checked before anything starts, and refused in one error line past these limits: messages of 1 B to 64 MiB, at most 2^34 messages and 10,000 repetitions per test (a far side keeps each repetition's figures until it reports), files of at most 1 TiB, and at most 600 s per test.",
        examples: &[
            ("iolab agent --listen 0.0.0.0:5207 --token \"$SECRET\"", "on the far host"),
            ("iolab run pingpong --mech tcp --peer far-host --token \"$SECRET\"", "on the near one"),
            ("iolab agent --listen 127.0.0.1:5207 --once", "one client, then exit"),
        ],
        exit: &[
            ("0", "Served (with --once, its one client)."),
            ("1", "iolab failed."),
            ("2", "Bad input: an address that cannot be listened on, bad ports or timeout."),
            ("130", "Stopped by Ctrl-C, every far side cleaned up."),
            ("143", "Stopped by SIGTERM, likewise."),
        ],
        environment: &["IOLAB_TOKEN", "TMPDIR"],
        files: &["$TMPDIR/iolab-PID-*"],
        see_also: &["iolab-run(1)"],
    },
    Page {
        command: "ab",
        notes: "Each round runs one short batch of A and of B in a fresh random order (seeded; the seed is printed and stored), so a host that changes speed for a while slows both sides of the rounds it spans alike. A batch is sized by time: a pilot measures each case, then a batch runs three repetitions of about 10 ms (unless the spec sets the count itself, e.g. -p count=2000), and the round's value is their median (pingpong: the median round trip of the batch), so one preemption does not move it. The figure is the median of the per-round ratios B/A with its 99.5% interval from the rounds' order statistics (it assumes nothing of their shape); fewer than 9 rounds give no interval and no verdict. The rounds are looked at after 9, 14, 21, 32, ... of them; the comparison stops at the first look whose interval lies inside the equivalence band (about the same) or wholly beyond it (one is faster), or at --max-rounds or --time-cap (undecided: it says what would decide). A spec that names no --placement runs across CPUs.",
        examples: &[
            ("iolab ab 'pingpong --mech pipe --placement cross-cpu' 'pingpong --mech eventfd --placement cross-cpu'", "is eventfd faster than a pipe across CPUs?"),
            ("iolab ab 'stream --mech unix-stream -p size=4096' 'stream --mech tcp -p size=4096' --band 10", "about the same within 10%?"),
            ("iolab ab 'pingpong --mech pipe --placement cross-cpu' 'pingpong --mech pipe --placement cross-cpu'", "an A/A comparison: the method's own noise"),
            ("iolab ab 'pingpong --mech pipe --repeat 10' 'pingpong --mech pipe --repeat 10 --explain'", "what --explain costs"),
        ],
        exit: &[
            ("0", "Compared (whatever the verdict)."),
            ("1", "A case failed; or iolab failed."),
            ("2", "Bad input: a spec that is not one case, or two cases with different headline metrics."),
            ("130", "Stopped by Ctrl-C, nothing stored."),
            ("143", "Stopped by SIGTERM, likewise."),
        ],
        environment: &["IOLAB_DB", "XDG_DATA_HOME", "TMPDIR", "NO_COLOR"],
        files: &["$XDG_DATA_HOME/iolab/results.db", "$TMPDIR/iolab-PID-*"],
        see_also: &["iolab-run(1)", "iolab-compare(1)"],
    },
    Page {
        command: "doctor",
        notes: "It reads the program's descriptors and threads from /proc (no privileges needed for your own processes), and opens a tracer on its threads for --window out of every --period: system calls with their descriptors and sizes, wake-ups, switches and sampled kernel stacks. Between windows nothing is traced. It never signals, stops or writes to the program; the summary states what the tracer cost (the drop in the program's read/write call rate while it was on).",
        examples: &[
            ("iolab doctor --pid 1234 --for 10s", "watch a running program for 10 s"),
            ("iolab doctor --pid $(pidof redis-server) --json redis.json", "and write the diagnosis as JSON"),
            ("iolab doctor --alternatives 0 --for 5s --pid 1234", "the watch alone"),
            ("iolab doctor -- sh -c 'dd if=/dev/zero bs=64 count=1000000 | cat > /dev/null'", "start a command and watch it"),
        ],
        exit: &[
            ("0", "Watched (with --pid)."),
            ("N", "The command's own exit status (with -- CMD; 128 + signal if it was killed)."),
            ("2", "Bad input: no such process, not yours, a command that cannot start, --for 0."),
            ("130", "Stopped by Ctrl-C (with --pid; the summary is still printed)."),
        ],
        environment: &["TMPDIR", "NO_COLOR"],
        files: &["/proc/PID/fd, /proc/PID/task"],
        see_also: &["iolab-ab(1)", "iolab-run(1)", "perf(1)", "strace(1)"],
    },
    Page {
        command: "completions",
        notes: "The script asks iolab for each completion (IOLAB_COMPLETE), so scenarios, suites, mechanisms, placements, parameters and their values, and the store's runs complete as this iolab knows them; a comma list completes item by item.",
        examples: &[
            ("source <(iolab completions bash)", "in this bash"),
            ("iolab completions bash > ~/.local/share/bash-completion/completions/iolab", "in every bash"),
            ("iolab completions zsh > ~/.zfunc/_iolab", "zsh (with fpath+=~/.zfunc)"),
            ("iolab completions fish > ~/.config/fish/completions/iolab.fish", "fish"),
        ],
        exit: PLAIN_EXIT,
        environment: &["IOLAB_COMPLETE", "IOLAB_DB", "XDG_DATA_HOME"],
        files: &["$XDG_DATA_HOME/iolab/results.db"],
        see_also: &["bash(1)", "zsh(1)", "fish(1)"],
    },
    Page {
        command: "man",
        notes: "",
        examples: &[
            ("iolab man | man -l -", "read it now"),
            ("iolab man --dir ~/.local/share/man/man1", "iolab.1, iolab-run.1, ... for `man iolab-run`"),
        ],
        exit: PLAIN_EXIT,
        environment: &[],
        files: &[],
        see_also: &["man(1)"],
    },
];

/// The page of `command` ("" for iolab itself).
pub(crate) fn page(command: &str) -> Option<&'static Page> {
    PAGES.iter().find(|p| p.command == command)
}

/// The longest command an example may have for its words to stand beside it.
const ONE_LINE: usize = 52;

/// Where `--help`'s exit statuses wrap, a hanging indent under their code
/// (clap wraps at 100 columns, and would not indent them).
const WIDTH: usize = 96;

/// What `--help` shows after the options: the notes, the examples and the
/// exit statuses.
pub(crate) fn after_help(page: &Page) -> String {
    let mut text = String::new();
    if !page.notes.is_empty() {
        text.push_str(page.notes);
        text.push_str("\n\n");
    }
    text.push_str("EXAMPLES:\n");
    // One column of commands when they fit beside their words, else each
    // command on its line and its words below it.
    let width = page.examples.iter().map(|(cmd, _)| cmd.len()).max();
    for (cmd, what) in page.examples {
        match width.filter(|w| *w <= ONE_LINE) {
            Some(width) => text.push_str(&format!("  {cmd:width$}  {what}\n")),
            None => text.push_str(&format!("  {cmd}\n      {what}\n")),
        }
    }
    text.push_str("\nEXIT STATUS:\n");
    for (code, what) in page.exit {
        let first = format!("  {code:<8} ");
        let hanging = " ".repeat(first.len());
        let wrap = textwrap::Options::new(WIDTH)
            .initial_indent(&first)
            .subsequent_indent(&hanging);
        text.push_str(&textwrap::fill(what, wrap));
        text.push('\n');
    }
    text.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_command_has_a_page_with_examples_and_exit_statuses() {
        let cmd = super::super::Cli::command();
        let mut names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
        names.push("");
        for name in names {
            let page = page(name).unwrap_or_else(|| panic!("no page for '{name}'"));
            assert!(!page.examples.is_empty() && !page.exit.is_empty(), "{name}");
            for (code, _) in page.exit {
                assert!(!code.is_empty(), "{name}");
            }
        }
        assert_eq!(PAGES.len(), cmd.get_subcommands().count() + 1);
    }

    #[test]
    fn every_variable_and_file_a_page_names_is_described() {
        for page in PAGES {
            for var in page.environment {
                assert!(ENVIRONMENT.iter().any(|(n, _)| n == var), "{var}");
            }
            for file in page.files {
                assert!(FILES.iter().any(|(n, _)| n == file), "{file}");
            }
        }
    }
}
