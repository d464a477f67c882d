//! The two kinds of failure iolab distinguishes: what the user asked for
//! wrongly (exit 2, nothing written) and everything else (exit 1).

/// A mistake in the command line or its values. Its message is one line that
/// names the bad value and what is allowed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    pub fn new(msg: impl Into<String>) -> Self {
        UsageError(msg.into())
    }
}

/// The run was stopped by SIGINT; everything it started has been cleaned up.
#[derive(Debug, thiserror::Error)]
#[error("interrupted: stopped by Ctrl-C, nothing stored")]
pub struct Interrupted;

pub type UsageResult<T> = Result<T, UsageError>;
