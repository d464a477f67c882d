//! Which kernel object each traced call acted on. A descriptor number is
//! reused (a server's fd 5 is one connection after another), so a call is
//! keyed by the object behind its descriptor at the time: the descriptor
//! tables read just before a window opens and just after it closes, and
//! the closes and the accepts, opens and dups inside the window that end
//! one object's run on a number and begin another's. A run that both
//! began and ended inside one window is left unnamed (its object was never
//! in a table).

use super::calls::{Analysis, Call};
use super::channels::{bracketed, Kind};
use std::collections::HashMap;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

/// What a descriptor pointed at when a table was read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Object {
    pub(crate) inode: u64,
    /// The link text: `socket:[N]`, `pipe:[N]` or a path.
    pub(crate) link: String,
    pub(crate) file: bool,
}

impl Object {
    /// The channel kind of an object no scan described: a regular file's
    /// I/O, or a socket or pipe that was gone before the next scan.
    pub(crate) fn kind(&self) -> Kind {
        match self.file {
            true => Kind::File {
                path: self.link.clone(),
            },
            false => Kind::Other {
                target: self.link.clone(),
            },
        }
    }
}

/// Each process's descriptors: pid, then fd.
pub(crate) type Tables = HashMap<i32, HashMap<i32, Object>>;

/// The descriptor tables of `pids` now (sockets, pipes, FIFOs, regular
/// files and devices; anonymous inodes share one inode and stay keyed by
/// number).
pub(crate) fn read_tables(pids: &[i32]) -> Tables {
    pids.iter().map(|&pid| (pid, read_table(pid))).collect()
}

fn read_table(pid: i32) -> HashMap<i32, Object> {
    let dir = format!("/proc/{pid}/fd");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return HashMap::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let fd: i32 = e.file_name().to_str()?.parse().ok()?;
            Some((fd, object(&e.path())?))
        })
        .collect()
}

fn object(path: &std::path::Path) -> Option<Object> {
    let link = std::fs::read_link(path)
        .ok()?
        .to_string_lossy()
        .into_owned();
    let inode = bracketed(&link, "socket:").or_else(|| bracketed(&link, "pipe:"));
    if let Some(inode) = inode {
        return Some(Object {
            inode,
            link,
            file: false,
        });
    }
    if !link.starts_with('/') {
        return None;
    }
    // Following the descriptor's link reaches the object, not a path that
    // may have been replaced; stat never opens it.
    let meta = std::fs::metadata(path).ok()?;
    let ty = meta.file_type();
    // A device (/dev/zero, /dev/null) is file I/O too.
    let file = ty.is_file() || ty.is_char_device() || ty.is_block_device();
    (file || ty.is_fifo()).then(|| Object {
        inode: meta.ino(),
        link,
        file,
    })
}

/// A descriptor number's runs inside one window: run 0 is the object of
/// the table before; a close ends a run, a call returning the number
/// begins the next.
#[derive(Default)]
struct Runs {
    run: usize,
    closed: bool,
    /// The call that began the current run, when one in the window did.
    opener: Option<i64>,
}

/// Where the ids of runs never in a table start: far above any inode.
const UNTABLED: u64 = 1 << 62;

/// A run that began and ended inside one window: an object of its own,
/// named by the call that opened it.
fn untabled(opener: Option<i64>, fd: i32, next: &mut u64) -> Object {
    *next += 1;
    let by = opener.map_or_else(|| "?".to_string(), super::syscalls::name);
    Object {
        inode: *next,
        link: format!("fd {fd} from {by}, opened and closed inside one traced window"),
        file: false,
    }
}

/// Names the object of every call (and of the wake-ups and CPU samples
/// inside them) of one window, from the tables `before` and `after` it;
/// returns the objects of the runs that were in neither table, by process
/// (their ids count on from `next`).
pub(crate) fn resolve(
    found: &mut Analysis,
    pid_of: &dyn Fn(i32) -> Option<i32>,
    before: &Tables,
    after: &Tables,
    next: &mut u64,
) -> Vec<(i32, Object)> {
    let (runs, last) = assign_runs(&found.calls, pid_of);
    let inode = |t: &Tables, pid: i32, fd: i32| t.get(&pid)?.get(&fd).map(|o| o.inode);
    let mut by_call: HashMap<(i32, u64), u64> = HashMap::new();
    let mut inside: HashMap<(i32, i32, usize), Object> = HashMap::new();
    *next = (*next).max(UNTABLED);
    for (call, run) in found.calls.iter_mut().zip(runs) {
        let Some((pid, fd, run, opener)) = run else {
            continue;
        };
        let open_at_end = last
            .get(&(pid, fd))
            .is_some_and(|r| r.run == run && !r.closed);
        let first = (run == 0).then(|| inode(before, pid, fd)).flatten();
        call.object = first.or_else(|| open_at_end.then(|| inode(after, pid, fd)).flatten());
        if call.object.is_none() && opener.is_some() {
            let object = inside
                .entry((pid, fd, run))
                .or_insert_with(|| untabled(opener, fd, next));
            call.object = Some(object.inode);
        }
        if let Some(object) = call.object {
            by_call.insert((call.tid, call.start), object);
        }
    }
    for w in &mut found.wakes {
        w.object = w
            .call_start
            .and_then(|s| by_call.get(&(w.waker, s)).copied());
    }
    for t in &mut found.ticks {
        t.object = t.call_start.and_then(|s| by_call.get(&(t.tid, s)).copied());
    }
    inside
        .into_iter()
        .map(|((pid, ..), object)| (pid, object))
        .collect()
}

/// Each call's process, descriptor, run on it and the call that began the
/// run (when one in the window did), in the order they began; and where
/// each descriptor's runs ended.
#[allow(clippy::type_complexity)]
fn assign_runs(
    calls: &[Call],
    pid_of: &dyn Fn(i32) -> Option<i32>,
) -> (
    Vec<Option<(i32, i32, usize, Option<i64>)>>,
    HashMap<(i32, i32), Runs>,
) {
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by_key(|&i| calls[i].start);
    let mut state: HashMap<(i32, i32), Runs> = HashMap::new();
    let mut out = vec![None; calls.len()];
    for i in order {
        let c = &calls[i];
        let Some(pid) = pid_of(c.tid) else {
            continue;
        };
        if let Some(fd) = c.fd {
            let r = state.entry((pid, fd)).or_default();
            if r.closed {
                r.run += 1;
                r.closed = false;
                r.opener = None;
            }
            out[i] = Some((pid, fd, r.run, r.opener));
            r.closed = c.error.is_none() && super::syscalls::name(c.nr) == "close";
        }
        if let Some(fd) = c.opened {
            let r = state.entry((pid, fd)).or_default();
            r.run += 1;
            r.closed = false;
            r.opener = Some(c.nr);
        }
    }
    (out, state)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::doctor::syscalls::Direction;

    const CLOSE: i64 = 3;
    const SENDFILE: i64 = 40;
    const ACCEPT4: i64 = 288;

    fn call(start: u64, nr: i64, fd: i32, opened: Option<i32>) -> Call {
        Call {
            tid: 7,
            nr,
            start,
            fd: Some(fd),
            object: None,
            bytes: None,
            error: None,
            opened,
            direction: Direction::Other,
            total_ns: 1,
            blocked_ns: 0,
            preempted_ns: 0,
        }
    }

    fn table(fd: i32, inode: u64) -> Tables {
        let object = Object {
            inode,
            link: format!("socket:[{inode}]"),
            file: false,
        };
        HashMap::from([(70, HashMap::from([(fd, object)]))])
    }

    #[test]
    fn a_reused_descriptor_names_each_connection_and_not_the_one_between() {
        let mut found = Analysis {
            calls: vec![
                call(10, SENDFILE, 5, None),
                call(20, CLOSE, 5, None),
                call(30, ACCEPT4, 4, Some(5)),
                call(40, SENDFILE, 5, None),
                call(50, CLOSE, 5, None),
                call(60, ACCEPT4, 4, Some(5)),
                call(70, SENDFILE, 5, None),
            ],
            ..Analysis::default()
        };
        let mut next = 0;
        let inside = resolve(
            &mut found,
            &|_| Some(70),
            &table(5, 100),
            &table(5, 300),
            &mut next,
        );
        let objects: Vec<Option<u64>> = found.calls.iter().map(|c| c.object).collect();
        let between = UNTABLED + 1;
        assert_eq!(
            objects,
            [
                Some(100),
                Some(100),
                None,
                Some(between),
                Some(between),
                None,
                Some(300)
            ],
            "the listening socket (fd 4) is in neither table; the connection in between is one of its own"
        );
        assert_eq!(inside.len(), 1);
        assert_eq!(inside[0].0, 70);
        assert!(inside[0].1.link.contains("accept4"), "{:?}", inside[0]);
    }
}
