//! The generator against an independent brute-force solver, the index against exhaustive
//! enumeration, and the verifier on every generated table.
//!
//! The brute-force solver shares only the rules core with the generator: it enumerates
//! positions by placing pieces on every point, keys them by FEN in a HashMap, and solves by
//! rounds of forward look-ups (no index, no un-moves, no sub-tables).

use canju::generate::{GenOptions, generate_all};
use canju::index::MaterialIndex;
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::rules::{Color, Piece, Position, Role, Square};
use canju::value::Value;
use canju::verify::verify_table;
use std::collections::HashMap;

/// Every legal position (both sides to move) with exactly this material, colours as given.
fn enumerate(m: Material) -> Vec<Position> {
    let mut pieces = vec![];
    for c in Color::ALL {
        for r in Role::ALL {
            for _ in 0..m.count(c, r) {
                pieces.push(Piece::new(c, r));
            }
        }
    }
    let mut out = vec![];
    let mut pos = Position::empty(Color::Red);
    place(&pieces, 0, 0, &mut pos, &mut out);
    out
}

fn place(pieces: &[Piece], i: usize, min_sq: usize, pos: &mut Position, out: &mut Vec<Position>) {
    if i == pieces.len() {
        for turn in Color::ALL {
            let mut p = pos.clone();
            p.set_turn(turn);
            if p.validate().is_ok() {
                out.push(p);
            }
        }
        return;
    }
    let piece = pieces[i];
    // Like pieces in increasing square order, so each placement appears once.
    let start = if i > 0 && pieces[i - 1] == piece {
        min_sq
    } else {
        0
    };
    for s in start..90 {
        let sq = Square::from_index(s).unwrap();
        if pos.piece_at(sq).is_some() || !piece.can_stand_on(sq) {
            continue;
        }
        pos.put(sq, piece);
        place(pieces, i + 1, s + 1, pos, out);
        pos.remove(sq);
    }
}

/// Solves the material and everything below it by rounds: round r decides the positions
/// whose distance to mate is r.
fn brute_force(m: Material) -> HashMap<String, Value> {
    let mut all: Vec<Position> = vec![];
    let mut seen = std::collections::HashSet::new();
    for sub in m.closure() {
        for colouring in [sub, sub.swapped()] {
            if seen.insert(colouring) {
                all.extend(enumerate(colouring));
            }
        }
    }
    let key: HashMap<String, usize> = all.iter().enumerate().map(|(i, p)| (p.fen(), i)).collect();
    let succ: Vec<Vec<usize>> = all
        .iter()
        .map(|p| {
            p.legal_moves()
                .iter()
                .map(|&mv| key[&p.after(mv).fen()])
                .collect()
        })
        .collect();
    let mut val: Vec<Option<Value>> = vec![None; all.len()];
    let mut r: u16 = 0;
    let mut idle = 0;
    while idle < 2 {
        let mut newly = vec![];
        for i in 0..all.len() {
            if val[i].is_some() {
                continue;
            }
            let decided = if r.is_multiple_of(2) {
                // Loss in r: every move leads to a win, the longest in r - 1.
                let all_wins = succ[i]
                    .iter()
                    .all(|&j| matches!(val[j], Some(Value::Win(_))));
                let longest = succ[i]
                    .iter()
                    .filter_map(|&j| val[j].and_then(|v| v.distance()))
                    .max();
                all_wins && (r == 0 && succ[i].is_empty() || longest == Some(r.wrapping_sub(1)))
            } else {
                succ[i].iter().any(|&j| val[j] == Some(Value::Loss(r - 1)))
            };
            if decided {
                newly.push(i);
            }
        }
        idle = if newly.is_empty() { idle + 1 } else { 0 };
        for i in newly {
            val[i] = Some(if r.is_multiple_of(2) {
                Value::Loss(r)
            } else {
                Value::Win(r)
            });
        }
        r += 1;
    }
    all.iter()
        .zip(val)
        .map(|(p, v)| (p.fen(), v.unwrap_or(Value::Draw)))
        .collect()
}

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
        for colouring in [m, m.swapped()] {
            for pos in enumerate(colouring) {
                let got = tb.probe(&pos).unwrap();
                assert_eq!(Some(&got), truth.get(&pos.fen()), "{name}: {}", pos.fen());
                checked += 1;
            }
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
