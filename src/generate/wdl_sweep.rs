//! The mate search of a run without distances, in bitmaps ([`WdlBits`]): who wins, not in
//! how many plies, so no position needs a byte.
//!
//! Positions decided since their side's last turn form that side's frontier. A turn tells
//! the frontier's predecessors: a lost position's win, a won position's that they may have
//! lost now (candidates); each candidate is then verified forward, by its moves. Wins and
//! losses come out as the mate search's (the same least fixpoint, reached in another order).

use super::bits::Bits;
use super::node::Node;
use super::progress::Phase;
use super::wdl_bits::WdlBits;
use super::{First, GenError, PhaseTimes, Solver, cells, par_chunks, take_peak};
use crate::rules::Color;
use crate::trace;
use rayon::prelude::*;
use std::time::Instant;

/// The search's working bitmaps beside the outcomes, a bit a position each and the
/// candidates a bit a slot: gone when it ends.
struct Frontiers {
    /// Per side to move: positions not decided that a capture keeps from losing.
    can_draw: [Bits; 2],
    /// Per side to move: positions decided since that side's last turn.
    frontier: [Bits; 2],
    /// Positions of the side to move after the turn's that may have just lost.
    candidates: Bits,
}

impl Solver<'_> {
    /// Solves the set's wins and losses into `wdl` (the first values from the positions'
    /// own moves, then turns until nothing changes): what is left undecided is drawn. Adds
    /// the phases' times and peaks to `phases` (`clock` started with the set).
    ///
    /// # Errors
    /// A sub-table cannot be read, or disagrees with this set.
    pub(super) fn solve_in_bits(
        &self,
        wdl: &WdlBits,
        progress: bool,
        clock: Instant,
        phases: &mut PhaseTimes,
    ) -> Result<(), GenError> {
        let size = self.index.size();
        let f = Frontiers {
            can_draw: [Bits::new(size), Bits::new(size)],
            frontier: [Bits::new(size), Bits::new(size)],
            candidates: Bits::new(size),
        };
        self.first_values_in_bits(wdl, &f, progress)?;
        phases.init = clock.elapsed().as_secs_f64();
        phases.peaks.init = take_peak();
        let name = self.index.material().name();
        let bar = Phase::new(progress, &name, "sweep", 0);
        let mut traced = trace::Totals::default();
        let mut turns = 0u16;
        let mut turn = Color::Red;
        while f.frontier.iter().any(|b| b.count() > 0) {
            self.take_turn(wdl, &f, turn, &mut traced);
            turns = turns.saturating_add(1);
            if progress {
                bar.sweep(turns, wdl.decided());
            }
            turn = turn.opponent();
        }
        bar.finish();
        traced.print(&format!("sweep in bits of {name}, {turns} turns"));
        Ok(())
    }

    /// Every slot's first values from the positions' own moves, into `wdl` and `f`.
    fn first_values_in_bits(
        &self,
        wdl: &WdlBits,
        f: &Frontiers,
        progress: bool,
    ) -> Result<(), GenError> {
        let size = self.index.size();
        let bar = Phase::new(progress, &self.index.material().name(), "init", size * 2);
        par_chunks(size).try_for_each_init(
            || Node::new(self.index),
            |node, range| {
                for i in range.clone() {
                    self.first_values(node, i, |side, first| record(wdl, f, side, i, first))?;
                }
                bar.inc(2 * (range.end - range.start));
                Ok::<(), GenError>(())
            },
        )?;
        bar.finish();
        Ok(())
    }

    /// One turn of `turn`'s frontier: its predecessors told, the candidates verified.
    fn take_turn(&self, wdl: &WdlBits, f: &Frontiers, turn: Color, traced: &mut trace::Totals) {
        let timed = traced.start();
        self.tell_frontier(wdl, f, turn);
        traced.add("frontier told", timed, || f.frontier[turn.index()].count());
        f.frontier[turn.index()].clear_all();
        let timed = traced.start();
        self.verify_candidates(wdl, f, turn.opponent());
        traced.add("candidates verified", timed, || f.candidates.count());
        f.candidates.clear_all();
    }

    /// Tells the predecessors (`turn`'s opponent to move) of `turn`'s frontier: a loss's
    /// win at once, a win's that they may have lost (the candidates), unless decided or
    /// saved by a capture.
    fn tell_frontier(&self, wdl: &WdlBits, f: &Frontiers, turn: Color) {
        let (side, them) = (turn.index(), turn.opponent().index());
        f.frontier[side].for_each_one(
            || (Node::new(self.index), Vec::new()),
            |(node, preds), i| {
                self.quiet_predecessors(node, preds, i, turn);
                let lost = wdl.lost(side, i);
                for &j in preds.iter() {
                    if lost {
                        if wdl.decide(them, j, true) {
                            f.frontier[them].set(j);
                        }
                    } else if wdl.undecided(them, j) && !f.can_draw[them].get(j) {
                        f.candidates.set(j);
                    }
                }
            },
        );
    }

    /// Decides as lost each candidate (`turn` to move) whose every quiet move now reaches a
    /// position its opponent wins (forward verification).
    fn verify_candidates(&self, wdl: &WdlBits, f: &Frontiers, turn: Color) {
        let (side, next) = (turn.index(), turn.opponent().index());
        f.candidates.for_each_one(
            || Node::new(self.index),
            |node, j| {
                // A candidate may have won since: a win is told before its predecessors.
                if !wdl.undecided(side, j) {
                    return;
                }
                node.load(self.index, j, turn);
                let (pos, near) = node.parts();
                // Pseudo-legal moves: an illegal one reaches a slot without a legal
                // position, no escape. Every capture of a candidate loses.
                let escapes =
                    near.any_quiet_move(self.index, pos, |k| !wdl.won_or_illegal(next, k));
                if !escapes && wdl.decide(side, j, false) {
                    f.frontier[side].set(j);
                }
            },
        );
    }
}

/// Records slot `i`'s first value for `side` to move.
fn record(wdl: &WdlBits, f: &Frontiers, side: usize, i: u64, first: First) {
    match first {
        First::Marker(cells::ILLEGAL) => wdl.set_illegal(side, i),
        First::Marker(cells::CAN_DRAW) => {
            f.can_draw[side].set(i);
        }
        First::Marker(_) => {}
        First::Distance(d) => {
            wdl.decide(side, i, d % 2 == 1);
            f.frontier[side].set(i);
        }
    }
}
