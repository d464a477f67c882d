//! The classic graphs: which of its figures a scenario's original write-up
//! drew against what, and the original's own figure to mark on it. A
//! scenario declares them (`Scenario::classic_charts`); the report draws
//! them (`report::charts::classic`) without knowing the scenario.

use super::MetricSpec;

/// One graph as the original's readers would expect it.
pub struct ClassicChart {
    pub title: &'static str,
    pub kind: ClassicKind,
    /// Only the cases with these parameter values.
    pub only: &'static [(&'static str, &'static str)],
    /// The original's figure, if it gives one.
    pub original: Option<Original>,
    /// What a full sweep shows and how to run it, said under a graph drawn
    /// from fewer points than `ClassicKind::Sweep::points` or without the
    /// cases the original's figure is about.
    pub full: &'static str,
}

pub enum ClassicKind {
    /// `metric` against parameter `x`, a line per poller, mechanism or
    /// copier (and per value of the other parameters that vary); the
    /// original drew `points` values of `x`.
    Sweep {
        x: &'static str,
        metric: &'static MetricSpec,
        points: usize,
    },
    /// Bars per poller, mechanism or copier, grouped by figure; a small
    /// chart per value of `split`, each at the largest value of `largest`.
    Bars {
        /// What the groups of bars are: `what was timed`.
        x: &'static str,
        /// What the figures are, with their unit: `time (s)`.
        y: &'static str,
        unit: &'static str,
        figures: &'static [Figure],
        split: &'static [&'static str],
        largest: Option<&'static str>,
    },
}

/// One bar of each group: a metric, or a ratio of it between two cases
/// that differ only in one parameter.
pub struct Figure {
    pub label: &'static str,
    pub metric: &'static MetricSpec,
    pub ratio: Option<Ratio>,
}

/// The metric where `param` is `of`, over the metric where it is `over`.
pub struct Ratio {
    pub param: &'static str,
    pub of: &'static str,
    pub over: &'static str,
}

/// The original's figure: a legend and hover text, where it goes, and the
/// small charts it is about (all when empty).
pub struct Original {
    pub label: &'static str,
    pub mark: Mark,
    pub only: &'static [(&'static str, &'static str)],
}

/// Where the original's figure is drawn, in the chart's units.
pub enum Mark {
    /// Nothing to draw (the original gives a shape, not a number): legend only.
    None,
    /// A band of y values (a line when both are equal).
    Y(f64, f64),
    /// A line at this x.
    X(f64),
}
