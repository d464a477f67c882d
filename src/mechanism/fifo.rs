//! `fifo`: two named FIFOs in the run's private 0700 directory. Opened
//! read-end first with O_NONBLOCK so the open does not wait for a writer,
//! then switched back to blocking.

use super::fdio::StreamEndpoint;
use super::{BoxEndpoint, Caps, Mechanism, Values};
use rustix::fd::OwnedFd;
use rustix::fs::{fcntl_setfl, mkfifoat, open, Mode, OFlags, CWD};
use std::io;
use std::path::Path;

pub(crate) struct Fifo;

impl Mechanism for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn about(&self) -> &'static str {
        "named FIFOs (mkfifo) in a private temp dir, one per direction"
    }
    fn caps(&self) -> Caps {
        Caps::STREAM
    }
    fn max_message(&self) -> usize {
        usize::MAX
    }
    fn connect(&self, dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let (b_rx, a_tx) = open_fifo(&dir.join("a-to-b"))?;
        let (a_rx, b_tx) = open_fifo(&dir.join("b-to-a"))?;
        Ok((
            Box::new(StreamEndpoint { rx: a_rx, tx: a_tx }),
            Box::new(StreamEndpoint { rx: b_rx, tx: b_tx }),
        ))
    }
}

/// Creates the FIFO at `path` and returns (read end, write end).
pub(crate) fn open_fifo(path: &Path) -> io::Result<(OwnedFd, OwnedFd)> {
    mkfifoat(CWD, path, Mode::from_raw_mode(0o600))?;
    let rx = open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let tx = open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    fcntl_setfl(&rx, OFlags::empty())?;
    Ok((rx, tx))
}
