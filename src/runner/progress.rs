//! Progress observers: an indicatif bar on stderr when it is a terminal
//! (cases done, current case, time left), or nothing at all.

use super::Observer;
use crate::model::CaseResult;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar, hidden when `quiet` or when stderr is not a terminal.
    pub fn new(quiet: bool) -> Bar {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        let style = ProgressStyle::with_template(
            "{spinner} [{bar:30}] {pos}/{len} {wide_msg} {elapsed}<{eta}",
        )
        .expect("static template")
        .progress_chars("=> ");
        bar.set_style(style);
        Bar { bar }
    }
}

impl Observer for Bar {
    fn start(&self, cases: usize) {
        self.bar.set_length(cases as u64);
        self.bar.enable_steady_tick(Duration::from_millis(200));
    }
    fn case_started(&self, name: &str) {
        self.bar.set_message(name.to_string());
    }
    fn case_finished(&self, _result: &CaseResult) {
        self.bar.inc(1);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
