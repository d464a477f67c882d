//! The envelope of every JSON document iolab writes (a run, a diagnosis, a
//! comparison, a run's claims, an environment): `schema_version`, the
//! version of the document's shape, beside the document's own fields.
//! Fields are only ever added within a version; a field renamed, removed
//! or changed in meaning would raise it. Each document's JSON Schema is
//! generated from these types (`docs/schema/`), and `import` refuses a run
//! that does not say its version.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version of the shape of iolab's JSON documents.
pub const SCHEMA_VERSION: u32 = 1;

/// A document: its schema version and its fields.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Document<T> {
    /// The version of this document's shape: fields are only added within
    /// one, so a reader of version 1 reads every later document of it.
    pub schema_version: u32,
    #[serde(flatten)]
    pub body: T,
}

impl<T> Document<T> {
    /// `body` as a document of this iolab's schema version.
    pub fn new(body: T) -> Document<T> {
        Document {
            schema_version: SCHEMA_VERSION,
            body,
        }
    }
}
