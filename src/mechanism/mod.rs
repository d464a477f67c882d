//! Mechanisms: the ways to move a message between two endpoints. Each lives
//! in its own file behind `trait Mechanism`; `ALL` lists them. A scenario asks
//! for capabilities (`Caps`) and every mechanism that has them takes part.

mod eventfd;
mod fdio;
mod fifo;
mod pipe;
mod tcp;
mod udp;
mod unix_dgram;
mod unix_stream;

use std::io;
use std::path::Path;

/// What a mechanism can do, so scenarios can choose the ones that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Each send arrives as one message (datagram semantics).
    pub boundaries: bool,
    /// The message is an 8-byte counter that the kernel may coalesce (eventfd).
    pub counter: bool,
    /// The kernel never drops a message (false for UDP).
    pub reliable: bool,
}

impl Caps {
    /// A reliable byte stream (pipes, FIFOs, stream sockets).
    pub const STREAM: Caps = Caps {
        boundaries: false,
        counter: false,
        reliable: true,
    };
}

/// Whether a mechanism can run on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    Yes,
    No(String),
}

/// One end of a duplex channel. `send` delivers a whole message, `recv`
/// fills `buf` with exactly one message of `buf.len()` bytes.
pub trait Endpoint: Send {
    fn send(&mut self, msg: &[u8]) -> io::Result<()>;
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()>;
    /// For an unreliable mechanism: how many `size`-byte messages may be in
    /// flight without the kernel dropping one. None: no limit needed.
    fn window(&self, _size: usize) -> Option<u64> {
        None
    }
}

pub type BoxEndpoint = Box<dyn Endpoint>;

pub use fdio::read_exact as read_exact_fd;
pub use fdio::write_all as write_all_fd;

pub trait Mechanism: Sync {
    /// The CLI name, kebab-case.
    fn name(&self) -> &'static str;
    /// One line for `iolab list`.
    fn about(&self) -> &'static str;
    fn caps(&self) -> Caps;
    /// The largest message one send can carry.
    fn max_message(&self) -> usize;
    fn probe(&self) -> Support {
        Support::Yes
    }
    /// A connected duplex channel; `dir` is a private directory for any
    /// filesystem objects (FIFOs), removed by the runner after the case.
    fn connect(&self, dir: &Path) -> io::Result<(BoxEndpoint, BoxEndpoint)>;
}

pub static ALL: &[&dyn Mechanism] = &[
    &pipe::Pipe,
    &fifo::Fifo,
    &eventfd::EventFd,
    &unix_stream::UnixStream,
    &unix_dgram::UnixDgram,
    &udp::Udp,
    &tcp::Tcp,
];

pub fn find(name: &str) -> Option<&'static dyn Mechanism> {
    ALL.iter().copied().find(|m| m.name() == name)
}

pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|m| m.name()).collect()
}
