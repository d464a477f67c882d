//! The project carries what it cites: every relative link in README.md,
//! ARCHITECTURE.md and docs/ resolves to a file of this repository, none
//! of them names a path outside it (such as the steering folder
//! `../shared/`, which a clone does not have), and every anchor names a
//! heading of the file it points into. The README stays a short
//! introduction: at most 300 lines, linking every file of docs/.

use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, ARCHITECTURE.md and every Markdown file under docs/.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    let dir = root().join("docs");
    for entry in std::fs::read_dir(&dir).expect("a docs/ folder") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    docs
}

/// The targets of the inline Markdown links `[text](target)` in `text`.
fn link_targets(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| rest[..end].trim())
        })
        .collect()
}

/// Why `target`, linked from `doc`, does not resolve inside the
/// repository, or None when it does (web addresses and anchors are not
/// paths).
fn broken(doc: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
        return None;
    }
    let path = target.split('#').next().unwrap_or_default();
    let joined = doc.parent().unwrap().join(path);
    let mut resolved = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    if !resolved.starts_with(root()) {
        return Some(format!("{target} points outside the repository"));
    }
    (!resolved.exists()).then(|| format!("{target} does not exist"))
}

fn problems_in(doc: &Path, text: &str) -> Vec<String> {
    let mut problems: Vec<String> = link_targets(text)
        .into_iter()
        .filter_map(|t| broken(doc, t))
        .collect();
    if text.contains("../shared") {
        problems.push("names ../shared, which a clone does not have".into());
    }
    problems
}

#[test]
fn every_link_of_the_docs_resolves_inside_the_repository() {
    let docs = documents();
    assert!(docs.len() >= 4, "{docs:?}");
    let mut problems = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for p in problems_in(doc, &text) {
            problems.push(format!("{}: {p}", doc.display()));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The files of docs/ that README.md does not link (a link with an
/// anchor counts).
fn unlinked_docs(readme: &str, docs: &[&str]) -> Vec<String> {
    let linked: Vec<&str> = link_targets(readme)
        .into_iter()
        .map(|t| t.split('#').next().unwrap_or_default())
        .collect();
    docs.iter()
        .map(|doc| format!("docs/{doc}"))
        .filter(|doc| !linked.contains(&doc.as_str()))
        .collect()
}

#[test]
fn the_readme_links_every_file_of_the_docs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let names: Vec<String> = documents()
        .iter()
        .filter(|d| d.parent() == Some(root().join("docs").as_path()))
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for required in ["experiments.md", "claims.md"] {
        assert!(
            names.iter().any(|n| n == required),
            "docs/{required} is gone"
        );
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let unlinked = unlinked_docs(&readme, &names);
    assert!(unlinked.is_empty(), "README.md does not link {unlinked:?}");
}

#[test]
fn a_docs_file_the_readme_does_not_link_is_caught() {
    let readme = "see [claims](docs/claims.md#seed-000) and [web](https://insta.rs)";
    assert_eq!(
        unlinked_docs(readme, &["claims.md", "store.md"]),
        ["docs/store.md"]
    );
}

/// The most lines README.md may have: a newcomer reads it in ten minutes,
/// and everything else lives in docs/.
const README_MAX_LINES: usize = 300;

/// Why `text` is too long for the README, or None.
fn too_long(text: &str) -> Option<String> {
    let lines = text.lines().count();
    (lines > README_MAX_LINES)
        .then(|| format!("{lines} lines, more than {README_MAX_LINES}: move the detail to docs/"))
}

#[test]
fn the_readme_is_at_most_300_lines() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert_eq!(too_long(&readme), None);
}

#[test]
fn a_readme_of_301_lines_is_caught() {
    let ok = "line\n".repeat(300);
    assert_eq!(too_long(&ok), None);
    let long = "line\n".repeat(301);
    assert_eq!(
        too_long(&long).as_deref(),
        Some("301 lines, more than 300: move the detail to docs/")
    );
}

/// GitHub's anchor of a heading's text: lowercased, each space a '-',
/// every other character but letters, digits, '-' and '_' dropped.
fn anchor_of(heading: &str) -> String {
    let mut anchor = String::new();
    for c in heading.trim().chars() {
        if c == ' ' {
            anchor.push('-');
        } else if c.is_alphanumeric() || c == '-' || c == '_' {
            anchor.extend(c.to_lowercase());
        }
    }
    anchor
}

/// The anchors of the Markdown headings of `text`, outside fenced code
/// blocks; a repeated anchor gets `-1`, `-2`... as on GitHub.
fn anchors(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if fenced || hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = anchor_of(line[hashes..].trim_end().trim_end_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while found.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        found.push(anchor);
    }
    found
}

/// The links of `text` (the document `doc`) whose anchor names no heading
/// of the Markdown file it points into; `read` gives a file's text.
fn broken_anchors(doc: &Path, text: &str, read: &dyn Fn(&Path) -> Option<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for target in link_targets(text) {
        let Some((path, anchor)) = target.split_once('#') else {
            continue;
        };
        if target.contains("://") || (!path.is_empty() && !path.ends_with(".md")) {
            continue;
        }
        let file = match path.is_empty() {
            true => doc.to_path_buf(),
            false => doc.parent().unwrap().join(path),
        };
        let Some(content) = read(&file) else {
            continue; // a missing file is the link check's to report
        };
        if !anchors(&content).iter().any(|a| a == anchor) {
            problems.push(format!("{target}: no heading #{anchor}"));
        }
    }
    problems
}

#[test]
fn every_anchor_of_the_docs_names_a_heading() {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let mut problems = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for p in broken_anchors(&doc, &text, &read) {
            problems.push(format!("{}: {p}", doc.display()));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn anchors_follow_github() {
    assert_eq!(
        anchor_of("Two hosts: `iolab agent` and `iolab run --peer`"),
        "two-hosts-iolab-agent-and-iolab-run---peer"
    );
    assert_eq!(
        anchor_of("Seed 000 (pipe atime; the Erlang port ring)"),
        "seed-000-pipe-atime-the-erlang-port-ring"
    );
    assert_eq!(anchor_of("E1 - pipe and atime"), "e1---pipe-and-atime");
    assert_eq!(
        anchor_of("snake_case and Ümlaut ±"),
        "snake_case-and-ümlaut-"
    );
    let text = "# Top\n## Same\n```sh\n# a comment, not a heading\n```\n## Same\n#nospace\n";
    assert_eq!(anchors(text), ["top", "same", "same-1"]);
}

#[test]
fn an_anchor_to_no_heading_is_caught() {
    let doc = root().join("docs/guide.md");
    let files = |p: &Path| match p.file_name()?.to_str()? {
        "other.md" => Some("# Other\n## Has this\n".to_string()),
        "guide.md" => Some("# Guide\n## Here\n".to_string()),
        _ => None,
    };
    let text = "[a](#here) [b](#gone) [c](other.md#has-this) [d](other.md#has-that) \
                [e](missing.md#x) [f](report.png#x) [g](https://example.org/#y) [h](other.md)";
    assert_eq!(
        broken_anchors(&doc, &format!("# Guide\n## Here\n{text}"), &files),
        [
            "#gone: no heading #gone",
            "other.md#has-that: no heading #has-that"
        ]
    );
}

#[test]
fn a_link_outside_or_to_nothing_is_caught() {
    let doc = root().join("README.md");
    let text = "see [the spec](../shared/EXPERIMENTS.md), [gone](docs/nothing.md), \
                [ok](docs/claims.md) and [web](https://insta.rs)";
    assert_eq!(
        problems_in(&doc, text),
        [
            "../shared/EXPERIMENTS.md points outside the repository",
            "docs/nothing.md does not exist",
            "names ../shared, which a clone does not have",
        ]
    );
}
