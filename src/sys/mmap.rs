//! A read-only shared mapping of a file: the `mmap-write` copier writes
//! from it, and `mincore` (which only answers for mapped memory) counts how
//! many of the file's pages sit in the page cache without touching them.

use rustix::fd::AsFd;
use rustix::mm::{mmap, munmap, MapFlags, ProtFlags};
use std::ffi::c_void;
use std::fs::File;
use std::io;

/// `len` bytes of a file, mapped shared and read-only; unmapped on drop.
pub(crate) struct Mapping {
    ptr: *mut c_void,
    len: usize,
}

impl Mapping {
    /// Maps the first `len` bytes of `file` (`len` > 0); any descriptor
    /// may be asked (`probe` asks an epoll descriptor).
    pub(crate) fn of(file: impl AsFd, len: usize) -> io::Result<Mapping> {
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "cannot map 0 bytes",
            ));
        }
        // SAFETY: a fresh mapping chosen by the kernel (null hint) cannot
        // alias any Rust object; the fd is valid for the call.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ,
                MapFlags::SHARED,
                file,
                0,
            )
        }?;
        Ok(Mapping { ptr, len })
    }

    /// The mapped bytes. Touching them faults the pages in.
    pub(crate) fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr..ptr+len` is a live read-only mapping owned by self.
        // iolab's files live in its private 0700 dir and are never
        // truncated while mapped, so no access can raise SIGBUS.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) }
    }

    /// (pages in the page cache, pages of the mapping), by mincore, which
    /// never faults a page in.
    pub(crate) fn resident_pages(&self) -> io::Result<(u64, u64)> {
        let page = rustix::param::page_size();
        let pages = self.len.div_ceil(page);
        let mut vec = vec![0u8; pages];
        // SAFETY: `ptr` is page-aligned (from mmap) and covers `len` bytes;
        // `vec` has one byte per page of that range, as mincore requires.
        super::cvt(unsafe { libc::mincore(self.ptr, self.len, vec.as_mut_ptr()) })?;
        let resident = vec.iter().filter(|b| **b & 1 == 1).count();
        Ok((resident as u64, pages as u64))
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping was created by `of` and is unmapped once; no
        // slice from `as_slice` outlives `self`.
        let _ = unsafe { munmap(self.ptr, self.len) };
    }
}

/// (resident pages, total pages) of the first `len` bytes of `file`.
pub(crate) fn resident_pages(file: &File, len: u64) -> io::Result<(u64, u64)> {
    Mapping::of(file, len as usize)?.resident_pages()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_written_file_is_resident_and_its_bytes_readable() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[7u8; 3 * 4096 + 1]).unwrap();
        let map = Mapping::of(&f, 3 * 4096 + 1).unwrap();
        assert_eq!(map.as_slice()[3 * 4096], 7);
        let (resident, total) = map.resident_pages().unwrap();
        assert_eq!(
            total,
            (3 * 4096 + 1usize).div_ceil(rustix::param::page_size()) as u64
        );
        assert_eq!(resident, total);
    }

    #[test]
    fn zero_bytes_is_an_error() {
        let f = tempfile::tempfile().unwrap();
        assert!(Mapping::of(&f, 0).is_err());
    }
}
