//! The judges of the claims the `probe` scenario settles (`list/probe.rs`):
//! each reads one check's observations by name (`observed.rs`) and says
//! holds, does not hold or inconclusive, citing in its figure the calls
//! made and the kernel's answers that decided it. One file per seed (E4
//! and E5 split by topic).

pub(crate) mod e1;
pub(crate) mod e3;
pub(crate) mod e4_sendfile;
pub(crate) mod e4_tcp;
pub(crate) mod e5_epoll;
pub(crate) mod e5_select;

use super::rules::Outcome;
use crate::model::{ClaimStatus, Observation};

/// "fcntl(pipe, F_GETPIPE_SZ) -> 65536": the call and the kernel's answer.
pub(crate) fn said(o: &Observation) -> String {
    format!("{} -> {}", o.call, o.answer)
}

/// Holds when the kernel's answer agrees with the claim, else does not.
pub(crate) fn agrees(holds: bool, figure: String) -> Outcome {
    let status = match holds {
        true => ClaimStatus::Holds,
        false => ClaimStatus::DoesNotHold,
    };
    Outcome::new(status, figure)
}

/// The answers neither agree nor contradict: `figure` says why.
pub(crate) fn undecided(figure: String) -> Outcome {
    Outcome::new(ClaimStatus::Inconclusive, figure)
}

/// The number after `key` in `text` ("&offset = 1000" for key "&offset = ").
pub(crate) fn number_after(text: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_after_their_key() {
        let call = "sendfile(/dev/null, file, &offset = 1000, 4096)";
        assert_eq!(number_after(call, "&offset = "), Some(1000.0));
        assert_eq!(
            number_after("3 segments for 65736 bytes", "for "),
            Some(65736.0)
        );
        assert_eq!(number_after(call, "nfds = "), None);
        assert_eq!(number_after("for x", "for "), None);
    }
}
