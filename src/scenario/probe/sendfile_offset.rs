//! E4-sendfile-offset: must the caller advance the offset by what
//! sendfile returned? A 64 KiB file is sent to /dev/null, once with an
//! offset pointer (does the kernel advance `*offset`? does the file
//! position move?) and once without (does the file position move?).

use super::Probing;
use anyhow::Context;
use rustix::fs::{seek, sendfile, SeekFrom};
use std::fs::{File, OpenOptions};

const FILE: usize = 64 << 10;
const START: u64 = 1000;
const COUNT: usize = 4096;

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let path = p.dir.join("probe-offset.bin");
    std::fs::write(&path, vec![b'o'; FILE])
        .with_context(|| format!("writing {}", path.display()))?;
    let file = File::open(&path).with_context(|| format!("opening {}", path.display()))?;
    std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
    let null = OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .context("opening /dev/null")?;

    let mut offset = START;
    let sent = sendfile(&null, &file, Some(&mut offset), COUNT).context("sendfile")?;
    let call = format!("sendfile(/dev/null, file, &offset = {START}, {COUNT})");
    p.measured(
        "returned",
        call.clone(),
        format!("{sent}"),
        sent as f64,
        "bytes",
    );
    let answer = format!("*offset = {offset} after the call (it was {START})");
    p.measured("offset_after", call.clone(), answer, offset as f64, "bytes");
    position(
        p,
        "position_after_offset_call",
        &format!("lseek(file, 0, SEEK_CUR) after {call}"),
        &file,
    )?;

    let call = format!("sendfile(/dev/null, file, NULL, {COUNT})");
    let sent = sendfile(&null, &file, None, COUNT).context("sendfile")?;
    p.measured(
        "returned_null_offset",
        call.clone(),
        format!("{sent}"),
        sent as f64,
        "bytes",
    );
    position(
        p,
        "position_after_null_offset",
        &format!("lseek(file, 0, SEEK_CUR) after {call}"),
        &file,
    )
}

fn position(p: &mut Probing, name: &str, call: &str, file: &File) -> anyhow::Result<()> {
    let pos = seek(file, SeekFrom::Current(0)).context("lseek")?;
    p.measured(name, call, format!("{pos}"), pos as f64, "bytes");
    Ok(())
}
