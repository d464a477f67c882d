//! Copying runs into another store: `iolab push RUN... --to DB`, `iolab
//! push --pending --to DB`, and `iolab run --push DB`, which stores its run
//! here first (marked pending for DB, `store::pending`), then sends it with
//! every run still pending there. Each run goes in its own transaction,
//! once: a run DB already holds is left as it is, so pushing again sends
//! nothing. A DB that cannot be reached leaves the marks for the next push.

use super::keep::{db_place, push_place};
use crate::cli::PushArgs;
use crate::error::UsageError;
use crate::model::Run;
use crate::store::{Imported, Place, Store};
use std::process::ExitCode;

/// `iolab push`.
pub(super) fn push(args: &PushArgs) -> anyhow::Result<ExitCode> {
    let place = db_place(&args.db)?;
    let mut from = Store::open_existing(place.clone())?;
    if args.pending {
        // Clearing the marks writes: the store must be there, and writable.
        from = Store::open_at(place)?;
    }
    let runs = args
        .runs
        .iter()
        .map(|selector| from.load(selector))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let target = push_place(&args.to)?.ok_or_else(|| {
        UsageError::new("no store to push to: pass --to DB, or set IOLAB_PUSH to it")
    })?;
    let mut to = Store::open_at(target.clone())?;
    for run in &runs {
        let imported = to.import(run)?;
        say_imported(&to, run, imported, "pushed");
        if args.pending {
            from.pushed(&run.run_id, &target)?;
        }
    }
    if args.pending {
        let pending = from.pending(&target)?;
        if pending.is_empty() {
            super::out(&format!(
                "no run pending for {target} in {}\n",
                from.place()
            ))?;
        }
        send(&mut from, &mut to, &pending, |to, run, imported| {
            say_imported(to, run, imported, "pushed")
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `iolab run --push DB`, once the run is stored here marked pending for
/// DB: sends it and every run still pending there. A push that fails
/// leaves them pending and says so; the run itself is done and kept, so
/// this is a warning, not a failed run.
pub(super) fn after_run(store: &mut Store, target: &Place, quiet: bool) {
    let say = |to: &Store, run: &Run, imported: Imported| {
        if !quiet {
            let done = match imported {
                Imported::Stored => "pushed",
                Imported::AlreadyThere => "already held",
            };
            eprintln!("{done} run {} to {}", run.run_id, to.place());
        }
    };
    let sent = store.pending(target).and_then(|pending| {
        let mut to = Store::open_at(target.clone())?;
        send(store, &mut to, &pending, say)
    });
    let Err(err) = sent else { return };
    let left = store.pending(target).unwrap_or_default();
    let runs = match left.as_slice() {
        [one] => format!("run {one} stays"),
        many => format!("{} runs stay", many.len()),
    };
    eprintln!(
        "warning: {err:#}: {runs} stored in {} and pending for {target}: the next \
         `iolab run --push` to it, or `iolab push --pending --to DB`, sends what is missing",
        store.place()
    );
}

/// Pushes the runs `ids` of `from` into `to`, each once, and clears each
/// one's mark once `to` holds it. A run that fails is left pending and the
/// rest still go; the first failure is returned.
fn send(
    from: &mut Store,
    to: &mut Store,
    ids: &[String],
    say: impl Fn(&Store, &Run, Imported),
) -> anyhow::Result<()> {
    let target = to.place().clone();
    let mut first_failure = None;
    for id in ids {
        let pushed = from.load(id).and_then(|run| {
            let imported = to.import(&run)?;
            say(to, &run, imported);
            from.pushed(id, &target)
        });
        if let Err(err) = pushed {
            first_failure.get_or_insert(err);
        }
    }
    first_failure.map_or(Ok(()), Err)
}

/// `verb`: what the command would have done with a run already there.
pub(super) fn say_imported(store: &Store, run: &Run, imported: Imported, verb: &str) {
    let said = match imported {
        Imported::Stored => format!("stored run {} in {}\n", run.run_id, store.place()),
        Imported::AlreadyThere => format!(
            "run {} is already in {}: nothing {verb}\n",
            run.run_id,
            store.place()
        ),
    };
    // Stored already: a stdout that fails now loses nothing.
    let _ = super::out(&said);
}
