//! Claims grouped by seed, each seed's *myth?* claims that do not hold
//! first, in `iolab claims` and the table (`render::by_seed`).

use super::*;

/// A verdict of `id` from seed `source`, as `status`.
fn verdict_of(id: &str, source: &str, status: ClaimStatus) -> ClaimVerdict {
    let mut v = answer("E1-noatime-faster", &[]);
    v.id = id.into();
    v.source = source.into();
    v.verdict = status;
    v
}

#[test]
fn claims_group_by_seed_with_refuted_myths_first() {
    assert!(crate::claims::is_myth("E5-epoll-mmap") && !crate::claims::is_myth("E5-et-faster"));
    let claims = [
        verdict_of("E5-et-faster", "E5", Holds),
        verdict_of("E4-cork-restores", "E4", DoesNotHold),
        verdict_of("E5-select-needs-rebuild", "E5", Inconclusive),
        verdict_of("E5-epoll-mmap", "E5", DoesNotHold),
        verdict_of("E3-fifo-is-pipe", "E3", Holds),
        verdict_of("E4-nodelay-beats-cork", "E4", DoesNotHold),
        verdict_of("E4-cork-nodelay-exclusive", "E4", Holds),
    ];
    let ids: Vec<&str> = crate::claims::render::by_seed(&claims)
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "E3-fifo-is-pipe",
            "E4-nodelay-beats-cork",
            "E4-cork-restores",
            "E4-cork-nodelay-exclusive",
            "E5-epoll-mmap",
            "E5-et-faster",
            "E5-select-needs-rebuild",
        ]
    );
    let mut out = Vec::new();
    crate::claims::render::write(&mut out, &claims, "").unwrap();
    let text = String::from_utf8(out).unwrap();
    let heads: Vec<&str> = text.lines().filter(|l| l.starts_with("-- ")).collect();
    assert_eq!(heads, ["-- E3 --", "-- E4 --", "-- E5 --"], "{text}");
    let firsts: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('E'))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(firsts, ids, "{text}");
}
