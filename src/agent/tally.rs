//! What the agent's door refused, counted: a flood of strangers would
//! otherwise write a line each (20.9 MB of log over one minute of one), so
//! the log says every `EVERY` how many were refused and why, which source
//! sent most, and the last one in full, and says it once more when the
//! agent stops.

use super::door::Source;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

/// How often the counts are logged, when there are any.
pub(crate) const EVERY: Duration = Duration::from_secs(10);

/// The refusals since the last line.
pub(crate) struct Tally {
    since: Instant,
    kinds: BTreeMap<&'static str, u64>,
    sources: HashMap<Source, u64>,
    last: String,
}

impl Tally {
    pub(crate) fn new() -> Tally {
        Tally {
            since: Instant::now(),
            kinds: BTreeMap::new(),
            sources: HashMap::new(),
            last: String::new(),
        }
    }

    /// One connection refused before it authenticated: why (`kind`), from
    /// where, and what it was told (`detail`).
    pub(crate) fn note(&mut self, kind: &'static str, source: Source, detail: &str) {
        *self.kinds.entry(kind).or_default() += 1;
        *self.sources.entry(source).or_default() += 1;
        detail.clone_into(&mut self.last);
    }

    /// Logs the counts when `EVERY` has passed since the last line.
    pub(crate) fn log_if_due(&mut self) {
        if self.since.elapsed() >= EVERY {
            self.log();
        }
    }

    /// Logs the counts, if any, and starts counting afresh.
    pub(crate) fn log(&mut self) {
        if let Some(line) = self.line() {
            super::log(&line);
        }
        *self = Tally::new();
    }

    /// The counts as one line, or None when nothing was refused.
    fn line(&self) -> Option<String> {
        let total: u64 = self.kinds.values().sum();
        if total == 0 {
            return None;
        }
        let kinds: Vec<String> = self.kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let (source, most) = self.sources.iter().max_by_key(|(_, n)| **n)?;
        Some(format!(
            "refused {} before they authenticated in {:.0} s ({}); most from {source} ({most}); the last: {}",
            crate::format::plural(total as usize, "connection"),
            self.since.elapsed().as_secs_f64().max(1.0),
            kinds.join(", "),
            self.last
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_one_line_of_counts() {
        let mut tally = Tally::new();
        assert_eq!(tally.line(), None);
        let a = Source::of(&"10.0.0.1:1".parse().unwrap());
        let b = Source::of(&"10.0.0.2:1".parse().unwrap());
        for _ in 0..3 {
            tally.note("made room for newer ones", a, "10.0.0.1:1: busy");
        }
        tally.note("wrong token", b, "10.0.0.2:7: wrong token");
        let line = tally.line().unwrap();
        assert!(
            line.starts_with("refused 4 connections before they authenticated in "),
            "{line}"
        );
        assert!(
            line.ends_with(
                " s (3 made room for newer ones, 1 wrong token); most from 10.0.0.1 (3); \
                 the last: 10.0.0.2:7: wrong token"
            ),
            "{line}"
        );
    }
}
