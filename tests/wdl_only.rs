//! Tables without distances (`canju gen --wdl-only`): the same wins, draws and losses as the
//! tables with distances, results by the rule told apart, a probe that says no distance is
//! stored, and a run with distances that refuses such a sub-table.

use canju::generate::{GenError, GenOptions, generate_all};
use canju::material::Material;
use canju::probe::{ProbeError, RuleSet, Tablebase, Wdl};
use canju::table::{SectionKind, TableError, WDL_DRAW, WDL_LOSS, WDL_WIN};
use canju::value::Value;

/// KRKN under `asian` has results by the perpetual-check rule, and its sub-tables KRK and KNK
/// are read through their stand-in distances when they hold none.
const SET: &str = "KRKN";

fn generate(dir: &std::path::Path, wdl_only: bool) -> Tablebase {
    let tb = Tablebase::with_rules(dir, RuleSet::Asian);
    let opts = GenOptions {
        wdl_only,
        ..GenOptions::default()
    };
    generate_all(&tb, &[Material::parse(SET).unwrap()], &opts).unwrap();
    tb
}

/// The code a table without distances must hold for a value.
fn code_of(v: Value) -> u8 {
    match v {
        Value::Win(_) => WDL_WIN,
        Value::WinByRule(r) => canju::table::wdl_rule_code(true, r),
        Value::Draw => WDL_DRAW,
        Value::LossByRule(r) => canju::table::wdl_rule_code(false, r),
        Value::Loss(_) => WDL_LOSS,
    }
}

#[test]
fn wdl_only_tables_hold_the_same_results_and_no_distances() {
    let (full_dir, wdl_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let full = generate(full_dir.path(), false);
    let wdl = generate(wdl_dir.path(), true);
    for name in ["KRK", "KNK", SET] {
        let m = Material::parse(name).unwrap();
        let (with, without) = (full.table(m).unwrap(), wdl.table(m).unwrap());
        // Whole, so that `value` reads the side a search gives too.
        full.load_all(&with).unwrap();
        assert!(
            with.holds_distances() && !without.holds_distances(),
            "{name}"
        );
        assert_eq!(without.file.section_bytes(SectionKind::Dtm), 0, "{name}");
        assert!(
            without.file.file_bytes() < with.file.file_bytes(),
            "{name}: no DTM section, fewer bytes"
        );
        let (mut rule_results, mut checked) = (0, 0);
        for (i, pos) in with.index.legal_positions() {
            let v = with.value(&pos).unwrap().unwrap();
            let code = without.file.wdl(pos.turn().index(), i).unwrap();
            assert_eq!(code, code_of(v), "{name}: {} is {v:?}", pos.fen());
            rule_results += usize::from(v.is_by_rule());
            checked += 1;
        }
        assert!(checked > 0, "{name}: some legal slots");
        if name == SET {
            assert!(
                rule_results > 0,
                "KRKN has results by the rule to tell apart"
            );
        }
        // The counts agree; the longest win is not known without distances.
        for (a, b) in with.stats().iter().zip(without.stats()) {
            assert_eq!(
                (a.win, a.draw, a.loss, a.rule_win, a.rule_loss),
                (b.win, b.draw, b.loss, b.rule_win, b.rule_loss),
                "{name}"
            );
            assert_eq!((b.longest_win, b.longest_win_fen.as_deref()), (0, None));
        }
    }
}

#[test]
fn a_probe_of_a_table_without_distances_says_so_and_gives_win_draw_loss() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(dir.path(), true);
    let pos = canju::rules::Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1").unwrap();
    let err = tb.probe(&pos).unwrap_err();
    assert!(
        matches!(err, ProbeError::Table(TableError::NoDistances(_))),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("win/draw/loss only") && message.contains("--wdl-only"),
        "{message}"
    );
    assert_eq!(tb.probe_wdl(&pos).unwrap(), Wdl::Win);
}

#[test]
fn a_run_with_distances_makes_sub_tables_without_them_again() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::with_rules(dir.path(), RuleSet::Asian);
    let wdl_only = GenOptions {
        wdl_only: true,
        ..GenOptions::default()
    };
    let (krk, krka) = (
        Material::parse("KRK").unwrap(),
        Material::parse("KRRK").unwrap(),
    );
    generate_all(&tb, &[krk], &wdl_only).unwrap();
    assert!(!tb.table(krk).unwrap().holds_distances());
    // Solving KRRK (whose one sub-table is KRK) with distances straight from the library is
    // refused...
    let err = canju::generate::solve(&tb, krka, &GenOptions::default())
        .err()
        .expect("refused");
    assert!(
        matches!(&err, GenError::SubTableWithoutDistances { sub, set } if sub == "KRK" && set == "KRRK"),
        "{err}"
    );
    // ...while a run makes KRK (and KK) again with distances first.
    let made = generate_all(&tb, &[krka], &GenOptions::default()).unwrap();
    assert!(made.iter().any(|r| r.material == krk && r.generated));
    assert!(tb.table(krk).unwrap().holds_distances());
    assert!(tb.table(krka).unwrap().holds_distances());
}

#[test]
fn the_service_answers_outcomes_from_tables_without_distances() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(dir.path(), true);
    let service = canju::service::Service::new(tb, 0);
    let fen = "3k5/9/9/9/9/9/9/9/4n4/R3K4_w";
    let r = service.handle("GET", &format!("/xiangqi?fen={fen}"));
    assert_eq!(r.status, 200, "{}", r.body);
    let json: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(json["category"], "win");
    assert!(json["dtm"].is_null() && json["moves_to_mate"].is_null());
    // Each move is valued by the position after it: the best leaves the opponent lost.
    assert_eq!(json["moves"][0]["category"], "loss");
    assert!(json["moves"][0]["dtm"].is_null());
    let line = service.handle("GET", &format!("/xiangqi/mainline?fen={fen}"));
    assert_eq!(line.status, 422, "{}", line.body);
    assert!(line.body.contains("--wdl-only"), "{}", line.body);
    // The page gives the verdict and the moves, without a line or a distance.
    let page = service.handle("GET", &format!("/?fen={fen}"));
    assert_eq!(page.status, 200, "{}", page.body);
    for wanted in [
        "红方胜 (表中无步数)",
        "red wins; no distance to mate",
        "a0c0",
        "负 loss",
    ] {
        assert!(
            page.body.contains(wanted),
            "{wanted} missing: {}",
            page.body
        );
    }
    assert!(
        !page.body.contains("id=\"line\""),
        "no line without distances"
    );
}

#[test]
fn outcomes_of_tables_with_distances_keep_the_rule_apart() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(dir.path(), false);
    let m = Material::parse(SET).unwrap();
    let table = tb.table(m).unwrap();
    let (mut by_rule, mut checked) = (0, 0);
    for (_, pos) in table.index.legal_positions().step_by(97) {
        let v = tb.probe(&pos).unwrap();
        assert_eq!(
            tb.probe_outcome(&pos).unwrap(),
            canju::value::Outcome::from(v)
        );
        by_rule += usize::from(v.is_by_rule());
        checked += 1;
    }
    assert!(checked > 1000 && by_rule > 0, "{checked} {by_rule}");
}

#[test]
fn a_verdict_from_tables_without_distances_is_the_same() {
    let (full_dir, wdl_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (full, wdl) = (
        generate(full_dir.path(), false),
        generate(wdl_dir.path(), true),
    );
    let m = Material::parse(SET).unwrap();
    let catalogue = canju::theory::Catalogue::builtin();
    let a = canju::theory::verdict(&full, m, &catalogue).unwrap();
    let b = canju::theory::verdict(&wdl, m, &catalogue).unwrap();
    assert_eq!(a.measured_grade, b.measured_grade);
    assert!(a.distances && !b.distances);
    let stats = canju::report::stats_report(&wdl, m).unwrap();
    assert!(!stats.distances && stats.red.longest_win_fen.is_none());
    assert_eq!(
        serde_json::to_value(&a.all).unwrap(),
        serde_json::to_value(&b.all).unwrap()
    );
    assert_eq!(
        serde_json::to_value(&a.quiet).unwrap(),
        serde_json::to_value(&b.quiet).unwrap()
    );
}

#[test]
fn verify_checks_outcomes_of_tables_without_distances_and_can_fail() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(dir.path(), true);
    let m = Material::parse(SET).unwrap();
    let report = canju::verify::verify_table(&tb, m).unwrap();
    assert!(report.slots > 0 && !report.complete);
    // One outcome changed (a legal red-to-move win made a draw), written as a table without
    // distances with valid checksums: the check finds it.
    let (path, slot) = {
        let table = tb.table(m).unwrap();
        let (slot, _) = table
            .index
            .legal_positions()
            .find(|(_, p)| {
                p.turn() == canju::rules::Color::Red && tb.probe_wdl(p).unwrap() == Wdl::Win
            })
            .unwrap();
        (table.file.path().to_path_buf(), slot)
    };
    let full_dir = tempfile::tempdir().unwrap();
    let full = generate(full_dir.path(), false);
    let mut values = full.stored_values(m).unwrap();
    values[0][slot as usize] = 0xFFFE; // the stored form of a draw
    let stats = full.table(m).unwrap().stats().clone();
    tb.forget(m);
    canju::table::write_table_with(
        &path,
        "asian",
        SET,
        values,
        stats,
        canju::table::Distances::None,
    )
    .unwrap();
    let err = canju::verify::verify_table(&tb, m).unwrap_err();
    assert!(
        matches!(&err, canju::verify::VerifyError::Mismatch { stored, expected, .. } if stored == "draw" && expected == "win"),
        "{err}"
    );
}

#[test]
fn the_plan_of_tables_without_distances_takes_less_disk_memory_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::with_rules(dir.path(), RuleSet::Asian);
    let sets = [Material::parse("KRNKR").unwrap()];
    let with = canju::generate::plan(&tb, &sets, &GenOptions::default()).unwrap();
    let wdl_only = GenOptions {
        wdl_only: true,
        ..GenOptions::default()
    };
    let without = canju::generate::plan(&tb, &sets, &wdl_only).unwrap();
    assert_eq!(with.sets.len(), without.sets.len());
    assert!(without.disk_bytes < with.disk_bytes);
    assert!(
        without.peak_bytes < with.peak_bytes,
        "bitmaps, not cells: {} against {}",
        without.peak_bytes,
        with.peak_bytes
    );
    assert!(without.seconds < with.seconds, "no distances to write");
}
