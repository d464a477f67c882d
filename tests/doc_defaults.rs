//! The documents state the code's defaults: every default README.md and
//! docs/ give for `ab`'s `--band`, `--min-rounds`, `--max-rounds` and
//! `--time-cap` is the one clap parses with (and `iolab ab --help` shows),
//! and each of them is stated somewhere.

use std::path::PathBuf;

/// The options whose defaults the documents must keep.
const FLAGS: [&str; 4] = ["band", "min-rounds", "max-rounds", "time-cap"];

/// How far after a mention its default may stand: "`--band PCT`, default
/// 5", "`--max-rounds` (1000)".
const WINDOW: usize = 12;

/// clap's default of `ab --<flag>`, as a number (a duration in seconds).
fn clap_default(flag: &str) -> f64 {
    let cli = iolab::cli::command();
    let ab = cli.find_subcommand("ab").expect("an ab command");
    let arg = ab
        .get_arguments()
        .find(|a| a.get_long() == Some(flag))
        .unwrap_or_else(|| panic!("ab has no --{flag}"));
    let value = arg
        .get_default_values()
        .first()
        .unwrap_or_else(|| panic!("ab --{flag} has no default"))
        .to_string_lossy()
        .into_owned();
    match humantime::parse_duration(&value) {
        Ok(duration) => duration.as_secs_f64(),
        Err(_) => value.parse().unwrap_or_else(|_| panic!("--{flag} {value}")),
    }
}

/// The number `text` starts with (`120 s`, `5%`, `1000)`).
fn leading_number(text: &str) -> Option<f64> {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    text[..end].parse().ok()
}

/// Each default `doc` states for `--<flag>`: the first number within
/// `WINDOW` characters after a mention in backticks (`--band` or `--band
/// PCT`), with the mention's line number.
fn stated(doc: &str, flag: &str) -> Vec<(f64, usize)> {
    let mention = format!("`--{flag}");
    let at_end = |rest: &str| rest.starts_with('`') || rest.starts_with(' ');
    let mut found = Vec::new();
    for (at, _) in doc.match_indices(&mention) {
        let rest = &doc[at + mention.len()..];
        let Some(close) = rest.find('`').filter(|_| at_end(rest)) else {
            continue;
        };
        let window: String = rest[close + 1..].chars().take(WINDOW).collect();
        let number = window
            .find(|c: char| c.is_ascii_digit())
            .and_then(|start| leading_number(&window[start..]));
        if let Some(number) = number {
            found.push((number, doc[..at].lines().count()));
        }
    }
    found
}

/// Every stated default unlike clap's, and every flag no document states
/// a default for, one line each.
fn drift(docs: &[(String, String)], defaults: &[(&str, f64)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (flag, default) in defaults {
        let mut seen = 0;
        for (name, text) in docs {
            for (number, line) in stated(text, flag) {
                seen += 1;
                if number != *default {
                    problems.push(format!(
                        "{name}:{line} gives ab --{flag} the default {number}, clap's is {default}"
                    ));
                }
            }
        }
        if seen == 0 {
            problems.push(format!(
                "no document states ab --{flag}'s default ({default})"
            ));
        }
    }
    problems
}

/// README.md and every Markdown file of docs/, by name.
fn documents() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("a docs/ folder") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            paths.push(path);
        }
    }
    paths.sort();
    let read = |path: PathBuf| {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        (name, std::fs::read_to_string(&path).unwrap())
    };
    paths.into_iter().map(read).collect()
}

#[test]
fn the_documents_give_ab_the_defaults_clap_has() {
    let defaults: Vec<(&str, f64)> = FLAGS.iter().map(|f| (*f, clap_default(f))).collect();
    assert_eq!(defaults[3], ("time-cap", 120.0), "clap's --time-cap");
    let problems = drift(&documents(), &defaults);
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn a_drifted_or_missing_default_is_named_with_its_line() {
    let doc = "the band (`--band PCT`, default 5)\nat `--max-rounds` (200) or \
               `--time-cap` (120 s), `--max-rounds`/`--time-cap` name none";
    let docs = [("docs/x.md".to_string(), doc.to_string())];
    let defaults = [
        ("band", 5.0),
        ("max-rounds", 1000.0),
        ("time-cap", 120.0),
        ("min-rounds", 10.0),
    ];
    assert_eq!(
        drift(&docs, &defaults),
        [
            "docs/x.md:2 gives ab --max-rounds the default 200, clap's is 1000",
            "no document states ab --min-rounds's default (10)",
        ]
    );
    assert_eq!(
        stated("`--band-width` 7 and `--band`, 5% either way", "band"),
        [(5.0, 1)]
    );
}
