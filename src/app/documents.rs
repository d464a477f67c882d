//! The JSON documents iolab writes, each in `model::Document`'s envelope
//! with its `schema_version`, and the JSON Schema of each, generated from
//! the types by schemars and kept in `docs/schema/` (a test checks each
//! file is what the types make; `IOLAB_WRITE_SCHEMAS=1` rewrites them).

use crate::claims::across::RunClaims;
use crate::model::{ClaimVerdict, Document};
#[cfg(test)]
use crate::{compare::Comparison, doctor::Diagnosis, model::Environment, model::Run};
use schemars::JsonSchema;
#[cfg(test)]
use schemars::Schema;
use serde::Serialize;

/// `iolab claims RUN --json`: one run's claims.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ClaimsOfRun {
    pub(crate) run_id: String,
    pub(crate) claims: Vec<ClaimVerdict>,
}

/// `iolab claims --across RUN... --json`: each run's claims, in the order named.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ClaimsAcross {
    pub(crate) runs: Vec<RunClaims>,
}

/// One kind of document: its schema's file in `docs/schema/`, what
/// writes it, and its schema.
#[cfg(test)]
pub(crate) struct Kind {
    pub(crate) file: &'static str,
    pub(crate) written_by: &'static str,
    schema: fn() -> Schema,
}

#[cfg(test)]
impl Kind {
    /// The JSON Schema, titled and described, pinned to this schema version.
    pub(crate) fn schema(&self) -> Schema {
        let version = crate::model::SCHEMA_VERSION;
        let mut schema = (self.schema)();
        let name = self.file.trim_end_matches(".schema.json");
        schema.insert("title".into(), format!("iolab {name} document").into());
        let what = format!(
            "The JSON {}, schema version {version}: fields are only added within a version.",
            self.written_by
        );
        schema.insert("description".into(), what.into());
        let field = schema
            .get_mut("properties")
            .and_then(|p| p.get_mut("schema_version"))
            .and_then(|v| v.as_object_mut())
            .expect("a document has schema_version");
        field.insert("const".into(), version.into());
        schema
    }
}

#[cfg(test)]
pub(crate) const KINDS: [Kind; 6] = [
    Kind {
        file: "run.schema.json",
        written_by: "of a run: `run --json`, `show --json`, `ab --json`, what `import` reads",
        schema: written::<Run>,
    },
    Kind {
        file: "doctor.schema.json",
        written_by: "of a diagnosis: `doctor --json`",
        schema: written::<Diagnosis>,
    },
    Kind {
        file: "compare.schema.json",
        written_by: "of a comparison of two runs: `compare --json`",
        schema: written::<Comparison>,
    },
    Kind {
        file: "claims.schema.json",
        written_by: "of a run's claims: `claims --json`",
        schema: written::<ClaimsOfRun>,
    },
    Kind {
        file: "claims-across.schema.json",
        written_by: "of several runs' claims: `claims --across --json`",
        schema: written::<ClaimsAcross>,
    },
    Kind {
        file: "env.schema.json",
        written_by: "of this machine's environment fingerprint: `env --json`",
        schema: written::<Environment>,
    },
];

/// The schema of `T`'s document as iolab writes it (a field it leaves out
/// when empty is not required).
#[cfg(test)]
fn written<T: JsonSchema>() -> Schema {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Document<T>>()
}

/// `value` as its document: pretty JSON, newline-terminated.
pub(crate) fn text(value: &impl Serialize) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(&Document::new(value))? + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// docs/schema/ holds what the types make; with IOLAB_WRITE_SCHEMAS=1
    /// this test writes it there first.
    #[test]
    fn the_schemas_in_docs_are_the_types() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema");
        let rewrite = std::env::var("IOLAB_WRITE_SCHEMAS").as_deref() == Ok("1");
        for kind in &KINDS {
            let made = serde_json::to_string_pretty(&kind.schema()).unwrap() + "\n";
            let path = dir.join(kind.file);
            if rewrite {
                std::fs::write(&path, &made).unwrap();
            }
            let kept = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                kept == made,
                "{} is not what the types make: run this test with IOLAB_WRITE_SCHEMAS=1",
                path.display()
            );
        }
    }

    #[test]
    fn every_document_says_its_schema_version() {
        let text = text(&Environment::default()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["schema_version"], crate::model::SCHEMA_VERSION);
        assert!(value.get("kernel").is_some(), "{text}");
    }
}
