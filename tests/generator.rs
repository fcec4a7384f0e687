//! The generator against an independent brute-force solver, the index against exhaustive
//! enumeration, and the verifier on every generated table.
//!
//! The brute-force solver shares only the rules core with the generator: it enumerates
//! positions by placing pieces on every point, keys them by FEN in a HashMap, and solves by
//! rounds of forward look-ups (no index, no un-moves, no sub-tables).

mod common;

use canju::generate::{GenOptions, generate_all};
use canju::index::MaterialIndex;
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::rules::Color;
use canju::value::Value;
use canju::verify::verify_table;
use common::{brute_force, enumerate};
use std::collections::HashMap;

/// Generates under the `plain` rule set, which the brute-force solver implements.
fn generate(dir: &std::path::Path, names: &[&str]) -> Tablebase {
    let tb = Tablebase::with_rules(dir, RuleSet::Plain);
    let sets: Vec<Material> = names.iter().map(|n| Material::parse(n).unwrap()).collect();
    generate_all(&tb, &sets, &GenOptions::default()).unwrap();
    tb
}

#[test]
fn generator_matches_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "KRK", "KNK", "KCK", "KPK", "KCKA", "KNKA", "KRKB", "KPKP", "KCAK",
    ];
    let tb = generate(dir.path(), &names);
    for name in names {
        let m = Material::parse(name).unwrap();
        let truth = brute_force(m);
        let mut checked = 0;
        for pos in enumerate(m) {
            let want = truth.get(&pos.fen());
            assert_eq!(
                Some(&tb.probe(&pos).unwrap()),
                want,
                "{name}: {}",
                pos.fen()
            );
            // The other colouring reads the same table through the colour swap.
            let swapped = pos.color_swapped();
            assert_eq!(
                Some(&tb.probe(&swapped).unwrap()),
                want,
                "{name}: {}",
                swapped.fen()
            );
            checked += 1;
        }
        // Statistics count the same legal positions the enumeration finds.
        let stats = tb.table(m).unwrap().stats().clone();
        let red_to_move = enumerate(m)
            .iter()
            .filter(|p| p.turn() == Color::Red)
            .count();
        assert_eq!(stats[0].positions as usize, red_to_move, "{name}");
        assert!(checked > 1000, "{name}: only {checked}");
    }
}

#[test]
fn index_is_a_bijection_up_to_mirror() {
    for name in ["KRK", "KNKA", "KRKAA", "KPPKB", "KCAKB", "KNNK", "KAABBKAB"] {
        let m = Material::parse(name).unwrap();
        let index = MaterialIndex::new(m);
        let mut owner: HashMap<u64, String> = HashMap::new();
        for pos in enumerate(m).into_iter().filter(|p| p.turn() == Color::Red) {
            let i = index.encode(&pos).expect("legal placement has a slot");
            assert!(i < index.size());
            assert_eq!(
                index.encode(&pos.mirrored()),
                Some(i),
                "{name}: mirror {}",
                pos.fen()
            );
            let back = index.decode(i, Color::Red).unwrap();
            assert!(
                back == pos || back == pos.mirrored(),
                "{name}: {} -> {}",
                pos.fen(),
                back.fen()
            );
            let canon = pos.fen().min(pos.mirrored().fen());
            if let Some(prev) = owner.insert(i, canon.clone()) {
                assert_eq!(prev, canon, "{name}: two positions share slot {i}");
            }
        }
        // Every slot that decodes and re-encodes to itself is used by one position class.
        for i in 0..index.size() {
            if let Some(p) = index.decode(i, Color::Red)
                && index.encode(&p) == Some(i)
                && p.validate().is_ok()
            {
                assert!(
                    owner.contains_key(&i),
                    "{name}: slot {i} holds {} unseen",
                    p.fen()
                );
            }
        }
    }
}

#[test]
fn every_set_up_to_four_men_verifies() {
    // Plain tables here; tests/perpetual.rs verifies the asian ones.
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::with_rules(dir.path(), RuleSet::Plain);
    let sets = Material::all_up_to(4);
    let reports = generate_all(&tb, &sets, &GenOptions::default()).unwrap();
    assert_eq!(reports.len(), sets.len());
    for m in &sets {
        let r = verify_table(&tb, *m).unwrap();
        assert!(r.positions > 0, "{m}");
    }
}

#[test]
fn larger_sets_verify() {
    let dir = tempfile::tempdir().unwrap();
    let names = ["KNKA", "KRKAA", "KCAKAA"];
    let tb = generate(dir.path(), &names);
    for name in names {
        let r = verify_table(&tb, Material::parse(name).unwrap()).unwrap();
        assert!(r.positions > 10_000, "{name}: {}", r.positions);
    }
}

fn shares(tb: &Tablebase, name: &str) -> [(u64, u64, u64, u64); 2] {
    let s = &tb
        .table(Material::parse(name).unwrap())
        .unwrap()
        .stats()
        .clone();
    [0, 1].map(|i| (s[i].positions, s[i].win, s[i].draw, s[i].loss))
}

#[test]
fn textbook_facts() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(
        dir.path(),
        &["KRK", "KCK", "KCAK", "KCBBK", "KNK", "KRKAA", "KRKBB"],
    );
    // A lone rook always beats a lone general: red to move wins everywhere; black to move
    // draws only by taking the rook.
    let [red, black] = shares(&tb, "KRK");
    assert_eq!(red.1, red.0);
    for pos in enumerate(Material::parse("KRK").unwrap()) {
        if pos.turn() == Color::Black && tb.probe(&pos).unwrap() == Value::Draw {
            assert!(
                pos.legal_moves().iter().any(|&mv| pos.is_capture(mv)),
                "{}",
                pos.fen()
            );
        }
    }
    assert!(black.3 > 0);
    // A lone cannon never wins.
    let [red, black] = shares(&tb, "KCK");
    assert_eq!((red.1, black.3), (0, 0));
    // Cannon and advisor beat a lone general (red to move wins almost everywhere).
    let [red, _] = shares(&tb, "KCAK");
    assert!(red.1 as f64 > 0.9 * red.0 as f64, "{red:?}");
    // Cannon and two elephants cannot beat a lone general.
    let [red, black] = shares(&tb, "KCBBK");
    assert_eq!((red.1, black.3), (0, 0), "KCBBK");
    // A lone horse wins whenever it is not lost at once.
    for pos in enumerate(Material::parse("KNK").unwrap()) {
        let v = tb.probe(&pos).unwrap();
        if pos.turn() == Color::Red {
            assert!(matches!(v, Value::Win(_)), "{}", pos.fen());
        } else if v == Value::Draw {
            assert!(
                pos.legal_moves().iter().any(|&mv| pos.is_capture(mv)),
                "{}",
                pos.fen()
            );
        }
    }
    // A rook beats two advisors or two elephants: red to move wins nearly everywhere.
    for name in ["KRKAA", "KRKBB"] {
        let [red, _] = shares(&tb, name);
        assert!(red.1 as f64 > 0.95 * red.0 as f64, "{name} {red:?}");
    }
}

/// Sub-tables read through their memory maps (block by block, as large ones are) give the
/// same tables, byte for byte, as sub-tables read whole. (A side whose distances a search
/// gives is read whole either way.)
#[test]
fn sub_tables_read_through_their_maps_give_the_same_tables() {
    let names = ["KRKN", "KRKR", "KCKA", "KRNK"];
    let sets: Vec<Material> = names.iter().map(|n| Material::parse(n).unwrap()).collect();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    for (dir, whole) in dirs.iter().zip([None, Some(0)]) {
        let tb = Tablebase::with_rules(dir.path(), RuleSet::Asian);
        let opts = GenOptions {
            whole_sub_table_slots: whole,
            ..GenOptions::default()
        };
        generate_all(&tb, &sets, &opts).unwrap();
    }
    for name in names {
        let file = format!("{name}.asian.ctb");
        let a = std::fs::read(dirs[0].path().join(&file)).unwrap();
        let b = std::fs::read(dirs[1].path().join(&file)).unwrap();
        // A whole table that reads (KCKA is a draw everywhere; the others are not).
        let stats = canju::table::TableFile::open(&dirs[0].path().join(&file))
            .unwrap()
            .header()
            .stats
            .clone();
        let decided = stats.iter().any(|s| s.win + s.loss > 0);
        assert!(
            stats[0].positions > 0 && decided == (name != "KCKA"),
            "{file}"
        );
        assert!(a == b, "{file} differs");
    }
}
