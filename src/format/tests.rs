use super::*;

#[test]
fn human_exact_strings() {
    let cases: &[(f64, &str, &str)] = &[
        (812.0, "ns", "812 ns"),
        (81.24, "ns", "81.2 ns"),
        (0.5, "ns", "0.500 ns"),
        (0.0, "ns", "0 ns"),
        (12_345.0, "ns", "12.3 us"),
        (4_561_000.0, "ns", "4.56 ms"),
        (1_199_999_999.0, "ns", "1.20 s"),
        (999.6, "ns", "1.00 us"),
        (999_499.0, "ns", "999 us"),
        (3_600e9, "ns", "3600 s"),
        (0.0012, "s", "1.20 ms"),
        (1.234e9, "bytes/s", "1.23 GB/s"),
        (456.2e6, "bytes/s", "456 MB/s"),
        (12_000.0, "bytes/s", "12.0 kB/s"),
        (999.0, "bytes/s", "999 B/s"),
        (2.5e12, "bytes/s", "2.50 TB/s"),
        (1.234e6, "1/s", "1.23 M/s"),
        (456_000.0, "1/s", "456 k/s"),
        (9.996e5, "1/s", "1.00 M/s"),
        (42.0, "1/s", "42.0 /s"),
        (0.1234, "x", "0.123 x"),
        (1234.4, "%", "1230 %"),
        (-12.34, "%", "-12.3 %"),
        (1.0, "", "1.00"),
        (f64::NAN, "ns", "NaN ns"),
    ];
    for (value, unit, want) in cases {
        assert_eq!(human(*value, unit), *want, "human({value}, {unit:?})");
    }
}

#[test]
fn times_take_the_unit_that_fits_whatever_unit_they_were_stored_in() {
    let cases: &[(f64, &str, &str)] = &[
        (2_640_000.0, "ns", "2.64 ms"),
        (2640.0, "us", "2.64 ms"),
        (24_250.0, "us", "24.3 ms"),
        (0.4, "us", "400 ns"),
        (15.027, "us", "15.0 us"),
        (751.0, "ms", "751 ms"),
        (1500.0, "ms", "1.50 s"),
        (0.75, "s", "750 ms"),
    ];
    for (value, unit, want) in cases {
        assert_eq!(human(*value, unit), *want, "human({value}, {unit:?})");
    }
}

#[test]
fn counts_are_exact_and_agree_in_number() {
    let cases: &[(f64, &str, &str)] = &[
        (1.0, "calls", "1 call"),
        (0.0, "calls", "0 calls"),
        (123_456.0, "calls", "123456 calls"),
        (2.5, "calls", "2.50 calls"),
        (1.0, "processes", "1 process"),
        (3.0, "processes", "3 processes"),
        (1.0, "pages", "1 page"),
        (1234.0, "fds", "1234 fds"),
        (1.0, "fds", "1 fd"),
        (17.0, "csw", "17 csw"),
    ];
    for (value, unit, want) in cases {
        assert_eq!(human(*value, unit), *want, "human({value}, {unit:?})");
    }
    assert_eq!(plural(1, "run"), "1 run");
    assert_eq!(plural(0, "run"), "0 runs");
    assert_eq!(plural(2, "result"), "2 results");
}

#[test]
fn ratios_keep_two_significant_digits() {
    let cases: &[(f64, &str)] = &[
        (0.0063, "0.0063x"),
        (0.00634, "0.0063x"),
        (0.099, "0.099x"),
        (0.0996, "0.10x"),
        (0.854, "0.85x"),
        (1.09, "1.09x"),
        (1.0, "1.00x"),
        (3.24, "3.24x"),
        (9.996, "10x"),
        (12.6, "13x"),
        (122.49, "120x"),
        (4711.0, "4700x"),
        (0.0, "0.00x"),
    ];
    for (value, want) in cases {
        assert_eq!(ratio(*value), *want, "ratio({value})");
    }
}

#[test]
fn sizes_read_in_binary_units_and_stay_exact() {
    let cases: &[(u64, &str)] = &[
        (4_194_304, "4 MiB"),
        (65_536, "64 KiB"),
        (1536, "1.5 KiB"),
        (1024, "1 KiB"),
        (1, "1 B"),
        (1500, "1500 B"),
        (100_000, "100000 B"),
        (1 << 30, "1 GiB"),
        (u64::MAX, "18446744073709551615 B"),
    ];
    for (bytes, want) in cases {
        assert_eq!(size(*bytes), *want, "size({bytes})");
    }
}

#[test]
fn case_labels_show_sizes_and_keep_the_rest() {
    assert_eq!(
        case_label("pipe/same-cpu/processes/4194304B"),
        "pipe/same-cpu/processes/4 MiB"
    );
    assert_eq!(
        case_label("shm/cross-cpu/threads/1B/wake=spin"),
        "shm/cross-cpu/threads/1 B/wake=spin"
    );
    assert_eq!(case_label("anon/noatime"), "anon/noatime");
    assert_eq!(case_label("tcp/4-writers/B"), "tcp/4-writers/B");
}

fn metric(value: f64, min: Option<f64>, max: Option<f64>, reps: Vec<f64>) -> Metric {
    Metric {
        value,
        unit: "ns".into(),
        min,
        max,
        reps,
    }
}

#[test]
fn spread_is_half_range_over_median() {
    let pct = |value, min, max| spread_pct(&metric(value, min, max, vec![]));
    assert_eq!(pct(100.0, Some(97.0), Some(103.0)), Some(3.0));
    assert_eq!(pct(1000.0, Some(996.0), Some(1004.0)), Some(0.4));
    assert_eq!(pct(100.0, None, Some(103.0)), None);
    assert_eq!(pct(0.0, Some(0.0), Some(1.0)), None);
}

#[test]
fn a_range_reads_in_its_value_s_scale() {
    assert_eq!(human_range(4820.0, 4700.0, 4900.0, "ns"), "4.70-4.90");
    assert_eq!(human_range(1.0, 0.99, 1.02, "s"), "0.990-1.02");
    assert_eq!(human_range(2640.0, 2600.0, 2700.0, "us"), "2.60-2.70");
    assert_eq!(human_range(2.3e9, 2.2e9, 2.4e9, "bytes/s"), "2.20-2.40");
    assert_eq!(human_range(1.9, 1.8, 2.0, "csw/msg"), "1.80-2.00");
}

#[test]
fn counts_read_as_typed() {
    let count = typed_count;
    assert_eq!(count(640.0), "640");
    assert_eq!(count(1e7), "10M");
    assert_eq!(count(100_000.0), "100k");
    assert_eq!(count(10_001.0), "10001");
    assert_eq!(count(0.5), "0.5");
}

#[test]
fn stored_strings_print_without_control_characters_and_within_a_width() {
    let hostile = "run\u{1b}]0;owned\u{7}\u{1b}[2J";
    assert_eq!(printable(hostile, 80), "run\\u{1b}]0;owned\\u{7}\\u{1b}[2J");
    assert_eq!(printable("abcdef", 3), "abc…");
    assert_eq!(printable("fine label", 80), "fine label");
}
