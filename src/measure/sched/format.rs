//! Where the scheduler tracepoints are described: tracefs's `id` and
//! `format` files. The raw record's field offsets differ between kernels,
//! so they are read from `format` rather than assumed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where tracefs may be mounted, in the order tried.
pub(crate) const TRACEFS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// One field of a tracepoint's raw record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Field {
    pub(crate) offset: usize,
    pub(crate) size: usize,
    pub(crate) signed: bool,
}

impl Field {
    /// The field's integer value in `raw`; None when the record is short
    /// or the field is not 1, 2, 4 or 8 bytes wide.
    pub(crate) fn read(&self, raw: &[u8]) -> Option<i64> {
        let b = raw.get(self.offset..self.offset + self.size)?;
        Some(match (self.size, self.signed) {
            (1, true) => i8::from_le_bytes(b.try_into().ok()?) as i64,
            (1, false) => u8::from_le_bytes(b.try_into().ok()?) as i64,
            (2, true) => i16::from_le_bytes(b.try_into().ok()?) as i64,
            (2, false) => u16::from_le_bytes(b.try_into().ok()?) as i64,
            (4, true) => i32::from_le_bytes(b.try_into().ok()?) as i64,
            (4, false) => u32::from_le_bytes(b.try_into().ok()?) as i64,
            (8, _) => i64::from_le_bytes(b.try_into().ok()?),
            _ => return None,
        })
    }
}

/// A tracepoint: its perf id and its fields by name.
#[derive(Debug)]
pub(crate) struct Tracepoint {
    pub(crate) id: u64,
    pub(crate) fields: HashMap<String, Field>,
}

impl Tracepoint {
    /// Reads `events/<event>/format` under the first tracefs found.
    pub(crate) fn load(event: &str) -> Result<Tracepoint, String> {
        let file = locate(event)?;
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        parse(&text).map_err(|e| format!("{}: {e}", file.display()))
    }

    /// The named field, or an error naming the event's missing field.
    pub(crate) fn field(&self, name: &str) -> Result<Field, String> {
        self.fields
            .get(name)
            .copied()
            .ok_or_else(|| format!("tracepoint {} has no field {name}", self.id))
    }
}

/// How often `with_tracefs` tries.
const TRACEFS_ATTEMPTS: usize = 10;

/// Runs `read`; when no tracefs is mounted, mounts one for `read` alone
/// (root may) and unmounts it after, so nothing is left mounted.
pub(crate) fn with_tracefs<T>(read: impl Fn() -> Result<T, String>) -> Result<T, String> {
    let mut why = String::new();
    // Other iolab processes mount and unmount it too (tests run several at
    // once): a read that fails while one does, or a mount it refuses as
    // busy, is tried again.
    for attempt in 0..TRACEFS_ATTEMPTS {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        why = match read() {
            Ok(value) => return Ok(value),
            Err(why) => why,
        };
        let mounted = TRACEFS
            .iter()
            .any(|root| Path::new(root).join("events").exists());
        if mounted {
            continue;
        }
        let target = TRACEFS[0];
        let flags = rustix::mount::MountFlags::empty();
        match rustix::mount::mount("nodev", target, "tracefs", flags, None) {
            Ok(()) => {
                let result = read();
                let _ = rustix::mount::unmount(target, rustix::mount::UnmountFlags::DETACH);
                why = match result {
                    Ok(value) => return Ok(value),
                    Err(why) => why,
                };
            }
            Err(e) if e == rustix::io::Errno::BUSY => {
                why = format!("{why}; mounting tracefs failed: {e}");
            }
            Err(e) => return Err(format!("{why}; mounting tracefs failed: {e}")),
        }
    }
    Err(why)
}

/// The `format` file of `event` (e.g. `sched/sched_switch`) under the first
/// mounted tracefs, or why there is none.
fn locate(event: &str) -> Result<PathBuf, String> {
    TRACEFS
        .iter()
        .map(|root| Path::new(root).join("events").join(event).join("format"))
        .find(|p| p.exists())
        .ok_or_else(|| {
            format!(
                "no {event}/format under {} (tracefs not mounted? mount -t tracefs nodev {})",
                TRACEFS.join(" or "),
                TRACEFS[0]
            )
        })
}

/// Parses a tracepoint `format` file: the `ID:` line and every
/// `field:<decl>; offset:N; size:N; signed:N;` line.
pub(crate) fn parse(text: &str) -> Result<Tracepoint, String> {
    let mut id = None;
    let mut fields = HashMap::new();
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("ID:") {
            id = Some(
                v.trim()
                    .parse()
                    .map_err(|_| format!("bad ID line {line:?}"))?,
            );
        } else if line.starts_with("field:") {
            let (name, field) = parse_field(line)?;
            fields.insert(name, field);
        }
    }
    let id = id.ok_or("no ID line in the format file")?;
    Ok(Tracepoint { id, fields })
}

fn parse_field(line: &str) -> Result<(String, Field), String> {
    let bad = || format!("bad field line {line:?}");
    let mut parts = HashMap::new();
    for part in line.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once(':').ok_or_else(bad)?;
        parts.insert(key.trim(), value.trim());
    }
    let decl = parts.get("field").ok_or_else(bad)?;
    // `char prev_comm[16]` names prev_comm; `pid_t pid` names pid.
    let last = decl.split_whitespace().last().ok_or_else(bad)?;
    let name = last.split('[').next().unwrap_or(last).to_string();
    let num = |key: &str| -> Result<usize, String> {
        parts.get(key).and_then(|v| v.parse().ok()).ok_or_else(bad)
    };
    let field = Field {
        offset: num("offset")?,
        size: num("size")?,
        signed: num("signed")? != 0,
    };
    Ok((name, field))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWITCH: &str = include_str!("fixtures/sched_switch.format");
    const WAKEUP: &str = include_str!("fixtures/sched_wakeup.format");

    #[test]
    fn parses_this_machines_sched_switch_format() {
        let tp = parse(SWITCH).unwrap();
        assert_eq!(tp.id, 372);
        assert_eq!(tp.fields.len(), 11);
        let f = |n| tp.field(n).unwrap();
        assert_eq!(
            f("common_type"),
            Field {
                offset: 0,
                size: 2,
                signed: false
            }
        );
        assert_eq!(
            f("prev_comm"),
            Field {
                offset: 8,
                size: 16,
                signed: false
            }
        );
        assert_eq!(
            f("prev_pid"),
            Field {
                offset: 24,
                size: 4,
                signed: true
            }
        );
        assert_eq!(
            f("prev_state"),
            Field {
                offset: 32,
                size: 8,
                signed: true
            }
        );
        assert_eq!(
            f("next_pid"),
            Field {
                offset: 56,
                size: 4,
                signed: true
            }
        );
    }

    #[test]
    fn parses_this_machines_sched_wakeup_format() {
        let tp = parse(WAKEUP).unwrap();
        assert_eq!(tp.id, 374);
        assert_eq!(tp.field("pid").unwrap().offset, 24);
        assert_eq!(tp.field("target_cpu").unwrap().offset, 32);
        assert_eq!(
            tp.field("nope").unwrap_err(),
            "tracepoint 374 has no field nope"
        );
    }

    #[test]
    fn reads_fields_by_their_width_and_sign() {
        let mut raw = vec![0u8; 16];
        raw[4..8].copy_from_slice(&(-2i32).to_le_bytes());
        raw[8..16].copy_from_slice(&0x100i64.to_le_bytes());
        let int = |offset, size, signed| {
            Field {
                offset,
                size,
                signed,
            }
            .read(&raw)
        };
        assert_eq!(int(4, 4, true), Some(-2));
        assert_eq!(int(4, 4, false), Some(u32::MAX as i64 - 1));
        assert_eq!(int(8, 8, true), Some(0x100));
        assert_eq!(int(12, 8, true), None, "past the end");
        assert_eq!(int(0, 16, false), None, "not an integer width");
    }

    #[test]
    fn bad_format_files_say_what_is_wrong() {
        assert_eq!(
            parse("name: x\n").unwrap_err(),
            "no ID line in the format file"
        );
        let err = parse("ID: 1\n\tfield:int x;\toffset:zz;\tsize:4;\tsigned:1;\n").unwrap_err();
        assert!(err.starts_with("bad field line"), "{err}");
    }

    #[test]
    fn missing_tracefs_is_named_with_the_mount_hint() {
        let err = locate("sched/no_such_event").unwrap_err();
        assert!(
            err.contains("no sched/no_such_event/format under /sys/kernel/tracing"),
            "{err}"
        );
        assert!(err.contains("mount -t tracefs"), "{err}");
    }
}
