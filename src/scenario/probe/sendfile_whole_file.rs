//! E4-sendfile-whole-file: does one sendfile of a file's size send the
//! whole file? A sparse file just over 2 GiB is sent to /dev/null with one
//! call (Linux caps one transfer at 0x7ffff000 bytes), then the rest with a
//! second. The file is an unnamed O_TMPFILE on tmpfs, whose holes are
//! spliced as the shared zero page: nothing is written, nothing fills the
//! page cache, and nothing is left behind. Without a tmpfs the check is
//! unsupported: reading 2 GiB of holes on a disk filesystem would fill
//! the page cache with zeros.

use super::pipes::filesystem;
use super::Probing;
use crate::scenario::Unsupported;
use anyhow::Context;
use rustix::fd::OwnedFd;
use rustix::fs::{ftruncate, open, sendfile, Mode, OFlags};
use std::fs::OpenOptions;
use std::path::Path;

/// 2 GiB and 4 MiB: past what one call may move.
const SIZE: u64 = (2 << 30) + (4 << 20);
const SHM: &str = "/dev/shm";

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let file = sparse_file(p.dir)?;
    p.measured(
        "file",
        format!(
            "open(O_TMPFILE) on {}; ftruncate({SIZE})",
            filesystem(&file)
        ),
        format!("a sparse file of {SIZE} bytes"),
        SIZE as f64,
        "bytes",
    );
    let null = OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .context("opening /dev/null")?;
    let mut offset = 0u64;
    let first = sendfile(&null, &file, Some(&mut offset), SIZE as usize).context("sendfile")?;
    let call = format!("sendfile(/dev/null, file, &offset = 0, {SIZE})");
    let answer = format!("{first} bytes (0x{first:x}) of {SIZE} in one call");
    p.measured("one_call", call, answer, first as f64, "bytes");
    let rest = SIZE as usize - first;
    let call = format!("sendfile(/dev/null, file, &offset = {offset}, {rest})");
    let second = sendfile(&null, &file, Some(&mut offset), rest).context("sendfile")?;
    p.measured(
        "second_call",
        call,
        format!("{second} bytes; offset now {offset}"),
        second as f64,
        "bytes",
    );
    Ok(())
}

/// An unnamed sparse file of SIZE bytes on tmpfs: the case's directory
/// when it is one, else /dev/shm.
fn sparse_file(dir: &Path) -> anyhow::Result<OwnedFd> {
    let mut tried = Vec::new();
    for place in [dir, Path::new(SHM)] {
        match tmpfile(place) {
            Ok(fd) if filesystem(&fd).starts_with("tmpfs") => {
                return match ftruncate(&fd, SIZE) {
                    Ok(()) => Ok(fd),
                    Err(e) => Err(Unsupported(format!(
                        "cannot make a sparse file of {SIZE} bytes in {}: ftruncate: {e}",
                        place.display()
                    ))
                    .into()),
                };
            }
            Ok(fd) => tried.push(format!("{} is {}", place.display(), filesystem(&fd))),
            Err(e) => tried.push(format!("{}: {e}", place.display())),
        }
    }
    Err(Unsupported(format!(
        "no tmpfs for a sparse file of {SIZE} bytes ({}); on a disk filesystem its holes would fill the page cache with 2 GiB of zeros",
        tried.join("; ")
    ))
    .into())
}

fn tmpfile(dir: &Path) -> std::io::Result<OwnedFd> {
    Ok(open(
        dir,
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?)
}
