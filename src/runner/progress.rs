//! Progress observers: an indicatif bar on stderr when it is a terminal
//! (work done, time left, and the whole name of the current case on its
//! own line), or nothing at all. The bar counts expected seconds, not
//! cases, so its time left stays meaningful when one 10-second contention
//! case follows many short ones.

use crate::model::CaseResult;
use crate::scenario::contention::DURATION;
use crate::scenario::CaseSpec;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// Told about progress; the progress bar and quiet mode implement it.
pub(crate) trait Observer {
    /// `work`: the expected work of all cases, in `progress::weight` units.
    fn start(&self, work: u64);
    fn case_started(&self, name: &str);
    /// `weight`: this case's share of the work.
    fn case_finished(&self, result: &CaseResult, weight: u64);
    /// The plan's last case of `scenario` finished; `results`: every
    /// result so far, with the limit ratios that the run's `limits`
    /// results measured so far allow.
    fn scenario_finished(&self, _scenario: &str, _results: &[CaseResult]) {}
    fn finish(&self);
}

pub(crate) struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar, hidden when `quiet` or when stderr is not a terminal.
    pub(crate) fn new(quiet: bool) -> Bar {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        let style = ProgressStyle::with_template(
            "{spinner} [{bar:30}] {percent:>3}% {elapsed}, about {eta} left\n  {msg}",
        )
        .expect("static template")
        .progress_chars("=> ");
        bar.set_style(style);
        Bar { bar }
    }

    /// Runs `f` with the bar hidden, so what it prints is not garbled.
    pub(crate) fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        self.bar.suspend(f)
    }
}

impl Observer for Bar {
    fn start(&self, work: u64) {
        self.bar.set_length(work);
        // The tick is a thread of indicatif's: none for a hidden bar.
        if !self.bar.is_hidden() {
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }
    fn case_started(&self, name: &str) {
        self.bar.set_message(name.to_string());
    }
    fn case_finished(&self, _result: &CaseResult, weight: u64) {
        self.bar.inc(weight);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Expected work of a case in tenths of a second: a case that states how
/// long it runs (a `duration` parameter, e.g. contention) counts that per
/// repetition; any other case counts about a second.
pub(crate) fn weight(case: &CaseSpec) -> u64 {
    match DURATION.int(&case.values) {
        Some(ns) => (ns / 100_000_000).max(1) * case.repeat.max(1) + 2,
        None => 10,
    }
}
