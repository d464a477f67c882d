//! A process's descriptor table as `/proc/PID/fd` shows it: each
//! descriptor's number and link text (`pipe:[N]`, `socket:[N]`,
//! `anon_inode:[eventfd]`, a path...). Reading a link never touches the
//! object behind it.

use std::io;
use std::path::{Path, PathBuf};

/// One descriptor and what its link names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FdLink {
    pub(super) fd: i32,
    pub(super) link: String,
}

/// What `read_links` could not read of an otherwise readable table.
pub(super) type LinkErrors = Vec<(PathBuf, io::Error)>;

/// The fd table of the process whose /proc directory is `pid_dir`, in fd
/// order. A descriptor closed between listing and reading is skipped;
/// another failure to read a link is returned beside the table.
pub(super) fn read_links(pid_dir: &Path) -> io::Result<(Vec<FdLink>, LinkErrors)> {
    let dir = pid_dir.join("fd");
    let mut links = Vec::new();
    let mut errors = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let Some(fd) = entry
            .ok()
            .and_then(|e| e.file_name().to_str()?.parse::<i32>().ok())
        else {
            continue;
        };
        let path = dir.join(fd.to_string());
        match std::fs::read_link(&path) {
            Ok(target) => links.push(FdLink {
                fd,
                link: target.to_string_lossy().into_owned(),
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => errors.push((path, e)),
        }
    }
    links.sort_by_key(|l| l.fd);
    Ok((links, errors))
}

/// N of a link `prefix[N]` (`pipe:[N]`, `socket:[N]`).
pub(crate) fn bracketed(link: &str, prefix: &str) -> Option<u64> {
    link.strip_prefix(prefix)?
        .strip_prefix('[')?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// The name of an anonymous inode: `anon_inode:[eventfd]` and
/// `anon_inode:inotify` give `eventfd` and `inotify`.
pub(super) fn anon_name(link: &str) -> Option<&str> {
    let name = link.strip_prefix("anon_inode:")?;
    Some(
        name.strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name),
    )
}

/// The last path component, without the " (deleted)" of an unlinked file.
pub(super) fn basename(link: &str) -> &str {
    let link = link.strip_suffix(" (deleted)").unwrap_or(link);
    link.rsplit('/').next().unwrap_or(link)
}
