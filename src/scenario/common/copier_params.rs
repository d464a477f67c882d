//! The parameters the copier scenarios (`file-transfer`, `devnull`) share:
//! which copier, its buffer size (only for the copiers that use one, so
//! `sendfile` is not run once per buffer size), and the page cache state.

use crate::copier::{self, Copier, CopyOpts};
use crate::scenario::{CaseSpec, ParamKind, ParamSpec, Value};
use std::collections::BTreeMap;

pub const fn copier(default: &'static str) -> ParamSpec {
    ParamSpec {
        name: "copier",
        kind: ParamKind::Choice(copier::NAMES),
        default,
        about: "how the file's bytes are moved (a list sweeps)",
        in_name: true,
    }
}

pub const BUF: ParamSpec = ParamSpec {
    name: "buf",
    kind: ParamKind::Bytes,
    default: "1024,4096,8192,65536",
    about: "buffer per read/write for read-write and io-uring (ignored by the others)",
    in_name: true,
};

pub const CACHE: ParamSpec = ParamSpec {
    name: "cache",
    kind: ParamKind::Choice(&["warm", "cold"]),
    default: "warm",
    about: "the file's pages cached, or dropped (POSIX_FADV_DONTNEED, checked with mincore) before each repetition",
    in_name: true,
};

/// The buffer size when a copier ignores it (and for CopyOpts defaults).
const DEFAULT_BUF: u64 = 4096;

/// Removes `buf` from a point whose copier does not use it.
pub fn drop_unused_buf(values: &mut BTreeMap<&'static str, Value>) {
    let uses = match values.get("copier") {
        Some(Value::Text(name)) => copier::find(name).is_some_and(|c| c.uses_buf()),
        _ => true,
    };
    if !uses {
        values.remove("buf");
    }
}

pub fn chosen(case: &CaseSpec) -> &'static dyn Copier {
    copier::find(case.text("copier")).expect("copier names are validated by the plan")
}

pub fn opts(case: &CaseSpec) -> CopyOpts {
    let buf = match case.values.get("buf") {
        Some(Value::Int(n)) => *n,
        _ => DEFAULT_BUF,
    };
    CopyOpts { buf: buf as usize }
}

/// `sendfile`, or `read-write buf=4096` for a copier that uses a buffer.
pub fn label(r: &crate::model::CaseResult) -> String {
    let name = r.param_str("copier").unwrap_or_default();
    match r.param_str("buf") {
        Some(buf) => format!("{name} buf={buf}"),
        None => name,
    }
}
