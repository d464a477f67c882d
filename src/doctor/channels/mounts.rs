//! `/proc/PID/mountinfo` (proc(5)): the file system type and the atime
//! mode of the mount a FIFO or an mqueue descriptor lives on, looked up by
//! the `mnt_id` of its fdinfo.

use std::collections::HashMap;

/// What the scan needs of one mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mount {
    pub(super) fs: String,
    /// noatime, relatime or strictatime, with ",nodiratime" when set.
    pub(super) atime: String,
}

/// Mount id to mount, from the text of a mountinfo file.
pub(super) fn parse(text: &str) -> HashMap<u64, Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// `36 35 98:0 /root /point rw,noatime master:1 - ext3 /dev/root rw`.
fn parse_line(line: &str) -> Option<(u64, Mount)> {
    let (before, after) = line.split_once(" - ")?;
    let fields: Vec<&str> = before.split_whitespace().collect();
    let id = fields.first()?.parse().ok()?;
    let options = fields.get(5)?;
    let fs = after.split_whitespace().next()?.to_string();
    Some((
        id,
        Mount {
            fs,
            atime: atime_mode(options),
        },
    ))
}

/// The atime mode the per-mount options select.
pub(super) use crate::scenario::common::testfile::atime_mode;
