//! The terminal summary of a diagnosis: what was watched and what the
//! tracer cost, the channels busiest first with their calls (failed ones
//! apart), what moved and its pattern, the most a transport could save,
//! sizes, wake-ups and hot kernel functions (observed), the alternatives
//! (each "N x faster" or "N x slower"), then each thread's time.
//! Process names and paths are the program's own: each is shown escaped
//! and cut (`format::printable`), and the whole summary passes through
//! `format::printable_text` before it is printed.

use super::alternatives::Alternatives;
use super::diagnosis::{CallRow, ChannelCost, Diagnosis, ThreadTime, WakeStats};
use super::pattern::{Moved, Shape};
use super::placement::PlacementTrial;
use super::watch::Ending;
use crate::format::{human, plural, ratio};
use std::fmt::Write;

/// Channels listed in full; the rest are counted.
const SHOWN: usize = 8;
/// The widest a process name (at most 15 bytes in the kernel) is shown.
const NAME_WIDTH: usize = 16;
/// The widest a channel's label (a path, the peers) is shown.
const LABEL_WIDTH: usize = 200;

fn name(comm: &str) -> String {
    crate::format::printable(comm, NAME_WIDTH)
}

fn label(text: &str) -> String {
    crate::format::printable(text, LABEL_WIDTH)
}

pub(crate) fn render(d: &Diagnosis) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", headline(d));
    let _ = writeln!(out, "{}", tracer_line(d));
    let busy: Vec<&ChannelCost> = d.channels.iter().filter(|c| !c.calls.is_empty()).collect();
    let quiet = d.channels.len() - busy.len();
    let _ = writeln!(
        out,
        "\nChannels, by the program's time in their calls (observed while the tracer was on; \
         call rates scaled to the pace outside the windows, times per call as traced):"
    );
    if busy.is_empty() {
        let _ = writeln!(out, "  no calls on a channel were traced");
    }
    for (i, c) in busy.iter().take(SHOWN).enumerate() {
        channel(&mut out, i + 1, c);
    }
    if busy.len() > SHOWN {
        let _ = writeln!(out, "  ... and {} more", busy.len() - SHOWN);
    }
    if quiet > 0 {
        let _ = writeln!(out, "  idle while traced: {}", idle_list(d));
    }
    for p in d.other_calls.iter().filter(|p| !p.calls.is_empty()) {
        let _ = writeln!(
            out,
            "\nCalls on no descriptor, {} (pid {}):",
            name(&p.comm),
            p.pid
        );
        for row in &p.calls {
            let _ = writeln!(out, "    {}", call_line(row));
        }
    }
    for p in d.other_calls.iter().filter(|p| !p.unidentified.is_empty()) {
        let _ = writeln!(
            out,
            "\nCalls on descriptors that are no channel or file (a terminal, /dev/null, a directory) \
             or that opened and closed inside one window, {} (pid {}):",
            name(&p.comm),
            p.pid
        );
        for row in &p.unidentified {
            let _ = writeln!(out, "    {}", call_line(row));
        }
    }
    if let Some(line) = no_transport_would_help(d) {
        let _ = writeln!(out, "\n{line}");
    }
    for a in &d.alternatives {
        alternatives(&mut out, a);
    }
    if let Some(trial) = &d.placement {
        placement(&mut out, trial);
    }
    threads(&mut out, &d.threads);
    for line in &d.unreadable {
        let _ = writeln!(out, "not read: {}", label(line));
    }
    out
}

fn headline(d: &Diagnosis) -> String {
    let ending = match d.ending {
        Ending::TimeUp => "until the time was up".to_string(),
        Ending::Exited => match (d.signal, d.exit_status) {
            (Some(signal), _) => format!("until it was killed by {}", signal_name(signal)),
            (None, Some(code)) => format!("until it exited with status {code}"),
            (None, None) => "until it exited".to_string(),
        },
        Ending::Interrupted => "until interrupted".to_string(),
    };
    let ending = match (d.ending, d.tracer.windows, &d.tracer.unavailable) {
        (Ending::Exited, 0, None) => format!("{ending}, before the first traced window opened"),
        _ => ending,
    };
    format!(
        "iolab doctor: {} (pid {}) watched {} {ending}",
        label(&d.command),
        d.pid,
        human(d.watched_s, "s")
    )
}

/// `SIGTERM` for 15, `signal N` where libc has no name.
fn signal_name(signal: i32) -> String {
    let known = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGUSR2, "SIGUSR2"),
    ];
    known
        .iter()
        .find(|(n, _)| *n == signal)
        .map_or_else(|| format!("signal {signal}"), |(_, name)| name.to_string())
}

/// When no channel's ceiling reaches 1.2x: no transport would help, and
/// what the busiest thread does instead.
fn no_transport_would_help(d: &Diagnosis) -> Option<String> {
    let ceilings: Vec<f64> = d
        .channels
        .iter()
        .filter(|c| c.moved.shape != Shape::Nothing)
        .filter_map(|c| c.ceiling.as_ref().map(|x| x.at_most))
        .collect();
    let highest = ceilings.iter().copied().fold(f64::NAN, f64::max);
    if ceilings.is_empty() || highest >= HELPS {
        return None;
    }
    let busiest = d
        .threads
        .iter()
        .filter(|t| t.watched_ms > 0.0)
        .map(|t| (t, (t.user_ms + t.kernel_ms) / t.watched_ms))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let busy = busiest.map_or_else(String::new, |(t, share)| {
        format!(
            ": {} ({}) is busy on its own CPU {:.0}% of the time",
            name(&t.comm),
            t.tid,
            share.min(1.0) * 100.0
        )
    });
    Some(format!(
        "No transport would help: every channel's calls take so small a share of its threads' time \
         that a transport costing nothing would make the program at most {} faster{busy}.",
        ratio(highest)
    ))
}

/// A ceiling under this says the transport is not what limits the program.
const HELPS: f64 = 1.2;

fn tracer_line(d: &Diagnosis) -> String {
    let t = &d.tracer;
    if let Some(why) = &t.unavailable {
        return format!("tracer: none ({why}); channels and thread times are from /proc only");
    }
    let mut line = format!(
        "tracer: on {} ms of every {} ms ({}, {:.1}% of the time)",
        t.on_ms,
        t.period_ms,
        plural(t.windows as usize, "window"),
        t.traced_share * 100.0
    );
    if let Some(o) = &t.overhead {
        let _ = write!(
            line,
            "; the program's read/write calls ran {:.0}% slower while it was on, and doctor used {:.1}% of a CPU of {}: \
             the program ran about {:.1}% longer than unwatched ({:.1}% the tracer, {:.1}% doctor's CPU)",
            o.slowdown_in_windows * 100.0,
            o.doctor_cpu_share * 100.0,
            o.cpus,
            o.cost * 100.0,
            o.tracer * 100.0,
            o.doctor_cpu * 100.0
        );
    }
    if t.lost_records > 0 {
        let _ = write!(line, "; {} records lost", t.lost_records);
    }
    line
}

fn channel(out: &mut String, rank: usize, c: &ChannelCost) {
    let _ = writeln!(
        out,
        "  {rank}. {} (pid {}), {}: {} in calls per second",
        name(&c.process),
        c.channel.pid,
        label(&c.label),
        human(c.busy_ns_per_s, "ns")
    );
    if c.fds.len() > 1 {
        let fds: Vec<String> = c.fds.iter().map(|fd| fd.to_string()).collect();
        let _ = writeln!(out, "     the same object on fds {}", fds.join(", "));
    }
    for row in &c.calls {
        let _ = writeln!(out, "     {}", call_line(row));
    }
    let _ = writeln!(out, "     {}", moved_line(&c.moved));
    if let Some(x) = c
        .ceiling
        .as_ref()
        .filter(|_| c.moved.shape != Shape::Nothing)
    {
        let _ = writeln!(
            out,
            "     at most {} faster with any transport: {} spends {:.1}% of its time in the calls{}{}",
            ratio(x.at_most),
            name(&x.thread),
            x.share * 100.0,
            match x.channels {
                1 => String::new(),
                n => format!(" of the {n} channels of this flow"),
            },
            match c.moved.shape {
                Shape::RequestResponse => " (waiting for the answers included)",
                _ => " (on CPU or preempted; blocked is the other end's own work)",
            }
        );
    }
    for (what, sizes) in [("read", &c.bytes_in), ("written", &c.bytes_out)] {
        if !sizes.is_empty() {
            let _ = writeln!(out, "     bytes {what} per call: {}", sizes_text(sizes));
        }
    }
    if c.wakeups.count > 0 {
        let _ = writeln!(out, "     {}", wake_line(&c.wakeups));
    }
    if !c.hot_kernel.is_empty() {
        let total: u64 = c.hot_kernel.iter().map(|(_, n)| n).sum();
        let names: Vec<String> = c
            .hot_kernel
            .iter()
            .map(|(name, n)| format!("{name} {}", n * 100 / total.max(1)))
            .collect();
        let _ = writeln!(
            out,
            "     hot in the kernel (% of samples): {}",
            names.join(", ")
        );
    }
}

/// Bytes each way and the pattern they make.
fn moved_line(m: &Moved) -> String {
    let way = |bytes: u64, calls: u64| {
        format!(
            "{} in {}",
            crate::format::binary_size(bytes as f64, 1),
            plural(calls as usize, "call")
        )
    };
    let shape = match m.shape {
        Shape::Nothing => {
            return format!(
                "moved nothing while traced ({}): no pattern, no alternatives",
                plural(m.failed as usize, "failed call")
            )
        }
        Shape::OneWay => "a one-way stream".to_string(),
        Shape::RequestResponse => "requests and responses (the direction turns at about every message)".to_string(),
        Shape::Bulk => format!(
            "a bulk transfer one way: small requests answered by long runs of calls, {} the bytes of the requests",
            ratio(m.ratio)
        ),
    };
    let size = m
        .size
        .map(|s| format!("; messages of {s} B (median)"))
        .unwrap_or_default();
    format!(
        "moved: read {}, written {}: {shape}{size}",
        way(m.bytes_in, m.calls_in),
        way(m.bytes_out, m.calls_out)
    )
}

fn call_line(row: &CallRow) -> String {
    let bytes = row
        .median_bytes
        .map(|b| format!(", median {} B", b.round()))
        .unwrap_or_default();
    let failed = match row.failed {
        0 => String::new(),
        n => {
            let why: Vec<String> = row
                .errors
                .iter()
                .map(|(e, n)| format!("{e} x{n}"))
                .collect();
            format!(
                "; {} failed ({}, {})",
                n,
                why.join(", "),
                human(row.failed_per_s, "1/s")
            )
        }
    };
    let figures = if row.calls == 0 {
        "the failed ones"
    } else {
        "median"
    };
    format!(
        "{}: {} calls ({}){bytes}{failed}, {} each ({figures}; on CPU {}, asleep {:.0}%, preempted {:.0}% of their time)",
        row.syscall,
        row.calls,
        human(row.per_s, "1/s"),
        human(row.median_ns, "ns"),
        human(row.on_cpu_median_ns, "ns"),
        row.blocked_share * 100.0,
        row.preempted_share * 100.0
    )
}

fn sizes_text(sizes: &[(u64, u64)]) -> String {
    let total: u64 = sizes.iter().map(|(_, n)| n).sum();
    let mut parts: Vec<String> = sizes
        .iter()
        .take(4)
        .map(|(b, n)| {
            format!(
                "{b} B x{n} ({:.0}%)",
                *n as f64 * 100.0 / total.max(1) as f64
            )
        })
        .collect();
    if sizes.len() > 4 {
        parts.push(format!("{} other sizes", sizes.len() - 4));
    }
    parts.join(", ")
}

fn wake_line(w: &WakeStats) -> String {
    let whom: Vec<String> = w
        .pairs
        .iter()
        .take(3)
        .map(|(a, b, n)| format!("{a} woke {b} x{n}"))
        .collect();
    let latency = w
        .latency_median_ns
        .map(|l| format!(", {} from wake-up to running (median)", human(l, "ns")))
        .unwrap_or_default();
    format!(
        "wake-ups: {} ({}), {:.0}% onto another CPU{latency}; {}",
        w.count,
        human(w.per_s, "1/s"),
        w.cross_cpu_share * 100.0,
        whom.join(", ")
    )
}

fn alternatives(out: &mut String, a: &Alternatives) {
    let p = &a.pattern;
    let what = match p.scenario {
        "pingpong" => "round trips",
        _ => "a one-way stream",
    };
    let _ = writeln!(
        out,
        "\nWhat the alternatives would cost here, for {} (a micro-benchmark, not the program: iolab's {} of {what} of {} B, {}, as observed; measured now, interleaved, {} rounds in {}, seed {}):",
        label(&a.channel),
        p.scenario,
        p.size,
        p.placement,
        a.rounds,
        human(a.spent_s, "s"),
        a.seed
    );
    let interval = match a.rounds >= crate::stats::looks::FIRST_LOOK {
        true => "99.5% interval".to_string(),
        false => format!("too few rounds for an interval, range of {}", a.rounds),
    };
    for (i, o) in a.options.iter().enumerate() {
        let this = if o.programs { " (the program's)" } else { "" };
        let versus = if o.programs {
            String::new()
        } else {
            format!(
                ", {} than the program's ({interval}: {} to {})",
                faster_or_slower(o.faster[0]),
                faster_or_slower(o.faster[1]),
                faster_or_slower(o.faster[2])
            )
        };
        let bound = match (o.program_at_most, o.placement_only) {
            (_, true) => {
                "; placement: a micro-benchmark only, not tried on the program".to_string()
            }
            (Some(at_most), _) => format!("; on the program at most {}", faster_or_slower(at_most)),
            (None, _) => String::new(),
        };
        let _ = writeln!(
            out,
            "  {}. {}{this}: {}{versus}{bound}",
            i + 1,
            o.label,
            human(o.median, &o.unit)
        );
    }
    for why in &a.not_measured {
        let _ = writeln!(out, "  not measured: {why}");
    }
}

/// The command run again each way, and what that advises.
fn placement(out: &mut String, trial: &Result<PlacementTrial, String>) {
    let t = match trial {
        Ok(t) => t,
        Err(why) => {
            let _ = writeln!(out, "\nPlacement not tried on the program: {why}");
            return;
        }
    };
    let median = |v: &[f64]| crate::stats::estimators::median(&mut v.to_vec());
    let _ = writeln!(
        out,
        "\nPlacement tried on the program ({} interleaved pairs of runs of the command, wall time): \
         all on one CPU {}, as scheduled on its CPUs {} (medians): one CPU {}",
        t.pairs,
        human(median(&t.one_cpu_s), "s"),
        human(median(&t.as_scheduled_s), "s"),
        faster_or_slower(t.one_cpu_faster)
    );
    let advice = match t.advised.as_deref() {
        Some("one-cpu") => "advised: all on one CPU (faster in every pair)".to_string(),
        Some(_) => "advised: as scheduled, across CPUs (faster in every pair)".to_string(),
        None => "no placement advised: neither was faster in every pair".to_string(),
    };
    let _ = writeln!(out, "  {advice}");
}

/// A gain said one way: "2.10x faster", "1.30x slower".
fn faster_or_slower(speedup: f64) -> String {
    if !speedup.is_finite() || speedup <= 0.0 {
        return "not comparable".to_string();
    }
    if speedup >= 1.0 {
        format!("{} faster", ratio(speedup))
    } else {
        format!("{} slower", ratio(1.0 / speedup))
    }
}

fn idle_list(d: &Diagnosis) -> String {
    let idle: Vec<String> = d
        .channels
        .iter()
        .filter(|c| c.calls.is_empty())
        .map(|c| {
            format!(
                "{} (pid {}) {}",
                name(&c.process),
                c.channel.pid,
                label(&c.label)
            )
        })
        .collect();
    let mut text = idle.iter().take(4).cloned().collect::<Vec<_>>().join("; ");
    if idle.len() > 4 {
        let _ = write!(text, "; and {} more", idle.len() - 4);
    }
    text
}

fn threads(out: &mut String, list: &[ThreadTime]) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nThreads (from /proc over the whole watch; woken->run: median from a wake-up to running, while traced):"
    );
    let _ = writeln!(
        out,
        "  {:>7} {:>7} {:<16} {:>9} {:>9} {:>9} {:>9} {:>15} {:>12}",
        "pid",
        "tid",
        "command",
        "user",
        "kernel",
        "run-queue",
        "asleep",
        "csw vol/invol",
        "woken->run"
    );
    for t in list {
        let ms = |v: f64| human(v, "ms");
        let latency = t
            .wakeup_latency_median_ns
            .map_or_else(|| "-".to_string(), |l| human(l, "ns"));
        let _ = writeln!(
            out,
            "  {:>7} {:>7} {:<16} {:>9} {:>9} {:>9} {:>9} {:>15} {:>12}",
            t.pid,
            t.tid,
            name(&t.comm),
            ms(t.user_ms),
            ms(t.kernel_ms),
            ms(t.run_queue_ms),
            ms(t.blocked_ms),
            format!("{}/{}", t.voluntary_csw, t.involuntary_csw),
            latency
        );
    }
}
