//! One meaning of `±` everywhere: the table, its notes, the Markdown and
//! the HTML report of one run each say what it is (half the 95% interval
//! of the median), and none uses it for anything else, such as the
//! min-max spread the noisy list reads.

mod common;
use common::Sandbox;

const LEGEND: &str = "± is half the 95% interval of the median (bootstrap over the repetitions)";

fn stdout(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_output_of_a_run_names_the_one_meaning_of_plus_minus() {
    let sb = Sandbox::new();
    let table = stdout(&mut sb.iolab(&[
        "run",
        "pingpong",
        "stream",
        "--mech",
        "pipe",
        "--placement",
        "same-cpu",
        "--repeat",
        "4",
        "--param",
        "count=300",
        "--param",
        "size=64",
        "--param",
        "bytes=64k",
    ]));
    let markdown = stdout(&mut sb.iolab(&["report", "latest", "--markdown", "-"]));
    let html = stdout(&mut sb.iolab(&["report", "latest", "--html", "-"]));
    for (name, text) in [("table", &table), ("markdown", &markdown), ("html", &html)] {
        assert!(text.contains('±'), "{name} shows no ±:\n{text}");
        assert!(
            text.contains(LEGEND),
            "{name} does not say what ± is:\n{text}"
        );
        // Every other line with a ± is a figure with its interval or a
        // claim's precision, never the spread of the noisy list.
        assert!(!text.contains("spread ±"), "{name}:\n{text}");
    }
}
