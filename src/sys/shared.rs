//! Counters shared between iolab and the processes it forks: an anonymous
//! MAP_SHARED mapping survives fork, so a forked relay's progress is seen
//! by the parent without any system call per update.

use rustix::mm::{mmap_anonymous, munmap, MapFlags, ProtFlags};
use std::sync::atomic::AtomicU64;

/// One cache line per counter, so counters of different writers never
/// share a line.
#[repr(C, align(64))]
pub struct Slot(pub AtomicU64);

pub struct SharedCounters {
    ptr: *mut Slot,
    len: usize,
}

// SAFETY: the mapping is only accessed through atomics.
unsafe impl Send for SharedCounters {}
// SAFETY: as above; shared references only hand out `&AtomicU64`.
unsafe impl Sync for SharedCounters {}

impl SharedCounters {
    /// `len` zeroed counters.
    pub fn new(len: usize) -> std::io::Result<SharedCounters> {
        let bytes = len.max(1) * std::mem::size_of::<Slot>();
        // SAFETY: a fresh anonymous mapping at an address the kernel picks
        // aliases no Rust object; it is zero-filled, a valid AtomicU64.
        let ptr = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                bytes,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
            )?
        };
        Ok(SharedCounters {
            ptr: ptr.cast(),
            len: len.max(1),
        })
    }

    pub fn get(&self, index: usize) -> &AtomicU64 {
        assert!(index < self.len, "counter {index} out of {}", self.len);
        // SAFETY: index is in bounds of the live mapping, page-aligned and
        // thus aligned for Slot; all access is atomic.
        unsafe { &(*self.ptr.add(index)).0 }
    }
}

impl Drop for SharedCounters {
    fn drop(&mut self) {
        // SAFETY: ptr/len describe the mapping made in `new`, and no
        // reference into it outlives `self`.
        let _ = unsafe { munmap(self.ptr.cast(), self.len * std::mem::size_of::<Slot>()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn counters_start_at_zero_and_count() {
        let c = SharedCounters::new(3).unwrap();
        assert_eq!(c.get(2).load(Ordering::Relaxed), 0);
        c.get(1).fetch_add(5, Ordering::Relaxed);
        assert_eq!(c.get(1).load(Ordering::Relaxed), 5);
    }
}
