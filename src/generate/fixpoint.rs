//! The perpetual-check rule's game, solved over bitmaps.
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
//! A move's label depends only on the node it reaches (a check when the side to move there is
//! in check), so Z grows backwards along checking moves: a p-to-move node joins when one
//! checking move reaches Z, an opponent-to-move node when generating its moves shows that each
//! is covered (a check into Z, a quiet move into X): *forward verification*, as in Syzygy's
//! generator, instead of a counter per node. Moves are generated when needed, never stored
//! ([`DrawGame`]).
//!
//! # Levels
//!
//! Each round of X computes Y's descending steps, the *levels*: level 0 is Z for Y every node,
//! level i + 1 is Z for Y level i, until two levels are equal; that Y is the next X. When X
//! grows, every level can only grow (the fixpoint is monotone in X and Y), and the least
//! fixpoint that is a level may be computed from the last round's value of that level,
//! adding only what the change brings: the p-to-move nodes that move quietly into the nodes
//! that just joined the level above (new seeds), the opponent-to-move nodes that move quietly
//! into the nodes that just joined X (now perhaps covered), and what the attractor grows from
//! those. So a round costs moves generated near what changed, not a new descent of Y from
//! every node: on KRNKR the tail rounds, where X grows by a few thousand nodes, take 10-100 ms
//! instead of 0.5 s each, and KRNKRA's 35 rounds no longer cost 12-23 s each.
//!
//! Where fewer nodes left Y between the two levels above than joined the level above, a
//! level is instead shrunk from the level above: the nodes that lost their support are
//! removed and re-derived ("delete and re-derive"). The first round has no levels to start
//! from: levels 0 and 1 are found from the nodes' flags (X is empty, so a [`FREE`] p-to-move
//! node is a seed and a free opponent-to-move node is in no level) and the few nodes they
//! leave open, the rest by shrinking. Levels
//! past [`Spend::max_levels`] are not kept: two bitmaps roll past the kept ones, and those
//! levels are shrunk in every round.

use super::bits::Bits;
use super::par_chunks;
use crate::trace;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Node flag: p is to move.
pub(crate) const P_TO_MOVE: u8 = 1;
/// Node flag: the side to move is in check (every move into this node is a check).
pub(crate) const CHECKED: u8 = 2;
/// Node flag: some move leaves the draws for a fixed result that settles the node: for a
/// p-to-move node a result p wins, for an opponent-to-move node one p does not win.
pub(crate) const EXIT: u8 = 4;
/// Node flag: the node has an exit or a quiet move (a move to a non-checked node). A
/// p-to-move node with it is a seed of level 0; an opponent-to-move node with it is in no
/// level while X is empty. Round one tries only the nodes the flags leave open.
pub(crate) const FREE: u8 = 8;

/// Bitmaps of the fixpoint besides its levels, each over the node ids of both sides to move:
/// X, the nodes that just joined it and their quiet predecessors, the opponent's nodes that
/// can move quietly out of X ([`Fixpoint::escapes`]), the nodes that joined the
/// level being grown and the level above (while shrinking: suspects and the nodes that left
/// Y), and a walk's frontier, next step and candidates. The levels take a bitmap each, those
/// kept and two more rolling past them where a round needs more.
pub(crate) const FIXPOINT_BITMAPS: u64 = 9;

/// Levels kept, as planned: KRNKR and KRNKRA take five.
pub(crate) const PLANNED_LEVELS: u64 = 5;

/// The draws of one side p's game, as the fixpoint sees them. Node ids are below
/// [`DrawGame::id_bound`], and every id below it is a node.
pub(crate) trait DrawGame: Sync {
    /// Every node id is below this.
    fn id_bound(&self) -> u64;
    /// A range of node ids holding every p-to-move node.
    fn p_ids(&self) -> std::ops::Range<u64>;
    /// [`P_TO_MOVE`], [`CHECKED`], [`EXIT`] and [`FREE`] of node `v`.
    fn flags(&self, v: u64) -> u8;
    /// True if node `v` has [`CHECKED`]: the hot loops ask only this of the nodes moved
    /// to, so a game may answer it without reading every flag.
    fn is_checked(&self, v: u64) -> bool {
        self.flags(v) & CHECKED != 0
    }
    /// True if node `v` has [`P_TO_MOVE`].
    fn is_p_to_move(&self, v: u64) -> bool {
        self.flags(v) & P_TO_MOVE != 0
    }
    /// True if `f` holds for some node that node `v` moves to (stops at the first).
    fn any_successor(&self, v: u64, f: impl FnMut(u64) -> bool) -> bool;
    /// Notes that node `v` was seen to move into a checked node (for the games played over
    /// the same draws after the fixpoint); by default nothing.
    fn note_check(&self, _v: u64) {}
    /// The nodes that move into node `v` (repeats allowed), in `out`.
    fn predecessors(&self, v: u64, out: &mut Vec<u64>);
}

/// What the fixpoint may spend memory on beyond its bitmaps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spend {
    /// A 4-byte witness per p-to-move node ([`Fixpoint::witness`]).
    pub witnesses: bool,
    /// How many levels are kept from round to round (a bitmap each).
    pub max_levels: usize,
}

/// The nested fixpoint over one side's game.
pub(crate) struct Fixpoint<'g, G> {
    game: &'g G,
    /// X.
    x: Bits,
    /// The nodes that just joined X.
    delta: Bits,
    /// The opponent-to-move nodes, not in X, that move quietly into `delta`.
    delta_preds: Bits,
    /// The opponent-to-move nodes with an exit or a quiet move to a node not in X. None of
    /// them is in any level (that move would have to reach X), so a verification fails at
    /// once for them, without generating moves: on KRNKR, 12 of the 34 million. X only
    /// grows, so a node leaves this set only when a quiet move of its reaches `delta`.
    escapes: Bits,
    /// The levels of the last round that are kept (those of this round as they are found).
    levels: Vec<Bits>,
    /// True if the last round ended within the kept levels: each level past them was that
    /// round's Y, which is X now.
    levels_complete: bool,
    max_levels: usize,
    /// Levels past the kept ones, two at a time (level i in `rolling[i % 2]`).
    rolling: [Option<Bits>; 2],
    /// Growing a level: the nodes that joined it. Shrinking: the suspects.
    joined: Bits,
    /// Growing a level: the nodes that joined the level above. Shrinking: the nodes that
    /// left Y.
    joined_above: Bits,
    walk: Walk,
    /// Per node of `p_ids` (empty if not spent, or if the ids do not fit 32 bits): a
    /// non-checked node it moves to quietly, found when it last was a seed ([`NO_WITNESS`]
    /// if none is known). While the witness stays in Y the node stays a seed, without
    /// generating its moves.
    witness: Vec<AtomicU32>,
    /// The first id of `p_ids`.
    p_first: u64,
}

/// How a level is found from what is known.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Step {
    /// From its value in the last round, adding what the changes bring.
    Grow,
    /// From the level above, removing what depended on the nodes that left Y.
    Shrink,
    /// From X, trying every node of the level above (the first two levels only).
    FromX,
}

/// An attractor's working sets.
struct Walk {
    /// The nodes that joined in the current step.
    frontier: Bits,
    /// The next step's.
    next: Bits,
    /// Nodes to verify, each once.
    candidates: Bits,
}

/// What an attractor's nodes are checked against.
#[derive(Clone, Copy)]
struct Bounds<'a> {
    /// The opponent's nodes that can move quietly out of X ([`Fixpoint::escapes`]).
    escapes: &'a Bits,
    /// A set known to hold every node that can join (every node if `None`): the level above.
    within: Option<&'a Bits>,
}

/// A witness that names no node.
const NO_WITNESS: u32 = u32::MAX;

impl<'g, G: DrawGame> Fixpoint<'g, G> {
    /// The nodes p wins (a bitmap over node ids), spending memory as `spend` allows.
    pub(crate) fn solve(game: &'g G, spend: Spend) -> Bits {
        let ids = game.id_bound();
        if !rule_can_apply(game) {
            return Bits::new(ids);
        }
        let mut f = Fixpoint {
            game,
            x: Bits::new(ids),
            delta: Bits::new(ids),
            delta_preds: Bits::new(ids),
            escapes: initial_escapes(game),
            levels: vec![],
            levels_complete: false,
            max_levels: spend.max_levels,
            rolling: [None, None],
            joined: Bits::new(ids),
            joined_above: Bits::new(ids),
            walk: Walk {
                frontier: Bits::new(ids),
                next: Bits::new(ids),
                candidates: Bits::new(ids),
            },
            witness: if spend.witnesses {
                witness_array(game)
            } else {
                vec![]
            },
            p_first: game.p_ids().start,
        };
        let mut round = 0;
        loop {
            round += 1;
            let step = trace::step("fixpoint round");
            f.descend();
            step.done(|| format!("{round}: X {} (+{})", f.x.count(), f.delta.count()));
            if f.delta.count() == 0 {
                return f.x;
            }
            f.mark_quiet_predecessors_of_delta();
        }
    }

    /// One round of X: Y's levels for the current X, until two are equal; then X becomes Y,
    /// and `delta` holds the nodes that joined it.
    fn descend(&mut self) {
        let mut growing = true;
        for i in 0.. {
            let step = self.step_for(i, growing);
            growing = step == Step::Grow;
            self.make_room(i, step);
            if i == 0 && step != Step::Grow {
                // Growing level 0 brings `escapes` up to date on the way.
                self.close_escapes_into_delta();
            }
            let timed = trace::step("fixpoint level");
            match step {
                Step::Grow => self.grow_level(i),
                Step::Shrink => self.shrink_level(i),
                Step::FromX => self.level_from_x(i),
            }
            timed.done(|| format!("{i} {step:?}: {}", self.level(i).count()));
            if i > 0 && self.level(i).count() == self.level(i - 1).count() {
                self.end_round(i);
                return;
            }
        }
    }

    /// How to find level `i`: grown while the last round's values and the level above's new
    /// nodes are known and fewer nodes joined the level above than left Y (each costs about
    /// the same); else shrunk from the level above, or the first two from X (shrinking level
    /// 1 from level 0 costs twice as much on KRNKR: most of level 0 is lost).
    fn step_for(&self, i: usize, growing: bool) -> Step {
        let known = i < self.levels.len() || self.levels_complete && i < self.max_levels;
        // Levels nest, so the draws that left Y are the difference of the levels' sizes.
        let left = |i: usize| self.level(i - 2).count() - self.level(i - 1).count();
        if growing && known && (i < 2 || left(i) >= self.joined.count()) {
            Step::Grow
        } else if i < 2 {
            Step::FromX
        } else {
            Step::Shrink
        }
    }

    /// Leaves in `joined_above` the nodes that left Y between the two levels above level
    /// `i` (at least 2).
    fn left_y(&self, i: usize) {
        self.joined_above
            .assign_and_not(self.level(i - 2), self.level(i - 1));
    }

    /// Level `i`'s bitmap, kept or rolling.
    fn level(&self, i: usize) -> &Bits {
        match self.levels.get(i) {
            Some(level) if i < self.max_levels => level,
            _ => self.rolling[i % 2]
                .as_ref()
                .expect("a rolling level in use"),
        }
    }

    /// Makes level `i`'s bitmap ready for `step`: growing needs the last round's value (the
    /// last round's Y, which is X, past the kept levels); shrinking needs the nodes that left
    /// Y in `joined_above` ([`Fixpoint::left_y`]), and starts from the level above.
    fn make_room(&mut self, i: usize, step: Step) {
        let ids = self.game.id_bound();
        if step == Step::Shrink {
            self.left_y(i);
        }
        if i < self.max_levels {
            if i == self.levels.len() {
                let level = Bits::new(ids);
                if step == Step::Grow {
                    level.copy_from(&self.x);
                }
                self.levels.push(level);
            }
        } else if self.rolling[i % 2].is_none() {
            self.rolling[i % 2] = Some(Bits::new(ids));
        }
        if step == Step::Shrink {
            self.level(i).copy_from(self.level(i - 1));
        }
    }

    /// Y is level `i`, equal to the level above: it becomes X. The levels above it are kept
    /// (those this round found within `max_levels`); the rolling ones are dropped.
    fn end_round(&mut self, i: usize) {
        let y = self.level(i);
        self.delta.assign_and_not(y, &self.x);
        self.x.copy_from(y);
        self.levels.truncate(i.min(self.max_levels));
        self.levels_complete = i <= self.max_levels;
        self.rolling = [None, None];
    }

    /// Grows level `i` from its value in the last round, for the current X and the level
    /// above (whose new nodes are in `joined`; none for level 0, below every node): the
    /// p-to-move nodes that move quietly into the level above's new nodes join, the
    /// opponent-to-move nodes of `delta_preds` join if every move is covered, and the
    /// attractor grows from them. Leaves this level's new nodes in `joined`.
    fn grow_level(&mut self, i: usize) {
        std::mem::swap(&mut self.joined, &mut self.joined_above);
        self.joined.clear_all();
        if i == 0 {
            self.joined_above.clear_all();
        }
        let (z, joined, frontier) = (self.level(i), &self.joined, &self.walk.frontier);
        // A level is within the level above.
        let bounds = Bounds {
            escapes: &self.escapes,
            within: i.checked_sub(1).map(|above| self.level(above)),
        };
        frontier.clear_all();
        self.for_each_quiet_predecessor(&self.joined_above, P_TO_MOVE, |w| {
            if z.set(w) {
                frontier.set(w);
                joined.set(w);
            }
        });
        self.delta_preds.for_each_one(
            || (),
            |_, w| {
                let covered = match i {
                    0 => self.covered_closing_escape(w, z),
                    _ => {
                        let within = bounds.within.is_none_or(|above| above.get(w));
                        !z.get(w) && within && self.every_move_covered(w, z)
                    }
                };
                if covered && z.set(w) {
                    frontier.set(w);
                    joined.set(w);
                }
            },
        );
        attract(self.game, &self.walk, z, bounds, Some(joined));
    }

    /// Shrinks level `i` (which starts as the level above, Z for the Y before) to Z for Y
    /// the level above, the nodes that left Y being in `joined_above`: the p-to-move nodes of
    /// Z that moved quietly into one of them and are no longer seeds are suspects, and so is
    /// every node of Z but seeds whose checking move reaches a suspect (only checking moves
    /// carry Z's support backwards). The suspects are removed; each that still qualifies
    /// joins again and the attractor grows from those. What was left was derived without
    /// the suspects, so it stays: the "delete and re-derive" of incremental fixpoints.
    fn shrink_level(&self, i: usize) {
        let (y, z, suspect) = (self.level(i - 1), self.level(i), &self.joined);
        let frontier = &self.walk.frontier;
        suspect.clear_all();
        self.for_each_quiet_predecessor(&self.joined_above, P_TO_MOVE, |w| {
            if z.get(w) && !suspect.get(w) && !self.is_p_seed(w, Some(y)) {
                suspect.set(w);
            }
        });
        frontier.copy_from(suspect);
        // An opponent-to-move node reached by a checking move is no seed.
        walk_checks_back(
            self.game,
            &self.walk,
            |w| z.get(w) && !suspect.get(w) && !self.is_p_seed(w, Some(y)),
            |w| suspect.set(w),
        );
        z.and_not_from(suspect);
        frontier.clear_all();
        suspect.for_each_one(
            || (),
            |_, w| {
                if self.supported(w, z) && z.set(w) {
                    frontier.set(w);
                }
            },
        );
        let bounds = Bounds {
            escapes: &self.escapes,
            within: Some(y),
        };
        attract(self.game, &self.walk, z, bounds, None);
    }

    /// Level `i` (0 or 1: Z for Y every node, or for level 0) from X: every node of the
    /// level above is tried, or in the first round (X empty) only those the flags leave open.
    fn level_from_x(&self, i: usize) {
        if self.x.count() == 0 {
            return self.level_from_nothing(i);
        }
        let z = self.level(i);
        let y = i.checked_sub(1).map(|above| self.level(above));
        z.copy_from(&self.x);
        let frontier = &self.walk.frontier;
        frontier.clear_all();
        for_each_node(self.game, |v| {
            // A level is within the level above.
            if z.get(v) || y.is_some_and(|y| !y.get(v)) {
                return;
            }
            if (self.is_p_seed(v, y) || self.supported(v, z)) && z.set(v) {
                frontier.set(v);
            }
        });
        let bounds = Bounds {
            escapes: &self.escapes,
            within: y,
        };
        attract(self.game, &self.walk, z, bounds, None);
    }

    /// Level `i` (0 or 1) while X is empty, without generating moves where the flags tell:
    /// an opponent-to-move node with a quiet move is in no level (that move would have to
    /// reach X); of level 0 the p-to-move nodes with [`FREE`] are the seeds; of level 1 those
    /// with an exit and those that move quietly into one of level 0's non-checked nodes
    /// (opponent-to-move, so without quiet moves: few) are. The rest join by the attractor.
    fn level_from_nothing(&self, i: usize) {
        let z = self.level(i);
        let y = i.checked_sub(1).map(|above| self.level(above));
        z.clear_all();
        let frontier = &self.walk.frontier;
        frontier.clear_all();
        let join = |v: u64| {
            if z.set(v) {
                frontier.set(v);
            }
        };
        let try_node = |v: u64| {
            let f = self.game.flags(v);
            if f & P_TO_MOVE == 0 {
                if f & FREE == 0 && self.every_move_covered(v, z) {
                    join(v);
                }
            } else if f & EXIT != 0 || y.is_none() && f & FREE != 0 {
                join(v);
            }
        };
        match y {
            None => for_each_node(self.game, try_node),
            Some(y) => {
                y.for_each_one(|| (), |_, v| try_node(v));
                self.for_each_quiet_predecessor(y, P_TO_MOVE, |w| {
                    if y.get(w) {
                        join(w);
                    }
                });
            }
        }
        let bounds = Bounds {
            escapes: &self.escapes,
            within: y,
        };
        attract(self.game, &self.walk, z, bounds, None);
    }

    /// True if node `w` belongs in `z` by a move into it: for a p-to-move node a check into
    /// `z`, for an opponent-to-move node each move covered.
    fn supported(&self, w: u64, z: &Bits) -> bool {
        if self.game.is_p_to_move(w) {
            self.game
                .any_successor(w, |u| self.game.is_checked(u) && z.get(u))
        } else {
            self.every_move_covered(w, z)
        }
    }

    /// True if p-to-move node `v` joins Z at once (a *seed*): it has an exit or a quiet move
    /// into Y (`y`, every node if `None`): its witness, if that is still in Y, else one found
    /// by generating its moves.
    fn is_p_seed(&self, v: u64, y: Option<&Bits>) -> bool {
        let f = self.game.flags(v);
        if f & P_TO_MOVE == 0 {
            return false;
        }
        if f & EXIT != 0 {
            return true;
        }
        let in_y = |u: u64| y.is_none_or(|y| y.get(u));
        let witness = self.witness.get((v - self.p_first) as usize);
        if let Some(w) = witness.map(|w| w.load(Relaxed))
            && w != NO_WITNESS
            && in_y(w as u64)
        {
            return true;
        }
        self.game.any_successor(v, |u| {
            let found = !self.game.is_checked(u) && in_y(u);
            if found && let Some(w) = witness {
                w.store(u as u32, Relaxed);
            }
            found
        })
    }

    /// Marks in `delta_preds` the opponent-to-move nodes not in X that move quietly into a
    /// p-to-move node of `delta`.
    fn mark_quiet_predecessors_of_delta(&self) {
        self.delta_preds.clear_all();
        self.for_each_quiet_predecessor(&self.delta, 0, |w| {
            if !self.x.get(w) {
                self.delta_preds.set(w);
            }
        });
    }

    /// Calls `f` (in parallel) on each predecessor of the non-checked nodes of `of` whose
    /// [`P_TO_MOVE`] flag is not `mover`'s: the nodes with that flag that move quietly into
    /// one of them (repeats allowed).
    fn for_each_quiet_predecessor(&self, of: &Bits, mover: u8, f: impl Fn(u64) + Sync) {
        of.for_each_one(Vec::new, |preds, d| {
            if self.game.is_checked(d) || self.game.is_p_to_move(d) == (mover == P_TO_MOVE) {
                return;
            }
            self.game.predecessors(d, preds);
            preds.iter().for_each(|&w| f(w));
        });
    }

    /// Takes out of `escapes` the nodes of `delta_preds` whose every quiet move now
    /// reaches X (and that have no exit).
    fn close_escapes_into_delta(&self) {
        self.delta_preds.for_each_one(
            || (),
            |_, w| {
                self.covered_closing_escape(w, &self.x);
            },
        );
    }

    /// For a node of `delta_preds`, whose last quiet move out of X may just have closed:
    /// takes it out of `escapes` if so, and returns whether each of its moves is covered for
    /// `z`, in one pass over its moves (it stops at the first quiet move out of X).
    fn covered_closing_escape(&self, w: u64, z: &Bits) -> bool {
        let (game, x) = (self.game, &self.x);
        if !self.escapes.get(w) {
            return self.every_move_covered(w, z);
        }
        if game.flags(w) & EXIT != 0 {
            return false;
        }
        let (mut covered, mut check) = (true, false);
        let escapes = game.any_successor(w, |u| match game.is_checked(u) {
            true => {
                (covered, check) = (covered && z.get(u), true);
                false
            }
            false => !x.get(u),
        });
        if check {
            game.note_check(w);
        }
        if escapes {
            return false;
        }
        self.escapes.clear(w);
        covered
    }

    /// True if each move of opponent-to-move node `w` is covered: a check into `z` or a
    /// quiet move into X (and `w` has no exit).
    fn every_move_covered(&self, w: u64, z: &Bits) -> bool {
        every_move_covered(self.game, w, z, &self.escapes)
    }
}

/// The opponent-to-move nodes that can move quietly out of X while X is empty: those with
/// [`FREE`].
fn initial_escapes(game: &impl DrawGame) -> Bits {
    let escapes = Bits::new(game.id_bound());
    for_each_node(game, |v| {
        if game.flags(v) & (P_TO_MOVE | FREE) == FREE {
            escapes.set(v);
        }
    });
    escapes
}

/// True if each move of opponent-to-move node `w` is covered: a check into `z` or a quiet
/// move into X, and `w` has no exit. `escapes` holds the nodes with an exit or a quiet move
/// out of X ([`Fixpoint::escapes`]), so only the checks need generating moves.
fn every_move_covered(game: &impl DrawGame, w: u64, z: &Bits, escapes: &Bits) -> bool {
    if escapes.get(w) {
        return false;
    }
    let mut check = false;
    let blocked = game.any_successor(w, |u| {
        let checks = game.is_checked(u);
        check |= checks;
        checks && !z.get(u)
    });
    if check {
        game.note_check(w);
    }
    !blocked
}

/// Grows `z` backwards along checking moves from the nodes in `walk`'s frontier (already in
/// `z`) until nothing joins, also marking the nodes that join in `joined`. A p-to-move node
/// joins when one checking move reaches `z`; an opponent-to-move node when each move is
/// covered. Only nodes `bounds` allows are tried. A node verified while one of its successors
/// joins in the same step is verified again in the next, as a predecessor of that successor.
fn attract(game: &impl DrawGame, walk: &Walk, z: &Bits, bounds: Bounds, joined: Option<&Bits>) {
    let Bounds { escapes, within } = bounds;
    walk_checks_back(
        game,
        walk,
        |w| !z.get(w) && within.is_none_or(|within| within.get(w)),
        |w| {
            let joins = game.is_p_to_move(w) || every_move_covered(game, w, z, escapes);
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

/// Walks backwards along checking moves from the nodes in `walk`'s frontier, step by step:
/// the predecessors `w` of the step's checked nodes for which `near(w)` holds are gathered
/// (each once, in the walk's candidates), and those for which `reached(w)` then holds (and
/// does what the walk is for) are the next step, until a step is empty.
fn walk_checks_back(
    game: &impl DrawGame,
    walk: &Walk,
    near: impl Fn(u64) -> bool + Sync,
    reached: impl Fn(u64) -> bool + Sync,
) {
    let (mut current, mut next) = (&walk.frontier, &walk.next);
    while current.count() > 0 {
        walk.candidates.clear_all();
        current.for_each_one(Vec::new, |preds, v| {
            if !game.is_checked(v) {
                return;
            }
            game.predecessors(v, preds);
            for &w in preds.iter() {
                if near(w) {
                    walk.candidates.set(w);
                }
            }
        });
        next.clear_all();
        walk.candidates.for_each_one(
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

/// Calls `f` on every node of `game`, in parallel.
fn for_each_node<G: DrawGame>(game: &G, f: impl Fn(u64) + Sync) {
    par_chunks(game.id_bound()).for_each(|range| {
        for v in range {
            f(v);
        }
    });
}

/// True if some opponent-to-move node cannot move to a node without checking and has no
/// exit, or some p-to-move node has an exit (in a table: a capture into a sub-table's win by
/// the rule): only then can p win anything.
fn rule_can_apply(game: &impl DrawGame) -> bool {
    par_chunks(game.id_bound()).any(|range| {
        range.into_iter().any(|v| {
            let f = game.flags(v);
            f & (P_TO_MOVE | EXIT) == P_TO_MOVE | EXIT || f & (P_TO_MOVE | FREE) == 0
        })
    })
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

/// The fixpoint as written, `mu X. nu Y. mu Z. Pre(3 -> X, 2 -> Y, 1 -> Z)`, each set
/// iterated from its start over every node: the oracle for [`Fixpoint`] and the graph pass.
#[cfg(test)]
pub(super) fn textbook(nodes: &[HandNode]) -> Vec<bool> {
    let n = nodes.len();
    let pre = |v: usize, x: &[bool], y: &[bool], z: &[bool]| {
        let (p_to_move, _, exit, succ) = &nodes[v];
        // The set the move into u needs, by its label.
        let set_of = |u: usize| {
            if nodes[u].1 {
                z[u]
            } else if *p_to_move {
                y[u]
            } else {
                x[u]
            }
        };
        let mut succ = succ.iter().map(|&u| u as usize);
        if *p_to_move {
            *exit || succ.any(set_of)
        } else {
            !*exit && succ.all(set_of)
        }
    };
    let mut x = vec![false; n];
    loop {
        let mut y = vec![true; n];
        loop {
            let mut z = vec![false; n];
            loop {
                let next: Vec<bool> = (0..n).map(|v| pre(v, &x, &y, &z)).collect();
                if next == z {
                    break;
                }
                z = next;
            }
            if z == y {
                break;
            }
            y = z;
        }
        if y == x {
            return x;
        }
        x = y;
    }
}

/// A game of `n` nodes from `bits`: p moves from the even nodes, the opponent from the
/// odd; each node is in check or has an exit by its bits, with up to three moves.
#[cfg(test)]
pub(super) fn random_game(n: usize, bits: &[u32]) -> Vec<HandNode> {
    (0..n)
        .map(|v| {
            let b = bits[v];
            let moves = (b >> 4) % 4;
            let succ = (0..moves)
                .map(|k| {
                    let u = (b >> (8 + 6 * k)) as usize % n;
                    // To the other side's node next to u.
                    (u - u % 2 + (1 - v % 2)) as u32 % n as u32
                })
                .collect();
            (v % 2 == 0, b % 5 < 2, b % 16 == 15, succ)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Everything spent.
    const ALL: Spend = Spend {
        witnesses: true,
        max_levels: 16,
    };

    /// Less: no witnesses, levels computed from X past the first few or all.
    const SPENDS: [Spend; 4] = [
        Spend {
            witnesses: false,
            max_levels: 16,
        },
        Spend {
            witnesses: true,
            max_levels: 0,
        },
        Spend {
            witnesses: false,
            max_levels: 1,
        },
        Spend {
            witnesses: true,
            max_levels: 2,
        },
    ];

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
                    .map(|(p, check, exit, succ)| {
                        let quiet = succ.iter().any(|&u| !nodes[u as usize].1);
                        (*p as u8 * P_TO_MOVE)
                            | (*check as u8 * CHECKED)
                            | (*exit as u8 * EXIT)
                            | ((*exit || quiet) as u8 * FREE)
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
            let won = Fixpoint::solve(&game, ALL);
            for spend in SPENDS {
                let other = Fixpoint::solve(&game, spend);
                assert!(other.same_as(&won), "{name}: {spend:?} changes nothing");
            }
            let got: Vec<bool> = (0..nodes.len() as u64).map(|v| won.get(v)).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    proptest! {
        #[test]
        fn the_fixpoint_agrees_with_the_textbook(bits in prop::collection::vec(any::<u32>(), 2..60)) {
            let n = bits.len() - bits.len() % 2;
            let nodes = random_game(n, &bits);
            let want = textbook(&nodes);
            let game = HandMade::new(&nodes);
            for spend in std::iter::once(ALL).chain(SPENDS) {
                let won = Fixpoint::solve(&game, spend);
                let got: Vec<bool> = (0..n as u64).map(|v| won.get(v)).collect();
                prop_assert_eq!(&got, &want, "{:?}", spend);
            }
        }
    }
}
