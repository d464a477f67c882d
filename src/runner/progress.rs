//! Progress observers: an indicatif bar on stderr when it is a terminal
//! (work done, time left, and the whole name of the current case on its
//! own line), or nothing at all; and each scenario's table on stdout as
//! soon as the scenario finished, printed with the bar suspended so the
//! two never garble each other. The bar counts expected seconds, not
//! cases, so its time left stays meaningful when one 10-second contention
//! case follows many short ones.

use super::Observer;
use crate::model::CaseResult;
use crate::report::TableReporter;
use crate::scenario::params::Value;
use crate::scenario::CaseSpec;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::time::Duration;

pub struct Bar {
    bar: ProgressBar,
    tables: Option<Tables>,
}

/// Where and how the scenarios' tables are printed during a run.
struct Tables {
    reporter: TableReporter,
    out: RefCell<Box<dyn Write>>,
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
            "{spinner} [{bar:30}] {percent:>3}% {elapsed}, about {eta} left\n  {msg}",
        )
        .expect("static template")
        .progress_chars("=> ");
        bar.set_style(style);
        Bar { bar, tables: None }
    }

    /// Also print each scenario's table to stdout when it finished
    /// (coloured when stdout is a terminal).
    pub fn with_tables(self) -> Bar {
        let color = std::io::stdout().is_terminal();
        self.with_tables_to(Box::new(anstream::stdout()), color)
    }

    /// Print each scenario's table to `out` when it finished.
    pub fn with_tables_to(mut self, out: Box<dyn Write>, color: bool) -> Bar {
        let reporter = TableReporter {
            color,
            scenarios: true,
        };
        self.tables = Some(Tables {
            reporter,
            out: RefCell::new(out),
        });
        self
    }
}

impl Observer for Bar {
    fn start(&self, work: u64) {
        self.bar.set_length(work);
        self.bar.enable_steady_tick(Duration::from_millis(200));
    }
    fn case_started(&self, name: &str) {
        self.bar.set_message(name.to_string());
    }
    fn case_finished(&self, _result: &CaseResult, weight: u64) {
        self.bar.inc(weight);
    }
    /// A failure to write the table is not the run's failure: the run goes
    /// on, and the summary printed at its end reports a stdout that broke.
    fn scenario_finished(&self, scenario: &str, results: &[CaseResult]) {
        let Some(tables) = &self.tables else {
            return;
        };
        let mut text = Vec::new();
        if tables.write(&mut text, scenario, results).is_ok() {
            self.bar.suspend(|| {
                let mut out = tables.out.borrow_mut();
                let _ = out.write_all(&text).and_then(|()| out.flush());
            });
        }
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Tables {
    /// `scenario`'s table and verdicts over its results among `results`.
    fn write(
        &self,
        out: &mut dyn Write,
        scenario: &str,
        results: &[CaseResult],
    ) -> anyhow::Result<()> {
        let mine: Vec<CaseResult> = results
            .iter()
            .filter(|r| r.scenario == scenario)
            .cloned()
            .collect();
        let verdicts = super::verdicts(&mine);
        let texts: Vec<&str> = verdicts.iter().map(|v| v.text.as_str()).collect();
        let refs: Vec<&CaseResult> = mine.iter().collect();
        self.reporter.write_scenario(out, scenario, &refs, &texts)
    }
}

/// Expected work of a case in tenths of a second: a case that states how
/// long it runs (a `duration` parameter, e.g. contention) counts that per
/// repetition; any other case counts about a second.
pub fn weight(case: &CaseSpec) -> u64 {
    match case.values.get("duration") {
        Some(Value::Int(ns)) => (ns / 100_000_000).max(1) * case.repeat.max(1) + 2,
        _ => 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// A sink the test reads after handing it to the bar.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A finished scenario prints its own table and verdicts, and neither
    /// another scenario's nor the run's summary (that comes at the end).
    #[test]
    fn a_finished_scenario_prints_its_table_only() {
        let sink = Shared::default();
        let bar = Bar::new(true).with_tables_to(Box::new(sink.clone()), false);
        let run = crate::report::fixtures::run();
        bar.scenario_finished("pingpong", &run.results);
        let first = String::from_utf8(sink.0.borrow().clone()).unwrap();
        bar.scenario_finished("stream", &run.results);
        let both = String::from_utf8(sink.0.borrow().clone()).unwrap();
        let second = &both[first.len()..];
        assert!(first.starts_with("== pingpong =="), "{first}");
        assert!(
            !first.contains("== stream") && !first.contains("results:"),
            "{first}"
        );
        assert!(second.starts_with("== stream ==\n"), "{second}");
        assert!(!second.contains("pingpong"), "{second}");
        insta::assert_snapshot!(both);
    }
}
