//! CPU hogs for the `both+hogs` test: forked processes that spin forever.
//! Each is registered with the runner's cleanup (so Ctrl-C kills it), and
//! the guard kills and reaps them all when the case ends, also on error.

use crate::exec::cleanup;
use crate::sys::fork::{fork, Forked};
use rustix::process::{waitpid, Pid, WaitOptions};

pub struct Hogs {
    pids: Vec<i32>,
}

impl Hogs {
    /// Starts `n` processes that burn a CPU each.
    pub fn start(n: u64) -> anyhow::Result<Hogs> {
        let mut hogs = Hogs { pids: Vec::new() };
        for _ in 0..n {
            match fork()? {
                Forked::Child => burn(),
                Forked::Parent(pid) => {
                    cleanup::track_child(pid);
                    hogs.pids.push(pid);
                    if cleanup::cancelled() {
                        cleanup::kill_child(pid);
                    }
                }
            }
        }
        Ok(hogs)
    }
}

fn burn() -> ! {
    let mut x = 0u64;
    loop {
        x = std::hint::black_box(x.wrapping_add(1));
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for &pid in &self.pids {
            cleanup::kill_child(pid);
            if let Some(p) = Pid::from_raw(pid) {
                let _ = waitpid(Some(p), WaitOptions::empty());
            }
            cleanup::untrack_child(pid);
        }
    }
}
