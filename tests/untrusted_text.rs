//! No stranger's bytes reach a terminal: every command that prints a string
//! iolab did not write (a stored label, case name, failure reason, claim or
//! environment field of an imported run; a process name or a path doctor
//! observed; what a client sent the agent) prints it escaped and within a
//! width. Each runs over hostile fixtures, and its output is searched for
//! raw control bytes: ESC (ANSI sequences, window titles), BEL, and C1's
//! CSI. Before issue 52, doctor printed 89 raw ESC bytes, compare 16, and
//! the agent logged what an unauthenticated stranger sent as it came.

mod common;
use common::agent::{Agent, Net, Raw, VERSION};
use common::{require, Sandbox};
use serde_json::Value;
use std::process::{Command, Output, Stdio};

/// Retitles the terminal's window, then clears the screen.
const HOSTILE: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J";

/// Raw ESC, BEL and CSI (U+009B in UTF-8) bytes in `bytes`.
fn raw_controls(bytes: &[u8]) -> usize {
    let c1 = bytes.windows(2).filter(|w| w == b"\xc2\x9b").count();
    bytes.iter().filter(|b| [0x1b, 0x07].contains(*b)).count() + c1
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let n = raw_controls(bytes);
    assert_eq!(
        n,
        0,
        "{what} printed {n} raw control bytes: {:?}",
        String::from_utf8_lossy(bytes)
    );
}

/// The fields `import` must read as they were written (`vet`), left alone.
fn kept(pointer: &str) -> bool {
    ["/run_id", "/started_at", "/finished_at", "/iolab_version"].contains(&pointer)
        || pointer.ends_with("/scenario") && pointer.starts_with("/results/")
}

/// The JSON pointers of every string in `value`.
fn strings(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::String(_) => out.push(at),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                strings(v, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                strings(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
}

/// `run` with every string that may hold anything made hostile (an
/// enum's names cannot: the run would not read), a metric and a
/// parameter of a hostile name, and id `id`.
fn poisoned(run: &Value, id: &str) -> Value {
    let mut run = run.clone();
    run["run_id"] = id.into();
    let mut pointers = Vec::new();
    strings(&run, String::new(), &mut pointers);
    for pointer in pointers.iter().filter(|p| !kept(p)) {
        let was = run.pointer(pointer).unwrap().clone();
        *run.pointer_mut(pointer).unwrap() = format!("{}{HOSTILE}", was.as_str().unwrap()).into();
        if serde_json::from_value::<iolab::model::Run>(run.clone()).is_err() {
            *run.pointer_mut(pointer).unwrap() = was;
        }
    }
    let first = &mut run["results"][0];
    let metric = first["metrics"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    first["metrics"][format!("m{HOSTILE}")] = metric;
    first["params"][format!("p{HOSTILE}")] = HOSTILE.into();
    run
}

/// A real run with every kind of string a reader prints: a failed case
/// and its reason, a flag, a series, an observation, a finding and a claim.
fn base_run(sb: &Sandbox) -> Value {
    let file = sb.dir.path().join("base.json");
    let mut args = common::pipe_pingpong(&["-p", "count=300", "-p", "size=1,64", "--repeat", "3"]);
    args.extend([
        "--label",
        "base",
        "--no-store",
        "-q",
        "--json",
        file.to_str().unwrap(),
    ]);
    sb.iolab(&args).assert().success();
    let mut run: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let results = run["results"].as_array_mut().unwrap();
    results[1]["status"] = "failed".into();
    results[1]["reason"] = "boom".into();
    results[1]["metrics"] = serde_json::json!({});
    results[0]["flags"] = serde_json::json!([{"name": "not_really_moved", "reason": "why"}]);
    results[0]["series"] = serde_json::json!([{"name": "writer", "unit": "bytes/s", "points": [[0.0, 1.0], [1.0, 2.0]]}]);
    results[0]["observations"] = serde_json::json!([{"name": "n", "call": "c", "answer": "a", "error": "E", "figure": 1.0, "unit": "u"}]);
    run["verdicts"] =
        serde_json::json!([{"scenario": "pingpong", "text": "found", "id": "finding"}]);
    run["claims"] = serde_json::json!([{
        "id": "E1-x", "source": "E1", "claim": "claimed", "verdict": "holds", "figure": "1.0x",
        "original": "orig", "scenario": "pingpong", "kernel_evidence": "kernel",
        "precision": "±1%", "to_decide": "more", "form": "a ratio"
    }]);
    run
}

/// `iolab ARGS` as a terminal would show it. Off a terminal anstream
/// strips escape sequences from stdout; `CLICOLOR_FORCE` keeps them, as a
/// terminal does (iolab itself colours only a terminal, so every escape
/// left is a stranger's).
fn as_on_a_terminal(sb: &Sandbox, args: &[&str]) -> Command {
    let mut cmd = sb.command(args);
    cmd.env("CLICOLOR_FORCE", "1").env_remove("NO_COLOR");
    cmd
}

/// `iolab ARGS` in `sb`: what it printed on both streams.
fn printed(sb: &Sandbox, args: &[&str]) -> Vec<u8> {
    let out = as_on_a_terminal(sb, args).output().unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {out:?}"
    );
    [out.stdout, out.stderr].concat()
}

/// compare printed stored case names and failure reasons raw (`failed in
/// A: boom ESC]0;pwned...`); show, claims, history and the reports are
/// held to the same.
#[test]
fn stored_strings_print_escaped_in_every_command() {
    let sb = Sandbox::new();
    let base = base_run(&sb);
    for id in ["hostile-a", "hostile-b"] {
        let file = sb.dir.path().join(format!("{id}.json"));
        std::fs::write(&file, poisoned(&base, id).to_string()).unwrap();
        sb.iolab(&["import", file.to_str().unwrap()])
            .assert()
            .success();
    }
    let html = sb.dir.path().join("report.html");
    let commands: &[&[&str]] = &[
        &["history"],
        &["show", "hostile-a"],
        &["compare", "hostile-a", "hostile-b"],
        &["claims", "hostile-a"],
        &["claims", "--across", "hostile-a", "hostile-b"],
        &["report", "hostile-a", "--markdown", "-"],
        &[
            "report",
            "--compare",
            "hostile-a",
            "hostile-b",
            "--markdown",
            "-",
        ],
        &["report", "hostile-a", "--html", html.to_str().unwrap()],
        &["fleet", "pingpong", "--metric", "rtt_ns"],
    ];
    for args in commands {
        let out = printed(&sb, args);
        assert!(
            !out.is_empty() || args.contains(&"--html"),
            "{args:?} printed nothing"
        );
        assert_clean(&format!("{args:?}"), &out);
    }
    assert_clean("report --html", &std::fs::read(&html).unwrap());
}

/// The agent printed what an unauthenticated stranger sent raw on its
/// stderr (`refused: malformed control message: unknown variant ESC]0;...`),
/// and what an authenticated client sent likewise.
#[test]
fn the_agent_logs_what_clients_sent_escaped() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &[]);
    let stranger = format!("{}\n", serde_json::json!({"type": HOSTILE}));
    let mut raw = Raw::connect(&agent.addr);
    let reply = raw.send(stranger.as_bytes()).reply().unwrap();
    assert_eq!(reply["type"], "error", "{reply}");
    let mut raw = Raw::connect(&agent.addr);
    assert_eq!(raw.hello(VERSION, None).reply().unwrap()["type"], "welcome");
    let request = serde_json::json!({"type": "run", "transport": "tcp", "timeout_ms": 1000, "side": {"side": HOSTILE}});
    let reply = raw.send(format!("{request}\n").as_bytes()).reply().unwrap();
    assert_eq!(reply["type"], "error", "{reply}");
    assert_eq!(raw.reply(), None);
    let log = agent.log.clone();
    agent.stop(&sb);
    let log = log.lock().unwrap().clone();
    assert!(
        log.contains("pwned"),
        "the agent said what it refused: {log}"
    );
    assert_clean("the agent's log", log.as_bytes());
}

/// A program that names itself with prctl(PR_SET_NAME) and opens a FIFO
/// and a unix socket whose paths hold escapes; it stays until told to go.
const RENAMED: &str = r#"
import ctypes, os, socket, sys
hostile = "\x1b]0;pwned\x07\x1b[2J"
ctypes.CDLL(None).prctl(15, hostile.encode())
d = sys.argv[1]
fifo = os.path.join(d, "fifo" + hostile)
os.mkfifo(fifo)
held = os.open(fifo, os.O_RDWR)
s = socket.socket(socket.AF_UNIX)
s.bind(os.path.join(d, "sock" + hostile))
s.listen()
sys.stdin.read()
"#;

/// doctor printed process names and descriptor paths raw: its heading
/// began `iolab doctor: ESC]0;pwned...`.
#[test]
fn doctor_prints_the_names_and_paths_it_observes_escaped() {
    let python = Command::new("python3").arg("-V").output().is_ok();
    if !require(
        python,
        "python3, for a program that renames itself with prctl",
    ) {
        return;
    }
    let sb = Sandbox::new();
    let script = sb.dir.path().join("renamed.py");
    std::fs::write(&script, RENAMED).unwrap();
    let mut program = Command::new("python3")
        .args([script.to_str().unwrap(), sb.tmp().to_str().unwrap()])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = program.id().to_string();
    let comm = format!("/proc/{pid}/comm");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::fs::read_dir(sb.tmp()).unwrap().count() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the program never renamed itself"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(std::fs::read_to_string(&comm).unwrap().contains("pwned"));
    let out: Output = as_on_a_terminal(
        &sb,
        &[
            "doctor",
            "--pid",
            &pid,
            "--for",
            "1s",
            "--alternatives",
            "0",
        ],
    )
    .output()
    .unwrap();
    drop(program.stdin.take());
    program.wait().unwrap();
    let both = [out.stdout.clone(), out.stderr.clone()].concat();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&both)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("iolab doctor: "), "{text}");
    assert!(
        text.contains("pwned") && text.contains("fifo"),
        "it names them: {text}"
    );
    assert_clean("doctor", &both);
}
