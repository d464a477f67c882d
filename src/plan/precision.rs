//! `--precision PCT`: how closely a case's headline median must be known
//! before the runner stops adding batches of repetitions, and the caps that
//! stop it sooner. The quick suite takes no further batch unless
//! `--precision` is given: its figures carry the interval at no cost.

use crate::error::{UsageError, UsageResult};
use std::time::Duration;

/// The half-width asked for when `--precision` is not given, in percent.
pub(crate) const DEFAULT_PCT: f64 = 2.0;
/// At most this many times the planned repetitions, and at least
/// `MIN_REP_CAP` repetitions, per case.
pub(crate) const REP_CAP_FACTOR: u64 = 4;
pub(crate) const MIN_REP_CAP: u64 = 10;
/// No further batch starts when it would end past this, per case.
pub(crate) const TIME_CAP: Duration = Duration::from_secs(10);

/// What the runner aims for with each case's headline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Goal {
    /// Half-width of the median's 95% interval, in percent of the median.
    pub(crate) pct: f64,
    /// False: compute the interval, run no further batch (the quick suite).
    pub(crate) batches: bool,
}

impl Goal {
    /// The most repetitions a case planned with `repeat` may reach.
    pub(crate) fn rep_cap(&self, repeat: u64) -> u64 {
        match self.batches {
            true => (repeat * REP_CAP_FACTOR).max(MIN_REP_CAP),
            false => repeat,
        }
    }
}

/// The goal of a run: `text` is `--precision` (None: the default, without
/// further batches when `quick`), `off` for none.
pub(crate) fn goal(text: Option<&str>, quick: bool) -> UsageResult<Option<Goal>> {
    let Some(text) = text else {
        return Ok(Some(Goal {
            pct: DEFAULT_PCT,
            batches: !quick,
        }));
    };
    if text == "off" {
        return Ok(None);
    }
    let number = text.strip_suffix('%').unwrap_or(text).trim();
    match number.parse::<f64>() {
        Ok(pct) if pct > 0.0 && pct <= 100.0 => Ok(Some(Goal { pct, batches: true })),
        _ => Err(UsageError::new(format!(
            "invalid --precision '{text}': expected a percentage above 0 and at most 100 \
             (e.g. 2%), or off"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_with_or_without_the_sign_and_off() {
        let pct = |t| goal(Some(t), false).unwrap().map(|g| g.pct);
        assert_eq!(pct("2%"), Some(2.0));
        assert_eq!(pct("0.01%"), Some(0.01));
        assert_eq!(pct("5"), Some(5.0));
        assert_eq!(pct("100%"), Some(100.0));
        assert_eq!(goal(Some("off"), false).unwrap(), None);
    }

    #[test]
    fn the_default_takes_batches_except_in_the_quick_suite() {
        let run = goal(None, false).unwrap().unwrap();
        assert_eq!((run.pct, run.batches), (DEFAULT_PCT, true));
        let quick = goal(None, true).unwrap().unwrap();
        assert!(!quick.batches);
        assert_eq!(quick.rep_cap(3), 3);
        assert!(goal(Some("1%"), true).unwrap().unwrap().batches);
        assert_eq!(run.rep_cap(5), 20);
        assert_eq!(run.rep_cap(1), MIN_REP_CAP);
    }

    #[test]
    fn bad_values_name_themselves_and_what_is_allowed() {
        for bad in ["0", "0%", "-1%", "abc", "200%", "", "NaN", "inf"] {
            let err = goal(Some(bad), false).unwrap_err().to_string();
            assert!(err.contains(&format!("'{bad}'")), "{err}");
            assert!(err.contains("above 0 and at most 100"), "{err}");
            assert!(!err.contains('\n'));
        }
    }
}
