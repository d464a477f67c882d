//! select(2) over a libc `fd_set`. An `fd_set` is a fixed bitmap of
//! FD_SETSIZE (1024) bits and FD_SET does no bounds check, so a descriptor
//! at or above FD_SETSIZE would write past the end of it: `FdSet::insert`
//! refuses such a descriptor with an error before any bit is touched.

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

/// The number of descriptors an `fd_set` can hold (1024 on Linux).
pub(crate) const FD_SETSIZE: usize = libc::FD_SETSIZE;

/// Says why `fd` cannot go into an `fd_set`.
pub(crate) fn too_high(fd: RawFd) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("descriptor {fd} is at or above select's FD_SETSIZE of {FD_SETSIZE}"),
    )
}

#[derive(Clone, Copy)]
pub(crate) struct FdSet {
    set: libc::fd_set,
    /// One more than the highest descriptor inserted (select's nfds).
    bound: RawFd,
}

impl Default for FdSet {
    fn default() -> Self {
        Self::new()
    }
}

impl FdSet {
    pub(crate) fn new() -> FdSet {
        // SAFETY: fd_set is plain old data; all-zero bits is the empty set
        // (what FD_ZERO produces).
        let set: libc::fd_set = unsafe { std::mem::zeroed() };
        FdSet { set, bound: 0 }
    }

    /// Adds `fd`; an error, and no change, when it does not fit the set.
    pub(crate) fn insert(&mut self, fd: RawFd) -> io::Result<()> {
        if fd < 0 || fd as usize >= FD_SETSIZE {
            return Err(too_high(fd));
        }
        // SAFETY: 0 <= fd < FD_SETSIZE was checked above, so the bit FD_SET
        // sets lies inside `self.set`.
        unsafe { libc::FD_SET(fd, &mut self.set) };
        self.bound = self.bound.max(fd + 1);
        Ok(())
    }

    pub(crate) fn contains(&self, fd: RawFd) -> bool {
        if fd < 0 || fd as usize >= FD_SETSIZE {
            return false;
        }
        // SAFETY: 0 <= fd < FD_SETSIZE, so FD_ISSET reads inside `self.set`.
        unsafe { libc::FD_ISSET(fd, &self.set) }
    }
}

/// Waits until a descriptor of `read` is readable (None: forever); `read`
/// is left holding only the ready ones. Returns how many are ready.
pub(crate) fn select_read(read: &mut FdSet, timeout: Option<Duration>) -> io::Result<usize> {
    let mut tv = timeout.map(|t| libc::timeval {
        tv_sec: t.as_secs() as libc::time_t,
        tv_usec: t.subsec_micros() as libc::suseconds_t,
    });
    let tv_ptr = tv
        .as_mut()
        .map_or(std::ptr::null_mut(), |t| t as *mut libc::timeval);
    // SAFETY: `read.set` is a valid fd_set whose set bits are all below
    // `read.bound` <= FD_SETSIZE; the other sets are null, and `tv_ptr` is
    // null or points to a timeval that outlives the call.
    let n = unsafe {
        libc::select(
            read.bound,
            &mut read.set,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            tv_ptr,
        )
    };
    super::cvt(n).map(|n| n as usize)
}

/// The bits of one word of a select bitmap.
pub(crate) const WORD_BITS: usize = libc::c_ulong::BITS as usize;

/// select(2) for readability over a bitmap the caller allocated, of any
/// size: the kernel takes `nfds` from the call, not FD_SETSIZE, so a
/// bitmap of `nfds.div_ceil(WORD_BITS)` words holds descriptors past
/// FD_SETSIZE. Returns how many are ready; `bits` keeps only those.
pub(crate) fn select_read_bits(
    nfds: usize,
    bits: &mut [libc::c_ulong],
    timeout: Duration,
) -> io::Result<usize> {
    if bits.len() < nfds.div_ceil(WORD_BITS) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a bitmap of {} words cannot hold nfds {nfds}", bits.len()),
        ));
    }
    let nfds = libc::c_int::try_from(nfds)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "nfds out of range"))?;
    let mut tv = libc::timeval {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_usec: timeout.subsec_micros() as libc::suseconds_t,
    };
    // SAFETY: the kernel reads and writes nfds.div_ceil(WORD_BITS) words
    // at `bits`, which the check above proved it holds; the other sets
    // are null and `tv` outlives the call.
    let n = unsafe {
        libc::select(
            nfds,
            bits.as_mut_ptr().cast::<libc::fd_set>(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut tv,
        )
    };
    super::cvt(n).map(|n| n as usize)
}

/// The C library's version, e.g. "2.41" (glibc only).
pub(crate) fn libc_version() -> Option<String> {
    #[cfg(target_env = "gnu")]
    {
        // SAFETY: gnu_get_libc_version returns a pointer to a static
        // NUL-terminated string that lives as long as the process.
        let text = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
        Some(format!("glibc {}", text.to_string_lossy()))
    }
    #[cfg(not(target_env = "gnu"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_descriptors_at_or_above_fd_setsize() {
        let mut set = FdSet::new();
        let err = set.insert(FD_SETSIZE as RawFd).unwrap_err();
        assert_eq!(
            err.to_string(),
            "descriptor 1024 is at or above select's FD_SETSIZE of 1024"
        );
        assert!(set.insert(5000).is_err());
        assert!(set.insert(-1).is_err());
        assert_eq!(set.bound, 0);
        assert!(!set.contains(5000));
    }

    #[test]
    fn a_written_pipe_is_selected() {
        let (rx, tx) = rustix::pipe::pipe().unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&rx);
        let mut set = FdSet::new();
        set.insert(fd).unwrap();
        let mut ready = set;
        assert_eq!(select_read(&mut ready, Some(Duration::ZERO)).unwrap(), 0);
        rustix::io::write(&tx, b"x").unwrap();
        let mut ready = set;
        assert_eq!(select_read(&mut ready, Some(Duration::ZERO)).unwrap(), 1);
        assert!(ready.contains(fd));
    }

    #[test]
    fn a_bitmap_past_fd_setsize_selects_and_a_short_one_is_refused() {
        let (rx, tx) = rustix::pipe::pipe().unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&rx) as usize;
        let mut bits = vec![0 as libc::c_ulong; 2 * FD_SETSIZE / WORD_BITS];
        bits[fd / WORD_BITS] |= 1 << (fd % WORD_BITS);
        let nfds = 2 * FD_SETSIZE;
        let mut ready = bits.clone();
        assert_eq!(
            select_read_bits(nfds, &mut ready, Duration::ZERO).unwrap(),
            0
        );
        assert!(ready.iter().all(|w| *w == 0));
        rustix::io::write(&tx, b"x").unwrap();
        let mut ready = bits.clone();
        assert_eq!(
            select_read_bits(nfds, &mut ready, Duration::ZERO).unwrap(),
            1
        );
        assert_eq!(ready, bits);
        let err = select_read_bits(nfds + 1, &mut ready, Duration::ZERO).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a bitmap of 32 words cannot hold nfds 2049"
        );
    }
}
