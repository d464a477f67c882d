//! The project carries what it cites: every relative link in README.md,
//! ARCHITECTURE.md and docs/ resolves to a file of this repository, and
//! none of them names a path outside it (such as the steering folder
//! `../shared/`, which a clone does not have).

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

#[test]
fn the_readme_links_the_experiments_and_the_claims() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let targets = link_targets(&readme);
    for doc in ["docs/experiments.md", "docs/claims.md"] {
        assert!(targets.contains(&doc), "README.md does not link {doc}");
    }
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
