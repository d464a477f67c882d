//! Control messages on the wire: one JSON object per line, each read with
//! a size limit and under the socket's read timeout, so a malformed, huge
//! or silent peer is a clear error, never a panic or a hang.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Why a control message could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WireError {
    #[error("the connection was closed")]
    Closed,
    #[error("nothing arrived for {0} s")]
    Silent(u64),
    #[error("the message did not arrive whole within {0} s")]
    Late(u64),
    #[error("a control message longer than {0} bytes")]
    TooLong(usize),
    #[error("malformed control message: {0}")]
    Malformed(String),
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// One end of a control connection.
pub(crate) struct Wire {
    reader: BufReader<TcpStream>,
    stream: TcpStream,
}

impl Wire {
    pub(crate) fn new(stream: TcpStream) -> io::Result<Wire> {
        Ok(Wire {
            reader: BufReader::new(stream.try_clone()?),
            stream,
        })
    }

    pub(crate) fn stream(&self) -> &TcpStream {
        &self.stream
    }

    pub(crate) fn send<T: Serialize>(&mut self, msg: &T) -> io::Result<()> {
        let mut line = serde_json::to_vec(msg).map_err(io::Error::other)?;
        line.push(b'\n');
        self.stream.write_all(&line)
    }

    /// The next message, waiting at most `wait` (None: forever).
    pub(crate) fn recv<T: DeserializeOwned>(
        &mut self,
        limit: usize,
        wait: Option<Duration>,
    ) -> Result<T, WireError> {
        self.stream.set_read_timeout(wait)?;
        let line = read_line(&mut self.reader, limit).map_err(|e| match e {
            WireError::Io(e) if is_timeout(&e) => {
                WireError::Silent(wait.map_or(0, |w| w.as_secs()))
            }
            other => other,
        })?;
        parse(&line)
    }
}

/// A read timeout is EAGAIN on Linux; ETIMEDOUT is a connection the
/// kernel gave up on (a dead link), an error of its own.
fn is_timeout(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

/// One line of at most `limit` bytes, without its newline.
pub(crate) fn read_line(reader: &mut impl BufRead, limit: usize) -> Result<Vec<u8>, WireError> {
    let mut line = Vec::new();
    reader
        .by_ref()
        .take(limit as u64 + 1)
        .read_until(b'\n', &mut line)?;
    match line.last() {
        None => Err(WireError::Closed),
        Some(b'\n') => {
            line.pop();
            Ok(line)
        }
        Some(_) if line.len() > limit => Err(WireError::TooLong(limit)),
        Some(_) => Err(WireError::Closed),
    }
}

/// A message from one line of JSON.
pub(crate) fn parse<T: DeserializeOwned>(line: &[u8]) -> Result<T, WireError> {
    serde_json::from_slice(line).map_err(|e| WireError::Malformed(e.to_string()))
}
