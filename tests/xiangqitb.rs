//! Where `asian` and xiangqitb (the generator behind the chessdb cloud database) disagree, on
//! every set up to 5 men: the list in `tests/data/xiangqitb-differences.tsv.zst`, taken
//! position by position by `scripts/compare-xiangqitb.sh` (xiangqitb's WDL read by a prober
//! built from its sources outside this repository). Each line names the clause of the README's
//! *The repetition rules* that explains it, so these tests need no xiangqitb: they check that
//! the list says what our tables say.

use canju::generate::{GenOptions, generate_all};
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::rules::{Color, Move, MoveAttack, Position};
use canju::value::Outcome;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// One listed position: our outcome and rule, xiangqitb's outcome, and why they differ.
struct Difference {
    set: String,
    fen: String,
    ours: char,
    rule: String,
    theirs: char,
    clause: String,
}

/// The clauses a difference may give (README, *The repetition rules*, against xiangqitb):
/// our `mixed` results (xiangqitb does not forbid 一將一捉), our `perpetual-chase` results
/// (its chase is narrower), and draws of ours that xiangqitb wins or loses (KRKNN only):
/// both sides chase forever, which its narrower chase sees as the loser's chase alone.
const CLAUSES: [&str; 3] = ["one-check-one-chase", "narrower-chase", "mutual-chase"];

/// The cycle KRKNN's `mutual-chase` draws hold by: the generals face on the d-file and pin
/// the horse on d7. Black's horse goes c5-a4-c5, each time attacking the rook; the rook goes
/// c3-d3-c3, attacking the horse on d7 (unguarded while the other is on a4), then the horse
/// on c5 (guarded only by the pinned one). Every move chases, so both sides offend: a draw
/// (細則(8)). xiangqitb counts a chase only while one piece is chased throughout, so it sees
/// black's chase of the rook alone, and scores black's loss.
const MUTUAL_CHASE: &str = "3k5/9/3n5/9/2n6/9/2R6/9/9/3K5 b";
const MUTUAL_CHASE_MOVES: [&str; 4] = ["c5a4", "c3d3", "a4c5", "d3c3"];

fn differences() -> Vec<Difference> {
    let packed = std::fs::read("tests/data/xiangqitb-differences.tsv.zst").unwrap();
    let text = String::from_utf8(zstd::decode_all(&packed[..]).unwrap()).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 6, "{line}");
            let letter = |s: &str| s.chars().next().unwrap();
            Difference {
                set: f[0].to_string(),
                fen: f[1].to_string(),
                ours: letter(f[2]),
                rule: f[3].to_string(),
                theirs: letter(f[4]),
                clause: f[5].to_string(),
            }
        })
        .collect()
}

/// W, D or L, as the list writes an outcome.
fn letter(o: Outcome) -> char {
    match o.wdl_name() {
        "win" => 'W',
        "loss" => 'L',
        _ => 'D',
    }
}

#[test]
fn the_list_is_consistent() {
    let list = differences();
    assert!(list.len() > 1000, "{}", list.len());
    for d in &list {
        let pos = Position::from_fen(&d.fen).unwrap();
        assert_eq!(
            Material::of_position(&pos).canonical().name(),
            d.set,
            "{}",
            d.fen
        );
        assert_ne!(d.ours, d.theirs, "{}", d.fen);
        assert!(
            CLAUSES.contains(&d.clause.as_str()),
            "{}: {}",
            d.fen,
            d.clause
        );
        // A result of our rules that xiangqitb scores a draw, or a draw of ours it does not.
        let clause = match d.rule.as_str() {
            "mixed" => "one-check-one-chase",
            "perpetual-chase" => "narrower-chase",
            "-" => "mutual-chase",
            other => panic!("{}: rule {other}", d.fen),
        };
        assert_eq!(d.clause, clause, "{}", d.fen);
        match d.rule.as_str() {
            "-" => assert!(d.ours == 'D' && matches!(d.theirs, 'W' | 'L'), "{}", d.fen),
            _ => assert!(matches!(d.ours, 'W' | 'L') && d.theirs == 'D', "{}", d.fen),
        }
    }
}

/// `sets` (and their sub-tables) generated under `asian` in a new folder.
fn generated(sets: &[&str]) -> (tempfile::TempDir, Tablebase) {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::with_rules(dir.path(), RuleSet::Asian);
    let materials: Vec<Material> = sets.iter().map(|m| Material::parse(m).unwrap()).collect();
    generate_all(&tb, &materials, &GenOptions::default()).unwrap();
    (dir, tb)
}

/// Checks every listed position of `sets` against their tables in `tb`.
fn listed_positions_hold(tb: &Tablebase, sets: &[&str]) {
    let mut checked = 0;
    for d in differences()
        .iter()
        .filter(|d| sets.contains(&d.set.as_str()))
    {
        let pos = Position::from_fen(&d.fen).unwrap();
        let o = tb.probe_outcome(&pos).unwrap();
        assert_eq!(letter(o), d.ours, "{} {}", d.set, d.fen);
        // `-`: a result no rule decided.
        assert_eq!(o.rule().map_or("-", |r| r.label()), d.rule, "{}", d.fen);
        checked += 1;
    }
    assert!(checked > 0, "{sets:?}");
}

/// The set with the most differences, and a small one (about a minute on 2 cores).
#[test]
fn the_listed_kckpp_positions_hold() {
    let (_dir, tb) = generated(&["KCKPP"]);
    listed_positions_hold(&tb, &["KCKPP"]);
}

/// The positions of the mutual-chase cycle, from its start, each with the move played there.
fn mutual_chase_cycle() -> Vec<(Position, Move)> {
    let mut pos = Position::from_fen(MUTUAL_CHASE).unwrap();
    let mut cycle = vec![];
    for m in MUTUAL_CHASE_MOVES {
        let mv = Move::parse_iccs(m).unwrap();
        assert!(pos.legal_moves().iter().any(|&l| l == mv), "{m}");
        cycle.push((pos.clone(), mv));
        pos = pos.after(mv);
    }
    assert_eq!(pos.fen(), cycle[0].0.fen(), "the cycle comes back");
    cycle
}

#[test]
fn the_mutual_chase_cycle_chases_on_every_move() {
    for (pos, mv) in mutual_chase_cycle() {
        assert_eq!(
            pos.move_attack(mv),
            MoveAttack::Chase,
            "{mv} in {}",
            pos.fen()
        );
    }
}

/// A position and its mirror image by one name.
fn either_image(pos: &Position) -> String {
    pos.fen().min(pos.mirrored().fen())
}

/// The moves of `pos` that keep the draw.
fn drawing_moves(tb: &Tablebase, pos: &Position) -> Vec<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|&mv| {
            tb.probe_outcome(&pos.after(mv))
                .is_ok_and(|o| o.wdl_name() == "draw")
        })
        .collect()
}

/// For each of `starts`, the fewest plies of drawing play (both sides' drawing moves) that
/// lead from it to one of `targets` (named by [`either_image`]), if at most `plies`. Every
/// position within `plies` of a start is explored once, then the distances are found
/// backwards from the targets.
fn plies_to(
    tb: &Tablebase,
    starts: &[Position],
    targets: &HashSet<String>,
    plies: usize,
) -> Vec<Option<usize>> {
    // Each position by its name, numbered as first seen.
    let mut id: HashMap<String, usize> = HashMap::new();
    let mut names: Vec<String> = vec![];
    let mut frontier: Vec<(usize, Position)> = vec![];
    // The number of `pos`, which joins the frontier if it is new.
    let mut reach = |pos: Position, frontier: &mut Vec<(usize, Position)>| {
        let name = either_image(&pos);
        *id.entry(name.clone()).or_insert_with(|| {
            names.push(name);
            frontier.push((names.len() - 1, pos));
            names.len() - 1
        })
    };
    let start_ids: Vec<usize> = starts
        .iter()
        .map(|p| reach(p.clone(), &mut frontier))
        .collect();
    let mut edges: Vec<(usize, usize)> = vec![];
    for _ in 0..plies {
        let expanded: Vec<(usize, Vec<Position>)> = std::mem::take(&mut frontier)
            .into_par_iter()
            .map(|(i, p)| {
                let next = drawing_moves(tb, &p).into_iter().map(|mv| p.after(mv));
                (i, next.collect())
            })
            .collect();
        for (i, successors) in expanded {
            for p in successors {
                edges.push((i, reach(p, &mut frontier)));
            }
        }
    }
    let mut preds: Vec<Vec<usize>> = vec![vec![]; names.len()];
    for (i, j) in edges {
        preds[j].push(i);
    }
    let mut dist: Vec<Option<usize>> = names
        .iter()
        .map(|n| targets.contains(n).then_some(0))
        .collect();
    let mut layer: Vec<usize> = (0..names.len()).filter(|&i| dist[i].is_some()).collect();
    for d in 1..=plies {
        let mut next = vec![];
        for &j in &layer {
            for &i in &preds[j] {
                if dist[i].is_none() {
                    dist[i] = Some(d);
                    next.push(i);
                }
            }
        }
        layer = next;
    }
    start_ids.iter().map(|&i| dist[i]).collect()
}

/// KRKNN's listed draws (xiangqitb: red wins) hold; in the mutual-chase cycle every position
/// is a draw no rule decides, and black's only drawing move is its chase.
#[test]
fn the_listed_krknn_draws_hold_and_the_cycle_forces_the_chases() {
    let (_dir, tb) = generated(&["KRKNN"]);
    listed_positions_hold(&tb, &["KRKNN"]);
    for (pos, mv) in &mutual_chase_cycle() {
        let o = tb.probe_outcome(pos).unwrap();
        assert_eq!((o.wdl_name(), o.rule()), ("draw", None), "{}", pos.fen());
        if pos.turn() == Color::Black {
            assert_eq!(drawing_moves(&tb, pos), [*mv], "{}", pos.fen());
        }
    }
}

/// Drawing play leads from every listed KRKNN draw into the mutual-chase cycle (or its
/// mirror image) within 12 plies (about 80 s on 2 cores).
#[test]
#[ignore]
fn every_listed_krknn_draw_reaches_the_mutual_chase_cycle() {
    let (_dir, tb) = generated(&["KRKNN"]);
    let targets: HashSet<String> = mutual_chase_cycle()
        .iter()
        .map(|(p, _)| either_image(p))
        .collect();
    let listed: Vec<Difference> = differences()
        .into_iter()
        .filter(|d| d.clause == "mutual-chase")
        .collect();
    assert_eq!(listed.len(), 238);
    let starts: Vec<Position> = listed
        .iter()
        .map(|d| Position::from_fen(&d.fen).unwrap())
        .collect();
    let reach = plies_to(&tb, &starts, &targets, 12);
    for (d, plies) in listed.iter().zip(reach) {
        assert!(
            plies.is_some(),
            "{}: no drawing play reaches the cycle",
            d.fen
        );
    }
}

/// Every listed set (about 20 minutes on 2 cores).
#[test]
#[ignore]
fn every_listed_position_holds() {
    let list = differences();
    let mut sets: Vec<&str> = list.iter().map(|d| d.set.as_str()).collect();
    sets.sort();
    sets.dedup();
    let (_dir, tb) = generated(&sets);
    listed_positions_hold(&tb, &sets);
}
