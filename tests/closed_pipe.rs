//! A reader that goes away is a normal end of a pipeline: every command,
//! taken from the command line's own list, run into a reader that closes
//! at once and into one that reads a line and closes (`| head -1`), ends
//! without a panic and with its documented exit status (docs/formats.md),
//! and what it measured is stored all the same. `iolab env --json | head -1`
//! panicked (exit 101), and `ab ... | (exec 0<&-)` panicked before storing
//! its run, losing the comparison.

mod common;
use clap::CommandFactory;
use common::Sandbox;
use std::io::{BufRead, BufReader};
use std::process::{Output, Stdio};

const AB_A: &str = "pingpong --mech pipe --placement same-cpu -p count=300";
const AB_B: &str = "pingpong --mech eventfd --placement same-cpu -p count=300";

/// How the reader of iolab's stdout behaves.
#[derive(Debug, Clone, Copy)]
enum Reader {
    /// Closed before iolab starts: its first write meets EPIPE.
    ClosedAtOnce,
    /// Reads one line, then closes (`| head -1`).
    OneLine,
}

/// `iolab ARGS` with its stdout into `reader`; how it ended.
fn into(sb: &Sandbox, args: &[String], reader: Reader) -> Output {
    let (read, write) = rustix::pipe::pipe().unwrap();
    let mut cmd = sb.command(&args.iter().map(String::as_str).collect::<Vec<_>>());
    cmd.current_dir(sb.dir.path())
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped());
    let read = match reader {
        Reader::ClosedAtOnce => {
            drop(read);
            None
        }
        Reader::OneLine => Some(read),
    };
    let child = cmd.spawn().unwrap();
    drop(cmd);
    if let Some(read) = read {
        let mut line = String::new();
        let _ = BufReader::new(std::fs::File::from(read)).read_line(&mut line);
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{args:?} into {reader:?} panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Each command (its name as the command line lists it) and the arguments
/// that make it print a page, with the exit status docs/formats.md gives.
fn commands(sb: &Sandbox) -> Vec<(&'static str, Vec<String>, i32)> {
    let dir = sb.dir.path().display().to_string();
    let saved = format!("{dir}/saved.json");
    let words = |text: &str| text.split(' ').map(str::to_string).collect::<Vec<_>>();
    let mut table = vec![
        (
            "run",
            words("run limits -p probe=clock,syscall -p count=1000 --repeat 1"),
            0,
        ),
        ("list", words("list"), 0),
        ("env", words("env --json"), 0),
        ("history", words("history"), 0),
        ("show", words("show latest"), 0),
        ("report", words("report latest --markdown -"), 0),
        ("compare", words("compare latest~1 latest"), 0),
        ("claims", words("claims latest"), 0),
        ("import", vec!["import".into(), saved], 0),
        (
            "push",
            words(&format!("push latest --to {dir}/other.db")),
            0,
        ),
        ("fleet", words("fleet limits --metric clock_ns"), 0),
        ("agent", words("agent --help"), 0),
        ("doctor", words("doctor --alternatives 0 -- sh -c true"), 0),
        ("completions", words("completions bash"), 0),
        ("man", words("man"), 0),
        ("help", words("help run"), 0),
    ];
    let ab = ["ab", AB_A, AB_B, "--min-rounds", "4", "--max-rounds", "6"];
    table.push(("ab", ab.iter().map(|s| s.to_string()).collect(), 0));
    table
}

/// The runs the sandbox's store holds.
fn stored(sb: &Sandbox) -> usize {
    let out = sb.iolab(&["history", "--limit", "1000"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" 20") && !l.starts_with(" run"))
        .count()
}

#[test]
fn every_command_ends_normally_when_its_reader_goes_away() {
    let sb = Sandbox::new();
    let saved = sb.dir.path().join("saved.json");
    let mut first = common::pipe_pingpong(&["-p", "count=300", "--repeat", "2", "--json"]);
    first.push(saved.to_str().unwrap());
    sb.iolab(&first).assert().success();
    sb.iolab(&[
        "run",
        "limits",
        "-p",
        "probe=clock",
        "-p",
        "count=1000",
        "-q",
    ])
    .assert()
    .success();
    std::fs::remove_file(&saved).unwrap();
    let mut again = common::pipe_pingpong(&["-p", "count=300", "--no-store", "-q", "--json"]);
    again.push(saved.to_str().unwrap());
    sb.iolab(&again).assert().success();
    let table = commands(&sb);
    let listed: Vec<String> = iolab::cli::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .chain(["help".to_string()])
        .collect();
    for name in &listed {
        assert!(
            table.iter().any(|(n, _, _)| n == name),
            "no case for `iolab {name}`: add one"
        );
    }
    for (name, args, status) in &table {
        for reader in [Reader::ClosedAtOnce, Reader::OneLine] {
            let before = stored(&sb);
            let out = into(&sb, args, reader);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(*status),
                "{args:?} into {reader:?}: {stderr}"
            );
            assert!(
                !stderr.contains("error"),
                "{args:?} into {reader:?}: {stderr}"
            );
            if ["run", "ab"].contains(name) {
                assert_eq!(
                    stored(&sb),
                    before + 1,
                    "{args:?} into {reader:?} stored no run"
                );
            }
        }
        let help = [name.to_string(), "--help".into()];
        if *name != "help" {
            into(&sb, &help, Reader::ClosedAtOnce);
        }
    }
}

/// `run --json - | head -1` exited 1, where docs/formats.md promises 0.
#[test]
fn run_json_to_a_reader_that_goes_away_exits_as_its_cases_call_for() {
    let sb = Sandbox::new();
    let args = common::pipe_pingpong(&["-p", "count=300", "--repeat", "2", "--json", "-"]);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    for reader in [Reader::ClosedAtOnce, Reader::OneLine] {
        let before = stored(&sb);
        let out = into(&sb, &args, reader);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{reader:?}: {stderr}");
        assert_eq!(
            stored(&sb),
            before + 1,
            "{reader:?}: the run was not stored"
        );
    }
}
