//! Who is at the other end: every process under the /proc root (not only
//! the scanned ones) holding the same pipe, FIFO or peer socket. Each
//! process's fd links are read once per scan; a process that vanished or
//! hides its table is passed over in silence, as it is not being watched.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::fds::{self, basename, FdLink};
use super::procfs;
use super::types::{Channel, Kind, Peer};

/// (pid, fd) pairs.
type Holders = Vec<(i32, i32)>;

/// The descriptors of all processes, by what they hold.
#[derive(Default)]
struct Index {
    /// `pipe:[N]` and `socket:[N]` links.
    links: HashMap<String, Holders>,
    /// FIFOs by (dev, inode).
    files: HashMap<(u64, u64), Holders>,
}

/// Fills in the peers of `channels`; `known` holds the fd tables already
/// read (the scanned processes').
pub(super) fn attach(
    proc_root: &Path,
    known: &HashMap<i32, Vec<FdLink>>,
    channels: &mut [Channel],
) {
    if !channels.iter().any(needs_peers) {
        return;
    }
    let index = build(proc_root, known, &fifos(channels));
    let mut comms = HashMap::new();
    for channel in channels.iter_mut() {
        let holders = holders(&index, channel);
        channel.peers = holders
            .into_iter()
            .map(|(pid, fd)| {
                let comm = comms
                    .entry(pid)
                    .or_insert_with(|| procfs::comm(proc_root, pid));
                Peer {
                    pid,
                    fd,
                    comm: comm.clone(),
                }
            })
            .collect();
        channel.peers.sort();
    }
}

/// Adds to each of `channels` the holders among `channels` themselves:
/// gathered over several reads of /proc, an end read before a fork and its
/// peer read after the other process exited still find each other.
/// `comm` names a pid.
pub(crate) fn complete(channels: &mut [Channel], comm: &dyn Fn(i32) -> String) {
    let mut index = Index::default();
    for c in channels.iter() {
        let holder = (c.pid, c.fd);
        if let Kind::Fifo { dev, .. } = &c.kind {
            index.files.entry((*dev, c.inode)).or_default().push(holder);
        } else if let Some(link) = own_link(c) {
            index.links.entry(link).or_default().push(holder);
        }
    }
    for c in channels.iter_mut() {
        for (pid, fd) in holders(&index, c) {
            if !c.peers.iter().any(|p| (p.pid, p.fd) == (pid, fd)) {
                let comm = comm(pid);
                c.peers.push(Peer { pid, fd, comm });
            }
        }
        c.peers.sort();
    }
}

/// The link naming the descriptor itself, for the kinds found by link.
fn own_link(c: &Channel) -> Option<String> {
    match &c.kind {
        Kind::Pipe { .. } => Some(format!("pipe:[{}]", c.inode)),
        Kind::Unix { .. } | Kind::Tcp { .. } | Kind::Udp { .. } => {
            Some(format!("socket:[{}]", c.inode))
        }
        _ => None,
    }
}

fn needs_peers(c: &Channel) -> bool {
    link_key(c).is_some() || matches!(c.kind, Kind::Fifo { .. })
}

/// The link a peer holds, for the kinds whose peer is found by link.
fn link_key(c: &Channel) -> Option<String> {
    match &c.kind {
        Kind::Pipe { .. } => Some(format!("pipe:[{}]", c.inode)),
        Kind::Unix {
            peer_inode: Some(p),
            ..
        }
        | Kind::Tcp {
            peer_inode: Some(p),
            ..
        }
        | Kind::Udp {
            peer_inode: Some(p),
            ..
        } => Some(format!("socket:[{p}]")),
        _ => None,
    }
}

/// The other holders of the channel: other processes for a pipe or FIFO,
/// any descriptor but this one for the socket at the other end.
fn holders(index: &Index, c: &Channel) -> Holders {
    let all = match &c.kind {
        Kind::Fifo { dev, .. } => index.files.get(&(*dev, c.inode)),
        _ => link_key(c).and_then(|k| index.links.get(&k)),
    };
    let pipe_like = matches!(c.kind, Kind::Pipe { .. } | Kind::Fifo { .. });
    let keep = |&&(pid, fd): &&(i32, i32)| {
        if pipe_like {
            pid != c.pid
        } else {
            (pid, fd) != (c.pid, c.fd)
        }
    };
    all.map(|h| h.iter().filter(keep).copied().collect())
        .unwrap_or_default()
}

/// The FIFOs of the scan: (dev, inode) and base names.
struct Fifos {
    ids: HashSet<(u64, u64)>,
    names: HashSet<String>,
}

fn fifos(channels: &[Channel]) -> Fifos {
    let mut out = Fifos {
        ids: HashSet::new(),
        names: HashSet::new(),
    };
    for c in channels {
        if let Kind::Fifo { path, dev, .. } = &c.kind {
            out.ids.insert((*dev, c.inode));
            out.names.insert(basename(path).to_string());
        }
    }
    out
}

/// Reads every process's fd links once. A path link is looked at (stat,
/// following the link) only when its base name is a scanned FIFO's, so a
/// FIFO renamed since it was opened is missed but no other file is touched.
fn build(proc_root: &Path, known: &HashMap<i32, Vec<FdLink>>, fifos: &Fifos) -> Index {
    let mut index = Index::default();
    for pid in procfs::pids(proc_root).unwrap_or_default() {
        let dir = proc_root.join(pid.to_string());
        let read;
        let links = match known.get(&pid) {
            Some(links) => links,
            None => match fds::read_links(&dir) {
                Ok((links, _)) => {
                    read = links;
                    &read
                }
                Err(_) => continue,
            },
        };
        for l in links {
            add(&mut index, &dir, pid, l, fifos);
        }
    }
    index
}

fn add(index: &mut Index, dir: &Path, pid: i32, l: &FdLink, fifos: &Fifos) {
    if l.link.starts_with("pipe:") || l.link.starts_with("socket:") {
        index
            .links
            .entry(l.link.clone())
            .or_default()
            .push((pid, l.fd));
    } else if l.link.starts_with('/') && fifos.names.contains(basename(&l.link)) {
        let Ok(meta) = std::fs::metadata(dir.join("fd").join(l.fd.to_string())) else {
            return;
        };
        let id = (meta.dev(), meta.ino());
        if fifos.ids.contains(&id) {
            index.files.entry(id).or_default().push((pid, l.fd));
        }
    }
}
