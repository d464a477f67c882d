//! The parsers of the /proc formats and of the sock_diag reply, and the
//! labels, on hand-made input.

use std::collections::HashMap;
use std::net::SocketAddr;

use super::diag::{self, UnixDiag};
use super::net::{self, InetRow, Proto};
use super::types::{Channel, Kind, Peer};
use super::{fdinfo, fds, mounts, procfs};

fn sa(text: &str) -> SocketAddr {
    text.parse().expect("a socket address")
}

#[test]
fn inet_addresses_are_host_order_words() {
    assert_eq!(net::addr("0100007F:1F90"), Some(sa("127.0.0.1:8080")));
    assert_eq!(
        net::addr("00000000000000000000000001000000:18EB"),
        Some(sa("[::1]:6379"))
    );
    let mapped = net::addr("0000000000000000FFFF00000100007F:0050").expect("v4-mapped");
    assert_eq!(net::canonical(mapped), sa("127.0.0.1:80"));
    assert!(net::is_loopback(mapped));
    assert_eq!(net::addr("0100007F"), None);
    assert_eq!(net::addr("0100007:0050"), None);
}

#[test]
fn tcp_rows_without_an_inode_are_skipped() {
    let text = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
                   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0\n\
                   1: 0100007F:1F90 0100007F:D2F0 06 00000000:00000000 03:00000F9F 00000000     0        0 0 3\n\
                   2: 0100007F:D2F2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 4343 1\n";
    let rows = net::parse_inet(text, Proto::Tcp);
    let seen: Vec<(u64, u8, SocketAddr)> =
        rows.iter().map(|r| (r.inode, r.state, r.local)).collect();
    assert_eq!(
        seen,
        [
            (4242, 0x0A, sa("127.0.0.1:8080")),
            (4343, 0x01, sa("127.0.0.1:54002"))
        ]
    );
}

#[test]
fn a_connected_udp_socket_finds_a_wildcard_bound_peer() {
    let row = |local: &str, remote: &str, inode| InetRow {
        proto: Proto::Udp,
        local: sa(local),
        remote: sa(remote),
        state: 7,
        inode,
    };
    let rows = [
        row("127.0.0.1:5000", "127.0.0.1:6000", 1),
        row("0.0.0.0:6000", "0.0.0.0:0", 2),
        row("0.0.0.0:7000", "0.0.0.0:0", 3),
    ];
    assert_eq!(net::loopback_peer(&rows, &rows[0]), Some(2));
    assert_eq!(net::loopback_peer(&rows, &rows[1]), None);
}

#[test]
fn unix_table_rows_keep_paths_with_spaces() {
    let text = "Num RefCount Protocol Flags Type St Inode Path\n\
                0000: 00000002 00000000 00010000 0005 01 77 /tmp/a b\n\
                0000: 00000002 00000000 00000000 0002 01 78\n";
    let rows = net::parse_unix(text);
    assert_eq!(rows[&77].path.as_deref(), Some("/tmp/a b"));
    assert_eq!(
        (rows[&77].ty.as_str(), rows[&77].listening),
        ("seqpacket", true)
    );
    assert_eq!(
        (rows[&78].ty.as_str(), rows[&78].path.as_deref()),
        ("dgram", None)
    );
}

#[test]
fn fdinfo_flags_are_octal_and_the_eventfd_count_hex() {
    let info =
        fdinfo::parse("pos:\t0\nflags:\t0100001\nmnt_id:\t9\neventfd-count:               ff\n");
    assert_eq!(
        (info.flags, info.mnt_id, info.eventfd_count),
        (Some(0o100001), Some(9), Some(255))
    );
    assert_eq!(info.access(), (false, true));
    assert_eq!(fdinfo::parse("flags:\t00\n").access(), (true, false));
    assert_eq!(fdinfo::parse("").access(), (false, false));
}

#[test]
fn the_atime_mode_of_a_mount() {
    assert_eq!(mounts::atime_mode("rw,nosuid"), "strictatime");
    assert_eq!(mounts::atime_mode("rw,noatime,nodiratime"), "noatime");
    assert_eq!(
        mounts::atime_mode("rw,relatime,lazytime"),
        "relatime,lazytime"
    );
    let parsed =
        mounts::parse("40 1 0:5 / /a\\040b rw,relatime shared:3 - tmpfs tmpfs rw\nbroken line\n");
    assert_eq!(
        (parsed[&40].fs.as_str(), parsed[&40].atime.as_str()),
        ("tmpfs", "relatime")
    );
    assert_eq!(parsed.len(), 1);
}

#[test]
fn links_and_errors_read_as_people_write_them() {
    assert_eq!(fds::bracketed("pipe:[42]", "pipe:"), Some(42));
    assert_eq!(fds::bracketed("pipe:[x]", "pipe:"), None);
    assert_eq!(fds::anon_name("anon_inode:[eventfd]"), Some("eventfd"));
    assert_eq!(fds::anon_name("anon_inode:inotify"), Some("inotify"));
    assert_eq!(fds::basename("/run/q (deleted)"), "q");
    let err = std::io::Error::from_raw_os_error(libc::EACCES);
    assert_eq!(procfs::err_text(&err), "Permission denied");
    assert_eq!(
        procfs::split_fields("  a  b c d", 2),
        Some((vec!["a", "b"], "c d"))
    );
    assert_eq!(procfs::split_fields("a", 2), None);
}

#[test]
fn unreadable_links_make_one_line_per_error() {
    let err = |code| std::io::Error::from_raw_os_error(code);
    let errors = vec![
        ("/proc/1/fd/0".into(), err(libc::EACCES)),
        ("/proc/1/fd/1".into(), err(libc::EACCES)),
        ("/proc/1/fd/2".into(), err(libc::EACCES)),
        ("/proc/1/fd/9".into(), err(libc::ELOOP)),
    ];
    let lines = super::link_problems(1, &errors);
    assert_eq!(
        lines,
        [
            "pid 1: /proc/1/fd/0 and 2 more: Permission denied",
            "pid 1: /proc/1/fd/9: Too many levels of symbolic links"
        ]
    );
}

/// A netlink message of `ty` around `payload`.
fn nlmsg(ty: u16, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(16 + payload.len() as u32).to_ne_bytes());
    out.extend_from_slice(&ty.to_ne_bytes());
    out.extend_from_slice(&[0; 10]);
    out.extend_from_slice(payload);
    out.resize(out.len().next_multiple_of(4), 0);
    out
}

fn attr(ty: u16, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(4 + data.len() as u16).to_ne_bytes());
    out.extend_from_slice(&ty.to_ne_bytes());
    out.extend_from_slice(data);
    out.resize(out.len().next_multiple_of(4), 0);
    out
}

#[test]
fn a_sock_diag_reply_gives_peers_and_names() {
    let mut msg = vec![1, 1, 1, 0];
    msg.extend_from_slice(&42u32.to_ne_bytes());
    msg.extend_from_slice(&[0; 8]);
    msg.extend(attr(0, b"\0abs"));
    msg.extend(attr(2, &43u32.to_ne_bytes()));
    let mut reply = nlmsg(20, &msg);
    reply.extend(nlmsg(3, &[0; 4]));
    let mut out = HashMap::new();
    assert_eq!(diag::parse(&reply, &mut out), Ok(true));
    assert_eq!(
        out[&42],
        UnixDiag {
            ty: 1,
            peer: Some(43),
            name: Some("@abs".to_string())
        }
    );
    let refused = nlmsg(2, &(-libc::EPERM).to_ne_bytes());
    let err = diag::parse(&refused, &mut out);
    assert_eq!(
        err,
        Err("sock_diag (unix peers): Operation not permitted".to_string())
    );
    assert_eq!(diag::parse(&[1, 2, 3], &mut out), Ok(false));
}

fn ch(kind: Kind, peers: Vec<Peer>) -> Channel {
    Channel {
        pid: 10,
        fd: 3,
        inode: 0,
        kind,
        peers,
    }
}

fn peer(pid: i32, fd: i32, comm: &str) -> Peer {
    Peer {
        pid,
        fd,
        comm: comm.to_string(),
    }
}

#[test]
fn labels() {
    let pipe = |r, w| Kind::Pipe {
        readable: r,
        writable: w,
    };
    assert_eq!(
        ch(pipe(true, false), vec![]).label(),
        "fd 3, pipe (no other holder)"
    );
    assert_eq!(
        ch(pipe(true, false), vec![peer(7, 1, "sh")]).label(),
        "fd 3, pipe from sh (pid 7)"
    );
    let many = (1..=5).map(|p| peer(p, 0, "w")).collect();
    assert_eq!(
        ch(pipe(false, true), many).label(),
        "fd 3, pipe to w (pid 1), w (pid 2), w (pid 3) and 2 more"
    );
    let pair = Kind::Unix {
        ty: "stream".into(),
        path: None,
        peer_inode: Some(9),
        peer_path: None,
        listening: false,
    };
    assert_eq!(
        ch(pair.clone(), vec![peer(900, 4, "python3")]).label(),
        "fd 3, unix stream socketpair to python3 (pid 900)"
    );
    assert_eq!(
        ch(pair, vec![peer(10, 4, "me")]).label(),
        "fd 3, unix stream socketpair to self (fd 4)"
    );
    let client = Kind::Unix {
        ty: "stream".into(),
        path: None,
        peer_inode: Some(9),
        peer_path: Some("/s".into()),
        listening: false,
    };
    assert_eq!(
        ch(client, vec![peer(5, 6, "srv")]).label(),
        "fd 3, unix stream to /s of srv (pid 5)"
    );
    let tcp = Kind::Tcp {
        local: "a:1".into(),
        remote: "b:2".into(),
        loopback: false,
        state: "CLOSE_WAIT".into(),
        peer_inode: None,
    };
    assert_eq!(ch(tcp, vec![]).label(), "fd 3, TCP a:1 -> b:2 [CLOSE_WAIT]");
    let udp = Kind::Udp {
        local: "0.0.0.0:53".into(),
        remote: "0.0.0.0:0".into(),
        loopback: false,
        peer_inode: None,
    };
    assert_eq!(ch(udp, vec![]).label(), "fd 3, UDP on 0.0.0.0:53");
    assert_eq!(
        ch(Kind::Epoll { watched: vec![1] }, vec![]).label(),
        "fd 3, epoll watching 1 fd"
    );
    let mq = Kind::Mqueue {
        name: "/q".into(),
        qsize: None,
    };
    assert_eq!(ch(mq, vec![]).label(), "fd 3, POSIX mqueue /q");
    let eventfd = Kind::Eventfd {
        count: None,
        semaphore: None,
    };
    assert_eq!(ch(eventfd, vec![]).label(), "fd 3, eventfd");
}
