//! The claims the `probe` scenario's one-shot observations settle: each
//! reads one check's observations (the call made, the kernel's answer)
//! through its judge in `probed/`. Rows of `docs/claims.md` marked
//! *myth?* keep the original's statement; the kernel's answer decides.

use crate::claims::kernel::Evidence;
use crate::claims::observed::Judge;
use crate::claims::probed::{e1, e3, e4_sendfile, e4_tcp, e5_epoll, e5_select};
use crate::claims::rules::Rule;
use crate::claims::Claim;

/// The smallest effect: a kernel's answer is a yes or a no, and the one
/// figure weighed (E5-epoll-ctl-constant) is judged as E5-epoll-flat is.
const ANSWER: f64 = 0.2;

const fn observed(
    id: &'static str,
    source: &'static str,
    check: &'static str,
    judge: Judge,
    form: &'static str,
    sentence: &'static str,
    original: &'static str,
) -> Claim {
    Claim {
        id,
        source,
        sentence,
        original,
        scenario: "probe",
        rule: Rule::Observed { check, judge, form },
        resolve: ANSWER,
        kernel: Evidence::None,
    }
}

const TIMESTAMP: &str =
    "whether fstat's timestamp moved across one call more than a timestamp tick apart: \
     the kernel's answer, machine-independent";
const ANSWERED: &str = "the kernel's answer to one call: machine-independent";
const COUNTED: &str = "a count the kernel reports: machine-independent";

pub(super) static PROBE: &[Claim] = &[
    observed(
        "E1-pipe-read-atime", "E1", "pipe-read-atime", e1::pipe_read_atime, TIMESTAMP,
        "reading a pipe updates its access time, like any file",
        "everything in Unix is a file, so reading a pipe sets its last access time too: pipe_read calls file_accessed, touch_atime (Linux 2.6); oprofile of 10M one-byte messages shows touch_atime",
    ),
    observed(
        "E1-writer-mtime", "E1", "writer-mtime", e1::writer_mtime, TIMESTAMP,
        "the writer still pays for file_update_time with O_NOATIME set",
        "with O_NOATIME on the read end touch_atime vanished from oprofile, while file_update_time stayed (0.34% of samples before, 0.42% after)",
    ),
    observed(
        "E3-pipe-16-pages", "E3", "pipe-16-pages", e3::pipe_16_pages,
        "the bytes a pipe takes before EAGAIN and F_GETPIPE_SZ, in pages of this system: machine-independent",
        "a pipe buffer is 16 pages",
        "pipe_inode_info manages at most 16 buffers, each one page",
    ),
    observed(
        "E4-cork-nodelay-exclusive", "E4", "cork-nodelay-exclusive", e4_tcp::cork_nodelay_exclusive,
        "setsockopt and getsockopt of both options, in either order: the kernel's answer, machine-independent",
        "TCP_CORK and TCP_NODELAY are mutually exclusive",
        "the appended article: TCP_CORK and TCP_NODELAY are mutually exclusive; the post itself: the man page has long allowed combining them",
    ),
    observed(
        "E4-nodelay-beats-cork", "E4", "nodelay-beats-cork", e4_tcp::nodelay_beats_cork,
        "whether the peer can read a write at once (under 20 ms) or only after the cork's 200 ms timer (100 ms or more): a kernel timer, far from a loopback delivery on any machine",
        "with TCP_NODELAY set, packets go out at once whatever TCP_CORK says",
        "once TCP_NODELAY is set, packets are sent immediately whether TCP_CORK is set or not",
    ),
    observed(
        "E4-cork-merges-header", "E4", "cork-merges-header", e4_tcp::cork_merges_header,
        "data segments counted by the kernel (TCP_INFO) over an Ethernet-sized veth link against the fewest its MSS allows: machine-independent",
        "with cork a header and the file leave in shared segments; with NODELAY the header goes alone",
        "with TCP_NODELAY the header's packet goes out at once, alone; with TCP_CORK the header is filled up with the data and everything leaves in full packets",
    ),
    observed(
        "E4-mss-1448", "E4", "mss-1448", e4_tcp::mss_1448,
        "the MSS the kernel chose (TCP_INFO) over a link with Ethernet's 1500-byte MTU: set by the link and TCP's options, machine-independent",
        "the payload per segment is at most 1448 bytes",
        "ethereal showed each TCP packet's payload at most 1448 bytes in every setup (100 Mbit LAN)",
    ),
    observed(
        "E4-sendfile-offset", "E4", "sendfile-offset", e4_sendfile::sendfile_offset, ANSWERED,
        "the caller must advance the offset by the return value itself",
        "when calling sendfile in a loop, the next offset should be its return value plus this call's offset",
    ),
    observed(
        "E4-sendfile-whole-file", "E4", "sendfile-whole-file", e4_sendfile::sendfile_whole_file, COUNTED,
        "one sendfile of the file's size sends the whole file",
        "sendfile(sockfd, fd, &offset, filestat.st_size): one call for files of 9-64 MB",
    ),
    observed(
        "E5-fd-setsize", "E5", "fd-setsize", e5_select::fd_setsize,
        "a constant of the C library: machine-independent",
        "FD_SETSIZE is 2048 by default (the post also says 1024)",
        "the epoll section: FD_SETSIZE defaults to 2048; the select section: in Linux this value is 1024",
    ),
    observed(
        "E5-select-needs-rebuild", "E5", "select-needs-rebuild", e5_select::select_needs_rebuild, ANSWERED,
        "more than FD_SETSIZE descriptors in select needs a kernel rebuild",
        "to watch more descriptors, change the macro and recompile the kernel (at some loss of network efficiency), or use several processes",
    ),
    observed(
        "E5-epoll-mmap", "E5", "epoll-mmap", e5_epoll::epoll_mmap, ANSWERED,
        "epoll passes events through memory shared with user space by mmap",
        "epoll avoids copies by mapping the same memory in the kernel and in user space; whoever followed epoll since 2.5 remembers the manual mmap step",
    ),
    observed(
        "E5-et-one-notice", "E5", "et-one-notice", e5_epoll::et_one_notice, COUNTED,
        "under ET no new notice comes until the descriptor was drained; ET needs non-blocking fds",
        "ET supports only non-blocking sockets; the kernel tells you once when a descriptor becomes ready and sends no more notices until something made it not ready (EWOULDBLOCK)",
    ),
    observed(
        "E5-epoll-ctl-constant", "E5", "epoll-ctl-constant", e5_epoll::epoll_ctl_constant,
        "the shape of one sweep within the run (ns per add at the largest registered count over the smallest, flat within 1.5x, not from 2x): it reads the same on a faster or slower machine",
        "adding a descriptor to epoll costs the same however many are registered",
        "each epoll_ctl handles one descriptor (ep_insert), so it can be seen as an O(1) operation",
    ),
    observed(
        "E5-fd-limit-memory", "E5", "fd-limit-memory", e5_select::fd_limit_memory,
        "the kernel's limits against this machine's memory: a ratio per GiB, and which limit is lowest",
        "epoll's limit is the open-file maximum, about 100,000 per GB of memory",
        "epoll's limit is the maximum number of open files, far above 2048: about 100,000 on a machine with 1 GB of memory (cat /proc/sys/fs/file-max)",
    ),
];
