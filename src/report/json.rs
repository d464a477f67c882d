//! The JSON contract (README): the whole run, pretty-printed straight
//! from the serde types in `model/`, so the schema has one definition,
//! with its `schema_version` (`model::Document`).

use super::Reporter;
use crate::model::{Document, Run};
use std::io::Write;

/// Pretty JSON of the whole run, newline-terminated.
pub(crate) struct JsonReporter;

impl Reporter for JsonReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &Document::new(run))?;
        writeln!(out)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn render(run: &Run) -> String {
        let mut buf = Vec::new();
        JsonReporter.write(run, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn parses_back_to_an_identical_run() {
        let run = fixtures::run();
        let text = render(&run);
        assert!(text.ends_with("}\n"));
        let back: Document<Run> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Document::new(run));
    }

    #[test]
    fn follows_the_contract_field_names() {
        let value: serde_json::Value = serde_json::from_str(&render(&fixtures::run())).unwrap();
        let first = &value["results"][0];
        assert_eq!(value["schema_version"], crate::model::SCHEMA_VERSION);
        assert_eq!(value["run_id"], "r-20240101-0001");
        assert_eq!(first["status"], "ok");
        assert_eq!(first["latency"]["kind"], "round-trip");
        assert_eq!(first["latency"]["p99_9"], 40_960);
        assert_eq!(first["metrics"]["rtt_ns"]["unit"], "ns");
        assert_eq!(value["results"][1]["status"], "failed");
        assert_eq!(value["results"][2]["latency"], serde_json::Value::Null);
    }
}
