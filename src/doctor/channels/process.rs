//! One scanned process: each descriptor of its fd table becomes a Channel
//! of the right kind, or nothing for a regular file, a directory, a
//! device or a namespace. What a kind needs (fdinfo, mountinfo, the net
//! tables, sock_diag) is read when first needed, once per process.

use std::collections::HashMap;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::diag::UnixDiag;
use super::fdinfo::{self, FdInfo};
use super::fds::{anon_name, bracketed, FdLink};
use super::mounts::{self, Mount};
use super::net::{self, InetRow, Proto, UnixRow};
use super::procfs::pid_problem;
use super::types::{Channel, Kind};

/// MQUEUE_MAGIC, the f_type statfs gives on the mqueue file system.
const MQUEUE_MAGIC: u64 = 0x1980_0202;
/// nsfs links (`net:[N]`...): namespaces, not channels.
const NAMESPACES: [&str; 8] = ["cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"];

/// Where the unix socket peers come from (sock_diag, or a test's table).
pub(super) type DiagSource<'s> = &'s dyn Fn() -> Result<HashMap<u64, UnixDiag>, String>;

/// The sock_diag dump, taken once per scan when a unix socket needs it.
pub(super) struct Diag<'s> {
    source: DiagSource<'s>,
    result: Option<Result<HashMap<u64, UnixDiag>, String>>,
}

impl<'s> Diag<'s> {
    pub(super) fn new(source: DiagSource<'s>) -> Self {
        Diag {
            source,
            result: None,
        }
    }

    fn get(&mut self, inode: u64) -> Option<&UnixDiag> {
        let source = self.source;
        self.result
            .get_or_insert_with(source)
            .as_ref()
            .ok()?
            .get(&inode)
    }

    /// Why the dump failed, if it was taken and failed.
    pub(super) fn problem(&self) -> Option<String> {
        self.result.as_ref()?.as_ref().err().cloned()
    }
}

/// A process's socket tables (its network namespace's), each read when
/// first needed: a busy machine's tcp table holds tens of thousands of rows
/// that a process with only unix sockets and pipes never needs.
#[derive(Default)]
struct Tables {
    unix: Option<HashMap<u64, UnixRow>>,
    inet: Option<Vec<InetRow>>,
}

/// The reader of one process's channels.
pub(super) struct Process<'a, 's> {
    pid: i32,
    dir: PathBuf,
    mounts: Option<HashMap<u64, Mount>>,
    tables: Tables,
    diag: &'a mut Diag<'s>,
    unreadable: &'a mut Vec<String>,
}

impl<'a, 's> Process<'a, 's> {
    pub(super) fn new(
        proc_root: &Path,
        pid: i32,
        diag: &'a mut Diag<'s>,
        unreadable: &'a mut Vec<String>,
    ) -> Self {
        let dir = proc_root.join(pid.to_string());
        Process {
            pid,
            dir,
            mounts: None,
            tables: Tables::default(),
            diag,
            unreadable,
        }
    }

    /// The channels among `links`, in their order, without peers.
    pub(super) fn channels(&mut self, links: &[FdLink]) -> Vec<Channel> {
        links.iter().filter_map(|l| self.channel(l)).collect()
    }

    fn channel(&mut self, l: &FdLink) -> Option<Channel> {
        let (inode, kind) = self.kind(l.fd, &l.link)?;
        Some(Channel {
            pid: self.pid,
            fd: l.fd,
            inode,
            kind,
            peers: Vec::new(),
        })
    }

    fn kind(&mut self, fd: i32, link: &str) -> Option<(u64, Kind)> {
        if let Some(inode) = bracketed(link, "pipe:") {
            let (readable, writable) = self.fdinfo(fd).access();
            return Some((inode, Kind::Pipe { readable, writable }));
        }
        if let Some(inode) = bracketed(link, "socket:") {
            return Some((inode, self.socket(inode)));
        }
        if link.starts_with('/') {
            return self.file(fd, link);
        }
        if NAMESPACES
            .iter()
            .any(|ns| bracketed(link, &format!("{ns}:")).is_some())
        {
            return None;
        }
        Some((0, self.anon(fd, link)))
    }

    /// An anonymous inode: eventfd, epoll, signalfd, timerfd, or other.
    fn anon(&self, fd: i32, link: &str) -> Kind {
        match anon_name(link) {
            Some("eventfd") => {
                let info = self.fdinfo(fd);
                Kind::Eventfd {
                    count: info.eventfd_count,
                    semaphore: info.eventfd_semaphore,
                }
            }
            Some("eventpoll") => {
                let mut watched = self.fdinfo(fd).tfds;
                watched.sort_unstable();
                Kind::Epoll { watched }
            }
            Some("signalfd") => Kind::Signalfd {
                sigmask: self.fdinfo(fd).sigmask.unwrap_or_default(),
            },
            Some("timerfd") => Kind::Timerfd,
            _ => Kind::Other {
                target: link.to_string(),
            },
        }
    }

    /// A path: a FIFO or an mqueue is a channel; anything else is not.
    /// The metadata follows the link without opening the object.
    fn file(&mut self, fd: i32, link: &str) -> Option<(u64, Kind)> {
        let path = self.dir.join("fd").join(fd.to_string());
        let meta = std::fs::metadata(&path).ok()?;
        if meta.file_type().is_fifo() {
            let mount = self.mount_of(fd);
            let (fs, atime) = mount.map_or(("?".into(), "?".into()), |m| (m.fs, m.atime));
            return Some((
                meta.ino(),
                Kind::Fifo {
                    path: link.to_string(),
                    fs,
                    atime,
                    dev: meta.dev(),
                },
            ));
        }
        let top_level = link.rfind('/') == Some(0);
        if meta.is_file() && top_level && self.is_mqueue(fd, &path) {
            let qsize = self.fdinfo(fd).qsize;
            return Some((
                meta.ino(),
                Kind::Mqueue {
                    name: link.to_string(),
                    qsize,
                },
            ));
        }
        None
    }

    /// Whether the descriptor lives on the mqueue file system: by its
    /// mount, or by statfs where the mount is not in mountinfo (the
    /// kernel's internal mqueue mount is not).
    fn is_mqueue(&mut self, fd: i32, path: &Path) -> bool {
        if let Some(mount) = self.mount_of(fd) {
            return mount.fs == "mqueue";
        }
        rustix::fs::statfs(path).is_ok_and(|s| fs_type(&s) == MQUEUE_MAGIC)
    }

    fn socket(&mut self, inode: u64) -> Kind {
        if let Some(row) = self.unix_table().get(&inode).cloned() {
            return self.unix(inode, Some(row));
        }
        if self.diag.get(inode).is_none() {
            let rows = self.inet_table();
            if let Some(row) = rows.iter().find(|r| r.inode == inode) {
                return inet(row, net::loopback_peer(rows, row));
            }
        }
        match self.diag.get(inode).is_some() {
            true => self.unix(inode, None),
            false => Kind::Other {
                target: format!("socket:[{inode}]"),
            },
        }
    }

    /// A unix socket: type, path and listening from /proc/net/unix where it
    /// is there, the peer from sock_diag.
    fn unix(&mut self, inode: u64, row: Option<UnixRow>) -> Kind {
        let diag = self.diag.get(inode).cloned().unwrap_or_default();
        let peer_inode = diag.peer.filter(|&p| p != 0);
        let peer_path = peer_inode.and_then(|p| self.unix_path(p));
        let row = row.unwrap_or_else(|| UnixRow {
            ty: net::sock_type(u32::from(diag.ty)),
            path: diag.name.clone(),
            listening: false,
        });
        Kind::Unix {
            ty: row.ty,
            path: row.path.or(diag.name),
            peer_inode,
            peer_path,
            listening: row.listening,
        }
    }

    fn unix_path(&mut self, inode: u64) -> Option<String> {
        if let Some(path) = self.unix_table().get(&inode).and_then(|r| r.path.clone()) {
            return Some(path);
        }
        self.diag.get(inode)?.name.clone()
    }

    fn fdinfo(&self, fd: i32) -> FdInfo {
        let path = self.dir.join("fdinfo").join(fd.to_string());
        std::fs::read_to_string(path)
            .map(|t| fdinfo::parse(&t))
            .unwrap_or_default()
    }

    fn mount_of(&mut self, fd: i32) -> Option<Mount> {
        let id = self.fdinfo(fd).mnt_id?;
        if self.mounts.is_none() {
            let path = self.dir.join("mountinfo");
            let mounts = self
                .read(&path)
                .map(|t| mounts::parse(&t))
                .unwrap_or_default();
            self.mounts = Some(mounts);
        }
        self.mounts.as_ref()?.get(&id).cloned()
    }

    fn unix_table(&mut self) -> &HashMap<u64, UnixRow> {
        if self.tables.unix.is_none() {
            let path = self.dir.join("net").join("unix");
            let rows = self
                .read_optional(&path)
                .map(|text| net::parse_unix(&text))
                .unwrap_or_default();
            self.tables.unix = Some(rows);
        }
        self.tables.unix.get_or_insert_with(HashMap::new)
    }

    fn inet_table(&mut self) -> &[InetRow] {
        if self.tables.inet.is_none() {
            let net = self.dir.join("net");
            let mut rows = Vec::new();
            for (name, proto) in [
                ("tcp", Proto::Tcp),
                ("tcp6", Proto::Tcp),
                ("udp", Proto::Udp),
                ("udp6", Proto::Udp),
            ] {
                if let Some(text) = self.read_optional(&net.join(name)) {
                    rows.extend(net::parse_inet(&text, proto));
                }
            }
            self.tables.inet = Some(rows);
        }
        self.tables.inet.get_or_insert_with(Vec::new)
    }

    /// The file, or None and a line in `unreadable`.
    fn read(&mut self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path)
            .map_err(|e| self.unreadable.push(pid_problem(self.pid, path, &e)))
            .ok()
    }

    /// As `read`, but a table the kernel does not have (no IPv6) is no
    /// problem.
    fn read_optional(&mut self, path: &Path) -> Option<String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => {
                self.unreadable.push(pid_problem(self.pid, path, &e));
                None
            }
        }
    }
}

/// A TCP or UDP socket from its table row.
fn inet(row: &InetRow, peer_inode: Option<u64>) -> Kind {
    let (local, remote) = (net::canonical(row.local), net::canonical(row.remote));
    let loopback = net::is_loopback(local) || net::is_loopback(remote);
    let (local, remote) = (local.to_string(), remote.to_string());
    match row.proto {
        Proto::Tcp => Kind::Tcp {
            local,
            remote,
            loopback,
            state: net::tcp_state(row.state),
            peer_inode,
        },
        Proto::Udp => Kind::Udp {
            local,
            remote,
            loopback,
            peer_inode,
        },
    }
}

/// f_type, whose integer type differs between targets.
#[allow(clippy::unnecessary_cast)]
fn fs_type(s: &rustix::fs::StatFs) -> u64 {
    s.f_type as u64
}
