//! CPU time and context switches of the calling thread or process, via
//! getrusage (rustix has no RUSAGE_THREAD).

use std::io;

/// Counters at one instant; subtract two to get the cost of what ran between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    pub(crate) user_ns: u64,
    pub(crate) sys_ns: u64,
    pub voluntary_csw: u64,
    pub involuntary_csw: u64,
}

impl Usage {
    pub(crate) fn since(self, earlier: Usage) -> Usage {
        Usage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            voluntary_csw: self.voluntary_csw.saturating_sub(earlier.voluntary_csw),
            involuntary_csw: self.involuntary_csw.saturating_sub(earlier.involuntary_csw),
        }
    }

    pub(crate) fn plus(self, other: Usage) -> Usage {
        Usage {
            user_ns: self.user_ns + other.user_ns,
            sys_ns: self.sys_ns + other.sys_ns,
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
    Ok(Usage {
        user_ns: timeval_ns(ru.ru_utime),
        sys_ns: timeval_ns(ru.ru_stime),
        voluntary_csw: ru.ru_nvcsw as u64,
        involuntary_csw: ru.ru_nivcsw as u64,
    })
}

fn timeval_ns(tv: libc::timeval) -> u64 {
    tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000
}
