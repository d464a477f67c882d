//! Standard output as a pipeline's reader sees it: a reader that closes
//! early (`iolab history | head -1`) is done, not an error. Every command
//! prints through here: the first write that meets EPIPE marks the reader
//! gone, it and every later write are dropped, and the command goes on to
//! store what it measured and exits as it would have (docs/formats.md).
//! Colours are anstream's: kept on a terminal, stripped elsewhere.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// The reader of stdout has gone away.
static GONE: AtomicBool = AtomicBool::new(false);

/// Whether the reader of stdout has gone away.
pub(crate) fn reader_gone() -> bool {
    GONE.load(Ordering::Relaxed)
}

/// A writer whose broken pipe ends the writing, quietly.
pub(crate) struct Guarded<W>(pub(crate) W);

impl<W: Write> Guarded<W> {
    fn guard<T>(&mut self, done: T, write: impl FnOnce(&mut W) -> io::Result<T>) -> io::Result<T> {
        if reader_gone() {
            return Ok(done);
        }
        match write(&mut self.0) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                GONE.store(true, Ordering::Relaxed);
                Ok(done)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for Guarded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.guard(buf.len(), |w| w.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.guard((), |w| w.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.guard((), W::flush)
    }
}

/// Stdout, locked: coloured on a terminal, stripped elsewhere, and
/// writing nothing once its reader has gone.
pub(crate) fn lock() -> Guarded<anstream::AutoStream<io::StdoutLock<'static>>> {
    Guarded(anstream::stdout().lock())
}

/// Writes `text` to stdout and flushes it (nothing once the reader has
/// gone).
pub(crate) fn print(text: &str) -> io::Result<()> {
    let mut out = lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose reader has gone.
    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(28))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_broken_pipe_ends_the_writing_and_other_errors_stay_errors() {
        let mut full = Guarded(Full);
        assert_eq!(full.write_all(b"x").unwrap_err().raw_os_error(), Some(28));
        assert!(!reader_gone());
        let mut broken = Guarded(Broken);
        broken.write_all(b"first").unwrap();
        assert!(reader_gone());
        writeln!(broken, "and the rest").unwrap();
        assert_eq!(
            full.write(b"dropped").unwrap(),
            7,
            "nothing is written any more"
        );
        GONE.store(false, Ordering::Relaxed);
    }
}
