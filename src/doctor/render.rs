//! The terminal summary of a diagnosis: what was watched and what the
//! tracer cost, the channels busiest first with their calls, sizes,
//! wake-ups and hot kernel functions (observed), then each thread's time.
//! Process names and paths are the program's own: each is shown escaped
//! and cut (`format::printable`), and the whole summary passes through
//! `format::printable_text` before it is printed.

use super::alternatives::Alternatives;
use super::diagnosis::{CallRow, ChannelCost, Diagnosis, ThreadTime, WakeStats};
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
        "\nChannels, busiest first (observed while the tracer was on; rates per traced second):"
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
    for a in &d.alternatives {
        alternatives(&mut out, a);
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
        Ending::Exited => match d.exit_status {
            Some(code) => format!("until it exited with status {code}"),
            None => "until it exited".to_string(),
        },
        Ending::Interrupted => "until interrupted".to_string(),
    };
    format!(
        "iolab doctor: {} (pid {}) watched {} {ending}",
        label(&d.command),
        d.pid,
        human(d.watched_s, "s")
    )
}

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
            "; the program's read/write calls ran {:.0}% slower while it was on, so it cost about {:.1}% over the watch",
            o.slowdown_in_windows * 100.0,
            o.cost * 100.0
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
    for row in &c.calls {
        let _ = writeln!(out, "     {}", call_line(row));
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

fn call_line(row: &CallRow) -> String {
    let bytes = row
        .median_bytes
        .map(|b| format!(", median {} B", b.round()))
        .unwrap_or_default();
    format!(
        "{}: {} calls ({}){bytes}, {} each (median; on CPU {}, asleep {:.0}%, preempted {:.0}% of their time)",
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
        "\nWhat the alternatives would cost here, for {} (a projection: iolab's {} of {what} of {} B, {}, as observed; measured now, interleaved, {} rounds, seed {}):",
        label(&a.channel),
        p.scenario,
        p.size,
        p.placement,
        a.rounds,
        a.seed
    );
    for (i, o) in a.options.iter().enumerate() {
        let this = if o.programs { " (the program's)" } else { "" };
        let versus = if o.programs {
            String::new()
        } else {
            format!(
                ", {} of the program's (99.5% interval {}-{})",
                ratio(o.ratio[0]),
                ratio(o.ratio[1]),
                ratio(o.ratio[2])
            )
        };
        let _ = writeln!(
            out,
            "  {}. {}{this}: {}{versus}",
            i + 1,
            o.label,
            human(o.median, &o.unit)
        );
    }
    for why in &a.not_measured {
        let _ = writeln!(out, "  not measured: {why}");
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
