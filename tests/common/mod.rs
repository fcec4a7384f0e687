//! Helpers shared by the integration tests: exhaustive enumeration of positions and an
//! independent brute-force solver keyed by FEN (no index, no un-moves, no sub-tables).

#![allow(dead_code)]

use canju::material::Material;
use canju::rules::{Color, Piece, Position, Role, Square};
use canju::value::Value;
use std::collections::HashMap;

/// Every legal position (both sides to move) with exactly this material, colours as given.
pub fn enumerate(m: Material) -> Vec<Position> {
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

/// Every position of `m` and of the sets its captures reach, in the colourings they are
/// reached in, with each position's successors: (index, whether the move gives check).
pub struct Graph {
    /// The positions.
    pub positions: Vec<Position>,
    /// Successors of each position.
    pub succ: Vec<Vec<(usize, bool)>>,
}

impl Graph {
    /// Builds the graph of `m` and everything below it.
    pub fn new(m: Material) -> Graph {
        let mut sets = vec![m];
        let mut i = 0;
        while i < sets.len() {
            for c in Color::ALL {
                for r in Role::ALL {
                    if let Some(s) = sets[i].after_capture(c, r)
                        && !sets.contains(&s)
                    {
                        sets.push(s);
                    }
                }
            }
            i += 1;
        }
        let positions: Vec<Position> = sets.into_iter().flat_map(enumerate).collect();
        let key: HashMap<String, usize> = positions
            .iter()
            .enumerate()
            .map(|(i, p)| (p.fen(), i))
            .collect();
        let succ = positions
            .iter()
            .map(|p| {
                p.legal_moves()
                    .iter()
                    .map(|&mv| {
                        let q = p.after(mv);
                        (key[&q.fen()], q.in_check())
                    })
                    .collect()
            })
            .collect();
        Graph { positions, succ }
    }
}

/// Solves the material and everything below it by rounds: round r decides the positions
/// whose distance to mate is r.
pub fn brute_force(m: Material) -> HashMap<String, Value> {
    let g = Graph::new(m);
    let vals = plain_values(&g);
    g.positions
        .iter()
        .zip(vals)
        .map(|(p, v)| (p.fen(), v))
        .collect()
}

/// Plain values of every position of a graph.
pub fn plain_values(g: &Graph) -> Vec<Value> {
    let all = &g.positions;
    let succ: Vec<Vec<usize>> = g
        .succ
        .iter()
        .map(|s| s.iter().map(|&(j, _)| j).collect())
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
    val.into_iter().map(|v| v.unwrap_or(Value::Draw)).collect()
}
