//! One relay of a ring, as in the original: it receives a number K from the
//! previous relay; for K > 0 it writes "K\n" to its echo program, reads the
//! echoed line, checks it and passes K-1 on; at 0 it closes its echo's
//! input, passes 0 on and ends. A relay that fails drops its links, so the
//! rest of the ring sees a closed pipe and ends too. The relays stamp the
//! clock when their ring's first number is taken and when its 0 is taken:
//! the ring's time is its own, whoever watches it and however often.

use crate::exec::cleanup;
use crate::measure::clock::now_ns;
use crate::sys::shared::SharedCounters;
use rustix::fd::OwnedFd;
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Counter slot set by the runner of the rings when no ring makes progress.
pub(crate) const STALL_SLOT: usize = 0;

/// Counter slots of one ring, in the shared counters every relay (thread
/// or forked process) writes to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RingSlots {
    /// Echoes checked so far.
    pub(crate) progress: usize,
    /// CLOCK_MONOTONIC ns when a relay took the ring's first number, right
    /// before the ring's first send (0: not yet).
    pub(crate) first_send: usize,
    /// CLOCK_MONOTONIC ns when a relay took the ring's 0, the last number
    /// received after the last echo (0: not yet).
    pub(crate) last_receive: usize,
}

impl RingSlots {
    pub(crate) fn of(ring: usize) -> RingSlots {
        let base = 1 + 3 * ring;
        RingSlots {
            progress: base,
            first_send: base + 1,
            last_receive: base + 2,
        }
    }

    /// How many counters `rings` rings need (with the stall flag).
    pub(crate) fn counters(rings: usize) -> usize {
        1 + 3 * rings
    }
}

/// Stores the clock in `slot` unless a relay of the ring did already.
fn stamp_once(slot: &AtomicU64) {
    let _ = slot.compare_exchange(0, now_ns(), Ordering::Relaxed, Ordering::Relaxed);
}

/// Everything one relay owns.
pub(crate) struct RelayIo {
    pub(crate) ring: usize,
    pub(crate) index: usize,
    pub(crate) input: OwnedFd,
    pub(crate) output: OwnedFd,
    /// The echo program's stdin and stdout; None relays in-process.
    pub(crate) echo: Option<(OwnedFd, OwnedFd)>,
    pub(crate) counters: Arc<SharedCounters>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct RelayReport {
    pub(crate) echoed: u64,
    pub(crate) bytes: u64,
    pub(crate) saw_zero: bool,
}

/// Why a relay stopped early, most telling first.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RelayError {
    Mismatch(String),
    EchoExited(String),
    Stalled(String),
    Broken(String),
}

impl RelayError {
    pub(crate) fn text(&self) -> &str {
        match self {
            RelayError::Mismatch(s)
            | RelayError::EchoExited(s)
            | RelayError::Stalled(s)
            | RelayError::Broken(s) => s,
        }
    }
}

pub(crate) type RelayOutcome = Result<RelayReport, RelayError>;

pub(crate) fn run(io: RelayIo) -> RelayOutcome {
    let who = format!("ring {} relay {}", io.ring, io.index);
    let broken = |what: &str, e: Errno| RelayError::Broken(format!("{who}: {what}: {e}"));
    let RelayIo {
        ring,
        input,
        output,
        echo,
        counters,
        ..
    } = io;
    let mut echo = echo.map(|(stdin, stdout)| (Some(stdin), LineReader::new(stdout)));
    let mut report = RelayReport::default();
    let slots = RingSlots::of(ring);
    let progress = counters.get(slots.progress);
    let mut first = true;
    loop {
        let k = read_number(&input).map_err(|e| broken("reading from the previous relay", e))?;
        let Some(k) = k else {
            return Err(RelayError::Broken(format!(
                "{who}: the previous relay stopped"
            )));
        };
        if std::mem::take(&mut first) {
            stamp_once(counters.get(slots.first_send));
        }
        if k == 0 {
            stamp_once(counters.get(slots.last_receive));
            drop(echo.take());
            report.saw_zero = true;
            // The relay that began the shutdown may have ended already.
            let _ = write_all(&output, &0u64.to_le_bytes());
            return Ok(report);
        }
        let line = format!("{k}\n");
        match echo.as_mut() {
            Some((stdin, reader)) => {
                exchange(&who, stdin, reader, &line, &counters, report.echoed)?
            }
            None => check(&who, &line, std::hint::black_box(line.as_bytes()))?,
        }
        report.echoed += 1;
        report.bytes += line.len() as u64;
        progress.fetch_add(1, Ordering::Relaxed);
        write_all(&output, &(k - 1).to_le_bytes()).map_err(|e| broken("passing on", e))?;
    }
}

/// Writes `line` to the echo program and checks what comes back.
fn exchange(
    who: &str,
    stdin: &mut Option<OwnedFd>,
    reader: &mut LineReader,
    line: &str,
    counters: &SharedCounters,
    done: u64,
) -> Result<(), RelayError> {
    let fd = stdin.as_ref().expect("echo input open while running");
    write_all(fd, line.as_bytes()).map_err(|e| {
        RelayError::EchoExited(format!(
            "{who}: the echo program stopped reading after {done} lines ({e})"
        ))
    })?;
    let stalled = || counters.get(STALL_SLOT).load(Ordering::Relaxed) != 0;
    let got = match reader.next_line(stalled) {
        Ok(Some(got)) => got,
        Ok(None) => {
            return Err(RelayError::EchoExited(format!(
                "{who}: the echo program exited after answering {done} lines"
            )))
        }
        Err(ReadStop::Stalled) => {
            // Close its input: a program that buffers its output flushes it
            // at end of input, so a changed answer still shows up.
            drop(stdin.take());
            let late = reader.next_line(|| false).ok().flatten();
            if let Some(got) = late {
                check(who, line, &got)?;
            }
            return Err(RelayError::Stalled(format!(
                "{who}: the echo program did not answer line {} (it may buffer its output when writing to a pipe; try `stdbuf -oL PROGRAM`)",
                done + 1
            )));
        }
        Err(ReadStop::Failed(e)) => {
            return Err(RelayError::Broken(format!("{who}: reading the echo: {e}")))
        }
    };
    check(who, line, &got)
}

fn check(who: &str, sent: &str, got: &[u8]) -> Result<(), RelayError> {
    if got == sent.as_bytes() {
        return Ok(());
    }
    Err(RelayError::Mismatch(format!(
        "verification failed: {who} wrote {:?}, the echo returned {:?}",
        sent.trim_end(),
        String::from_utf8_lossy(got).trim_end()
    )))
}

/// Eight-byte little-endian numbers on the links between relays; None at
/// end of file. An interrupted read is retried unless the run is cancelled.
fn read_number(fd: &OwnedFd) -> Result<Option<u64>, Errno> {
    let mut buf = [0u8; 8];
    let mut have = 0;
    while have < 8 {
        match rustix::io::read(fd, &mut buf[have..]) {
            Ok(0) => return Ok(None),
            Ok(n) => have += n,
            Err(Errno::INTR) if !cleanup::cancelled() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(u64::from_le_bytes(buf)))
}

fn write_all(fd: &OwnedFd, mut bytes: &[u8]) -> Result<(), Errno> {
    while !bytes.is_empty() {
        match rustix::io::write(fd, bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(Errno::INTR) if !cleanup::cancelled() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

enum ReadStop {
    Stalled,
    Failed(Errno),
}

/// Lines from the echo program. Unlike std's BufRead it gives up on an
/// interrupted read when asked to (stall or Ctrl-C), instead of retrying.
struct LineReader {
    fd: OwnedFd,
    buf: Vec<u8>,
    start: usize,
}

impl LineReader {
    fn new(fd: OwnedFd) -> LineReader {
        LineReader {
            fd,
            buf: Vec::with_capacity(256),
            start: 0,
        }
    }

    /// The next line with its newline; Ok(None) at end of file.
    fn next_line(&mut self, stalled: impl Fn() -> bool) -> Result<Option<Vec<u8>>, ReadStop> {
        loop {
            if let Some(pos) = self.buf[self.start..].iter().position(|b| *b == b'\n') {
                let end = self.start + pos + 1;
                let line = self.buf[self.start..end].to_vec();
                self.start = end;
                return Ok(Some(line));
            }
            self.buf.drain(..self.start);
            self.start = 0;
            let mut chunk = [0u8; 256];
            match rustix::io::read(&self.fd, &mut chunk) {
                Ok(0) if self.buf.is_empty() => return Ok(None),
                Ok(0) => return Ok(Some(std::mem::take(&mut self.buf))),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(Errno::INTR) if cleanup::cancelled() => {
                    return Err(ReadStop::Failed(Errno::INTR))
                }
                Err(Errno::INTR) if stalled() => return Err(ReadStop::Stalled),
                Err(Errno::INTR) => {}
                Err(e) => return Err(ReadStop::Failed(e)),
            }
        }
    }
}
