//! The parameters the copier scenarios (`file-transfer`, `devnull`) share:
//! which copier, its buffer size (only for the copiers that use one, so
//! `sendfile` is not run once per buffer size), the file's size and the
//! page cache state.

use crate::copier::{self, Copier, CopyOpts};
use crate::params::Listed;
use crate::scenario::{CaseSpec, ParamKind, ParamSpec, Value};
use std::collections::BTreeMap;

pub(crate) const COPIER: ParamSpec = ParamSpec {
    name: "copier",
    kind: ParamKind::Listed(Listed(copier::names)),
    default: "read-write",
    about: "how the file's bytes are moved (a list sweeps)",
    in_name: true,
};

/// `COPIER` with a scenario's own default.
pub(crate) const fn copier(default: &'static str) -> ParamSpec {
    ParamSpec { default, ..COPIER }
}

pub(crate) const BUF: ParamSpec = ParamSpec {
    name: "buf",
    kind: ParamKind::Bytes,
    default: "1024,4096,8192,65536",
    about: "buffer per read/write for read-write and io-uring (ignored by the others)",
    in_name: true,
};

/// The size of the file a copier moves; each scenario gives its default.
pub(crate) const FILE_SIZE: ParamSpec = ParamSpec {
    name: "file-size",
    kind: ParamKind::Bytes,
    default: "64M",
    about: "size of the file copied",
    in_name: true,
};

pub(crate) const CACHE: ParamSpec = ParamSpec {
    name: "cache",
    kind: ParamKind::Choice(&["warm", "cold"]),
    default: "warm",
    about: "the file's pages cached, or dropped (POSIX_FADV_DONTNEED, checked with mincore) before each repetition",
    in_name: true,
};

/// The buffer size when a copier ignores it (and for CopyOpts defaults).
const DEFAULT_BUF: u64 = 4096;

/// Removes `buf` from a point whose copier does not use it.
pub(crate) fn drop_unused_buf(values: &mut BTreeMap<&'static str, Value>) {
    let uses = match COPIER.text(values) {
        Some(name) => copier::find(name).is_some_and(|c| c.uses_buf()),
        None => true,
    };
    if !uses {
        values.remove(BUF.name);
    }
}

pub(crate) fn chosen(case: &CaseSpec) -> &'static dyn Copier {
    copier::find(case.text(&COPIER)).expect("copier names are validated by the plan")
}

pub(crate) fn opts(case: &CaseSpec) -> CopyOpts {
    let buf = BUF.int(&case.values).unwrap_or(DEFAULT_BUF);
    CopyOpts { buf: buf as usize }
}

/// `sendfile`, or `read-write buf=4096` for a copier that uses a buffer.
pub(crate) fn label(r: &crate::model::CaseResult) -> String {
    let name = r.param_str(COPIER.name).unwrap_or_default();
    match r.param_str(BUF.name) {
        Some(buf) => format!("{name} buf={buf}"),
        None => name,
    }
}
