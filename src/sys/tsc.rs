//! The CPU's time-stamp counter, read without a system call or a fence.
//! Only x86_64 has one iolab uses; elsewhere `read` says there is none.

/// The counter's current value, or None on an architecture without one.
#[inline(always)]
pub(crate) fn read() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC has no preconditions on x86_64 user space; it only
        // reads a register (a kernel that forbids it would fault, which
        // Linux does not do).
        Some(unsafe { core::arch::x86_64::_rdtsc() })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counter_advances_where_there_is_one() {
        if let (Some(a), Some(b)) = (super::read(), super::read()) {
            assert!(b >= a);
        }
    }
}
