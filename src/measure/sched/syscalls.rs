//! System calls made by one thread, counted by the kernel: a perf counter
//! on `raw_syscalls:sys_enter` per online CPU, filtered in the kernel to
//! the calling thread (`common_pid`), read at repetition boundaries
//! (`--explain`). Counting, not sampling: no records to drain.
//!
//! Per CPU rather than attached to the thread: a thread-attached event
//! turns on perf's hooks in every context switch of the machine, and the
//! kernel leaves them on for a second after the event is closed, so a
//! count over the warm-up would slow the timed repetitions after it.

use super::tracer::Points;
use perf_event::events::Tracepoint;
use perf_event::{Builder, Counter};

pub(crate) struct SyscallCounter {
    per_cpu: Vec<Counter>,
}

impl SyscallCounter {
    /// Starts counting the calling thread's system calls; an error says why
    /// the kernel refused.
    pub(crate) fn start(points: &Points) -> Result<SyscallCounter, String> {
        let tid = rustix::thread::gettid().as_raw_nonzero().get();
        let mut per_cpu = Vec::new();
        for cpu in super::online_cpus()? {
            per_cpu.push(open(points, cpu, tid)?);
        }
        for counter in &mut per_cpu {
            counter
                .enable()
                .map_err(|e| format!("cannot enable raw_syscalls:sys_enter: {e}"))?;
        }
        Ok(SyscallCounter { per_cpu })
    }

    /// System calls counted so far (the reads' own included: one per CPU).
    pub(crate) fn read(&mut self) -> u64 {
        self.per_cpu.iter_mut().map(|c| c.read().unwrap_or(0)).sum()
    }

    /// The system calls one `read` makes.
    pub(crate) fn read_cost(&self) -> u64 {
        self.per_cpu.len() as u64
    }
}

fn open(points: &Points, cpu: usize, tid: i32) -> Result<Counter, String> {
    let counter = Builder::new(Tracepoint::with_id(points.sys_enter))
        .any_pid()
        .one_cpu(cpu)
        .include_kernel()
        .enabled(false)
        .build()
        .map_err(|e| format!("perf_event_open of raw_syscalls:sys_enter on CPU {cpu}: {e}"))?;
    crate::sys::perf_ioctl::set_filter(&counter, &format!("common_pid == {tid}"))
        .map_err(|e| format!("cannot filter raw_syscalls:sys_enter to thread {tid}: {e}"))?;
    Ok(counter)
}
