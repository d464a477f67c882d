//! CPU time and context switches of the calling thread or process, via
//! getrusage (rustix has no RUSAGE_THREAD), with the calling thread's CPU
//! time exact from its CPU clock.

use std::io;

/// Counters at one instant; subtract two to get the cost of what ran between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    pub(crate) user_ns: u64,
    pub(crate) sys_ns: u64,
    /// User plus system time, exact: getrusage's total for the calling
    /// thread stops at the last scheduler tick (4 ms steps here) while the
    /// thread has not slept, so a busy loop of 36 ms read 32, 36 or 40 ms;
    /// the thread's CPU clock reads it to the nanosecond.
    #[serde(default)]
    pub(crate) cpu_ns: u64,
    pub voluntary_csw: u64,
    pub involuntary_csw: u64,
}

impl Usage {
    pub(crate) fn since(self, earlier: Usage) -> Usage {
        Usage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            voluntary_csw: self.voluntary_csw.saturating_sub(earlier.voluntary_csw),
            involuntary_csw: self.involuntary_csw.saturating_sub(earlier.involuntary_csw),
        }
    }

    pub(crate) fn plus(self, other: Usage) -> Usage {
        Usage {
            user_ns: self.user_ns + other.user_ns,
            sys_ns: self.sys_ns + other.sys_ns,
            cpu_ns: self.cpu_ns + other.cpu_ns,
            voluntary_csw: self.voluntary_csw + other.voluntary_csw,
            involuntary_csw: self.involuntary_csw + other.involuntary_csw,
        }
    }

    pub(crate) fn csw(self) -> u64 {
        self.voluntary_csw + self.involuntary_csw
    }
}

/// Which task's counters to read.
#[derive(Debug, Clone, Copy)]
pub enum Who {
    Thread,
    Process,
    Children,
}

pub fn usage(who: Who) -> io::Result<Usage> {
    let which = match who {
        Who::Thread => libc::RUSAGE_THREAD,
        Who::Process => libc::RUSAGE_SELF,
        Who::Children => libc::RUSAGE_CHILDREN,
    };
    // SAFETY: rusage is plain old data; zeroed is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage for the call's duration.
    super::cvt(unsafe { libc::getrusage(which, &mut ru) })?;
    let (user_ns, sys_ns) = (timeval_ns(ru.ru_utime), timeval_ns(ru.ru_stime));
    let cpu_ns = match who {
        Who::Thread => thread_cpu_ns(),
        Who::Process | Who::Children => user_ns + sys_ns,
    };
    Ok(Usage {
        user_ns,
        sys_ns,
        cpu_ns,
        voluntary_csw: ru.ru_nvcsw as u64,
        involuntary_csw: ru.ru_nivcsw as u64,
    })
}

/// The calling thread's CPU clock, which brings its run time up to date.
fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn timeval_ns(tv: libc::timeval) -> u64 {
    tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over 10 ms of a busy loop, the thread's exact CPU time takes many
    /// values and never runs behind getrusage's total, which moves only at
    /// the scheduler's ticks (at most a few steps over the loop).
    #[test]
    fn the_threads_cpu_time_moves_between_ticks_and_never_lags_getrusage() {
        let start = usage(Who::Thread).unwrap();
        let mut exact = Vec::new();
        loop {
            let now = usage(Who::Thread).unwrap();
            assert!(now.cpu_ns >= now.user_ns + now.sys_ns, "{now:?}");
            exact.push(now.since(start).cpu_ns);
            if exact.last() >= Some(&10_000_000) {
                break;
            }
        }
        exact.dedup();
        assert!(exact.len() > 100, "{} distinct readings", exact.len());
    }
}
