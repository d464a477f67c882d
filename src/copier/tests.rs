//! Every copier moves every byte, to a file and through a socket.

use super::*;
use rustix::fd::AsFd;
use std::io::{Read, Write};

const LEN: usize = 300 * 1024 + 17;

fn source() -> (File, Vec<u8>) {
    let data: Vec<u8> = (0..LEN).map(|i| (i * 7 + i / 4096) as u8).collect();
    let mut f = tempfile::tempfile().unwrap();
    f.write_all(&data).unwrap();
    (f, data)
}

const OPTS: CopyOpts = CopyOpts { buf: 4096 };

#[test]
fn names_are_the_lists_and_find_finds_by_them() {
    let all = [
        "read-write",
        "mmap-write",
        "sendfile",
        "splice",
        "copy-file-range",
        "io-uring",
    ];
    assert_eq!(names(), all);
    assert!(all.iter().all(|n| find(n).is_some_and(|c| c.name() == *n)));
    assert!(find("cp").is_none());
}

#[test]
fn every_copier_copies_a_file_into_a_file() {
    let (src, data) = source();
    for copier in ALL.iter().filter(|c| usable(**c, SinkKind::File).is_ok()) {
        let mut out = tempfile::tempfile().unwrap();
        let stats = copier.copy(&src, LEN as u64, out.as_fd(), &OPTS).unwrap();
        assert_eq!(stats.bytes, LEN as u64, "{}", copier.name());
        assert!(stats.syscalls >= 1, "{}", copier.name());
        let mut got = Vec::new();
        std::io::Seek::rewind(&mut out).unwrap();
        out.read_to_end(&mut got).unwrap();
        assert!(got == data, "{}: content differs", copier.name());
    }
}

#[test]
fn every_copier_but_copy_file_range_copies_into_a_socket() {
    let (src, data) = source();
    for copier in ALL.iter() {
        if usable(*copier, SinkKind::Socket).is_err() {
            assert_eq!(copier.name(), "copy-file-range");
            continue;
        }
        let (mut a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            a.read_to_end(&mut got).unwrap();
            got
        });
        let stats = copier.copy(&src, LEN as u64, b.as_fd(), &OPTS).unwrap();
        drop(b);
        assert_eq!(stats.bytes, LEN as u64, "{}", copier.name());
        assert!(
            reader.join().unwrap() == data,
            "{}: content differs",
            copier.name()
        );
    }
}

#[test]
fn read_write_makes_a_read_and_a_write_per_buffer() {
    let (src, _) = source();
    let out = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    let stats = find("read-write")
        .unwrap()
        .copy(&src, LEN as u64, out.as_fd(), &OPTS)
        .unwrap();
    assert_eq!(stats.syscalls, 2 * LEN.div_ceil(4096) as u64);
}
