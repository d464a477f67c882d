//! Flame graphs of profiled cases (`iolab run --profile`), drawn by inferno
//! from the folded stacks kept in each result's profile, off-CPU flame
//! graphs of cases also explained (`--explain --profile`: time off CPU by
//! the call chain a side switched out with), and the
//! differential flame graph of two cases (inferno's differential folding:
//! each frame coloured by how its samples changed from the first case to
//! the second). Each graph is a whole SVG document with inferno's own
//! search/zoom script; the page embeds it in a sandboxed `<iframe srcdoc>`
//! so its ids, style and script stay its own and several graphs can share
//! one page. Nothing is loaded from anywhere.

use crate::error::UsageError;
use crate::format::case_label;
use crate::model::{CaseResult, Run};
use inferno::differential;
use inferno::flamegraph::{self, Options};
use serde::Serialize;

/// One drawn flame graph.
#[derive(Debug, Serialize)]
pub(crate) struct Flame {
    pub(crate) title: String,
    /// The SVG document, without the XML prolog and comments.
    pub(crate) svg: String,
    /// Its height in pixels, for the frame that holds it.
    pub(crate) height: u32,
}

/// The flame graph of a profiled case; None without folded stacks.
pub(crate) fn of_case(tag: &str, r: &CaseResult) -> anyhow::Result<Option<Flame>> {
    let Some(lines) = folded(r) else {
        return Ok(None);
    };
    draw(
        &case_title(tag, r, ""),
        SAMPLES,
        lines.iter().map(String::as_str),
    )
    .map(Some)
}

/// The off-CPU flame graph of a case run with `--explain --profile`: each
/// side's time off CPU (ns) by the kernel call chain it switched out with.
pub(crate) fn offcpu_of_case(tag: &str, r: &CaseResult) -> anyhow::Result<Option<Flame>> {
    let lines = r.explain.as_ref().map_or(&[][..], |e| &e.offcpu_folded[..]);
    if lines.is_empty() {
        return Ok(None);
    }
    let title = case_title(tag, r, " off-CPU");
    draw(&title, "ns", lines.iter().map(String::as_str)).map(Some)
}

fn case_title(tag: &str, r: &CaseResult, what: &str) -> String {
    let title = format!("{} {}{what}", r.scenario, case_label(&r.case));
    match tag {
        "" => title,
        tag => format!("run {tag}: {title}"),
    }
}

/// The differential flame graph from case `a` to case `b`.
pub(crate) fn diff(a: &CaseResult, b: &CaseResult) -> anyhow::Result<Flame> {
    let (before, after) = (folded(a).unwrap_or_default(), folded(b).unwrap_or_default());
    let mut lines = Vec::new();
    let options = differential::Options {
        normalize: true,
        strip_hex: false,
    };
    differential::from_readers(
        options,
        before.join("\n").as_bytes(),
        after.join("\n").as_bytes(),
        &mut lines,
    )?;
    let text = String::from_utf8(lines)?;
    let title = format!(
        "{} {} -> {}",
        b.scenario,
        case_label(&a.case),
        case_label(&b.case)
    );
    draw(&title, SAMPLES, text.lines())
}

/// The case `name` (its case name, or SCENARIO/CASE) of `run`, which must
/// have folded stacks: the cases of `report --diff`.
pub(crate) fn profiled_case<'a>(run: &'a Run, name: &str) -> Result<&'a CaseResult, UsageError> {
    let found: Vec<&CaseResult> = run
        .results
        .iter()
        .filter(|r| r.case == name || format!("{}/{}", r.scenario, r.case) == name)
        .collect();
    let profiled: Vec<String> = run
        .results
        .iter()
        .filter(|r| folded(r).is_some())
        .map(|r| format!("{}/{}", r.scenario, r.case))
        .collect();
    let allowed = match profiled.is_empty() {
        true => "none: run with --profile".to_string(),
        false => profiled.join(", "),
    };
    match found.as_slice() {
        [r] if folded(r).is_some() => Ok(r),
        [_] => Err(UsageError::new(format!(
            "--diff: case {name} has no profile; profiled cases of run {}: {allowed}",
            run.run_id
        ))),
        [] => Err(UsageError::new(format!(
            "--diff: no case {name} in run {}; profiled cases: {allowed}",
            run.run_id
        ))),
        _ => Err(UsageError::new(format!(
            "--diff: case {name} is in several scenarios of run {}; name it as SCENARIO/CASE, one of: {allowed}",
            run.run_id
        ))),
    }
}

fn folded(r: &CaseResult) -> Option<&[String]> {
    r.profile
        .as_ref()
        .map(|p| p.folded.as_slice())
        .filter(|f| !f.is_empty())
}

const SAMPLES: &str = "samples";

/// Draws `lines`, whose counts are `count_name` (samples, ns).
fn draw<'a>(
    title: &str,
    count_name: &str,
    lines: impl IntoIterator<Item = &'a str>,
) -> anyhow::Result<Flame> {
    let mut options = Options::default();
    options.title = title.to_string();
    options.count_name = count_name.into();
    // Colours from the frame names, so the same report draws the same.
    options.hash = true;
    options.deterministic = true;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut options, lines, &mut out)?;
    let svg = document(&String::from_utf8(out)?);
    let height = svg_height(&svg).unwrap_or(400);
    Ok(Flame {
        title: title.to_string(),
        svg,
        height,
    })
}

/// The SVG from its `<svg` on, without comments (inferno's name its
/// project's web pages, which are not to be loaded).
fn document(svg: &str) -> String {
    let mut rest = &svg[svg.find("<svg").unwrap_or(0)..];
    let mut out = String::with_capacity(rest.len());
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("-->")
            .map_or(rest.len(), |e| start + e + 3);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn svg_height(svg: &str) -> Option<u32> {
    let tag = &svg[..svg.find('>')?];
    let at = tag.find(" height=\"")? + " height=\"".len();
    tag[at..].split('"').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Profile;

    pub(crate) fn profiled(case: &str, folded: &[&str]) -> CaseResult {
        let mut r = CaseResult::new("pingpong", case, Default::default());
        r.profile = Some(Profile {
            samples: 10,
            folded: folded.iter().map(|l| l.to_string()).collect(),
            ..Profile::default()
        });
        r
    }

    #[test]
    fn a_case_draws_each_frame_with_its_title() {
        let r = profiled("pipe/64B", &["iolab;[kernel];pipe_write 3", "iolab;main 1"]);
        let flame = of_case("", &r).unwrap().unwrap();
        assert!(flame.svg.starts_with("<svg"), "{}", &flame.svg[..80]);
        assert!(!flame.svg.contains("<!--"));
        assert!(
            flame
                .svg
                .contains("<title>pipe_write (3 samples, 75.00%)</title>"),
            "{}",
            flame.svg
        );
        assert!(flame
            .svg
            .contains("<title>main (1 samples, 25.00%)</title>"));
        assert!(flame.height > 0);
        assert!(of_case("", &CaseResult::new("x", "y", Default::default()))
            .unwrap()
            .is_none());
    }

    #[test]
    fn the_differential_graph_shows_the_second_case() {
        let a = profiled("pipe/64B", &["iolab;[kernel];pipe_write 3"]);
        let b = profiled("eventfd/64B", &["iolab;[kernel];eventfd_write 2"]);
        let flame = diff(&a, &b).unwrap();
        assert!(flame.svg.contains("eventfd_write"), "{}", flame.svg);
        assert_eq!(flame.title, "pingpong pipe/64 B -> eventfd/64 B");
    }

    #[test]
    fn a_diff_case_must_exist_and_be_profiled() {
        let mut run = crate::report::fixtures::run();
        run.results = vec![
            profiled("pipe/64B", &["iolab 1"]),
            CaseResult::new("pingpong", "tcp/64B", Default::default()),
        ];
        assert_eq!(
            profiled_case(&run, "pingpong/pipe/64B").unwrap().case,
            "pipe/64B"
        );
        let err = profiled_case(&run, "tcp/64B").unwrap_err().to_string();
        assert!(
            err.starts_with("--diff: case tcp/64B has no profile; profiled cases of run "),
            "{err}"
        );
        assert!(err.ends_with(": pingpong/pipe/64B"), "{err}");
        let err = profiled_case(&run, "udp/64B").unwrap_err().to_string();
        assert!(err.starts_with("--diff: no case udp/64B in run "), "{err}");
    }
}
