//! Where a command's run goes: the store, opened (so proved writable)
//! before anything is measured, and written after; the run's id and
//! times; the host-speed canaries each run calibrates against the store.

use crate::error::UsageError;
use crate::measure::canary::Fastest;
use crate::model::{CaseResult, Environment, Run, IOLAB_VERSION};
use crate::store::{self, Place, Store};
use std::path::PathBuf;

/// The run's store, opened (so proved writable) before anything is measured.
pub(super) fn open_store(no_store: bool, db: &Option<PathBuf>) -> anyhow::Result<Option<Store>> {
    if no_store {
        return Ok(None);
    }
    let store = Store::open_at(db_place(db)?).map_err(|err| {
        UsageError::new(format!(
            "{err:#} (nothing was measured: pass --db FILE for another store, or --no-store)"
        ))
    })?;
    Ok(Some(store))
}

/// Stores the run and says where; with `push`, marked pending for that
/// store in the same transaction. When storing fails, the run is saved as
/// JSON beside the store (or in the working directory) for `iolab import`,
/// and the error names that file.
pub(super) fn keep(
    store: &mut Store,
    run: &Run,
    db: &Option<PathBuf>,
    quiet: bool,
    push: Option<&Place>,
) -> anyhow::Result<()> {
    let Err(err) = store.save_pending(run, push) else {
        if !quiet {
            eprintln!("stored run {} in {}", run.run_id, store.place());
        }
        return Ok(());
    };
    let file = store::save_beside(run, store.place().file())
        .map_err(|saving| anyhow::anyhow!("{err:#}; {saving:#}"))?;
    // The store as shown: a server's URL without its password.
    let db = match db {
        Some(_) => format!(" --db {}", store.place()),
        None => String::new(),
    };
    anyhow::bail!(
        "{err:#}; the run is saved in {}: store it later with `iolab import {}{db}`",
        file.display(),
        file.display()
    )
}

/// Times the host-speed canaries for this run's environment and returns
/// the fastest this machine ran them: this run's or a stored run's.
pub(super) fn calibrate_canary(
    environment: &mut Environment,
    store: Option<&mut Store>,
) -> Fastest {
    use crate::measure::canary;
    environment.canary_ns = Some(canary::ns_per_call(canary::RUN_BATCHES));
    environment.wake_canary_ns = canary::wake_ns_per_round_trip(canary::RUN_BATCHES);
    let now = Fastest {
        syscall_ns: environment.canary_ns,
        wake_ns: environment.wake_canary_ns,
    };
    let stored = store.and_then(|s| {
        s.fastest_canary(environment)
            .map_err(|e| eprintln!("warning: {e:#}"))
            .ok()
    });
    stored.unwrap_or_default().min(now)
}

/// `--db`, else `$IOLAB_DB`, else the default file.
pub(super) fn db_place(explicit: &Option<PathBuf>) -> anyhow::Result<Place> {
    Place::chosen(explicit.as_deref())
}

/// The store runs are pushed to: the option's value, else `$IOLAB_PUSH`
/// (set by a unit's environment file, so the URL is on no command line),
/// else none.
pub(super) fn push_place(explicit: &Option<PathBuf>) -> anyhow::Result<Option<Place>> {
    let value = match explicit {
        Some(value) => Some(value.clone()),
        None => std::env::var_os("IOLAB_PUSH")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    };
    Ok(value.as_deref().map(Place::of).transpose()?)
}

pub(super) fn now_rfc3339() -> String {
    crate::measure::time::rfc3339(std::time::SystemTime::now())
}

/// `20261122-031502-4f1a-9c0e`: sortable and readable; the last part
/// names the machine (its machine id, else its host name), so runs pushed
/// from many machines into one fleet store keep distinct ids.
pub(super) fn new_run_id() -> String {
    let now = std::time::SystemTime::now();
    let stamp = crate::measure::time::compact(now);
    let nanos = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let machine = std::fs::read_to_string("/etc/machine-id")
        .ok()
        .filter(|id| !id.trim().is_empty())
        .unwrap_or_else(|| {
            rustix::system::uname()
                .nodename()
                .to_string_lossy()
                .into_owned()
        });
    let host = xxhash_rust::xxh3::xxh3_64(machine.trim().as_bytes()) & 0xffff;
    format!(
        "{stamp}-{:04x}-{host:04x}",
        (nanos ^ std::process::id()) & 0xffff
    )
}

/// A run that just finished, with a new id and no conclusions yet.
pub(super) fn finished_run(
    started_at: String,
    label: Option<String>,
    suite: String,
    environment: Environment,
    results: Vec<CaseResult>,
) -> Run {
    Run {
        iolab_version: IOLAB_VERSION.to_string(),
        run_id: new_run_id(),
        started_at,
        finished_at: Some(now_rfc3339()),
        label,
        suite: Some(suite),
        environment,
        verdicts: Vec::new(),
        claims: Vec::new(),
        results,
    }
}
