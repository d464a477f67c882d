//! E4-cork-nodelay-exclusive and E4-nodelay-beats-cork: TCP_CORK and
//! TCP_NODELAY set on one socket. Are both kept (read back with
//! getsockopt, in either order)? And with both set, does a 100-byte
//! write reach the peer at once, or after the cork's 200 ms ceiling? A
//! second write shows whether setting TCP_NODELAY only flushed what was
//! pending then; a socket with TCP_CORK alone is the baseline.

use super::tcp::{loopback_pair, until_readable};
use super::{ns, Probing};
use anyhow::{ensure, Context};
use rustix::net::sockopt::{set_tcp_cork, set_tcp_nodelay, tcp_cork, tcp_nodelay};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Past the cork's 200 ms ceiling, with room for a loaded machine.
const WAIT: Duration = Duration::from_millis(600);
const MESSAGE: usize = 100;

pub(super) fn exclusive(p: &mut Probing) -> anyhow::Result<()> {
    for (order, cork_first) in [("cork_then_nodelay", true), ("nodelay_then_cork", false)] {
        let (tx, _rx) = loopback_pair()?;
        let set = if cork_first {
            "setsockopt(TCP_CORK, 1); setsockopt(TCP_NODELAY, 1)"
        } else {
            "setsockopt(TCP_NODELAY, 1); setsockopt(TCP_CORK, 1)"
        };
        if let Err(e) = set_both(&tx, cork_first) {
            p.refused(&format!("{order}_set"), set, &e.into());
            continue;
        }
        p.saw(&format!("{order}_set"), set, "both accepted");
        for opt in ["TCP_CORK", "TCP_NODELAY"] {
            let name = format!("{order}_{}", opt.to_lowercase());
            let call = format!("getsockopt({opt}) after {set}");
            let read = match opt {
                "TCP_CORK" => tcp_cork(&tx),
                _ => tcp_nodelay(&tx),
            };
            match read {
                Ok(on) => p.measured(
                    &name,
                    call,
                    if on { "1 (set)" } else { "0 (clear)" },
                    f64::from(u8::from(on)),
                    "flag",
                ),
                Err(e) => p.refused(&name, call, &e.into()),
            }
        }
    }
    Ok(())
}

/// Sets TCP_CORK and TCP_NODELAY, in that order or the other.
fn set_both(tx: &TcpStream, cork_first: bool) -> rustix::io::Result<()> {
    if cork_first {
        set_tcp_cork(tx, true)?;
        set_tcp_nodelay(tx, true)
    } else {
        set_tcp_nodelay(tx, true)?;
        set_tcp_cork(tx, true)
    }
}

pub(super) fn beats(p: &mut Probing) -> anyhow::Result<()> {
    let (mut tx, mut rx) = loopback_pair()?;
    set_tcp_cork(&tx, true).context("TCP_CORK")?;
    set_tcp_nodelay(&tx, true).context("TCP_NODELAY")?;
    let both = "TCP_CORK then TCP_NODELAY set";
    for name in ["both_first_write", "both_second_write"] {
        let call = format!(
            "{both}; write({MESSAGE} B); poll(peer, POLLIN, {} ms)",
            WAIT.as_millis()
        );
        delivery(p, name, call, &mut tx, &mut rx)?;
    }
    let (mut tx, mut rx) = loopback_pair()?;
    set_tcp_cork(&tx, true).context("TCP_CORK")?;
    let call = format!(
        "TCP_CORK alone; write({MESSAGE} B); poll(peer, POLLIN, {} ms)",
        WAIT.as_millis()
    );
    delivery(p, "cork_only", call, &mut tx, &mut rx)
}

/// Writes MESSAGE bytes, records how long until the peer could read them,
/// then reads and checks them. The cork is only pulled out (which would
/// flush, and with TCP_NODELAY set arm a push) when the bytes did not come.
fn delivery(
    p: &mut Probing,
    name: &str,
    call: String,
    tx: &mut TcpStream,
    rx: &mut TcpStream,
) -> anyhow::Result<()> {
    let message = [b'm'; MESSAGE];
    tx.write_all(&message).context("write")?;
    let waited = until_readable(&*rx, WAIT)?;
    match waited {
        Some(t) => p.measured(
            name,
            call,
            format!("readable after {}", ns(t)),
            t as f64,
            "ns",
        ),
        None => p.saw(
            name,
            call,
            format!("not readable within {} ms", WAIT.as_millis()),
        ),
    }
    if waited.is_none() {
        set_tcp_cork(&*tx, false).context("clearing TCP_CORK")?;
    }
    rx.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut got = [0u8; MESSAGE];
    rx.read_exact(&mut got).context("reading the message")?;
    ensure!(
        got == message,
        "the peer read other bytes than were written"
    );
    if waited.is_none() {
        set_tcp_cork(&*tx, true).context("TCP_CORK")?;
    }
    Ok(())
}
