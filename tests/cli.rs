//! The `canju` binary as a user runs it.

use assert_cmd::Command;
use canju::rules::{Move, Position};

fn canju() -> Command {
    Command::cargo_bin("canju").unwrap()
}

/// What `canju ARGS --json --dir DIR` prints, parsed; the command must succeed.
fn json_of(args: &[&str], dir: &std::path::Path) -> serde_json::Value {
    let out = canju()
        .args(args)
        .args(["--json", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn probe_json(dir: &std::path::Path, fen: &str) -> serde_json::Value {
    json_of(&["probe", fen], dir)
}

#[test]
fn probe_known_positions() {
    let dir = tempfile::tempdir().unwrap();
    // (FEN, wdl, dtm) for: mate in 1, stalemate (a loss), a drawn lone cannon, a horse win.
    let cases = [
        ("3k5/9/9/9/9/9/9/9/9/4K3R w", "win", Some(1)),
        ("3k5/4P4/9/9/9/9/9/9/9/4K4 b", "loss", Some(0)),
        ("4k4/9/9/9/9/9/9/9/9/3K3C1 w", "draw", None),
        ("3k5/9/9/9/9/9/9/4N4/9/4K4 w", "win", Some(5)),
    ];
    for (fen, wdl, dtm) in cases {
        let j = probe_json(dir.path(), fen);
        assert_eq!(j["wdl"], wdl, "{fen}");
        assert_eq!(j["dtm"].as_u64(), dtm, "{fen}");
        let pos = Position::from_fen(fen).unwrap();
        if let Some(best) = j["best_move"].as_str() {
            let mv = Move::parse_iccs(best).unwrap();
            assert!(pos.is_legal(mv), "{fen}: {best}");
            // The best move keeps the value: the reply position has the parent value.
            let first = &j["moves"][0];
            assert_eq!(first["move"], best);
            assert_eq!(first["wdl"], wdl);
        } else {
            assert!(pos.legal_moves().is_empty());
        }
    }
    // The mate in one is a mate.
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w").unwrap();
    let mv = Move::parse_iccs(
        probe_json(dir.path(), &pos.fen())["best_move"]
            .as_str()
            .unwrap(),
    );
    assert!(pos.after(mv.unwrap()).legal_moves().is_empty());
}

#[test]
fn line_ends_in_mate() {
    let dir = tempfile::tempdir().unwrap();
    let out = canju()
        .args(["line", "3k5/9/9/9/9/9/9/4N4/9/4K4 w", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(text.contains("1. 马五进六"), "{text}");
    assert!(text.contains("mate"), "{text}");
}

#[test]
fn stats_json_has_the_documented_keys() {
    let dir = tempfile::tempdir().unwrap();
    canju()
        .args(["gen", "KNK", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let out = canju()
        .args(["stats", "马对单将", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["material"], "KNK");
    for side in ["red", "black"] {
        for key in [
            "positions",
            "win",
            "draw",
            "loss",
            "longest_win",
            "longest_win_fen",
        ] {
            assert!(j[side].get(key).is_some(), "{side}.{key}");
        }
    }
    assert_eq!(j["red"]["win"], j["red"]["positions"]);
    let info = canju()
        .args(["info", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|t| t["material"] == "KNK")
    );
}

#[test]
fn moves_and_perft() {
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    let out = canju()
        .args(["moves", start, "--notation", "chinese"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 44);
    assert!(text.lines().any(|l| l == "炮二平五"));
    let out = canju()
        .args(["perft", start, "3", "--divide"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().last(), Some("79666"));
    assert_eq!(text.lines().count(), 45);
}

#[test]
fn bad_input_gives_one_line_errors() {
    let cases: [&[&str]; 6] = [
        &["moves", "not a fen"],
        &["moves", "4k4/9/9/9/9/9/9/9/9/4K4 w"],
        &["perft", "rnbakabnr/9", "x"],
        &["stats", "KXK"],
        &[
            "probe",
            "3k5/9/9/9/9/9/9/4N4/9/4K4 w",
            "--no-gen",
            "--dir",
            "/nonexistent",
        ],
        &["--no-such-flag"],
    ];
    for args in cases {
        let out = canju().args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("canju: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn repack_brings_old_tables_to_the_current_format() {
    let dir = tempfile::tempdir().unwrap();
    let old = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format3");
    for name in ["KK", "KNK"] {
        let file = format!("{name}.asian.ctb");
        std::fs::copy(old.join(&file), dir.path().join(&file)).unwrap();
    }
    let fen = "3k5/9/9/9/9/9/9/4N4/9/4K4 w";
    let before = probe_json(dir.path(), fen);
    let out = canju()
        .args(["repack", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 tables"));
    let path = dir.path().join("KNK.asian.ctb");
    let file = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(file.header().format_version, canju::table::FORMAT_VERSION);
    assert_eq!(probe_json(dir.path(), fen), before);
}

/// Sets far too large for any machine are refused at once (before their sub-sets are
/// listed), with the slot count and the memory they need, and never a wrapped count.
#[test]
fn sets_too_large_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let opening = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    let cases: [(&[&str], &str); 5] = [
        (&["probe", opening], "more than 10^38 slots"),
        (&["gen", "KRRNNCCKRRNNCC"], "165072646406003000625000 slots"),
        (
            &["gen", "--men", "8"],
            "--men 8 includes sets such as KRNCKRNC",
        ),
        (&["gen", "--men", "99"], "between 2 and 32 men"),
        (&["verdict", "车车马马炮炮对车车马马炮炮"], "GiB"),
    ];
    for (args, says) in cases {
        let start = std::time::Instant::now();
        let out = canju()
            .args(args)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // Refused before any work: far below the minutes a listing of sub-sets took.
        assert!(
            start.elapsed().as_secs() < 10,
            "{args:?} took {:?}",
            start.elapsed()
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file written"
    );
}

#[test]
fn threads_past_the_cores_are_clamped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let out = canju()
        .args(["gen", "KK", "--threads", "100000", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("100000 threads asked; using"), "{err}");
}

fn plan_json(dir: &std::path::Path, set: &str) -> serde_json::Value {
    json_of(&["plan", set], dir)
}

/// `plan` lists every missing set with its figures and totals that add up; `gen --json`
/// prints one object per set with the documented keys; once generated, nothing is planned.
#[test]
fn plan_lists_missing_sets_and_gen_json_reports_them() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan_json(dir.path(), "KRKN");
    let sets = plan["sets"].as_array().unwrap();
    let names: Vec<&str> = sets
        .iter()
        .map(|s| s["material"].as_str().unwrap())
        .collect();
    assert_eq!(names.last(), Some(&"KRKN"), "{names:?}");
    assert!(names.contains(&"KRK") && names.contains(&"KNK") && names.contains(&"KK"));
    let sum = |key: &str| sets.iter().map(|s| s[key].as_f64().unwrap()).sum::<f64>();
    assert_eq!(plan["disk_bytes"].as_f64().unwrap(), sum("disk_bytes"));
    assert!((plan["seconds"].as_f64().unwrap() - sum("seconds")).abs() < 1e-9);
    let peak = sets.iter().map(|s| s["peak_bytes"].as_u64().unwrap()).max();
    assert_eq!(plan["peak_bytes"].as_u64(), peak);
    assert_eq!(plan["material"], "KRKN");
    assert_eq!(plan["fits"], true);

    let out = canju()
        .args(["gen", "KRKN", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let reports: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), names.len());
    let krkn = reports.last().unwrap();
    assert_eq!(krkn["material"], "KRKN");
    assert_eq!(krkn["slots"], sets.last().unwrap()["slots"]);
    for key in [
        "seconds",
        "phases",
        "peak_bytes",
        "peak_bytes_per_slot",
        "file_bytes",
    ] {
        assert!(!krkn[key].is_null(), "{key}");
    }
    assert_eq!(
        krkn["rule_pass"], "graph",
        "KRKN is small: auto picks the graph"
    );
    assert_eq!(krkn["stats"]["red_to_move"]["rule_win"], 624);
    assert!(
        plan_json(dir.path(), "KRKN")["sets"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// `canju gen` killed with SIGKILL at several moments (sub-tables, init, sweeps, writing)
/// leaves no table file that does not verify, and the next run finishes cleanly and clears
/// the killed writer's temporary file.
#[cfg(unix)]
#[test]
fn a_killed_generation_leaves_nothing_half_written() {
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("canju");
    for delay_ms in [20, 60, 120, 250, 500] {
        let mut child = std::process::Command::new(&bin)
            .args(["gen", "KRNK", "--force", "--dir"])
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if let Some(set) = name.strip_suffix(".asian.ctb") {
                canju()
                    .args(["verify", set, "--dir"])
                    .arg(dir.path())
                    .assert()
                    .success();
            } else {
                assert!(name.contains(".ctb.tmp"), "unexpected file {name}");
            }
        }
    }
    // A killed writer's temporary file, as a kill while writing leaves it (no process has
    // this id).
    std::fs::write(dir.path().join("KRNK.asian.ctb.tmp4294967295"), b"half").unwrap();
    canju()
        .args(["gen", "KRNK", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(name.ends_with(".asian.ctb"), "left behind: {name}");
    }
    canju()
        .args(["verify", "KRNK", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
}
