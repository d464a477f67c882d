//! Wall-clock timestamps for run records (RFC 3339, UTC) and run ids.

use std::time::SystemTime;

/// `2026-11-22T03:15:02Z`
pub(crate) fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

/// `20261122-031502`
pub(crate) fn compact(t: SystemTime) -> String {
    let digits: String = rfc3339(t).chars().filter(|c| c.is_ascii_digit()).collect();
    format!("{}-{}", &digits[..8], &digits[8..14])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn formats() {
        let t = UNIX_EPOCH + Duration::from_secs(1_795_835_702);
        assert_eq!(rfc3339(t), "2026-11-28T03:15:02Z");
        assert_eq!(compact(t), "20261128-031502");
    }
}
