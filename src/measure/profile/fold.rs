//! The samples as folded stacks ("root;frame;leaf count", root first), the
//! input of a flame graph: each stack starts with its process (`iolab`, or
//! `[program]` for another program), then `[kernel]` and the kernel call
//! chain, or the user-space function. Only the `KEPT` most sampled stacks
//! are kept; the rest are summed into one `[other stacks]` line, so the
//! graph's width is still every sample.

use super::capture::Tally;
use super::symbolize::{KernelSymbols, UserSymbols};
use std::collections::HashMap;

/// Stacks kept per profile (bounds the result's JSON).
pub(crate) const KEPT: usize = 200;
const OWN: &str = "iolab";
const KERNEL: &str = "[kernel]";
const OTHERS: &str = "[other stacks]";

/// The tally's stacks with their names, root first.
pub(crate) fn stacks(
    tally: &Tally,
    kernel: Option<&KernelSymbols>,
    user: &UserSymbols,
) -> Vec<(Vec<String>, u64)> {
    let process = |pid: &u32| match tally.images.get(pid) {
        Some(Some(program)) => program.clone(),
        _ => OWN.to_string(),
    };
    let mut out = Vec::new();
    for ((pid, chain), n) in &tally.chains {
        out.push((kernel_frames(process(pid), chain, kernel), *n));
    }
    for ((pid, ip), n) in &tally.user_ips {
        let frames = match tally.images.get(pid) {
            Some(Some(program)) => vec![program.clone()],
            _ => vec![OWN.to_string(), user.name(*ip)],
        };
        out.push((frames, *n));
    }
    out
}

/// `root`, `[kernel]`, then the kernel call chain (leaf first in `chain`)
/// root first, by name where the symbols are known.
pub(crate) fn kernel_frames(
    root: String,
    chain: &[u64],
    kernel: Option<&KernelSymbols>,
) -> Vec<String> {
    let mut frames = vec![root, KERNEL.to_string()];
    if let Some(syms) = kernel {
        let names = chain
            .iter()
            .rev()
            .map(|ip| syms.name(*ip).unwrap_or(KERNEL));
        frames.extend(names.map(str::to_string));
    }
    frames
}

/// Equal stacks merged, most sampled first (then by name), at most `kept`
/// lines plus one `[other stacks]` line for the rest.
pub(crate) fn fold(
    stacks: impl IntoIterator<Item = (Vec<String>, u64)>,
    kept: usize,
) -> Vec<String> {
    let mut sums: HashMap<String, u64> = HashMap::new();
    for (frames, n) in stacks {
        let names: Vec<String> = frames.iter().map(|f| f.replace(';', ":")).collect();
        *sums.entry(names.join(";")).or_default() += n;
    }
    let mut list: Vec<(String, u64)> = sums.into_iter().filter(|(_, n)| *n > 0).collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let rest: u64 = list.iter().skip(kept).map(|(_, n)| n).sum();
    let mut lines: Vec<String> = list
        .into_iter()
        .take(kept)
        .map(|(stack, n)| format!("{stack} {n}"))
        .collect();
    if rest > 0 {
        lines.push(format!("{OTHERS} {rest}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(frames: &[&str], n: u64) -> (Vec<String>, u64) {
        (frames.iter().map(|f| f.to_string()).collect(), n)
    }

    #[test]
    fn equal_stacks_merge_and_the_most_sampled_come_first() {
        let lines = fold(
            [
                s(&["iolab", "[kernel]", "ksys_write", "pipe_write"], 3),
                s(&["iolab", "main"], 2),
                s(&["iolab", "[kernel]", "ksys_write", "pipe_write"], 4),
                s(&["[cat]"], 2),
                s(&["iolab", "idle"], 0),
            ],
            10,
        );
        assert_eq!(
            lines,
            vec![
                "iolab;[kernel];ksys_write;pipe_write 7",
                "[cat] 2",
                "iolab;main 2",
            ]
        );
    }

    #[test]
    fn stacks_beyond_the_kept_ones_are_summed() {
        let lines = fold(
            [s(&["a"], 5), s(&["b"], 3), s(&["c"], 2), s(&["d;e"], 1)],
            1,
        );
        assert_eq!(lines, vec!["a 5", "[other stacks] 6"]);
        let lines = fold([s(&["d;e"], 1)], 1);
        assert_eq!(lines, vec!["d:e 1"], "a ';' in a name is not a frame break");
    }

    #[test]
    fn a_tally_folds_with_process_and_kernel_frames() {
        let mut tally = Tally::default();
        tally.chains.insert((7, vec![0x30, 0x20]), 4);
        tally.chains.insert((8, vec![0x30]), 1);
        tally.images.insert(7, None);
        tally.images.insert(8, Some("[cat]".into()));
        tally.user_ips.insert((8, 0x1), 2);
        let kernel = KernelSymbols::from_text(
            "0000000000000010 T do_syscall\n0000000000000030 t pipe_read\n",
        );
        let user = UserSymbols::load();
        let lines = fold(stacks(&tally, Some(&kernel), &user), KEPT);
        assert_eq!(
            lines,
            vec![
                "iolab;[kernel];do_syscall;pipe_read 4",
                "[cat] 2",
                "[cat];[kernel];pipe_read 1",
            ]
        );
        let unnamed = fold(stacks(&tally, None, &user), KEPT);
        assert_eq!(unnamed[0], "iolab;[kernel] 4");
    }
}
