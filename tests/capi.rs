//! The C API as an engine uses it: `tests/c/probe.c` compiled against `include/canju.h` and
//! the static library, run on tables generated here. Skipped, with the reason printed,
//! where no C compiler is found. Also checks that the committed header is what cbindgen
//! makes of `src/capi.rs`, where cbindgen is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The folder cargo built this test's profile into (`target/release` under `--release`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// `libcanju.a` of this test's profile, built (or brought up to date) first: `cargo test`
/// builds the library only as an rlib for the tests.
fn static_library() -> PathBuf {
    let profile = profile_dir();
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build
        .current_dir(root())
        .args(["build", "--lib", "--quiet"]);
    if profile.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let out = build.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = profile.join("libcanju.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

#[test]
fn a_c_program_probes_through_the_header() {
    if Command::new("cc").arg("--version").output().is_err() {
        println!("skipped: no C compiler (cc) found");
        return;
    }
    let lib = static_library();
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new(assert_cmd::cargo::cargo_bin("canju"))
        .args(["gen", "KNK", "KCK", "KRKN", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap()
        .status;
    assert!(status.success());
    let exe = dir.path().join("probe");
    let out = Command::new("cc")
        .arg(root().join("tests/c/probe.c"))
        .arg("-I")
        .arg(root().join("include"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).arg(dir.path()).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");
}

#[test]
fn the_header_is_what_cbindgen_makes() {
    let made = std::env::temp_dir().join(format!("canju-{}.h", std::process::id()));
    let run = Command::new("cbindgen")
        .current_dir(root())
        .args(["--config", "cbindgen.toml", "--quiet", "--output"])
        .arg(&made)
        .output();
    let Ok(out) = run else {
        println!("skipped: cbindgen is not installed (cargo install cbindgen)");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made_text = std::fs::read_to_string(&made).unwrap();
    let _ = std::fs::remove_file(&made);
    let committed = std::fs::read_to_string(root().join("include/canju.h")).unwrap();
    assert!(
        made_text == committed,
        "include/canju.h is stale: run `cbindgen --config cbindgen.toml --output include/canju.h`"
    );
}
