//! Capabilities found out by trying: can this process sample with perf, can
//! it create an io_uring, and what does one clock read cost. A sysctl alone
//! does not answer the first two (seccomp, containers and capabilities all
//! have a say), so each check reads the knob and then makes the real call.

use super::read_text;
use crate::model::Availability;
use perf_event::events::Software;
use perf_event::Builder;

const PERF_PARANOID: &str = "/proc/sys/kernel/perf_event_paranoid";
const IO_URING_DISABLED: &str = "/proc/sys/kernel/io_uring_disabled";
/// Sample every millisecond of CPU time; the check never enables it.
const SAMPLE_PERIOD_NS: u64 = 1_000_000;
/// Ring buffer bytes for the sampling check (plus one metadata page).
const SAMPLE_RING_BYTES: usize = 8 * 4096;
const TIMER_BATCHES: usize = 9;
const TIMER_READS_PER_BATCH: u64 = 100_000;

/// Whether a software `cpu-clock` sampling counter, kernel included, opens
/// on the current thread; falls back to user-space-only and says so.
pub(crate) fn perf() -> Availability {
    let knob = knob_text("perf_event_paranoid", read_text(PERF_PARANOID));
    match open_cpu_clock_sampler(true) {
        Ok(()) => available(format!("{knob}, software cpu-clock sampling works")),
        Err(kernel_err) => match open_cpu_clock_sampler(false) {
            Ok(()) => available(format!(
                "{knob}, software cpu-clock sampling works in user space only; \
                 with kernel: {kernel_err}"
            )),
            Err(user_err) => unavailable(format!(
                "{knob}, cannot open a software cpu-clock sampler: {user_err}"
            )),
        },
    }
}

/// Opens (disabled) and maps a cpu-clock sampler, then drops it.
fn open_cpu_clock_sampler(include_kernel: bool) -> std::io::Result<()> {
    let mut builder = Builder::new(Software::CPU_CLOCK);
    builder
        .observe_self()
        .any_cpu()
        .sample_period(SAMPLE_PERIOD_NS);
    if include_kernel {
        builder.include_kernel();
    } else {
        builder.exclude_kernel(true);
    }
    builder.build()?.sampled(SAMPLE_RING_BYTES).map(drop)
}

/// Whether an io_uring of 8 entries can be created here.
pub(crate) fn io_uring() -> Availability {
    let knob = knob_text("io_uring_disabled", read_text(IO_URING_DISABLED));
    match io_uring::IoUring::new(8) {
        Ok(_ring) => available(format!("{knob}, created a ring of 8 entries")),
        Err(err) => unavailable(format!("{knob}, io_uring_setup failed: {err}")),
    }
}

/// Whether the scheduler tracepoints can be recorded on every CPU; the
/// check traces a sleeping thread to be sure.
pub(crate) fn sched_tracepoints() -> Availability {
    match crate::measure::sched::self_test() {
        Ok(detail) => available(detail),
        Err(why) => unavailable(why),
    }
}

/// `name=value`, or `name unreadable` when the sysctl file is missing.
pub(crate) fn knob_text(name: &str, value: Option<String>) -> String {
    match value {
        Some(v) => format!("{name}={v}"),
        None => format!("{name} unreadable"),
    }
}

fn available(detail: String) -> Availability {
    Availability {
        available: true,
        detail,
    }
}

fn unavailable(detail: String) -> Availability {
    Availability {
        available: false,
        detail,
    }
}

/// Cost of one `CLOCK_MONOTONIC` read in ns: the median over batches of
/// back-to-back reads, each batch timed by the same clock.
pub(crate) fn timer_ns() -> f64 {
    crate::measure::clock::timer_cost_ns(TIMER_BATCHES, TIMER_READS_PER_BATCH)
}

/// Cost of one read of the tick clock (see measure::ticks), timed the same way.
pub(crate) fn tick_ns() -> f64 {
    let clock = crate::measure::ticks::tick_clock();
    crate::measure::clock::read_cost_ns(TIMER_BATCHES, TIMER_READS_PER_BATCH, || clock.now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knob_text_says_when_unreadable() {
        assert_eq!(
            knob_text("perf_event_paranoid", Some("2".into())),
            "perf_event_paranoid=2"
        );
        assert_eq!(
            knob_text("io_uring_disabled", None),
            "io_uring_disabled unreadable"
        );
    }

    #[test]
    fn checks_always_explain_themselves() {
        assert!(!perf().detail.is_empty());
        assert!(!io_uring().detail.is_empty());
        assert!(timer_ns() >= 0.0);
        assert!(tick_ns() >= 0.0);
    }
}
