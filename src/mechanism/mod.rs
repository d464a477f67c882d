//! Mechanisms: the ways to move a message between two endpoints. Each lives
//! in its own file behind `trait Mechanism`; `ALL` lists them. A scenario asks
//! for capabilities (`Caps`) and every mechanism that has them takes part.

mod channel;
mod condvar;
mod eventfd;
mod fdio;
pub(crate) mod fifo;
mod futex;
mod io_uring_msg;
pub mod mq;
mod pipe;
mod shm;
mod signal;
mod sysv_msg;
mod tcp;
mod typed_loop;
mod udp;
mod unix_dgram;
mod unix_seqpacket;
mod unix_stream;
mod vmsplice;

use crate::params::{ParamKind, ParamSpec, Value};
use std::any::Any;
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

/// A case's parameter values, as a mechanism sees them when connecting.
pub type Values = BTreeMap<&'static str, Value>;

/// The case parameter that carries the message size where a scenario has
/// one (pingpong, stream): a mechanism sizes its slots or queue by it. A
/// scenario declares it with its own default and description.
pub(crate) const SIZE: ParamSpec = ParamSpec {
    name: "size",
    kind: ParamKind::Bytes,
    default: "1",
    about: "message size in bytes",
    in_name: true,
};

pub(crate) use shm::WAKE as SHM_WAKE;

/// What a mechanism can do, so scenarios can choose the ones that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Each send arrives as one message (datagram semantics).
    pub(crate) boundaries: bool,
    /// The message is an 8-byte counter that the kernel may coalesce (eventfd).
    pub(crate) counter: bool,
    /// The kernel never drops a message (false for UDP).
    pub(crate) reliable: bool,
}

impl Caps {
    /// A reliable byte stream (pipes, FIFOs, stream sockets).
    pub(crate) const STREAM: Caps = Caps {
        boundaries: false,
        counter: false,
        reliable: true,
    };
    /// Reliable messages, each arriving whole (datagram and record
    /// sockets, message queues).
    pub(crate) const RECORDS: Caps = Caps {
        boundaries: true,
        counter: false,
        reliable: true,
    };
    /// An 8-byte counter per direction, values adding up until read
    /// (eventfd, futex): a notification, not data.
    pub(crate) const COUNTER: Caps = Caps {
        boundaries: true,
        counter: true,
        reliable: true,
    };
}

/// Whether a mechanism can run on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    Yes,
    No(String),
}

impl Support {
    /// This, and then `other`: the first reason why not.
    pub(crate) fn and(self, other: Support) -> Support {
        match self {
            Support::Yes => other,
            no => no,
        }
    }

    /// Yes when a mechanism's one-time probe succeeded, else its reason.
    pub(crate) fn of<T>(probed: &Result<T, String>) -> Support {
        match probed {
            Ok(_) => Support::Yes,
            Err(why) => Support::No(why.clone()),
        }
    }
}

/// Why an in-process mechanism (a channel, a condition variable) has no
/// processes mode: forked sides would each hold a copy of its memory.
pub(crate) fn in_process_only() -> Support {
    Support::No("an in-process baseline: its two ends are threads of one process".to_string())
}

/// How long an in-process wait blocks between two looks at "cancelled?"
/// (the runner's interrupt cannot stop a futex wait inside std).
pub(crate) const CANCEL_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// The error of a side that gave up because the run was cancelled.
pub(crate) fn check_cancelled() -> io::Result<()> {
    match crate::cancel::cancelled() {
        true => Err(io::Error::new(io::ErrorKind::Interrupted, "cancelled")),
        false => Ok(()),
    }
}

/// The 8-byte word a message is on futex, signal and io-uring-msg;
/// `rule` says what it is there ("a signal carries an 8-byte value").
pub(crate) fn word_of(msg: &[u8], rule: &str) -> io::Result<u64> {
    let bytes: [u8; 8] = msg.try_into().map_err(|_| wrong_size(rule, msg.len()))?;
    Ok(u64::from_ne_bytes(bytes))
}

/// `buf` as the room for one such word, or the error that says `rule`.
pub(crate) fn word_room<'a>(buf: &'a mut [u8], rule: &str) -> io::Result<&'a mut [u8; 8]> {
    let len = buf.len();
    buf.try_into().map_err(|_| wrong_size(rule, len))
}

fn wrong_size(rule: &str, len: usize) -> io::Error {
    let why = format!("{rule}, not {len} bytes");
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

/// One end of a duplex channel. `send` delivers a whole message, `recv`
/// fills `buf` with exactly one message of `buf.len()` bytes.
pub trait Endpoint: Send + Any {
    fn send(&mut self, msg: &[u8]) -> io::Result<()>;
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()>;
    /// For an unreliable mechanism: how many `size`-byte messages may be in
    /// flight without the kernel dropping one. None: no limit needed.
    fn window(&self, _size: usize) -> Option<u64> {
        None
    }
    /// Switches to non-blocking operation for `try_send` / `try_recv`.
    fn set_nonblocking(&mut self) -> io::Result<()> {
        Err(no_try())
    }
    /// Sends one message if that can be done at once; Ok(false) on EAGAIN.
    fn try_send(&mut self, _msg: &[u8]) -> io::Result<bool> {
        Err(no_try())
    }
    /// Receives one message if one is there; Ok(false) on EAGAIN.
    fn try_recv(&mut self, _buf: &mut [u8]) -> io::Result<bool> {
        Err(no_try())
    }
    /// System calls this end has made so far, when the mechanism counts
    /// them (shm: its wake-ups); None when every operation is one call.
    fn syscalls(&self) -> Option<u64> {
        None
    }
    /// The descriptor that turns readable when a message arrives at this
    /// end, for a poller waiting on many channels; None when there is none.
    fn readable_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        None
    }
}

fn no_try() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "this mechanism has no non-blocking operations",
    )
}

pub type BoxEndpoint = Box<dyn Endpoint>;

#[cfg(test)]
pub(crate) use fdio::read_exact as read_exact_fd;
pub use fdio::write_all as write_all_fd;
pub use typed_loop::{run_typed, EndpointLoop};

pub trait Mechanism: Sync {
    /// The CLI name, kebab-case.
    fn name(&self) -> &'static str;
    /// One line for `iolab list`.
    fn about(&self) -> &'static str;
    fn caps(&self) -> Caps;
    /// The largest message one send can carry.
    fn max_message(&self) -> usize;
    fn support(&self) -> Support {
        Support::Yes
    }
    /// Whether the two ends work in two forked processes (`--mode
    /// processes`); an in-process channel says why not.
    fn in_processes(&self) -> Support {
        Support::Yes
    }
    /// Whether the two ends work as two threads of one process.
    fn in_threads(&self) -> Support {
        Support::Yes
    }
    /// Parameters of the mechanism itself (shm: `wake`); they sweep like a
    /// scenario's and appear in the case name as `key=value`.
    fn params(&self) -> &'static [ParamSpec] {
        &[]
    }
    /// A connected duplex channel; `dir` is a private directory for any
    /// filesystem objects (FIFOs), removed by the runner after the case;
    /// `values` are the case's parameter values (message size, `wake`).
    fn connect(&self, dir: &Path, values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)>;
    /// Whether every send enters the kernel (a system call), so that a
    /// message rate is bounded by the system-call rate; false for the
    /// mechanisms that move messages through shared memory.
    fn calls_per_send(&self) -> bool {
        true
    }
    /// The network transport whose one connected socket can carry this
    /// mechanism between two hosts (`--peer`); None for the local-only ones.
    fn transport(&self) -> Option<Transport> {
        None
    }
}

/// A socket type that crosses hosts: the mechanisms `tcp` and `udp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Tcp,
    Udp,
}

impl Transport {
    /// ONE endpoint of the mechanism over `fd`, a socket of this transport
    /// already connected to the other host.
    pub(crate) fn endpoint(self, fd: rustix::fd::OwnedFd) -> io::Result<BoxEndpoint> {
        match self {
            Transport::Tcp => tcp::endpoint(fd),
            Transport::Udp => udp::endpoint(std::net::UdpSocket::from(fd)),
        }
    }

    /// Readies a socket of this transport before the other host may send
    /// to it: a UDP socket gets the buffers its window counts on, since
    /// datagrams may arrive before its endpoint is made.
    pub(crate) fn prepare(self, fd: impl rustix::fd::AsFd) {
        if self == Transport::Udp {
            udp::grow_buffers(fd);
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Udp => "udp",
        }
    }
}

pub(crate) static ALL: &[&dyn Mechanism] = &[
    &pipe::Pipe,
    &fifo::Fifo,
    &eventfd::EventFd,
    &unix_stream::UnixStream,
    &unix_dgram::UnixDgram,
    &udp::Udp,
    &tcp::Tcp,
    &shm::Shm,
    &mq::Mq,
    &unix_seqpacket::UnixSeqpacket,
    &sysv_msg::SysvMsg,
    &futex::Futex,
    &signal::Signal,
    &channel::Channel,
    &condvar::CondvarQueue,
    &vmsplice::Vmsplice,
    &io_uring_msg::IoUringMsg,
];

pub fn find(name: &str) -> Option<&'static dyn Mechanism> {
    ALL.iter().copied().find(|m| m.name() == name)
}

pub(crate) fn names() -> Vec<&'static str> {
    ALL.iter().map(|m| m.name()).collect()
}
