//! Where to look next when two kernels disagree on a claim: the kernels at
//! hand whose versions lie strictly between them, the middle one to try
//! next, and, once none is left between, the later one as the first
//! version where the claim changes.

use super::cmp_releases;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Bisect {
    /// The kernels at hand between the two, in version order.
    pub(crate) between: Vec<String>,
    /// The one to try next: the middle of `between`.
    pub(crate) next: Option<String>,
    /// With nothing between: the first version where the claim changes.
    pub(crate) first_changed: Option<String>,
}

impl Bisect {
    /// "try 6.6.0-1-amd64 next (3 kernels at hand between them)", or
    /// "first changed in 6.18.44 (no kernel at hand between them)".
    pub(crate) fn text(&self) -> String {
        match (&self.next, &self.first_changed) {
            (Some(next), _) => format!(
                "try {next} next ({} at hand between them)",
                crate::format::plural(self.between.len(), "kernel")
            ),
            (None, Some(first)) => {
                format!("first changed in {first} among the kernels at hand (none between them)")
            }
            (None, None) => String::new(),
        }
    }
}

/// The bisection step between kernels `from` and `to` (ordered), over the
/// kernel releases in `at_hand`.
pub(crate) fn suggest(from: &str, to: &str, at_hand: &[String]) -> Bisect {
    let mut between: Vec<String> = at_hand
        .iter()
        .filter(|k| cmp_releases(k, from).is_gt() && cmp_releases(k, to).is_lt())
        .filter(|k| {
            super::version(k) != super::version(from) && super::version(k) != super::version(to)
        })
        .cloned()
        .collect();
    between.sort_by(|a, b| cmp_releases(a, b));
    between.dedup();
    let next = between.get(between.len() / 2).cloned();
    let first_changed = between.is_empty().then(|| to.to_string());
    Bisect {
        between,
        next,
        first_changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernels(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_middle_kernel_between_is_next() {
        let at_hand = kernels(&[
            "6.12.1",
            "5.10.0-30-amd64",
            "6.6.3",
            "6.1.0-56-amd64",
            "6.19.0",
        ]);
        let b = suggest("6.1.0-56-amd64", "6.18.44-fc", &at_hand);
        assert_eq!(b.between, ["6.6.3", "6.12.1"]);
        assert_eq!(b.next.as_deref(), Some("6.12.1"));
        assert_eq!(b.first_changed, None);
        assert_eq!(b.text(), "try 6.12.1 next (2 kernels at hand between them)");
    }

    #[test]
    fn with_nothing_between_the_later_kernel_is_the_first_changed() {
        let b = suggest(
            "6.12.1",
            "6.18.44-fc",
            &kernels(&["6.1.0-56-amd64", "6.12.1-rt"]),
        );
        assert!(b.between.is_empty(), "{b:?}");
        assert_eq!(b.next, None);
        assert_eq!(b.first_changed.as_deref(), Some("6.18.44-fc"));
        assert!(
            b.text().starts_with("first changed in 6.18.44-fc"),
            "{}",
            b.text()
        );
    }
}
