//! Reading a report's charts back: each chart's SVG, its attributes, and
//! the structure every chart keeps (at most 8 series per frame, one
//! colour per mechanism, a unit in every axis title, a title on every mark,
//! no bar on a log axis).

#![allow(dead_code)]

use super::common::Sandbox;
use std::collections::{BTreeMap, BTreeSet};

pub const MAX_SERIES: usize = 8;

pub fn report(sb: &Sandbox, args: &[&str]) -> String {
    let html = sb.dir.path().join("r.html");
    let db = sb.db();
    let mut all = vec!["report", "--db", db.to_str().unwrap()];
    all.extend(args);
    all.extend(["--html", html.to_str().unwrap()]);
    sb.iolab(&all).assert().success();
    std::fs::read_to_string(&html).unwrap()
}

/// The SVG of each chart on the page.
pub fn charts(page: &str) -> Vec<&str> {
    page.split("<div class=\"chart\">")
        .skip(1)
        .map(|c| &c[c.find("<svg").unwrap()..c.find("</svg>").unwrap()])
        .collect()
}

/// The value of attribute `name` in the tag that starts `tag`.
pub fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let tag = &tag[..tag.find('>').unwrap()];
    let start = tag
        .find(&format!(" {name}=\""))
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + name.len()
        + 3;
    &tag[start..start + tag[start..].find('"').unwrap()]
}

/// Checks every chart of `page`; returns the charts' frame counts and the
/// number of distinct colours drawn.
pub fn check(page: &str) -> (Vec<usize>, usize) {
    let mut colors: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut frames = Vec::new();
    for svg in charts(page) {
        let panels: Vec<&str> = svg.split("<g class=\"panel\"").skip(1).collect();
        assert!(!panels.is_empty(), "a chart without its marks: {svg:.200}");
        frames.push(panels.len());
        for panel in panels {
            let panel = &without_references(panel);
            let series = panel.matches("<g class=\"series\"").count();
            assert!(series <= MAX_SERIES, "{series} series in one frame");
            for axis in ["data-x", "data-y"] {
                let title = attr(panel, axis);
                let unit = title.split_once('(').and_then(|(_, u)| u.split_once(')'));
                let ok = title == "case" || unit.is_some_and(|(u, _)| !u.trim().is_empty());
                assert!(ok, "axis title without a unit: {title:?}");
            }
            let marks = ["<circle", "<polygon", "<rect"]
                .iter()
                .map(|m| panel.matches(m).count())
                .sum::<usize>();
            assert!(marks > 0, "a frame without marks");
            assert_eq!(
                marks,
                panel.matches("<title>").count(),
                "a mark without a title"
            );
            if panel.contains("<rect class=\"bar\"") {
                let axes = format!("{} {}", attr(panel, "data-x"), attr(panel, "data-y"));
                assert!(!axes.contains("log scale"), "bars on a log axis: {axes}");
            }
            for mark in panel
                .split("<g class=\"series\"")
                .skip(1)
                .chain(panel.split("<rect class=\"bar\"").skip(1))
                .chain(panel.split("<circle class=\"dot\"").skip(1))
            {
                let tag = &mark[..mark.find('>').unwrap()];
                let color = attr(
                    mark,
                    if tag.contains(" stroke=") {
                        "stroke"
                    } else {
                        "fill"
                    },
                );
                let key = attr(mark, "data-key");
                colors.entry(key.into()).or_default().insert(color.into());
            }
        }
    }
    for (key, seen) in &colors {
        assert_eq!(seen.len(), 1, "{key} drawn in {seen:?}");
    }
    let distinct: BTreeSet<&String> = colors.values().flatten().collect();
    (frames, distinct.len())
}

/// `panel` without the original's reference marks (titled as a group).
fn without_references(panel: &str) -> String {
    let mut out = String::new();
    let mut rest = panel;
    while let Some(start) = rest.find("<g class=\"reference\"") {
        out.push_str(&rest[..start]);
        let end = start + rest[start..].find("</g>").unwrap() + 4;
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The whole chart block (title, note, SVG, legend) whose title starts with `prefix`.
pub fn chart_titled<'a>(page: &'a str, prefix: &str) -> &'a str {
    let block = page
        .split("<div class=\"chart\">")
        .find(|c| c.trim_start().starts_with(&format!("<h3>{prefix}")))
        .unwrap_or_else(|| panic!("no chart titled {prefix}"));
    &block[..block.find("</ul>").unwrap_or(block.len())]
}

/// The distinct values of attribute `name` over the tags starting with `tag`.
pub fn values(chart: &str, tag: &str, name: &str) -> BTreeSet<String> {
    chart
        .split(tag)
        .skip(1)
        .map(|t| attr(t, name).to_string())
        .collect()
}
