//! The two kinds of failure iolab distinguishes: what the user asked for
//! wrongly (exit 2, nothing written) and everything else (exit 1), plus a
//! run stopped by a signal (exit 128 + the signal). A run that ends with a
//! failed case is none of these: it is printed and stored, and exits 1
//! (`app::run`; `--fail-on-unsupported` counts unsupported cases too).

/// A mistake in the command line or its values. Its message is one line that
/// names the bad value and what is allowed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    pub(crate) fn new(msg: impl Into<String>) -> Self {
        UsageError(msg.into())
    }
}

/// The run was stopped by a signal (its number: SIGINT or SIGTERM);
/// everything it started has been cleaned up.
#[derive(Debug, thiserror::Error)]
#[error("interrupted: stopped by {}, nothing stored", signal_name(*.0))]
pub struct Interrupted(pub i32);

impl Interrupted {
    /// 128 + the signal, as a shell reports a process killed by it.
    pub fn exit_status(&self) -> u8 {
        u8::try_from(128 + self.0).unwrap_or(u8::MAX)
    }
}

fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT (Ctrl-C)".into(),
        libc::SIGTERM => "SIGTERM".into(),
        other => format!("signal {other}"),
    }
}

pub(crate) type UsageResult<T> = Result<T, UsageError>;

#[cfg(test)]
mod tests {
    use super::Interrupted;

    #[test]
    fn an_interruption_names_its_signal_and_exits_128_plus_it() {
        let int = Interrupted(libc::SIGINT);
        assert_eq!(
            int.to_string(),
            "interrupted: stopped by SIGINT (Ctrl-C), nothing stored"
        );
        assert_eq!(int.exit_status(), 130);
        let term = Interrupted(libc::SIGTERM);
        assert_eq!(
            term.to_string(),
            "interrupted: stopped by SIGTERM, nothing stored"
        );
        assert_eq!(term.exit_status(), 143);
    }
}

/// Returned when a case cannot run on this machine (a missing capability);
/// the runner records it as `unsupported` with this reason.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Unsupported(pub String);
