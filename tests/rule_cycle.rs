//! The cycles `canju explain` and `canju line` show for results decided by a repetition
//! rule: every rule-decided position up to 4 men has one, and each is checked here move by
//! move against the rule as the 棋例 states it (not as the solver encodes it).

use canju::cycle::{CycleSearch, RuleCycle, Shape, find_rule_cycle};
use canju::generate::{GenOptions, generate_all};
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::rules::{Color, MoveAttack, Position};
use canju::value::Value;
use rayon::prelude::*;

fn generate(dir: &std::path::Path, rules: RuleSet, sets: &[Material]) -> Tablebase {
    let tb = Tablebase::with_rules(dir, rules);
    generate_all(&tb, sets, &GenOptions::default()).unwrap();
    tb
}

/// The board and side to move of `p`, without the move counters.
fn board(p: &Position) -> String {
    p.fen().split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// True if `p` keeps the value a rule cycle won by `winner` passes through.
fn keeps(tb: &Tablebase, p: &Position, winner: Color) -> bool {
    match tb.probe(p).unwrap() {
        Value::WinByRule(_) => p.turn() == winner,
        Value::LossByRule(_) => p.turn() != winner,
        _ => false,
    }
}

/// What move `mv` of `p` does under `rules` (chases are idle where only checks count).
fn attack(rules: RuleSet, p: &Position, mv: canju::rules::Move) -> MoveAttack {
    match p.move_attack(mv) {
        MoveAttack::Chase | MoveAttack::PawnChase if rules == RuleSet::Check => MoveAttack::Idle,
        a => a,
    }
}

/// Checks that `c` is a legal play from `start` that keeps both sides' values, closes into
/// a cycle without captures, and is one the rule decides against the loser: the loser
/// attacks on every move and the winner moves idly at least once, or the loser only checks
/// and the winner checks and chases, at least one a chase.
fn assert_demonstrates(tb: &Tablebase, start: &Position, c: &RuleCycle) {
    let fen = start.fen();
    let mut p = start.clone();
    assert!(keeps(tb, &p, c.winner), "{fen}");
    for &mv in &c.prefix {
        assert!(p.legal_moves().iter().any(|&m| m == mv), "{fen}: {mv}");
        p.make(mv);
        assert!(keeps(tb, &p, c.winner), "{fen}: {mv}");
    }
    let first = board(&p);
    let (mut winner, mut loser) = (Vec::new(), Vec::new());
    assert!(!c.cycle.is_empty(), "{fen}");
    assert_eq!(c.keeping.len(), c.cycle.len(), "{fen}");
    for (&mv, keeping) in c.cycle.iter().zip(&c.keeping) {
        assert!(p.legal_moves().iter().any(|&m| m == mv), "{fen}: {mv}");
        assert!(!p.is_capture(mv), "{fen}: {mv} captures inside the cycle");
        assert!(keeping.contains(&mv), "{fen}: {mv}");
        let kind = attack(tb.rules(), &p, mv);
        if p.turn() == c.winner {
            winner.push(kind)
        } else {
            loser.push(kind)
        }
        p.make(mv);
        assert!(keeps(tb, &p, c.winner), "{fen}: {mv}");
    }
    assert_eq!(board(&p), first, "{fen}: the cycle does not close");
    let attacks = |k: &MoveAttack| matches!(k, MoveAttack::Check | MoveAttack::Chase);
    let one_offender = loser.iter().all(attacks) && winner.contains(&MoveAttack::Idle);
    let checker_loses = loser.iter().all(|k| *k == MoveAttack::Check)
        && !winner.contains(&MoveAttack::Idle)
        && winner
            .iter()
            .any(|k| matches!(k, MoveAttack::Chase | MoveAttack::PawnChase));
    match c.shape {
        Shape::OneOffender => assert!(one_offender, "{fen}: {winner:?} {loser:?}"),
        Shape::CheckerAgainstChaser => assert!(checker_loses, "{fen}: {winner:?} {loser:?}"),
    }
}

/// Every position up to 4 men that a rule decides (under `asian`; `check` gives the same
/// values there, and its reading of chases as idle moves is tested below): a cycle is found
/// within the default budget, and it demonstrates the result.
#[test]
fn every_rule_result_up_to_4_men_has_a_cycle_that_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let sets = Material::all_up_to(4);
    {
        let rules = RuleSet::Asian;
        let tb = generate(dir.path(), rules, &sets);
        let mut shown = 0;
        for m in &sets {
            let table = tb.table(*m).unwrap();
            // Whole, so that `value` reads the side a search gives too.
            tb.load_all(&table).unwrap();
            shown += table
                .index
                .par_legal_positions()
                .filter(|(_, pos)| table.value(pos).unwrap().unwrap().is_by_rule())
                .map(|(_, pos)| {
                    let search = find_rule_cycle(&tb, &pos, 50_000).unwrap();
                    let c = search.found.unwrap_or_else(|| panic!("{m} {}", pos.fen()));
                    assert_demonstrates(&tb, &pos, &c);
                })
                .count();
        }
        eprintln!("{rules}: {shown} positions decided by a rule, each shown by a cycle");
        assert!(shown > 1000, "{rules}: {shown}");
    }
}

/// Under `check` too every rule result of KRKN is shown by a cycle, its chases read as idle.
#[test]
fn under_the_check_rule_chases_are_idle_moves_of_the_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(
        dir.path(),
        RuleSet::Check,
        &[Material::parse("KRKN").unwrap()],
    );
    let table = tb.table(Material::parse("KRKN").unwrap()).unwrap();
    tb.load_all(&table).unwrap();
    let mut shown = 0;
    for (_, pos) in table.index.legal_positions() {
        if table.value(&pos).unwrap().unwrap().is_by_rule() {
            let c = find_rule_cycle(&tb, &pos, 50_000).unwrap().found.unwrap();
            assert_demonstrates(&tb, &pos, &c);
            shown += 1;
        }
    }
    assert!(shown > 100, "{shown}");
}

/// A position no rule decides has nothing to show; a search with no budget finds nothing.
#[test]
fn positions_not_decided_by_a_rule_have_no_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(
        dir.path(),
        RuleSet::Asian,
        &[Material::parse("KRKN").unwrap()],
    );
    let win = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
    let none = CycleSearch {
        found: None,
        explored: 0,
        complete: true,
    };
    assert_eq!(find_rule_cycle(&tb, &win, 50_000).unwrap(), none);
    let by_rule = Position::from_fen("9/9/4k4/9/9/9/9/9/1n7/R2K5 w").unwrap();
    assert!(tb.probe(&by_rule).unwrap().is_by_rule());
    let found = find_rule_cycle(&tb, &by_rule, 50_000).unwrap();
    assert_demonstrates(&tb, &by_rule, found.found.as_ref().unwrap());
    let starved = find_rule_cycle(&tb, &by_rule, 0).unwrap();
    assert!(starved.found.is_none() && !starved.complete, "{starved:?}");
    // An illegal position is an error, not a cycle.
    let illegal = Position::from_fen_unchecked("4k4/9/9/9/9/9/9/9/9/R3K4 w").unwrap();
    assert!(find_rule_cycle(&tb, &illegal, 50_000).is_err());
}

/// The check above rejects plays that do not demonstrate: a cycle that does not close, one
/// named by the wrong shape, one that starts with a move not legal there.
#[test]
fn a_cycle_that_does_not_demonstrate_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let tb = generate(
        dir.path(),
        RuleSet::Asian,
        &[Material::parse("KRKN").unwrap()],
    );
    let pos = Position::from_fen("9/9/4k4/9/9/9/9/9/1n7/R2K5 w").unwrap();
    let good = find_rule_cycle(&tb, &pos, 50_000).unwrap().found.unwrap();
    assert_demonstrates(&tb, &pos, &good);
    let rejected = |c: RuleCycle| {
        let tb = &tb;
        let pos = &pos;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            assert_demonstrates(tb, pos, &c)
        }))
        .is_err()
    };
    let mut open = good.clone();
    open.cycle.pop();
    open.keeping.pop();
    assert!(rejected(open));
    let mut misnamed = good.clone();
    misnamed.shape = match good.shape {
        Shape::OneOffender => Shape::CheckerAgainstChaser,
        Shape::CheckerAgainstChaser => Shape::OneOffender,
    };
    assert!(rejected(misnamed));
    // Red is in check: the rook may not move.
    let mut illegal = good.clone();
    illegal
        .prefix
        .insert(0, canju::rules::Move::parse_iccs("a0a1").unwrap());
    assert!(rejected(illegal));
}
