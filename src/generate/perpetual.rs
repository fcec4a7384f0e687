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
//! The sets X, Y and Z are bitmaps over the slots of both sides to move, beside two more
//! computed once per side p: which draws are in check, and which have a move out of the draws
//! that settles them (an *exit*). Moves are generated when needed, never stored: a step of Z's
//! attractor walks the un-moves of the positions that just joined (only checking moves make Z
//! grow backwards), and an opponent-to-move position joins when generating its moves shows
//! that each of them is covered (a check into Z, a quiet move into X): *forward verification*,
//! as in Syzygy's generator, instead of a counter per position. Node ids are the draws' ranks
//! ([`super::draw_index`]), so each bitmap takes a bit per draw: 16 bits a draw, a 4-byte
//! witness per p-to-move draw where it does not raise the set's peak (see [`Fixpoint`]) and
//! 2.5 bits a slot for the ranks. The cells wait on disk through the whole pass: the draws
//! and the wins are read back from the spilled file as bitmaps, which is all the exits need
//! of the set's own values. The graph pass ([`super::perpetual_graph`]) stores the draws' moves in
//! about 90 bytes a draw beside the cells. It pays in time: every round generates moves again.
//!
//! A position p wins this way is stored as `WinByRule` (p to move) or `LossByRule` (the
//! opponent to move): no distance, since p forces the opponent to break the rule rather than
//! mate.

use super::bits::Bits;
use super::cells::{self, Outcomes};
use super::draw_index::DrawIndex;
use super::{GenError, Neighbours, Solver, par_chunks};
use crate::index::{MAX_MEN, MaterialIndex};
use crate::rules::{Color, Position, Role};
use crate::value::Value;
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Positions the rule changed, per side to move: (won by the side to move, lost by it).
pub(crate) type RuleCounts = [(u64, u64); 2];

/// Node flag: p is to move.
pub(crate) const P_TO_MOVE: u8 = 1;
/// Node flag: the side to move is in check (every move into this node is a check).
pub(crate) const CHECKED: u8 = 2;
/// Node flag: some move leaves the draws for a fixed result that settles the node: for a
/// p-to-move node a result p wins, for an opponent-to-move node one p does not win.
pub(crate) const EXIT: u8 = 4;

/// Bytes per draw the fixpoint needs (the values wait on disk meanwhile): its bitmaps and the
/// in-check and exit bitmaps.
pub(crate) const BYTES_PER_DRAW: f64 = (FIXPOINT_BITMAPS + 2) as f64 / 8.0;

/// Bytes per draw the fixpoint's witnesses add where they fit ([`Fixpoint::solve`]): 4 bytes
/// per p-to-move draw, taken as 60% of the draws (KRNKR's first pass: 59%).
pub(crate) const WITNESS_BYTES_PER_DRAW: f64 = 4.0 * 0.6;

/// Bits per draw of the in-check and exit bitmaps, built beside the values.
pub(crate) const FLAG_BITS_PER_DRAW: u64 = 2;

/// Bits per slot (both sides to move together) of the draws' ranks.
pub(crate) const RANK_BITS_PER_SLOT: f64 = 2.0 * super::draw_index::BITS_PER_SLOT;

/// The draws of one side p's game, as the fixpoint sees them. Node ids are below
/// [`DrawGame::id_bound`]; not every id need be a node.
pub(crate) trait DrawGame: Sync {
    /// Every node id is below this.
    fn id_bound(&self) -> u64;
    /// A range of node ids holding every p-to-move node.
    fn p_ids(&self) -> std::ops::Range<u64>;
    /// True if `v` is a node.
    fn is_node(&self, v: u64) -> bool;
    /// [`P_TO_MOVE`], [`CHECKED`] and [`EXIT`] of node `v`.
    fn flags(&self, v: u64) -> u8;
    /// True if `f` holds for some node that node `v` moves to (stops at the first).
    fn any_successor(&self, v: u64, f: impl FnMut(u64) -> bool) -> bool;
    /// The nodes that move into node `v` (repeats allowed), in `out`.
    fn predecessors(&self, v: u64, out: &mut Vec<u64>);
}

/// The nested fixpoint over one side's game.
///
/// Z's attractor starts from its *seeds*, the nodes that join before any checking move is
/// followed: p-to-move nodes with an exit or a quiet move into Y, opponent-to-move nodes
/// without an exit whose every move is quiet and reaches X. They are kept in bitmaps and
/// updated only around the nodes that leave Y or join X. The first step of each round of Y
/// (Y every node) gives the same Z as the round before plus what the new nodes of X add, so
/// that Z (`z_top`) and its p-to-move seeds are grown from round to round rather than
/// computed again. Z itself is never computed from nothing either: a round of X starts it
/// from X and grows it ([`Fixpoint::solve_z_from_x`]); as Y shrinks within the round, Z
/// loses only what depended on the seeds that were cleared ([`Fixpoint::shrink_z`]). So
/// moves are generated only near what changed. Every set of nodes, frontiers included, is a
/// bitmap.
pub(crate) struct Fixpoint<'g, G> {
    game: &'g G,
    x: Bits,
    y: Bits,
    z: Bits,
    /// Z when Y is every node, for the current X.
    z_top: Bits,
    /// p-to-move seeds when Y is `z_top`.
    p_seeds_top: Bits,
    /// p-to-move seeds for the current Y.
    p_seeds: Bits,
    /// Opponent-to-move seeds for the current X.
    opponent_seeds: Bits,
    /// The nodes that just left Y or joined X.
    delta: Bits,
    /// An attractor's current and next steps.
    frontier: Bits,
    next: Bits,
    /// The nodes that joined `z_top` in one round.
    top_joined: Bits,
    /// The p-to-move nodes that stopped being seeds when Y last shrank.
    cleared: Bits,
    /// The nodes of Z that may have lost their support, while Z shrinks.
    suspect: Bits,
    /// Nodes to verify, each once.
    candidates: Bits,
    /// Per node of `p_ids` (empty if the ids do not fit 32 bits): a non-checked node it
    /// moves to quietly, found when it last was a seed ([`NO_WITNESS`] if none is known).
    /// While the witness stays in Y the node stays a seed, without generating its moves.
    witness: Vec<AtomicU32>,
    /// The first id of `p_ids`.
    p_first: u64,
}

/// A witness that names no node.
const NO_WITNESS: u32 = u32::MAX;

/// Bitmaps of [`Fixpoint`], each over the node ids of both sides to move.
pub(crate) const FIXPOINT_BITMAPS: u64 = 14;

impl<'g, G: DrawGame> Fixpoint<'g, G> {
    /// The nodes p wins (a bitmap over node ids). With `witnesses` each p-to-move node keeps
    /// a 4-byte witness ([`Fixpoint::witness`]), which spares move generations; without, the
    /// pass takes two bytes a node.
    pub(crate) fn solve(game: &'g G, witnesses: bool) -> Bits {
        let ids = game.id_bound();
        let f = Fixpoint {
            game,
            x: Bits::new(ids),
            y: Bits::new(ids),
            z: Bits::new(ids),
            z_top: Bits::new(ids),
            p_seeds_top: Bits::new(ids),
            p_seeds: Bits::new(ids),
            opponent_seeds: Bits::new(ids),
            delta: Bits::new(ids),
            frontier: Bits::new(ids),
            next: Bits::new(ids),
            top_joined: Bits::new(ids),
            cleared: Bits::new(ids),
            suspect: Bits::new(ids),
            candidates: Bits::new(ids),
            witness: if witnesses {
                witness_array(game)
            } else {
                vec![]
            },
            p_first: game.p_ids().start,
        };
        f.run();
        f.x
    }

    fn run(&self) {
        if !self.opponent_can_be_forced() {
            return;
        }
        self.start_top();
        // mu X: X grows from the empty set.
        loop {
            // nu Y: Y shrinks from every node; its first step gives `z_top`.
            self.y.copy_from(&self.z_top);
            self.p_seeds.copy_from(&self.p_seeds_top);
            self.solve_z_from_x();
            loop {
                let left = self.delta.assign_and_not(&self.y, &self.z);
                if left == 0 {
                    break;
                }
                self.y.copy_from(&self.z);
                self.recheck_p_seeds(left);
                self.shrink_z();
            }
            if self.delta.assign_and_not(&self.y, &self.x) == 0 {
                return;
            }
            self.x.copy_from(&self.y);
            self.grow_top();
        }
    }

    /// With X empty: Z for Y every node, its opponent seeds, and the p-to-move seeds for Y
    /// that Z.
    fn start_top(&self) {
        self.for_each_node(|v| {
            self.y.set(v);
        });
        self.for_each_node(|v| {
            if self.is_p_seed(v) {
                self.z_top.set(v);
            }
            if self.is_opponent_seed(v) {
                self.opponent_seeds.set(v);
                self.z_top.set(v);
            }
        });
        self.frontier.copy_from(&self.z_top);
        self.attract(&self.z_top, None);
        self.y.copy_from(&self.z_top);
        self.for_each_node(|v| {
            if self.is_p_seed(v) {
                self.p_seeds_top.set(v);
            }
        });
    }

    /// After the nodes in `delta` joined X: the opponent-to-move nodes that move quietly into
    /// one of them may have become seeds, or covered for `z_top`; `z_top` grows from those,
    /// and the p-to-move nodes that move quietly into its new nodes are seeds for Y `z_top`.
    fn grow_top(&self) {
        self.frontier.clear_all();
        self.top_joined.clear_all();
        self.mark_quiet_predecessors_of_delta(|w| self.opponent_seeds.get(w));
        self.candidates.for_each_one(
            || (),
            |_, w| {
                let (covered, seed) = self.cover(w, &self.z_top);
                if seed {
                    self.opponent_seeds.set(w);
                }
                if covered && self.z_top.set(w) {
                    self.frontier.set(w);
                    self.top_joined.set(w);
                }
            },
        );
        self.attract(&self.z_top, Some(&self.top_joined));
        self.top_joined.for_each_one(Vec::new, |preds, d| {
            if self.game.flags(d) & (P_TO_MOVE | CHECKED) != 0 {
                return;
            }
            self.game.predecessors(d, preds);
            for &w in preds.iter() {
                self.p_seeds_top.set(w);
                self.note_witness(w, d);
            }
        });
    }

    /// Calls `f` on every node, in parallel.
    fn for_each_node(&self, f: impl Fn(u64) + Sync) {
        par_chunks(self.game.id_bound()).for_each(|range| {
            for v in range.filter(|&v| self.game.is_node(v)) {
                f(v);
            }
        });
    }

    fn has(&self, v: u64, flag: u8) -> bool {
        self.game.flags(v) & flag != 0
    }

    /// True if some opponent-to-move node cannot move to a node without checking and has no
    /// exit: only then can the opponent be forced to check, so only then can the rule apply.
    fn opponent_can_be_forced(&self) -> bool {
        par_chunks(self.game.id_bound()).any(|range| {
            range.into_iter().any(|v| {
                self.game.is_node(v)
                    && self.game.flags(v) & (P_TO_MOVE | EXIT) == 0
                    && !self.game.any_successor(v, |u| !self.has(u, CHECKED))
            })
        })
    }

    /// True if p-to-move node `v` joins Z at once: it has an exit or a quiet move into Y
    /// (its witness, if that is still in Y, else one found by generating its moves).
    fn is_p_seed(&self, v: u64) -> bool {
        let f = self.game.flags(v);
        if f & P_TO_MOVE == 0 {
            return false;
        }
        if f & EXIT != 0 {
            return true;
        }
        let witness = self.witness.get((v - self.p_first) as usize);
        if let Some(w) = witness.map(|w| w.load(Relaxed))
            && w != NO_WITNESS
            && self.y.get(w as u64)
        {
            return true;
        }
        self.game.any_successor(v, |u| {
            let found = !self.has(u, CHECKED) && self.y.get(u);
            if found && let Some(w) = witness {
                w.store(u as u32, Relaxed);
            }
            found
        })
    }

    /// Records that p-to-move node `v` moves quietly to non-checked node `u`.
    fn note_witness(&self, v: u64, u: u64) {
        if let Some(w) = self.witness.get((v - self.p_first) as usize) {
            w.store(u as u32, Relaxed);
        }
    }

    /// True if opponent-to-move node `v` joins Z at once: it has no exit and every move is
    /// quiet and reaches X.
    fn is_opponent_seed(&self, v: u64) -> bool {
        self.game.flags(v) & (P_TO_MOVE | EXIT) == 0
            && !self
                .game
                .any_successor(v, |u| self.has(u, CHECKED) || !self.x.get(u))
    }

    /// Marks in `candidates` the opponent-to-move nodes that move quietly into a p-to-move
    /// node of `delta` (a node that just joined X), but for those `skip` names: each once,
    /// however many of its moves reach `delta`.
    fn mark_quiet_predecessors_of_delta(&self, skip: impl Fn(u64) -> bool + Sync) {
        self.candidates.clear_all();
        self.delta.for_each_one(Vec::new, |preds, a| {
            if self.game.flags(a) & (P_TO_MOVE | CHECKED) != P_TO_MOVE {
                return;
            }
            self.game.predecessors(a, preds);
            for &w in preds.iter() {
                if !skip(w) {
                    self.candidates.set(w);
                }
            }
        });
    }

    /// For opponent-to-move node `w`, in one move generation: whether each move is covered
    /// (a check into `z` or a quiet move into X, `w` having no exit), and whether `w` is
    /// moreover a seed (every move quiet).
    fn cover(&self, w: u64, z: &Bits) -> (bool, bool) {
        if self.has(w, EXIT) {
            return (false, false);
        }
        let mut all_quiet = true;
        let escapes = self.game.any_successor(w, |u| {
            if self.has(u, CHECKED) {
                all_quiet = false;
                !z.get(u)
            } else {
                !self.x.get(u)
            }
        });
        (!escapes, !escapes && all_quiet)
    }

    /// True if each move of opponent-to-move node `w` is covered: a check into `z` or a
    /// quiet move into X (and `w` has no exit).
    fn every_move_covered(&self, w: u64, z: &Bits) -> bool {
        !self.has(w, EXIT)
            && !self.game.any_successor(w, |u| {
                if self.has(u, CHECKED) {
                    !z.get(u)
                } else {
                    !self.x.get(u)
                }
            })
    }

    /// After the `left` nodes in `delta` left Y: the p-to-move seeds that moved quietly into
    /// one of them are seeds still only if another quiet move reaches Y; those that are not
    /// are marked in `cleared`.
    fn recheck_p_seeds(&self, left: u64) {
        self.cleared.clear_all();
        let recheck = |w: u64| {
            if self.p_seeds.get(w) && !self.is_p_seed(w) {
                self.p_seeds.clear(w);
                self.cleared.set(w);
            }
        };
        // Past one node in sixteen, one look at every seed costs less than the predecessors
        // of every node that left.
        if left > self.game.id_bound() / 16 {
            self.p_seeds.for_each_one(|| (), |_, w| recheck(w));
            return;
        }
        self.delta.for_each_one(Vec::new, |preds, d| {
            if self.game.flags(d) & (P_TO_MOVE | CHECKED) != 0 {
                return;
            }
            self.game.predecessors(d, preds);
            for &w in preds.iter() {
                recheck(w);
            }
        });
    }

    /// Z for the current seeds, from Z for the seeds before some were `cleared` (fewer seeds
    /// give a smaller Z): the nodes of Z that reach a cleared seed by checking moves are
    /// removed as suspects (only checking moves carry Z's support backwards), then each
    /// suspect that still qualifies joins again and the attractor grows from those. What is
    /// left after the removal was derived without the cleared seeds, so it stays; the rest is
    /// derived again (as the "delete and re-derive" of incremental fixpoints).
    fn shrink_z(&self) {
        self.suspect.clear_all();
        self.frontier.clear_all();
        self.cleared.for_each_one(
            || (),
            |_, v| {
                if self.z.get(v) {
                    self.suspect.set(v);
                    self.frontier.set(v);
                }
            },
        );
        self.walk_checks_back(
            |w| {
                let seed = self.p_seeds.get(w) || self.opponent_seeds.get(w);
                self.z.get(w) && !seed && !self.suspect.get(w)
            },
            |w| self.suspect.set(w),
        );
        self.z.assign_and_not(&self.z, &self.suspect);
        self.frontier.clear_all();
        self.suspect.for_each_one(
            || (),
            |_, w| {
                let qualifies = if self.has(w, P_TO_MOVE) {
                    self.game
                        .any_successor(w, |u| self.has(u, CHECKED) && self.z.get(u))
                } else {
                    self.every_move_covered(w, &self.z)
                };
                if qualifies && self.z.set(w) {
                    self.frontier.set(w);
                }
            },
        );
        self.attract(&self.z, None);
    }

    /// Least fixpoint of Z at the start of a round of X, Y being `z_top`, as an attractor:
    /// a move's label depends only on the node it reaches (a check when the side to move
    /// there is in check), so Z grows backwards along checking moves. A p-to-move node joins
    /// when one checking move reaches Z; an opponent-to-move node when forward verification
    /// shows every move covered.
    ///
    /// It starts from X (`delta` holding the nodes that just joined it; none in the first
    /// round): X is the last round's Z, and Z grows with X and with Y (now `z_top`, at least
    /// the last Y), so X stays in Z. The attractor grows only from the seeds not in X and
    /// from the opponent-to-move nodes whose quiet moves into the new nodes of X may now be
    /// covered.
    fn solve_z_from_x(&self) {
        self.z.copy_from(&self.x);
        self.z.or_from(&self.p_seeds);
        self.z.or_from(&self.opponent_seeds);
        self.frontier.assign_and_not(&self.z, &self.x);
        self.mark_quiet_predecessors_of_delta(|w| self.z.get(w));
        self.candidates.for_each_one(
            || (),
            |_, w| {
                if self.every_move_covered(w, &self.z) && self.z.set(w) {
                    self.frontier.set(w);
                }
            },
        );
        self.attract(&self.z, None);
    }

    /// Grows `z` backwards along checking moves from the nodes in `frontier` (already in
    /// `z`) until nothing joins, also marking the nodes that join in `joined`. A node
    /// verified while one of its successors joins in the same step is verified again in the
    /// next, as a predecessor of that successor.
    fn attract(&self, z: &Bits, joined: Option<&Bits>) {
        self.walk_checks_back(
            |w| !z.get(w),
            |w| {
                let joins = self.has(w, P_TO_MOVE) || self.every_move_covered(w, z);
                if joins && z.set(w) {
                    if let Some(j) = joined {
                        j.set(w);
                    }
                    return true;
                }
                false
            },
        );
    }

    /// Walks backwards along checking moves from the nodes in `frontier`, step by step: the
    /// predecessors `w` of the step's checked nodes for which `near(w)` holds are gathered
    /// (each once, in `candidates`), and those for which `reached(w)` then holds (and does
    /// what the walk is for) are the next step, until a step is empty.
    fn walk_checks_back(
        &self,
        near: impl Fn(u64) -> bool + Sync,
        reached: impl Fn(u64) -> bool + Sync,
    ) {
        let (mut current, mut next) = (&self.frontier, &self.next);
        while current.count() > 0 {
            self.candidates.clear_all();
            current.for_each_one(Vec::new, |preds, v| {
                if !self.has(v, CHECKED) {
                    return;
                }
                self.game.predecessors(v, preds);
                for &w in preds.iter() {
                    if near(w) {
                        self.candidates.set(w);
                    }
                }
            });
            next.clear_all();
            self.candidates.for_each_one(
                || (),
                |_, w| {
                    if reached(w) {
                        next.set(w);
                    }
                },
            );
            std::mem::swap(&mut current, &mut next);
        }
    }
}

/// True if the fixpoint's witnesses (4 bytes a p-to-move draw) fit: with its bitmaps they
/// raise neither this set's peak so far nor, if given (not 0), the run's `budget` (always,
/// where the memory in use cannot be read).
fn witnesses_fit(draws: &Draws, budget: u64) -> bool {
    let nodes = draws.ids.count();
    let p_nodes = draws.p_ids().end - draws.p_ids().start;
    let bitmaps = nodes * FIXPOINT_BITMAPS / 8;
    let peak = super::memory::peak_memory();
    let need = super::memory::current_memory() + bitmaps + 4 * p_nodes;
    peak == 0 || need <= peak.max(budget)
}

/// The witness array of `game`'s p-to-move ids (empty if an id does not fit 32 bits).
fn witness_array(game: &impl DrawGame) -> Vec<AtomicU32> {
    let ids = game.p_ids();
    if game.id_bound() >= NO_WITNESS as u64 {
        return vec![];
    }
    (ids.start..ids.end)
        .map(|_| AtomicU32::new(NO_WITNESS))
        .collect()
}

/// The draws of a set being generated, for side p: node ids are the draws' ranks
/// ([`DrawIndex`]), so that every bitmap of the pass takes a bit per draw.
struct Draws<'a> {
    index: &'a MaterialIndex,
    p: Color,
    ids: DrawIndex,
    /// The draws whose side to move is in check.
    checked: Bits,
    /// The draws with an exit.
    exit: Bits,
}

impl<'a> Draws<'a> {
    /// The draws of `outcomes` (the cells read back from disk as bitmaps), with their check
    /// and exit bits; the cells themselves are not read.
    fn new(solver: &Solver<'a>, p: Color, outcomes: [Outcomes; 2]) -> Result<Self, GenError> {
        let [red, black] = outcomes;
        let ids = DrawIndex::from_words([red.draws, black.draws]);
        let wins = [red.wins, black.wins].map(Bits::from_words);
        // None for a draw, else whether the side to move wins.
        let outcome = |side: Color, slot: u64| {
            ids.id(side, slot)
                .is_none()
                .then(|| wins[side.index()].get(slot))
        };
        let checked = Bits::new(ids.count());
        let exit = Bits::new(ids.count());
        for side in Color::ALL {
            par_chunks(solver.index.size()).try_for_each(|range| {
                let mut sq = [0u8; MAX_MEN];
                let sq = &mut sq[..solver.index.layout().len()];
                for i in range {
                    let Some(v) = ids.id(side, i) else {
                        continue;
                    };
                    solver.index.decode_squares(i, sq);
                    let pos = solver.index.position_of(sq, side);
                    let in_check = pos.in_check();
                    if in_check {
                        checked.set(v);
                    }
                    if solver.has_exit(p, &pos, in_check, sq, outcome)? {
                        exit.set(v);
                    }
                }
                Ok::<(), GenError>(())
            })?;
        }
        Ok(Draws {
            index: solver.index,
            p,
            checked,
            exit,
            ids,
        })
    }

    /// Calls `f` with node `v`'s position and its neighbours one piece-move away.
    fn with_position<R>(&self, v: u64, f: impl FnOnce(&Position, &mut Neighbours) -> R) -> R {
        let (side, slot) = self.ids.slot_of(v);
        let index = self.index;
        let mut sq = [0u8; MAX_MEN];
        let sq = &mut sq[..index.layout().len()];
        index.decode_squares(slot, sq);
        let pos = index.position_of(sq, side);
        f(&pos, &mut Neighbours::new(index, sq))
    }
}

impl DrawGame for Draws<'_> {
    fn id_bound(&self) -> u64 {
        self.ids.count()
    }

    fn p_ids(&self) -> std::ops::Range<u64> {
        let first = self.ids.first_of(self.p);
        match self.p {
            Color::Red => first..self.ids.first_of(Color::Black),
            Color::Black => first..self.ids.count(),
        }
    }

    fn is_node(&self, _: u64) -> bool {
        true
    }

    fn flags(&self, v: u64) -> u8 {
        let p_to_move = (v < self.ids.first_of(Color::Black)) == (self.p == Color::Red);
        (p_to_move as u8 * P_TO_MOVE)
            | (self.checked.get(v) as u8 * CHECKED)
            | (self.exit.get(v) as u8 * EXIT)
    }

    fn any_successor(&self, v: u64, mut f: impl FnMut(u64) -> bool) -> bool {
        self.with_position(v, |pos, near| {
            // Pseudo-legal moves are enough: an illegal move leaves the mover in check, an
            // illegal position, which is no draw.
            let next = pos.turn().opponent();
            near.any_quiet_move(self.index, pos, |j| {
                self.ids.id(next, j).is_some_and(&mut f)
            })
        })
    }

    fn predecessors(&self, v: u64, out: &mut Vec<u64>) {
        out.clear();
        self.with_position(v, |pos, near| {
            let prev = pos.turn().opponent();
            let index = self.index;
            pos.for_each_unmove(&[], |um, _| {
                let j = near.slot_after(index, um.mv.to, um.mv.from);
                if let Some(w) = self.ids.id(prev, j) {
                    out.push(w);
                }
            });
        })
    }
}

impl Solver<'_> {
    /// True if some move of draw `pos` (on squares `sq`) leaves the draws for a result that
    /// settles it: one p wins when p is to move, one p does not win otherwise. `outcome`
    /// gives a slot's result in this set: `None` for a draw, else whether its side to move
    /// wins.
    fn has_exit(
        &self,
        p: Color,
        pos: &Position,
        in_check: bool,
        sq: &mut [u8],
        outcome: impl Fn(Color, u64) -> Option<bool>,
    ) -> Result<bool, GenError> {
        let side = pos.turn();
        let next = side.opponent();
        let mut near = Neighbours::new(self.index, sq);
        let mut scratch = pos.clone();
        // Pseudo-legal moves, legality tried only for a move that would be an exit: an
        // illegal quiet move reaches an illegal slot, which is no draw and no win.
        for &mv in pos.pseudo_legal_moves().iter() {
            let exit = if pos.is_capture(mv) {
                scratch.is_pseudo_legal_move_legal(mv, in_check) && {
                    let v = self.capture_value_raw(pos, mv)?.to_stored();
                    self.fixed_win_for(p, next, v) == (side == p)
                }
            } else {
                let j = near.slot_after(self.index, mv.from, mv.to);
                match outcome(next, j) {
                    None => false,
                    Some(next_wins) => {
                        let p_wins = next_wins == (next == p);
                        p_wins == (side == p) && scratch.is_pseudo_legal_move_legal(mv, in_check)
                    }
                }
            };
            if exit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// True if stored value `v` (for `side` to move) is a result p already has.
    pub(super) fn fixed_win_for(&self, p: Color, side: Color, v: u16) -> bool {
        match Value::from_stored(v) {
            Some(val) if side == p => val.is_win(),
            Some(val) => val.is_loss(),
            None => false,
        }
    }

    /// Stores the results of p's pass in the cells spilled to `spill` (they may be many:
    /// KRNKR's rule decides a third of its draws): every node `won` names becomes a win by
    /// the rule with p to move and a loss by it otherwise; adds them to `counts`.
    pub(super) fn mark_rule_results(
        &self,
        p: Color,
        spill: &Path,
        ids: &DrawIndex,
        won: impl Fn(u64) -> bool,
        counts: &mut RuleCounts,
    ) -> Result<(), GenError> {
        for side in Color::ALL {
            let slots = ids
                .ids_of(side)
                .filter(|&v| won(v))
                .map(|v| ids.slot_of(v).1);
            let (marker, count) = if side == p {
                (cells::RULE_WIN, &mut counts[side.index()].0)
            } else {
                (cells::RULE_LOSS, &mut counts[side.index()].1)
            };
            *count += self
                .cells
                .mark_spilled(spill, side.index(), marker, slots)
                .map_err(|source| GenError::Spill {
                    path: spill.to_path_buf(),
                    source,
                })?;
        }
        Ok(())
    }

    /// The sides p whose opponent has a piece that can give check: only for those can the
    /// rule change anything.
    pub(super) fn sides_the_rule_can_favour(&self) -> Vec<Color> {
        let material = self.index.material();
        Color::ALL
            .into_iter()
            .filter(|p| {
                Role::ALL
                    .iter()
                    .any(|&r| r.is_attacker() && material.count(p.opponent(), r) > 0)
            })
            .collect()
    }

    /// Applies the perpetual-check rule to the draws left by the mate search and returns how
    /// many positions (slots) it changed per side to move.
    pub(crate) fn apply_perpetual_rule(
        &mut self,
        spill: &Path,
        budget: u64,
    ) -> Result<RuleCounts, GenError> {
        let mut counts: RuleCounts = [(0, 0); 2];
        for p in self.sides_the_rule_can_favour() {
            // The pass reads no cell: they wait on disk meanwhile, and the draws and wins are
            // read back from there as bitmaps.
            self.spill_cells(spill)?;
            let outcomes =
                self.cells
                    .read_spilled_outcomes(spill)
                    .map_err(|source| GenError::Spill {
                        path: spill.to_path_buf(),
                        source,
                    })?;
            let draws = Draws::new(self, p, outcomes)?;
            let won = Fixpoint::solve(&draws, witnesses_fit(&draws, budget));
            self.mark_rule_results(p, spill, &draws.ids, |v| won.get(v), &mut counts)?;
            drop((won, draws));
            self.restore_cells(spill)?;
        }
        Ok(counts)
    }
}

/// A node of a hand-made game: (p to move, in check, exit, successors).
#[cfg(test)]
pub(super) type HandNode = (bool, bool, bool, Vec<u32>);

/// Hand-made games for the fixpoint's tests, shared with the graph pass's tests: a name, the
/// nodes, and which nodes p must win.
#[cfg(test)]
pub(super) fn hand_made_games() -> Vec<(&'static str, Vec<HandNode>, Vec<bool>)> {
    let quiet_escape = vec![
        (true, true, false, vec![1]),
        (false, false, false, vec![0, 2]),
        (true, false, false, vec![3]),
        (false, false, false, vec![0]),
    ];
    let mut with_exit = quiet_escape.clone();
    with_exit[2].2 = true;
    vec![
        // p quiet (0 -> 1), the opponent checks (1 -> 0), forever: p wins both.
        (
            "the side that must check forever loses",
            vec![(true, true, false, vec![1]), (false, false, false, vec![0])],
            vec![true, true],
        ),
        // Every move of both sides gives check: the highest label seen forever is 1.
        (
            "both sides checking forever is a draw",
            vec![(true, true, false, vec![1]), (false, true, false, vec![0])],
            vec![false, false],
        ),
        // The opponent checks (1 -> 2), p answers quietly (2 -> 3), the opponent makes a
        // quiet move (3 -> 0), p answers quietly (0 -> 1): 一將一閑 is a draw.
        (
            "one check, one quiet move is allowed",
            vec![
                (true, false, false, vec![1]),
                (false, false, false, vec![2]),
                (true, true, false, vec![3]),
                (false, false, false, vec![0]),
            ],
            vec![false; 4],
        ),
        // Node 1 (opponent to move) may check into 0 or move quietly into 2, from where p's
        // only move returns to 1 quietly: the quiet cycle 1 -> 2 -> 1 holds the draw.
        (
            "the opponent escapes when one quiet move holds",
            vec![
                (true, true, false, vec![1]),
                (false, false, false, vec![0, 2]),
                (true, false, false, vec![1]),
            ],
            vec![false; 3],
        ),
        // From 1 the opponent checks into 0 or moves quietly to 2; p's only move from 2 leads
        // to 3, where the opponent must check into 0, and p returns to 1. The lap through 2
        // has one quiet opponent move (allowed): a draw. Once p has a winning way out at 2,
        // the quiet move loses and only checks are left: p wins everywhere.
        ("a quiet escape holds", quiet_escape, vec![false; 4]),
        ("until it loses", with_exit, vec![true; 4]),
        // Without its exit node 1 must check forever; with it (a result p does not win) the
        // opponent escapes.
        (
            "an opponent exit settles the node",
            vec![(true, true, false, vec![1]), (false, false, true, vec![0])],
            vec![false, false],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made game: flags and successors per node, predecessors derived.
    struct HandMade {
        flags: Vec<u8>,
        succ: Vec<Vec<u64>>,
        pred: Vec<Vec<u64>>,
    }

    impl HandMade {
        fn new(nodes: &[HandNode]) -> HandMade {
            let mut pred = vec![vec![]; nodes.len()];
            for (v, node) in nodes.iter().enumerate() {
                for &u in &node.3 {
                    pred[u as usize].push(v as u64);
                }
            }
            HandMade {
                flags: nodes
                    .iter()
                    .map(|&(p, check, exit, _)| {
                        (p as u8 * P_TO_MOVE) | (check as u8 * CHECKED) | (exit as u8 * EXIT)
                    })
                    .collect(),
                succ: nodes
                    .iter()
                    .map(|n| n.3.iter().map(|&u| u as u64).collect())
                    .collect(),
                pred,
            }
        }
    }

    impl DrawGame for HandMade {
        fn id_bound(&self) -> u64 {
            self.flags.len() as u64
        }
        fn p_ids(&self) -> std::ops::Range<u64> {
            0..self.flags.len() as u64
        }
        fn is_node(&self, _: u64) -> bool {
            true
        }
        fn flags(&self, v: u64) -> u8 {
            self.flags[v as usize]
        }
        fn any_successor(&self, v: u64, f: impl FnMut(u64) -> bool) -> bool {
            self.succ[v as usize].iter().copied().any(f)
        }
        fn predecessors(&self, v: u64, out: &mut Vec<u64>) {
            out.clone_from(&self.pred[v as usize]);
        }
    }

    #[test]
    fn the_fixpoint_on_hand_made_games() {
        for (name, nodes, want) in hand_made_games() {
            let game = HandMade::new(&nodes);
            let won = Fixpoint::solve(&game, true);
            let without = Fixpoint::solve(&game, false);
            assert!(
                won.same_as(&without),
                "{name}: the witnesses change nothing"
            );
            let got: Vec<bool> = (0..nodes.len() as u64).map(|v| won.get(v)).collect();
            assert_eq!(got, want, "{name}");
        }
    }
}
