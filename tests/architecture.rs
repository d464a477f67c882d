//! The floor plan, enforced: every file under `src/` belongs to a top-level
//! module, every module sits in a layer of the table in ARCHITECTURE.md,
//! and no file refers to a module of a higher layer (so no import circle
//! can span two layers). Scenarios start no side themselves (that is the
//! harness's job), `unsafe` appears only under `src/sys/`, the claims
//! engine (`src/claims/engine/`) imports no seed and no scenario module,
//! `stats` (`src/stats/`) imports nothing of iolab and reaches no system,
//! every path ARCHITECTURE.md names exists and every function its Entry
//! points name is defined in that module, a module is `pub` in
//! `src/lib.rs` only when the binary, a test, a bench or an example uses
//! it, the commands' domain modules (`doctor`, `ab`, `compare`, `agent`)
//! hold no pipeline code (progress bars, exit statuses, JSON written out:
//! `src/app/`'s), `doctor` and `ab` do not name each other, and the
//! runner's submodules call no item of `runner/mod.rs` (the harness is
//! `runner/harness.rs`).
//!
//! The source is read as Rust tokens (proc-macro2's lexer), so comments,
//! doc comments and string literals never count. References followed:
//! `crate::x` paths (in `use`, in groups `crate::{x, y}`, in expressions),
//! `iolab::x` (the binary's way in) and `super::` chains that climb to the
//! crate root. Test modules and test files are checked like any code.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A source file: its path from the package root (`src/app.rs`) and text.
type File = (String, String);

/// Each top-level module's layer: number and name.
type Layers = BTreeMap<String, (u32, String)>;

/// The fenced ```layers block: one `N name: module module ...` per line,
/// numbers rising, each module once.
fn parse_layers(doc: &str) -> Result<Layers, String> {
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .ok_or("ARCHITECTURE.md has no ```layers block")?;
    let mut layers = Layers::new();
    let mut previous = None;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let bad = || format!("bad layer line '{line}': expected 'N name: module module ...'");
        let (head, modules) = line.split_once(':').ok_or_else(bad)?;
        let (number, name) = head.trim().split_once(' ').ok_or_else(bad)?;
        let number: u32 = number.parse().map_err(|_| bad())?;
        if let Some(p) = previous.filter(|p| number <= *p) {
            return Err(format!("layer {number} comes after layer {p}"));
        }
        previous = Some(number);
        for module in modules.split_whitespace() {
            let layer = (number, name.trim().to_string());
            if layers.insert(module.to_string(), layer).is_some() {
                return Err(format!("module {module} is twice in the layer table"));
            }
        }
    }
    Ok(layers)
}

fn lex(path: &str, text: &str) -> TokenStream {
    text.parse()
        .unwrap_or_else(|err| panic!("{path} is not Rust tokens: {err}"))
}

/// The top-level module of each file and its module depth (`src/app.rs`:
/// app, 1; `src/scenario/common/side.rs`: scenario, 3; the crate roots 0).
/// A file that a `#[path]` attribute brings in (`src/format_tests.rs`)
/// belongs to the declaring file's module, one level down.
fn modules(files: &[File]) -> BTreeMap<String, (String, usize)> {
    let mut found = BTreeMap::new();
    for (path, _) in files {
        let rel = path.trim_start_matches("src/").trim_end_matches(".rs");
        let parts: Vec<&str> = rel.split('/').filter(|p| *p != "mod").collect();
        let depth = parts.len() - usize::from(matches!(rel, "lib" | "main"));
        found.insert(path.clone(), (parts[0].to_string(), depth));
    }
    for (path, text) in files {
        let (module, depth) = found[path].clone();
        let dir = Path::new(path).parent().unwrap();
        each_level(lex(path, text), 0, &mut |level, _| {
            for target in path_attributes(level) {
                let target = dir.join(target).to_string_lossy().into_owned();
                found.insert(target, (module.clone(), depth + 1));
            }
        });
    }
    found
}

/// The file named by each `#[path = "..."]` among these tokens.
fn path_attributes(level: &[TokenTree]) -> Vec<String> {
    let path = |tree: &TokenTree| match tree {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
            let attr = g.stream().to_string();
            attr.strip_prefix("path = \"")?
                .strip_suffix('"')
                .map(String::from)
        }
        _ => None,
    };
    level.iter().filter_map(path).collect()
}

/// Calls `visit` with the tokens of every nesting level (the file, then
/// each group's inside) and that level's module depth (an inline `mod x {`
/// goes one deeper).
fn each_level(tokens: TokenStream, depth: usize, visit: &mut impl FnMut(&[TokenTree], usize)) {
    let level: Vec<TokenTree> = tokens.into_iter().collect();
    visit(&level, depth);
    for (i, tree) in level.iter().enumerate() {
        if let TokenTree::Group(group) = tree {
            let inline_mod = i >= 2
                && group.delimiter() == Delimiter::Brace
                && matches!(&level[i - 2], TokenTree::Ident(m) if m == "mod");
            each_level(group.stream(), depth + usize::from(inline_mod), visit);
        }
    }
}

fn is_sep(level: &[TokenTree], i: usize) -> bool {
    let colon = |i: usize| matches!(level.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':');
    colon(i) && colon(i + 1)
}

fn ident_at(level: &[TokenTree], i: usize) -> Option<String> {
    match level.get(i) {
        Some(TokenTree::Ident(ident)) => Some(ident.to_string()),
        _ => None,
    }
}

/// The top-level modules named right after a path's root at `level[i]`:
/// `x` in `::x`, or the first segment of each item of `::{x, y::z}`.
fn after_root(level: &[TokenTree], i: usize, out: &mut BTreeSet<String>) {
    if !is_sep(level, i) {
        return;
    }
    if let Some(first) = ident_at(level, i + 2) {
        out.insert(first);
    } else if let Some(TokenTree::Group(group)) = level.get(i + 2) {
        let items: Vec<TokenTree> = group.stream().into_iter().collect();
        let comma = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == ',');
        out.extend(items.split(comma).filter_map(|item| ident_at(item, 0)));
    }
}

/// The top-level modules one file refers to (`self` dropped).
fn references(path: &str, text: &str, depth: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    each_level(lex(path, text), depth, &mut |level, depth| {
        for i in 0..level.len() {
            let rooted = i < 2 || !is_sep(level, i - 2);
            match ident_at(level, i).as_deref() {
                Some("crate" | "iolab") if rooted => after_root(level, i + 1, &mut out),
                Some("super") if rooted => {
                    let up = |k: &usize| ident_at(level, i + 3 * k).as_deref() == Some("super");
                    let climbs = (0..).take_while(up).count();
                    if climbs == depth {
                        after_root(level, i + 3 * climbs - 2, &mut out);
                    }
                }
                _ => {}
            }
        }
    });
    out.remove("self");
    out
}

/// Every reference to a higher layer or to a module outside the table, and
/// every table entry with no module in `src/`.
fn check_layers(table: &str, files: &[File]) -> Vec<String> {
    let layers = match parse_layers(table) {
        Ok(layers) => layers,
        Err(err) => return vec![err],
    };
    let mut problems = Vec::new();
    let modules = modules(files);
    for (path, text) in files {
        let (module, depth) = &modules[path];
        let Some((layer, _)) = layers.get(module) else {
            problems.push(format!("{path}: module {module} is not in the layer table"));
            continue;
        };
        for used in references(path, text, *depth) {
            let at = format!("{path} (layer {layer}: {module}) imports crate::{used}");
            match layers.get(&used) {
                None => problems.push(format!("{at} (not in the layer table)")),
                Some((to, _)) if to > layer => problems.push(format!("{at} (layer {to})")),
                Some(_) => {}
            }
        }
    }
    let present: BTreeSet<&String> = modules.values().map(|(m, _)| m).collect();
    for module in layers.keys().filter(|m| !present.contains(m)) {
        problems.push(format!("the layer table names {module}, not in src/"));
    }
    problems
}

/// One level as text, one token per word; a group shows only its kind
/// (`Parenthesis`: its inside is a level of its own), a literal as `LIT`.
fn words(level: &[TokenTree]) -> String {
    let word = |tree: &TokenTree| match tree {
        TokenTree::Ident(ident) => ident.to_string(),
        TokenTree::Punct(punct) => punct.as_char().to_string(),
        TokenTree::Literal(_) => "LIT".to_string(),
        TokenTree::Group(group) => format!("{:?}", group.delimiter()),
    };
    let text: Vec<String> = level.iter().map(word).collect();
    format!(" {} ", text.join(" "))
}

/// What starts a side; none of it may appear under `src/scenario/`.
const STARTS: &str = "fork( Command::new thread::spawn thread::scope thread::Builder spawn_scoped";

/// Each file whose path `keep`s and whose code contains one of `patterns`
/// (written as in source, e.g. `thread::spawn`), as `path: pattern`.
fn find_code(files: &[File], keep: impl Fn(&str) -> bool, patterns: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in files.iter().filter(|(path, _)| keep(path)) {
        let mut hits = BTreeSet::new();
        each_level(lex(path, text), 0, &mut |level, _| {
            let level = words(level);
            for pattern in patterns.split_whitespace() {
                let spaced = pattern.replace("::", " : : ").replace('(', " Parenthesis");
                if level.contains(&format!(" {spaced} ")) {
                    hits.insert(pattern);
                }
            }
        });
        found.extend(hits.into_iter().map(|hit| format!("{path}: {hit}")));
    }
    found
}

/// The harness rule: no file under `src/scenario/` starts a side itself.
fn check_harness(files: &[File]) -> Vec<String> {
    let found = find_code(files, |path| path.starts_with("src/scenario/"), STARTS);
    let why = |f: String| format!("{f} (start sides through src/exec)");
    found.into_iter().map(why).collect()
}

/// `unsafe` only under `src/sys/` (next to `#![deny(unsafe_code)]`).
fn check_unsafe(files: &[File]) -> Vec<String> {
    find_code(files, |path| !path.starts_with("src/sys/"), "unsafe")
}

/// A file's tokens as words with every group inlined (`{`, `}`, `(`...),
/// so a path and the group it ends in read as one sequence.
fn flat_words(tokens: TokenStream, out: &mut Vec<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::None => ("", ""),
                };
                out.push(open.into());
                flat_words(g.stream(), out);
                out.push(close.into());
            }
            TokenTree::Ident(i) => out.push(i.to_string()),
            TokenTree::Punct(p) => out.push(p.as_char().to_string()),
            TokenTree::Literal(_) => out.push("LIT".into()),
        }
    }
}

/// Every path from `words[at]` on (`a::b::{c, d::e}` gives a::b::c and
/// a::b::d::e), each as its segments.
fn path_at(words: &[String], at: usize) -> Vec<Vec<String>> {
    let mut path = vec![words[at].clone()];
    let mut i = at + 1;
    while words.get(i).map(String::as_str) == Some(":")
        && words.get(i + 1).map(String::as_str) == Some(":")
    {
        match words.get(i + 2).map(String::as_str) {
            Some("{") => {
                let mut items = Vec::new();
                let (mut j, mut depth) = (i + 3, 0);
                let mut start = j;
                while j < words.len() {
                    match words[j].as_str() {
                        "{" => depth += 1,
                        "}" if depth == 0 => break,
                        "}" => depth -= 1,
                        "," if depth == 0 => {
                            items.push(start);
                            start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                items.push(start);
                let inner = &words[..j];
                let tails = items
                    .into_iter()
                    .filter(|k| *k < j)
                    .flat_map(|k| path_at(inner, k));
                return tails.map(|t| [path.clone(), t].concat()).collect();
            }
            Some(word) => path.push(word.to_string()),
            None => break,
        }
        i += 3;
    }
    vec![path]
}

/// The module a file is (`src/claims/engine/rule.rs`: claims, engine,
/// rule; a `mod.rs` is its folder's).
fn module_of(path: &str) -> Vec<String> {
    let rel = path.trim_start_matches("src/").trim_end_matches(".rs");
    rel.split('/')
        .filter(|p| *p != "mod")
        .map(String::from)
        .collect()
}

/// Every `crate::` and `super::` path in a file, written from the crate
/// root (`crate::scenario::contention::READER`).
fn rooted_paths(path: &str, text: &str) -> Vec<Vec<String>> {
    let mut words = Vec::new();
    flat_words(lex(path, text), &mut words);
    let module = module_of(path);
    let mut found = Vec::new();
    for at in 0..words.len() {
        let rooted = at < 2 || words[at - 1] != ":";
        if !rooted || !matches!(words[at].as_str(), "crate" | "super") {
            continue;
        }
        for p in path_at(&words, at) {
            let ups = p.iter().take_while(|s| *s == "super").count();
            if ups > module.len() {
                continue;
            }
            let base = &module[..module.len() - ups];
            let rest = p.iter().skip(ups).skip_while(|s| *s == "crate");
            let base = if p[0] == "crate" { &[][..] } else { base };
            found.push(base.iter().cloned().chain(rest.cloned()).collect());
        }
    }
    found
}

/// The engine rule: no file under `src/claims/engine/` names a seed or a
/// scenario's own module (the scenario layer's types, `crate::scenario::
/// MetricSpec`, are its vocabulary).
fn check_engine(files: &[File]) -> Vec<String> {
    let mut found = BTreeSet::new();
    for (path, text) in files
        .iter()
        .filter(|(p, _)| p.starts_with("src/claims/engine/"))
    {
        for p in rooted_paths(path, text) {
            let seed = p.starts_with(&["claims".to_string(), "seeds".to_string()]);
            let scenario = p.first().map(String::as_str) == Some("scenario")
                && p.get(1)
                    .is_some_and(|m| m.starts_with(|c: char| c.is_lowercase()));
            if seed || scenario {
                let named = p[..2].join("::");
                found.insert(format!(
                    "{path} imports crate::{named} (the engine names no seed or scenario)"
                ));
            }
        }
    }
    found.into_iter().collect()
}

/// The `stats` rule: no file under `src/stats/` refers to a top-level
/// module other than `stats` (by `crate::`, `iolab::` or `super::`), nor
/// reaches the system through `std`'s I/O, process, thread or clock
/// modules or a crate of system calls.
fn check_stats(files: &[File]) -> Vec<String> {
    let modules = modules(files);
    let mut found = BTreeSet::new();
    for (path, text) in files.iter().filter(|(p, _)| p.starts_with("src/stats/")) {
        let (_, depth) = &modules[path];
        for used in references(path, text, *depth)
            .into_iter()
            .filter(|m| m != "stats")
        {
            found.insert(format!(
                "{path} imports crate::{used} (stats imports nothing of iolab)"
            ));
        }
        for reached in system_paths(path, text) {
            found.insert(format!(
                "{path} uses {reached} (stats does no I/O and no system call)"
            ));
        }
    }
    found.into_iter().collect()
}

/// The domain modules of commands, whose pipelines live in `src/app/`.
const DOMAINS: [&str; 4] = ["src/doctor/", "src/ab/", "src/compare/", "src/agent/"];

/// What only a command's pipeline does: progress bars, exit statuses,
/// JSON documents written out.
const PIPELINE: &str = "indicatif ExitCode process::exit to_string_pretty to_writer_pretty";

fn check_pipelines(files: &[File]) -> Vec<String> {
    let domain = |path: &str| DOMAINS.iter().any(|d| path.starts_with(d));
    let found = find_code(files, domain, PIPELINE);
    let why = |f: String| format!("{f} (a command's pipeline lives in src/app/)");
    found.into_iter().map(why).collect()
}

/// `doctor` names no `ab` and `ab` no `doctor`: both plan their cases
/// through `plan::one_case`.
fn check_sideways(files: &[File]) -> Vec<String> {
    let mut found = BTreeSet::new();
    for (path, text) in files {
        let from = module_of(path);
        let other = match from.first().map(String::as_str) {
            Some("doctor") => "ab",
            Some("ab") => "doctor",
            _ => continue,
        };
        if rooted_paths(path, text)
            .iter()
            .any(|p| p.first().is_some_and(|m| m == other))
        {
            found.insert(format!(
                "{path} names crate::{other} (doctor and ab plan cases through plan::one_case)"
            ));
        }
    }
    found.into_iter().collect()
}

/// Each circle of imports between top-level modules in product code, as
/// `a -> b -> a` with the file that makes each step: sideways imports are
/// allowed, a circle of them makes one module of several. Test files (a
/// test borrowing another module's fixture) do not count.
fn check_module_circles(files: &[File]) -> Vec<String> {
    let modules = modules(files);
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (path, text) in files.iter().filter(|(p, _)| !is_test_file(p)) {
        let (from, depth) = &modules[path];
        for used in references(path, text, *depth)
            .into_iter()
            .filter(|u| u != from)
        {
            let by = edges.entry(from.clone()).or_default();
            by.entry(used).or_insert_with(|| path.clone());
        }
    }
    let mut found = BTreeSet::new();
    for start in edges.keys() {
        if let Some(circle) = circle_from(start, &edges) {
            found.insert(circle);
        }
    }
    found.into_iter().collect()
}

/// A file of tests by its name: `tests.rs`, `*_tests.rs`, under `tests/`.
fn is_test_file(path: &str) -> bool {
    let stem = Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    stem == "tests" || stem.ends_with("_tests") || path.contains("/tests/")
}

/// Each product file that makes a `UsageError` (exit 2) but is not among
/// the paths the map's Bad input invariant names: a file (`src/mem.rs`) or
/// a folder (`src/store/`).
fn check_usage_errors(doc: &str, files: &[File]) -> Vec<String> {
    let Some(bullet) = doc.split("\n- **").find(|b| b.starts_with("Bad input**")) else {
        return vec!["ARCHITECTURE.md has no Bad input invariant".into()];
    };
    let named: Vec<&str> = bullet
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|p| p.starts_with("src/"))
        .collect();
    let allowed = |path: &str| {
        named
            .iter()
            .any(|n| path == *n || (n.ends_with('/') && path.starts_with(n)))
    };
    files
        .iter()
        .filter(|(p, text)| {
            p != "src/error.rs" && !is_test_file(p) && text.contains("UsageError::new(")
        })
        .filter(|(p, _)| !allowed(p))
        .map(|(p, _)| format!("{p} makes a UsageError; the Bad input invariant does not name it"))
        .collect()
}

/// The shortest way from `start` back to itself, breadth first, written
/// from the circle's smallest module so each circle is named once.
fn circle_from(start: &str, edges: &BTreeMap<String, BTreeMap<String, String>>) -> Option<String> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in edges.get(at).into_iter().flat_map(|e| e.keys()) {
            if next == start {
                let mut way = vec![at];
                while let Some(prev) = came_from.get(way[way.len() - 1]) {
                    way.push(prev);
                }
                way.reverse();
                let low = (0..way.len()).min_by_key(|i| way[*i]).unwrap();
                way.rotate_left(low);
                let steps: Vec<String> = (0..way.len())
                    .map(|i| {
                        let (a, b) = (way[i], way[(i + 1) % way.len()]);
                        format!("{a} -> {b} ({})", edges[a][b])
                    })
                    .collect();
                return Some(format!("an import circle: {}", steps.join(", ")));
            }
            if next != start && !came_from.contains_key(next.as_str()) {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    None
}

/// The modules `text` declares at its top level (`mod x;`, `pub(crate) mod x;`).
fn declared_modules(path: &str, text: &str) -> BTreeSet<String> {
    let level: Vec<TokenTree> = lex(path, text).into_iter().collect();
    (1..level.len())
        .filter(|&i| ident_at(&level, i - 1).as_deref() == Some("mod"))
        .filter_map(|i| ident_at(&level, i))
        .collect()
}

/// The runner's submodules reach `runner/mod.rs` only for its modules
/// (`super::harness`), never for an item of its own: no call back into
/// the parent that runs them.
fn check_runner_parent(files: &[File]) -> Vec<String> {
    let Some((_, parent)) = files.iter().find(|(p, _)| p == "src/runner/mod.rs") else {
        return Vec::new();
    };
    let submodules = declared_modules("src/runner/mod.rs", parent);
    let modules = modules(files);
    let mut found = BTreeSet::new();
    for (path, text) in files
        .iter()
        .filter(|(p, _)| p.starts_with("src/runner/") && p != "src/runner/mod.rs")
    {
        let (_, depth) = &modules[path];
        each_level(lex(path, text), *depth, &mut |level, depth| {
            for i in 0..level.len() {
                let rooted = i < 2 || !is_sep(level, i - 2);
                if !rooted || ident_at(level, i).as_deref() != Some("super") {
                    continue;
                }
                let up = |k: &usize| ident_at(level, i + 3 * k).as_deref() == Some("super");
                let climbs = (0..).take_while(up).count();
                if climbs + 1 != depth {
                    continue;
                }
                let mut named = BTreeSet::new();
                after_root(level, i + 3 * climbs - 2, &mut named);
                for item in named.into_iter().filter(|n| !submodules.contains(n)) {
                    found.insert(format!(
                        "{path} calls runner/mod.rs's {item} (the harness is runner/harness.rs)"
                    ));
                }
            }
        });
    }
    found.into_iter().collect()
}

/// Each `module::function` the map's Entry points section names (in
/// backticks, lower-case segments) that no file of that top-level module
/// defines as `fn function`.
fn missing_entry_points(doc: &str, files: &[File]) -> Vec<String> {
    let Some(section) = doc.split("\n## ").find(|s| s.starts_with("Entry points")) else {
        return vec!["ARCHITECTURE.md has no Entry points section".into()];
    };
    let named = section.split('`').skip(1).step_by(2).filter(|t| {
        t.contains("::")
            && t.split("::").all(|seg| {
                !seg.is_empty() && seg.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            })
    });
    let mut missing = BTreeSet::new();
    for path in named {
        let segments: Vec<&str> = path.split("::").collect();
        let (top, function) = (segments[0], segments[segments.len() - 1]);
        let defined = files.iter().any(|(file, text)| {
            let of_top =
                file == &format!("src/{top}.rs") || file.starts_with(&format!("src/{top}/"));
            of_top && {
                let mut words = Vec::new();
                flat_words(lex(file, text), &mut words);
                words.windows(2).any(|w| w[0] == "fn" && w[1] == function)
            }
        });
        if !defined {
            missing.insert(format!("{path}: no fn {function} under src/{top}/"));
        }
    }
    missing.into_iter().collect()
}

/// The paths to the system a file names: `std::fs`, `std::{io, ..}`,
/// `libc::`, `rustix::`, ... (each as written up to its second segment).
fn system_paths(path: &str, text: &str) -> BTreeSet<String> {
    const STD: [&str; 7] = ["fs", "io", "net", "process", "thread", "env", "time"];
    const CRATES: [&str; 5] = ["libc", "rustix", "nix", "perf_event", "hdrhistogram_io"];
    let mut words = Vec::new();
    flat_words(lex(path, text), &mut words);
    let mut found = BTreeSet::new();
    for at in 0..words.len() {
        let rooted = at < 2 || words[at - 1] != ":";
        if !rooted {
            continue;
        }
        for p in path_at(&words, at) {
            let second = p.get(1).map(String::as_str).unwrap_or("");
            let std_io = p[0] == "std" && STD.contains(&second);
            if std_io || (CRATES.contains(&p[0].as_str()) && p.len() > 1) {
                found.insert(p[..2].join("::"));
            }
        }
    }
    found
}

/// The paths a document names in backticks or links that look like the
/// repository's (`src/...`, `tests/...`, `docs/...`, a `.rs`, `.md` or
/// `.toml` file; a template such as `src/poller/<name>.rs` is none), each
/// that `exists` denies.
fn missing_paths(doc: &str, exists: impl Fn(&str) -> bool) -> Vec<String> {
    let quoted = doc.split('`').skip(1).step_by(2);
    let linked = doc.split("](").skip(1).filter_map(|l| l.split(')').next());
    let looks_like_path = |p: &&str| {
        let roots = ["src/", "tests/", "benches/", "docs/", "examples/", ".ci/"];
        let files = [".rs", ".md", ".toml"];
        !p.contains(' ')
            && !p.contains("://")
            && !p.contains('*')
            && !p.contains('<')
            && (roots.iter().any(|r| p.starts_with(r)) || files.iter().any(|f| p.ends_with(f)))
    };
    let mut missing: Vec<String> = quoted
        .chain(linked)
        .filter(looks_like_path)
        .map(|p| p.split('#').next().unwrap_or(p).trim_end_matches(':'))
        .filter(|p| !exists(p))
        .map(String::from)
        .collect();
    missing.sort();
    missing.dedup();
    missing
}

/// The top-level modules the files outside the library (the binary, the
/// tests, benches and examples) reach through `iolab::`.
fn used_from_outside(outside: &[File]) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for (path, text) in outside {
        each_level(lex(path, text), 0, &mut |level, _| {
            for i in 0..level.len() {
                let rooted = i < 2 || !is_sep(level, i - 2);
                if rooted && ident_at(level, i).as_deref() == Some("iolab") {
                    after_root(level, i + 1, &mut used);
                }
            }
        });
    }
    used
}

/// The modules `lib` declares `pub mod` (not `pub(crate)`).
fn pub_modules(lib: &str) -> Vec<String> {
    let mut found = Vec::new();
    let level: Vec<TokenTree> = lex("src/lib.rs", lib).into_iter().collect();
    for i in 0..level.len() {
        let public = ident_at(&level, i).as_deref() == Some("pub");
        if public && ident_at(&level, i + 1).as_deref() == Some("mod") {
            found.extend(ident_at(&level, i + 2));
        }
    }
    found
}

/// The `pub` rule: each `pub mod` of `lib` that nothing outside uses.
fn check_pub(lib: &str, outside: &[File]) -> Vec<String> {
    let used = used_from_outside(outside);
    let unused = pub_modules(lib).into_iter().filter(|m| !used.contains(m));
    let why = |m: String| {
        format!("src/lib.rs: pub mod {m}, used by no binary, test, bench or example (pub(crate))")
    };
    unused.map(why).collect()
}

// ---- the real tree ----

fn read_tree(dir: &Path, root: &Path, out: &mut Vec<File>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            read_tree(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            out.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

fn real_src() -> Vec<File> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    read_tree(&root.join("src"), root, &mut files);
    files.sort();
    assert!(files.len() > 100, "only {} files under src/", files.len());
    files
}

/// The files that use the library from outside: src/main.rs and
/// everything under tests/, benches/ and examples/.
fn real_outside() -> Vec<File> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let main = std::fs::read_to_string(root.join("src/main.rs")).unwrap();
    let mut files = vec![("src/main.rs".to_string(), main)];
    for dir in ["tests", "benches", "examples"] {
        if root.join(dir).is_dir() {
            read_tree(&root.join(dir), root, &mut files);
        }
    }
    assert!(files.len() > 50, "only {} files outside src/", files.len());
    files
}

fn real_table() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    std::fs::read_to_string(path).expect("ARCHITECTURE.md in the package root")
}

fn assert_none(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn no_module_imports_from_a_layer_above() {
    assert_none(check_layers(&real_table(), &real_src()));
}

#[test]
fn no_scenario_starts_sides_itself() {
    assert_none(check_harness(&real_src()));
}

#[test]
fn unsafe_only_in_sys() {
    assert_none(check_unsafe(&real_src()));
}

#[test]
fn the_claims_engine_imports_no_seed_and_no_scenario() {
    let files = real_src();
    assert!(files
        .iter()
        .any(|(p, _)| p.starts_with("src/claims/engine/")));
    assert_none(check_engine(&files));
}

#[test]
fn every_pub_module_is_used_from_outside_the_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert!(pub_modules(&lib).contains(&"cli".to_string()));
    assert_none(check_pub(&lib, &real_outside()));
}

#[test]
fn stats_imports_nothing_of_iolab_and_reaches_no_system() {
    let files = real_src();
    assert!(files.iter().any(|(p, _)| p.starts_with("src/stats/")));
    assert_none(check_stats(&files));
}

#[test]
fn commands_pipelines_live_in_app() {
    let files = real_src();
    assert!(files.iter().any(|(p, _)| p == "src/app/doctor.rs"));
    assert_none(check_pipelines(&files));
}

#[test]
fn doctor_and_ab_do_not_name_each_other() {
    assert_none(check_sideways(&real_src()));
}

#[test]
fn usage_errors_are_made_only_where_the_map_says() {
    let files = real_src();
    assert!(files.iter().any(|(_, t)| t.contains("UsageError::new(")));
    assert_none(check_usage_errors(&real_table(), &files));
}

#[test]
fn no_import_circle_between_top_level_modules() {
    assert_none(check_module_circles(&real_src()));
}

#[test]
fn the_runners_rounds_do_not_call_back_into_its_parent() {
    let files = real_src();
    assert!(files.iter().any(|(p, _)| p == "src/runner/harness.rs"));
    assert_none(check_runner_parent(&files));
}

#[test]
fn every_entry_point_the_map_names_is_a_function() {
    let doc = real_table();
    assert!(
        doc.contains("`app::doctor::doctor`"),
        "the Entry points section"
    );
    assert_none(missing_entry_points(&doc, &real_src()));
}

#[test]
fn every_path_architecture_md_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let missing = missing_paths(&real_table(), |p| root.join(p).exists());
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names {missing:?}, not in the repository"
    );
}

// ---- the checks themselves, on fixtures ----

const TABLE: &str = "# Fixture\n\n```layers\n0 base: model sys\n1 primitives: mechanism\n\
                     2 scenarios: scenario\n3 root: lib\n```\n";

/// Files written as `@ path: text`, the text running to the next `@ `.
fn files(text: &str) -> Vec<File> {
    let parse = |f: &str| f.split_once(": ").map(|(p, t)| (p.trim().into(), t.into()));
    text.split("@ ").filter_map(parse).collect()
}

/// A tree with every module of `TABLE`, plus (or in place of) `extra`,
/// sorted by path as `real_src` is.
fn tree(extra: &str) -> Vec<File> {
    let base = r#"
        @ src/lib.rs: #![deny(unsafe_code)] pub mod model; #[allow(unsafe_code)] mod sys;
        @ src/model.rs: pub struct Run;
        @ src/sys/mod.rs: pub fn f() { unsafe { g() } }
        @ src/mechanism/mod.rs: use crate::model::Run;
        @ src/scenario/mod.rs: use crate::{mechanism, model::Run};"#;
    let all: BTreeMap<String, String> = files(base).into_iter().chain(files(extra)).collect();
    all.into_iter().collect()
}

#[test]
fn a_usage_error_outside_the_named_files_fails() {
    let doc = "## Invariants\n\n- **Bad input**: in `src/plan/` and `src/mem.rs`.\n- **Next**: `src/x.rs`.\n";
    let files = files(
        r#"@ src/plan/keys.rs: UsageError::new("bad key")
        @ src/mem.rs: UsageError::new("ulimit")
        @ src/x.rs: UsageError::new("elsewhere")
        @ src/plan/tests.rs: UsageError::new("a test's")"#,
    );
    assert_eq!(
        check_usage_errors(doc, &files),
        ["src/x.rs makes a UsageError; the Bad input invariant does not name it"]
    );
    assert_eq!(
        check_usage_errors("no invariants", &files),
        ["ARCHITECTURE.md has no Bad input invariant"]
    );
}

#[test]
fn a_circle_of_sideways_imports_is_named_with_its_files() {
    let files = tree(
        r#"@ src/mechanism/pipe.rs: use crate::sys::f;
        @ src/sys/mod.rs: use crate::model::Run;
        @ src/model.rs: fn g() { crate::sys::f(); }"#,
    );
    assert_eq!(
        check_module_circles(&files),
        ["an import circle: model -> sys (src/model.rs), sys -> model (src/sys/mod.rs)"]
    );
    assert_none(check_module_circles(&tree("")));
    let only_a_test =
        tree("@ src/sys/tests.rs: use crate::model::Run;\n@ src/model.rs: use crate::sys;");
    assert_none(check_module_circles(&only_a_test));
}

#[test]
fn downward_and_sideways_imports_pass() {
    let files = tree(
        r#"@ src/mechanism/pipe.rs: use super::Caps; fn f() { crate::model::Run; }
        @ src/scenario/common/side.rs: use super::super::super::model; use super::pingpong;
        @ src/scenario/pingpong.rs: // crate::lib is not used
            const S: &str = "crate::lib";"#,
    );
    assert_none(check_layers(TABLE, &files));
}

#[test]
fn an_upward_import_fails_naming_file_and_layers() {
    let files = tree("@ src/mechanism/pipe.rs: use crate::scenario::Mode;");
    assert_eq!(
        check_layers(TABLE, &files),
        ["src/mechanism/pipe.rs (layer 1: mechanism) imports crate::scenario (layer 2)"]
    );
}

#[test]
fn groups_super_chains_and_test_modules_are_followed() {
    let files = tree(
        r#"@ src/model.rs: use crate::{sys, mechanism::{Caps}};
        @ src/mechanism/shm/wake.rs: fn f() { super::super::super::scenario::run(); }
        @ src/sys/mod.rs: #[cfg(test)] mod tests { use super::super::scenario; }"#,
    );
    assert_eq!(
        check_layers(TABLE, &files),
        [
            "src/mechanism/shm/wake.rs (layer 1: mechanism) imports crate::scenario (layer 2)",
            "src/model.rs (layer 0: model) imports crate::mechanism (layer 1)",
            "src/sys/mod.rs (layer 0: sys) imports crate::scenario (layer 2)",
        ]
    );
}

#[test]
fn a_path_attribute_file_belongs_to_the_module_that_declares_it() {
    let files = tree(
        r#"@ src/model.rs: #[cfg(test)] #[path = "model_tests.rs"] mod tests;
        @ src/model_tests.rs: use super::*; use crate::scenario::x;"#,
    );
    assert_eq!(
        check_layers(TABLE, &files),
        ["src/model_tests.rs (layer 0: model) imports crate::scenario (layer 2)"]
    );
}

#[test]
fn a_module_missing_from_the_table_fails() {
    let mut files = tree(
        r#"@ src/flows/mod.rs: use crate::model::Run;
        @ src/mechanism/pipe.rs: use crate::flows::Flow;"#,
    );
    files.retain(|(path, _)| path != "src/model.rs");
    assert_eq!(
        check_layers(TABLE, &files),
        [
            "src/flows/mod.rs: module flows is not in the layer table",
            "src/mechanism/pipe.rs (layer 1: mechanism) imports crate::flows (not in the layer table)",
            "the layer table names model, not in src/",
        ]
    );
}

#[test]
fn a_table_out_of_order_or_missing_is_refused() {
    let swapped = "```layers\n1 a: model\n0 b: sys\n```\n";
    let refused = check_layers(swapped, &tree(""));
    assert_eq!(refused, ["layer 0 comes after layer 1"]);
    let missing = check_layers("# no table", &tree(""));
    assert_eq!(missing, ["ARCHITECTURE.md has no ```layers block"]);
}

#[test]
fn a_scenario_that_starts_a_side_fails() {
    let files = tree(
        r#"@ src/scenario/hogs.rs: fn f() { match fork()? {} }
        @ src/scenario/ring/mod.rs: fn f() { std::thread::scope(|s| { s.spawn(g); }); }
        @ src/scenario/echo.rs: fn f() { Command::new("cat"); thread::Builder::new(); }
        @ src/scenario/fine.rs: // no fork() here
            fn f() { e("thread::spawn"); sys::fork::Forked; }
        @ src/exec/peers.rs: fn f() { fork(); std::thread::spawn(g); }"#,
    );
    assert_eq!(
        check_harness(&files),
        [
            "src/scenario/echo.rs: Command::new (start sides through src/exec)",
            "src/scenario/echo.rs: thread::Builder (start sides through src/exec)",
            "src/scenario/hogs.rs: fork( (start sides through src/exec)",
            "src/scenario/ring/mod.rs: thread::scope (start sides through src/exec)",
        ]
    );
}

#[test]
fn unsafe_outside_sys_fails_and_the_lint_does_not_count() {
    let files = tree(
        r#"@ src/mechanism/pipe.rs: // unsafe in a comment
            fn f() { unsafe { g() } }
        @ src/model.rs: const S: &str = "unsafe";"#,
    );
    assert_eq!(check_unsafe(&files), ["src/mechanism/pipe.rs: unsafe"]);
}

#[test]
fn the_engine_naming_a_seed_or_a_scenario_module_fails() {
    let files = tree(
        r#"@ src/claims/engine/rule.rs: use crate::scenario::{MetricSpec, contention::READER};
            use super::super::seeds::e3; fn f() { crate::scenario::Scenario::name(); }
        @ src/claims/engine/mod.rs: use super::seeds;
        @ src/claims/engine/fine.rs: use crate::scenario::MetricSpec; use super::rule::Rule;
        @ src/claims/seeds/e3.rs: use crate::scenario::contention;"#,
    );
    assert_eq!(
        check_engine(&files),
        [
            "src/claims/engine/mod.rs imports crate::claims::seeds (the engine names no seed or scenario)",
            "src/claims/engine/rule.rs imports crate::claims::seeds (the engine names no seed or scenario)",
            "src/claims/engine/rule.rs imports crate::scenario::contention (the engine names no seed or scenario)",
        ]
    );
}

#[test]
fn a_path_the_map_names_that_does_not_exist_fails() {
    let doc = "`src/claims/engine/` holds [the rule](src/claims/engine/rule.rs#L1); \
               `src/gone.rs` and `docs/none.md` do not; `iolab run`, `a b.rs` and \
               `src/x/<name>.rs` are no paths.";
    let exists = |p: &str| p.starts_with("src/claims/engine");
    assert_eq!(missing_paths(doc, exists), ["docs/none.md", "src/gone.rs"]);
}

#[test]
fn a_pub_module_nothing_outside_uses_fails() {
    let lib = "#![deny(unsafe_code)] pub mod app; pub mod model; pub(crate) mod plan; \
               #[allow(unsafe_code)] pub mod sys; pub mod report;";
    let outside = files(
        r#"@ src/main.rs: fn main() { iolab::app::dispatch(); }
        @ tests/x.rs: use iolab::{model::Run, sys::mq}; // iolab::report in a comment
            const S: &str = "iolab::report"; fn f() { crate::report::g(); }"#,
    );
    assert_eq!(
        check_pub(lib, &outside),
        ["src/lib.rs: pub mod report, used by no binary, test, bench or example (pub(crate))"]
    );
}

#[test]
fn stats_importing_iolab_or_reaching_the_system_fails() {
    let files = tree(
        r#"@ src/stats/looks.rs: use crate::{stats::estimators, model::Run};
            #[cfg(test)] mod tests { use super::super::super::measure::clock; }
        @ src/stats/paired.rs: use super::looks; fn f() { super::super::format::human(); }
        @ src/stats/io.rs: use std::{collections::BTreeMap, fs}; fn f() { libc::getpid(); }
        @ src/stats/fine.rs: use super::super::stats::looks; use std::cmp::Ordering;
            // use crate::model; std::fs
            const S: &str = "crate::model";
        @ src/measure/clock.rs: use crate::stats; use std::time::Instant;"#,
    );
    assert_eq!(
        check_stats(&files),
        [
            "src/stats/io.rs uses libc::getpid (stats does no I/O and no system call)",
            "src/stats/io.rs uses std::fs (stats does no I/O and no system call)",
            "src/stats/looks.rs imports crate::measure (stats imports nothing of iolab)",
            "src/stats/looks.rs imports crate::model (stats imports nothing of iolab)",
            "src/stats/paired.rs imports crate::format (stats imports nothing of iolab)",
        ]
    );
}

#[test]
fn pipeline_code_in_a_domain_module_fails() {
    let files = tree(
        r#"@ src/doctor/mod.rs: fn f() -> ExitCode { indicatif::ProgressBar::new(0); }
        @ src/ab/mod.rs: fn f() { std::process::exit(2); serde_json::to_string_pretty(&x); }
        @ src/ab/fine.rs: // indicatif in a comment
            const S: &str = "ExitCode"; fn f() { serde_json::to_value(x); }
        @ src/app/doctor.rs: fn f() -> ExitCode { indicatif::ProgressBar::hidden() }"#,
    );
    assert_eq!(
        check_pipelines(&files),
        [
            "src/ab/mod.rs: process::exit (a command's pipeline lives in src/app/)",
            "src/ab/mod.rs: to_string_pretty (a command's pipeline lives in src/app/)",
            "src/doctor/mod.rs: ExitCode (a command's pipeline lives in src/app/)",
            "src/doctor/mod.rs: indicatif (a command's pipeline lives in src/app/)",
        ]
    );
}

#[test]
fn doctor_naming_ab_fails_and_plan_does_not() {
    let files = tree(
        r#"@ src/doctor/alternatives.rs: fn f() { crate::ab::specs::one_case("x", "y"); }
        @ src/doctor/fine.rs: fn f() { crate::plan::one_case(&a); } // crate::ab
        @ src/ab/mod.rs: use crate::{plan, doctor::Diagnosis};"#,
    );
    assert_eq!(
        check_sideways(&files),
        [
            "src/ab/mod.rs names crate::doctor (doctor and ab plan cases through plan::one_case)",
            "src/doctor/alternatives.rs names crate::ab (doctor and ab plan cases through plan::one_case)",
        ]
    );
}

#[test]
fn a_runner_submodule_calling_its_parent_fails() {
    let files = tree(
        r#"@ src/runner/mod.rs: mod harness; pub(crate) mod rounds; fn run_batch() {}
        @ src/runner/rounds.rs: use super::harness::run_batch; use super::{judge_noise, rounds};
            fn f() { super::failed(); }
            #[cfg(test)] mod tests { use super::past_cap; fn g() { super::super::in_private_dir(); } }
        @ src/runner/harness.rs: fn f() { super::super::model::x(); }"#,
    );
    assert_eq!(
        check_runner_parent(&files),
        [
            "src/runner/rounds.rs calls runner/mod.rs's failed (the harness is runner/harness.rs)",
            "src/runner/rounds.rs calls runner/mod.rs's in_private_dir (the harness is runner/harness.rs)",
            "src/runner/rounds.rs calls runner/mod.rs's judge_noise (the harness is runner/harness.rs)",
        ]
    );
}

#[test]
fn an_entry_point_that_is_no_function_fails() {
    let files = tree(
        r#"@ src/app/mod.rs: fn run() {} mod doctor;
        @ src/app/doctor.rs: pub(super) fn doctor() {}
        @ src/plan/mod.rs: // fn one_case
            const S: &str = "fn build";"#,
    );
    let doc = "# Map\n\n## Entry points\n\n- `app::run` -> `app::doctor::doctor` -> \
               `plan::build` -> `plan::one_case` (`src/plan/mod.rs`, `Plan`)\n\n## Next\n`x::y`";
    assert_eq!(
        missing_entry_points(doc, &files),
        [
            "plan::build: no fn build under src/plan/",
            "plan::one_case: no fn one_case under src/plan/",
        ]
    );
    assert_eq!(
        missing_entry_points("# no section", &files),
        ["ARCHITECTURE.md has no Entry points section"]
    );
}
