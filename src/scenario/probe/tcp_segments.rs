//! E4-cork-merges-header and E4-mss-1448: what TCP puts in a segment. A
//! 200-byte header written, then a 64 KiB file sent with sendfile, once
//! under TCP_CORK (cleared after the file) and once with TCP_NODELAY: how
//! many data segments left (TCP_INFO `tcpi_data_segs_out`), beside the MSS
//! they were cut to; over loopback, then (as root) over a veth link, where
//! the MSS is an Ethernet one and the counts tell the two apart. And the MSS itself (TCP_INFO `tcpi_snd_mss`) over
//! loopback and, as root, over a veth link between two namespaces
//! (`exec::link`, as `file-transfer` uses it).

use super::tcp::loopback_pair;
use super::{read_number, Probing};
use crate::exec::link::Link;
use crate::exec::side;
use crate::sys::tcp_info::tcp_info;
use anyhow::{anyhow, ensure, Context};
use rustix::net::sockopt::{set_tcp_cork, set_tcp_nodelay};
use std::fs::File;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const HEADER: usize = 200;
const BODY: usize = 64 << 10;
/// Transfers under TCP_CORK until one leaves in the fewest segments the MSS
/// allows: a sender stalled for 200 ms (a slow guest) gets its held header
/// pushed alone by the cork's timer, which only ever adds a segment.
const CORK_TRIES: usize = 3;
const AUTOCORK: &str = "/proc/sys/net/ipv4/tcp_autocorking";

pub(super) fn cork_merges_header(p: &mut Probing) -> anyhow::Result<()> {
    if let Ok(v) = read_number(AUTOCORK) {
        p.measured(
            "tcp_autocorking",
            format!("read {AUTOCORK}"),
            v.to_string(),
            v as f64,
            "flag",
        );
    }
    let path = p.dir.join("probe-body.bin");
    let body: Vec<u8> = (0..BODY).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &body).with_context(|| format!("writing {}", path.display()))?;
    let file = File::open(&path).with_context(|| format!("opening {}", path.display()))?;
    std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
    for cork in [true, false] {
        segments(p, &Link::Loopback, cork, &file, &body)?;
    }
    let veth = Link::open("1gbit")?;
    for cork in [true, false] {
        segments(p, &veth, cork, &file, &body)?;
    }
    Ok(())
}

/// One transfer over `link`; its observations are named `cork_*` and
/// `nodelay_*` over loopback, `veth_cork_*` and `veth_nodelay_*` over veth.
fn segments(
    p: &mut Probing,
    link: &Link,
    cork: bool,
    file: &File,
    body: &[u8],
) -> anyhow::Result<()> {
    let (over, prefix) = match link {
        Link::Loopback => ("loopback", ""),
        Link::Emulated(_) => ("veth", "veth_"),
    };
    let (mode, call) = match cork {
        true => (
            "cork",
            "TCP_CORK set; write(200 B header); sendfile(64 KiB file); TCP_CORK cleared",
        ),
        false => (
            "nodelay",
            "TCP_NODELAY set; write(200 B header); sendfile(64 KiB file)",
        ),
    };
    let name = format!("{prefix}{mode}_data_segments");
    let tries = if cork { CORK_TRIES } else { 1 };
    let mut fewest = (u32::MAX, 0);
    for _ in 0..tries {
        let Some((segs, mss)) =
            transfer(link, cork, file, body).with_context(|| format!("{call} over {over}"))?
        else {
            p.saw(
                &name,
                format!("{call} over {over}; TCP_INFO"),
                "this kernel's TCP_INFO has no tcpi_data_segs_out",
            );
            return Ok(());
        };
        if segs < fewest.0 {
            fewest = (segs, mss);
        }
        if segs as usize <= (HEADER + BODY).div_ceil(mss.max(1) as usize) {
            break; // as few as the MSS allows
        }
    }
    let (segs, snd_mss) = fewest;
    let answer = format!(
        "{segs} data segments for {} bytes, snd_mss {snd_mss}{}",
        HEADER + BODY,
        if tries > 1 {
            format!(" (the fewest of up to {tries} transfers)")
        } else {
            String::new()
        }
    );
    p.measured(
        &name,
        format!("{call} over {over}; TCP_INFO tcpi_data_segs_out before and after"),
        answer,
        f64::from(segs),
        "segments",
    );
    p.measured(
        &format!("{prefix}{mode}_snd_mss"),
        format!("TCP_INFO tcpi_snd_mss over {over}"),
        snd_mss.to_string(),
        f64::from(snd_mss),
        "bytes",
    );
    Ok(())
}

/// One connection over `link` carrying the header and the file, checked:
/// the data segments it took and the MSS, or None where TCP_INFO has no
/// segment count.
fn transfer(
    link: &Link,
    cork: bool,
    file: &File,
    body: &[u8],
) -> anyhow::Result<Option<(u32, u32)>> {
    let (mut tx, mut rx) = link.connect().context("connecting")?;
    match cork {
        true => set_tcp_cork(&tx, true).context("TCP_CORK")?,
        false => set_tcp_nodelay(&tx, true).context("TCP_NODELAY")?,
    }
    let before = tcp_info(&tx).context("TCP_INFO")?;
    let (received, sent) = side::both(
        [None, None],
        || receive(&mut rx, HEADER + BODY),
        || send(&mut tx, file, cork),
    )?;
    sent.map_err(|_| anyhow!("sender panicked"))?
        .context("sending")?;
    let received = received
        .map_err(|_| anyhow!("receiver panicked"))?
        .context("receiving")?;
    ensure!(
        received[..HEADER].iter().all(|b| *b == b'H') && received[HEADER..] == *body,
        "the peer received other bytes than were sent"
    );
    let after = tcp_info(&tx).context("TCP_INFO")?;
    Ok(match (after.data_segs_out, before.data_segs_out) {
        (Some(a), Some(b)) => Some((a - b, after.snd_mss)),
        _ => None,
    })
}

fn send(tx: &mut TcpStream, file: &File, cork: bool) -> anyhow::Result<()> {
    tx.write_all(&[b'H'; HEADER]).context("write")?;
    let mut offset = 0u64;
    while (offset as usize) < BODY {
        let left = BODY - offset as usize;
        let n = rustix::fs::sendfile(&*tx, file, Some(&mut offset), left).context("sendfile")?;
        ensure!(n > 0, "sendfile sent nothing at offset {offset}");
    }
    if cork {
        set_tcp_cork(&*tx, false).context("clearing TCP_CORK")?;
    }
    Ok(())
}

fn receive(rx: &mut TcpStream, len: usize) -> anyhow::Result<Vec<u8>> {
    rx.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut got = vec![0u8; len];
    rx.read_exact(&mut got)?;
    Ok(got)
}

pub(super) fn mss(p: &mut Probing) -> anyhow::Result<()> {
    let (tx, _rx) = loopback_pair()?;
    record_mss(p, "loopback", &tx)?;
    let link = Link::open("1gbit")?;
    let (tx, _rx) = link.connect().context("connecting over the veth link")?;
    record_mss(p, "veth", &tx)
}

fn record_mss(p: &mut Probing, over: &str, tx: &TcpStream) -> anyhow::Result<()> {
    let info = tcp_info(tx).context("TCP_INFO")?;
    let call = |field: &str| format!("TCP_INFO {field} of a connected socket over {over}");
    let fields = [
        ("snd_mss", "tcpi_snd_mss", info.snd_mss),
        ("advmss", "tcpi_advmss", info.advmss),
        ("pmtu", "tcpi_pmtu", info.pmtu),
    ];
    for (key, field, value) in fields {
        p.measured(
            &format!("{over}_{key}"),
            call(field),
            value.to_string(),
            f64::from(value),
            "bytes",
        );
    }
    Ok(())
}
