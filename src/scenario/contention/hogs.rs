//! CPU hogs for the `both+hogs` test: forked processes that spin forever,
//! started as sides through the harness, which registers them for Ctrl-C;
//! the guard kills and reaps them all when the case ends, also on error.

use crate::exec::side::{self, Ready, Side, Spec};
use crate::exec::Mode;

pub(crate) struct Hogs {
    _sides: Vec<Side>,
}

impl Hogs {
    /// Starts `n` processes that burn a CPU each.
    pub(crate) fn start(n: u64) -> anyhow::Result<Hogs> {
        let sides = (0..n)
            .map(|_| side::start(Spec::new("CPU hog", Mode::Processes), burn))
            .collect::<anyhow::Result<_>>()?;
        Ok(Hogs { _sides: sides })
    }
}

fn burn(_: &Ready) -> anyhow::Result<()> {
    let mut x = 0u64;
    loop {
        x = std::hint::black_box(x.wrapping_add(1));
    }
}
