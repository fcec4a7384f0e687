//! The `asian` rule set: perpetual check (長將) and perpetual chase (長捉) both lose, as the
//! chessdb cloud database plays them (the perpetual-check rule alone, `check`, is tested in
//! tests/perpetual.rs; the game's clauses one by one on hand-made graphs in
//! src/generate/parity.rs).

use canju::cycle::{DEFAULT_BUDGET, Shape, find_rule_cycle};
use canju::generate::{GenOptions, generate_all};
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::report::line_report;
use canju::rules::{MoveAttack, Position};
use canju::value::{Rule, Value};
use canju::verify::verify_table;

fn generate(dir: &std::path::Path, rules: RuleSet, sets: &[Material]) -> Tablebase {
    let tb = Tablebase::with_rules(dir, rules);
    generate_all(&tb, sets, &GenOptions::default()).unwrap();
    tb
}

/// Up to 4 men no chase decides anything (xiangqitb agrees on every position): `asian` gives
/// the `check` rule set's values, every rule result named `perpetual-check`, and its tables
/// verify.
#[test]
fn up_to_4_men_asian_is_the_perpetual_check_rule() {
    let dir = tempfile::tempdir().unwrap();
    let sets = Material::all_up_to(4);
    let check = generate(dir.path(), RuleSet::Check, &sets);
    let asian = generate(dir.path(), RuleSet::Asian, &sets);
    let mut by_rule = 0;
    for m in &sets {
        let (c, a) = (check.table(*m).unwrap(), asian.table(*m).unwrap());
        // Whole, so that `value` reads the side a search gives too.
        check.load_all(&c).unwrap();
        asian.load_all(&a).unwrap();
        assert_eq!(a.rules(), "asian");
        for (_, pos) in a.index.legal_positions() {
            let (vc, va) = (c.value(&pos).unwrap(), a.value(&pos).unwrap());
            assert_eq!(va, vc, "{m} {}", pos.fen());
            by_rule += usize::from(va.is_some_and(|v| v.is_by_rule()));
        }
        let stats = a.stats();
        for side in stats {
            assert_eq!(side.by_rule[0].win, side.rule_win, "{m}");
            assert_eq!(side.by_rule[1].win + side.by_rule[2].loss, 0, "{m}");
        }
        verify_table(&asian, *m).unwrap();
    }
    assert!(by_rule > 1000, "{by_rule}");
}

/// The positions the issue found where xiangqitb's chase rule decides and the perpetual-check
/// rule does not: the loser's only drawing moves chase. (About 15 minutes on 2 cores:
/// both sets and their sub-tables under both rule sets, then the verifier.)
#[test]
#[ignore]
fn a_side_that_can_hold_only_by_chasing_loses() {
    let cases = [
        ("KRNKR", "9/4k4/9/9/9/4r4/3N5/3K5/9/5R3 b"),
        ("KRKNC", "9/9/4k4/9/2n6/3c5/9/9/9/1R1K5 w"),
    ];
    let sets: Vec<Material> = cases
        .iter()
        .map(|(m, _)| Material::parse(m).unwrap())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let check = generate(dir.path(), RuleSet::Check, &sets);
    let asian = generate(dir.path(), RuleSet::Asian, &sets);
    for (m, fen) in cases {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(check.probe(&pos).unwrap(), Value::Draw, "{m} {fen}");
        let v = asian.probe(&pos).unwrap();
        assert!(matches!(v, Value::LossByRule(_)), "{m} {fen}: {v}");
        assert_ne!(v.rule(), Some(Rule::PerpetualCheck), "{m} {fen}");
        // Every move that still draws under `check` attacks: the loser must chase (or check)
        // to keep the draw, which the rule forbids.
        for &mv in pos.legal_moves().iter() {
            if check.probe(&pos.after(mv)).unwrap() == Value::Draw {
                assert_ne!(pos.move_attack(mv), MoveAttack::Idle, "{m} {fen} {mv}");
            }
            assert!(
                asian.probe(&pos.after(mv)).unwrap().is_win(),
                "{m} {fen} {mv}"
            );
        }
        // `explain` shows the cycle: the loser chases on every move, the winner moves idly.
        let c = find_rule_cycle(&asian, &pos, DEFAULT_BUDGET)
            .unwrap()
            .found
            .unwrap_or_else(|| panic!("{m} {fen}: no cycle"));
        assert_eq!(c.shape, Shape::OneOffender, "{m} {fen}");
        let line = line_report(&asian, &pos).unwrap();
        let repetition = line.repetition.unwrap();
        assert!(repetition.offender_attacks_every_move, "{m} {fen}");
        assert!(
            line.line[repetition.from_ply..]
                .iter()
                .any(|mv| mv.side == repetition.offender && mv.attack == "chase"),
            "{m} {fen}"
        );
        verify_table(&asian, Material::parse(m).unwrap()).unwrap();
    }
}
