//! The HTML report as a person sees it: headless Chromium renders a report
//! of fabricated runs (one case profiled, so a flame graph is embedded) to
//! PNG, and the picture must not be blank; the page must load nothing from
//! elsewhere. Without a browser on PATH the test is
//! skipped, or fails under IOLAB_STRICT_TESTS=1 (CI installs `chromium`).

mod common;
#[path = "common/runs.rs"]
mod runs;

use common::Sandbox;
use std::path::{Path, PathBuf};
use std::time::Duration;

const BROWSERS: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];
const WIDTH: u32 = 1200;
const HEIGHT: u32 = 3000;

#[test]
fn report_renders_in_headless_chromium() {
    let Some(browser) = common::find_program(&BROWSERS) else {
        common::require(
            false,
            &format!(
                "needs a headless browser on PATH, one of {BROWSERS:?} \
                 (Debian: apt-get install chromium)"
            ),
        );
        return;
    };
    let sb = Sandbox::new();
    let html = write_report(&sb);
    let page = std::fs::read_to_string(&html).unwrap();
    assert_no_external_references(&page);
    let png = sb.dir.path().join("report.png");
    screenshot(&browser, &html, &png, sb.dir.path());
    let (width, height, distinct, ink) = picture_stats(&png);
    assert_eq!((width, height), (WIDTH, HEIGHT));
    assert!(
        distinct >= 20,
        "only {distinct} distinct colours: blank page?"
    );
    assert!(
        ink > 0.02,
        "only {:.1}% of pixels are not white",
        ink * 100.0
    );
}

/// Two runs, a comparison report with every chart kind.
fn write_report(sb: &Sandbox) -> PathBuf {
    let mut a = runs::pingpong_sweep(1.0);
    a.push(runs::with_series());
    let mut b = runs::pingpong_sweep(1.2);
    b.push(runs::with_series());
    b[0] = runs::with_profile(
        b[0].clone(),
        &["iolab;[kernel];pipe_write 3", "iolab;main 1"],
    );
    runs::save(
        &sb.db(),
        &[
            runs::run("a", "2024-01-01T00:00:00Z", "before", a),
            runs::run("b", "2024-01-02T00:00:00Z", "<script>alert(1)</script>", b),
        ],
    );
    let html = sb.dir.path().join("report.html");
    let db = sb.db();
    sb.iolab(&[
        "report",
        "--db",
        db.to_str().unwrap(),
        "--compare",
        "latest~1",
        "latest",
        "--html",
        html.to_str().unwrap(),
    ])
    .assert()
    .success();
    html
}

/// Every http(s) URL in the page is an XML namespace name or a page named
/// in the flame graph script's text, never something to load (src=, href=, url(), @import).
fn assert_no_external_references(page: &str) {
    for (at, _) in page.match_indices("http") {
        let before = &page[at.saturating_sub(20)..at];
        // inferno's script names two pages in a comment and a message.
        let named = before.ends_with("&#x2f;&#x2f; ") || before.ends_with("file a bug at ");
        assert!(
            named || before.trim_end_matches('"').contains("xmlns"),
            "external reference near: {}",
            &page[at.saturating_sub(40)..(at + 60).min(page.len())]
        );
    }
    // The flame graphs' own script and styles are escaped inside srcdoc;
    // their url() only names a gradient of the same document.
    // Links within the page (findings, contents) fetch nothing.
    let page = page.replace("url(#background)", "").replace("href=\"#", "");
    for bad in ["src=", "href=", "url(", "@import", "<script"] {
        assert!(!page.contains(bad), "the page contains {bad}");
    }
    assert!(page.contains("srcdoc="), "a flame graph is embedded");
}

fn screenshot(browser: &Path, html: &Path, png: &Path, scratch: &Path) {
    let profile = scratch.join("chromium-profile");
    let out = assert_cmd::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!("file://{}", html.display()))
        .timeout(Duration::from_secs(120))
        .output()
        .expect("chromium starts");
    assert!(
        png.exists(),
        "chromium wrote no screenshot ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Width, height, distinct colours, and the share of pixels that are not white.
fn picture_stats(png: &Path) -> (u32, u32, usize, f64) {
    let file = std::io::BufReader::new(std::fs::File::open(png).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let distinct: std::collections::HashSet<&[u8]> = pixels.iter().copied().collect();
    let ink = pixels.iter().filter(|p| p[..3] != [255, 255, 255]).count();
    (
        info.width,
        info.height,
        distinct.len(),
        ink as f64 / pixels.len() as f64,
    )
}
