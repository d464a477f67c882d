//! System V message queues (`/proc/sysvipc/msg`, proc(5)): no descriptor
//! names them, so a queue belongs to the scan when one of the scanned
//! processes was its last sender (lspid) or receiver (lrpid).

use super::types::SysvQueue;

/// The rows of the table whose lspid or lrpid is in `pids`.
pub(super) fn parse(text: &str, pids: &[i32]) -> Vec<SysvQueue> {
    text.lines()
        .skip(1)
        .filter_map(row)
        .filter(|q| pids.contains(&q.lspid) || pids.contains(&q.lrpid))
        .collect()
}

/// `key msqid perms cbytes qnum lspid lrpid uid gid cuid cgid stime rtime ctime`.
fn row(line: &str) -> Option<SysvQueue> {
    let f: Vec<&str> = line.split_whitespace().collect();
    Some(SysvQueue {
        key: f.first()?.parse().ok()?,
        msqid: f.get(1)?.parse().ok()?,
        perms: f.get(2)?.to_string(),
        cbytes: f.get(3)?.parse().ok()?,
        qnum: f.get(4)?.parse().ok()?,
        lspid: f.get(5)?.parse().ok()?,
        lrpid: f.get(6)?.parse().ok()?,
        uid: f.get(7)?.parse().ok()?,
    })
}
