//! `pipe`: two anonymous pipes, one per direction.

use super::fdio::StreamEndpoint;
use super::{BoxEndpoint, Caps, Mechanism, Values};
use rustix::pipe::{pipe_with, PipeFlags};
use std::io;
use std::path::Path;

pub(crate) struct Pipe;

impl Mechanism for Pipe {
    fn name(&self) -> &'static str {
        "pipe"
    }
    fn about(&self) -> &'static str {
        "anonymous pipes, one per direction (pipe2)"
    }
    fn caps(&self) -> Caps {
        Caps::STREAM
    }
    fn max_message(&self) -> usize {
        usize::MAX
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let (a_rx, b_tx) = pipe_with(PipeFlags::CLOEXEC)?;
        let (b_rx, a_tx) = pipe_with(PipeFlags::CLOEXEC)?;
        Ok((
            Box::new(StreamEndpoint { rx: a_rx, tx: a_tx }),
            Box::new(StreamEndpoint { rx: b_rx, tx: b_tx }),
        ))
    }
}
