//! The process's allocator: the system's, except that a small allocation
//! the system refuses ends iolab in one line with status 2 (an address
//! space too tight, a low `ulimit -v`) instead of Rust's abort. A small
//! request failing means the heap is exhausted and no error could even be
//! formatted; a large one is returned to its caller, whose fallible
//! allocation (`mem::reserve`) names the size.

use std::alloc::{GlobalAlloc, Layout, System};

/// Requests up to this size that fail end the process.
const SMALL: usize = 64 * 1024;
const MESSAGE: &[u8] =
    b"error: out of memory: the address space (ulimit -v) is too tight for iolab; raise it\n";

pub(crate) struct OneLineOnExhaustion;

impl OneLineOnExhaustion {
    fn checked(ptr: *mut u8, layout: Layout) -> *mut u8 {
        if ptr.is_null() && layout.size() <= SMALL {
            // SAFETY: write(2) of a static buffer and _exit(2) take no locks
            // and allocate nothing.
            unsafe {
                libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
                libc::_exit(2);
            }
        }
        ptr
    }
}

// SAFETY: every call is forwarded to the system allocator with the same
// arguments; only a null result is acted on.
unsafe impl GlobalAlloc for OneLineOnExhaustion {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        Self::checked(unsafe { System.alloc(layout) }, layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        Self::checked(unsafe { System.alloc_zeroed(layout) }, layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System`; the contract is passed on.
        let grown = unsafe { System.realloc(ptr, layout, new_size) };
        let new_layout = Layout::from_size_align(new_size, layout.align()).unwrap_or(layout);
        Self::checked(grown, new_layout)
    }
}

#[global_allocator]
static ALLOCATOR: OneLineOnExhaustion = OneLineOnExhaustion;
