//! Small readers shared by the scan: one /proc file as text, the pids
//! under a /proc root, a process's name, and the one-line wording of an
//! error for `Scan::unreadable`.

use std::io;
use std::path::Path;

/// The error as a person reads it: "Permission denied", without the
/// "(os error 13)" the standard library appends.
pub(super) fn err_text(err: &io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The line for `Scan::unreadable`: "pid 12: /proc/12/fd: Permission denied".
pub(super) fn pid_problem(pid: i32, path: &Path, err: &io::Error) -> String {
    format!("pid {pid}: {}: {}", path.display(), err_text(err))
}

/// Every numeric entry of `proc_root`: the processes running now.
pub(super) fn pids(proc_root: &Path) -> io::Result<Vec<i32>> {
    let mut out: Vec<i32> = std::fs::read_dir(proc_root)?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    out.sort_unstable();
    Ok(out)
}

/// The process's command name, or "?" when it is gone or hidden.
pub(super) fn comm(proc_root: &Path, pid: i32) -> String {
    let path = proc_root.join(pid.to_string()).join("comm");
    match std::fs::read_to_string(path) {
        Ok(text) => text.trim_end_matches('\n').to_string(),
        Err(_) => "?".to_string(),
    }
}

/// The first `n` whitespace-separated fields of `line` and the rest
/// (trimmed), for tables whose last column is a path that may hold spaces.
pub(super) fn split_fields(line: &str, n: usize) -> Option<(Vec<&str>, &str)> {
    let mut fields = Vec::with_capacity(n);
    let mut rest = line.trim_start();
    while fields.len() < n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        fields.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    Some((fields, rest.trim_end()))
}
