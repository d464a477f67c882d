//! The tracepoints a watch window records, with the fields it reads out of
//! each raw record, from tracefs's format files.

use crate::measure::sched::format::{with_tracefs, Field, Tracepoint};

/// The ids and fields of the four tracepoints.
pub(crate) struct Points {
    pub(super) sys_enter: (u64, EnterFields),
    pub(super) sys_exit: (u64, ExitFields),
    pub(super) switch: (u64, SwitchFields),
    pub(super) waking: (u64, WakingFields),
}

#[derive(Clone, Copy)]
pub(super) struct EnterFields {
    pub(super) id: Field,
    /// `args[0]` and `args[2]`: the descriptor and the byte count of the
    /// calls that move bytes.
    pub(super) arg0: Field,
    pub(super) arg2: Field,
}

#[derive(Clone, Copy)]
pub(super) struct ExitFields {
    pub(super) id: Field,
    pub(super) ret: Field,
}

#[derive(Clone, Copy)]
pub(super) struct SwitchFields {
    pub(super) prev_state: Field,
}

#[derive(Clone, Copy)]
pub(super) struct WakingFields {
    pub(super) pid: Field,
    pub(super) target_cpu: Field,
}

impl Points {
    /// Reads the four tracepoints' ids and fields (mounting tracefs for the
    /// read when it is not mounted and root may).
    pub(crate) fn load() -> Result<Points, String> {
        with_tracefs(Points::read)
    }

    fn read() -> Result<Points, String> {
        let enter = Tracepoint::load("raw_syscalls/sys_enter")?;
        let exit = Tracepoint::load("raw_syscalls/sys_exit")?;
        let switch = Tracepoint::load("sched/sched_switch")?;
        let waking = Tracepoint::load("sched/sched_waking")?;
        let args = enter.field("args")?;
        Ok(Points {
            sys_enter: (
                enter.id,
                EnterFields {
                    id: enter.field("id")?,
                    arg0: element(args, 0),
                    arg2: element(args, 2),
                },
            ),
            sys_exit: (
                exit.id,
                ExitFields {
                    id: exit.field("id")?,
                    ret: exit.field("ret")?,
                },
            ),
            switch: (
                switch.id,
                SwitchFields {
                    prev_state: switch.field("prev_state")?,
                },
            ),
            waking: (
                waking.id,
                WakingFields {
                    pid: waking.field("pid")?,
                    target_cpu: waking.field("target_cpu")?,
                },
            ),
        })
    }
}

/// Element `i` of an array of 8-byte words.
fn element(array: Field, i: usize) -> Field {
    Field {
        offset: array.offset + 8 * i,
        size: 8,
        signed: false,
    }
}
