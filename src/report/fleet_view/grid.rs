//! The fleet view's claims grid: one row per claim (grouped by seed), one
//! column per host and kernel, each cell its verdict there, coloured as the
//! main report colours verdicts. A cell *disagrees* when its verdict is not
//! among the most common verdicts of the other cells that answered the
//! claim (with two hosts that differ, both do; with three where one
//! differs, that one); a row disagrees when any cell does, and is
//! *opposite* when one host says holds and another does not hold. Verdicts
//! compare by their status: "inconclusive: near the boundary" is
//! inconclusive. A host whose run did not answer a claim has an empty cell,
//! which never disagrees.

use crate::model::{ClaimStatus, ClaimVerdict};
use serde::Serialize;

/// One column's claims: its label and what its run answered.
pub(crate) struct Answers<'a> {
    pub(crate) label: &'a str,
    pub(crate) claims: &'a [ClaimVerdict],
}

#[derive(Debug, Serialize)]
pub(crate) struct Grid {
    pub(crate) seeds: Vec<Seed>,
    /// The ids of the claims whose verdicts differ, in grid order.
    pub(crate) differ: Vec<String>,
    /// Per column, the ids of the claims on which it disagrees.
    pub(crate) disagreeing: Vec<Vec<String>>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Seed {
    /// "E1".
    pub(crate) name: String,
    pub(crate) rows: Vec<Row>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) claim: String,
    /// The row's id in the page.
    pub(crate) anchor: String,
    pub(crate) disagrees: bool,
    pub(crate) opposite: bool,
    pub(crate) cells: Vec<Cell>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Cell {
    /// The main report's class for the verdict (`mark-holds`, ...), or
    /// `missing` where the run did not answer the claim.
    pub(crate) class: String,
    /// "holds", "inconclusive: near the boundary", or "not answered".
    pub(crate) verdict: String,
    /// The hover text: host, verdict and the figure that decided it.
    pub(crate) title: String,
    pub(crate) disagrees: bool,
}

/// The grid of `columns`, rows in seed order and, within a seed, in the
/// order the claims first appear.
pub(crate) fn build(columns: &[Answers]) -> Grid {
    let mut ids: Vec<(&str, &str)> = Vec::new();
    for c in columns.iter().flat_map(|col| col.claims) {
        if !ids.iter().any(|(id, _)| *id == c.id) {
            ids.push((&c.id, &c.source));
        }
    }
    ids.sort_by_key(|(_, source)| *source);
    let mut grid = Grid {
        seeds: Vec::new(),
        differ: Vec::new(),
        disagreeing: vec![Vec::new(); columns.len()],
    };
    for (id, source) in ids {
        let row = row(columns, id);
        if row.disagrees {
            grid.differ.push(row.id.clone());
        }
        for (i, cell) in row.cells.iter().enumerate() {
            if cell.disagrees {
                grid.disagreeing[i].push(row.id.clone());
            }
        }
        if grid.seeds.last().is_none_or(|s| s.name != source) {
            grid.seeds.push(Seed {
                name: source.to_string(),
                rows: Vec::new(),
            });
        }
        grid.seeds.last_mut().expect("pushed above").rows.push(row);
    }
    grid
}

fn row(columns: &[Answers], id: &str) -> Row {
    let answers: Vec<Option<&ClaimVerdict>> = columns
        .iter()
        .map(|col| col.claims.iter().find(|c| c.id == id))
        .collect();
    let statuses: Vec<Option<ClaimStatus>> = answers.iter().map(|a| a.map(|c| c.verdict)).collect();
    let cells: Vec<Cell> = columns
        .iter()
        .zip(&answers)
        .enumerate()
        .map(|(i, (col, answer))| cell(col.label, *answer, disagrees(&statuses, i)))
        .collect();
    let says = |s| statuses.contains(&Some(s));
    let first = answers.iter().flatten().next();
    Row {
        id: id.to_string(),
        claim: first.map(|c| c.claim.clone()).unwrap_or_default(),
        anchor: format!("fleet-claim-{id}"),
        disagrees: cells.iter().any(|c| c.disagrees),
        opposite: says(ClaimStatus::Holds) && says(ClaimStatus::DoesNotHold),
        cells,
    }
}

/// Whether column `i`'s verdict is not among the most common verdicts of
/// the other columns that answered.
fn disagrees(statuses: &[Option<ClaimStatus>], i: usize) -> bool {
    let Some(own) = statuses[i] else {
        return false;
    };
    let others: Vec<ClaimStatus> = statuses
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .filter_map(|(_, s)| *s)
        .collect();
    let count = |s: ClaimStatus| others.iter().filter(|o| **o == s).count();
    let most = others.iter().map(|s| count(*s)).max().unwrap_or(0);
    most > 0 && count(own) < most
}

fn cell(label: &str, answer: Option<&ClaimVerdict>, disagrees: bool) -> Cell {
    match answer {
        Some(c) => Cell {
            class: format!("mark-{}", crate::report::findings::verdict_class(c.verdict)),
            verdict: c.verdict_text(),
            title: format!("{label}: {}: {}", c.verdict_text(), c.figure),
            disagrees,
        },
        None => Cell {
            class: "missing".into(),
            verdict: "not answered".into(),
            title: format!("{label}: its run did not answer this claim"),
            disagrees: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;
    use ClaimStatus::{DoesNotHold, Holds, Inconclusive};

    fn claims(verdicts: &[(&str, ClaimStatus)]) -> Vec<ClaimVerdict> {
        let base = fixtures::run().claims[0].clone();
        verdicts
            .iter()
            .map(|(id, v)| ClaimVerdict {
                id: id.to_string(),
                source: id[..2].to_string(),
                verdict: *v,
                ..base.clone()
            })
            .collect()
    }

    fn grid(columns: &[Vec<ClaimVerdict>]) -> Grid {
        let labels: Vec<String> = (0..columns.len()).map(|i| format!("h{i}")).collect();
        let answers: Vec<Answers> = columns
            .iter()
            .zip(&labels)
            .map(|(claims, label)| Answers { label, claims })
            .collect();
        build(&answers)
    }

    fn marked(g: &Grid, id: &str) -> Vec<bool> {
        let row = g
            .seeds
            .iter()
            .flat_map(|s| &s.rows)
            .find(|r| r.id == id)
            .unwrap();
        row.cells.iter().map(|c| c.disagrees).collect()
    }

    #[test]
    fn two_hosts_that_differ_both_disagree() {
        let g = grid(&[
            claims(&[("E2-b", Holds), ("E1-a", Holds)]),
            claims(&[("E1-a", DoesNotHold), ("E2-b", Holds)]),
        ]);
        let names: Vec<&str> = g.seeds.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["E1", "E2"], "seed order");
        assert_eq!(g.differ, ["E1-a"]);
        assert_eq!(marked(&g, "E1-a"), [true, true]);
        assert_eq!(marked(&g, "E2-b"), [false, false]);
        let row = &g.seeds[0].rows[0];
        assert!(row.disagrees && row.opposite);
        assert_eq!(row.anchor, "fleet-claim-E1-a");
        assert_eq!(row.cells[1].class, "mark-does-not-hold");
        assert_eq!(g.disagreeing, [vec!["E1-a"], vec!["E1-a"]]);
    }

    #[test]
    fn the_odd_one_out_of_three_disagrees_and_a_missing_answer_never_does() {
        let g = grid(&[
            claims(&[("E1-a", Holds), ("E3-c", Inconclusive)]),
            claims(&[("E1-a", Holds)]),
            claims(&[("E1-a", Inconclusive), ("E3-c", Inconclusive)]),
        ]);
        assert_eq!(marked(&g, "E1-a"), [false, false, true]);
        let e1 = &g.seeds[0].rows[0];
        assert!(e1.disagrees && !e1.opposite);
        assert_eq!(marked(&g, "E3-c"), [false, false, false]);
        let e3 = &g.seeds[1].rows[0];
        assert_eq!(e3.cells[1].class, "missing");
        assert_eq!(g.differ, ["E1-a"]);
        assert_eq!(g.disagreeing[2], ["E1-a"]);
        assert!(g.disagreeing[0].is_empty());
    }

    #[test]
    fn one_host_never_disagrees() {
        let g = grid(&[claims(&[("E1-a", DoesNotHold)])]);
        assert!(g.differ.is_empty());
        assert_eq!(marked(&g, "E1-a"), [false]);
    }
}
