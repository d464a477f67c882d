//! Typed scenario parameters: how each is declared, parsed from the
//! command line (`--param size=64,4k`), and carried by a case.

use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A byte count: 64, 4k, 9M (powers of 1024).
    Bytes,
    /// A positive byte count, or `auto` (carried as text) for a size the
    /// scenario chooses itself.
    BytesOrAuto,
    /// A positive count: 2000, 100k, 10M (powers of 1000).
    Count,
    /// A positive count, or `max` (carried as text): as many as go.
    CountOrMax,
    /// A count that may be 0: 0, 10, 10k (powers of 1000).
    Number,
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
    /// One of the names a table lists (the pollers', the copiers'), read
    /// from the table so it stays the one declaration of its names.
    Listed(Listed),
    /// Free text, e.g. a command line; it may hold spaces but not commas
    /// (a comma separates the values of a sweep).
    Text,
    /// A positive duration such as 200ms or 10s, carried in nanoseconds.
    Duration,
    /// A number of processes, 0 or more, or `auto`: one less than the CPUs
    /// this process may use.
    Workers,
}

/// The function that lists a table's names, in the table's order. Two are
/// equal when they list the same names (a function's address says
/// nothing).
#[derive(Debug, Clone, Copy)]
pub struct Listed(pub fn() -> Vec<&'static str>);

impl PartialEq for Listed {
    fn eq(&self, other: &Listed) -> bool {
        (self.0)() == (other.0)()
    }
}

impl Eq for Listed {}

/// A parameter a scenario accepts, with its default (a list sweeps).
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub(crate) default: &'static str,
    pub(crate) about: &'static str,
    /// Shown in the case name (e.g. the message size: `pipe/.../64B`).
    pub(crate) in_name: bool,
}

impl ParamSpec {
    /// This parameter's number in `values`, if it has one there.
    pub(crate) fn int(&self, values: &BTreeMap<&'static str, Value>) -> Option<u64> {
        match values.get(self.name) {
            Some(Value::Int(n)) => Some(*n),
            _ => None,
        }
    }

    /// This parameter's text in `values`, if it has some there.
    pub(crate) fn text<'a>(&self, values: &'a BTreeMap<&'static str, Value>) -> Option<&'a str> {
        match values.get(self.name) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// True when `other` declares the same parameter (a scenario may give
    /// a shared one its own default and description).
    pub(crate) fn same(&self, other: &ParamSpec) -> bool {
        self.name == other.name && self.kind == other.kind
    }
}

/// One parameter value of one case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    Int(u64),
    Text(String),
}

impl Value {
    pub(crate) fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Int(n) => serde_json::Value::from(*n),
            Value::Text(s) => serde_json::Value::from(s.clone()),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

/// The largest count a parameter takes: at 100 ns an operation, a day
/// and more; a count near 2^64 would wrap round with the warm-up added.
pub(crate) const MAX_COUNT: u64 = 1_000_000_000_000;
/// The longest duration a parameter takes: a case is stopped after 300 s.
pub(crate) const MAX_DURATION_NS: u64 = 300_000_000_000;

/// The length of `words` joined by commas.
pub(crate) const fn joined_len(words: &[&str]) -> usize {
    let (mut len, mut i) = (0, 0);
    while i < words.len() {
        len += words[i].len() + (i > 0) as usize;
        i += 1;
    }
    len
}

/// `words` joined by commas, as the `N` (`joined_len`) bytes of the text.
pub(crate) const fn joined<const N: usize>(words: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let (mut at, mut i) = (0, 0);
    while i < words.len() {
        if i > 0 {
            out[at] = b',';
            at += 1;
        }
        let word = words[i].as_bytes();
        let mut j = 0;
        while j < word.len() {
            out[at] = word[j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Every word of a choice list joined by commas, made at compile time: the
/// default of a parameter that sweeps all its choices, without naming
/// them a second time.
macro_rules! every_choice {
    ($words:expr) => {{
        const BYTES: [u8; $crate::params::joined_len($words)] = $crate::params::joined($words);
        match std::str::from_utf8(&BYTES) {
            Ok(text) => text,
            Err(_) => panic!("choice words are UTF-8"),
        }
    }};
}
pub(crate) use every_choice;

impl ParamKind {
    /// The words a choice allows, in order; None for other kinds.
    pub(crate) fn words(&self) -> Option<Vec<&'static str>> {
        match self {
            ParamKind::Choice(words) => Some(words.to_vec()),
            ParamKind::Listed(Listed(list)) => Some(list()),
            _ => None,
        }
    }

    /// What values look like, for error messages and `iolab list`.
    pub(crate) fn expected(&self) -> String {
        match self {
            ParamKind::Bytes => "a positive byte count such as 64, 4k or 9M".to_string(),
            ParamKind::BytesOrAuto => {
                "auto or a positive byte count such as 64, 4k or 9M".to_string()
            }
            ParamKind::Count => {
                "a positive count such as 2000, 100k or 10M, at most 1000G".to_string()
            }
            ParamKind::CountOrMax => {
                "max or a positive count such as 2000, 100k or 10M, at most 1000G".to_string()
            }
            ParamKind::Number => "a count such as 0, 10 or 10k, at most 1000G".to_string(),
            ParamKind::Choice(_) | ParamKind::Listed(_) => {
                format!("one of {}", self.words().unwrap_or_default().join(", "))
            }
            ParamKind::Text => "non-empty text".to_string(),
            ParamKind::Duration => {
                "a positive duration such as 200ms or 10s, at most 300s".to_string()
            }
            ParamKind::Workers => {
                "a number of processes (0 or more) or auto (the CPUs minus one)".to_string()
            }
        }
    }

    pub fn parse(&self, text: &str) -> Option<Value> {
        match self {
            ParamKind::Bytes => parse_scaled(text, 1024).filter(|n| *n > 0).map(Value::Int),
            ParamKind::BytesOrAuto if text.trim() == "auto" => Some(Value::Text("auto".into())),
            ParamKind::BytesOrAuto => ParamKind::Bytes.parse(text),
            ParamKind::Count => parse_scaled(text, 1000)
                .filter(|n| (1..=MAX_COUNT).contains(n))
                .map(Value::Int),
            ParamKind::CountOrMax if text.trim() == "max" => Some(Value::Text("max".into())),
            ParamKind::CountOrMax => ParamKind::Count.parse(text),
            ParamKind::Number => parse_scaled(text, 1000)
                .filter(|n| *n <= MAX_COUNT)
                .map(Value::Int),
            ParamKind::Choice(_) | ParamKind::Listed(_) => self
                .words()
                .unwrap_or_default()
                .into_iter()
                .find(|w| *w == text)
                .map(|w| Value::Text(w.to_string())),
            ParamKind::Text => Some(text.trim())
                .filter(|t| !t.is_empty())
                .map(|t| Value::Text(t.to_string())),
            ParamKind::Duration => parse_duration_ns(text)
                .filter(|n| *n <= MAX_DURATION_NS)
                .map(Value::Int),
            ParamKind::Workers => parse_workers(text).map(Value::Int),
        }
    }
}

/// "200ms" -> 200_000_000; None for zero, garbage or beyond u64 nanoseconds.
pub(crate) fn parse_duration_ns(text: &str) -> Option<u64> {
    let d = humantime::parse_duration(text.trim()).ok()?;
    u64::try_from(d.as_nanos()).ok().filter(|n| *n > 0)
}

fn parse_workers(text: &str) -> Option<u64> {
    if text.trim() == "auto" {
        let cpus = crate::measure::pin::allowed_cpus().len() as u64;
        return Some(cpus.saturating_sub(1));
    }
    let t = text.trim();
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.parse().ok())
        .flatten()
}

/// "64" -> 64, "4k" -> 4*base, "9M" -> 9*base^2, "1G" -> base^3; an
/// optional trailing "B" or "iB" is allowed. None for anything else.
pub(crate) fn parse_scaled(text: &str, base: u64) -> Option<u64> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, power) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1),
        'm' | 'M' => (&t[..t.len() - 1], 2),
        'g' | 'G' => (&t[..t.len() - 1], 3),
        _ => (t, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits
        .parse::<u64>()
        .ok()?
        .checked_mul(base.checked_pow(power)?)
}

/// Parses a comma-separated list for `spec`, or says what was wrong.
pub fn parse_list(spec: &ParamSpec, text: &str) -> Result<Vec<Value>, String> {
    let mut values = Vec::new();
    for item in text.split(',') {
        match spec.kind.parse(item) {
            Some(v) if !values.contains(&v) => values.push(v),
            Some(_) => {}
            None => {
                return Err(format!(
                    "invalid value '{item}' for {}: expected {}",
                    spec.name,
                    spec.kind.expected()
                ))
            }
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: ParamSpec = ParamSpec {
        name: "size",
        kind: ParamKind::Bytes,
        default: "1",
        about: "",
        in_name: true,
    };

    #[test]
    fn scaled_values() {
        assert_eq!(parse_scaled("64", 1024), Some(64));
        assert_eq!(parse_scaled("4k", 1024), Some(4096));
        assert_eq!(parse_scaled("9M", 1024), Some(9 << 20));
        assert_eq!(parse_scaled("2KiB", 1024), Some(2048));
        assert_eq!(parse_scaled("100k", 1000), Some(100_000));
        assert_eq!(parse_scaled("-1", 1024), None);
        assert_eq!(parse_scaled("1.5k", 1024), None);
        assert_eq!(parse_scaled("", 1024), None);
        assert_eq!(parse_scaled("99999999999999G", 1024), None);
    }

    #[test]
    fn lists_sweep_and_dedupe() {
        let v = parse_list(&SIZE, "1,64,4k,64").unwrap();
        assert_eq!(v, vec![Value::Int(1), Value::Int(64), Value::Int(4096)]);
    }

    #[test]
    fn bad_value_names_itself_and_what_is_allowed() {
        let err = parse_list(&SIZE, "1,-1").unwrap_err();
        assert_eq!(
            err,
            "invalid value '-1' for size: expected a positive byte count such as 64, 4k or 9M"
        );
    }

    #[test]
    fn count_must_be_positive_and_choice_exact() {
        assert_eq!(ParamKind::Count.parse("0"), None);
        assert_eq!(ParamKind::Number.parse("0"), Some(Value::Int(0)));
        assert_eq!(ParamKind::Number.parse("-1"), None);
        let kind = ParamKind::Choice(&["a", "b"]);
        assert_eq!(kind.parse("b"), Some(Value::Text("b".into())));
        assert_eq!(kind.parse("c"), None);
    }

    #[test]
    fn a_listed_choice_reads_its_table_and_compares_by_its_names() {
        let kind = ParamKind::Listed(Listed(|| vec!["x", "y"]));
        assert_eq!(kind.parse("y"), Some(Value::Text("y".into())));
        assert_eq!(kind.parse("z"), None);
        assert_eq!(kind.expected(), "one of x, y");
        assert_eq!(kind, ParamKind::Listed(Listed(|| vec!["x", "y"])));
        assert_ne!(kind, ParamKind::Listed(Listed(|| vec!["x"])));
    }

    #[test]
    fn every_choice_joins_the_words_by_commas() {
        const WORDS: &[&str] = &["pipe", "16-pages", "é"];
        const ALL: &str = every_choice!(WORDS);
        assert_eq!(ALL, "pipe,16-pages,é");
        const NONE: &str = every_choice!(&[]);
        assert_eq!(NONE, "");
    }

    #[test]
    fn text_keeps_spaces_and_refuses_empty() {
        let echo = ParamSpec {
            name: "echo",
            kind: ParamKind::Text,
            default: "/bin/cat",
            about: "",
            in_name: true,
        };
        let v = parse_list(&echo, "tr 1 2,/bin/cat").unwrap();
        assert_eq!(
            v,
            vec![Value::Text("tr 1 2".into()), Value::Text("/bin/cat".into())]
        );
        assert!(parse_list(&echo, " ").is_err());
    }

    #[test]
    fn durations_and_workers() {
        assert_eq!(
            ParamKind::Duration.parse("200ms"),
            Some(Value::Int(200_000_000))
        );
        assert_eq!(
            ParamKind::Duration.parse("10s"),
            Some(Value::Int(10_000_000_000))
        );
        assert_eq!(ParamKind::Duration.parse("0s"), None);
        assert_eq!(ParamKind::Duration.parse("fast"), None);
        assert_eq!(ParamKind::Workers.parse("0"), Some(Value::Int(0)));
        assert_eq!(ParamKind::Workers.parse("-1"), None);
        assert!(ParamKind::Workers.parse("auto").is_some());
        let auto = Some(Value::Text("auto".into()));
        assert_eq!(ParamKind::BytesOrAuto.parse("auto"), auto);
        assert_eq!(ParamKind::BytesOrAuto.parse("4k"), Some(Value::Int(4096)));
        assert_eq!(ParamKind::BytesOrAuto.parse("0"), None);
    }
}
