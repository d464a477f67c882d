//! Which stored run a read command means: a run id, `latest`, or
//! `latest~N` (the N-th run before the latest). Parsing is separate from the
//! lookup so a malformed selector is reported before the store is touched.

use crate::error::UsageError;

/// What the user may write, for every message about a selector.
pub(crate) const ALLOWED: &str = "expected a run id from 'iolab history', latest or latest~N";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Selector<'a> {
    Id(&'a str),
    /// Runs back from the newest: 0 is the latest.
    Latest(usize),
}

pub(crate) fn parse(text: &str) -> Result<Selector<'_>, UsageError> {
    if text == "latest" {
        return Ok(Selector::Latest(0));
    }
    match text.strip_prefix("latest~") {
        Some(n) => parse_back(text, n).map(Selector::Latest),
        None => Ok(Selector::Id(text)),
    }
}

fn parse_back(text: &str, n: &str) -> Result<usize, UsageError> {
    let digits = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    match n.parse::<usize>() {
        Ok(back) if digits => Ok(back),
        _ => Err(UsageError::new(format!(
            "bad run selector '{text}': {ALLOWED} (N a whole number, 0 for the latest)"
        ))),
    }
}
