//! Headless Chromium for the report tests: a screenshot of a page, the
//! picture's statistics (not blank), and the check that a page loads
//! nothing from elsewhere.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

pub const BROWSERS: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// The headless browser on PATH; without one, None after `require` said
/// why (a skip, or a failure under IOLAB_STRICT_TESTS=1).
pub fn browser_or_skip() -> Option<std::path::PathBuf> {
    let found = super::common::find_program(&BROWSERS);
    if found.is_none() {
        super::common::require(
            false,
            &format!(
                "needs a headless browser on PATH, one of {BROWSERS:?} \
                 (Debian: apt-get install chromium)"
            ),
        );
    }
    found
}

/// Headless, offline and quiet: without the background-networking flags
/// Chromium tries hosts this machine cannot reach.
const HEADLESS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Every http(s) URL in the page is an XML namespace name or a page named
/// in the flame graph script's text, never something to load (src=, href=, url(), @import).
pub fn assert_no_external_references(page: &str) {
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
}

/// Renders `html` in headless `browser` to `png`, `size` pixels (width,
/// height); the profile lives under `scratch`.
pub fn screenshot(browser: &Path, html: &Path, png: &Path, scratch: &Path, size: (u32, u32)) {
    let profile = scratch.join("chromium-profile");
    let out = assert_cmd::Command::new(browser)
        .args(HEADLESS)
        .arg("--hide-scrollbars")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={},{}", size.0, size.1))
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

/// The page's DOM as headless `browser` parsed it (`--dump-dom`): what a
/// reader's browser holds, details closed or open, ids as it resolved them.
pub fn dump_dom(browser: &Path, html: &Path, scratch: &Path) -> String {
    let profile = scratch.join("chromium-dom-profile");
    let out = assert_cmd::Command::new(browser)
        .args(HEADLESS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", html.display()))
        .timeout(Duration::from_secs(120))
        .output()
        .expect("chromium starts");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("</html>"),
        "chromium dumped no DOM ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    dom
}

/// Width, height and every pixel's RGB colour.
pub fn pixels(png: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let file = std::io::BufReader::new(std::fs::File::open(png).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, rgb)
}

/// Width, height, distinct colours, and the share of pixels that are not white.
pub fn picture_stats(png: &Path) -> (u32, u32, usize, f64) {
    let (width, height, rgb) = pixels(png);
    let distinct: std::collections::HashSet<&[u8; 3]> = rgb.iter().collect();
    let ink = rgb.iter().filter(|p| **p != [255, 255, 255]).count();
    (width, height, distinct.len(), ink as f64 / rgb.len() as f64)
}

/// The screenshot `png` is `size` and not blank: at least 20 colours and
/// 2% of its pixels not white.
pub fn assert_not_blank(png: &Path, size: (u32, u32)) {
    let (width, height, distinct, ink) = picture_stats(png);
    assert_eq!((width, height), size);
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
