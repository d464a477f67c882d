//! The lines under a table that show a profiled case's top functions
//! (`iolab run --profile`): kernel first, then user space, each with its
//! share of the case's samples.

use crate::model::{CaseResult, Symbol};

/// Functions shown per line.
const SHOWN: usize = 5;

/// "  CASE profile, 2231 samples: kernel do_syscall_64 21.8%, ...", or the
/// note saying why there is no profile. Empty without a profile.
pub(crate) fn lines(r: &CaseResult) -> Vec<String> {
    let Some(p) = &r.profile else {
        return Vec::new();
    };
    if p.samples == 0 {
        let why = p.note.as_deref().unwrap_or("no samples");
        return vec![format!("  {} profile: none ({why})", r.case)];
    }
    let mut out = vec![format!("  {} profile, {} samples:", r.case, p.samples)];
    out.push(format!("    kernel: {}", list(&p.top_kernel)));
    out.push(format!("    user:   {}", list(&p.top_user)));
    if let Some(share) = p.atime_share {
        out.push(format!(
            "    atime/mtime update path: {:.1}% of samples",
            share * 100.0
        ));
    }
    if let Some(note) = &p.note {
        out.push(format!("    note: {note}"));
    }
    out
}

fn list(symbols: &[Symbol]) -> String {
    if symbols.is_empty() {
        return "-".into();
    }
    symbols
        .iter()
        .take(SHOWN)
        .map(|s| format!("{} {:.1}%", s.name, s.share * 100.0))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Profile;

    #[test]
    fn shows_top_five_and_the_atime_share() {
        let mut r = CaseResult::new("pipe-atime", "default/fifo", Default::default());
        let sym = |n: &str, s| Symbol {
            name: n.into(),
            share: s,
        };
        r.profile = Some(Profile {
            method: "m".into(),
            samples: 100,
            top_kernel: (0..7).map(|i| sym(&format!("k{i}"), 0.1)).collect(),
            top_user: vec![sym("main", 0.5)],
            atime_share: Some(0.11),
            note: None,
            folded: Vec::new(),
        });
        let lines = lines(&r);
        assert_eq!(lines[0], "  default/fifo profile, 100 samples:");
        assert_eq!(
            lines[1],
            "    kernel: k0 10.0%, k1 10.0%, k2 10.0%, k3 10.0%, k4 10.0%"
        );
        assert_eq!(lines[2], "    user:   main 50.0%");
        assert_eq!(lines[3], "    atime/mtime update path: 11.0% of samples");
    }

    #[test]
    fn no_profile_says_why() {
        let mut r = CaseResult::new("x", "c", Default::default());
        assert!(lines(&r).is_empty());
        r.profile = Some(Profile {
            note: Some("profiling not possible: EACCES".into()),
            ..Profile::default()
        });
        assert_eq!(
            lines(&r),
            vec!["  c profile: none (profiling not possible: EACCES)"]
        );
    }
}
