//! Memory shared by the two sides of a case, also across fork: one
//! anonymous MAP_SHARED mapping, created before the sides start, so both
//! processes see the same pages. The shm mechanism lays its ring out in it
//! by offsets; this file only hands out atomics and copies bytes in bounds.

use rustix::mm::{mmap_anonymous, munmap, MapFlags, ProtFlags};
use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64};

pub struct SharedRegion {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the region is plain shared memory; all access goes through
// atomics or through `read`/`write`, whose callers (the SPSC ring) give each
// byte range to one side at a time with acquire/release ordering.
unsafe impl Send for SharedRegion {}
// SAFETY: as above; `&SharedRegion` only exposes atomics and bounded copies.
unsafe impl Sync for SharedRegion {}

impl SharedRegion {
    /// A zero-filled shared mapping of `len` bytes (page-aligned).
    pub fn new(len: usize) -> io::Result<SharedRegion> {
        // SAFETY: a fresh anonymous mapping at an address of the kernel's
        // choosing aliases no Rust object.
        let ptr = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
            )?
        };
        let ptr =
            NonNull::new(ptr.cast::<u8>()).ok_or_else(|| io::Error::other("mmap gave NULL"))?;
        Ok(SharedRegion { ptr, len })
    }

    #[inline]
    fn at(&self, offset: usize, size: usize, align: usize) -> *mut u8 {
        let in_bounds = offset.checked_add(size).is_some_and(|end| end <= self.len);
        if !in_bounds || !offset.is_multiple_of(align) {
            bad_access(offset, size, align, self.len);
        }
        // SAFETY: offset + size is within the mapping (checked above).
        unsafe { self.ptr.as_ptr().add(offset) }
    }

    #[inline]
    pub fn atomic_u64(&self, offset: usize) -> &AtomicU64 {
        let p = self.at(offset, 8, 8);
        // SAFETY: in bounds and 8-byte aligned (checked); the mapping lives
        // as long as `self`; zeroed memory is a valid AtomicU64, and every
        // access to these bytes is atomic.
        unsafe { AtomicU64::from_ptr(p.cast::<u64>()) }
    }

    #[inline]
    pub(crate) fn atomic_u32(&self, offset: usize) -> &AtomicU32 {
        let p = self.at(offset, 4, 4);
        // SAFETY: as for `atomic_u64`, with 4-byte alignment.
        unsafe { AtomicU32::from_ptr(p.cast::<u32>()) }
    }

    /// Copies `src` into the region at `offset`.
    #[inline]
    pub fn write(&self, offset: usize, src: &[u8]) {
        let p = self.at(offset, src.len(), 1);
        // SAFETY: the destination is in bounds (checked) and cannot overlap
        // `src`, a Rust slice outside the mapping's slots; the ring gives
        // this range to the writer alone until it publishes it.
        unsafe { copy(src.as_ptr(), p, src.len()) }
    }

    /// Copies bytes at `offset` into `dst`.
    #[inline]
    pub fn read(&self, offset: usize, dst: &mut [u8]) {
        let p = self.at(offset, dst.len(), 1);
        // SAFETY: the source is in bounds (checked) and does not overlap
        // `dst`; the ring gives this range to the reader alone until it
        // releases it, and any byte pattern is a valid u8.
        unsafe { copy(p, dst.as_mut_ptr(), dst.len()) }
    }
}

/// `copy_nonoverlapping`, with a one-byte message (the usual latency
/// probe) moved without a call to `memcpy`.
///
/// # Safety
/// As `copy_nonoverlapping`.
#[inline(always)]
unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    if len == 1 {
        // SAFETY: the caller's contract, for one byte.
        unsafe { dst.write(src.read()) }
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) }
    }
}

/// Out of line, so the checks in `at` cost a compare and a branch.
#[cold]
#[inline(never)]
fn bad_access(offset: usize, size: usize, align: usize, len: usize) -> ! {
    panic!(
        "shared region access {offset}+{size} (alignment {align}) beyond {len} bytes or misaligned"
    )
}

impl Drop for SharedRegion {
    fn drop(&mut self) {
        // SAFETY: ptr/len are the mapping made in `new`; no reference into
        // it outlives `self` (atomics borrow `self`).
        let _ = unsafe { munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// Counters one cache line apart in a shared region, so the counters of
/// different writers (e.g. forked relays reporting progress) never share a
/// line and the parent reads them without a system call.
pub(crate) struct SharedCounters {
    region: SharedRegion,
    len: usize,
}

impl SharedCounters {
    const STRIDE: usize = 64;

    /// `len` zeroed counters.
    pub(crate) fn new(len: usize) -> io::Result<SharedCounters> {
        let len = len.max(1);
        let region = SharedRegion::new(len * Self::STRIDE)?;
        Ok(SharedCounters { region, len })
    }

    pub(crate) fn get(&self, index: usize) -> &AtomicU64 {
        assert!(index < self.len, "counter {index} out of {}", self.len);
        self.region.atomic_u64(index * Self::STRIDE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn bytes_and_atomics_round_trip() {
        let r = SharedRegion::new(8192).unwrap();
        r.atomic_u64(128).store(7, Ordering::SeqCst);
        assert_eq!(r.atomic_u64(128).load(Ordering::SeqCst), 7);
        r.write(1000, b"hello");
        let mut buf = [0u8; 5];
        r.read(1000, &mut buf);
        assert_eq!(&buf, b"hello");
    }

    #[test]
    #[should_panic(expected = "beyond")]
    fn out_of_bounds_is_refused() {
        SharedRegion::new(4096).unwrap().write(4090, &[0; 10]);
    }
}
