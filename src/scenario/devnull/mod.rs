//! `devnull` (E6a): copy a file into /dev/null, a pipe or a file with each
//! copier, and check whether the bytes were really moved. A rate well
//! above the run's memcpy bandwidth is flagged `not_really_moved`; mincore
//! before and after shows whether the file's pages were ever read, and
//! atime whether the kernel counted it as read. The file's atime is first
//! set two days back, so that under `relatime` (atime updated only when
//! older than mtime/ctime or than 24 h) a read would still update it.

mod sink;
pub(crate) mod verdict;
use crate::copier;
use crate::measure::clock::now_ns;
use crate::model::{CaseResult, Finding, Verified};
use crate::scenario::common::copier_params;
use crate::scenario::common::testfile::{self, TestFile};
use crate::scenario::{
    CaseCtx, CaseSpec, LimitRef, MetricSpec, ParamKind, ParamSpec, Scenario, Unsupported, Value,
};
use anyhow::Context;
use rustix::fs::{futimens, Timestamps, UTIME_OMIT};
use rustix::time::Timespec;
use sink::{copy_into, SINKS};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;

pub(crate) struct DevNull;

const SINK: ParamSpec = ParamSpec {
    name: "sink",
    kind: ParamKind::Choice(SINKS),
    default: crate::params::every_choice!(SINKS),
    about: "where the bytes go (pipe: a reader process drains and hashes them)",
    in_name: true,
};

const PARAMS: &[ParamSpec] = &[
    copier_params::copier("read-write,mmap-write,sendfile,splice,copy-file-range,io-uring"),
    ParamSpec {
        default: "65536",
        ..copier_params::BUF
    },
    copier_params::FILE_SIZE,
    SINK,
    ParamSpec {
        default: "warm,cold",
        ..copier_params::CACHE
    },
];

pub(crate) const BYTES_PER_S: MetricSpec = MetricSpec {
    name: "bytes_per_s",
    unit: "bytes/s",
    about: "file size / time of the copy, as it appears",
};

pub(crate) const PAGES_RESIDENT_BEFORE: MetricSpec = MetricSpec {
    name: "pages_resident_before",
    unit: "pages",
    about: "the file's pages in the page cache before the copy (mincore)",
};

pub(crate) const PAGES_RESIDENT_AFTER: MetricSpec = MetricSpec {
    name: "pages_resident_after",
    unit: "pages",
    about: "the file's pages in the page cache after the copy (mincore)",
};

pub(crate) const ATIME_CHANGED: MetricSpec = MetricSpec {
    name: "atime_changed",
    unit: "bool",
    about: "1 when the copy changed the file's access time (set 48 h back first)",
};

const SYSCALLS: MetricSpec = MetricSpec {
    name: "syscalls",
    unit: "",
    about: "system calls the copier made",
};

const METRICS: &[MetricSpec] = &[
    BYTES_PER_S,
    PAGES_RESIDENT_BEFORE,
    PAGES_RESIDENT_AFTER,
    ATIME_CHANGED,
    SYSCALLS,
];

/// The result parameter that says how the file's mount updates atime.
pub(crate) const ATIME_MODE: &str = "atime_mode";

/// How far back the file's atime is set before each copy.
const OLD_ATIME_S: i64 = 48 * 3600;

impl Scenario for DevNull {
    fn name(&self) -> &'static str {
        "devnull"
    }
    fn about(&self) -> &'static str {
        "E6a: a file copied to /dev/null, a pipe or a file by each copier; was it really read?"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn fit_point(&self, values: &mut BTreeMap<&'static str, Value>) {
        copier_params::drop_unused_buf(values);
    }
    fn bound_by_physics(&self) -> bool {
        false
    }
    fn limit_for(&self, _result: &CaseResult) -> Option<LimitRef> {
        Some(LimitRef::MEMCPY)
    }

    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let copier = copier_params::chosen(case);
        let sink = case.text(&SINK);
        copier::usable(copier, sink::kind(sink)).map_err(Unsupported)?;
        let file = TestFile::create(ctx.dir, "file", case.int(&copier_params::FILE_SIZE))?;
        if sink == "file" {
            testfile::ensure_room(ctx.dir, file.len)?;
        }
        file.describe(out);
        out.params
            .insert(ATIME_MODE.into(), file.mount.atime_mode().into());
        let opts = copier_params::opts(case);
        let copy = |fd: rustix::fd::BorrowedFd| copier.copy(&file.file, file.len, fd, &opts);
        let mut reps = Vec::new();
        for _ in 0..case.repeat {
            anyhow::ensure!(!crate::exec::cleanup::cancelled(), "interrupted");
            file.prepare(case.text(&copier_params::CACHE))?;
            let rep =
                one_copy(&file, sink, ctx, &copy).map_err(|e| refused(e, copier.name(), sink))?;
            out.verified = Some(Verified {
                ok: rep.mismatch.is_none(),
                messages: reps.len() as u64 + 1,
                bytes: file.len * (reps.len() as u64 + 1),
            });
            if let Some(why) = &rep.mismatch {
                anyhow::bail!("verification failed: {why}");
            }
            reps.push(rep);
        }
        fill(out, &reps, file.len);
        verdict::flag_against_memcpy(out, crate::scenario::limits::memcpy_now());
        Ok(())
    }

    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        verdict::findings(results)
    }
}

/// What one copy showed.
struct Rep {
    ns: u64,
    resident_before: u64,
    resident_after: u64,
    atime_changed: bool,
    syscalls: u64,
    mismatch: Option<String>,
}

type CopyFn<'a> = &'a dyn Fn(rustix::fd::BorrowedFd) -> std::io::Result<copier::CopyStats>;

fn one_copy(file: &TestFile, sink: &str, ctx: &CaseCtx, copy: CopyFn) -> anyhow::Result<Rep> {
    age_atime(file)?;
    let atime_before = atime(file)?;
    let (resident_before, _) = file.resident()?;
    let start = now_ns();
    let arrived = copy_into(sink, ctx.dir, ctx.timeout, file, copy)?;
    let ns = now_ns() - start;
    let (resident_after, _) = file.resident()?;
    Ok(Rep {
        ns,
        resident_before,
        resident_after,
        atime_changed: atime(file)? != atime_before,
        syscalls: arrived.stats.syscalls,
        mismatch: arrived.mismatch,
    })
}

/// An error the kernel gives for a copier/sink pair it does not support
/// makes the case `unsupported`, saying what the kernel answered.
fn refused(err: anyhow::Error, copier: &str, sink: &str) -> anyhow::Error {
    let code = err
        .downcast_ref::<std::io::Error>()
        .and_then(|e| e.raw_os_error());
    match code {
        Some(libc::EINVAL | libc::EXDEV | libc::EOPNOTSUPP | libc::EBADF) => {
            Unsupported(format!("this kernel refuses {copier} into {sink}: {err}")).into()
        }
        _ => err,
    }
}

/// Sets atime 48 h back (mtime untouched), so a read updates it even
/// under relatime.
fn age_atime(file: &TestFile) -> anyhow::Result<()> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs() as i64;
    let times = Timestamps {
        last_access: Timespec {
            tv_sec: now - OLD_ATIME_S,
            tv_nsec: 0,
        },
        last_modification: Timespec {
            tv_sec: 0,
            tv_nsec: UTIME_OMIT,
        },
    };
    futimens(&file.file, &times).context("setting the file's atime back")?;
    Ok(())
}

fn atime(file: &TestFile) -> anyhow::Result<(i64, i64)> {
    let m = std::fs::metadata(&file.path)?;
    Ok((m.atime(), m.atime_nsec()))
}

fn fill(out: &mut CaseResult, reps: &[Rep], len: u64) {
    let per = |f: &dyn Fn(&Rep) -> f64| reps.iter().map(f).collect();
    BYTES_PER_S.set(out, per(&|r| len as f64 * 1e9 / r.ns.max(1) as f64));
    PAGES_RESIDENT_BEFORE.set(out, per(&|r| r.resident_before as f64));
    PAGES_RESIDENT_AFTER.set(out, per(&|r| r.resident_after as f64));
    ATIME_CHANGED.set(out, per(&|r| f64::from(u8::from(r.atime_changed))));
    SYSCALLS.set(out, per(&|r| r.syscalls as f64));
    BYTES_PER_S.set_headline(out);
}
