//! Each scenario's table on stdout as soon as the scenario finished, while
//! the run goes on: an observer around the progress bar that prints with
//! the bar suspended, so the two never garble each other. It lives above
//! the runner because it renders with the report's table.

use crate::model::CaseResult;
use crate::report::TableReporter;
use crate::runner::progress::Bar;
use crate::runner::Observer;
use std::cell::RefCell;
use std::io::{IsTerminal, Write};

/// The bar, plus each finished scenario's table written to `out`.
pub(crate) struct LiveTables<'a> {
    bar: &'a Bar,
    reporter: TableReporter,
    out: RefCell<Box<dyn Write>>,
}

impl<'a> LiveTables<'a> {
    /// Tables to stdout, coloured when stdout is a terminal.
    /// `verbose`: every column and note (else the compact view).
    pub(crate) fn stdout(bar: &'a Bar, verbose: bool) -> LiveTables<'a> {
        let color = std::io::stdout().is_terminal();
        let out = crate::stdout::Guarded(anstream::stdout());
        LiveTables::to(bar, Box::new(out), color, verbose)
    }

    pub(crate) fn to(
        bar: &'a Bar,
        out: Box<dyn Write>,
        color: bool,
        verbose: bool,
    ) -> LiveTables<'a> {
        let reporter = TableReporter {
            color,
            scenarios: true,
            verbose,
        };
        LiveTables {
            bar,
            reporter,
            out: RefCell::new(out),
        }
    }

    /// `scenario`'s table and verdicts over its results among `results`.
    fn write(
        &self,
        out: &mut dyn Write,
        scenario: &str,
        results: &[CaseResult],
    ) -> anyhow::Result<()> {
        // A far side's failure reason comes from the agent: shown escaped.
        let mine: Vec<CaseResult> = results
            .iter()
            .filter(|r| r.scenario == scenario)
            .map(crate::format::shown)
            .collect();
        let verdicts = crate::claims::verdicts(&mine);
        let texts: Vec<&str> = verdicts.iter().map(|v| v.text.as_str()).collect();
        let refs: Vec<&CaseResult> = mine.iter().collect();
        self.reporter.write_scenario(out, scenario, &refs, &texts)
    }
}

impl Observer for LiveTables<'_> {
    fn start(&self, work: u64) {
        self.bar.start(work);
    }
    fn case_started(&self, name: &str) {
        self.bar.case_started(name);
    }
    fn case_finished(&self, result: &CaseResult, weight: u64) {
        self.bar.case_finished(result, weight);
    }
    /// A failure to write the table is not the run's failure: the run goes
    /// on, and the summary printed at its end reports a stdout that broke.
    fn scenario_finished(&self, scenario: &str, results: &[CaseResult]) {
        let mut text = Vec::new();
        if self.write(&mut text, scenario, results).is_ok() {
            self.bar.suspend(|| {
                let mut out = self.out.borrow_mut();
                let _ = out.write_all(&text).and_then(|()| out.flush());
            });
        }
    }
    fn finish(&self) {
        self.bar.finish();
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
        let bar = Bar::new(true);
        let tables = LiveTables::to(&bar, Box::new(sink.clone()), false, true);
        let run = crate::report::fixtures::run();
        tables.scenario_finished("pingpong", &run.results);
        let first = String::from_utf8(sink.0.borrow().clone()).unwrap();
        tables.scenario_finished("stream", &run.results);
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
