//! The rules core against independent oracle data (tests/data, copied from shared/oracle):
//! published perft figures and 4,600 positions with every legal move from Fairy-Stockfish.

use canju::rules::{Position, Role};

const PERFT: &str = include_str!("data/perft.txt");
const LEGAL: &str = include_str!("data/legal_moves.txt");

struct OracleLine<'a> {
    fen: &'a str,
    in_check: bool,
    moves: Vec<&'a str>,
}

fn oracle_positions() -> Vec<OracleLine<'static>> {
    LEGAL
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split('|');
            let fen = parts.next().unwrap();
            let in_check = parts.next().unwrap() == "1";
            let moves = parts.next().unwrap_or("").split_whitespace().collect();
            OracleLine {
                fen,
                in_check,
                moves,
            }
        })
        .collect()
}

#[test]
fn oracle_has_all_positions() {
    assert_eq!(oracle_positions().len(), 4600);
}

#[test]
fn legal_moves_match_oracle() {
    let mut failures = Vec::new();
    for line in oracle_positions() {
        let pos = Position::from_fen(line.fen).unwrap_or_else(|e| panic!("{}: {e}", line.fen));
        let mut ours: Vec<String> = pos.legal_moves().iter().map(|m| m.iccs()).collect();
        ours.sort();
        if ours != line.moves || pos.in_check() != line.in_check {
            failures.push(format!(
                "{}\n  oracle {:?} check={}\n  ours   {:?} check={}",
                line.fen,
                line.moves,
                line.in_check,
                ours,
                pos.in_check()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches, first:\n{}",
        failures.len(),
        failures[0]
    );
}

#[test]
fn perft_matches_published_figures_to_depth_4() {
    let mut checked = 0;
    for line in PERFT.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split('|');
        let fen = parts.next().unwrap();
        let counts: Vec<&str> = parts.next().unwrap().split_whitespace().collect();
        let pos = Position::from_fen(fen).unwrap();
        for (i, c) in counts.iter().enumerate().take(4) {
            if let Ok(expected) = c.parse::<u64>() {
                assert_eq!(pos.perft(i as u32 + 1), expected, "{fen} depth {}", i + 1);
                checked += 1;
            }
        }
    }
    assert!(checked >= 46, "only {checked} figures checked");
}

#[test]
#[ignore = "about a second per position in release; run with --ignored"]
fn perft_matches_published_figures_depth_5() {
    for line in PERFT.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split('|');
        let fen = parts.next().unwrap();
        let counts: Vec<&str> = parts.next().unwrap().split_whitespace().collect();
        if let Some(Ok(expected)) = counts.get(4).map(|c| c.parse::<u64>()) {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(pos.perft(5), expected, "{fen} depth 5");
        }
    }
}

const ALL_CAPTURABLE: [Role; 6] = [
    Role::Advisor,
    Role::Elephant,
    Role::Horse,
    Role::Rook,
    Role::Cannon,
    Role::Pawn,
];

/// The kinds of the side to move that an un-capture may put back without passing the game's
/// piece counts.
fn uncapturable(p: &Position) -> Vec<Role> {
    ALL_CAPTURABLE
        .iter()
        .copied()
        .filter(|&r| {
            let n = p
                .pieces()
                .filter(|(_, pc)| pc.color == p.turn() && pc.role == r)
                .count();
            n < r.max_count() as usize
        })
        .collect()
}

#[test]
fn unmoves_round_trip_on_oracle_positions() {
    let mut pairs = 0u64;
    for line in oracle_positions() {
        let p = Position::from_fen(line.fen).unwrap();
        for &mv in p.legal_moves().iter() {
            let q = p.after(mv);
            let captured = p.piece_at(mv.to).map(|c| c.role);
            let preds = q.unmoves(&uncapturable(&q));
            let found = preds.iter().any(|um| {
                um.mv == mv && um.uncaptured == captured && q.retracted(*um).fen() == p.fen()
            });
            assert!(
                found,
                "{} --{mv}--> {}: predecessor missing",
                p.fen(),
                q.fen()
            );
            pairs += 1;
        }
        // Every predecessor is legal and has a legal move back to this position.
        for um in p.unmoves(&uncapturable(&p)) {
            let pred = p.retracted(um);
            pred.validate()
                .unwrap_or_else(|e| panic!("{} from {}: {e}", pred.fen(), p.fen()));
            assert!(pred.is_legal(um.mv), "{} {}", pred.fen(), um.mv);
            assert_eq!(pred.after(um.mv).fen(), p.fen());
        }
    }
    assert!(pairs > 70_000, "only {pairs} move pairs checked");
}

#[test]
fn unchecked_quiet_unmoves_are_the_legal_ones_and_those_leaving_a_check() {
    let (mut legal, mut illegal) = (0u64, 0u64);
    for line in oracle_positions() {
        let p = Position::from_fen(line.fen).unwrap();
        let mut want: Vec<_> = p.unmoves(&[]).iter().map(|um| um.mv).collect();
        let mut got = vec![];
        p.for_each_quiet_unmove_unchecked(|mv| got.push(mv));
        // Each un-move the legal list lacks leaves the side to move here in check.
        for &mv in &got {
            if want.contains(&mv) {
                legal += 1;
                continue;
            }
            let pred = p.retracted(canju::rules::UnMove {
                mv,
                uncaptured: None,
            });
            assert!(
                pred.is_in_check(p.turn()),
                "{} from {}: an un-move the legal list lacks is legal",
                mv,
                p.fen()
            );
            illegal += 1;
        }
        got.sort_by_key(|m| (m.from.index(), m.to.index()));
        got.dedup();
        want.sort_by_key(|m| (m.from.index(), m.to.index()));
        assert!(
            want.iter().all(|m| got.contains(m)),
            "{}: a legal un-move is missing",
            p.fen()
        );
    }
    assert!(
        legal > 10_000 && illegal > 100,
        "{legal} legal, {illegal} illegal"
    );
}
