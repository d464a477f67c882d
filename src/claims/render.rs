//! The "Claims" section as text: one line per claim with its verdict and
//! the figure that decided it, then its margin and the precision it got,
//! what would decide it when inconclusive, the original's figure, the form
//! of the rule, the kernel the run measured on (some verdicts change with
//! it) and the kernel profile's evidence when the claim has some. The
//! table reporter and `iolab claims` both print it, grouped by seed
//! (E1..E6), each seed's myths that turned out false first (`by_seed`).

use super::engine::margin;
use crate::model::{ClaimStatus, ClaimVerdict, Run};
use std::io::Write;

/// The widest a compact claim line gets.
const COMPACT_WIDTH: usize = 100;

/// The claims grouped by seed in the seeds' order, and within a seed the
/// *myth?* claims that do not hold first; otherwise in the order given.
pub(crate) fn by_seed(claims: &[ClaimVerdict]) -> Vec<&ClaimVerdict> {
    let mut out: Vec<&ClaimVerdict> = claims.iter().collect();
    out.sort_by_key(|c| (c.source.clone(), !refuted_myth(c)));
    out
}

/// A *myth?* claim that does not hold here.
pub(crate) fn refuted_myth(c: &ClaimVerdict) -> bool {
    super::is_myth(&c.id) && c.verdict == ClaimStatus::DoesNotHold
}

/// The section, or nothing when the run answered no claim; `kernel` is
/// the run's (`environment.kernel`), empty when unknown.
pub(crate) fn write(
    out: &mut dyn Write,
    claims: &[ClaimVerdict],
    kernel: &str,
) -> std::io::Result<()> {
    if claims.is_empty() {
        return Ok(());
    }
    writeln!(out, "== Claims ==")?;
    let mut seed = "";
    for c in by_seed(claims) {
        if c.source != seed {
            seed = &c.source;
            writeln!(out, "-- {seed} --")?;
        }
        writeln!(out, "{:<26} {:<13} {}", c.id, c.verdict_text(), c.figure)?;
        let mut below = |text: String| writeln!(out, "{:<26} {:<13} {text}", "", "");
        for part in &c.parts {
            below(format!("- {}: {}", part.verdict.as_str(), part.figure))?;
        }
        if let Some(line) = margin_line(c) {
            below(line)?;
        }
        if let Some(decide) = &c.to_decide {
            below(format!("to decide: {decide}"))?;
        }
        if let Some(host) = &c.host {
            below(host.clone())?;
        }
        below(format!("original: {}", c.original))?;
        if !c.form.is_empty() {
            below(format!("form: {}", c.form))?;
        }
        if !kernel.is_empty() {
            below(format!("measured on kernel {kernel}"))?;
        }
        if let Some(evidence) = &c.kernel_evidence {
            below(evidence.clone())?;
        }
    }
    Ok(())
}

/// The section in one line per claim: its verdict and the first clause of
/// its figure, cut at 100 columns (`--verbose` and `iolab claims` give
/// the rest).
/// The heading names the run's kernel, which some verdicts change with.
pub(crate) fn write_compact(out: &mut dyn Write, run: &Run) -> std::io::Result<()> {
    let (claims, kernel) = (&run.claims, &run.environment.kernel);
    if claims.is_empty() {
        return Ok(());
    }
    let mut measured_on = Vec::new();
    if !kernel.is_empty() {
        measured_on.push(format!("measured on kernel {kernel}"));
    }
    let host = run.environment.host.as_ref();
    if let Some(summary) = host.and_then(crate::measure::host::summary) {
        measured_on.push(format!("host {}", summary.mode()));
    }
    match measured_on.is_empty() {
        true => writeln!(out, "== Claims ==")?,
        false => writeln!(out, "== Claims == ({})", measured_on.join("; "))?,
    }
    for c in by_seed(claims) {
        let figure = c.figure.split("; ").next().unwrap_or_default();
        let mark = match (&c.host, host.and_then(crate::measure::host::summary)) {
            (Some(_), Some(s)) => format!("({} host) ", s.mode()),
            _ => String::new(),
        };
        let line = format!("{:<26} {:<13} {mark}{figure}", c.id, c.verdict_text());
        writeln!(out, "{}", cut(&line, COMPACT_WIDTH))?;
    }
    Ok(())
}

/// The figure in plain words for a one-line claim: the figure's first
/// clause without the repetitions' ranges ("(462-723, 60 reps)"), then the
/// interval the rule weighed, e.g. "epoll 136 us vs poll 9.33 ms: 62x;
/// 99.5% interval 9.81x-81x"; cut at `PLAIN_WIDTH`.
pub(crate) fn plain_figure(c: &ClaimVerdict) -> String {
    let head = without_reps(c.figure.split("; ").next().unwrap_or_default());
    let line = match (&c.weighed, interval(&c.figure)) {
        (Some(_), Some(interval)) if !head.contains(interval) => format!("{head}; {interval}"),
        _ => head,
    };
    cut(&line, PLAIN_WIDTH)
}

/// The widest a plain figure gets.
const PLAIN_WIDTH: usize = 160;

/// `text` without its parenthesised repetition ranges.
fn without_reps(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find(" (") {
        let Some(close) = rest[open..].find(')').map(|c| open + c) else {
            break;
        };
        let inner = &rest[open + 2..close];
        out.push_str(&rest[..open]);
        if !inner.ends_with(" reps") {
            out.push_str(&rest[open..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The last "95% interval 1.05x-1.09x" of `figure`, its level included.
fn interval(figure: &str) -> Option<&str> {
    let at = figure.rfind(" interval ")?;
    let start = figure[..at].rfind([' ', ';', ',']).map_or(0, |i| i + 1);
    let end = figure[at..].find(';').map_or(figure.len(), |e| at + e);
    Some(&figure[start..end])
}

/// `text` within `width` characters, an ellipsis marking a cut.
fn cut(text: &str, width: usize) -> String {
    match text.char_indices().nth(width - 1) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// One line: how many claims the run judged and how they came out, and
/// how many of its scenarios' claims it left out because it did not run
/// their cases as they specify; None when no claim bears on the run.
pub(crate) fn tally(run: &Run) -> Option<String> {
    let left = left_out(run);
    if run.claims.is_empty() && left.is_empty() {
        return None;
    }
    let count = |s: ClaimStatus| run.claims.iter().filter(|c| c.verdict == s).count();
    let mut line = format!(
        "claims: {} judged ({} hold, {} do not hold, {} inconclusive)",
        run.claims.len(),
        count(ClaimStatus::Holds),
        count(ClaimStatus::DoesNotHold),
        count(ClaimStatus::Inconclusive)
    );
    if !left.is_empty() {
        line.push_str(&format!(
            "; {} left out, cases not run as specified (`iolab run seeds`)",
            left.len()
        ));
    }
    Some(line)
}

/// The claims of the run's scenarios that it did not judge, with why.
pub(crate) fn left_out(run: &Run) -> Vec<(&'static str, String)> {
    let ran = |scenario: &str| run.results.iter().any(|r| r.scenario == scenario);
    super::left_out(&run.results, run.suite.as_deref())
        .into_iter()
        .filter(|(id, _)| !run.claims.iter().any(|c| c.id == *id))
        .filter(|(id, _)| super::CLAIMS.iter().any(|c| c.id == *id && ran(c.scenario)))
        .collect()
}

/// "margin 3.2; ±1.0% (noatime) and ±0.8% (default) after 3 repetitions".
pub(crate) fn margin_line(c: &ClaimVerdict) -> Option<String> {
    let m = margin::text(c.margin?);
    Some(match &c.precision {
        Some(p) => format!("{m}; {p}"),
        None => m,
    })
}
