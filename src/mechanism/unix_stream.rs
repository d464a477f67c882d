//! `unix-stream`: an AF_UNIX SOCK_STREAM socketpair.

use super::fdio::socket_stream;
use super::{BoxEndpoint, Caps, Mechanism, Values};
use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};
use std::io;
use std::path::Path;

pub(crate) struct UnixStream;

impl Mechanism for UnixStream {
    fn name(&self) -> &'static str {
        "unix-stream"
    }
    fn about(&self) -> &'static str {
        "AF_UNIX stream socketpair"
    }
    fn caps(&self) -> Caps {
        Caps::STREAM
    }
    fn max_message(&self) -> usize {
        usize::MAX
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let (a, b) = socketpair(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC,
            None,
        )?;
        Ok((Box::new(socket_stream(a)?), Box::new(socket_stream(b)?)))
    }
}
