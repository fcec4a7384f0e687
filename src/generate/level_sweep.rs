//! The mate search of a run with distances, in bitmaps: the cells' sweep by distance, with a
//! few bits a position instead of a byte, the distances written to disk level by level
//! ([`LevelRecord`]) and read back into the writer's cells once the rules' pass is done.
//!
//! Level n tells the positions decided at distance n (the frontier), red's and then
//! black's: a loss's predecessors win in n + 1; a win's undecided predecessors may have lost
//! (candidates), and each is verified forward against the wins decided so far, all of at most
//! n plies. A position whose distance is known early, a capture's win or a loss whose
//! longest line is a capture, waits in [`Pending`] for its level. So every position joins the
//! frontier of its own distance, the cells' distance.

use super::bits::Bits;
use super::level_record::LevelRecord;
use super::node::Node;
use super::pending::{LocalPending, Pending};
use super::progress::Phase;
use super::wdl_bits::WdlBits;
use super::{First, GenError, PhaseTimes, Solver, cells, par_chunks, take_peak};
use crate::rules::{Color, MoveList};
use crate::trace;
use rayon::prelude::*;
use std::time::Instant;

/// The search's working bitmaps beside the outcomes: gone when it ends.
struct Levels {
    /// Per side to move: undecided positions that cannot lose: a capture draws, or wins
    /// (the win waits in `pending`).
    blocked: [Bits; 2],
    /// Per side to move: the positions decided at the level being told. Red's, once told,
    /// gathers those of the next level.
    frontier: [Bits; 2],
    /// Black's positions of the next level, while its frontier waits for its turn.
    next_black: Bits,
    /// Positions of the side to move after the turn's that may have just lost.
    candidates: Bits,
    /// Positions decided before their level.
    pending: Pending,
}

impl Levels {
    /// The error of the pending positions' file, if writing it failed.
    fn pending_written(&self) -> Result<(), GenError> {
        self.pending.check().map_err(|source| GenError::Spill {
            path: self.pending.path().to_path_buf(),
            source,
        })
    }
}

impl Solver<'_> {
    /// Solves the set's wins and losses into `wdl` and their distances into `record`: the
    /// first values from the positions' own moves, then the levels until none is left; what
    /// is left undecided is drawn. Positions decided before their level wait in `pending`. Adds the phases' times and peaks to `phases`.
    ///
    /// # Errors
    /// A sub-table cannot be read or disagrees with this set, or the record cannot be
    /// written.
    pub(super) fn solve_levels_in_bits(
        &self,
        wdl: &WdlBits,
        record: &mut LevelRecord,
        pending: Pending,
        progress: bool,
        clock: Instant,
        phases: &mut PhaseTimes,
    ) -> Result<(), GenError> {
        let size = self.index.size();
        let mut l = Levels {
            blocked: [Bits::new(size), Bits::new(size)],
            frontier: [Bits::new(size), Bits::new(size)],
            next_black: Bits::new(size),
            candidates: Bits::new(size),
            pending,
        };
        self.first_levels(wdl, &l, progress)?;
        l.pending_written()?;
        phases.init = clock.elapsed().as_secs_f64();
        phases.peaks.init = take_peak();
        let name = self.index.material().name();
        trace::step("positions waiting for their level").done(|| l.pending.written().to_string());
        let bar = Phase::new(progress, &name, "sweep", 0);
        let mut traced = trace::Totals::default();
        let mut n: u16 = 0;
        loop {
            self.release_pending(wdl, &l, n)?;
            let empty = l.frontier.iter().all(|f| f.count() == 0);
            if empty && l.pending.last_level().is_none() {
                break;
            }
            let timed = traced.start();
            for (side, frontier) in l.frontier.iter().enumerate() {
                record
                    .write(n, side, frontier)
                    .map_err(|source| GenError::Spill {
                        path: record.path().to_path_buf(),
                        source,
                    })?;
            }
            traced.add("levels recorded", timed, || 2);
            for turn in Color::ALL {
                self.tell_level(wdl, &l, turn, n, &mut traced)?;
            }
            let Levels {
                frontier: [_, black],
                next_black,
                ..
            } = &mut l;
            std::mem::swap(black, next_black);
            if progress {
                bar.sweep(n, wdl.decided());
            }
            n = n.checked_add(1).ok_or_else(|| GenError::DistanceTooLong {
                material: name.clone(),
            })?;
        }
        bar.finish();
        traced.print(&format!("sweep by levels in bits of {name}, {n} levels"));
        Ok(())
    }

    /// Every slot's first values from the positions' own moves, into `wdl` and `l`.
    fn first_levels(&self, wdl: &WdlBits, l: &Levels, progress: bool) -> Result<(), GenError> {
        let size = self.index.size();
        let bar = Phase::new(progress, &self.index.material().name(), "init", size * 2);
        par_chunks(size).try_for_each_init(
            || (Node::new(self.index), l.pending.local()),
            |(node, waiting), range| {
                for i in range.clone() {
                    self.first_values(node, i, |side, first| {
                        record_first(wdl, l, waiting, side, i, first)
                    })?;
                }
                bar.inc(2 * (range.end - range.start));
                Ok::<(), GenError>(())
            },
        )?;
        bar.finish();
        Ok(())
    }

    /// The positions waiting for level `n` join its frontier: a win unless a faster one
    /// was found meanwhile, a loss (decided already) always.
    fn release_pending(&self, wdl: &WdlBits, l: &Levels, n: u16) -> Result<(), GenError> {
        let win = n % 2 == 1;
        let taken = l.pending.take(n, |batch| {
            batch.par_iter().for_each(|&(side, slot)| {
                if !win || wdl.decide(side, slot, true) {
                    l.frontier[side].set(slot);
                }
            })
        });
        taken.map_err(|source| GenError::Spill {
            path: l.pending.path().to_path_buf(),
            source,
        })
    }

    /// Tells `turn`'s frontier at level `n` (its predecessors, the other side to move, win
    /// or become candidates), then verifies the candidates. The other side's positions
    /// decided join its frontier of level n + 1, or wait for a later level.
    fn tell_level(
        &self,
        wdl: &WdlBits,
        l: &Levels,
        turn: Color,
        n: u16,
        traced: &mut trace::Totals,
    ) -> Result<(), GenError> {
        let (side, them) = (turn.index(), turn.opponent().index());
        let next = match turn {
            Color::Red => &l.next_black,
            Color::Black => &l.frontier[Color::Red.index()],
        };
        let timed = traced.start();
        let lost = n.is_multiple_of(2);
        l.frontier[side].for_each_one(
            || (Node::new(self.index), Vec::new()),
            |(node, preds), i| {
                self.quiet_predecessors(node, preds, i, turn);
                for &j in preds.iter() {
                    if lost {
                        if wdl.decide(them, j, true) {
                            next.set(j);
                        }
                    } else if wdl.undecided(them, j) && !l.blocked[them].get(j) {
                        l.candidates.set(j);
                    }
                }
            },
        );
        traced.add("frontier told", timed, || l.frontier[side].count());
        l.frontier[side].clear_all();
        if !lost {
            let timed = traced.start();
            l.candidates.try_for_each_one(
                || (Node::new(self.index), l.pending.local()),
                |(node, waiting), j| {
                    self.verify_at_level(wdl, node, waiting, j, turn.opponent(), n, next)
                },
            )?;
            traced.add("candidates verified", timed, || l.candidates.count());
            l.candidates.clear_all();
            l.pending_written()?;
        }
        Ok(())
    }

    /// Decides candidate `j` (`side` to move) as lost if every quiet move of it reaches a
    /// position its opponent wins (in at most `n` plies: every win decided so far), its
    /// loss joining `next` (level n + 1) or waiting for the level its longest capture gives.
    #[allow(clippy::too_many_arguments)]
    fn verify_at_level(
        &self,
        wdl: &WdlBits,
        node: &mut Node,
        waiting: &mut LocalPending,
        j: u64,
        side: Color,
        n: u16,
        next: &Bits,
    ) -> Result<(), GenError> {
        let (me, them) = (side.index(), side.opponent().index());
        if !wdl.undecided(me, j) {
            return Ok(());
        }
        node.load(self.index, j, side);
        let (pos, near) = node.parts_mut();
        let mut captures = MoveList::new();
        // Pseudo-legal moves: an illegal one reaches a slot without a legal position, no
        // escape. Every capture of a candidate loses (one that does not blocks it).
        let escapes = near.any_quiet_move_noting_captures(self.index, pos, &mut captures, |k| {
            !wdl.won_or_illegal(them, k)
        });
        if escapes {
            return Ok(());
        }
        let length = self.loss_length(pos, near.squares(), &captures, n)?;
        if wdl.decide(me, j, false) {
            match length == n + 1 {
                true => {
                    next.set(j);
                }
                false => waiting.push(length, me, j),
            }
        }
        Ok(())
    }
}

/// Records slot `i`'s first value for `side` to move: a mate at level 0, a capture's win or
/// loss waiting for its level.
fn record_first(
    wdl: &WdlBits,
    l: &Levels,
    waiting: &mut LocalPending,
    side: usize,
    i: u64,
    first: First,
) {
    match first {
        First::Marker(cells::ILLEGAL) => wdl.set_illegal(side, i),
        First::Marker(cells::CAN_DRAW) => {
            l.blocked[side].set(i);
        }
        First::Marker(_) => {}
        First::Distance(0) => {
            wdl.decide(side, i, false);
            l.frontier[side].set(i);
        }
        First::Distance(d) if d % 2 == 1 => {
            l.blocked[side].set(i);
            waiting.push(d, side, i);
        }
        First::Distance(d) => {
            wdl.decide(side, i, false);
            waiting.push(d, side, i);
        }
    }
}
