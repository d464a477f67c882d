//! Shared memory a process has mapped, from `/proc/PID/maps` (proc(5)):
//! POSIX objects under /dev/shm, System V segments, memfds, shared
//! anonymous memory, and other files mapped shared and writable. Shared
//! memory needs no descriptor once mapped, so the fd table misses it.

use super::procfs::split_fields;
use super::types::{SharedMap, ShmKind};

/// The shareable mappings of `pid` in the text of its maps file.
pub(super) fn parse(text: &str, pid: i32) -> Vec<SharedMap> {
    text.lines().filter_map(|l| mapping(l, pid)).collect()
}

/// `start-end perms offset dev inode [path]`.
fn mapping(line: &str, pid: i32) -> Option<SharedMap> {
    let (f, path) = split_fields(line, 5)?;
    let (start, end) = f[0].split_once('-')?;
    let start = u64::from_str_radix(start, 16).ok()?;
    let end = u64::from_str_radix(end, 16).ok()?;
    let perms = f[1];
    let shared = perms.as_bytes().get(3) == Some(&b's');
    let writable = perms.as_bytes().get(1) == Some(&b'w');
    let kind = kind(path, shared, writable)?;
    Some(SharedMap {
        pid,
        kind,
        path: path.to_string(),
        start,
        size: end.saturating_sub(start),
        perms: perms.to_string(),
        shared,
        inode: f[4].parse().ok()?,
    })
}

/// What the path names, or None for a mapping nobody else shares.
fn kind(path: &str, shared: bool, writable: bool) -> Option<ShmKind> {
    if path.starts_with("/dev/shm/") {
        Some(ShmKind::Posix)
    } else if path.starts_with("/SYSV") {
        Some(ShmKind::Sysv)
    } else if path.starts_with("/memfd:") {
        Some(ShmKind::Memfd)
    } else if !shared {
        None
    } else if path.is_empty() || path.starts_with("/dev/zero") {
        Some(ShmKind::Anonymous)
    } else if writable && path.starts_with('/') && !path.starts_with("/dev/") {
        Some(ShmKind::File)
    } else {
        None
    }
}
