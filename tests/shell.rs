//! `iolab completions SHELL` and `iolab man`. Completion is tried as a
//! person meets it: bash and zsh run interactively in tmux, where TAB is
//! pressed and the screen read; fish answers `complete -C` as it would at
//! a prompt. In each, a comma list completes its last item, `run`
//! completes scenarios, `--param` its keys and values, `show` and
//! `compare` `latest` and the stored runs, and the hidden `--fault` never
//! appears. Every man page renders with `man -l`, with its EXAMPLES, EXIT
//! STATUS, ENVIRONMENT, FILES and SEE ALSO sections and iolab's version in
//! its footer. A shell, tmux or man that is missing skips its part, saying
//! why (`require`).

mod common;

use common::{find_program, require, Sandbox};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

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
    names
}

/// `iolab completions SHELL`, written into the sandbox; returns its path.
fn script(sb: &Sandbox, shell: &str) -> PathBuf {
    let text = sb.stdout(&["completions", shell]);
    let iolab = assert_cmd::cargo::cargo_bin("iolab");
    assert!(
        text.contains(&iolab.display().to_string()) && text.contains("IOLAB_COMPLETE"),
        "the {shell} script calls this iolab back: {text}"
    );
    let path = sb.dir.path().join(format!("iolab.{shell}"));
    std::fs::write(&path, text).unwrap();
    path
}

fn has(program: &str, why: &str) -> bool {
    require(find_program(&[program]).is_some(), why)
}

/// A sandbox with one stored run, whose id the run selectors complete.
fn with_a_stored_run() -> (Sandbox, String) {
    let sb = Sandbox::new();
    let run = sb.run_json(&common::pipe_pingpong(&["--quick", "--json", "-"]));
    let id = run["run_id"].as_str().unwrap().to_string();
    (sb, id)
}

/// An interactive shell in a tmux server of its own, 200x100, killed with
/// the server when dropped; the server's socket is in the sandbox, which
/// removes it (tmux's own directory would keep it).
struct Terminal {
    socket: String,
    /// The shell's pid, waited for when dropped: bash writes its history
    /// into its HOME, the sandbox, as it dies, and one written while the
    /// sandbox was being removed was left behind.
    shell: u32,
}

/// How long a killed shell may take to end.
const SHELL_END: Duration = Duration::from_secs(5);

impl Terminal {
    /// `shell` started in the sandbox's environment, after `setup` ran.
    fn start(sb: &Sandbox, shell: &str, setup: &str) -> Terminal {
        let socket = sb.dir.path().join("tmux.sock").display().to_string();
        let mut term = Terminal { socket, shell: 0 };
        let env = format!(
            "env -i PATH=/usr/bin:/bin HOME={dir} TERM=xterm TMPDIR={tmp} XDG_DATA_HOME={dir}/data {shell}",
            dir = sb.dir.path().display(),
            tmp = sb.tmp().display(),
        );
        term.tmux(&["new-session", "-d", "-x", "200", "-y", "100", &env]);
        let pane = term.tmux(&["display-message", "-p", "#{pane_pid}"]);
        term.shell = pane.trim().parse().expect("the shell's pid");
        term.tmux(&[
            "send-keys",
            "-l",
            &format!("{setup}; PS1='{PROMPT} '; PROMPT=$PS1"),
        ]);
        term.tmux(&["send-keys", "Enter"]);
        term.wait_for_prompt();
        term
    }

    /// Waits until the shell's prompt is the screen's last line: it reads
    /// keys itself now, so none is echoed by the terminal before it.
    fn wait_for_prompt(&self) {
        let at_prompt = |screen: &str| {
            let last = screen.lines().rev().find(|l| !l.trim().is_empty());
            last.is_some_and(|l| l.trim_end() == PROMPT)
        };
        self.wait_until(at_prompt, "the prompt");
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-S", &self.socket])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J"])
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait_until(|screen| screen.contains(text), text)
    }

    /// The screen once `shows` holds for it (20 s at most: a hang guard).
    fn wait_until(&self, shows: impl Fn(&str) -> bool, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if shows(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "never showed {what:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `line`, presses TAB `tabs` times, then a marker the shell
    /// reads only once the completion is done; returns the screen then,
    /// and clears it for the next.
    fn complete(&self, line: &str, tabs: usize) -> String {
        self.tmux(&["send-keys", "-l", line]);
        for _ in 0..tabs {
            self.tmux(&["send-keys", "Tab"]);
        }
        self.tmux(&["send-keys", "-l", MARK]);
        let screen = self.wait_for(MARK);
        self.tmux(&["send-keys", "C-e", "C-u"]);
        self.tmux(&["send-keys", "-l", "clear"]);
        self.tmux(&["send-keys", "Enter"]);
        self.wait_until(|s| !s.contains(MARK), "a cleared screen");
        self.wait_for_prompt();
        screen
    }
}

/// What is typed after TAB, to know the completion is over.
const MARK: &str = "#DONE";

/// The shells' prompt.
const PROMPT: &str = "iolab-test>";

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .output();
        let deadline = Instant::now() + SHELL_END;
        while common::alive(self.shell) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Ends the terminal, then the sandbox, and checks that neither the shell
/// nor any file of the sandbox was left.
fn end(term: Terminal, sb: Sandbox) {
    let shell = term.shell;
    drop(term);
    assert!(
        !common::alive(shell),
        "the shell {shell} outlived its terminal"
    );
    let dir = sb.dir.path().to_owned();
    drop(sb);
    assert!(!dir.exists(), "{} was left behind", dir.display());
}

/// The command line as completed: the last line with the mark.
fn completed(screen: &str) -> &str {
    screen
        .lines()
        .rfind(|l| l.contains(MARK))
        .unwrap_or_default()
}

/// The completions every shell must give, checked through `tab`, which
/// returns what the screen shows after TAB.
fn check_completions(shell: &str, id: &str, tab: impl Fn(&str, usize) -> String) {
    let line = tab("iolab run --mech pipe,ev", 1);
    assert!(
        completed(&line).contains("--mech pipe,eventfd"),
        "{shell}: {line}"
    );
    let listed = tab("iolab run ", 2);
    for scenario in ["pingpong", "stream", "limits", "quick", "seeds"] {
        assert!(
            listed.contains(scenario),
            "{shell}: no {scenario}: {listed}"
        );
    }
    assert!(!listed.contains("--fault"), "{shell}: {listed}");
    let hidden = tab("iolab run --fau", 1);
    assert!(
        completed(&hidden).ends_with(&format!("--fau{MARK}")),
        "{shell}: {hidden}"
    );
    let options = tab("iolab run --f", 2);
    assert!(
        options.contains("--fail-on-unsupported"),
        "{shell}: {options}"
    );
    assert!(!options.contains("--fault"), "{shell}: {options}");
    let key = tab("iolab run -p siz", 1);
    assert!(
        completed(&key).contains(&format!("-p size={MARK}")),
        "{shell}: {key}"
    );
    let value = tab("iolab run -p pipe=anon,fi", 1);
    assert!(
        completed(&value).contains("-p pipe=anon,fifo"),
        "{shell}: {value}"
    );
    let runs = tab("iolab show ", 2);
    assert!(
        runs.contains("latest") && runs.contains(id),
        "{shell}: {runs}"
    );
    let compared = tab("iolab compare lat", 1);
    assert!(
        completed(&compared).contains("compare latest"),
        "{shell}: {compared}"
    );
}

#[test]
fn bash_completes_from_iolabs_own_knowledge() {
    if !has(
        "tmux",
        "tmux, to press TAB in bash and zsh (Debian: apt-get install tmux)",
    ) {
        return;
    }
    let (sb, id) = with_a_stored_run();
    let script = script(&sb, "bash");
    let term = Terminal::start(
        &sb,
        "bash --norc --noprofile -i",
        &format!("source {}", script.display()),
    );
    check_completions("bash", &id, |line, tabs| term.complete(line, tabs));
    // bash splits a word at `=`: an option's value after it completes too.
    let after = term.complete("iolab run --placement=cross-c", 1);
    assert!(
        completed(&after).contains("--placement=cross-cpu"),
        "{after}"
    );
    end(term, sb);
}

#[test]
fn zsh_completes_from_iolabs_own_knowledge() {
    let why = "zsh and tmux, to press TAB in zsh (Debian: apt-get install zsh tmux)";
    if !(has("zsh", why) && has("tmux", why)) {
        return;
    }
    let (sb, id) = with_a_stored_run();
    let script = script(&sb, "zsh");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.starts_with("#compdef iolab"), "{}", &text[..40]);
    let term = Terminal::start(
        &sb,
        "zsh -f -i",
        &format!(
            "autoload -Uz compinit && compinit -u && source {}",
            script.display()
        ),
    );
    check_completions("zsh", &id, |line, tabs| term.complete(line, tabs));
    end(term, sb);
}

/// fish answers `complete -C LINE` with what it would offer at the prompt.
#[test]
fn fish_completes_from_iolabs_own_knowledge() {
    if !has(
        "fish",
        "fish, to complete in fish (Debian: apt-get install fish)",
    ) {
        return;
    }
    let (sb, id) = with_a_stored_run();
    let path = script(&sb, "fish");
    let complete = |line: &str| {
        let call = format!("source {}; complete -C '{line}'", path.display());
        let out = Command::new("fish")
            .args(["--no-config", "-c", &call])
            .env("XDG_DATA_HOME", sb.dir.path().join("data"))
            .env("HOME", sb.dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(complete("iolab run --mech pipe,ev").contains(&"pipe,eventfd".into()));
    let targets = complete("iolab run ");
    for scenario in ["pingpong", "stream", "limits", "quick", "seeds"] {
        assert!(targets.contains(&scenario.to_string()), "{targets:?}");
    }
    for line in ["iolab run --f", "iolab run --fau", "iolab run -"] {
        let offered = complete(line);
        assert!(
            !offered.iter().any(|o| o.starts_with("--fault")),
            "{line}: {offered:?}"
        );
    }
    assert!(complete("iolab run --param si").contains(&"size=".into()));
    assert_eq!(complete("iolab run -p pipe=anon,fi"), ["pipe=anon,fifo"]);
    let runs = complete("iolab show ");
    assert!(
        runs.contains(&"latest".into()) && runs.contains(&id),
        "{runs:?}"
    );
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

/// The sections every page has, as its roff names them.
const SECTIONS: [&str; 7] = [
    ".SH NAME",
    ".SH SYNOPSIS",
    ".SH DESCRIPTION",
    ".SH EXAMPLES",
    ".SH \"EXIT STATUS\"",
    ".SH \"SEE ALSO\"",
    ".TH ",
];

#[test]
fn every_man_page_has_examples_exit_status_and_iolabs_version() {
    let sb = Sandbox::new();
    let page = sb.stdout(&["man"]);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq"),
        "not roff: {}",
        &page[..40]
    );
    let dir = sb.dir.path().join("man1");
    sb.stdout(&["man", "--dir", dir.to_str().unwrap()]);
    let version = format!("\"iolab {}\"", env!("CARGO_PKG_VERSION"));
    let mut pages = vec!["iolab".to_string()];
    pages.extend(commands(&sb).iter().map(|c| format!("iolab-{c}")));
    let written = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(written, pages.len(), "one page per command and iolab's");
    for name in &pages {
        let roff = std::fs::read_to_string(dir.join(format!("{name}.1"))).unwrap();
        for section in SECTIONS {
            assert!(
                roff.lines().any(|l| l.starts_with(section)),
                "{name}: no {section}"
            );
        }
        let title = roff.lines().find(|l| l.starts_with(".TH ")).unwrap();
        assert!(title.starts_with(&format!(".TH {name} 1 ")), "{title}");
        assert!(title.contains(&version), "{name}: {title}");
        assert!(!roff.contains(".SH EXTRA"), "{name}");
    }
    let top = std::fs::read_to_string(dir.join("iolab.1")).unwrap();
    assert_eq!(top, page, "`iolab man` prints iolab.1");
    for section in [".SH ENVIRONMENT", ".SH FILES"] {
        assert!(top.lines().any(|l| l == section), "{section}");
    }
    if !has(
        "man",
        "man, to render the man pages (Debian: apt-get install man-db)",
    ) {
        return;
    }
    let text = rendered(&dir.join("iolab.1"));
    assert!(text.contains("iolab - A laboratory"), "{text}");
    for command in commands(&sb) {
        assert!(
            text.contains(&format!("iolab-{command}(1)")),
            "{command}: {text}"
        );
    }
    for name in &pages {
        let text = rendered(&dir.join(format!("{name}.1")));
        for section in ["EXAMPLES", "EXIT STATUS", "SEE ALSO"] {
            assert!(
                text.lines().any(|l| l == section),
                "{name}: {section}\n{text}"
            );
        }
    }
    let run = rendered(&dir.join("iolab-run.1"));
    for shown in [
        "--openmetrics",
        "--push",
        "IOLAB_PUSH",
        "PGPASSFILE",
        "results.db",
    ] {
        assert!(run.contains(shown), "{shown}: {run}");
    }
    assert!(!run.contains("--fault"), "{run}");
}
