//! What `iolab import` checks of a run before storing it: everything that
//! `show`, `report`, `compare` and the store's own paths read back later.
//! The run id becomes part of file names (`iolab-run-ID.json`), so it must
//! be a safe name; dates must parse; a run written by a newer iolab may
//! hold what this one cannot read; every result must be of a scenario this
//! iolab knows, and every latency histogram must decode.

use crate::measure::histogram::Latencies;
use crate::model::{Run, IOLAB_VERSION};

/// The longest run id imported.
const MAX_ID: usize = 80;

/// Why `run` cannot be imported, or Ok.
pub(crate) fn vet(run: &Run) -> Result<(), String> {
    safe_id(&run.run_id)?;
    date("started_at", &run.started_at)?;
    if let Some(finished) = &run.finished_at {
        date("finished_at", finished)?;
    }
    not_newer(&run.iolab_version)?;
    if run.results.is_empty() {
        return Err("it holds no results".into());
    }
    for (i, r) in run.results.iter().enumerate() {
        if crate::scenario::find(&r.scenario).is_none() {
            return Err(format!(
                "result {i} is of an unknown scenario '{}'",
                r.scenario
            ));
        }
        if let Some(blob) = &r.histogram {
            Latencies::from_v2(blob)
                .map_err(|e| format!("result {i}'s latency histogram does not decode: {e:#}"))?;
        }
    }
    Ok(())
}

fn safe_id(id: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-".contains(c);
    let fits = (1..=MAX_ID).contains(&id.len()) && id.chars().all(allowed);
    if fits && !id.starts_with(['.', '-']) {
        return Ok(());
    }
    Err(format!(
        "run id {id:?} is not a safe name (1-{MAX_ID} letters, digits, '.', '_' or '-', \
         not starting with '.' or '-')"
    ))
}

fn date(field: &str, text: &str) -> Result<(), String> {
    humantime::parse_rfc3339_weak(text)
        .map(|_| ())
        .map_err(|e| format!("{field} {text:?} is not an RFC 3339 date: {e}"))
}

/// A version as its numbers, `0.1.0` as [0, 1, 0].
fn numbers(version: &str) -> Option<Vec<u64>> {
    version.split('.').map(|n| n.parse().ok()).collect()
}

fn not_newer(version: &str) -> Result<(), String> {
    let (Some(theirs), Some(ours)) = (numbers(version), numbers(IOLAB_VERSION)) else {
        return Err(format!(
            "iolab_version {version:?} is not a version such as {IOLAB_VERSION}"
        ));
    };
    match theirs <= ours {
        true => Ok(()),
        false => Err(format!(
            "it was written by iolab {version}, newer than this {IOLAB_VERSION}: import it with that version"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_name_a_path_or_nothing_are_refused() {
        assert_eq!(safe_id("20261127-115746-11e4-ca02"), Ok(()));
        for bad in ["", "../../../../tmp/x", "a/b", ".hidden", "-rf", "a b"] {
            assert!(safe_id(bad).is_err(), "{bad:?}");
        }
        assert!(safe_id(&"x".repeat(81)).is_err());
    }

    #[test]
    fn dates_and_versions_must_read() {
        assert_eq!(date("started_at", "2026-11-27T11:57:46Z"), Ok(()));
        assert!(date("started_at", "not a date")
            .unwrap_err()
            .contains("not an RFC 3339 date"));
        assert_eq!(not_newer(IOLAB_VERSION), Ok(()));
        assert_eq!(not_newer("0.0.1"), Ok(()));
        assert!(not_newer("99.0.0").unwrap_err().contains("newer than this"));
        assert!(not_newer("x").unwrap_err().contains("is not a version"));
    }
}
