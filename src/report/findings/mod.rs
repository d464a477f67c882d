//! What a run found, for the top of a report: the claims with their
//! verdicts, every scenario's verdict lines, this machine's limits and the
//! noise guard's grades in one line per cause (`noise.rs`) and the warnings
//! (noisy results, figures flagged, failures and unsupported cases grouped
//! by reason), each line linking to the section with its evidence.
//! Built once from the run, so the HTML and Markdown reports say the same.

use super::table::{groups, headline, summary};
use crate::format::{case_label, plural, ratio, spread_pct};
use crate::model::{CaseResult, ClaimStatus, Run, Status};
use serde::Serialize;

/// A headline whose repetitions spread this much (half their min-max
/// range, in percent of the median) or more is called noisy.
pub(crate) const NOISY_PCT: f64 = 10.0;

/// Noisy results named per scenario, the widest first.
const NOISY_NAMED: usize = 3;

#[derive(Debug, Default, Serialize)]
pub(crate) struct Findings {
    /// "151 results: 143 ok, 0 failed, 8 unsupported; 15 claims: ..."
    pub(crate) summary: String,
    /// "host: busy (steal 8%): cross-CPU wake-up 85 us ...", where sampled.
    pub(crate) host: Option<String>,
    pub(crate) claims: Vec<ClaimLine>,
    /// One group per scenario with verdicts, in page order.
    pub(crate) verdicts: Vec<Group>,
    pub(crate) limits: Vec<Line>,
    /// The noise guard's grades, one line per cause.
    pub(crate) noise: Option<noise::NoiseSummary>,
    /// One group per kind of warning.
    pub(crate) warnings: Vec<Group>,
}

/// A heading with its lines; `anchor` is the id it links to, if any.
#[derive(Debug, Serialize)]
pub(crate) struct Group {
    pub(crate) title: String,
    pub(crate) anchor: Option<String>,
    pub(crate) lines: Vec<Line>,
}

/// A sentence and the sections that hold its evidence.
#[derive(Debug, Serialize)]
pub(crate) struct Line {
    pub(crate) text: String,
    pub(crate) links: Vec<Link>,
}

#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Link {
    pub(crate) label: String,
    /// An id in the page, e.g. `scenario-pingpong`.
    pub(crate) anchor: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct ClaimLine {
    pub(crate) id: String,
    pub(crate) claim: String,
    /// e.g. "holds" or "inconclusive: near the boundary".
    pub(crate) verdict: String,
    /// `holds`, `does-not-hold`, `inconclusive`: the CSS class suffix.
    pub(crate) class: String,
    pub(crate) figure: String,
    /// The figure in plain words, for the claim's one line.
    pub(crate) plain: String,
    /// The noise guard's mark, when a result the claim read was not clean.
    pub(crate) grade: Option<super::trust::GradeMark>,
    /// The original's figure.
    pub(crate) original: String,
    /// Which form the rule takes, and why.
    pub(crate) form: String,
    pub(crate) kernel_evidence: Option<String>,
    /// "margin 3.2; ±1.0% (poll) and ...", when the rule weighed a figure.
    pub(crate) margin: Option<String>,
    /// What would decide an inconclusive verdict.
    pub(crate) to_decide: Option<String>,
    /// The host's state, for a claim whose figure follows it.
    pub(crate) host: Option<String>,
    /// A claim of several statements: each one's verdict and figure.
    pub(crate) parts: Vec<(String, String)>,
    /// The claim's own element, its evidence folded in it (`claim-ID`).
    pub(crate) anchor: String,
    pub(crate) scenario: Link,
}

/// The id of a scenario's section.
pub(crate) fn scenario_anchor(name: &str) -> String {
    format!("scenario-{name}")
}

fn scenario_link(name: &str) -> Link {
    Link {
        label: name.to_string(),
        anchor: scenario_anchor(name),
    }
}

/// The findings of `run`.
pub(crate) fn build(run: &Run) -> Findings {
    let by_seed = crate::claims::render::by_seed(&run.claims);
    let claims: Vec<ClaimLine> = by_seed.into_iter().map(claim_line).collect();
    Findings {
        summary: headline_counts(run),
        host: super::table::host_line(run),
        claims,
        verdicts: verdicts(run),
        limits: limits(run),
        noise: noise::summary(&run.results),
        warnings: [
            noisy(&run.results),
            not_ok(&run.results, Status::Failed),
            not_ok(&run.results, Status::Unsupported),
        ]
        .into_iter()
        .flatten()
        .chain(flagged(&run.results))
        .collect(),
    }
}

/// The run's summary line and, with claims, how many hold.
fn headline_counts(run: &Run) -> String {
    let mut text = summary(&run.results);
    if !run.claims.is_empty() {
        let count = |s: ClaimStatus| run.claims.iter().filter(|c| c.verdict == s).count();
        let each = |s: ClaimStatus| s.counted(count(s));
        text.push_str(&format!(
            "; {}: {}, {}, {}",
            plural(run.claims.len(), "classic claim"),
            each(ClaimStatus::Holds),
            each(ClaimStatus::DoesNotHold),
            each(ClaimStatus::Inconclusive),
        ));
    }
    text
}

/// The CSS class suffix of a verdict: `holds`, `does-not-hold`, `inconclusive`.
pub(crate) fn verdict_class(status: ClaimStatus) -> String {
    status.as_str().replace(' ', "-")
}

/// The id of a claim's element in the findings.
pub(crate) fn claim_anchor(id: &str) -> String {
    format!("claim-{id}")
}

fn claim_line(c: &crate::model::ClaimVerdict) -> ClaimLine {
    ClaimLine {
        id: c.id.clone(),
        claim: c.claim.clone(),
        verdict: c.verdict_text(),
        class: verdict_class(c.verdict),
        figure: c.figure.clone(),
        plain: crate::claims::render::plain_figure(c),
        grade: super::trust::claim_grade(c),
        original: c.original.clone(),
        form: c.form.clone(),
        kernel_evidence: c.kernel_evidence.clone(),
        margin: crate::claims::render::margin_line(c),
        to_decide: c.to_decide.clone(),
        host: c.host.clone(),
        parts: c
            .parts
            .iter()
            .map(|p| (p.verdict.as_str().to_string(), p.figure.clone()))
            .collect(),
        anchor: claim_anchor(&c.id),
        scenario: scenario_link(&c.scenario),
    }
}

fn verdicts(run: &Run) -> Vec<Group> {
    groups(&run.results)
        .into_iter()
        .map(|(name, _)| Group {
            title: name.to_string(),
            anchor: Some(scenario_anchor(name)),
            lines: run
                .verdicts
                .iter()
                .filter(|v| v.scenario == name)
                .map(|v| Line {
                    text: v.text.clone(),
                    links: Vec::new(),
                })
                .collect(),
        })
        .filter(|g| !g.lines.is_empty())
        .collect()
}

/// The `limits` reference points, how far each scenario's headlines are
/// from theirs, and the facilities this machine lacks.
fn limits(run: &Run) -> Vec<Line> {
    let mut lines: Vec<Line> = run
        .results
        .iter()
        .filter(|r| r.scenario == "limits" && r.status == Status::Ok)
        .filter_map(|r| {
            let about = crate::scenario::find("limits")?
                .metrics()
                .iter()
                .find(|m| Some(m.name) == r.headline.as_deref())?
                .about;
            Some(Line {
                text: format!("{about}: {}", headline(r)?),
                links: vec![scenario_link("limits")],
            })
        })
        .collect();
    lines.extend(groups(&run.results).into_iter().filter_map(|(name, rs)| {
        let (lo, hi, limit) = ratio_range(&rs)?;
        let range = match lo == hi {
            true => ratio(lo),
            false => format!("{} to {}", ratio(lo), ratio(hi)),
        };
        Some(Line {
            text: format!("{name}: headlines at {range} {limit} (vs limit)"),
            links: vec![scenario_link(name)],
        })
    }));
    lines.extend(unavailable(run));
    lines
}

/// The lowest and highest `vs limit` ratio of results measured against
/// one and the same limit.
fn ratio_range(results: &[&CaseResult]) -> Option<(f64, f64, String)> {
    let ratios: Vec<_> = results
        .iter()
        .filter_map(|r| r.limit_ratio.as_ref())
        .collect();
    let first = ratios.first()?;
    if ratios.iter().any(|l| l.limit != first.limit) {
        return None;
    }
    let lo = ratios.iter().map(|l| l.ratio).fold(f64::INFINITY, f64::min);
    let hi = ratios
        .iter()
        .map(|l| l.ratio)
        .fold(f64::NEG_INFINITY, f64::max);
    Some((lo, hi, first.limit.clone()))
}

fn unavailable(run: &Run) -> Vec<Line> {
    let e = &run.environment;
    [
        ("perf", &e.perf),
        ("io_uring", &e.io_uring),
        ("scheduler tracepoints", &e.sched_tracepoints),
    ]
    .into_iter()
    .filter(|(_, a)| !a.available && !a.detail.is_empty())
    .map(|(name, a)| Line {
        text: format!("{name} not available here: {}", a.detail),
        links: vec![Link {
            label: "environment".into(),
            anchor: "environment".into(),
        }],
    })
    .collect()
}

/// Ok results whose headline spreads `NOISY_PCT` or more, per scenario.
fn noisy(results: &[CaseResult]) -> Option<Group> {
    let mut total = 0;
    let mut lines = Vec::new();
    for (name, rs) in groups(results) {
        let mut wide: Vec<(f64, &CaseResult)> = rs
            .iter()
            .filter(|r| r.status == Status::Ok && r.flags.is_empty())
            .filter_map(|r| Some((spread_pct(r.headline_metric()?.1)?, *r)))
            .filter(|(pct, _)| *pct >= NOISY_PCT)
            .collect();
        if wide.is_empty() {
            continue;
        }
        wide.sort_by(|a, b| b.0.total_cmp(&a.0));
        total += wide.len();
        let named: Vec<String> = wide
            .iter()
            .take(NOISY_NAMED)
            .map(|(pct, r)| format!("{} spread {pct:.0}%", case_label(&r.case)))
            .collect();
        let more = if wide.len() > NOISY_NAMED {
            ", ..."
        } else {
            ""
        };
        lines.push(Line {
            text: format!("{} of {}: {}{more}", wide.len(), rs.len(), named.join(", ")),
            links: vec![scenario_link(name)],
        });
    }
    (total > 0).then(|| Group {
        title: format!(
            "{} noisy: repetitions spread {NOISY_PCT:.0}% or more around the median \
             (half their min-max range, not the ± of the tables)",
            plural(total, "result")
        ),
        anchor: None,
        lines,
    })
}

/// Failed or unsupported cases, one line per reason with its count.
fn not_ok(results: &[CaseResult], status: Status) -> Option<Group> {
    let mut reasons: Vec<(&str, Vec<&CaseResult>)> = Vec::new();
    for r in results.iter().filter(|r| r.status == status) {
        let reason = r.reason.as_deref().unwrap_or("no reason recorded");
        match reasons.iter_mut().find(|(text, _)| *text == reason) {
            Some((_, cases)) => cases.push(r),
            None => reasons.push((reason, vec![r])),
        }
    }
    let total: usize = reasons.iter().map(|(_, cases)| cases.len()).sum();
    (total > 0).then(|| Group {
        title: format!("{} {}", plural(total, "case"), status.as_str()),
        anchor: None,
        lines: reasons
            .into_iter()
            .map(|(reason, cases)| Line {
                text: format!("{reason} ({})", cases.len()),
                links: scenarios_of(&cases),
            })
            .collect(),
    })
}

/// Results whose figures carry a warning flag, one group per flag.
fn flagged(results: &[CaseResult]) -> Vec<Group> {
    let mut names: Vec<&str> = Vec::new();
    for flag in results.iter().flat_map(|r| &r.flags) {
        if !names.contains(&flag.name.as_str()) {
            names.push(&flag.name);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let lines: Vec<Line> = results
                .iter()
                .flat_map(|r| r.flags.iter().map(move |f| (r, f)))
                .filter(|(_, f)| f.name == name)
                .map(|(r, f)| Line {
                    text: format!("{}: {}", case_label(&r.case), f.reason),
                    links: vec![scenario_link(&r.scenario)],
                })
                .collect();
            Group {
                title: format!(
                    "{} {}",
                    plural(lines.len(), "result"),
                    name.replace('_', " ")
                ),
                anchor: None,
                lines,
            }
        })
        .collect()
}

/// The scenarios of `cases`, each once, as links.
fn scenarios_of(cases: &[&CaseResult]) -> Vec<Link> {
    let mut links: Vec<Link> = Vec::new();
    for r in cases {
        let link = scenario_link(&r.scenario);
        if !links.contains(&link) {
            links.push(link);
        }
    }
    links
}

mod noise;

#[cfg(test)]
mod tests;
