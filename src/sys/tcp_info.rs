//! TCP_INFO, which rustix does not read: the segment size a connection
//! sends with and how many segments it has sent, for the `probe` checks
//! of TCP_CORK and the MSS. An older kernel fills a shorter struct; a
//! field it did not fill reads as None.

use std::io;
use std::mem::{offset_of, size_of};
use std::os::fd::{AsFd, AsRawFd};

/// The fields of `struct tcp_info` the probes read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TcpInfo {
    /// The payload bytes per segment this side sends with.
    pub(crate) snd_mss: u32,
    /// The MSS this side advertised.
    pub(crate) advmss: u32,
    /// The path MTU.
    pub(crate) pmtu: u32,
    /// Segments sent that carried data (Linux 4.6+).
    pub(crate) data_segs_out: Option<u32>,
}

pub(crate) fn tcp_info(fd: impl AsFd) -> io::Result<TcpInfo> {
    // SAFETY: tcp_info is plain old data; all-zero bits is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: `info` is a writable tcp_info of `len` bytes and `len` a
    // writable socklen_t; the kernel writes at most `len` bytes and stores
    // how many it wrote in `len`.
    let ret = unsafe {
        libc::getsockopt(
            fd.as_fd().as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    super::cvt(ret)?;
    let filled = offset_of!(libc::tcp_info, tcpi_data_segs_out) + size_of::<u32>();
    Ok(TcpInfo {
        snd_mss: info.tcpi_snd_mss,
        advmss: info.tcpi_advmss,
        pmtu: info.tcpi_pmtu,
        data_segs_out: (len as usize >= filled).then_some(info.tcpi_data_segs_out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{Ipv4Addr, TcpListener, TcpStream};

    #[test]
    fn a_loopback_connection_reports_its_mss_and_counts_data_segments() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let mut tx = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut rx, _) = listener.accept().unwrap();
        let before = tcp_info(&tx).unwrap();
        assert!(before.snd_mss > 0 && before.pmtu > 0, "{before:?}");
        tx.write_all(b"hello").unwrap();
        let mut buf = [0u8; 5];
        rx.read_exact(&mut buf).unwrap();
        let after = tcp_info(&tx).unwrap();
        let sent = after.data_segs_out.unwrap() - before.data_segs_out.unwrap();
        assert_eq!(sent, 1);
        let err = tcp_info(std::fs::File::open("/dev/null").unwrap()).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOTSOCK));
    }
}
