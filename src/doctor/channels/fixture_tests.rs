//! `scan` over a small /proc tree (`fixtures/proc`), for what a test
//! process cannot make of itself: a process whose fd table is unreadable,
//! IPv6 loopback TCP, a listening unix socket and its accepted peer, a
//! SysV queue by lspid/lrpid, shared mappings. The fd links, which are
//! symlinks in /proc, are made at test time from each `fd.links`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::diag::UnixDiag;
use super::types::{Channel, Kind, Peer, Scan, ShmKind};

/// The fixture tree copied to a temp dir, with its fd links made.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    fifo: PathBuf,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/doctor/channels/fixtures/proc")
}

fn tree() -> Tree {
    let dir = tempfile::TempDir::new().expect("temp dir");
    let files = dir.path().join("files");
    fs::create_dir(&files).expect("files dir");
    let fifo = files.join("q");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        0o600.into(),
        0,
    )
    .expect("mkfifo");
    fs::write(files.join("plain"), b"not a channel").expect("plain file");
    let root = dir.path().join("proc");
    copy(&fixtures(), &root, &|link: &str| {
        link.replace("{fifo}", &fifo.to_string_lossy())
            .replace("{file}", &files.join("plain").to_string_lossy())
    });
    fs::write(root.join("300/fd"), b"").expect("pid 300's fd, not a directory");
    Tree {
        _dir: dir,
        root,
        fifo,
    }
}

/// Copies `from` to `to`; an `fd.links` file ("N target" lines) becomes
/// an `fd` directory of symlinks.
fn copy(from: &Path, to: &Path, target: &dyn Fn(&str) -> String) {
    fs::create_dir_all(to).expect("fixture dir");
    for entry in fs::read_dir(from).expect("fixture listing") {
        let path = entry.expect("fixture entry").path();
        let name = path.file_name().expect("a name").to_owned();
        if path.is_dir() {
            copy(&path, &to.join(&name), target);
        } else if name == "fd.links" {
            make_links(
                &fs::read_to_string(&path).expect("fd.links"),
                &to.join("fd"),
                target,
            );
        } else {
            fs::copy(&path, to.join(&name)).expect("fixture copy");
        }
    }
}

fn make_links(text: &str, fd_dir: &Path, target: &dyn Fn(&str) -> String) {
    fs::create_dir_all(fd_dir).expect("fd dir");
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (fd, link) = line.split_once(' ').expect("N target");
        std::os::unix::fs::symlink(target(link), fd_dir.join(fd)).expect("fd symlink");
    }
}

/// sock_diag as the kernel would answer for the fixture's unix sockets.
fn fake_diag() -> Result<HashMap<u64, UnixDiag>, String> {
    let entry = |peer: Option<u64>| UnixDiag {
        ty: 1,
        peer,
        name: None,
    };
    Ok(HashMap::from([
        (5001, entry(None)),
        (5002, entry(Some(5003))),
        (5003, entry(Some(5002))),
    ]))
}

fn scan_tree(t: &Tree, pids: &[i32]) -> Scan {
    super::scan_with(&t.root, pids, &fake_diag)
}

fn channel(scan: &Scan, pid: i32, fd: i32) -> &Channel {
    let found = scan.channels.iter().find(|c| c.pid == pid && c.fd == fd);
    found.unwrap_or_else(|| panic!("no channel pid {pid} fd {fd} in {:#?}", scan.channels))
}

fn client(fd: i32) -> Vec<Peer> {
    vec![Peer {
        pid: 200,
        fd,
        comm: "client".to_string(),
    }]
}

#[test]
fn finds_the_channels_and_leaves_out_files_devices_and_namespaces() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let fds: Vec<i32> = scan.channels.iter().map(|c| c.fd).collect();
    assert_eq!(fds, [3, 4, 5, 6, 7, 8, 10, 11, 13, 15, 16]);
    assert!(scan.channels.iter().all(|c| c.pid == 100));
}

#[test]
fn an_unreadable_fd_table_and_a_missing_process_are_named() {
    let t = tree();
    let scan = scan_tree(&t, &[999, 300, 100, 300]);
    let expected = [
        format!(
            "pid 300: {}: Not a directory",
            t.root.join("300/fd").display()
        ),
        "pid 999: no such process".to_string(),
    ];
    assert_eq!(scan.unreadable, expected);
    assert!(scan.channels.iter().all(|c| c.pid == 100));
}

#[test]
fn a_permission_denied_fd_table_is_named() {
    if rustix::process::geteuid().is_root() {
        println!("skipped: root reads a mode-000 directory, so no Permission denied to see");
        return;
    }
    let t = tree();
    let fd_dir = t.root.join("200/fd");
    fs::set_permissions(&fd_dir, std::os::unix::fs::PermissionsExt::from_mode(0o000))
        .expect("chmod");
    let scan = scan_tree(&t, &[200]);
    fs::set_permissions(&fd_dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("chmod back");
    let line = format!("pid 200: {}: Permission denied", fd_dir.display());
    assert!(scan.unreadable.contains(&line), "{:?}", scan.unreadable);
}

#[test]
fn a_listening_unix_socket_and_an_accepted_one_with_its_peer() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let listening = channel(&scan, 100, 3);
    let path = Some("/run/app.sock".to_string());
    let want = Kind::Unix {
        ty: "stream".into(),
        path: path.clone(),
        peer_inode: None,
        peer_path: None,
        listening: true,
    };
    assert_eq!(listening.kind, want);
    assert_eq!(listening.inode, 5001);
    assert!(listening.peers.is_empty());
    assert_eq!(
        listening.label(),
        "fd 3, unix stream listening on /run/app.sock"
    );
    let accepted = channel(&scan, 100, 4);
    let want = Kind::Unix {
        ty: "stream".into(),
        path,
        peer_inode: Some(5003),
        peer_path: None,
        listening: false,
    };
    assert_eq!(accepted.kind, want);
    assert_eq!(accepted.peers, client(3));
    assert_eq!(
        accepted.label(),
        "fd 4, unix stream on /run/app.sock to client (pid 200)"
    );
}

#[test]
fn ipv6_loopback_tcp_with_its_peer() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let listen = channel(&scan, 100, 5);
    let want = Kind::Tcp {
        local: "[::1]:6379".into(),
        remote: "[::]:0".into(),
        loopback: true,
        state: "LISTEN".into(),
        peer_inode: None,
    };
    assert_eq!(listen.kind, want);
    assert_eq!(listen.label(), "fd 5, TCP listening on [::1]:6379");
    let conn = channel(&scan, 100, 6);
    let want = Kind::Tcp {
        local: "[::1]:6379".into(),
        remote: "[::1]:41000".into(),
        loopback: true,
        state: "ESTABLISHED".into(),
        peer_inode: Some(6003),
    };
    assert_eq!(conn.kind, want);
    assert_eq!(conn.peers, client(4));
    assert_eq!(
        conn.label(),
        "fd 6, TCP [::1]:6379 -> [::1]:41000 (loopback), peer client (pid 200)"
    );
}

#[test]
fn a_pipe_and_a_fifo_lead_to_the_other_process() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let pipe = channel(&scan, 100, 7);
    assert_eq!(
        (pipe.inode, &pipe.kind),
        (
            1234,
            &Kind::Pipe {
                readable: false,
                writable: true
            }
        )
    );
    assert_eq!(pipe.peers, client(0));
    assert_eq!(pipe.label(), "fd 7, pipe to client (pid 200)");
    let fifo = channel(&scan, 100, 8);
    let Kind::Fifo {
        path, fs, atime, ..
    } = &fifo.kind
    else {
        panic!("not a FIFO: {fifo:?}")
    };
    assert_eq!(
        (path.as_str(), fs.as_str(), atime.as_str()),
        (&*t.fifo.to_string_lossy(), "ext4", "relatime")
    );
    assert_eq!(fifo.peers, client(5));
    let want = format!(
        "fd 8, FIFO {} (ext4, relatime) with client (pid 200)",
        t.fifo.display()
    );
    assert_eq!(fifo.label(), want);
}

#[test]
fn anonymous_inodes_read_their_fdinfo() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let kinds: Vec<(&Kind, String)> = [10, 11, 13, 15, 16]
        .iter()
        .map(|&fd| {
            (
                &channel(&scan, 100, fd).kind,
                channel(&scan, 100, fd).label(),
            )
        })
        .collect();
    assert_eq!(
        kinds[0],
        (
            &Kind::Eventfd {
                count: Some(31),
                semaphore: Some(true)
            },
            "fd 10, eventfd (count 31, semaphore)".into()
        )
    );
    assert_eq!(
        kinds[1],
        (
            &Kind::Epoll {
                watched: vec![7, 10]
            },
            "fd 11, epoll watching 2 fds".into()
        )
    );
    assert_eq!(
        kinds[2],
        (
            &Kind::Other {
                target: "anon_inode:inotify".into()
            },
            "fd 13, inotify".into()
        )
    );
    assert_eq!(
        kinds[3],
        (
            &Kind::Signalfd {
                sigmask: "0000000000004000".into()
            },
            "fd 15, signalfd (mask 0000000000004000)".into()
        )
    );
    assert_eq!(kinds[4], (&Kind::Timerfd, "fd 16, timerfd".into()));
}

#[test]
fn sysv_queues_by_last_sender_or_receiver() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let queues: Vec<(i32, i32, i32, u64, u64, &str)> = scan
        .sysv_queues
        .iter()
        .map(|q| {
            (
                q.msqid,
                q.lspid,
                q.lrpid,
                q.qnum,
                q.cbytes,
                q.perms.as_str(),
            )
        })
        .collect();
    assert_eq!(
        queues,
        [(1, 100, 0, 2, 16, "600"), (2, 555, 100, 0, 0, "666")]
    );
    assert_eq!(scan.sysv_queues[1].key, 1234);
}

#[test]
fn shared_mappings_of_dev_shm_sysv_memfd_and_anonymous() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let maps: Vec<(ShmKind, &str, u64, bool)> = scan
        .shared_memory
        .iter()
        .map(|m| (m.kind, m.path.as_str(), m.size, m.shared))
        .collect();
    assert_eq!(
        maps,
        [
            (ShmKind::Posix, "/dev/shm/ring buffer", 0x1000, true),
            (ShmKind::Sysv, "/SYSV0000abcd (deleted)", 0x2000, true),
            (ShmKind::Memfd, "/memfd:buf (deleted)", 0x1000, true),
            (ShmKind::Anonymous, "/dev/zero (deleted)", 0x1000, true),
        ]
    );
    assert!(scan.shared_memory.iter().all(|m| m.pid == 100));
}

#[test]
fn the_json_is_flat_and_tagged() {
    let t = tree();
    let scan = scan_tree(&t, &[100]);
    let json = serde_json::to_value(channel(&scan, 100, 7)).expect("json");
    let want = serde_json::json!({
        "pid": 100, "fd": 7, "inode": 1234, "kind": "pipe", "readable": false, "writable": true,
        "peers": [{"pid": 200, "fd": 0, "comm": "client"}],
    });
    assert_eq!(json, want);
    let fifo = serde_json::to_value(channel(&scan, 100, 8)).expect("json");
    assert!(fifo.get("dev").is_none(), "{fifo}");
}
