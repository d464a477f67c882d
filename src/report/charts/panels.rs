//! Small multiples: a chart of more than `MAX_SERIES` lines is split into
//! small charts (drawn in a grid on shared axes). The split follows the
//! data: by a dimension every line has (placement, test, series name...)
//! or into groups of whole colours (mechanisms), whichever gives the fewest
//! small charts without crowding one colour's lines into one frame; time
//! series of different quantities always get frames of their own.

use super::ident::dim_label;
use super::style::{value, values};
use super::Line;

/// No frame draws more lines than this.
pub(crate) const MAX_SERIES: usize = 8;
/// The dimension naming a time series of a case (its quantity).
pub(crate) const SERIES: &str = "series";
/// More lines of one colour than this in a frame no longer read apart.
const SAME_COLOR: usize = 4;

/// One small chart: its title (empty for a chart of one frame) and the
/// indices of its lines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Panel {
    pub(crate) title: String,
    pub(crate) lines: Vec<usize>,
}

pub(crate) fn split(lines: &[Line]) -> Vec<Panel> {
    let all: Vec<usize> = (0..lines.len()).collect();
    best(lines, &all, &partition_dims(lines), "")
}

/// Dimensions every line has and that take more than one value.
fn partition_dims(lines: &[Line]) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for l in lines {
        for (k, _) in &l.dims {
            if !all.contains(k) {
                all.push(k.clone());
            }
        }
    }
    all.retain(|k| {
        lines.iter().all(|l| l.dims.iter().any(|(d, _)| d == k))
            && values(lines, |l| value(l, k)).len() > 1
    });
    all
}

fn best(lines: &[Line], idx: &[usize], dims: &[String], prefix: &str) -> Vec<Panel> {
    if idx.len() <= MAX_SERIES {
        return vec![Panel {
            title: prefix.to_string(),
            lines: idx.to_vec(),
        }];
    }
    let mut options: Vec<Vec<Panel>> = Vec::new();
    // Different quantities (a mean, a maximum) never share a frame.
    let series = dims.iter().position(|d| d == SERIES);
    for (i, dim) in dims.iter().enumerate() {
        if series.is_some_and(|s| s != i) {
            continue;
        }
        let rest: Vec<String> = dims
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, d)| d.clone())
            .collect();
        let mut panels = Vec::new();
        for (v, part) in partition(lines, idx, |l| value(l, dim)) {
            let title = join(prefix, &dim_label(dim, &v));
            panels.extend(best(lines, &part, &rest, &title));
        }
        options.push(panels);
    }
    if series.is_none() {
        options.push(pack(lines, idx, prefix));
    }
    // min_by_key keeps the first of equals: a dimension before packing.
    options
        .into_iter()
        .min_by_key(|o| (crowded(lines, o), o.len()))
        .unwrap_or_default()
}

/// Whole colours, in order, into frames of at most `MAX_SERIES` lines.
fn pack(lines: &[Line], idx: &[usize], prefix: &str) -> Vec<Panel> {
    let mut panels: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
    for (key, group) in partition(lines, idx, |l| l.key.clone()) {
        for chunk in group.chunks(MAX_SERIES) {
            match panels.last_mut() {
                Some((keys, own)) if own.len() + chunk.len() <= MAX_SERIES => {
                    keys.push(key.clone());
                    own.extend(chunk);
                }
                _ => panels.push((vec![key.clone()], chunk.to_vec())),
            }
        }
    }
    panels
        .into_iter()
        .map(|(keys, lines)| Panel {
            title: join(prefix, &keys.join(", ")),
            lines,
        })
        .collect()
}

/// `idx` grouped by `f`, groups in order of first appearance.
fn partition(
    lines: &[Line],
    idx: &[usize],
    f: impl Fn(&Line) -> String,
) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for &i in idx {
        let v = f(&lines[i]);
        match out.iter_mut().find(|(k, _)| *k == v) {
            Some((_, own)) => own.push(i),
            None => out.push((v, vec![i])),
        }
    }
    out
}

/// True when some frame has too many lines of one colour to tell apart.
fn crowded(lines: &[Line], panels: &[Panel]) -> bool {
    panels.iter().any(|p| {
        partition(lines, &p.lines, |l| l.key.clone())
            .iter()
            .any(|(_, g)| g.len() > SAME_COLOR)
    })
}

fn join(prefix: &str, part: &str) -> String {
    match prefix {
        "" => part.to_string(),
        p => format!("{p}, {part}"),
    }
}
