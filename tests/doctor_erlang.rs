//! `iolab doctor` on an Erlang VM talking to a port program: beam.smp
//! sends 64-byte binaries down a pipe to `cat` and reads each one back
//! (the seeds' Erlang port system). Doctor must find both pipes with `cat`
//! at the other end, the message rate and sizes, the wake-ups between the
//! two, and cat's context switches, from which a switches-per-message
//! figure follows.

mod common;

use common::{is_root, json, on_path, require, Sandbox};
use serde_json::Value;

/// The Erlang program: a port to cat, 64 bytes out and back in a loop for
/// 3 s, the count of round trips on stderr (stdout carries doctor's JSON),
/// exit 0; exit 3 if cat stops answering.
const PORT_ECHO: &str = r#"
Cat = os:find_executable("cat"),
P = open_port({spawn_executable, Cat}, [binary, stream]),
Msg = binary:copy(<<"x">>, 64),
End = erlang:monotonic_time(millisecond) + 3000,
Recv = fun R(0) -> ok;
           R(Left) -> receive {P, {data, D}} -> R(Left - byte_size(D))
                      after 5000 -> erlang:halt(3) end end,
Loop = fun L(N) ->
    case erlang:monotonic_time(millisecond) < End of
        true -> true = port_command(P, Msg), ok = Recv(64), L(N + 1);
        false -> N
    end end,
N = Loop(0),
io:format(standard_error, "round trips: ~p~n", [N]),
erlang:halt(0).
"#;

fn call<'a>(channel: &'a Value, names: &[&str]) -> Option<&'a Value> {
    channel["calls"]
        .as_array()?
        .iter()
        .find(|c| names.iter().any(|n| c["syscall"] == *n))
}

fn has_peer(channel: &Value, comm: &str) -> bool {
    channel["channel"]["peers"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p["comm"] == comm))
}

/// Whether `size` is among the call sizes of `sizes` ([[bytes, count], ..]).
fn sizes_include(sizes: &Value, size: u64) -> bool {
    sizes
        .as_array()
        .is_some_and(|s| s.iter().any(|pair| pair[0].as_u64() == Some(size)))
}

#[test]
fn an_erlang_port_to_cat_shows_its_pipes_its_rate_and_its_wake_ups() {
    if !require(on_path("erl"), "erl (Debian's erlang-base)")
        || !require(is_root(), "root, for the tracer's per-thread tracepoints")
    {
        return;
    }
    let sb = Sandbox::new();
    // The watch alone (no alternatives measured after it); --for is a
    // hang guard only: the program ends on its own after 3 s.
    let out = sb
        .command(&[
            "doctor",
            "--quiet",
            "--json",
            "-",
            "--alternatives",
            "0",
            "--for",
            "20s",
            "--",
            "erl",
            "-noshell",
            "-eval",
            PORT_ECHO,
        ])
        // A crashing VM writes erl_crash.dump into its working directory.
        .env("ERL_CRASH_DUMP", sb.tmp().join("erl_crash.dump"))
        .output()
        .unwrap();
    let erl_says = String::from_utf8_lossy(&out.stderr).into_owned();
    let d = json(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "erl's own status: {erl_says}");
    assert_eq!(d["ending"], "exited", "{erl_says}");
    assert!(d["tracer"]["unavailable"].is_null(), "{}", d["tracer"]);
    assert!(
        d["tracer"]["windows"].as_u64().unwrap() >= 2,
        "{}",
        d["tracer"]
    );
    let channels = d["channels"].as_array().unwrap();
    let of = |process: &str| -> Vec<&Value> {
        channels
            .iter()
            .filter(|c| c["process"] == process && c["channel"]["kind"] == "pipe")
            .collect()
    };
    let (beam, cat) = (of("beam.smp"), of("cat"));
    let writes = ["write", "writev"];

    // beam.smp -> cat: the VM writes each message (from a scheduler thread).
    let to_cat = beam
        .iter()
        .find(|c| has_peer(c, "cat") && call(c, &writes).is_some())
        .unwrap_or_else(|| panic!("beam.smp's pipe to cat, with writes: {beam:#?}"));
    let sent = call(to_cat, &writes).unwrap();
    let per_s = sent["per_s"].as_f64().unwrap();
    assert!(per_s > 100.0, "messages per second: {sent}");
    assert!(
        sizes_include(&to_cat["bytes_out"], 64),
        "the 64-byte messages: {}",
        to_cat["bytes_out"]
    );
    let cat_in = cat
        .iter()
        .find(|c| c["channel"]["inode"] == to_cat["channel"]["inode"])
        .unwrap_or_else(|| panic!("cat's end of beam's pipe: {cat:#?}"));
    assert!(has_peer(cat_in, "beam.smp"), "{cat_in}");
    assert!(call(cat_in, &["read"]).is_some(), "cat's reads: {cat_in}");
    assert!(sizes_include(&cat_in["bytes_in"], 64), "{cat_in}");

    // cat -> beam.smp: the echo comes back on the other pipe.
    let cat_out = cat
        .iter()
        .find(|c| has_peer(c, "beam.smp") && call(c, &writes).is_some())
        .unwrap_or_else(|| panic!("cat's pipe back to beam.smp: {cat:#?}"));
    assert!(sizes_include(&cat_out["bytes_out"], 64), "{cat_out}");
    let from_cat = beam
        .iter()
        .find(|c| c["channel"]["inode"] == cat_out["channel"]["inode"])
        .unwrap_or_else(|| panic!("beam.smp's end of cat's pipe: {beam:#?}"));
    assert!(has_peer(from_cat, "cat"), "{from_cat}");
    assert!(call(from_cat, &["read", "readv"]).is_some(), "{from_cat}");

    // Each message wakes cat, each echo wakes a scheduler.
    let wakes = |c: &Value| c["wakeups"]["count"].as_u64().unwrap();
    assert!(
        wakes(to_cat) + wakes(cat_out) > 0,
        "the wake-ups between them: {} {}",
        to_cat["wakeups"],
        cat_out["wakeups"]
    );
    let cat_threads: Vec<&Value> = d["threads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["comm"] == "cat")
        .collect();
    let csw: u64 = cat_threads
        .iter()
        .map(|t| t["voluntary_csw"].as_u64().unwrap())
        .sum();
    let cat_s = cat_threads
        .iter()
        .map(|t| t["watched_ms"].as_f64().unwrap())
        .fold(0.0, f64::max)
        / 1e3;
    assert!(csw > 0 && cat_s > 0.0, "cat's switches: {cat_threads:?}");
    let csw_per_message = csw as f64 / cat_s / per_s;
    assert!(csw_per_message.is_finite() && csw_per_message > 0.0);

    let counted = erl_says
        .lines()
        .find_map(|l| l.strip_prefix("round trips: "))
        .and_then(|n| n.trim().parse::<f64>().ok())
        .unwrap_or_else(|| panic!("erl's count of round trips: {erl_says}"));
    eprintln!(
        "erlang port: the VM counted {counted:.0} round trips in 3 s = {:.0}/s, traced windows included",
        counted / 3.0
    );
    eprintln!(
        "erlang port: doctor {per_s:.0} messages/s ({}, in its windows, slowdown there {:.2}), \
         wake-ups/s beam->cat {:.0}, cat->beam {:.0}",
        sent["syscall"].as_str().unwrap(),
        d["tracer"]["overhead"]["slowdown_in_windows"]
            .as_f64()
            .unwrap_or(f64::NAN),
        to_cat["wakeups"]["per_s"].as_f64().unwrap(),
        cat_out["wakeups"]["per_s"].as_f64().unwrap(),
    );
    eprintln!(
        "erlang port: cat {csw} voluntary switches in {cat_s:.2} s = {csw_per_message:.2} per message"
    );
    // The whole program's switches (the VM's threads and cat), as
    // port-ring counts iolab's and its echo program's.
    let all_csw: u64 = d["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["voluntary_csw"].as_u64().unwrap() + t["involuntary_csw"].as_u64().unwrap())
        .sum();
    let watched_s = d["watched_s"].as_f64().unwrap();
    beside_port_ring(&sb, per_s, all_csw as f64 / watched_s / per_s);
    sb.assert_tmp_empty();
}

/// The lab's own port ring of the same length (one relay, one cat) set
/// beside what doctor saw of the VM: both move 64-byte messages through a
/// pipe pair to cat and back, so both count switches per message alike.
fn beside_port_ring(sb: &Sandbox, doctor_per_s: f64, doctor_csw_per_message: f64) {
    let run = sb.run_json(&[
        "run",
        "port-ring",
        "-p",
        "relays=1",
        "-p",
        "messages=20000",
        "--repeat",
        "3",
        "--no-store",
        "--json",
        "-",
    ]);
    let ring = &run["results"][0];
    assert_eq!(ring["status"], "ok", "{ring}");
    let metric = |name: &str| ring["metrics"][name]["value"].as_f64().unwrap();
    let (ring_per_s, ring_csw) = (metric("msgs_per_s"), metric("csw_per_s_iolab"));
    let ring_csw_per_message = ring_csw / ring_per_s;
    eprintln!(
        "port-ring, 1 relay: {ring_per_s:.0} messages/s, {ring_csw_per_message:.2} switches \
         per message (iolab's); the Erlang VM under doctor: {doctor_per_s:.0} messages/s, \
         {doctor_csw_per_message:.2} switches per message (the VM's and cat's)"
    );
    // In port-ring each side blocks at most once per message; batching
    // makes it less.
    assert!(
        (0.2..=6.0).contains(&ring_csw_per_message),
        "port-ring: {ring_csw_per_message} switches per message"
    );
    // The VM is many threads (schedulers, dirty schedulers, the poll
    // thread), a message reaches cat in more than one write when the
    // pieces do not coalesce (more often while wake-ups are slow), and the
    // rate is the traced windows' while the switches are the whole
    // watch's: a sanity bound, not the port ring's.
    assert!(
        (0.2..=20.0).contains(&doctor_csw_per_message),
        "doctor: {doctor_csw_per_message} switches per message"
    );
}
