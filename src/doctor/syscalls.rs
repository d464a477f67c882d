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
    /// A success returns a new descriptor (accept, openat, dup...): the
    /// number it returns names another object from then on.
    pub(crate) opens: bool,
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
        opens: false,
    }
}

/// A call whose success is a new descriptor.
const fn opens(name: &'static str, on_fd: bool) -> Syscall {
    Syscall {
        opens: true,
        ..call(name, on_fd, false, Other)
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
    (257, opens("openat", false)),
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
    (43, opens("accept", true)),
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
    (288, opens("accept4", true)),
    (299, call("recvmmsg", true, false, In)),
    (307, call("sendmmsg", true, false, Out)),
    (426, call("io_uring_enter", true, false, Wait)),
    (2, opens("open", false)),
    (4, call("stat", false, false, Other)),
    (6, call("lstat", false, false, Other)),
    (10, call("mprotect", false, false, Other)),
    (12, call("brk", false, false, Other)),
    (15, call("rt_sigreturn", false, false, Other)),
    (21, call("access", false, false, Other)),
    (22, call("pipe", false, false, Other)),
    (28, call("madvise", false, false, Other)),
    (32, opens("dup", true)),
    (33, opens("dup2", true)),
    (41, opens("socket", false)),
    (48, call("shutdown", true, false, Other)),
    (49, call("bind", true, false, Other)),
    (50, call("listen", true, false, Other)),
    (51, call("getsockname", true, false, Other)),
    (52, call("getpeername", true, false, Other)),
    (53, call("socketpair", false, false, Other)),
    (54, call("setsockopt", true, false, Other)),
    (55, call("getsockopt", true, false, Other)),
    (57, call("fork", false, false, Other)),
    (58, call("vfork", false, false, Other)),
    (59, call("execve", false, false, Other)),
    (60, call("exit", false, false, Other)),
    (62, call("kill", false, false, Other)),
    (63, call("uname", false, false, Other)),
    (74, call("fsync", true, false, Other)),
    (75, call("fdatasync", true, false, Other)),
    (77, call("ftruncate", true, false, Other)),
    (79, call("getcwd", false, false, Other)),
    (85, opens("creat", false)),
    (87, call("unlink", false, false, Other)),
    (89, call("readlink", false, false, Other)),
    (96, call("gettimeofday", false, false, Other)),
    (98, call("getrusage", false, false, Other)),
    (102, call("getuid", false, false, Other)),
    (107, call("geteuid", false, false, Other)),
    (110, call("getppid", false, false, Other)),
    (128, call("rt_sigtimedwait", false, false, Wait)),
    (131, call("sigaltstack", false, false, Other)),
    (138, call("fstatfs", true, false, Other)),
    (157, call("prctl", false, false, Other)),
    (186, call("gettid", false, false, Other)),
    (203, call("sched_setaffinity", false, false, Other)),
    (204, call("sched_getaffinity", false, false, Other)),
    (213, opens("epoll_create", false)),
    (217, call("getdents64", true, false, Other)),
    (221, call("fadvise64", true, false, Other)),
    (231, call("exit_group", false, false, Other)),
    (233, call("epoll_ctl", true, false, Other)),
    (234, call("tgkill", false, false, Other)),
    (263, call("unlinkat", false, false, Other)),
    (273, call("set_robust_list", false, false, Other)),
    (283, opens("timerfd_create", false)),
    (284, opens("eventfd", false)),
    (289, opens("signalfd4", true)),
    (290, opens("eventfd2", false)),
    (291, opens("epoll_create1", false)),
    (292, opens("dup3", true)),
    (293, call("pipe2", false, false, Other)),
    (294, opens("inotify_init1", false)),
    (295, call("preadv", true, true, In)),
    (296, call("pwritev", true, true, Out)),
    (302, call("prlimit64", false, false, Other)),
    (319, opens("memfd_create", false)),
    (326, call("copy_file_range", true, true, In)),
    (327, call("preadv2", true, true, In)),
    (328, call("pwritev2", true, true, Out)),
    (332, call("statx", false, false, Other)),
    (334, call("rseq", false, false, Other)),
    (425, call("io_uring_setup", false, false, Other)),
    (434, opens("pidfd_open", false)),
    (435, call("clone3", false, false, Other)),
    (436, call("close_range", false, false, Other)),
    (437, opens("openat2", false)),
    (439, call("faccessat2", false, false, Other)),
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
    (56, opens("openat", false)),
    (86, call("timerfd_settime", true, false, Other)),
    (79, call("newfstatat", false, false, Other)),
    (278, call("getrandom", false, false, Other)),
    (67, call("pread64", true, true, In)),
    (68, call("pwrite64", true, true, Out)),
    (65, call("readv", true, true, In)),
    (66, call("writev", true, true, Out)),
    (71, call("sendfile", true, true, Out)),
    (202, opens("accept", true)),
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
    (242, opens("accept4", true)),
    (243, call("recvmmsg", true, false, In)),
    (269, call("sendmmsg", true, false, Out)),
    (426, call("io_uring_enter", true, false, Wait)),
    (19, opens("eventfd2", false)),
    (20, opens("epoll_create1", false)),
    (21, call("epoll_ctl", true, false, Other)),
    (23, opens("dup", true)),
    (24, opens("dup3", true)),
    (26, opens("inotify_init1", false)),
    (44, call("fstatfs", true, false, Other)),
    (46, call("ftruncate", true, false, Other)),
    (59, call("pipe2", false, false, Other)),
    (61, call("getdents64", true, false, Other)),
    (69, call("preadv", true, true, In)),
    (70, call("pwritev", true, true, Out)),
    (74, opens("signalfd4", true)),
    (82, call("fsync", true, false, Other)),
    (83, call("fdatasync", true, false, Other)),
    (85, opens("timerfd_create", false)),
    (93, call("exit", false, false, Other)),
    (94, call("exit_group", false, false, Other)),
    (99, call("set_robust_list", false, false, Other)),
    (129, call("kill", false, false, Other)),
    (131, call("tgkill", false, false, Other)),
    (139, call("rt_sigreturn", false, false, Other)),
    (160, call("uname", false, false, Other)),
    (167, call("prctl", false, false, Other)),
    (178, call("gettid", false, false, Other)),
    (198, opens("socket", false)),
    (199, call("socketpair", false, false, Other)),
    (200, call("bind", true, false, Other)),
    (201, call("listen", true, false, Other)),
    (204, call("getsockname", true, false, Other)),
    (205, call("getpeername", true, false, Other)),
    (208, call("setsockopt", true, false, Other)),
    (209, call("getsockopt", true, false, Other)),
    (210, call("shutdown", true, false, Other)),
    (214, call("brk", false, false, Other)),
    (221, call("execve", false, false, Other)),
    (226, call("mprotect", false, false, Other)),
    (233, call("madvise", false, false, Other)),
    (261, call("prlimit64", false, false, Other)),
    (279, opens("memfd_create", false)),
    (285, call("copy_file_range", true, true, In)),
    (291, call("statx", false, false, Other)),
    (293, call("rseq", false, false, Other)),
    (434, opens("pidfd_open", false)),
    (435, call("clone3", false, false, Other)),
    (436, call("close_range", false, false, Other)),
    (437, opens("openat2", false)),
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

/// The errors a failed call is counted by, by name (`errno N` else).
const ERRORS: &[(i32, &str)] = &[
    (libc::EAGAIN, "EAGAIN"),
    (libc::EINTR, "EINTR"),
    (libc::EPIPE, "EPIPE"),
    (libc::ECONNRESET, "ECONNRESET"),
    (libc::ECONNREFUSED, "ECONNREFUSED"),
    (libc::ENOTCONN, "ENOTCONN"),
    (libc::EINPROGRESS, "EINPROGRESS"),
    (libc::ETIMEDOUT, "ETIMEDOUT"),
    (libc::EBADF, "EBADF"),
    (libc::EINVAL, "EINVAL"),
    (libc::ENOENT, "ENOENT"),
    (libc::EEXIST, "EEXIST"),
    (libc::EACCES, "EACCES"),
    (libc::EPERM, "EPERM"),
    (libc::ENOTTY, "ENOTTY"),
    (libc::ESPIPE, "ESPIPE"),
    (libc::ENOSYS, "ENOSYS"),
    (libc::EMFILE, "EMFILE"),
    (libc::ENOTSOCK, "ENOTSOCK"),
    (libc::ECHILD, "ECHILD"),
    (libc::EFAULT, "EFAULT"),
    (libc::ENOMEM, "ENOMEM"),
    (libc::EADDRINUSE, "EADDRINUSE"),
    (libc::EOPNOTSUPP, "EOPNOTSUPP"),
    // The kernel's own: the call is restarted after a signal handler.
    (512, "ERESTARTSYS"),
    (514, "ERESTARTNOHAND"),
    (516, "ERESTART_RESTARTBLOCK"),
];

/// The name of error `errno` (EAGAIN...), or `errno N`.
pub(crate) fn error_name(errno: i32) -> String {
    ERRORS
        .iter()
        .find(|(n, _)| *n == errno)
        .map_or_else(|| format!("errno {errno}"), |(_, name)| name.to_string())
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
        assert_eq!(error_name(libc::EAGAIN), "EAGAIN");
        assert_eq!(error_name(4000), "errno 4000");
    }
}
