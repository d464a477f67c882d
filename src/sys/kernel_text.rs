//! The text of a kernel file under /proc or /sys: what `env` reads for the
//! fingerprint and `measure` for its probes, in one place below both.

use std::path::Path;

/// A sysfs or procfs file's text without surrounding whitespace; None when
/// it cannot be read.
pub(crate) fn read_text(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}
