//! The web page in a real browser: headless Chromium loads `canju serve`'s page, the test
//! reads the DOM it built, and keeps a screenshot in `target/test-artefacts/page.png`.
//! `.ci/run` installs Chromium (Debian's package) and a CJK font when absent; elsewhere the
//! test is skipped with its reason printed if no Chromium is found.

mod running_server;

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// Runs headless Chromium on `url` with `extra` arguments; its stdout.
fn headless(browser: &Path, url: &str, extra: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1100,1000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_page_in_headless_chromium() {
    let Some(browser) = chromium() else {
        println!("skipped: no Chromium found (.ci/run installs Debian's chromium package)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = running_server::start(&assert_cmd::cargo::cargo_bin("canju"), dir.path(), 4);
    let base = format!("http://{}", server.address);
    let url = format!("{base}/?fen=3k5/9/9/9/9/9/9/4N4/9/4K4_w");
    let dom = headless(&browser, &url, &["--dump-dom"]);
    let artefacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-artefacts");
    std::fs::create_dir_all(&artefacts).unwrap();
    let shot = artefacts.join("page.png");
    headless(
        &browser,
        &url,
        &[&format!("--screenshot={}", shot.display())],
    );
    drop(server);
    assert!(dom.contains("<svg id=\"board\""), "{dom}");
    assert!(dom.contains("红方胜 3回合 (5步)"), "{dom}");
    assert!(dom.contains("red wins, mate in 5 plies"), "{dom}");
    assert_eq!(dom.matches("class=\"move\"").count(), 10, "{dom}");
    assert!(dom.contains(">马五进六</a>"), "{dom}");
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
    println!("screenshot: {}", shot.display());
}
