//! Claims settled by the `probe` scenario's one-shot observations: the rule
//! kind `Rule::Observed` finds the probe result of one check and hands its
//! observations (each call made and the kernel's answer) to the claim's own
//! judge. A check that was unsupported or failed makes the claim
//! inconclusive with that reason; a judge reads observations by name and
//! says which one is missing rather than guess.

use super::outcome::{Found, Outcome};
use crate::model::{CaseResult, Observation, Status};

/// A claim's reading of its check's observations.
pub type CheckJudge = fn(&Observations) -> Found<Outcome>;

/// One probe check's observations, as its judge reads them.
pub struct Observations<'a> {
    pub(crate) check: &'static str,
    pub(crate) all: &'a [Observation],
    /// The check's figures in this host's earlier runs (`Earlier`).
    pub(crate) earlier: Vec<&'a [(String, f64)]>,
}

impl Observations<'_> {
    /// The first observation called `name`, or why there is none.
    pub(crate) fn named(&self, name: &str) -> Found<&Observation> {
        self.all
            .iter()
            .find(|o| o.name == name)
            .ok_or_else(|| format!("probe check={} recorded no {name}", self.check))
    }

    /// Every observation called `name`, in the order they were made.
    pub(crate) fn every(&self, name: &str) -> Vec<&Observation> {
        self.all.iter().filter(|o| o.name == name).collect()
    }

    /// The figures of every observation called `name`, in this run and
    /// then in this host's earlier runs, with how many runs held any.
    pub(crate) fn every_run(&self, name: &str) -> (Vec<f64>, usize) {
        let now: Vec<f64> = self.every(name).iter().filter_map(|o| o.figure).collect();
        let runs = std::iter::once(now).chain(self.earlier.iter().map(|figures| {
            let of_name = figures.iter().filter(|(n, _)| n == name);
            of_name.map(|(_, f)| *f).collect()
        }));
        let held: Vec<Vec<f64>> = runs.filter(|r| !r.is_empty()).collect();
        (held.concat(), held.len())
    }

    /// The figure of observation `name`, or why there is none.
    pub(crate) fn figure(&self, name: &str) -> Found<f64> {
        let o = self.named(name)?;
        o.figure
            .ok_or_else(|| format!("{name} has no figure ({}: {})", o.call, o.answer))
    }
}

/// "fcntl(pipe, F_GETPIPE_SZ) -> 65536": the call and the kernel's answer.
pub(crate) fn said(o: &Observation) -> String {
    format!("{} -> {}", o.call, o.answer)
}

/// The number after `key` in `text` ("&offset = 1000" for key "&offset = ").
pub(crate) fn number_after(text: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Whether `case` is the probe result of `check`.
pub(crate) fn is_check(case: &CaseResult, check: &str) -> bool {
    case.scenario == "probe" && case.param_str("check").as_deref() == Some(check)
}

/// The verdict `judge` gives the observations of probe check `check`.
pub(crate) fn decide(
    results: &[CaseResult],
    check: &'static str,
    judge: CheckJudge,
) -> Found<Outcome> {
    let r = results
        .iter()
        .find(|r| is_check(r, check))
        .ok_or_else(|| format!("no result probe check={check} in this run"))?;
    if r.status != Status::Ok {
        let why = r.reason.as_deref().unwrap_or("no reason recorded");
        return Err(format!("probe check={check} {}: {why}", r.status.as_str()));
    }
    judge(&Observations {
        check,
        all: &r.observations,
        earlier: r.past.iter().map(|e| e.observed.as_slice()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClaimStatus;
    use serde_json::json;

    fn probe(check: &str, status: Status, observations: Vec<Observation>) -> CaseResult {
        let params = [("check".to_string(), json!(check))].into_iter().collect();
        let mut r = CaseResult::new("probe", &format!("probe/{check}"), params);
        r.status = status;
        r.observations = observations;
        r
    }

    fn seen(name: &str, figure: Option<f64>) -> Observation {
        Observation {
            name: name.into(),
            call: "call()".into(),
            answer: "answer".into(),
            figure,
            ..Observation::default()
        }
    }

    /// Holds when `size` reads 65536.
    fn judge(o: &Observations) -> Found<Outcome> {
        let size = o.figure("size")?;
        let status = match size == 65536.0 {
            true => ClaimStatus::Holds,
            false => ClaimStatus::DoesNotHold,
        };
        Ok(Outcome::new(status, format!("size {size}")))
    }

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

    #[test]
    fn the_judge_reads_its_own_checks_observations() {
        let other = probe("other", Status::Ok, vec![seen("size", Some(1.0))]);
        let mine = probe("pipe", Status::Ok, vec![seen("size", Some(65536.0))]);
        let out = decide(&[other, mine], "pipe", judge).unwrap();
        assert_eq!(out.status, ClaimStatus::Holds);
        assert_eq!(out.figure, "size 65536");
    }

    #[test]
    fn a_missing_unsupported_or_unnamed_observation_says_why() {
        assert_eq!(
            decide(&[], "pipe", judge).unwrap_err(),
            "no result probe check=pipe in this run"
        );
        let mut r = probe("pipe", Status::Unsupported, vec![]);
        r.reason = Some("needs root".into());
        assert_eq!(
            decide(&[r], "pipe", judge).unwrap_err(),
            "probe check=pipe unsupported: needs root"
        );
        let r = probe("pipe", Status::Ok, vec![seen("size", None)]);
        assert_eq!(
            decide(&[r], "pipe", judge).unwrap_err(),
            "size has no figure (call(): answer)"
        );
        let r = probe("pipe", Status::Ok, vec![]);
        assert_eq!(
            decide(&[r], "pipe", judge).unwrap_err(),
            "probe check=pipe recorded no size"
        );
    }
}
