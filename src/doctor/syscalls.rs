//! The system calls doctor names, by this architecture's numbers: which
//! ones act on a descriptor (their first argument) and which move bytes
//! (their result). A number not listed is named `syscall N`.

/// What doctor knows of one system call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Syscall {
    pub(crate) name: &'static str,
    /// The first argument is a descriptor.
    pub(crate) on_fd: bool,
    /// The result is a byte count (reads and writes).
    pub(crate) moves_bytes: bool,
    /// Which way bytes go, for the channel's direction.
    pub(crate) direction: Direction,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Direction {
    In,
    Out,
    Wait,
    #[default]
    Other,
}

use Direction::{In, Other, Out, Wait};

const fn call(name: &'static str, on_fd: bool, moves_bytes: bool, direction: Direction) -> Syscall {
    Syscall {
        name,
        on_fd,
        moves_bytes,
        direction,
    }
}

#[cfg(target_arch = "x86_64")]
const TABLE: &[(i64, Syscall)] = &[
    (0, call("read", true, true, In)),
    (1, call("write", true, true, Out)),
    (3, call("close", true, false, Other)),
    (5, call("fstat", true, false, Other)),
    (8, call("lseek", true, false, Other)),
    (9, call("mmap", false, false, Other)),
    (11, call("munmap", false, false, Other)),
    (13, call("rt_sigaction", false, false, Other)),
    (14, call("rt_sigprocmask", false, false, Other)),
    (16, call("ioctl", true, false, Other)),
    (24, call("sched_yield", false, false, Other)),
    (35, call("nanosleep", false, false, Wait)),
    (39, call("getpid", false, false, Other)),
    (56, call("clone", false, false, Other)),
    (61, call("wait4", false, false, Wait)),
    (72, call("fcntl", true, false, Other)),
    (228, call("clock_gettime", false, false, Other)),
    (230, call("clock_nanosleep", false, false, Wait)),
    (257, call("openat", false, false, Other)),
    (262, call("newfstatat", false, false, Other)),
    (286, call("timerfd_settime", true, false, Other)),
    (318, call("getrandom", false, false, Other)),
    (7, call("poll", false, false, Wait)),
    (17, call("pread64", true, true, In)),
    (18, call("pwrite64", true, true, Out)),
    (19, call("readv", true, true, In)),
    (20, call("writev", true, true, Out)),
    (23, call("select", false, false, Wait)),
    (40, call("sendfile", true, true, Out)),
    (43, call("accept", true, false, Other)),
    (42, call("connect", true, false, Other)),
    (44, call("sendto", true, true, Out)),
    (45, call("recvfrom", true, true, In)),
    (46, call("sendmsg", true, true, Out)),
    (47, call("recvmsg", true, true, In)),
    (69, call("msgsnd", false, false, Out)),
    (70, call("msgrcv", false, true, In)),
    (202, call("futex", false, false, Wait)),
    (232, call("epoll_wait", true, false, Wait)),
    (242, call("mq_timedsend", true, false, Out)),
    (243, call("mq_timedreceive", true, true, In)),
    (270, call("pselect6", false, false, Wait)),
    (271, call("ppoll", false, false, Wait)),
    (275, call("splice", true, true, Out)),
    (278, call("vmsplice", true, true, Out)),
    (281, call("epoll_pwait", true, false, Wait)),
    (288, call("accept4", true, false, Other)),
    (299, call("recvmmsg", true, false, In)),
    (307, call("sendmmsg", true, false, Out)),
    (426, call("io_uring_enter", true, false, Wait)),
    (441, call("epoll_pwait2", true, false, Wait)),
];

#[cfg(target_arch = "aarch64")]
const TABLE: &[(i64, Syscall)] = &[
    (63, call("read", true, true, In)),
    (64, call("write", true, true, Out)),
    (57, call("close", true, false, Other)),
    (80, call("fstat", true, false, Other)),
    (62, call("lseek", true, false, Other)),
    (222, call("mmap", false, false, Other)),
    (215, call("munmap", false, false, Other)),
    (134, call("rt_sigaction", false, false, Other)),
    (135, call("rt_sigprocmask", false, false, Other)),
    (29, call("ioctl", true, false, Other)),
    (124, call("sched_yield", false, false, Other)),
    (101, call("nanosleep", false, false, Wait)),
    (172, call("getpid", false, false, Other)),
    (220, call("clone", false, false, Other)),
    (260, call("wait4", false, false, Wait)),
    (25, call("fcntl", true, false, Other)),
    (113, call("clock_gettime", false, false, Other)),
    (115, call("clock_nanosleep", false, false, Wait)),
    (56, call("openat", false, false, Other)),
    (86, call("timerfd_settime", true, false, Other)),
    (79, call("newfstatat", false, false, Other)),
    (278, call("getrandom", false, false, Other)),
    (67, call("pread64", true, true, In)),
    (68, call("pwrite64", true, true, Out)),
    (65, call("readv", true, true, In)),
    (66, call("writev", true, true, Out)),
    (71, call("sendfile", true, true, Out)),
    (202, call("accept", true, false, Other)),
    (203, call("connect", true, false, Other)),
    (206, call("sendto", true, true, Out)),
    (207, call("recvfrom", true, true, In)),
    (211, call("sendmsg", true, true, Out)),
    (212, call("recvmsg", true, true, In)),
    (189, call("msgsnd", false, false, Out)),
    (188, call("msgrcv", false, true, In)),
    (98, call("futex", false, false, Wait)),
    (182, call("mq_timedsend", true, false, Out)),
    (183, call("mq_timedreceive", true, true, In)),
    (72, call("pselect6", false, false, Wait)),
    (73, call("ppoll", false, false, Wait)),
    (76, call("splice", true, true, Out)),
    (75, call("vmsplice", true, true, Out)),
    (22, call("epoll_pwait", true, false, Wait)),
    (242, call("accept4", true, false, Other)),
    (243, call("recvmmsg", true, false, In)),
    (269, call("sendmmsg", true, false, Out)),
    (426, call("io_uring_enter", true, false, Wait)),
    (441, call("epoll_pwait2", true, false, Wait)),
];

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const TABLE: &[(i64, Syscall)] = &[];

/// The call numbered `nr`, if doctor knows it.
pub(crate) fn lookup(nr: i64) -> Option<Syscall> {
    TABLE.iter().find(|(n, _)| *n == nr).map(|(_, s)| *s)
}

/// The call's name, or `syscall N`.
pub(crate) fn name(nr: i64) -> String {
    lookup(nr).map_or_else(|| format!("syscall {nr}"), |s| s.name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_listed_once_and_read_write_act_on_descriptors() {
        let mut numbers: Vec<i64> = TABLE.iter().map(|(n, _)| *n).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), TABLE.len());
        let read = TABLE.iter().find(|(_, s)| s.name == "read").unwrap().1;
        assert!(read.on_fd && read.moves_bytes);
        assert_eq!(read.direction, Direction::In);
        assert_eq!(name(-5), "syscall -5");
    }
}
