//! Every poller against pipes: only written descriptors are reported, and
//! level- versus edge-triggered behave as they say.

use super::*;
use rustix::fd::OwnedFd;
use rustix::pipe::{pipe_with, PipeFlags};

fn pipes(n: usize) -> Vec<(OwnedFd, OwnedFd)> {
    (0..n)
        .map(|_| pipe_with(PipeFlags::NONBLOCK | PipeFlags::CLOEXEC).unwrap())
        .collect()
}

fn wait_now(set: &mut dyn PollSet<'_>) -> Vec<usize> {
    let mut ready = Vec::new();
    set.wait(&mut ready, Some(Duration::from_millis(200)))
        .unwrap();
    ready.sort();
    ready
}

#[test]
fn every_poller_reports_exactly_the_written_descriptors() {
    for poller in ALL.iter().filter(|p| p.support() == Support::Yes) {
        let p = pipes(5);
        let mut set = poller.open(p.len()).unwrap();
        for (i, (rx, _)) in p.iter().enumerate() {
            set.add(rx.as_fd(), 10 + i).unwrap();
        }
        rustix::io::write(&p[1].1, b"a").unwrap();
        rustix::io::write(&p[3].1, b"b").unwrap();
        assert_eq!(wait_now(&mut *set), vec![11, 13], "{}", poller.name());
        let mut byte = [0u8; 1];
        rustix::io::read(&p[1].0, &mut byte).unwrap();
        rustix::io::read(&p[3].0, &mut byte).unwrap();
        let mut ready = Vec::new();
        set.wait(&mut ready, Some(Duration::ZERO)).unwrap();
        assert!(ready.is_empty(), "{}: {ready:?}", poller.name());
    }
}

#[test]
fn level_triggered_repeats_and_edge_triggered_does_not() {
    for poller in ALL.iter().filter(|p| p.support() == Support::Yes) {
        let p = pipes(1);
        let mut set = poller.open(1).unwrap();
        set.add(p[0].0.as_fd(), 7).unwrap();
        rustix::io::write(&p[0].1, b"xy").unwrap();
        assert_eq!(wait_now(&mut *set), vec![7]);
        let mut byte = [0u8; 1];
        rustix::io::read(&p[0].0, &mut byte).unwrap();
        let mut again = Vec::new();
        set.wait(&mut again, Some(Duration::from_millis(50)))
            .unwrap();
        let expected = if set.edge_triggered() {
            vec![]
        } else {
            vec![7]
        };
        assert_eq!(again, expected, "{}", poller.name());
    }
}

#[test]
fn names_are_the_lists_and_find_finds_by_them() {
    assert_eq!(
        names(),
        ["select", "poll", "epoll-lt", "epoll-et", "io-uring"]
    );
    assert!(find("epoll-et").is_some() && find("kqueue").is_none());
}

use std::os::fd::AsFd;
