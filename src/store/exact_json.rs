//! Reads JSON back into the model without losing float bits. serde_json is
//! built without its `float_roundtrip` feature, and its fast float parser
//! is then off by one ULP for about one value in ten (e.g. 103561102.85714285),
//! which would break the store's promise that `load(save(run)) == run`.
//! Every float token is parsed here with the standard library's correctly
//! rounded parser instead, and put back into the tree before deserializing.
//! Once the crate enables `float_roundtrip`, this file can go.

use serde::de::DeserializeOwned;
use serde_json::{Number, Value};

/// Stands in for the i-th float while serde_json parses the rest.
const MARK: &str = "\u{0}iolab-f64#";

pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    if text.contains("\\u0000") {
        // The text already holds NUL characters, so a placeholder could be
        // mistaken for data: fall back to serde_json's own parsing.
        return serde_json::from_str(text);
    }
    let (masked, floats) = mask_floats(text);
    let mut value: Value = serde_json::from_str(&masked)?;
    unmask(&mut value, &floats);
    serde_json::from_value(value)
}

/// Replaces each float token outside strings by a placeholder string and
/// returns the floats, parsed exactly, in order.
fn mask_floats(text: &str) -> (String, Vec<f64>) {
    let mut out = String::with_capacity(text.len());
    let mut floats = Vec::new();
    let mut rest = text;
    while let Some(pos) = rest.find(|c: char| c == '"' || c == '-' || c.is_ascii_digit()) {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        let len = if rest.starts_with('"') {
            string_len(rest)
        } else {
            number_len(rest)
        };
        let token = &rest[..len];
        match float_token(token) {
            Some(f) => {
                let mark = format!("{MARK}{}", floats.len());
                out.push_str(&serde_json::to_string(&mark).expect("a string serializes"));
                floats.push(f);
            }
            None => out.push_str(token),
        }
        rest = &rest[len..];
    }
    out.push_str(rest);
    (out, floats)
}

/// Length of the JSON string starting at `s[0] == '"'`, quotes included
/// (all of `s` if it is unterminated; serde_json then reports the error).
fn string_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

fn number_len(s: &str) -> usize {
    s.find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')))
        .unwrap_or(s.len())
}

/// The exact value of a finite float token; `None` for integers (serde_json
/// reads those exactly) and for anything malformed (left for it to reject).
fn float_token(token: &str) -> Option<f64> {
    if !token.contains(['.', 'e', 'E']) || !is_json_number(token) {
        return None;
    }
    token.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, stricter than Rust's
/// float syntax (which also takes `1.` and `01.5`).
fn is_json_number(token: &str) -> bool {
    let t = token.strip_prefix('-').unwrap_or(token);
    let (int, t) = split_digits(t);
    let int_ok = int == "0" || (!int.is_empty() && !int.starts_with('0'));
    let t = match t.strip_prefix('.') {
        Some(frac) => match split_digits(frac) {
            ("", _) => return false,
            (_, rest) => rest,
        },
        None => t,
    };
    let t = match t.strip_prefix(['e', 'E']) {
        Some(exp) => match split_digits(exp.strip_prefix(['+', '-']).unwrap_or(exp)) {
            ("", _) => return false,
            (_, rest) => rest,
        },
        None => t,
    };
    int_ok && t.is_empty()
}

fn split_digits(s: &str) -> (&str, &str) {
    s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()))
}

fn unmask(value: &mut Value, floats: &[f64]) {
    match value {
        Value::String(s) => {
            if let Some(f) = placeholder(s, floats) {
                *value = Number::from_f64(f).map_or(Value::Null, Value::Number);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| unmask(v, floats)),
        Value::Object(map) => map.values_mut().for_each(|v| unmask(v, floats)),
        _ => {}
    }
}

fn placeholder(s: &str, floats: &[f64]) -> Option<f64> {
    let index: usize = s.strip_prefix(MARK)?.parse().ok()?;
    floats.get(index).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_keep_every_bit() {
        // serde_json's default parser rounds each of these off by one ULP.
        let values = [
            103561102.85714285,
            985690694.6328695,
            1.0715660391465826e-75,
        ];
        let text = serde_json::to_string(&values).unwrap();
        let back: Vec<f64> = from_str(&text).unwrap();
        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&values));
    }

    #[test]
    fn strings_integers_and_structure_are_untouched() {
        let text =
            r#"{"a":"x \" 1.5 -2e3","b":[1,-2,18446744073709551615],"c":{"d":-0.5},"e":null}"#;
        let back: Value = from_str(text).unwrap();
        let plain: Value = serde_json::from_str(text).unwrap();
        assert_eq!(back, plain);
    }

    #[test]
    fn malformed_json_is_still_an_error() {
        assert!(from_str::<Value>(r#"{"a": 1.}"#).is_err());
        assert!(from_str::<Value>(r#"{"a": "open"#).is_err());
        assert!(from_str::<Value>("[01.5]").is_err());
        assert!(from_str::<Value>("[1e]").is_err());
    }

    #[test]
    fn json_number_grammar() {
        for ok in ["0.5", "-0.5", "1e5", "1E+5", "12.25e-3", "0"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["1.", "01.5", "-", ".5", "1e", "1.e5", "--1", "1.5.5"] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }
}
