//! `/proc/PID/fdinfo/N` (proc(5)): the open flags, the mount, and what
//! eventfd, epoll, signalfd and mqueue descriptors add about themselves.

/// The fields of one fdinfo file the scan uses; absent ones stay empty.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct FdInfo {
    /// The open flags (octal in the file).
    pub(super) flags: Option<u32>,
    pub(super) mnt_id: Option<u64>,
    /// `eventfd-count:` (hex in the file).
    pub(super) eventfd_count: Option<u64>,
    pub(super) eventfd_semaphore: Option<bool>,
    /// The `tfd:` of each epoll line.
    pub(super) tfds: Vec<i32>,
    pub(super) sigmask: Option<String>,
    pub(super) qsize: Option<u64>,
}

impl FdInfo {
    /// Readable and writable, from O_ACCMODE; both false when unknown.
    pub(super) fn access(&self) -> (bool, bool) {
        match self.flags.map(|f| f & libc::O_ACCMODE as u32) {
            Some(0) => (true, false),
            Some(1) => (false, true),
            Some(2) => (true, true),
            _ => (false, false),
        }
    }
}

/// Parses the text of an fdinfo file; lines it does not know are skipped.
pub(super) fn parse(text: &str) -> FdInfo {
    let mut info = FdInfo::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "flags" => info.flags = u32::from_str_radix(value, 8).ok(),
            "mnt_id" => info.mnt_id = value.parse().ok(),
            "eventfd-count" => info.eventfd_count = u64::from_str_radix(value, 16).ok(),
            "eventfd-semaphore" => {
                info.eventfd_semaphore = value.parse::<u8>().ok().map(|v| v != 0)
            }
            "tfd" => info
                .tfds
                .extend(first_word(value).and_then(|w| w.parse::<i32>().ok())),
            "sigmask" => info.sigmask = Some(value.to_string()),
            "QSIZE" => info.qsize = first_word(value).and_then(|w| w.parse().ok()),
            _ => {}
        }
    }
    info
}

fn first_word(value: &str) -> Option<&str> {
    value.split_whitespace().next()
}
