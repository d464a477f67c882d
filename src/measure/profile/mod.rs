//! `iolab run --profile`: where the CPU went while a case ran. Sampling
//! lives in `capture`, names in `symbolize`; this file turns a tally into
//! the result's `profile`: top kernel and user functions by share of
//! samples, the share spent in the access/modify-time update path, and
//! the folded stacks a flame graph is drawn from (`fold`).

mod capture;
mod fold;
mod symbolize;

pub(crate) use symbolize::KernelSymbols;

use crate::model::{Profile, Symbol};
use capture::{Capture, Tally};
use std::collections::HashMap;
use symbolize::UserSymbols;

/// Functions shown per list.
const TOP: usize = 10;

/// The atime/mtime update path, old and new names: a sample counts when
/// any frame of its kernel call chain is one of these.
pub(crate) const ATIME_PATH: &[&str] = &[
    "touch_atime",
    "atime_needs_update",
    "relatime_need_update",
    "current_fs_time",
    "current_time",
    "timespec_trunc",
    "timestamp_truncate",
    "file_update_time",
    "file_modified",
    "file_update_time_flags",
    "inode_needs_update_time",
    "generic_update_time",
    "inode_update_time",
    "inode_update_timestamps",
    "inode_set_ctime_current",
    "inode_set_ctime_to_ts",
    "ktime_get_coarse_real_ts64",
    "ktime_get_coarse_real_ts64_mg",
    "coarse_ctime",
];

/// A profile being taken, or why none can be.
pub(crate) struct Session {
    capture: Result<Capture, String>,
}

/// Starts sampling the calling thread and everything it starts from now on.
pub(crate) fn start() -> Session {
    let cpus = crate::measure::pin::allowed_cpus();
    Session {
        capture: Capture::start(&cpus),
    }
}

impl Session {
    pub(crate) fn finish(self) -> Profile {
        let method = format!(
            "perf_event_open: software cpu-clock sampling at {} Hz per CPU, inherited by every thread and process of the case, kernel call chains",
            capture::FREQUENCY
        );
        match self.capture {
            Ok(capture) => summarize(method, capture.finish()),
            Err(why) => Profile {
                method,
                note: Some(why),
                ..Profile::default()
            },
        }
    }
}

fn summarize(method: String, tally: Tally) -> Profile {
    let total = tally.samples.max(1) as f64;
    let mut notes = Vec::new();
    if tally.lost > 0 {
        notes.push(format!("{} samples lost (ring buffer full)", tally.lost));
    }
    let (top_kernel, atime_share) = match kernel_symbols() {
        Ok(syms) => {
            let leaf = tally
                .kernel_ips
                .iter()
                .map(|(ip, n)| (name_or(syms.name(*ip)), *n));
            (
                top(leaf, total),
                Some(atime_samples(&tally, syms) as f64 / total),
            )
        }
        Err(why) => {
            notes.push(why.clone());
            let n: u64 = tally.kernel_ips.values().sum();
            (top([("[kernel]".to_string(), n)].into_iter(), total), None)
        }
    };
    let user = UserSymbols::load();
    let folded = fold::fold(
        fold::stacks(&tally, kernel_symbols().ok(), &user),
        fold::KEPT,
    );
    let user_named = tally.user_ips.iter().map(|((pid, ip), n)| {
        let name = match tally.images.get(pid) {
            Some(Some(program)) => program.clone(),
            _ => user.name(*ip),
        };
        (name, *n)
    });
    Profile {
        method,
        samples: tally.samples,
        top_kernel,
        top_user: top(user_named, total),
        atime_share,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        folded,
    }
}

/// Folded lines of kernel call chains (leaf first), each under its root
/// frame and weighted (e.g. ns off CPU): an off-CPU flame graph's input.
pub(crate) fn fold_kernel_chains<'a>(
    chains: impl IntoIterator<Item = (&'a str, &'a [u64], u64)>,
) -> Vec<String> {
    let syms = kernel_symbols().ok();
    let stacks = chains
        .into_iter()
        .map(|(root, chain, weight)| (fold::kernel_frames(root.to_string(), chain, syms), weight));
    fold::fold(stacks, fold::KEPT)
}

fn kernel_symbols() -> Result<&'static KernelSymbols, String> {
    static SYMS: std::sync::OnceLock<Result<KernelSymbols, String>> = std::sync::OnceLock::new();
    SYMS.get_or_init(KernelSymbols::load)
        .as_ref()
        .map_err(Clone::clone)
}

fn name_or(name: Option<&str>) -> String {
    name.unwrap_or("[kernel]").to_string()
}

/// Samples whose kernel call chain passes through the atime path.
fn atime_samples(tally: &Tally, syms: &KernelSymbols) -> u64 {
    tally
        .chains
        .iter()
        .filter(|((_, chain), _)| {
            chain
                .iter()
                .any(|ip| syms.name(*ip).is_some_and(is_atime_path))
        })
        .map(|(_, n)| *n)
        .sum()
}

/// True for an ATIME_PATH function, also as a compiler clone such as
/// `touch_atime.part.0` or `file_update_time.isra.0`.
pub(crate) fn is_atime_path(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or(name);
    ATIME_PATH.contains(&base)
}

/// The `TOP` names with the most samples, each as a share of `total`.
fn top(named: impl Iterator<Item = (String, u64)>, total: f64) -> Vec<Symbol> {
    let mut sums: HashMap<String, u64> = HashMap::new();
    for (name, n) in named {
        *sums.entry(name).or_default() += n;
    }
    let mut list: Vec<(String, u64)> = sums.into_iter().filter(|(_, n)| *n > 0).collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    list.into_iter()
        .take(TOP)
        .map(|(name, n)| Symbol {
            name,
            share: n as f64 / total,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atime_names_match_with_clone_suffixes() {
        assert!(is_atime_path("touch_atime"));
        assert!(is_atime_path("file_update_time.part.0"));
        assert!(!is_atime_path("pipe_read"));
    }

    #[test]
    fn top_merges_names_and_orders_by_samples() {
        let named = [
            ("a".to_string(), 2),
            ("b".to_string(), 5),
            ("a".to_string(), 4),
        ];
        let list = top(named.into_iter(), 20.0);
        assert_eq!(list[0].name, "a");
        assert_eq!(list[0].share, 0.3);
        assert_eq!(list[1].name, "b");
    }
}
