//! Whether this machine can hold the buffers a case makes from the user's
//! sizes. A message size or copier buffer beyond what memory can hold is
//! refused while planning (exit 2), instead of failing an allocation in the
//! middle of a run.

use super::Point;
use crate::env::memory_text;
use crate::error::{UsageError, UsageResult};
use crate::mechanism::SIZE;
use crate::scenario::common::copier_params::BUF;
use crate::scenario::Value;

/// The parameters that size a buffer held in memory, with how many buffers
/// of that size a case holds at once: a message `size` makes a payload
/// template and message buffers on both sides (pingpong 3 + 2, stream
/// 2 + 2), a copier one `buf`. (`bytes` is an amount moved and `file-size`
/// a file on disk: neither is held in memory.)
const BUFFERS: &[(&str, u64)] = &[(SIZE.name, 5), (BUF.name, 1)];

/// The most one case's buffers may take: a share of MemAvailable, leaving
/// the rest to the kernel's buffers, the page cache and other processes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limit {
    pub(crate) available: u64,
}

impl Limit {
    /// This machine's, or None when /proc/meminfo cannot say.
    pub(crate) fn here() -> Option<Limit> {
        crate::env::mem_available().map(|available| Limit { available })
    }

    fn bytes(&self) -> u64 {
        self.available / 2
    }
}

/// Refuses a point whose buffers need more than `limit`.
pub(crate) fn check(point: &Point, limit: &Limit) -> UsageResult<()> {
    for &(name, copies) in BUFFERS {
        let Some(Value::Int(size)) = point.get(name) else {
            continue;
        };
        let needed = size.saturating_mul(copies);
        if needed > limit.bytes() {
            let buffers = match copies {
                1 => "1 buffer".to_string(),
                n => format!("{n} buffers"),
            };
            return Err(UsageError::new(format!(
                "{name} {size} is more than this machine can allocate: a case holds {buffers} \
                 of that size ({}), at most {} (half of MemAvailable, {})",
                memory_text(needed),
                memory_text(limit.bytes()),
                memory_text(limit.available),
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn point(name: &'static str, size: u64) -> Point {
        Point::from([(name, Value::Int(size))])
    }

    #[test]
    fn message_sizes_count_five_buffers_against_half_of_what_is_available() {
        let limit = Limit {
            available: 10 * GIB,
        };
        assert!(check(&point("size", GIB), &limit).is_ok());
        let err = check(&point("size", 99 * GIB), &limit).unwrap_err().0;
        assert_eq!(
            err,
            "size 106300440576 is more than this machine can allocate: a case holds 5 buffers \
             of that size (495.0 GiB), at most 5.0 GiB (half of MemAvailable, 10.0 GiB)"
        );
    }

    #[test]
    fn a_copier_buffer_is_one_buffer_and_other_sizes_are_not_buffers() {
        let limit = Limit {
            available: 10 * GIB,
        };
        assert!(check(&point("buf", 5 * GIB), &limit).is_ok());
        let err = check(&point("buf", 6 * GIB), &limit).unwrap_err().0;
        assert!(err.starts_with("buf 6442450944 is more than"), "{err}");
        assert!(
            err.contains("holds 1 buffer of that size (6.0 GiB)"),
            "{err}"
        );
        assert!(check(&point("file-size", 99 * GIB), &limit).is_ok());
        assert!(check(&point("bytes", 99 * GIB), &limit).is_ok());
    }

    #[test]
    fn this_machine_reports_what_is_available() {
        let limit = Limit::here().expect("/proc/meminfo has MemAvailable");
        assert!(limit.available > 0);
        assert!(check(&point("size", 4096), &limit).is_ok());
    }
}
