//! E5-fd-setsize: FD_SETSIZE on this system (the post says 2048, and also
//! 1024): the C library's constant and the bits an `fd_set` really has.

use super::Probing;
use crate::sys::select::{libc_version, FD_SETSIZE};

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let library = libc_version().unwrap_or_else(|| "this C library".to_string());
    let call = format!("FD_SETSIZE in {library}'s <sys/select.h> (libc crate constant)");
    p.measured(
        "fd_setsize",
        call,
        FD_SETSIZE.to_string(),
        FD_SETSIZE as f64,
        "descriptors",
    );
    let bits = std::mem::size_of::<libc::fd_set>() * 8;
    p.measured(
        "fd_set_bits",
        "sizeof(fd_set) * 8",
        bits.to_string(),
        bits as f64,
        "descriptors",
    );
    Ok(())
}
