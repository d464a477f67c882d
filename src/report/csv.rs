//! CSV for spreadsheets and scripts: one row per result with a fixed header,
//! so columns never shift between runs; the varying parameters travel as
//! one compact JSON column. Numbers stay raw (no unit scaling). A result
//! that is not `ok` keeps its status and reason but no measurement, so a
//! column average can never include a failed case.

use super::Reporter;
use crate::model::{CaseResult, Run, Status};
use serde::Serialize;
use std::io::Write;

/// One CSV row per result, header first.
pub(crate) struct CsvReporter;

/// The header, in the order of the fields of `Row`.
pub(crate) const HEADER: [&str; 22] = [
    "run_id",
    "scenario",
    "case",
    "status",
    "reason",
    "headline",
    "value",
    "unit",
    "min",
    "max",
    "latency_kind",
    "p50",
    "p99",
    "p99_9",
    "user_s",
    "sys_s",
    "voluntary_csw",
    "involuntary_csw",
    "params",
    "ci_low",
    "ci_high",
    "noise",
];

/// One result flattened; `None` becomes an empty cell.
#[derive(Serialize, Default)]
struct Row<'a> {
    run_id: &'a str,
    scenario: &'a str,
    case: &'a str,
    status: &'a str,
    reason: Option<&'a str>,
    headline: Option<&'a str>,
    value: Option<f64>,
    unit: Option<&'a str>,
    min: Option<f64>,
    max: Option<f64>,
    latency_kind: Option<&'a str>,
    p50: Option<u64>,
    p99: Option<u64>,
    p99_9: Option<u64>,
    user_s: Option<f64>,
    sys_s: Option<f64>,
    voluntary_csw: Option<u64>,
    involuntary_csw: Option<u64>,
    params: String,
    /// The headline median's 95% interval (`--precision`).
    ci_low: Option<f64>,
    ci_high: Option<f64>,
    /// The noise guard's grade and causes.
    noise: Option<String>,
}

impl Reporter for CsvReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        let mut writer = ::csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(out);
        writer.write_record(HEADER)?;
        for result in &run.results {
            writer.serialize(row(&run.run_id, result)?)?;
        }
        writer.flush()?;
        Ok(())
    }
}

fn row<'a>(run_id: &'a str, r: &'a CaseResult) -> anyhow::Result<Row<'a>> {
    let base = Row {
        run_id,
        scenario: &r.scenario,
        case: &r.case,
        status: r.status.as_str(),
        reason: r.reason.as_deref(),
        params: serde_json::to_string(&r.params)?,
        ..Row::default()
    };
    if r.status != Status::Ok {
        return Ok(base);
    }
    Ok(measured(base, r))
}

/// Fill the measurement columns of an ok result.
fn measured<'a>(mut row: Row<'a>, r: &'a CaseResult) -> Row<'a> {
    if let Some((name, m)) = r.headline_metric() {
        row.headline = Some(name);
        (row.value, row.unit) = (Some(m.value), Some(m.unit.as_str()));
        (row.min, row.max) = (m.min, m.max);
    }
    if let Some(lat) = &r.latency {
        row.latency_kind = Some(lat.kind.as_str());
        (row.p50, row.p99, row.p99_9) = (Some(lat.p50), Some(lat.p99), Some(lat.p99_9));
    }
    if let Some(cpu) = &r.cpu {
        (row.user_s, row.sys_s) = (Some(cpu.user_s), Some(cpu.sys_s));
        row.voluntary_csw = Some(cpu.voluntary_csw);
        row.involuntary_csw = Some(cpu.involuntary_csw);
    }
    if let Some(p) = &r.precision {
        (row.ci_low, row.ci_high) = (Some(p.ci[0]), Some(p.ci[1]));
    }
    row.noise = r.noise.as_ref().map(|n| n.label());
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;
    use std::collections::HashMap;

    fn parse(run: &Run) -> (Vec<String>, Vec<HashMap<String, String>>) {
        let mut buf = Vec::new();
        CsvReporter.write(run, &mut buf).unwrap();
        let mut reader = ::csv::Reader::from_reader(buf.as_slice());
        let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let rows = reader
            .records()
            .map(|rec| {
                header
                    .iter()
                    .cloned()
                    .zip(rec.unwrap().iter().map(String::from))
                    .collect()
            })
            .collect();
        (header, rows)
    }

    #[test]
    fn header_then_one_row_per_result() {
        let run = fixtures::run();
        let (header, rows) = parse(&run);
        assert_eq!(header, HEADER);
        assert_eq!(rows.len(), run.results.len());
        let cases: Vec<&str> = rows.iter().map(|r| r["case"].as_str()).collect();
        assert_eq!(
            cases,
            run.results
                .iter()
                .map(|r| r.case.as_str())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn ok_row_has_the_values_in_named_columns() {
        let (_, rows) = parse(&fixtures::run());
        let ok = &rows[0];
        let want = [
            ("run_id", "r-20240101-0001"),
            ("scenario", "pingpong"),
            ("case", fixtures::OK_CASE),
            ("status", "ok"),
            ("reason", ""),
            ("headline", "rtt_ns"),
            ("value", "5210.0"),
            ("unit", "ns"),
            ("min", "5054.0"),
            ("max", "5366.0"),
            ("latency_kind", "round-trip"),
            ("p50", "5120"),
            ("p99", "12345"),
            ("p99_9", "40960"),
            ("user_s", "0.12"),
            ("sys_s", "0.4"),
            ("voluntary_csw", "200010"),
            ("involuntary_csw", "7"),
        ];
        for (column, value) in want {
            assert_eq!(ok[column], value, "column {column}");
        }
        let params: serde_json::Value = serde_json::from_str(&ok["params"]).unwrap();
        assert_eq!(
            params,
            serde_json::json!({"mech": "unix-stream", "placement": "cross-cpu", "size": 65536})
        );
    }

    #[test]
    fn failed_row_has_reason_and_no_numbers() {
        let (_, rows) = parse(&fixtures::run());
        let failed = &rows[1];
        assert_eq!(failed["status"], "failed");
        assert_eq!(failed["reason"], fixtures::FAILED_REASON);
        for column in &HEADER[5..18] {
            assert_eq!(failed[*column], "", "column {column}");
        }
        assert_eq!(rows[2]["status"], "unsupported");
        assert_eq!(rows[2]["reason"], fixtures::UNSUPPORTED_REASON);
    }

    #[test]
    fn empty_run_still_has_the_header() {
        let mut run = fixtures::run();
        run.results.clear();
        let (header, rows) = parse(&run);
        assert_eq!(header, HEADER);
        assert!(rows.is_empty());
    }

    #[test]
    fn the_interval_and_the_noise_grade_are_columns_at_the_end() {
        let mut run = fixtures::run();
        let ok = &mut run.results[0];
        ok.precision = Some(crate::model::Precision {
            metric: ok.headline.clone().unwrap(),
            target_pct: 2.0,
            ci: [6.5, 7.25],
            half_width_pct: 5.5,
            reached: false,
            reps: 20,
            batches: 4,
            stopped_by: Some("repetition cap 20".into()),
        });
        ok.noise = Some(crate::model::Noise {
            steal_pct: Some(3.0),
            ..crate::model::Noise::graded(crate::model::Grade::Noisy, &["steal 3%"])
        });
        let (header, rows) = parse(&run);
        assert_eq!(header[19..], ["ci_low", "ci_high", "noise"]);
        assert_eq!(
            (rows[0]["ci_low"].as_str(), rows[0]["ci_high"].as_str()),
            ("6.5", "7.25")
        );
        assert_eq!(rows[0]["noise"], "noisy: steal 3%");
        assert_eq!(rows[1]["noise"], "");
    }
}
