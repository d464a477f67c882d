//! Fitting a parameter point to a mechanism: a message size the mechanism
//! cannot carry makes that case `unsupported` with the limit, and only a
//! plan in which no case can run for that reason is refused (exit 2).

use super::{Planned, Point};
use crate::error::{UsageError, UsageResult};
use crate::exec::Mode;
use crate::mechanism::{Mechanism, Support, SIZE};
use crate::scenario::Value;

/// A message size above what a mechanism carries in one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Oversize {
    pub(crate) size: u64,
    pub(crate) mech: &'static str,
    pub(crate) max: u64,
}

impl Oversize {
    pub(crate) fn reason(&self) -> String {
        above(&self.size.to_string(), self.mech, self.max)
    }
}

fn above(sizes: &str, mech: &str, max: u64) -> String {
    format!("size {sizes} is above what {mech} carries: at most {max} bytes per message")
}

/// `point` as `mech` runs it (a counter always carries its own size), and
/// why the case cannot run, if it cannot.
pub(crate) fn to_mechanism(
    mech: &dyn Mechanism,
    mode: Mode,
    mut point: Point,
) -> (Point, Option<String>, Option<Oversize>) {
    let here = match mode {
        Mode::Processes => mech.support().and(mech.in_processes()),
        Mode::Threads => mech.support().and(mech.in_threads()),
    };
    let probe = match here {
        Support::Yes => None,
        Support::No(why) => Some(why),
    };
    let Some(size) = SIZE.int(&point) else {
        return (point, probe, None);
    };
    let max = mech.max_message() as u64;
    if mech.caps().counter {
        point.insert(SIZE.name, Value::Int(max));
        return (point, probe, None);
    }
    if size <= max {
        return (point, probe, None);
    }
    let over = Oversize {
        size,
        mech: mech.name(),
        max,
    };
    (point, Some(over.reason()), Some(over))
}

/// Refuses a plan none of whose cases can run because every one asks a
/// mechanism for a message size it cannot carry.
pub(crate) fn refuse_if_nothing_fits(planned: &[Planned]) -> UsageResult<()> {
    let overs: Option<Vec<Oversize>> = planned.iter().map(|p| p.oversize).collect();
    match overs {
        Some(overs) if !overs.is_empty() => Err(UsageError::new(nothing_fits(&overs))),
        _ => Ok(()),
    }
}

/// One line naming the sizes and every mechanism's limit.
fn nothing_fits(overs: &[Oversize]) -> String {
    let mut sizes: Vec<u64> = overs.iter().map(|o| o.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut mechs: Vec<(&str, u64)> = Vec::new();
    for o in overs {
        if !mechs.contains(&(o.mech, o.max)) {
            mechs.push((o.mech, o.max));
        }
    }
    let sizes: Vec<String> = sizes.iter().map(u64::to_string).collect();
    if let [(mech, max)] = mechs[..] {
        return above(&sizes.join(","), mech, max);
    }
    let limits: Vec<String> = mechs
        .iter()
        .map(|(mech, max)| format!("{mech} at most {max}"))
        .collect();
    format!(
        "size {} is above what each mechanism asked for carries: {} bytes per message",
        sizes.join(","),
        limits.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(size: u64, mech: &'static str, max: u64) -> Oversize {
        Oversize { size, mech, max }
    }

    #[test]
    fn one_mechanism_names_its_limit() {
        assert_eq!(
            nothing_fits(&[over(1 << 20, "udp", 65507), over(1 << 20, "udp", 65507)]),
            "size 1048576 is above what udp carries: at most 65507 bytes per message"
        );
    }

    #[test]
    fn several_mechanisms_name_each_limit_once() {
        let overs = [
            over(1 << 20, "unix-dgram", 212960),
            over(1 << 20, "udp", 65507),
            over(2 << 20, "udp", 65507),
        ];
        assert_eq!(
            nothing_fits(&overs),
            "size 1048576,2097152 is above what each mechanism asked for carries: \
             unix-dgram at most 212960, udp at most 65507 bytes per message"
        );
    }
}
