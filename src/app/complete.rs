//! What completes where, from iolab's own knowledge: `cli::command()` with
//! a completer on each argument whose values clap cannot know, because
//! `plan/` checks them with its own messages: `run`'s scenarios and
//! suites, mechanisms and placements (comma lists complete item by item,
//! clap_complete's engine splitting at the delimiter), `--param`'s keys and
//! then each key's values, scenarios and metrics where a command takes one,
//! and the stored runs (`latest`, `latest~N`, the ids in the default store)
//! where a command takes a run. Parsing never sees the completers.

use crate::store::{HistoryFilter, Place, Store};
use clap::Command;
use clap_complete::engine::{ArgValueCandidates, ArgValueCompleter, CompletionCandidate};
use std::ffi::OsStr;

/// The command line with its completers.
pub fn command() -> Command {
    let candidates = |f: fn() -> Vec<CompletionCandidate>| ArgValueCandidates::new(f);
    let on = |cmd: Command, args: &[&str], f: fn() -> Vec<CompletionCandidate>| {
        args.iter()
            .fold(cmd, |cmd, id| cmd.mut_arg(*id, |a| a.add(candidates(f))))
    };
    let mut cmd = crate::cli::command().mut_subcommand("run", |run| {
        let run = on(run, &["targets"], targets);
        let run = on(run, &["mech"], mechanisms);
        let run = on(run, &["placement"], placements);
        run.mut_arg("params", |a| a.add(ArgValueCompleter::new(params)))
    });
    let taking_a_run: [(&str, &[&str]); 5] = [
        ("show", &["run"]),
        ("report", &["run", "compare"]),
        ("compare", &["a", "b"]),
        ("claims", &["run", "across"]),
        ("push", &["runs"]),
    ];
    for (name, args) in taking_a_run {
        cmd = cmd.mut_subcommand(name, |c| on(c, args, runs));
    }
    for name in ["list", "history", "fleet"] {
        cmd = cmd.mut_subcommand(name, |c| on(c, &["scenario"], scenarios));
    }
    cmd.mut_subcommand("fleet", |c| on(c, &["metric"], metrics))
}

fn candidate(value: impl Into<String>, help: &str) -> CompletionCandidate {
    CompletionCandidate::new(value.into()).help(Some(help.to_string().into()))
}

fn scenarios() -> Vec<CompletionCandidate> {
    let all = crate::scenario::ALL.iter();
    all.map(|s| candidate(s.name(), s.about())).collect()
}

/// `run`'s targets: the scenarios, then the suites.
fn targets() -> Vec<CompletionCandidate> {
    let suites = crate::scenario::suite::ALL.iter();
    let mut all = scenarios();
    all.extend(suites.map(|s| candidate(s.name, s.about)));
    all
}

fn mechanisms() -> Vec<CompletionCandidate> {
    let mut all: Vec<CompletionCandidate> = crate::mechanism::ALL
        .iter()
        .map(|m| candidate(m.name(), m.about()))
        .collect();
    all.push(candidate("all", "every mechanism"));
    all
}

fn placements() -> Vec<CompletionCandidate> {
    let all = crate::measure::pin::ALL_PLACEMENTS.iter();
    all.map(|p| CompletionCandidate::new(p.name())).collect()
}

/// Every scenario's metric names, once each.
fn metrics() -> Vec<CompletionCandidate> {
    let mut seen = std::collections::BTreeSet::new();
    let all = crate::scenario::ALL.iter().flat_map(|s| s.metrics().iter());
    all.filter(|m| seen.insert(m.name))
        .map(|m| candidate(m.name, m.about))
        .collect()
}

/// `--param`: `KEY=` for every scenario's and mechanism's parameters
/// (shm's `wake`); after `KEY=`, that
/// key's values (its choices, `auto` or `max` where it takes them, its
/// defaults), the last item of a comma list completing.
fn params(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(text) = current.to_str() else {
        return Vec::new();
    };
    let of_mechanisms = crate::mechanism::ALL.iter().flat_map(|m| m.params().iter());
    let specs = crate::scenario::ALL
        .iter()
        .flat_map(|s| s.params().iter())
        .chain(of_mechanisms);
    let Some((key, values)) = text.split_once('=') else {
        let mut seen = std::collections::BTreeSet::new();
        return specs
            .filter(|p| p.name.starts_with(text) && seen.insert(p.name))
            .map(|p| candidate(format!("{}=", p.name), p.about))
            .collect();
    };
    let (done, last) = match values.rsplit_once(',') {
        Some((done, last)) => (format!("{key}={done},"), last),
        None => (format!("{key}="), values),
    };
    let mut offered: Vec<&str> = Vec::new();
    for spec in specs.filter(|p| p.name == key) {
        for value in values_of(spec) {
            if value.starts_with(last) && !offered.contains(&value) {
                offered.push(value);
            }
        }
    }
    offered
        .into_iter()
        .map(|v| CompletionCandidate::new(format!("{done}{v}")))
        .collect()
}

/// The values to offer for one parameter: its words, then its defaults.
fn values_of(spec: &'static crate::params::ParamSpec) -> Vec<&'static str> {
    use crate::params::ParamKind;
    let mut values: Vec<&'static str> = match spec.kind {
        ParamKind::Choice(_) | ParamKind::Listed(_) => spec.kind.words().unwrap_or_default(),
        ParamKind::BytesOrAuto | ParamKind::Workers => vec!["auto"],
        ParamKind::CountOrMax => vec!["max"],
        _ => Vec::new(),
    };
    values.extend(spec.default.split(',').filter(|v| !v.is_empty()));
    values
}

/// `latest`, the three before it, and the runs of the default store (a
/// file: completing never connects to a server), newest first.
fn runs() -> Vec<CompletionCandidate> {
    let mut all = vec![candidate("latest", "the newest run")];
    all.extend(
        (1..=3).map(|n| candidate(format!("latest~{n}"), &format!("{n} before the newest"))),
    );
    let Ok(place @ Place::File(_)) = Place::chosen(None) else {
        return all;
    };
    let Ok(mut store) = Store::open_existing(place) else {
        return all;
    };
    let stored = store
        .history(20, &HistoryFilter::default())
        .unwrap_or_default();
    all.extend(stored.into_iter().map(|run| {
        let what = [Some(run.started_at), run.suite, run.label];
        let what: Vec<String> = what.into_iter().flatten().collect();
        candidate(run.run_id, &what.join(" "))
    }));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(found: Vec<CompletionCandidate>) -> Vec<String> {
        found
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn param_keys_then_values_complete_the_last_item_of_a_list() {
        let keys = values(params(OsStr::new("si")));
        assert!(keys.contains(&"size=".to_string()), "{keys:?}");
        let pipes = values(params(OsStr::new("pipe=anon,fi")));
        assert_eq!(pipes, ["pipe=anon,fifo"]);
        let wakes = values(params(OsStr::new("wa")));
        assert!(wakes.contains(&"wake=".to_string()), "{wakes:?}");
        let counts = values(params(OsStr::new("count=")));
        assert!(
            !counts.is_empty() && counts.iter().all(|c| c.starts_with("count=")),
            "{counts:?}"
        );
        assert!(values(params(OsStr::new("nope="))).is_empty());
    }

    #[test]
    fn runs_offer_latest_first() {
        let all = values(runs());
        assert_eq!(all[..2], ["latest", "latest~1"]);
    }
}
