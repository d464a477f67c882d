//! `iolab completions SHELL` and `iolab man`: each shell's script parses in
//! that shell and names every command (bash, zsh and fish), the names clap
//! cannot know complete (scenarios, mechanisms, parameters), and the man
//! pages render with `man -l`. A shell or man that is missing skips its
//! part, saying why (`require`).

mod common;

use common::{find_program, require, Sandbox};
use std::path::Path;
use std::process::Command;

/// The commands `iolab --help` lists (but `help`).
fn commands(sb: &Sandbox) -> Vec<String> {
    let help = sb.stdout(&["--help"]);
    let listed = help
        .split("Commands:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a Commands: section");
    let names: Vec<String> = listed
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect();
    assert!(names.len() >= 16, "{names:?}");
    for name in ["run", "push", "completions", "man"] {
        assert!(names.iter().any(|n| n == name), "{name}: {names:?}");
    }
    names
}

/// `iolab completions SHELL`, written into the sandbox; returns its path.
fn script(sb: &Sandbox, shell: &str) -> std::path::PathBuf {
    let text = sb.stdout(&["completions", shell]);
    assert!(!text.trim().is_empty(), "no {shell} script");
    for command in commands(sb) {
        assert!(text.contains(&command), "{shell} script lacks {command}");
    }
    let path = sb.dir.path().join(format!("iolab.{shell}"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `program ARGS`, which must succeed; its stdout.
fn ok(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn has(program: &str, why: &str) -> bool {
    require(find_program(&[program]).is_some(), why)
}

#[test]
fn the_bash_script_parses_and_completes_scenarios_and_mechanisms() {
    let sb = Sandbox::new();
    let path = script(&sb, "bash");
    let path = path.to_str().unwrap();
    ok("bash", &["-n", path]);
    // What bash asks the script on TAB after `iolab run ping`, and after
    // `iolab run --mech ev`.
    let complete = |words: &str| {
        let call = format!(
            "source {path}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE='{words}'; COMP_POINT=${{#COMP_LINE}}; \
             _iolab iolab \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        ok("bash", &["-c", &call])
    };
    assert_eq!(complete("iolab run ping").trim(), "pingpong");
    assert!(complete("iolab run --mech ev")
        .lines()
        .any(|l| l == "eventfd"));
    assert!(complete("iolab run --placement cross")
        .lines()
        .any(|l| l == "cross-cpu"));
    assert!(complete("iolab com").lines().any(|l| l == "completions"));
}

#[test]
fn the_zsh_script_parses_and_names_every_command() {
    let sb = Sandbox::new();
    let path = script(&sb, "zsh");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("#compdef iolab"), "{}", &text[..40]);
    assert!(text.contains("pingpong") && text.contains("eventfd"));
    if !has(
        "zsh",
        "zsh, to parse the zsh completions (Debian: apt-get install zsh)",
    ) {
        return;
    }
    ok("zsh", &["-n", path.to_str().unwrap()]);
}

#[test]
fn the_fish_script_parses_and_completes_parameters() {
    let sb = Sandbox::new();
    let path = script(&sb, "fish");
    if !has(
        "fish",
        "fish, to parse the fish completions (Debian: apt-get install fish)",
    ) {
        return;
    }
    let path = path.to_str().unwrap();
    ok("fish", &["--no-execute", path]);
    let complete = |line: &str| {
        let call = format!("source {path}; complete -C '{line}'");
        ok("fish", &["--no-config", "-c", &call])
    };
    let params = complete("iolab run --param si");
    assert!(params.lines().any(|l| l.starts_with("size=")), "{params}");
    let mechs = complete("iolab run --mech ev");
    assert!(mechs.lines().any(|l| l.starts_with("eventfd")), "{mechs}");
}

/// `man -l PAGE` as a reader sees it, checked for groff's warnings.
fn rendered(page: &Path) -> String {
    let out = Command::new("man")
        .args(["--warnings", "-l"])
        .arg(page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.trim().is_empty(),
        "{}: {err}",
        page.display()
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_man_pages_render() {
    let sb = Sandbox::new();
    let page = sb.stdout(&["man"]);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq"),
        "not roff: {}",
        &page[..40]
    );
    if !has(
        "man",
        "man, to render the man page (Debian: apt-get install man-db)",
    ) {
        return;
    }
    let main = sb.dir.path().join("iolab.1");
    std::fs::write(&main, &page).unwrap();
    let text = rendered(&main);
    assert!(
        text.contains("NAME") && text.contains("iolab - A laboratory"),
        "{text}"
    );
    for command in commands(&sb) {
        assert!(
            text.contains(&format!("iolab-{command}(1)")),
            "{command}: {text}"
        );
    }
    let dir = sb.dir.path().join("man1");
    sb.stdout(&["man", "--dir", dir.to_str().unwrap()]);
    for command in commands(&sb) {
        let page = dir.join(format!("iolab-{command}.1"));
        let text = rendered(&page);
        assert!(text.contains(&format!("iolab-{command}")), "{text}");
    }
    let run = rendered(&dir.join("iolab-run.1"));
    for option in ["--openmetrics", "--bmf", "--push"] {
        assert!(run.contains(option), "{option}: {run}");
    }
}
