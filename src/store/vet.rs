//! What `iolab import` checks of a run before storing it: everything that
//! `show`, `report`, `compare`, `claims` and the store's own paths read
//! back later. The run id becomes part of file names (`iolab-run-ID.json`),
//! so it must be a safe name, and one a selector can name (not `latest`);
//! dates must parse; a run written by a newer iolab may hold what this one
//! cannot read; every result must be of a scenario this iolab knows, every
//! latency histogram must decode and be no larger than iolab's own, a
//! matrix must be square over its CPUs, and a folded stack (a profile's,
//! an explanation's) must read `frames count`, as the flame graphs need. A run holds at most as many
//! results and repetitions as a run of this iolab can, which is what the
//! readers are tested at (tests/store_safety.rs).

use crate::model::{CaseResult, Matrix, Run, IOLAB_VERSION};
use crate::stats::histogram::Latencies;

/// The longest run id imported.
const MAX_ID: usize = 80;
/// The most results a run holds: `iolab run` plans no more cases.
pub(crate) const MAX_RESULTS: usize = crate::plan::MAX_CASES;
/// The most repetitions a metric holds: `--repeat` and `--precision`'s
/// batches stop there.
pub(crate) const MAX_REPS: usize = crate::plan::MAX_REPEAT as usize;
/// The most CPUs of a matrix (c2c's map).
const MAX_MATRIX_CPUS: usize = 1024;

/// Why `run` cannot be imported, or Ok.
pub(crate) fn vet(run: &Run) -> Result<(), String> {
    safe_id(&run.run_id)?;
    selectable(&run.run_id)?;
    date("started_at", &run.started_at)?;
    if let Some(finished) = &run.finished_at {
        date("finished_at", finished)?;
    }
    not_newer(&run.iolab_version)?;
    if run.results.is_empty() {
        return Err("it holds no results".into());
    }
    if run.results.len() > MAX_RESULTS {
        return Err(format!(
            "it holds {} results: at most {MAX_RESULTS}",
            run.results.len()
        ));
    }
    for (i, r) in run.results.iter().enumerate() {
        result(r).map_err(|why| format!("result {i}{why}"))?;
    }
    Ok(())
}

/// Why one result cannot be read back, said after `result N`.
fn result(r: &CaseResult) -> Result<(), String> {
    if crate::scenario::find(&r.scenario).is_none() {
        return Err(format!(" is of an unknown scenario '{}'", r.scenario));
    }
    for (name, metric) in &r.metrics {
        if metric.reps.len() > MAX_REPS {
            return Err(format!(
                "'s metric {name} holds {} repetitions: at most {MAX_REPS}",
                metric.reps.len()
            ));
        }
    }
    if let Some(blob) = &r.histogram {
        Latencies::from_v2(blob)
            .map_err(|e| format!("'s latency histogram does not decode: {e:#}"))?;
    }
    let profile = r.profile.iter().flat_map(|p| &p.folded);
    let offcpu = r.explain.iter().flat_map(|e| &e.offcpu_folded);
    if let Some(line) = profile.chain(offcpu).find(|line| !is_folded(line)) {
        return Err(format!(
            "'s folded stack {:?} is not `frames count` (a whole number)",
            crate::format::printable(line, 80)
        ));
    }
    r.matrix.as_ref().map_or(Ok(()), square)
}

/// A folded stack: frames, a space, and a whole count.
fn is_folded(line: &str) -> bool {
    line.rsplit_once(' ').is_some_and(|(frames, count)| {
        let whole = !count.starts_with('+') && count.parse::<u64>().is_ok();
        !frames.trim().is_empty() && whole
    })
}

/// A matrix has a row per CPU and a value per CPU in each row.
fn square(m: &Matrix) -> Result<(), String> {
    let n = m.cpus.len();
    if n > MAX_MATRIX_CPUS {
        return Err(format!("'s matrix has {n} CPUs: at most {MAX_MATRIX_CPUS}"));
    }
    if m.values.len() != n {
        return Err(format!(
            "'s matrix has {n} CPUs but {} rows: expected a square table over its CPUs",
            m.values.len()
        ));
    }
    match m.values.iter().position(|row| row.len() != n) {
        Some(i) => Err(format!(
            "'s matrix has {n} CPUs but {} values in row {i}: expected a square table over its CPUs",
            m.values[i].len()
        )),
        None => Ok(()),
    }
}

/// `latest` is a selector: `show latest` means the newest run, never the
/// run of that id.
fn selectable(id: &str) -> Result<(), String> {
    match super::selector::parse(id) {
        Ok(super::selector::Selector::Id(_)) => Ok(()),
        _ => Err(format!(
            "run id {id:?} is a selector (latest, latest~N): `show` could never name it"
        )),
    }
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
        assert!(selectable("latest").is_err());
        assert_eq!(selectable("latest-run"), Ok(()));
    }

    #[test]
    fn a_folded_stack_is_frames_and_a_whole_count() {
        assert!(is_folded("main;write;pipe_write 40"));
        assert!(is_folded("a b 1"), "frames may hold spaces");
        let past_u64 = "main 99999999999999999999999";
        for bad in [
            "Mꭒ",
            "main;write",
            "main 4.5",
            " 40",
            "main ",
            "",
            "main +4",
            past_u64,
        ] {
            assert!(!is_folded(bad), "{bad:?}");
        }
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
