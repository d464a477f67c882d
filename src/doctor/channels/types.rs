//! The data a channel scan returns: what the lead's `doctor` code renders
//! and writes as JSON. Kept apart from the reading so the shape is seen at
//! a glance.

use serde::Serialize;

/// Everything one scan found, and what it could not read.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub(crate) struct Scan {
    pub(crate) channels: Vec<Channel>,
    /// `/proc/sysvipc/msg` rows whose lspid or lrpid is a scanned pid.
    pub(crate) sysv_queues: Vec<SysvQueue>,
    /// Mappings of `/proc/PID/maps` that other processes can share.
    pub(crate) shared_memory: Vec<SharedMap>,
    /// One line each: what could not be read and why.
    pub(crate) unreadable: Vec<String>,
}

/// One IPC descriptor of a scanned process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct Channel {
    pub(crate) pid: i32,
    pub(crate) fd: i32,
    /// The `pipe:[N]` / `socket:[N]` inode, a FIFO's inode; 0 where none.
    pub(crate) inode: u64,
    #[serde(flatten)]
    pub(crate) kind: Kind,
    /// The processes at the other end, where the kernel says.
    pub(crate) peers: Vec<Peer>,
}

/// A descriptor at the other end of a channel.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub(crate) struct Peer {
    pub(crate) pid: i32,
    pub(crate) fd: i32,
    pub(crate) comm: String,
}

/// What kind of channel a descriptor is, with what /proc says about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Kind {
    /// Ends from the fdinfo flags (O_ACCMODE).
    Pipe {
        readable: bool,
        writable: bool,
    },
    /// `fs` and `atime` (the mount's atime mode) from mountinfo.
    Fifo {
        path: String,
        fs: String,
        atime: String,
        /// The device, with `inode` what other holders are matched on.
        #[serde(skip)]
        dev: u64,
    },
    /// `ty` is stream, dgram or seqpacket; `peer_path` is the bound path
    /// of the socket at the other end, if any.
    Unix {
        ty: String,
        path: Option<String>,
        peer_inode: Option<u64>,
        peer_path: Option<String>,
        listening: bool,
    },
    /// `state` as the kernel names it (ESTABLISHED, LISTEN, ...).
    Tcp {
        local: String,
        remote: String,
        loopback: bool,
        state: String,
        peer_inode: Option<u64>,
    },
    Udp {
        local: String,
        remote: String,
        loopback: bool,
        peer_inode: Option<u64>,
    },
    /// The counter and EFD_SEMAPHORE, where fdinfo says.
    Eventfd {
        count: Option<u64>,
        semaphore: Option<bool>,
    },
    /// The descriptors of the fdinfo `tfd:` lines.
    Epoll {
        watched: Vec<i32>,
    },
    Signalfd {
        sigmask: String,
    },
    Timerfd,
    /// `name` is `/name` on the mqueue file system.
    Mqueue {
        name: String,
        qsize: Option<u64>,
    },
    /// A regular file the program read or wrote while traced (the scan
    /// itself lists IPC only): its file I/O, beside its channels.
    File {
        path: String,
    },
    /// inotify, pidfd, io_uring, perf_event, an unknown socket...: the link.
    Other {
        target: String,
    },
}

/// A System V message queue one of the scanned processes used last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct SysvQueue {
    pub(crate) key: i32,
    pub(crate) msqid: i32,
    /// The permission bits, octal as the kernel prints them.
    pub(crate) perms: String,
    pub(crate) cbytes: u64,
    pub(crate) qnum: u64,
    /// The last sender and receiver.
    pub(crate) lspid: i32,
    pub(crate) lrpid: i32,
    pub(crate) uid: u32,
}

/// A mapping other processes can share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct SharedMap {
    pub(crate) pid: i32,
    pub(crate) kind: ShmKind,
    /// The path as maps prints it (empty for an anonymous mapping).
    pub(crate) path: String,
    pub(crate) start: u64,
    pub(crate) size: u64,
    /// `rw-s` and so on.
    pub(crate) perms: String,
    /// The `s` flag: MAP_SHARED rather than a private copy.
    pub(crate) shared: bool,
    pub(crate) inode: u64,
}

/// What is mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ShmKind {
    /// A POSIX shared memory object, `/dev/shm/*`.
    Posix,
    /// A System V segment, `/SYSV<key> (deleted)`.
    Sysv,
    /// A memfd, `/memfd:name (deleted)`.
    Memfd,
    /// MAP_SHARED|MAP_ANONYMOUS (maps shows `/dev/zero (deleted)` or nothing).
    Anonymous,
    /// Some other file mapped shared and writable.
    File,
}
