//! The file a copier scenario moves: written once per case into the case's
//! private directory with reproducible, incompressible content, with its
//! xxh3 hash for the receiver to match; the filesystem and atime mode of
//! its mount (TMPDIR may be tmpfs, where nothing is ever read from disk);
//! and dropping its pages from the page cache for `cache=cold`. A directory
//! without room for the file (checked with statvfs first, or ENOSPC while
//! writing) makes the case `unsupported`, naming the directory and sizes.

use crate::format::binary_size;
use crate::scenario::Unsupported;
use crate::sys::mmap::resident_pages;
use anyhow::Context;
use rustix::fs::{fadvise, Advice};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

const CHUNK: usize = 1 << 20;

pub(crate) struct TestFile {
    pub(crate) path: PathBuf,
    pub(crate) file: File,
    pub(crate) len: u64,
    pub(crate) hash: u64,
    pub(crate) mount: Mount,
}

impl TestFile {
    /// Writes `len` bytes to `dir/name`, synced so its pages can be dropped.
    pub(crate) fn create(dir: &Path, name: &str, len: u64) -> anyhow::Result<TestFile> {
        ensure_room(dir, len)?;
        let path = dir.join(name);
        let hash = write_content(&path, len).map_err(|e| write_failed(e, &path, len))?;
        let file = File::open(&path)?;
        let mount = Mount::of(&path);
        Ok(TestFile {
            path,
            file,
            len,
            hash,
            mount,
        })
    }

    /// (pages in the page cache, pages of the file).
    pub(crate) fn resident(&self) -> anyhow::Result<(u64, u64)> {
        resident_pages(&self.file, self.len).context("mincore on the test file")
    }

    /// `cache=cold`: drops the file's pages and checks with mincore that
    /// they are gone; a filesystem that keeps them (tmpfs) is `Unsupported`.
    pub(crate) fn prepare(&self, cache: &str) -> anyhow::Result<()> {
        if cache != "cold" {
            return Ok(());
        }
        fadvise(&self.file, 0, None, Advice::DontNeed).context("posix_fadvise DONTNEED")?;
        let (resident, total) = self.resident()?;
        if resident > 0 {
            return Err(Unsupported(format!(
                "cannot make the cache cold: {resident} of {total} pages still in the page cache after POSIX_FADV_DONTNEED ({} on {})",
                self.mount.fs_type, self.mount.point
            ))
            .into());
        }
        Ok(())
    }

    /// Records where the file lives in the result's params.
    pub(crate) fn describe(&self, out: &mut crate::model::CaseResult) {
        out.params
            .insert("filesystem".into(), self.mount.fs_type.clone().into());
        out.params
            .insert("mount_point".into(), self.mount.point.clone().into());
    }
}

/// Writes the file's `len` bytes and syncs them; returns their hash.
fn write_content(path: &Path, len: u64) -> io::Result<u64> {
    let mut file = File::create(path)?;
    let mut digest = Digest::default();
    let mut chunk = vec![0u8; CHUNK];
    let mut written = 0u64;
    while written < len {
        let n = (len - written).min(CHUNK as u64) as usize;
        fill(&mut chunk[..n], written);
        file.write_all(&chunk[..n])?;
        digest.update(&chunk[..n]);
        written += n as u64;
    }
    file.sync_all()?;
    Ok(digest.hash())
}

/// `Unsupported` unless `dir`'s filesystem has `len` bytes free for this
/// user (statvfs), for a file (test file or copy) about to be written.
pub(crate) fn ensure_room(dir: &Path, len: u64) -> anyhow::Result<()> {
    let free = free_bytes(dir).with_context(|| format!("statvfs {}", dir.display()))?;
    if free < len {
        return Err(Unsupported(room_text(dir, len, free)).into());
    }
    Ok(())
}

/// ENOSPC or EDQUOT while writing `path` (though statvfs saw room) is
/// `Unsupported` like a failed `ensure_room`; the partial file is removed
/// first, so the free space named is what the directory offers. Other
/// errors stay failures.
fn write_failed(err: io::Error, path: &Path, len: u64) -> anyhow::Error {
    if !matches!(err.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) {
        return anyhow::Error::new(err).context(format!("writing {}", path.display()));
    }
    let _ = std::fs::remove_file(path);
    let dir = path.parent().unwrap_or(path);
    let free = free_bytes(dir).unwrap_or(0);
    let why = format!("no space left on device: {}", room_text(dir, len, free));
    Unsupported(why).into()
}

fn free_bytes(dir: &Path) -> io::Result<u64> {
    let fs = rustix::fs::statvfs(dir)?;
    Ok(fs.f_bavail.saturating_mul(fs.f_frsize))
}

/// `needs 64 MiB in DIR, 3 MiB free`; in bytes when the two round alike.
fn room_text(dir: &Path, len: u64, free: u64) -> String {
    let size = |bytes: u64| binary_size(bytes as f64, 1);
    let (mut need, mut have) = (size(len), size(free));
    if need == have {
        (need, have) = (format!("{len} bytes"), format!("{free} bytes"));
    }
    format!("needs {need} in {}, {have} free", dir.display())
}

/// Reproducible bytes that no filesystem or link compresses: a splitmix64
/// stream indexed by the byte offset.
fn fill(buf: &mut [u8], offset: u64) {
    for (i, word) in buf.chunks_mut(8).enumerate() {
        let mut z = (offset / 8 + i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let bytes = (z ^ (z >> 31)).to_le_bytes();
        word.copy_from_slice(&bytes[..word.len()]);
    }
}

/// A running count and xxh3 of the bytes seen, for receivers.
#[derive(Default)]
pub(crate) struct Digest {
    pub(crate) bytes: u64,
    hasher: Xxh3,
}

impl Digest {
    pub(crate) fn update(&mut self, data: &[u8]) {
        self.bytes += data.len() as u64;
        self.hasher.update(data);
    }

    pub(crate) fn hash(&self) -> u64 {
        self.hasher.digest()
    }

    /// Why `bytes`/`hash` are not the file's, if they are not.
    pub(crate) fn mismatch(&self, len: u64, hash: u64) -> Option<String> {
        if self.bytes != len {
            return Some(format!("received {} bytes, the file has {len}", self.bytes));
        }
        (self.hash() != hash).then(|| {
            format!(
                "the received bytes hash to {:016x}, the file to {hash:016x}",
                self.hash()
            )
        })
    }
}

/// The mount a path lives on, from /proc/self/mountinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mount {
    pub(crate) point: String,
    pub(crate) fs_type: String,
    pub(crate) options: String,
}

impl Mount {
    pub(crate) fn of(path: &Path) -> Mount {
        let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        find_mount(&text, &path).unwrap_or(Mount {
            point: "?".into(),
            fs_type: "unknown".into(),
            options: String::new(),
        })
    }

    /// `noatime`, `relatime` or `strictatime` (no flag shown), plus
    /// `lazytime`.
    pub(crate) fn atime_mode(&self) -> String {
        atime_mode(&self.options)
    }
}

/// The atime mode a mount's options select: `noatime`, `relatime` or
/// `strictatime` (no flag shown), plus `lazytime` (`nodiratime` concerns
/// directories only).
pub(crate) fn atime_mode(options: &str) -> String {
    let has = |o: &str| options.split(',').any(|x| x == o);
    let mode = if has("noatime") {
        "noatime"
    } else if has("relatime") {
        "relatime"
    } else {
        "strictatime"
    };
    let extras = ["lazytime"].into_iter().filter(|o| has(o));
    std::iter::once(mode)
        .chain(extras)
        .collect::<Vec<_>>()
        .join(",")
}

/// The mountinfo entry with the longest mount point containing `path`
/// (the last one mounted wins a tie).
fn find_mount(mountinfo: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(dash) = fields.iter().position(|f| *f == "-") else {
            continue;
        };
        let (Some(point), Some(options), Some(fs_type)) =
            (fields.get(4), fields.get(5), fields.get(dash + 1))
        else {
            continue;
        };
        let point = point.replace("\\040", " ");
        if !path.starts_with(&point) || best.as_ref().is_some_and(|b| b.point.len() > point.len()) {
            continue;
        }
        best = Some(Mount {
            point,
            fs_type: fs_type.to_string(),
            options: options.to_string(),
        });
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
30 22 0:25 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw
31 22 0:26 / /data rw,noatime,lazytime shared:6 - xfs /dev/sdb rw
";

    #[test]
    fn longest_mount_point_wins() {
        let m = find_mount(MOUNTINFO, Path::new("/tmp/iolab-x/f")).unwrap();
        assert_eq!((m.point.as_str(), m.fs_type.as_str()), ("/tmp", "tmpfs"));
        assert_eq!(m.atime_mode(), "strictatime");
        let m = find_mount(MOUNTINFO, Path::new("/home/x")).unwrap();
        assert_eq!(
            (m.fs_type.as_str(), m.atime_mode().as_str()),
            ("ext4", "relatime")
        );
        let m = find_mount(MOUNTINFO, Path::new("/data/f")).unwrap();
        assert_eq!(m.atime_mode(), "noatime,lazytime");
    }

    #[test]
    fn sizes_read_in_binary_units() {
        let size = |bytes: u64| binary_size(bytes as f64, 1);
        assert_eq!(size(100), "100 B");
        assert_eq!(size(64 << 20), "64 MiB");
        assert_eq!(size(3 << 19), "1.5 MiB");
        assert_eq!(size(512 << 10), "512 KiB");
    }

    #[test]
    fn a_file_bigger_than_the_free_space_is_unsupported_naming_dir_and_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let too_big = free_bytes(dir.path()).unwrap() + (1 << 40);
        let err = TestFile::create(dir.path(), "f", too_big).err().unwrap();
        let why = &err.downcast_ref::<Unsupported>().expect("unsupported").0;
        let expect = format!(
            "needs {} in {}, ",
            binary_size(too_big as f64, 1),
            dir.path().display()
        );
        assert!(why.starts_with(&expect), "{why}");
        assert!(why.ends_with(" free"), "{why}");
        assert!(!dir.path().join("f").exists(), "nothing written");
    }

    #[test]
    fn sizes_that_round_alike_are_given_in_bytes() {
        let dir = Path::new("/d");
        assert_eq!(
            room_text(dir, 64 << 20, 3 << 20),
            "needs 64 MiB in /d, 3 MiB free"
        );
        assert_eq!(
            room_text(dir, 2 << 20, (2 << 20) - 4096),
            "needs 2097152 bytes in /d, 2093056 bytes free"
        );
    }

    #[test]
    fn a_write_failing_with_enospc_is_unsupported_naming_dir_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"partial").unwrap();
        let enospc = io::Error::from_raw_os_error(libc::ENOSPC);
        let err = write_failed(enospc, &path, 4096);
        let why = &err.downcast_ref::<Unsupported>().expect("unsupported").0;
        let expect = format!(
            "no space left on device: needs 4 KiB in {}, ",
            dir.path().display()
        );
        assert!(why.starts_with(&expect), "{why}");
        assert!(!path.exists(), "the partial file was kept");
        let err = write_failed(io::Error::from_raw_os_error(libc::EIO), &path, 4096);
        assert!(err.downcast_ref::<Unsupported>().is_none(), "{err:#}");
        assert!(format!("{err:#}").starts_with(&format!("writing {}", path.display())));
    }

    #[test]
    fn file_hash_matches_a_digest_of_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let f = TestFile::create(dir.path(), "f", 3 * CHUNK as u64 + 5).unwrap();
        let bytes = std::fs::read(&f.path).unwrap();
        let mut d = Digest::default();
        d.update(&bytes);
        assert_eq!(d.mismatch(f.len, f.hash), None);
        let mut bad = bytes.clone();
        bad[1000] ^= 1;
        let mut d = Digest::default();
        d.update(&bad);
        assert!(d.mismatch(f.len, f.hash).unwrap().contains("hash to"));
        assert_ne!(bytes[..8], bytes[8..16]);
    }
}
