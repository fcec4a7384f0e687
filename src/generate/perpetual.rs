//! The `asian` rule set's perpetual-check rule (長將), applied to the draws of the mate search.
//!
//! For one side p, label each move: the opponent's non-checking move 3, p's non-checking move
//! 2, any checking move 1. An endless play is won by p exactly when the highest label seen
//! infinitely often is even: from some point the opponent checks on every move while p still
//! makes quiet moves. (If both sides check forever, the highest label is 1: a draw.) The
//! positions p wins form a parity game with three priorities, solved by the nested fixpoint
//! `W = mu X. nu Y. mu Z. Pre(3 -> X, 2 -> Y, 1 -> Z)`, where `Pre` holds for a p-to-move
//! position when some move reaches a position in the set its label names (or one p already
//! wins), and for an opponent-to-move position when every move does.
//!
//! Only plain draws can change: a forced mate stays a mate. Moves out of the draw region lead
//! to fixed results (plain wins and losses, captures into sub-tables generated under the same
//! rule set). The pass runs for p only when the opponent has a piece that can give check.
//!
//! A position p wins this way is stored as `WinByRule` (p to move) or `LossByRule` (the
//! opponent to move): no distance, since p forces the opponent to break the rule rather than
//! mate.

use super::{GenError, Solver};
use crate::rules::{Color, Position, Role};
use crate::value::{STORED_DRAW, STORED_RULE_LOSS, STORED_RULE_WIN, Value};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

const IN_D: u8 = 1;
const X: u8 = 2;
const Y: u8 = 4;
const Z: u8 = 8;
/// In the region that can reach a position where the opponent must check or lose.
const R: u8 = 16;
/// Such a position (the opponent to move, every quiet move loses).
const C: u8 = 32;

/// Positions the rule changed, per side to move: (won by the side to move, lost by it).
pub(crate) type RuleCounts = [(u64, u64); 2];

struct Pass<'s, 'a> {
    solver: &'s Solver<'a>,
    p: Color,
    flags: [Vec<AtomicU8>; 2],
    /// Unresolved checking moves of opponent-to-move positions during one Z attractor.
    counters: [Vec<AtomicU8>; 2],
}

/// Marks a position that cannot join Z in this attractor.
const NEVER: u8 = 0xFF;

/// Where a move leads, seen from p.
enum Edge {
    /// A fixed result p wins (a plain result or a capture into a sub-table).
    PWins,
    /// A fixed result p does not win (a loss for p, or a draw in a sub-table).
    NotPWin,
    /// A draw of this table: its slot, and whether the move gives check.
    Draw(u64, bool),
}

impl Pass<'_, '_> {
    /// True if stored value `v` (for `side` to move) is a result p already has.
    fn fixed_win_for_p(&self, side: Color, v: u16) -> bool {
        match Value::from_stored(v) {
            Some(val) if side == self.p => val.is_win(),
            Some(val) => val.is_loss(),
            None => false,
        }
    }

    /// Where move `mv` leads, for the attractor.
    fn classify(&self, pos: &Position, mv: crate::rules::Move) -> Result<Edge, GenError> {
        let next = pos.turn().opponent();
        let won = |v: u16| {
            if self.fixed_win_for_p(next, v) {
                Edge::PWins
            } else {
                Edge::NotPWin
            }
        };
        if pos.is_capture(mv) {
            return Ok(won(self.solver.capture_value_raw(pos, mv)?.to_stored()));
        }
        let after = pos.after(mv);
        let j = self
            .solver
            .index
            .encode(&after)
            .expect("quiet move keeps material");
        let v = self.solver.values[next.index()][j as usize].load(Relaxed);
        if v != STORED_DRAW {
            return Ok(won(v));
        }
        Ok(Edge::Draw(j, after.in_check()))
    }

    fn for_draws(&self, f: impl Fn(Color, usize, &AtomicU8) + Sync) {
        for side in Color::ALL {
            self.flags[side.index()]
                .par_iter()
                .enumerate()
                .for_each(|(i, cell)| {
                    if cell.load(Relaxed) & (IN_D | R) == IN_D | R {
                        f(side, i, cell)
                    }
                });
        }
    }

    /// Least fixpoint of Z for the current X and Y, as an attractor: a move's label depends
    /// only on the position it reaches (a check when the side to move there is in check), so
    /// Z grows backwards along checking moves, with a counter of unresolved checking moves per
    /// opponent-to-move position, as in the mate search.
    ///
    /// A p-to-move position joins at once if a quiet move reaches Y; otherwise when a checking
    /// move reaches Z. An opponent-to-move position qualifies only if each quiet move reaches
    /// X or a win of p; it joins when each checking move reaches Z or a win of p.
    fn solve_z(&self) -> Result<(), GenError> {
        let o = self.p.opponent();
        let frontier = std::sync::Mutex::new(Vec::<(Color, u64)>::new());
        for side in Color::ALL {
            self.flags[side.index()]
                .par_iter()
                .enumerate()
                .with_min_len(1024)
                .try_for_each_init(Vec::new, |succ: &mut Vec<(u64, bool)>, (i, cell)| {
                    let f = cell.fetch_and(!Z, Relaxed);
                    if f & (IN_D | R) != IN_D | R {
                        return Ok(());
                    }
                    let pos = self
                        .solver
                        .index
                        .decode(i as u64, side)
                        .expect("draws decode");
                    // Distinct successors in the draw region, with whether they are checks;
                    // `None` if some move decides the question at once.
                    succ.clear();
                    let mut verdict: Option<bool> = None;
                    for &mv in pos.legal_moves().iter() {
                        match self.classify(&pos, mv)? {
                            Edge::PWins => {
                                if side == self.p {
                                    verdict = Some(true);
                                    break;
                                }
                            }
                            Edge::NotPWin => {
                                // The opponent escapes to a result p does not win.
                                if side == o {
                                    verdict = Some(false);
                                    break;
                                }
                            }
                            Edge::Draw(j, check) => {
                                let g =
                                    self.flags[side.opponent().index()][j as usize].load(Relaxed);
                                if !check {
                                    let need = if side == self.p { Y } else { X };
                                    if g & need != 0 && side == self.p {
                                        verdict = Some(true);
                                        break;
                                    }
                                    if g & need == 0 && side == o {
                                        verdict = Some(false);
                                        break;
                                    }
                                } else {
                                    succ.push((j, check));
                                }
                            }
                        }
                    }
                    let counter = &self.counters[side.index()][i];
                    let joins = match verdict {
                        Some(v) => v,
                        None if side == self.p => {
                            counter.store(NEVER, Relaxed);
                            false
                        }
                        None => {
                            succ.sort_unstable();
                            succ.dedup();
                            counter.store(succ.len().min(250) as u8, Relaxed);
                            succ.is_empty()
                        }
                    };
                    if verdict == Some(false) {
                        counter.store(NEVER, Relaxed);
                    }
                    if joins {
                        cell.fetch_or(Z, Relaxed);
                        frontier
                            .lock()
                            .expect("frontier lock")
                            .push((side, i as u64));
                    }
                    Ok::<(), GenError>(())
                })?;
        }
        let mut frontier = frontier.into_inner().expect("frontier lock");
        while !frontier.is_empty() {
            frontier = frontier
                .par_iter()
                .flat_map_iter(|&(side, i)| {
                    let pos = self.solver.index.decode(i, side).expect("draws decode");
                    let mut added = vec![];
                    // Only checking moves into Z help a predecessor.
                    if !pos.in_check() {
                        return added;
                    }
                    let prev = side.opponent();
                    let mut preds = vec![];
                    pos.for_each_unmove(&[], |_, q| {
                        preds.push(self.solver.index.encode(q).expect("un-moves keep material"));
                    });
                    preds.sort_unstable();
                    preds.dedup();
                    for j in preds {
                        let cell = &self.flags[prev.index()][j as usize];
                        let f = cell.load(Relaxed);
                        if f & (IN_D | R | Z) != IN_D | R {
                            continue;
                        }
                        let joins = if prev == self.p {
                            true
                        } else {
                            let counter = &self.counters[prev.index()][j as usize];
                            let mut cur = counter.load(Relaxed);
                            loop {
                                if cur == NEVER || cur == 0 {
                                    break false;
                                }
                                match counter.compare_exchange_weak(cur, cur - 1, Relaxed, Relaxed)
                                {
                                    Ok(_) => break cur == 1,
                                    Err(c) => cur = c,
                                }
                            }
                        };
                        if joins && cell.fetch_or(Z, Relaxed) & Z == 0 {
                            added.push((prev, j));
                        }
                    }
                    added
                })
                .collect();
        }
        Ok(())
    }

    /// Copies bit `from` onto bit `to` over the draws; true if anything changed.
    fn copy_bit(&self, from: u8, to: u8) -> bool {
        let changed = AtomicBool::new(false);
        self.for_draws(|_, _, c| {
            let f = c.load(Relaxed);
            let want = f & from != 0;
            if want != (f & to != 0) {
                changed.store(true, Relaxed);
                if want {
                    c.fetch_or(to, Relaxed);
                } else {
                    c.fetch_and(!to, Relaxed);
                }
            }
        });
        changed.load(Relaxed)
    }

    /// Marks (C) the draws with the opponent to move that have no quiet move keeping the draw:
    /// only there can the opponent be forced to check. Returns how many there are.
    fn mark_forced(&self) -> Result<u64, GenError> {
        let o = self.p.opponent();
        let found = std::sync::atomic::AtomicU64::new(0);
        self.flags[o.index()]
            .par_iter()
            .enumerate()
            .with_min_len(1024)
            .try_for_each(|(i, cell)| {
                if cell.load(Relaxed) & IN_D == 0 {
                    return Ok(());
                }
                let pos = self.solver.index.decode(i as u64, o).expect("draws decode");
                // A quiet move that keeps the draw, or any move to a result p does not win,
                // lets the opponent escape without checking (stricter than needed, still a
                // superset of the opponent positions of the first X iteration).
                for &mv in pos.legal_moves().iter() {
                    if matches!(
                        self.classify(&pos, mv)?,
                        Edge::Draw(_, false) | Edge::NotPWin
                    ) {
                        return Ok(());
                    }
                }
                cell.fetch_or(C | R, Relaxed);
                found.fetch_add(1, Relaxed);
                Ok::<(), GenError>(())
            })?;
        Ok(found.load(Relaxed))
    }

    /// Marks (R) every draw from which a path through draws reaches a C position: the rule
    /// can only change positions there, so the fixpoint looks at nothing else.
    fn mark_region(&self) {
        let mut frontier: Vec<(Color, u64)> = Color::ALL
            .iter()
            .flat_map(|&side| {
                self.flags[side.index()]
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.load(Relaxed) & R != 0)
                    .map(move |(i, _)| (side, i as u64))
            })
            .collect();
        while !frontier.is_empty() {
            frontier = frontier
                .par_iter()
                .flat_map_iter(|&(side, i)| {
                    let pos = self.solver.index.decode(i, side).expect("draws decode");
                    let prev = side.opponent();
                    let mut found = vec![];
                    pos.for_each_unmove(&[], |_, p| {
                        let j = self.solver.index.encode(p).expect("un-moves keep material");
                        let cell = &self.flags[prev.index()][j as usize];
                        let f = cell.load(Relaxed);
                        if f & IN_D != 0 && f & R == 0 && cell.fetch_or(R, Relaxed) & R == 0 {
                            found.push((prev, j));
                        }
                    });
                    found
                })
                .collect();
        }
    }

    fn run(&self) -> Result<(), GenError> {
        if self.mark_forced()? == 0 {
            return Ok(());
        }
        self.mark_region();
        // mu X: X grows from the empty set.
        loop {
            // nu Y: Y shrinks from every draw.
            self.for_draws(|_, _, c| {
                c.fetch_or(Y, Relaxed);
            });
            loop {
                self.solve_z()?;
                if !self.copy_bit(Z, Y) {
                    break;
                }
            }
            if !self.copy_bit(Y, X) {
                return Ok(());
            }
        }
    }
}

impl Solver<'_> {
    /// Applies the perpetual-check rule to the draws left by the mate search and returns how
    /// many positions (slots) it changed per side to move.
    pub(crate) fn apply_perpetual_rule(&self) -> Result<RuleCounts, GenError> {
        let material = self.index.material();
        let mut counts: RuleCounts = [(0, 0); 2];
        for p in Color::ALL {
            let o = p.opponent();
            let can_check = Role::ALL
                .iter()
                .any(|&r| r.is_attacker() && material.count(o, r) > 0);
            if !can_check {
                continue;
            }
            let flags = Color::ALL.map(|side| {
                self.values[side.index()]
                    .par_iter()
                    .map(|v| {
                        AtomicU8::new(if v.load(Relaxed) == STORED_DRAW {
                            IN_D
                        } else {
                            0
                        })
                    })
                    .collect::<Vec<_>>()
            });
            let counters = Color::ALL.map(|side| {
                (0..self.values[side.index()].len())
                    .map(|_| AtomicU8::new(0))
                    .collect::<Vec<_>>()
            });
            let pass = Pass {
                solver: self,
                p,
                flags,
                counters,
            };
            pass.run()?;
            for side in Color::ALL {
                let marker = if side == p {
                    STORED_RULE_WIN
                } else {
                    STORED_RULE_LOSS
                };
                let n = pass.flags[side.index()]
                    .par_iter()
                    .enumerate()
                    .filter(|(_, c)| c.load(Relaxed) & (IN_D | R | X) == IN_D | R | X)
                    .map(|(i, _)| {
                        self.values[side.index()][i].store(marker, Relaxed);
                    })
                    .count() as u64;
                if side == p {
                    counts[side.index()].0 += n;
                } else {
                    counts[side.index()].1 += n;
                }
            }
        }
        Ok(counts)
    }
}
