//! `--repeat-runs K`: how many independent runs the invocation asks for,
//! checked with the rest of the command line (`runner::repeat` lines the
//! runs' headlines up afterwards).

use crate::cli::RunArgs;
use crate::error::{UsageError, UsageResult};

/// The most runs `--repeat-runs` may ask for: each is a whole run, stored
/// on its own, and the stability table lines up every one of them.
pub(crate) const MAX_RUNS: u64 = 1000;

/// The runs `--repeat-runs` asks for: 1 without it, else 2 to `MAX_RUNS`,
/// and never with `--json`/`--csv` or an export (`--openmetrics`, ...), which
/// hold one run.
pub(crate) fn runs(args: &RunArgs) -> UsageResult<u64> {
    let Some(text) = args.repeat_runs.as_deref() else {
        return Ok(1);
    };
    let k = crate::params::parse_scaled(text, 1000)
        .filter(|k| (2..=MAX_RUNS).contains(k))
        .ok_or_else(|| {
            UsageError::new(format!(
                "invalid --repeat-runs '{text}': expected a whole number of runs, 2 to {MAX_RUNS}"
            ))
        })?;
    if args.json.is_some() || args.csv.is_some() {
        return Err(UsageError::new(format!(
            "--repeat-runs {text} cannot write --json or --csv, which hold one run: \
             each run is stored, `iolab show RUN --json` gives it"
        )));
    }
    if let Some((option, _)) = args.exports.given().first() {
        return Err(UsageError::new(format!(
            "--repeat-runs {text} cannot write {option}, which holds one run: \
             each run is stored, `iolab report RUN {option} FILE` writes it"
        )));
    }
    Ok(k)
}
