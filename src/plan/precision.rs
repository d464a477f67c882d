//! `--precision PCT`: how closely a case's headline median must be known
//! before the runner stops adding batches of repetitions, and the caps that
//! stop it sooner. Without `--precision`, a suite (whose entries chose
//! their repetitions, and the quick suite must stay quick), `--quick` and
//! a run whose `--repeat` fixes the repetitions take no further batch:
//! their figures carry the interval at no cost. The seeds suites are the
//! exception: a case a claim reads aims for that claim's precision
//! (`runner::precision::goal_for`).

use crate::error::{UsageError, UsageResult};
use std::time::Duration;

/// The half-width asked for when `--precision` is not given, in percent.
pub(crate) const DEFAULT_PCT: f64 = 2.0;
/// At most this many times the planned repetitions, and at least
/// `MIN_REP_CAP` repetitions, per case.
pub(crate) const REP_CAP_FACTOR: u64 = 4;
pub(crate) const MIN_REP_CAP: u64 = 10;
/// The same when the user asked for a precision (`--precision PCT`): the
/// case then runs until it is reached or the time cap stops it.
pub(crate) const ASKED_REP_CAP_FACTOR: u64 = 10;
pub(crate) const ASKED_MIN_REP_CAP: u64 = 30;
/// No further batch starts when it would end past this, per case.
pub(crate) const TIME_CAP: Duration = Duration::from_secs(10);

pub(crate) use crate::model::{ONE_BATCH_STOP, REPEAT_STOP, SUITE_STOP};

/// What the runner aims for with each case's headline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Goal {
    /// Half-width of the median's 95% interval, in percent of the median.
    pub(crate) pct: f64,
    /// Some: compute the interval but run no further batch, for this reason.
    pub(crate) fixed: Option<&'static str>,
    /// Asked for with `--precision PCT`, rather than the default's or a
    /// claim's: the larger repetition cap applies.
    pub(crate) asked: bool,
}

impl Goal {
    /// The most repetitions a case planned with `repeat` may reach, never
    /// past `--repeat`'s own bound (what a stored result may hold).
    pub(crate) fn rep_cap(&self, repeat: u64) -> u64 {
        let cap = match (self.fixed, self.asked) {
            (Some(_), _) => repeat,
            (None, false) => (repeat * REP_CAP_FACTOR).max(MIN_REP_CAP),
            (None, true) => (repeat * ASKED_REP_CAP_FACTOR).max(ASKED_MIN_REP_CAP),
        };
        cap.min(super::MAX_REPEAT)
    }
}

/// The goal of a run: `text` is `--precision`, `off` for none. Without it
/// the default, taking no further batch when `suite` or `repeat_given`.
pub(crate) fn goal(
    text: Option<&str>,
    suite: bool,
    repeat_given: bool,
) -> UsageResult<Option<Goal>> {
    let Some(text) = text else {
        let fixed = match (suite, repeat_given) {
            (true, _) => Some(SUITE_STOP),
            (false, true) => Some(REPEAT_STOP),
            (false, false) => None,
        };
        return Ok(Some(Goal {
            pct: DEFAULT_PCT,
            fixed,
            asked: false,
        }));
    };
    if text == "off" {
        return Ok(None);
    }
    let number = text.strip_suffix('%').unwrap_or(text).trim();
    match number.parse::<f64>() {
        Ok(pct) if pct > 0.0 && pct <= 100.0 => Ok(Some(Goal {
            pct,
            fixed: None,
            asked: true,
        })),
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
        let pct = |t| goal(Some(t), true, true).unwrap().map(|g| g.pct);
        assert_eq!(pct("2%"), Some(2.0));
        assert_eq!(pct("0.01%"), Some(0.01));
        assert_eq!(pct("5"), Some(5.0));
        assert_eq!(pct("100%"), Some(100.0));
        assert_eq!(goal(Some("off"), false, false).unwrap(), None);
        let asked = goal(Some("1%"), true, true).unwrap().unwrap();
        assert_eq!((asked.fixed, asked.asked), (None, true));
        assert_eq!(asked.rep_cap(5), 50);
        assert_eq!(asked.rep_cap(1), ASKED_MIN_REP_CAP);
        // Never past what a stored result may hold (`import` checks it).
        assert_eq!(
            asked.rep_cap(super::super::MAX_REPEAT),
            super::super::MAX_REPEAT
        );
    }

    #[test]
    fn the_default_takes_batches_unless_a_suite_or_repeat_fixes_them() {
        let run = goal(None, false, false).unwrap().unwrap();
        assert_eq!((run.pct, run.fixed), (DEFAULT_PCT, None));
        assert_eq!(run.rep_cap(5), 20);
        assert_eq!(run.rep_cap(1), MIN_REP_CAP);
        let quick = goal(None, true, true).unwrap().unwrap();
        assert_eq!(quick.fixed, Some(SUITE_STOP));
        assert_eq!(quick.rep_cap(3), 3);
        let repeat = goal(None, false, true).unwrap().unwrap();
        assert_eq!(repeat.fixed, Some(REPEAT_STOP));
    }

    #[test]
    fn bad_values_name_themselves_and_what_is_allowed() {
        for bad in ["0", "0%", "-1%", "abc", "200%", "", "NaN", "inf"] {
            let err = goal(Some(bad), false, false).unwrap_err().to_string();
            assert!(err.contains(&format!("'{bad}'")), "{err}");
            assert!(err.contains("above 0 and at most 100"), "{err}");
            assert!(!err.contains('\n'));
        }
    }
}
