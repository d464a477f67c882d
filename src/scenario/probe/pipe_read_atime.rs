//! E1-pipe-read-atime: does reading a pipe move its access time, like a
//! file's? One byte is written, then read more than a timestamp tick
//! later, with `fstat` of the read end before and after the read; on an
//! anonymous pipe and on a FIFO separately (a FIFO's inode lives on a real
//! filesystem, whose atime mount option is recorded with it).

use super::pipes::{atime, moved, PipeKind, KINDS, PAST_A_TICK};
use super::Probing;
use anyhow::{ensure, Context};
use rustix::fs::fstat;

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    for kind in KINDS {
        observe(p, kind)?;
    }
    Ok(())
}

fn observe(p: &mut Probing, kind: PipeKind) -> anyhow::Result<()> {
    let (r, w) = kind.open(p.dir, "read-atime")?;
    rustix::io::write(&w, b"x").context("write")?;
    let before = fstat(&r).context("fstat")?;
    std::thread::sleep(PAST_A_TICK);
    let mut byte = [0u8; 1];
    let n = rustix::io::read(&r, &mut byte).context("read")?;
    ensure!(
        n == 1 && byte == *b"x",
        "read {n} bytes {byte:?}, not the byte written"
    );
    let after = fstat(&r).context("fstat")?;
    let (answer, delta) = moved("st_atime", atime(&before), atime(&after));
    let call = format!(
        "fstat(read end) before and after read(1 B) {} ms later, on {}",
        PAST_A_TICK.as_millis(),
        kind.describe(&r)
    );
    p.measured(kind.key(), call, answer, delta, "ns");
    Ok(())
}
