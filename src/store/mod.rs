//! The result store: every run `iolab run` makes, kept so `history` and
//! `show` can find it again, exactly as it was measured (histograms
//! included): in one embedded SQLite file by default, or in a PostgreSQL
//! server shared by a fleet of machines (`--db postgresql://...`, the
//! `fleet` feature). Both engines run the same SQL through `trait Db`
//! (`db.rs`; `sqlite.rs`, `pg.rs`). Where a store lives is `place.rs`
//! (a server's URL shown without its password), how a server is reached
//! the libpq way (service, environment, password file) `libpq/`,
//! opening it `connect.rs` (an SQLite file: `open.rs`), the schema
//! `schema.rs`, writing `write.rs`, reading `read.rs`, and a run saved as a
//! JSON file when the store could not take it (for `iolab import`)
//! `saved.rs`.

mod connect;
mod db;
#[cfg(feature = "fleet")]
mod libpq;
mod open;
mod past;
mod pending;
#[cfg(feature = "fleet")]
mod pg;
mod place;
mod read;
mod saved;
mod schema;
mod selector;
mod sqlite;
mod vet;
mod write;

#[cfg(test)]
mod tests;

pub(crate) use place::{Place, ServerUrl};
pub(crate) use saved::{read_saved, save_beside};
pub(crate) use vet::vet;

use crate::error::UsageError;
use crate::model::{CaseResult, Environment, Run};
use anyhow::Context;
use db::Db;
use serde::Serialize;

/// An open result store.
pub struct Store {
    db: Box<dyn Db>,
    place: Place,
    /// The store's schema version: `schema::latest_version()`, unless the
    /// store is older and is read as it is: a file that could not be
    /// migrated (read-only), or a server store opened by a read command.
    version: i64,
}

/// What `Store::import` did with a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Imported {
    Stored,
    /// The store already held this very run.
    AlreadyThere,
}

/// One line of `iolab history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RunSummary {
    pub(crate) run_id: String,
    pub(crate) started_at: String,
    pub(crate) label: Option<String>,
    pub(crate) suite: Option<String>,
    pub(crate) kernel: String,
    /// The host name in the run's environment fingerprint.
    pub(crate) host: String,
    /// How many results the run holds, and how many of them failed.
    pub(crate) results: usize,
    pub(crate) failed: usize,
}

/// Which runs `iolab history` lists: each given filter must match.
#[derive(Debug, Clone, Default)]
pub(crate) struct HistoryFilter {
    /// The host name, exactly.
    pub(crate) host: Option<String>,
    /// The kernel release, or its start up to a `.`, `-` or `+`
    /// (`6.1` matches `6.1.0-18-amd64`, not `6.10.2`).
    pub(crate) kernel: Option<String>,
    /// A scenario the run has results of.
    pub(crate) scenario: Option<String>,
}

impl HistoryFilter {
    fn keeps(&self, run: &RunSummary) -> bool {
        let host = self.host.as_ref().is_none_or(|h| *h == run.host);
        let kernel = self.kernel.as_deref().is_none_or(|k| {
            run.kernel
                .strip_prefix(k)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '-', '+']))
        });
        host && kernel
    }
}

impl Store {
    /// Where this store lives.
    pub(crate) fn place(&self) -> &Place {
        &self.place
    }

    /// Stores the whole run in one transaction.
    pub fn save(&mut self, run: &Run) -> anyhow::Result<()> {
        self.save_pending(run, None)
    }

    /// Stores the whole run in one transaction, with `pending` also marked
    /// as waiting to be pushed there (`iolab run --push`).
    pub(crate) fn save_pending(
        &mut self,
        run: &Run,
        pending: Option<&Place>,
    ) -> anyhow::Result<()> {
        let target = pending.map(Place::to_string);
        write::save(self.db.as_mut(), run, target.as_deref())
            .with_context(|| format!("storing run {} in {}", run.run_id, self.place))
            .map_err(one_line)
    }

    /// The runs of this store waiting to be pushed to `target`, oldest first.
    pub(crate) fn pending(&mut self, target: &Place) -> anyhow::Result<Vec<String>> {
        pending::list(self.db.as_mut(), &target.to_string())
            .with_context(|| format!("reading the runs pending for {target} in {}", self.place))
    }

    /// `target` holds `run_id` now: it is no longer pending there.
    pub(crate) fn pushed(&mut self, run_id: &str, target: &Place) -> anyhow::Result<()> {
        pending::clear(self.db.as_mut(), run_id, &target.to_string())
            .with_context(|| format!("noting in {} that {target} holds run {run_id}", self.place))
    }

    /// The fastest host-speed canaries this host ran on this kernel, over
    /// the stored runs (`measure::canary`).
    pub(crate) fn fastest_canary(
        &mut self,
        env: &Environment,
    ) -> anyhow::Result<crate::measure::canary::Fastest> {
        read::fastest_canary(self.db.as_mut(), &env.hostname, &env.kernel)
            .with_context(|| format!("reading the host's canary in {}", self.place))
    }

    /// The newest `limit` runs the filter keeps, newest first.
    pub(crate) fn history(
        &mut self,
        limit: usize,
        filter: &HistoryFilter,
    ) -> anyhow::Result<Vec<RunSummary>> {
        read::history(self.db.as_mut(), limit, filter)
            .with_context(|| format!("listing runs in {}", self.place))
    }

    /// The run named by `selector`: a run id, `latest` or `latest~N`.
    pub(crate) fn load(&mut self, selector: &str) -> anyhow::Result<Run> {
        let wanted = selector::parse(selector)?;
        let place = self.place.to_string();
        read::load(self.db.as_mut(), &place, self.version, (selector, wanted))
    }

    /// The newest run of each host and kernel, by host, then kernel.
    pub(crate) fn latest_per_host(&mut self) -> anyhow::Result<Vec<Run>> {
        read::latest_per_host(self.db.as_mut(), self.version)
            .with_context(|| format!("reading the newest run of each host in {}", self.place))
    }

    /// Stores a run from elsewhere (a file for `iolab import`, another
    /// store for `iolab push`) once: the same run again is left as it is,
    /// another run under the same id is refused.
    pub(crate) fn import(&mut self, run: &Run) -> anyhow::Result<Imported> {
        let stored = write::save_new(self.db.as_mut(), self.version, run)
            .with_context(|| format!("storing run {} in {}", run.run_id, self.place))
            .map_err(one_line)?;
        let Some(stored) = stored else {
            return Ok(Imported::Stored);
        };
        // A `--json` file has no histograms: they do not tell runs apart.
        let plain = |run: &Run| {
            let mut run = run.clone();
            run.results.iter_mut().for_each(|r| r.histogram = None);
            run
        };
        if plain(&stored) == plain(run) {
            return Ok(Imported::AlreadyThere);
        }
        Err(UsageError::new(format!(
            "another run with the id {} (from host '{}') is already in {}: nothing stored",
            run.run_id, stored.environment.hostname, self.place
        ))
        .into())
    }

    /// Reads, for each ok result `wanted` keeps, its metrics' values in the
    /// newest earlier runs of this host and kernel (`CaseResult::past`).
    pub(crate) fn fill_past(
        &mut self,
        env: &Environment,
        results: &mut [CaseResult],
        wanted: impl Fn(&CaseResult) -> bool,
    ) -> anyhow::Result<()> {
        past::fill(self.db.as_mut(), env, results, wanted)
            .with_context(|| format!("reading earlier runs' figures in {}", self.place))
    }

    /// Every measured result of `scenario`, with its run's environment.
    pub(crate) fn scenario_results(
        &mut self,
        scenario: &str,
    ) -> anyhow::Result<Vec<(Environment, CaseResult)>> {
        read::scenario_results(self.db.as_mut(), scenario)
            .with_context(|| format!("reading the {scenario} results in {}", self.place))
    }

    /// Test-only (`--fault store`): every later write fails as it would on
    /// a read-only store.
    #[doc(hidden)]
    pub(crate) fn refuse_writes(&mut self) -> anyhow::Result<()> {
        self.db.refuse_writes()
    }
}

/// A store error as one plain line: in anyhow's chain, a rusqlite error is
/// followed by SQLite's own ("Error code 8: Attempt to write a readonly
/// database"), which only repeats it. A usage error anywhere in the chain
/// makes the whole line one (exit 2).
fn one_line(err: anyhow::Error) -> anyhow::Error {
    let links: Vec<String> = err
        .chain()
        .filter(|link| !link.is::<rusqlite::ffi::Error>())
        .map(ToString::to_string)
        .collect();
    let line = links.join(": ");
    match err.chain().any(|link| link.is::<UsageError>()) {
        true => UsageError::new(line).into(),
        false => anyhow::Error::msg(line),
    }
}
