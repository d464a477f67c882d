//! The numbers the commands other than `run` take as options, checked
//! here like a run's: `compare`'s percentages (`--min-effect`,
//! `--fail-on-regression`) and `ab`'s band, rounds and time cap. Each
//! refusal is one line naming the option, the value and what is allowed.

use crate::error::{UsageError, UsageResult};
use std::time::Duration;

/// `pct` given to `option` as a percentage of 0 or more; the error shows
/// `example`.
pub(crate) fn percentage(option: &str, pct: f64, example: f64) -> UsageResult<f64> {
    if pct.is_finite() && pct >= 0.0 {
        return Ok(pct);
    }
    Err(UsageError::new(format!(
        "bad {option} '{pct}': expected a percentage of 0 or more, e.g. {example}"
    )))
}

/// `text` given to `option` as a number within `lo..=hi`.
pub(crate) fn number_within(text: &str, option: &str, lo: f64, hi: f64) -> UsageResult<f64> {
    match text.parse::<f64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(UsageError::new(format!(
            "invalid {option} '{text}': expected a number from {lo} to {hi}"
        ))),
    }
}

/// `text` given to `option` as a duration such as 60s or 5m.
pub(crate) fn duration(text: &str, option: &str) -> UsageResult<Duration> {
    humantime::parse_duration(text)
        .map_err(|e| UsageError::new(format!("invalid {option} '{text}': {e} (e.g. 60s, 5m)")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_is_zero_or_more_and_a_refusal_names_the_option() {
        assert_eq!(percentage("--min-effect", 0.0, 5.0).unwrap(), 0.0);
        assert_eq!(percentage("--min-effect", 12.5, 5.0).unwrap(), 12.5);
        for bad in [-3.0, f64::NAN, f64::INFINITY] {
            let err = percentage("--fail-on-regression", bad, 10.0).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "bad --fail-on-regression '{bad}': expected a percentage of 0 or more, e.g. 10"
                )
            );
        }
    }

    #[test]
    fn a_number_within_bounds_and_a_duration_refuse_the_rest_by_name() {
        assert_eq!(number_within("5", "--band", 0.1, 100.0).unwrap(), 5.0);
        let err = number_within("0", "--band", 0.1, 100.0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid --band '0': expected a number from 0.1 to 100"
        );
        assert_eq!(
            duration("2m", "--time-cap").unwrap(),
            Duration::from_secs(120)
        );
        let err = duration("soon", "--time-cap").unwrap_err().to_string();
        assert!(err.starts_with("invalid --time-cap 'soon': "), "{err}");
        assert!(err.ends_with(" (e.g. 60s, 5m)"), "{err}");
    }
}
