//! System calls made by one thread, counted by the kernel: a perf counter
//! on `raw_syscalls:sys_enter` for the calling thread only, read at
//! repetition boundaries (`--explain`). Counting, not sampling: no records
//! to drain, a read costs one system call of its own.

use super::tracer::Points;
use perf_event::events::Tracepoint;
use perf_event::{Builder, Counter};

pub(crate) struct SyscallCounter {
    counter: Counter,
}

impl SyscallCounter {
    /// Starts counting the calling thread's system calls; an error says why
    /// the kernel refused.
    pub(crate) fn start(points: &Points) -> Result<SyscallCounter, String> {
        let mut counter = Builder::new(Tracepoint::with_id(points.sys_enter))
            .observe_self()
            .any_cpu()
            .include_kernel()
            .build()
            .map_err(|e| format!("perf_event_open of raw_syscalls:sys_enter: {e}"))?;
        counter
            .enable()
            .map_err(|e| format!("cannot enable raw_syscalls:sys_enter: {e}"))?;
        Ok(SyscallCounter { counter })
    }

    /// System calls counted so far (this read's own included).
    pub(crate) fn read(&mut self) -> u64 {
        self.counter.read().unwrap_or(0)
    }
}
