//! The network a file transfer crosses: loopback, or an emulated link of a
//! given rate. The emulated link is two network namespaces (sender's and
//! receiver's) joined by a veth pair, with a `tbf` qdisc limiting the
//! sender's end; nothing is added to the host's own namespace. It needs
//! root and iproute2 (`ip`, `tc`); the namespaces (and with them the veth
//! and the qdisc) are deleted on drop, and registered with
//! `runner::cleanup` so a second Ctrl-C deletes them too. Their names
//! `iolab-<pid>-<n>-s|r` carry iolab's PID, so a later run removes those of
//! a killed run (`runner::stale`).

use crate::error::Unsupported;
use crate::exec::cleanup;
use anyhow::Context;
use rustix::fd::AsFd;
use rustix::thread::{move_into_link_name_space, LinkNameSpaceType};
use std::io;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// The `link` values: loopback, or a rate `tc` understands.
pub(crate) const LINKS: &[&str] = &["loopback", "10mbit", "100mbit", "1gbit"];

const SENDER_ADDR: &str = "10.203.0.1/30";
/// The receiver's address, in the receiver's namespace.
pub const RECEIVER_IP: Ipv4Addr = Ipv4Addr::new(10, 203, 0, 2);
const RECEIVER_ADDR: &str = "10.203.0.2/30";
const VETH_SENDER: &str = "iolab-s";
/// The receiver's end of the veth pair, in its namespace.
pub const VETH_RECEIVER: &str = "iolab-r";
/// Where `ip netns` keeps the named namespaces.
pub(crate) const NETNS_DIR: &str = "/var/run/netns";

static NEXT: AtomicU32 = AtomicU32::new(0);

/// Where the two ends of a transfer meet.
pub(crate) enum Link {
    Loopback,
    Emulated(Namespaces),
}

impl Link {
    /// Sets up `link` (a `LINKS` value); emulation without root or
    /// iproute2 is `Unsupported`.
    pub(crate) fn open(link: &str) -> anyhow::Result<Link> {
        if link == "loopback" {
            return Ok(Link::Loopback);
        }
        Namespaces::create(Some(link)).map(Link::Emulated)
    }

    /// A connected TCP pair: (sender's end, receiver's end).
    pub(crate) fn connect(&self) -> io::Result<(TcpStream, TcpStream)> {
        match self {
            Link::Loopback => {
                let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
                let sender = TcpStream::connect(listener.local_addr()?)?;
                Ok((sender, listener.accept()?.0))
            }
            Link::Emulated(ns) => ns.connect(),
        }
    }
}

/// The sender's and the receiver's namespaces; deleted on drop. The
/// agent's tests put `iolab agent` in the receiver's and the client in the
/// sender's (`ip netns exec`).
pub struct Namespaces {
    names: [String; 2],
    teardowns: Vec<u64>,
}

impl Namespaces {
    /// Two namespaces joined by a veth pair, the sender's end limited to
    /// `rate` (a `tc` rate) if given.
    pub fn create(rate: Option<&str>) -> anyhow::Result<Namespaces> {
        check_can_emulate()?;
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let prefix = crate::sys::owner::own_prefix();
        let mut ns = Namespaces {
            names: [format!("{prefix}{n}-s"), format!("{prefix}{n}-r")],
            teardowns: Vec::new(),
        };
        for name in ns.names.clone() {
            run(&["ip", "netns", "add", &name])?;
            ns.teardowns.push(cleanup::track_teardown(argv(&[
                "ip", "netns", "del", &name,
            ])));
        }
        ns.wire(rate)?;
        Ok(ns)
    }

    /// The sender's and the receiver's namespace names.
    pub fn names(&self) -> [&str; 2] {
        [&self.names[0], &self.names[1]]
    }

    /// veth pair across the two namespaces, addresses, and the rate limit.
    fn wire(&self, rate: Option<&str>) -> anyhow::Result<()> {
        let [s, r] = [self.names[0].as_str(), self.names[1].as_str()];
        run(&[
            "ip",
            "-n",
            s,
            "link",
            "add",
            VETH_SENDER,
            "type",
            "veth",
            "peer",
            "name",
            VETH_RECEIVER,
            "netns",
            r,
        ])?;
        run(&[
            "ip",
            "-n",
            s,
            "addr",
            "add",
            SENDER_ADDR,
            "dev",
            VETH_SENDER,
        ])?;
        run(&[
            "ip",
            "-n",
            r,
            "addr",
            "add",
            RECEIVER_ADDR,
            "dev",
            VETH_RECEIVER,
        ])?;
        run(&["ip", "-n", s, "link", "set", VETH_SENDER, "up"])?;
        run(&["ip", "-n", r, "link", "set", VETH_RECEIVER, "up"])?;
        let Some(rate) = rate else {
            return Ok(());
        };
        run(&[
            "tc",
            "-n",
            s,
            "qdisc",
            "add",
            "dev",
            VETH_SENDER,
            "root",
            "tbf",
            "rate",
            rate,
            "burst",
            "32kbit",
            "latency",
            "400ms",
        ])
        .map_err(|e| Unsupported(format!("cannot limit the link to {rate}: {e:#}")))?;
        Ok(())
    }

    fn connect(&self) -> io::Result<(TcpStream, TcpStream)> {
        let listener = in_netns(&self.names[1], || TcpListener::bind((RECEIVER_IP, 0)))?;
        let addr = listener.local_addr()?;
        let sender = in_netns(&self.names[0], || TcpStream::connect(addr))?;
        Ok((sender, listener.accept()?.0))
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.names {
            let _ = delete_netns(name);
        }
        for id in &self.teardowns {
            cleanup::untrack_teardown(*id);
        }
    }
}

/// Runs `f` on a fresh thread moved into namespace `name`: a socket keeps
/// the namespace it was created in, and the caller's thread stays where it is.
fn in_netns<T: Send>(name: &str, f: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
    let path = format!("{NETNS_DIR}/{name}");
    std::thread::scope(|s| {
        s.spawn(|| {
            let ns = std::fs::File::open(&path)?;
            move_into_link_name_space(ns.as_fd(), Some(LinkNameSpaceType::Network))?;
            f()
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("namespace thread panicked")))
    })
}

fn check_can_emulate() -> anyhow::Result<()> {
    if !rustix::process::geteuid().is_root() {
        return Err(
            Unsupported("link emulation needs root (network namespaces, veth, tc)".into()).into(),
        );
    }
    for tool in ["ip", "tc"] {
        if let Err(e) = Command::new(tool).arg("-V").output() {
            return Err(Unsupported(format!(
                "link emulation needs iproute2: cannot run `{tool}`: {e}"
            ))
            .into());
        }
    }
    Ok(())
}

/// Deletes network namespace `name`, and with it its veth end and qdisc.
pub(crate) fn delete_netns(name: &str) -> anyhow::Result<()> {
    run(&["ip", "netns", "del", name])
}

fn argv(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// Runs a command; an error carries its stderr.
fn run(args: &[&str]) -> anyhow::Result<()> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .with_context(|| format!("running {}", args.join(" ")))?;
    anyhow::ensure!(
        out.status.success(),
        "`{}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(())
}
