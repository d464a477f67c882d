//! The one way a string iolab did not write reaches a person: a process
//! name or a path doctor read from /proc, what a client sent the agent,
//! and everything stored in a run (imported runs hold what anyone wrote:
//! case names, reasons, labels, claims, environment fields). Control
//! characters are written out (`\u{1b}`), so an escape sequence can
//! neither retitle the window nor clear the screen, and each string is cut
//! at a width, so the output stays linear in its input. Machine formats
//! (JSON, CSV) keep the strings whole: their encoders escape them.

use crate::model::Run;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// The widest a stored string (a label, a host) gets in a terminal table
/// or heading: the output stays linear in its input however long a label
/// is (`show RUN --json -` gives it whole).
pub(crate) const STORED_WIDTH: usize = 60;

/// The widest any other stored string gets (a reason, a claim's figure):
/// past what iolab itself writes, short of what would flood a screen.
const TEXT_WIDTH: usize = 1000;

/// A string as the terminal may print it: control characters written out
/// as `\u{1b}`, and no more than `max` characters, an ellipsis marking a
/// cut.
pub fn printable(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (shown, c) in text.chars().enumerate() {
        if shown == max {
            out.push('…');
            break;
        }
        push_escaped(&mut out, c);
    }
    out
}

/// Text iolab composed around strings it did not write (a log line, a
/// doctor's summary, an error message), as the terminal may print it:
/// every control character but the line breaks written out.
pub fn printable_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push(c),
            c => push_escaped(&mut out, c),
        }
    }
    out
}

fn push_escaped(out: &mut String, c: char) {
    match c.is_control() {
        true => out.extend(c.escape_unicode()),
        false => out.push(c),
    }
}

/// `value` with every string in it, keys included, made printable and cut
/// at `TEXT_WIDTH`: what a text output (the table, Markdown, HTML, compare,
/// claims) renders a stored value from. A value whose JSON holds nothing to
/// change is given back as it is, without a second pass (a run of 10,000
/// results); so is one that does not come back from JSON whole (a figure
/// that is not finite, which no store holds).
pub(crate) fn shown<T: Serialize + DeserializeOwned + Clone>(value: &T) -> T {
    let Ok(text) = serde_json::to_string(value) else {
        return value.clone();
    };
    if !to_change(&text) {
        return value.clone();
    }
    let back = serde_json::from_str::<Value>(&text)
        .map(printable_value)
        .and_then(serde_json::from_value);
    back.unwrap_or_else(|_| value.clone())
}

/// Whether a JSON text holds a string `printable` would change: one with a
/// control character (JSON escapes those below U+0020; DEL and the C1 ones
/// it writes as they are) or longer than `TEXT_WIDTH` characters.
fn to_change(json: &str) -> bool {
    let bytes = json.as_bytes();
    let (mut in_string, mut chars, mut i) = (false, 0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        if !in_string {
            in_string = b == b'"';
            chars = 0;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                continue;
            }
            b'\\' if matches!(bytes.get(i), Some(b'"' | b'\\' | b'/')) => i += 1,
            b'\\' | 0x7f => return true,
            0xc2 if matches!(bytes.get(i), Some(0x80..=0x9f)) => return true,
            _ => {}
        }
        // Each character once: its first byte.
        chars += usize::from(b & 0xc0 != 0x80);
        if chars > TEXT_WIDTH {
            return true;
        }
    }
    false
}

/// `run` as `shown` makes it, with the latency histograms (which its JSON
/// leaves out) kept.
pub(crate) fn shown_run(run: &Run) -> Run {
    let mut shown = shown(run);
    for (to, from) in shown.results.iter_mut().zip(&run.results) {
        to.histogram.clone_from(&from.histogram);
    }
    shown
}

fn printable_value(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(printable(&s, TEXT_WIDTH)),
        Value::Array(items) => Value::Array(items.into_iter().map(printable_value).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (printable(&k, TEXT_WIDTH), printable_value(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J";

    #[test]
    fn only_json_that_holds_a_control_character_or_a_long_string_is_changed() {
        let json = |v: serde_json::Value| serde_json::to_string(&v).unwrap();
        assert!(!to_change(&json(
            serde_json::json!({"a\"b\\/": ["x", 1, "é"]})
        )));
        for changed in [
            HOSTILE,
            "a\nb",
            "\u{7f}",
            "\u{9b}2J",
            &"x".repeat(TEXT_WIDTH + 1),
        ] {
            assert!(
                to_change(&json(serde_json::json!({"k": changed}))),
                "{changed:?}"
            );
            assert!(
                to_change(&json(serde_json::json!({changed: 1}))),
                "key {changed:?}"
            );
        }
        assert!(!to_change(&json(serde_json::json!("é".repeat(TEXT_WIDTH)))));
    }

    #[test]
    fn control_characters_are_written_out_and_strings_cut() {
        let hostile = format!("run{HOSTILE}");
        assert_eq!(
            printable(&hostile, 80),
            "run\\u{1b}]0;pwned\\u{7}\\u{1b}[2J"
        );
        assert_eq!(printable("abcdef", 3), "abc…");
        assert_eq!(printable("fine label", 80), "fine label");
        assert_eq!(printable("\u{9b}2J", 80), "\\u{9b}2J", "C1's CSI too");
        let text = format!("line {HOSTILE}\nnext\ttab");
        assert_eq!(
            printable_text(&text),
            "line \\u{1b}]0;pwned\\u{7}\\u{1b}[2J\nnext\\u{9}tab"
        );
    }

    fn run() -> Run {
        let result = |case: &str| {
            serde_json::json!({
                "scenario": "pingpong", "case": case, "params": {"mech": "pipe"},
                "status": "ok", "reason": null, "verified": null,
                "metrics": {"rtt_ns": {"value": 5.0, "unit": "ns", "reps": [4.0, 5.0, 6.0]}},
                "headline": "rtt_ns", "latency": null, "cpu": null
            })
        };
        serde_json::from_value(serde_json::json!({
            "iolab_version": "0.1.0", "run_id": "r", "started_at": "2024-01-01T00:00:00Z",
            "finished_at": null, "label": null, "suite": null,
            "environment": {"kernel": "k", "cpu_model": "c", "cpus": 2},
            "results": [result("pipe/a"), result("pipe/b")]
        }))
        .unwrap()
    }

    #[test]
    fn a_shown_run_holds_no_control_character_and_keeps_its_histograms() {
        let mut run = run();
        run.label = Some(HOSTILE.into());
        run.results[0].reason = Some(format!("boom{HOSTILE}"));
        run.results[0].histogram = Some(vec![1, 2, 3]);
        let metric = run.results[0].metrics.values().next().unwrap().clone();
        run.results[0].metrics.insert(HOSTILE.into(), metric);
        run.environment.hostname = "x".repeat(5000);
        let shown = shown_run(&run);
        let text = serde_json::to_string(&shown).unwrap();
        assert!(
            !text.contains("\\u001b") && !text.contains("\\u0007"),
            "{text}"
        );
        assert_eq!(
            shown.results[0].reason.as_deref(),
            Some("boom\\u{1b}]0;pwned\\u{7}\\u{1b}[2J")
        );
        assert_eq!(shown.results[0].histogram, Some(vec![1, 2, 3]));
        assert_eq!(shown.environment.hostname.chars().count(), TEXT_WIDTH + 1);
        assert_eq!(
            shown.results[1..],
            run.results[1..],
            "what holds none is kept"
        );
    }
}
