//! The two kinds of pipe the E1 checks observe side by side: an anonymous
//! pipe (pipefs) and a FIFO in the case's directory, on whatever
//! filesystem that is; and how a timestamp moved between two `fstat`s.

use crate::mechanism::fifo::open_fifo;
use anyhow::Context;
use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{Stat, StatVfsMountFlags};
use std::path::Path;
use std::time::Duration;

/// Longer than the coarsest timestamp tick (HZ=100: 10 ms), so a
/// timestamp taken after it differs from one taken before.
pub(crate) const PAST_A_TICK: Duration = Duration::from_millis(25);

#[derive(Clone, Copy)]
pub(crate) enum PipeKind {
    Anon,
    Fifo,
}

pub(crate) const KINDS: [PipeKind; 2] = [PipeKind::Anon, PipeKind::Fifo];

impl PipeKind {
    /// The observation names' prefix.
    pub(crate) fn key(self) -> &'static str {
        match self {
            PipeKind::Anon => "anon_pipe",
            PipeKind::Fifo => "fifo",
        }
    }

    /// (read end, write end); a FIFO is unlinked once both ends are open.
    pub(crate) fn open(self, dir: &Path, tag: &str) -> anyhow::Result<(OwnedFd, OwnedFd)> {
        match self {
            PipeKind::Anon => rustix::pipe::pipe().context("pipe()"),
            PipeKind::Fifo => {
                let path = dir.join(format!("probe-{tag}.fifo"));
                let ends =
                    open_fifo(&path).with_context(|| format!("mkfifo {}", path.display()))?;
                std::fs::remove_file(&path)
                    .with_context(|| format!("unlink {}", path.display()))?;
                Ok(ends)
            }
        }
    }

    /// "an anonymous pipe (pipefs)" or "a FIFO on ext4 (relatime)".
    pub(crate) fn describe(self, fd: impl AsFd) -> String {
        match self {
            PipeKind::Anon => "an anonymous pipe (pipefs)".to_string(),
            PipeKind::Fifo => format!("a FIFO on {}", filesystem(fd)),
        }
    }
}

/// "ext4 (relatime)": the filesystem holding `fd`'s inode and its atime
/// mount option, which decides whether a read may move the access time.
#[allow(clippy::unnecessary_cast)]
pub(crate) fn filesystem(fd: impl AsFd) -> String {
    let kind = match rustix::fs::fstatfs(&fd) {
        Ok(s) => fs_name(s.f_type as i64),
        Err(e) => format!("an unknown filesystem ({e})"),
    };
    let atime = match rustix::fs::fstatvfs(&fd) {
        Ok(v) if v.f_flag.contains(StatVfsMountFlags::NOATIME) => "noatime",
        Ok(v) if v.f_flag.contains(StatVfsMountFlags::RELATIME) => "relatime",
        Ok(_) => "strictatime",
        Err(_) => "atime option unknown",
    };
    format!("{kind} ({atime})")
}

fn fs_name(magic: i64) -> String {
    let name = match magic {
        0xEF53 => "ext4",
        0x0102_1994 => "tmpfs",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x794C_7630 => "overlayfs",
        0x5049_5045 => "pipefs",
        0x2FC1_2FC1 => "zfs",
        0x6573_5546 => "fuse",
        _ => return format!("filesystem 0x{magic:x}"),
    };
    name.to_string()
}

/// A timestamp as nanoseconds since the epoch. (The casts below are
/// needed where `stat`'s and `statfs`'s field types are narrower than on
/// x86-64.)
pub(crate) fn stamp(sec: i64, nsec: i64) -> i128 {
    i128::from(sec) * 1_000_000_000 + i128::from(nsec)
}

#[allow(clippy::unnecessary_cast)]
pub(crate) fn atime(s: &Stat) -> i128 {
    stamp(s.st_atime as i64, s.st_atime_nsec as i64)
}

#[allow(clippy::unnecessary_cast)]
pub(crate) fn mtime(s: &Stat) -> i128 {
    stamp(s.st_mtime as i64, s.st_mtime_nsec as i64)
}

#[allow(clippy::unnecessary_cast)]
pub(crate) fn ctime(s: &Stat) -> i128 {
    stamp(s.st_ctime as i64, s.st_ctime_nsec as i64)
}

/// "st_atime 1732334400.123456789 -> 1732334400.148456789 (moved 25.0 ms)"
/// or "... unchanged", and how far it moved in ns.
pub(crate) fn moved(field: &str, before: i128, after: i128) -> (String, f64) {
    let show = |t: i128| {
        format!(
            "{}.{:09}",
            t.div_euclid(1_000_000_000),
            t.rem_euclid(1_000_000_000)
        )
    };
    let delta = after - before;
    let text = match delta {
        0 => format!("{field} unchanged at {}", show(before)),
        d => format!(
            "{field} {} -> {} (moved {})",
            show(before),
            show(after),
            crate::format::human(d as f64, "ns")
        ),
    };
    (text, delta as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_that_moved_says_by_how_much() {
        let t = stamp(1_732_334_400, 123_456_789);
        let (text, delta) = moved("st_atime", t, t + 25_000_000);
        assert_eq!(
            text,
            "st_atime 1732334400.123456789 -> 1732334400.148456789 (moved 25.0 ms)"
        );
        assert_eq!(delta, 25e6);
        assert_eq!(
            moved("st_mtime", t, t).0,
            "st_mtime unchanged at 1732334400.123456789"
        );
    }

    #[test]
    fn filesystems_are_named() {
        assert_eq!(fs_name(0x0102_1994), "tmpfs");
        assert_eq!(fs_name(0x1234), "filesystem 0x1234");
        let (r, _w) = rustix::pipe::pipe().unwrap();
        assert!(filesystem(&r).starts_with("pipefs ("), "{}", filesystem(&r));
    }
}
