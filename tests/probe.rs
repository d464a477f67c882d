//! `probe` records, for each check, the calls it made and what the kernel
//! answered: these tests read that evidence (the call, the answer, the
//! figure and whether figure and answer agree), never a verdict, and no
//! time. One run of every check is shared by the tests; a check that
//! needs what this machine lacks (root for the veth link, a tmpfs for the
//! sparse file) must be `unsupported` with the reason and keep what it
//! observed before.

mod common;
use common::observed::{figure, names, observations, seen, text};
use common::{require, results, Sandbox};
use serde_json::Value;
use std::sync::OnceLock;

/// Every check, run once with nothing stored; the sandbox (and its
/// TMPDIR, checked empty) is gone when the JSON is returned.
fn run() -> &'static Value {
    static RUN: OnceLock<Value> = OnceLock::new();
    RUN.get_or_init(|| {
        let sb = Sandbox::new();
        sb.run_json(&["run", "probe", "--json", "-", "--no-store", "--quiet"])
    })
}

/// The result of `check`.
fn result(check: &str) -> &'static Value {
    results(run())
        .iter()
        .find(|r| r["params"]["check"] == check)
        .unwrap_or_else(|| panic!("no result for check {check}"))
}

/// The result of `check`, which must be ok.
fn ok(check: &str) -> &'static Value {
    let r = result(check);
    assert_eq!(r["status"], "ok", "{check}: {}", r["reason"]);
    r
}

fn call<'a>(r: &'a Value, name: &str) -> &'a str {
    text(r, name, "call")
}

fn answer<'a>(r: &'a Value, name: &str) -> &'a str {
    text(r, name, "answer")
}

#[test]
fn every_check_runs_once_with_its_observations_counted() {
    let res = results(run());
    let checks: Vec<&str> = res
        .iter()
        .map(|r| r["params"]["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        [
            "pipe-read-atime",
            "writer-mtime",
            "pipe-16-pages",
            "cork-nodelay-exclusive",
            "nodelay-beats-cork",
            "cork-merges-header",
            "mss-1448",
            "sendfile-offset",
            "sendfile-whole-file",
            "fd-setsize",
            "select-needs-rebuild",
            "epoll-mmap",
            "et-one-notice",
            "epoll-ctl-constant",
            "fd-limit-memory",
            "port-setup-1ms",
            "spawn-vs-nofile",
            "one-waiter-woken",
            "read-evicts-cache",
        ]
    );
    for r in res.iter().filter(|r| r["status"] == "ok") {
        let count = r["metrics"]["observations"]["value"].as_f64().unwrap();
        assert_eq!(count as usize, observations(r).len(), "{}", r["case"]);
        assert_eq!(r["headline"], "observations");
    }
}

/// The timestamp `field` of an answer moved (figure > 0) or not (0), and
/// the answer says the same.
fn check_moved(r: &Value, name: &str, field: &str) {
    let moved = figure(r, name, "ns");
    let said = answer(r, name);
    assert!(said.starts_with(field), "{said}");
    assert_eq!(moved == 0.0, said.contains("unchanged"), "{said}");
    assert!(moved >= 0.0, "{said}");
}

#[test]
fn pipe_read_atime_reads_the_atime_around_a_read_on_both_pipe_kinds() {
    let r = ok("pipe-read-atime");
    assert_eq!(names(r), ["anon_pipe", "fifo"]);
    assert!(call(r, "anon_pipe").contains("read(1 B)"));
    assert!(call(r, "anon_pipe").ends_with("an anonymous pipe (pipefs)"));
    assert!(
        call(r, "fifo").contains("on a FIFO on "),
        "{}",
        call(r, "fifo")
    );
    for name in ["anon_pipe", "fifo"] {
        check_moved(r, name, "st_atime");
    }
}

#[test]
fn writer_mtime_reads_mtime_and_ctime_around_a_write_with_o_noatime() {
    let r = ok("writer-mtime");
    let kinds = ["anon_pipe", "fifo"];
    let expected: Vec<String> = kinds
        .iter()
        .flat_map(|k| ["noatime", "mtime", "ctime"].map(|f| format!("{k}_{f}")))
        .collect();
    assert_eq!(names(r), expected);
    for kind in kinds {
        let noatime = seen(r, &format!("{kind}_noatime"));
        match noatime["error"].as_str() {
            Some(errno) => assert!(errno.starts_with('E'), "{noatime}"),
            None => assert!([0.0, 1.0].contains(&figure(r, &format!("{kind}_noatime"), "flag"))),
        }
        assert!(call(r, &format!("{kind}_mtime")).contains("O_NOATIME set"));
        check_moved(r, &format!("{kind}_mtime"), "st_mtime");
        check_moved(r, &format!("{kind}_ctime"), "st_ctime");
    }
}

#[test]
fn pipe_16_pages_fills_a_pipe_to_its_reported_size() {
    let r = ok("pipe-16-pages");
    let page = figure(r, "page_size", "bytes");
    let filled = figure(r, "fill_until_eagain", "bytes");
    assert_eq!(filled, figure(r, "getpipe_sz", "bytes"));
    assert_eq!(filled % page, 0.0);
    assert!(answer(r, "fill_until_eagain").ends_with("then EAGAIN"));
    assert_eq!(answer(r, "getpipe_sz"), format!("{filled}"));
    assert_eq!(figure(r, "setpipe_sz_min", "bytes"), page);
    let max = figure(r, "pipe_max_size", "bytes");
    assert_eq!(figure(r, "setpipe_sz_max", "bytes"), max);
    let above = seen(r, "setpipe_sz_above_max");
    assert!(above["call"]
        .as_str()
        .unwrap()
        .contains(&format!("{}", max as u64 + 1)));
    match above["error"].as_str() {
        Some(errno) => assert_eq!(errno, "EPERM", "{above}"),
        None => assert!(figure(r, "setpipe_sz_above_max", "bytes") > max),
    }
}

#[test]
fn cork_and_nodelay_are_read_back_after_setting_both_in_either_order() {
    let r = ok("cork-nodelay-exclusive");
    for order in ["cork_then_nodelay", "nodelay_then_cork"] {
        assert_eq!(answer(r, &format!("{order}_set")), "both accepted");
        for opt in ["tcp_cork", "tcp_nodelay"] {
            let name = format!("{order}_{opt}");
            let on = figure(r, &name, "flag");
            assert!(call(r, &name).starts_with(&format!("getsockopt({})", opt.to_uppercase())));
            let said = if on == 1.0 { "1 (set)" } else { "0 (clear)" };
            assert_eq!(answer(r, &name), said);
        }
    }
}

#[test]
fn nodelay_beats_cork_times_each_delivery_or_says_it_did_not_come() {
    let r = ok("nodelay-beats-cork");
    assert_eq!(
        names(r),
        ["both_first_write", "both_second_write", "cork_only"]
    );
    for name in names(r) {
        let o = seen(r, name);
        assert!(o["call"].as_str().unwrap().contains("write(100 B)"), "{o}");
        match o["figure"].as_f64() {
            Some(ns) => {
                assert!(ns > 0.0 && o["unit"] == "ns", "{o}");
                assert!(answer(r, name).starts_with("readable after"), "{o}");
            }
            None => assert!(answer(r, name).starts_with("not readable within"), "{o}"),
        }
    }
}

#[test]
fn cork_merges_header_counts_data_segments_with_the_mss() {
    let r = result("cork-merges-header");
    for prefix in ["", "veth_"] {
        if prefix == "veth_" && r["status"] == "unsupported" {
            let why = r["reason"].as_str().unwrap();
            assert!(why.contains("link emulation needs"), "{why}");
            assert!(names(r).contains(&"nodelay_data_segments"), "loopback kept");
            require(false, &format!("a veth link ({why})"));
            return;
        }
        assert_eq!(r["status"], "ok", "{}", r["reason"]);
        for mode in ["cork", "nodelay"] {
            let name = format!("{prefix}{mode}_data_segments");
            let segs = figure(r, &name, "segments");
            let mss = figure(r, &format!("{prefix}{mode}_snd_mss"), "bytes");
            assert!(segs >= (65736.0 / mss).ceil(), "{segs} segments of {mss}");
            assert!(answer(r, &name).contains("for 65736 bytes"));
            assert!(call(r, &name).contains("sendfile(64 KiB file)"));
        }
    }
    assert!(call(r, "veth_cork_data_segments").contains(" over veth;"));
}

#[test]
fn mss_1448_reads_the_mss_over_loopback_and_over_veth_as_root() {
    let r = result("mss-1448");
    for over in ["loopback", "veth"] {
        if over == "veth" && r["status"] == "unsupported" {
            let why = r["reason"].as_str().unwrap();
            assert!(why.contains("link emulation needs"), "{why}");
            assert_eq!(names(r).len(), 3, "the loopback evidence is kept");
            require(false, &format!("a veth link ({why})"));
            return;
        }
        assert_eq!(r["status"], "ok", "{}", r["reason"]);
        let mss = figure(r, &format!("{over}_snd_mss"), "bytes");
        let pmtu = figure(r, &format!("{over}_pmtu"), "bytes");
        assert!(
            mss > 0.0 && mss <= pmtu - 40.0,
            "{over}: mss {mss}, pmtu {pmtu}"
        );
        assert!(figure(r, &format!("{over}_advmss"), "bytes") > 0.0);
        assert!(call(r, &format!("{over}_snd_mss")).ends_with(&format!("over {over}")));
    }
    assert_eq!(figure(r, "veth_pmtu", "bytes"), 1500.0, "a veth's MTU");
}

#[test]
fn sendfile_offset_shows_the_offset_and_the_file_position() {
    let r = ok("sendfile-offset");
    assert_eq!(figure(r, "returned", "bytes"), 4096.0);
    assert_eq!(figure(r, "offset_after", "bytes"), 1000.0 + 4096.0);
    assert!(call(r, "offset_after").contains("&offset = 1000"));
    assert_eq!(figure(r, "position_after_offset_call", "bytes"), 0.0);
    assert_eq!(figure(r, "returned_null_offset", "bytes"), 4096.0);
    assert_eq!(figure(r, "position_after_null_offset", "bytes"), 4096.0);
}

#[test]
fn sendfile_whole_file_sends_a_sparse_file_over_2_gib_in_two_calls() {
    let r = result("sendfile-whole-file");
    if r["status"] == "unsupported" {
        let why = r["reason"].as_str().unwrap();
        assert!(why.contains("sparse file"), "{why}");
        require(false, &format!("a tmpfs for a sparse file ({why})"));
        return;
    }
    assert_eq!(r["status"], "ok", "{}", r["reason"]);
    let size = figure(r, "file", "bytes");
    assert!(size > 2.0 * 1024.0 * 1024.0 * 1024.0);
    assert!(call(r, "file").contains("on tmpfs"));
    let first = figure(r, "one_call", "bytes");
    let second = figure(r, "second_call", "bytes");
    assert_eq!(first + second, size);
    assert!(first > 0.0 && first <= 2147479552.0, "{first}");
    assert!(answer(r, "one_call").contains(&format!("0x{:x}", first as u64)));
    assert!(answer(r, "second_call").ends_with(&format!("offset now {}", size as u64)));
}

#[test]
fn fd_setsize_is_the_c_librarys_and_an_fd_set_holds_that_many() {
    let r = ok("fd-setsize");
    let size = figure(r, "fd_setsize", "descriptors");
    assert_eq!(figure(r, "fd_set_bits", "descriptors"), size);
    if cfg!(target_env = "gnu") {
        assert_eq!(size, 1024.0);
        assert!(call(r, "fd_setsize").contains("glibc "));
    }
}

#[test]
fn select_watches_a_descriptor_far_past_fd_setsize() {
    let r = ok("select-needs-rebuild");
    assert_eq!(figure(r, "nothing_written", "descriptors"), 0.0);
    assert_eq!(figure(r, "one_byte_written", "descriptors"), 1.0);
    let said = answer(r, "one_byte_written");
    let fd: u64 = said
        .split("fd ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(fd >= 1024, "{said}");
    assert_eq!(said, format!("1 ready; fd {fd} set"));
    assert_eq!(
        answer(r, "nothing_written"),
        format!("0 ready; fd {fd} clear")
    );
    assert!(call(r, "one_byte_written").contains(&format!("nfds = {}", fd + 1)));
}

#[test]
fn epoll_mmap_asks_for_a_mapping_and_reads_the_process_maps() {
    let r = ok("epoll-mmap");
    assert_eq!(figure(r, "epoll_wait", "events"), 1.0);
    let mmap = seen(r, "mmap");
    assert!(mmap["call"]
        .as_str()
        .unwrap()
        .starts_with("mmap(NULL, 4096"));
    match mmap["error"].as_str() {
        Some(errno) => assert!(answer(r, "mmap").starts_with(&format!("failed: {errno}"))),
        None => assert_eq!(figure(r, "mmap", "flag"), 1.0),
    }
    let mapped = figure(r, "maps", "mappings");
    assert!(answer(r, "maps").starts_with(&format!("{mapped} of ")));
}

#[test]
fn et_one_notice_counts_notices_per_arrival_on_a_pipe_and_a_socket() {
    let r = ok("et-one-notice");
    for kind in ["pipe", "unix_stream"] {
        assert_eq!(figure(r, &format!("{kind}_first_write"), "events"), 1.0);
        let again = figure(r, &format!("{kind}_second_write_unread"), "events");
        assert!(again == 0.0 || again == 1.0, "{again}");
        assert_eq!(figure(r, &format!("{kind}_nothing_new"), "events"), 0.0);
        assert!(call(r, &format!("{kind}_first_write")).contains("EPOLLET"));
    }
    assert_eq!(answer(r, "pipe_first_write"), "1 event");
    let blocking = seen(r, "et_on_blocking_fd");
    match blocking["error"].as_str() {
        Some(errno) => assert!(errno.starts_with('E')),
        None => assert_eq!(answer(r, "et_on_blocking_fd"), "accepted"),
    }
}

#[test]
fn epoll_ctl_constant_times_adds_at_each_level_that_fits_the_budget() {
    let r = ok("epoll-ctl-constant");
    let levels: Vec<&str> = names(r)
        .into_iter()
        .filter(|n| !n.starts_with("add_round_at_"))
        .collect();
    assert_eq!(levels, ["add_at_10", "add_at_1000", "add_at_10000"]);
    let rounds = |level: &str| {
        names(r)
            .into_iter()
            .filter(|n| *n == format!("add_round_at_{level}"))
            .count()
    };
    assert_eq!(rounds("10"), 25, "{:?}", names(r));
    for name in names(r) {
        let o = seen(r, name);
        match o["figure"].as_f64() {
            Some(ns) => assert!(ns > 0.0 && o["unit"] == "ns", "{o}"),
            None => assert!(answer(r, name).starts_with("not measured: "), "{o}"),
        }
    }
    assert!(seen(r, "add_at_10")["figure"].is_number());
}

#[test]
fn fd_limit_memory_names_the_limit_that_binds_first() {
    let r = ok("fd-limit-memory");
    let memory = figure(r, "mem_total", "bytes");
    let file_max = figure(r, "file_max", "descriptors");
    let per_gib = figure(r, "file_max_per_gib", "descriptors/GiB");
    let expected = file_max / (memory / (1u64 << 30) as f64);
    assert!(
        (per_gib - expected).abs() < 1e-6 * expected,
        "{per_gib} vs {expected}"
    );
    let limits = ["file_max", "nr_open", "max_user_watches", "nofile_hard"];
    let lowest = limits
        .iter()
        .map(|n| figure(r, n, "descriptors"))
        .fold(f64::INFINITY, f64::min);
    assert_eq!(figure(r, "binds_first", "descriptors"), lowest);
    assert!(answer(r, "binds_first").contains(&format!("binds first at {lowest}")));
    assert!(figure(r, "nofile_soft", "descriptors") <= figure(r, "nofile_hard", "descriptors"));
}

#[test]
fn the_store_and_the_reports_keep_the_observations() {
    let sb = Sandbox::new();
    let db = sb.db();
    let db = db.to_str().unwrap();
    let checks = "check=pipe-16-pages,epoll-mmap";
    let ran = sb.run_json(&["run", "probe", "-p", checks, "--db", db, "--json", "-"]);
    let shown = sb.run_json(&["show", "latest", "--db", db, "--json", "-"]);
    for (a, b) in results(&ran).iter().zip(results(&shown)) {
        assert_eq!(a["observations"], b["observations"]);
        assert!(!observations(a).is_empty());
    }
    let md = sb.dir.path().join("r.md");
    let md_path = md.to_str().unwrap();
    sb.iolab(&["report", "latest", "--db", db, "--markdown", md_path])
        .assert()
        .success();
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("- pipe-16-pages (E3-pipe-16-pages): fcntl(pipe, F\\_GETPIPE\\_SZ) -&gt; "),
        "{text}"
    );
    let table = sb
        .iolab(&["show", "latest", "--db", db])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).unwrap();
    assert!(
        table.contains("  epoll-mmap (E5-epoll-mmap):\n    epoll_wait("),
        "{table}"
    );
}

#[test]
fn an_unknown_check_is_refused_with_the_allowed_ones() {
    let sb = Sandbox::new();
    let err = sb.usage_error(&["run", "probe", "-p", "check=nope", "--no-store"]);
    assert!(err.contains("nope"), "{err}");
    assert!(
        err.contains("pipe-16-pages") && err.contains("fd-limit-memory"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
