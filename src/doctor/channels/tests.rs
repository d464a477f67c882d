//! `scan` of the test process itself on real kernel objects: a pipe to a
//! child, a socketpair, an eventfd, an epoll, a FIFO, unix, TCP and UDP
//! sockets, and a POSIX queue where the kernel has them; and a regular
//! file that must not show.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use rustix::event::{epoll, eventfd, EventfdFlags};
use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};

use super::types::{Channel, Kind, Peer, Scan};
use crate::sys::mq;

/// A child killed and reaped however the test ends.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A POSIX queue unlinked however the test ends.
struct Queue {
    _queue: mq::Queue,
    name: CString,
}

impl Drop for Queue {
    fn drop(&mut self) {
        let _ = mq::unlink(&self.name);
    }
}

fn queue() -> Option<Queue> {
    let name = CString::new(format!("/iolab-{}-doctor-channels", std::process::id())).ok()?;
    let _ = mq::unlink(&name);
    let attr = mq::Attr {
        depth: 1,
        msgsize: 16,
    };
    match mq::create(&name, mq::Access::Read, attr) {
        Ok(q) => Some(Queue { _queue: q, name }),
        Err(e) => {
            println!("skipped the POSIX queue: mq_open: {e}");
            None
        }
    }
}

fn channel(scan: &Scan, fd: i32) -> &Channel {
    let me = std::process::id() as i32;
    let found = scan.channels.iter().find(|c| c.pid == me && c.fd == fd);
    found.unwrap_or_else(|| panic!("fd {fd} not found in {:#?}", scan.channels))
}

fn holds(c: &Channel, pid: u32, fd: i32) -> bool {
    c.peers.iter().any(|p| p.pid == pid as i32 && p.fd == fd)
}

fn me() -> u32 {
    std::process::id()
}

fn fd(f: &impl AsRawFd) -> i32 {
    f.as_raw_fd()
}

#[test]
fn pipe_to_a_child_socketpair_eventfd_and_epoll() {
    let child = Command::new("sleep")
        .arg("5")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("sleep");
    let child = Reaped(child);
    let pipe = fd(child.0.stdin.as_ref().expect("stdin pipe"));
    let (a, b): (OwnedFd, OwnedFd) = socketpair(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .expect("socketpair");
    let efd = eventfd(31, EventfdFlags::CLOEXEC | EventfdFlags::SEMAPHORE).expect("eventfd");
    let ep = epoll::create(epoll::CreateFlags::CLOEXEC).expect("epoll");
    epoll::add(
        &ep,
        &efd,
        epoll::EventData::new_u64(1),
        epoll::EventFlags::IN,
    )
    .expect("epoll add");
    epoll::add(&ep, &a, epoll::EventData::new_u64(2), epoll::EventFlags::IN).expect("epoll add");
    let scan = super::scan(Path::new("/proc"), &[me() as i32]);

    let p = channel(&scan, pipe);
    assert_eq!(
        p.kind,
        Kind::Pipe {
            readable: false,
            writable: true
        }
    );
    let sleep = Peer {
        pid: child.0.id() as i32,
        fd: 0,
        comm: "sleep".to_string(),
    };
    assert!(p.peers.contains(&sleep), "{p:?}");
    assert!(
        p.label().starts_with(&format!("fd {pipe}, pipe to ")),
        "{}",
        p.label()
    );

    let e = channel(&scan, fd(&efd));
    let Kind::Eventfd { count, semaphore } = e.kind else {
        panic!("not an eventfd: {e:?}")
    };
    assert_eq!(count, Some(31));
    assert_ne!(semaphore, Some(false), "EFD_SEMAPHORE was set");

    let mut watched = vec![fd(&efd), fd(&a)];
    watched.sort_unstable();
    assert_eq!(channel(&scan, fd(&ep)).kind, Kind::Epoll { watched });
    assert_eq!(
        channel(&scan, fd(&ep)).label(),
        format!("fd {}, epoll watching 2 fds", fd(&ep))
    );

    let (ca, cb) = (channel(&scan, fd(&a)), channel(&scan, fd(&b)));
    if sock_diag_refused(&scan) {
        return;
    }
    let want = Kind::Unix {
        ty: "stream".into(),
        path: None,
        peer_inode: Some(cb.inode),
        peer_path: None,
        listening: false,
    };
    assert_eq!(ca.kind, want);
    assert!(holds(ca, me(), fd(&b)), "{ca:?}");
    assert!(
        ca.label().starts_with(&format!(
            "fd {}, unix stream socketpair to self (fd {})",
            fd(&a),
            fd(&b)
        )),
        "{}",
        ca.label()
    );
}

/// Whether sock_diag was refused here (then unix peers stay unknown).
fn sock_diag_refused(scan: &Scan) -> bool {
    let refused = scan.unreadable.iter().find(|l| l.starts_with("sock_diag"));
    if let Some(line) = refused {
        println!("skipped the unix peer checks: {line}");
    }
    refused.is_some()
}

#[test]
fn fifo_unix_listener_and_a_regular_file() {
    let dir = tempfile::TempDir::new().expect("temp dir");
    let fifo_path = dir.path().join("q");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo_path,
        rustix::fs::FileType::Fifo,
        0o600.into(),
        0,
    )
    .expect("mkfifo");
    let fifo = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo_path)
        .expect("open the FIFO O_RDWR");
    let plain = File::create(dir.path().join("plain")).expect("plain file");
    let sock_path = dir.path().join("s.sock");
    let listener = UnixListener::bind(&sock_path).expect("bind");
    let client = UnixStream::connect(&sock_path).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    let scan = super::scan(Path::new("/proc"), &[me() as i32]);

    let f = channel(&scan, fd(&fifo));
    let Kind::Fifo {
        path, fs, atime, ..
    } = &f.kind
    else {
        panic!("not a FIFO: {f:?}")
    };
    assert_eq!(Path::new(path), fifo_path);
    assert!(!fs.is_empty() && fs != "?", "the FIFO's file system: {f:?}");
    assert!(
        ["noatime", "relatime", "strictatime"]
            .iter()
            .any(|m| atime.starts_with(m)),
        "{atime}"
    );
    assert_eq!(f.inode, std::fs::metadata(&fifo_path).expect("stat").ino());
    assert!(f.label().starts_with(&format!(
        "fd {}, FIFO {} ({fs}, {atime})",
        fd(&fifo),
        fifo_path.display()
    )));

    assert!(
        scan.channels
            .iter()
            .all(|c| c.fd != fd(&plain) || c.pid != me() as i32),
        "a regular file is no channel"
    );

    let sock = Some(sock_path.to_string_lossy().into_owned());
    let l = channel(&scan, fd(&listener));
    assert!(
        matches!(&l.kind, Kind::Unix { listening: true, path, .. } if *path == sock),
        "{l:?}"
    );
    if sock_diag_refused(&scan) {
        return;
    }
    let c = channel(&scan, fd(&client));
    assert!(
        matches!(&c.kind, Kind::Unix { path: None, peer_path, .. } if *peer_path == sock),
        "{c:?}"
    );
    assert!(holds(c, me(), fd(&server)), "{c:?}");
    assert!(holds(channel(&scan, fd(&server)), me(), fd(&client)));
}

#[test]
fn tcp_and_udp_on_loopback_find_each_other() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("tcp bind");
    let client = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    let u1 = UdpSocket::bind("127.0.0.1:0").expect("udp bind");
    let u2 = UdpSocket::bind("127.0.0.1:0").expect("udp bind");
    u1.connect(u2.local_addr().expect("addr"))
        .expect("udp connect");
    let scan = super::scan(Path::new("/proc"), &[me() as i32]);

    let (local, remote) = (
        client.local_addr().expect("addr").to_string(),
        listener.local_addr().expect("addr").to_string(),
    );
    let c = channel(&scan, fd(&client));
    let Kind::Tcp {
        local: l,
        remote: r,
        loopback,
        state,
        ..
    } = &c.kind
    else {
        panic!("not TCP: {c:?}")
    };
    assert_eq!(
        (l, r, *loopback, state.as_str()),
        (&local, &remote, true, "ESTABLISHED")
    );
    assert!(holds(c, me(), fd(&server)), "{c:?}");
    assert!(
        c.label().starts_with(&format!(
            "fd {}, TCP {local} -> {remote} (loopback)",
            fd(&client)
        )),
        "{}",
        c.label()
    );
    let l = channel(&scan, fd(&listener));
    assert!(
        matches!(&l.kind, Kind::Tcp { state, .. } if state == "LISTEN"),
        "{l:?}"
    );

    let u = channel(&scan, fd(&u1));
    let remote = u2.local_addr().expect("addr").to_string();
    assert!(
        matches!(&u.kind, Kind::Udp { remote: r, loopback: true, .. } if *r == remote),
        "{u:?}"
    );
    assert!(holds(u, me(), fd(&u2)), "{u:?}");
}

#[test]
fn a_posix_queue_where_the_kernel_has_them() {
    let Some(q) = queue() else { return };
    let scan = super::scan(Path::new("/proc"), &[me() as i32]);
    let name = q.name.to_string_lossy().into_owned();
    let found = scan
        .channels
        .iter()
        .find(|c| matches!(&c.kind, Kind::Mqueue { name: n, .. } if *n == name));
    assert!(found.is_some(), "{name} not in {:#?}", scan.channels);
}

fn unix_end(pid: i32, fd: i32, inode: u64, peer_inode: Option<u64>) -> Channel {
    Channel {
        pid,
        fd,
        inode,
        kind: Kind::Unix {
            ty: "stream".to_string(),
            path: None,
            peer_inode,
            peer_path: None,
            listening: false,
        },
        peers: Vec::new(),
    }
}

#[test]
fn ends_read_in_different_scans_find_each_other() {
    // The parent's end read after the child exited (its peer known, the
    // child gone); the child's end read while it ran (its peer unknown).
    let mut all = vec![
        unix_end(10, 3, 100, Some(101)),
        unix_end(10, 4, 101, Some(100)),
        unix_end(20, 4, 101, None),
        unix_end(30, 5, 555, Some(556)),
    ];
    all[0].peers.push(Peer {
        pid: 10,
        fd: 4,
        comm: "parent".to_string(),
    });
    super::complete_peers(&mut all, &|pid| format!("p{pid}"));
    let holders = |c: &Channel| c.peers.iter().map(|p| (p.pid, p.fd)).collect::<Vec<_>>();
    assert_eq!(holders(&all[0]), [(10, 4), (20, 4)]);
    assert_eq!(all[0].peers[1].comm, "p20");
    assert_eq!(holders(&all[1]), [(10, 3)]);
    assert!(all[2].peers.is_empty(), "no peer inode, no peers");
    assert!(all[3].peers.is_empty(), "no end of 556 was seen");
}
