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

/// Generates `set` and its sub-tables into `dir`; the command must succeed.
fn gen_into(dir: &std::path::Path, set: &str) {
    canju()
        .args(["gen", set, "--dir"])
        .arg(dir)
        .assert()
        .success();
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
    // A loss has a negative distance; the rule fields say no rule decides.
    let j = probe_json(dir.path(), "3k5/9/9/9/9/9/9/4N4/9/4K4 b");
    assert_eq!(j["category"], "loss");
    assert!(j["dtm"].as_i64().unwrap() < 0, "{j}");
    assert!(j["rule"].is_null());
    assert_eq!(j["rules"], "asian");
    let worst = j["moves"].as_array().unwrap().last().unwrap().clone();
    // Best first: the longest loss, the fastest last.
    assert!(
        worst["dtm"].as_i64().unwrap() >= j["dtm"].as_i64().unwrap(),
        "{j}"
    );
    // The mate in one leaves black without a legal move.
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
    gen_into(dir.path(), "KNK");
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
    let cases: [&[&str]; 7] = [
        &["moves", "not a fen"],
        &["moves", "4k4/9/9/9/9/9/9/9/9/4K4 w"],
        &["stats", "KXK"],
        &[
            "probe",
            "3k5/9/9/9/9/9/9/4N4/9/4K4 w",
            "--no-gen",
            "--dir",
            "/nonexistent",
        ],
        &["moves", "4k4/9/9/9/9/9/9/9/9/4K4"],
        &["moves", "3k5/9/9/9/9/9/9/9/9/4K4 w 🙂"],
        &["moves", "3k5/9/9/9/9/9/9/9/9/44K w"],
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
fn a_fen_must_say_who_moves_and_nothing_else_odd() {
    let cases = [
        ("4k4/9/9/9/9/9/9/9/9/3K5", "no side to move"),
        ("4k4/9/9/9/9/9/9/9/9/3K5 w 🙂", "'🙂'"),
        ("4k4/9/9/9/9/9/9/9/9/44K w", "two digits in a row"),
        ("4k4/9/9/9/9/9/9/9/9/3K5 w x - 0 1", "must be '-'"),
    ];
    for (fen, says) in cases {
        let out = canju().args(["moves", fen]).output().unwrap();
        assert!(!out.status.success(), "{fen}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(says), "{fen}: {err}");
    }
    for fen in [
        "4k4/9/9/9/9/9/9/9/9/3K5 w",
        "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1",
        "4k4/9/9/9/9/9/9/9/9/3K5 w 3 12",
    ] {
        canju().args(["moves", fen]).assert().success();
    }
}

#[test]
fn clap_errors_keep_their_whole_message() {
    // A missing argument names the argument and shows the usage.
    let out = canju()
        .args(["perft", "4k4/9/9/9/9/9/9/9/9/3K5 w"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("<DEPTH>") && err.contains("Usage"), "{err}");
    let out = canju().args(["--no-such-flag"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("--no-such-flag")
    );
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("canju"))
        .args(["perft", start, "2", "--divide"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before anything is written (as `| head -0` would).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{:?} {err}", out.status);
}

#[test]
fn lines_end_in_checkmate_stalemate_or_a_cycle_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    let line = |fen: &str| {
        let out = canju()
            .args(["line", fen, "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let text = line("3k5/9/9/9/9/9/9/9/9/R3K4 w");
    assert!(text.contains("black is checkmated (将死)"), "{text}");
    // Mate in one that is a stalemate (the rook takes the last free point).
    let text = line("3k5/9/9/9/9/9/9/9/9/4K3R w");
    assert!(text.contains("stalemate (困毙)"), "{text}");
    // The horse's shortest win ends in a stalemate, which is a loss, not a mate.
    let text = line("3k5/9/9/9/9/9/9/4N4/9/4K4 w");
    assert!(text.contains("stalemate (困毙)"), "{text}");
    assert!(!text.contains("checkmated"), "{text}");
    let j = json_of(&["line", "3k5/9/9/9/9/9/9/4N4/9/4K4 w"], dir.path());
    assert_eq!(j["end"], "stalemate");
    // Won by the perpetual-check rule: the cycle once, black checking on every move.
    let fen = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w";
    let text = line(fen);
    assert!(text.lines().count() < 10, "{text}");
    assert!(
        text.contains("black gives check with every move") && text.contains("black must deviate"),
        "{text}"
    );
    let j = json_of(&["line", fen], dir.path());
    assert_eq!(j["end"], "repetition");
    assert_eq!(j["category"], "win-by-rule");
    assert_eq!(j["rule"], "perpetual-check");
    assert_eq!(j["repetition"]["offender"], "black");
    assert_eq!(j["repetition"]["offender_checks_every_move"], true);
    let moves = j["line"].as_array().unwrap();
    assert!(moves.len() <= 8, "{moves:?}");
    // The last move closes the cycle: the final position stood before.
    let from = j["repetition"]["from_ply"].as_u64().unwrap() as usize;
    let mut p = Position::from_fen(fen).unwrap();
    let mut seen = vec![p.fen()];
    for m in moves {
        p.make(Move::parse_iccs(m["move"].as_str().unwrap()).unwrap());
        seen.push(p.fen());
    }
    let key = |f: &str| f.split(' ').take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(key(&seen[from]), key(seen.last().unwrap()));
}

#[test]
fn explain_shows_the_cycle_of_a_rule_result_move_by_move() {
    let dir = tempfile::tempdir().unwrap();
    let explain = |fen: &str| {
        let out = canju()
            .args(["explain", fen, "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // KRKN: black's horse holds only by checking on every move, red's general steps aside.
    let fen = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w";
    let text = explain(fen);
    assert!(text.contains("The cycle, 4 plies:"), "{text}");
    assert!(text.contains("black 马2退3      b1c3  checks"), "{text}");
    assert!(text.contains("red   帅六进一    d0d1  idle"), "{text}");
    assert!(
        text.contains("Every move of black checks, while red moves idly"),
        "{text}"
    );
    let j = json_of(&["explain", fen], dir.path());
    assert_eq!(j["found"], true);
    assert_eq!(j["rule"], "perpetual-check");
    assert_eq!(j["shape"], "one-offender");
    assert_eq!(j["offender"], "black");
    let cycle = j["cycle"].as_array().unwrap();
    assert!(
        cycle
            .iter()
            .all(|m| m["side"] == "red" || m["attack"] == "check")
    );
    // A mate has nothing to explain; a budget of no positions finds no cycle, and says so.
    let text = explain("3k5/9/9/9/9/9/9/9/9/R3K4 w");
    assert!(
        text.contains("No repetition rule decides this position"),
        "{text}"
    );
    let out = canju()
        .args(["explain", fen, "--max-positions", "0", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success() && text.contains("No cycle found"),
        "{text}"
    );
}

#[test]
fn show_tells_the_sides_apart_without_colour() {
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    let out = canju().args(["show", start]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for (red, black) in [
        ('俥', '车'),
        ('傌', '马'),
        ('炮', '砲'),
        ('帥', '将'),
        ('兵', '卒'),
    ] {
        assert!(
            text.contains(red) && text.contains(black),
            "{red} {black}: {text}"
        );
    }
    assert!(!text.contains('帅') && !text.contains('車'), "{text}");
}

#[test]
fn positions_are_counted_the_same_way_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    gen_into(dir.path(), "KRK");
    let stats = json_of(&["stats", "KRK"], dir.path());
    let positions =
        stats["red"]["positions"].as_u64().unwrap() + stats["black"]["positions"].as_u64().unwrap();
    assert_eq!(positions, 8748);
    let info = json_of(&["info"], dir.path());
    let krk = info
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["material"] == "KRK")
        .unwrap();
    assert_eq!(krk["positions"].as_u64(), Some(positions));
    let out = canju()
        .args(["verify", "KRK", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ok, 8748 positions ("), "{text}");
}

#[test]
fn table_folder_errors_name_the_folder_and_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let out = canju()
        .args(["probe", "3k5/9/9/9/9/9/9/4N4/9/4K4 w", "--dir"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "{} (--dir) is a file, not a folder",
            file.display()
        )),
        "{err}"
    );
    // The hint to generate carries the folder and rule set the user gave.
    let empty = dir.path().join("empty");
    let out = canju()
        .args([
            "probe",
            "3k5/9/9/9/9/9/9/4N4/9/4K4 w",
            "--no-gen",
            "--rules",
            "plain",
            "--dir",
        ])
        .arg(&empty)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "`canju gen KNK --dir {} --rules plain`",
            empty.display()
        )),
        "{err}"
    );
}

#[test]
fn theory_without_generating() {
    let dir = tempfile::tempdir().unwrap();
    let rows = json_of(&["theory", "--no-gen"], dir.path());
    let rows = rows.as_array().unwrap();
    assert!(rows.len() >= 40);
    assert!(rows.iter().all(|r| r["verdict"].is_null()));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing generated"
    );
    let rows = json_of(&["theory", "--men", "3"], dir.path());
    let knk = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["entry"]["material"] == "KNK")
        .unwrap();
    assert_eq!(knk["verdict"]["measured_grade"], "always_wins");
    assert_eq!(knk["verdict"]["measured_grade_chinese"], "必胜");
}

/// A folder holding the format-3 KK and KNK tables of `tests/data/format3`, written when
/// `asian` was the perpetual-check rule alone.
fn folder_with_format3_asian_tables() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let old = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format3");
    for name in ["KK", "KNK"] {
        let file = format!("{name}.asian.ctb");
        std::fs::copy(old.join(&file), dir.path().join(&file)).unwrap();
    }
    dir
}

#[test]
fn repack_brings_old_tables_to_the_current_format() {
    let dir = folder_with_format3_asian_tables();
    let fen = "3k5/9/9/9/9/9/9/4N4/9/4K4 w";
    // Written when `asian` was the perpetual-check rule alone: not read as today's asian.
    let refused = canju()
        .args(["probe", fen, "--no-gen", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("perpetual-check rule alone") && said.contains("repack"),
        "{said}"
    );
    let out = canju()
        .args(["repack", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("2 tables") && said.contains("KNK.check.ctb"),
        "{said}"
    );
    let path = dir.path().join("KNK.check.ctb");
    let file = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(file.header().format_version, canju::table::FORMAT_VERSION);
    assert_eq!(file.header().rules, "check");
    let j = json_of(&["probe", fen, "--no-gen", "--rules", "check"], dir.path());
    assert_eq!((&j["wdl"], &j["dtm"]), (&"win".into(), &5.into()), "{j}");
}

/// `gen` makes again the `asian` tables written when `asian` was the perpetual-check rule
/// alone, keeping each old file under its `check` name.
#[test]
fn gen_remakes_check_only_tables_and_keeps_them_as_check() {
    let dir = folder_with_format3_asian_tables();
    let out = canju()
        .args(["gen", "KNK", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["KK", "KNK"] {
        let new = canju::table::TableFile::open(&dir.path().join(format!("{name}.asian.ctb")));
        let new = new.unwrap();
        assert_eq!(
            new.header().format_version,
            canju::table::FORMAT_VERSION,
            "{name}"
        );
        assert_eq!(new.header().rules, "asian");
        let kept = canju::table::TableFile::open(&dir.path().join(format!("{name}.check.ctb")));
        assert_eq!(kept.unwrap().header().format_version, 3, "{name}");
    }
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
        krkn["rule_pass"], "priorities",
        "asian runs the five-priority game"
    );
    assert_eq!(krkn["stats"]["red_to_move"]["rule_win"], 624);
    assert!(
        plan_json(dir.path(), "KRKN")["sets"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// `plan --men N` plans what `gen --men N` makes, every set of at most N men, and refuses a
/// count no position has, as `gen` does.
#[test]
fn plan_takes_men_as_gen_does() {
    let dir = tempfile::tempdir().unwrap();
    let names = |sets: &[serde_json::Value]| {
        let mut names: Vec<String> = sets.iter().map(|s| s["material"].to_string()).collect();
        names.sort();
        names
    };
    let planned = names(
        json_of(&["plan", "--men", "3"], dir.path())["sets"]
            .as_array()
            .unwrap(),
    );
    let out = canju()
        .args(["gen", "--men", "3", "--json", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let reports: Vec<serde_json::Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(planned.len() > 5, "{planned:?}");
    assert_eq!(planned, names(&reports));
    let refused = canju().args(["plan", "--men", "40"]).assert().failure();
    let err = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(err.contains("between 2 and 32 men"), "{err}");
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
    gen_into(dir.path(), "KRNK");
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

#[test]
fn info_lists_a_damaged_file_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    gen_into(dir.path(), "KRK");
    std::fs::write(dir.path().join("KNK.asian.ctb"), b"not a table at all").unwrap();
    // Bytes appended to a good table are named as such.
    let krk = dir.path().join("KRK.asian.ctb");
    let good = std::fs::read(&krk).unwrap();
    let mut appended = good.clone();
    appended.extend([0u8; 1000]);
    std::fs::write(dir.path().join("KRKA.asian.ctb"), &appended).unwrap();
    let list = json_of(&["info"], dir.path());
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 4, "KK, KRK and the two damaged files");
    let by_name = |n: &str| {
        list.iter()
            .find(|t| t["file"].as_str().unwrap().ends_with(n))
            .unwrap()
            .clone()
    };
    assert!(by_name("KRK.asian.ctb")["error"].is_null());
    assert!(
        by_name("KNK.asian.ctb")["error"]
            .as_str()
            .unwrap()
            .contains("not a canju table")
    );
    assert!(
        by_name("KRKA.asian.ctb")["error"]
            .as_str()
            .unwrap()
            .contains("1000 trailing bytes")
    );
    let out = canju()
        .args(["info", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("DAMAGED") && text.contains("2 damaged"),
        "{text}"
    );
    // Repacking a current table leaves the file as it is.
    let before = std::fs::metadata(&krk).unwrap().modified().unwrap();
    canju()
        .args(["repack", "KRK", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(std::fs::metadata(&krk).unwrap().modified().unwrap(), before);
    assert_eq!(std::fs::read(&krk).unwrap(), good);
}

#[test]
fn a_damaged_sub_table_stops_gen_with_how_to_remake_it() {
    let dir = tempfile::tempdir().unwrap();
    gen_into(dir.path(), "KRK");
    let krk = dir.path().join("KRK.asian.ctb");
    let bytes = std::fs::read(&krk).unwrap();
    std::fs::write(&krk, &bytes[..300]).unwrap();
    let out = canju()
        .args(["gen", "KRKA", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    let hint = format!("`canju gen KRK --force --dir {}`", dir.path().display());
    assert!(err.contains("truncated") && err.contains(&hint), "{err}");
}

/// What `canju ARGS --dir DIR` does.
fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    canju().args(args).arg("--dir").arg(dir).output().unwrap()
}

#[test]
fn wdl_only_tables_probe_without_distances_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let made = run_in(dir.path(), &["gen", "KRKN", "--wdl-only"]);
    assert!(made.status.success());
    let text = String::from_utf8(made.stdout).unwrap();
    assert!(text.contains("no distances (--wdl-only)"), "{text}");
    let fen = "3k5/9/9/9/9/9/9/9/4n4/R3K4 w";
    let probe = run_in(dir.path(), &["probe", fen, "--no-gen"]);
    assert!(probe.status.success());
    let text = String::from_utf8(probe.stdout).unwrap();
    assert!(
        text.contains("red to move: win (no distance to mate") && text.contains("a0c0  loss"),
        "{text}"
    );
    let report = json_of(&["probe", fen, "--no-gen"], dir.path());
    assert_eq!(report["distances"], false);
    assert_eq!(report["wdl"], "win");
    assert!(report["dtm"].is_null() && report["moves"][0]["dtm"].is_null());
    assert_eq!(report["moves"][0]["wdl"], "win");
    // A line needs distances: refused, saying how to make them.
    let line = run_in(dir.path(), &["line", fen, "--no-gen"]);
    assert!(!line.status.success());
    let err = String::from_utf8(line.stderr).unwrap();
    assert!(
        err.contains("win/draw/loss only") && err.contains("`canju gen KRKN --dir "),
        "{err}"
    );
    // The command it names makes the table and its sub-tables again, with distances.
    let again = run_in(dir.path(), &["gen", "KRKN"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let line = run_in(dir.path(), &["line", fen, "--no-gen"]);
    assert!(line.status.success());
}

#[test]
fn verdict_wdl_only_generates_tables_without_distances() {
    let dir = tempfile::tempdir().unwrap();
    let verdict = json_of(&["verdict", "马对单将", "--wdl-only"], dir.path());
    assert_eq!(verdict["measured_grade"], "always_wins");
    let info = json_of(&["info"], dir.path());
    let tables = info.as_array().unwrap();
    assert!(!tables.is_empty());
    assert!(tables.iter().all(|t| t["distances"] == false), "{info}");
}

/// `gen` stores one side to move's distances unless `--dtm-both-sides` asks for both; either
/// way every probe gives the same values, and `info` says which the file holds.
#[test]
fn gen_stores_one_side_s_distances_unless_asked_for_both() {
    let (one, both) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    gen_into(one.path(), "KRKN");
    canju()
        .args(["gen", "KRKN", "--dtm-both-sides", "--dir"])
        .arg(both.path())
        .assert()
        .success();
    let stored = |dir: &std::path::Path| {
        let j = json_of(&["info"], dir);
        let krkn = j
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["material"] == "KRKN")
            .cloned()
            .unwrap();
        (
            krkn["distances_stored"].clone(),
            krkn["bytes"].as_u64().unwrap(),
        )
    };
    let ((one_side, one_bytes), (both_sides, both_bytes)) =
        (stored(one.path()), stored(both.path()));
    assert!(one_side == "red" || one_side == "black", "{one_side}");
    assert_eq!(both_sides, "both");
    assert!(one_bytes < both_bytes, "{one_bytes} against {both_bytes}");
    for fen in [
        "9/4k4/9/9/9/9/4n4/9/4R4/4K4 w",
        "9/4k4/9/9/9/9/4n4/9/4R4/4K4 b",
    ] {
        let (a, b) = (probe_json(one.path(), fen), probe_json(both.path(), fen));
        assert_eq!(a, b, "{fen}");
        assert!(a["moves"].as_array().unwrap().len() > 3, "{a}");
    }
    canju()
        .args(["gen", "KRK", "--dtm-both-sides", "--wdl-only", "--dir"])
        .arg(both.path())
        .assert()
        .failure();
}

#[test]
fn canju_trace_says_where_a_generation_goes() {
    let dir = tempfile::tempdir().unwrap();
    let traced = |trace: bool| {
        let mut cmd = canju();
        cmd.args([
            "gen",
            "KRKR",
            "--dir",
            dir.path().to_str().unwrap(),
            "--force",
        ]);
        if trace {
            cmd.env("CANJU_TRACE", "1");
        } else {
            cmd.env_remove("CANJU_TRACE");
        }
        let out = cmd.assert().success().get_output().stderr.clone();
        String::from_utf8(out).unwrap()
    };
    let on = traced(true);
    for step in [
        "sub-tables read: KRKR",
        "sweep by levels in bits of KRKR",
        "frontier told",
        "candidates verified",
        "cells made from the bitmaps and the levels",
        "draws and their flags",
        "perpetual-check fixpoint",
        "fixpoint round: 1",
        "the 棋例's game",
        "DTM written",
        "WDL written",
    ] {
        assert!(on.contains(step), "no trace of {step:?} in:\n{on}");
    }
    assert!(
        !traced(false).contains("trace "),
        "a trace without CANJU_TRACE"
    );
}
