//! `channel`: a bounded Rust std channel (`mpsc::sync_channel`) per
//! direction between two threads, each message its own `Vec`: the
//! in-process baseline that IPC is compared against. Threads mode only.
//! The channel holds up to 1 MiB of messages (at most 1024); a receiver
//! looks whether the run was cancelled before each message and every
//! `CANCEL_POLL` while it waits, because the runner's interrupt cannot
//! stop a wait inside std.

use super::{check_cancelled, in_process_only, CANCEL_POLL, SIZE};
use super::{BoxEndpoint, Caps, Endpoint, Mechanism, Support, Values};
use std::io;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError};

pub(crate) struct Channel;

/// Bytes of messages a direction holds before a sender waits.
const QUEUE_BYTES: usize = 1 << 20;
const MAX_QUEUE: usize = 1024;

impl Mechanism for Channel {
    fn name(&self) -> &'static str {
        "channel"
    }
    fn about(&self) -> &'static str {
        "Rust std bounded channel (mpsc::sync_channel) per direction between threads (in-process baseline)"
    }
    fn calls_per_send(&self) -> bool {
        false
    }
    fn caps(&self) -> Caps {
        Caps::RECORDS
    }
    fn max_message(&self) -> usize {
        usize::MAX
    }
    fn in_processes(&self) -> Support {
        in_process_only()
    }
    fn connect(&self, _dir: &Path, values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let capacity = capacity(SIZE.int(values));
        let (a_tx, b_rx) = mpsc::sync_channel(capacity);
        let (b_tx, a_rx) = mpsc::sync_channel(capacity);
        Ok((
            Box::new(ChannelEndpoint { tx: a_tx, rx: a_rx }),
            Box::new(ChannelEndpoint { tx: b_tx, rx: b_rx }),
        ))
    }
}

/// Messages a direction holds for messages of `size` bytes.
pub(crate) fn capacity(size: Option<u64>) -> usize {
    let size = size.unwrap_or(1).max(1) as usize;
    (QUEUE_BYTES / size).clamp(1, MAX_QUEUE)
}

struct ChannelEndpoint {
    tx: SyncSender<Vec<u8>>,
    rx: Receiver<Vec<u8>>,
}

fn gone() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the other side closed the channel",
    )
}

/// A message of `buf.len()` bytes into `buf`.
pub(crate) fn deliver(msg: &[u8], buf: &mut [u8]) -> io::Result<()> {
    if msg.len() != buf.len() {
        let why = format!("message of {} bytes, expected {}", msg.len(), buf.len());
        return Err(io::Error::new(io::ErrorKind::InvalidData, why));
    }
    buf.copy_from_slice(msg);
    Ok(())
}

impl Endpoint for ChannelEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        // A full channel waits for room; a receiver that gives up (on a
        // cancel, below) drops its end and so ends this wait.
        self.tx.send(msg.to_vec()).map_err(|_| gone())
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        // A wait that a message always ends would never see the cancel.
        check_cancelled()?;
        loop {
            match self.rx.recv_timeout(CANCEL_POLL) {
                Ok(msg) => return deliver(&msg, buf),
                Err(RecvTimeoutError::Disconnected) => {
                    let why = "the other side closed the channel";
                    return Err(io::Error::new(io::ErrorKind::UnexpectedEof, why));
                }
                Err(RecvTimeoutError::Timeout) => check_cancelled()?,
            }
        }
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        match self.tx.try_send(msg.to_vec()) {
            Ok(()) => Ok(true),
            Err(TrySendError::Full(_)) => Ok(false),
            Err(TrySendError::Disconnected(_)) => Err(gone()),
        }
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        match self.rx.try_recv() {
            Ok(msg) => deliver(&msg, buf).map(|()| true),
            Err(TryRecvError::Empty) => Ok(false),
            Err(TryRecvError::Disconnected) => Err(gone()),
        }
    }
}
