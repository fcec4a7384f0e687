//! The `asian` rule set's perpetual-check rule (長將), applied to the draws of the mate search.
//!
//! Only plain draws can change: a forced mate stays a mate. For each side p whose opponent has
//! a piece that can give check, the draws form a game ([`Draws`]) whose solution
//! ([`super::fixpoint`]) is the draws p wins by the rule. Moves out of the draw region lead to
//! fixed results (plain wins and losses, captures into sub-tables generated under the same
//! rule set), which settle a draw that has such an *exit*.
//!
//! Node ids are the draws' ranks ([`super::draw_index`]), so each of the fixpoint's bitmaps
//! takes a bit per draw, beside two more computed once per side p: which draws are in check,
//! and which have an exit. The ranks take 2.5 bits a slot. The cells wait on disk through the
//! whole pass: the draws and the wins are read back from the spilled file as bitmaps, which is
//! all the exits need of the set's own values. The graph pass ([`super::perpetual_graph`])
//! stores the draws' moves in up to 170 bytes a draw beside the cells instead.
//!
//! A position p wins this way is stored as `WinByRule` (p to move) or `LossByRule` (the
//! opponent to move): no distance, since p forces the opponent to break the rule rather than
//! mate.

use super::bits::Bits;
use super::cells::{self, Outcomes};
use super::draw_index::DrawIndex;
use super::fixpoint::{
    CHECKED, DrawGame, EXIT, FIXPOINT_BITMAPS, FREE, Fixpoint, P_TO_MOVE, PLANNED_LEVELS, Spend,
};
use super::parity::{self, RuleGame};
use super::{GenError, Neighbours, Node, Solver, node, par_chunks};
use crate::index::MaterialIndex;
use crate::rules::{Color, MoveAttack, Position, Role};
use crate::trace;
use crate::value::{Rule, Value};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;

/// Positions the rule changed, per side to move: (won by the side to move, lost by it).
pub(crate) type RuleCounts = [(u64, u64); 2];

/// Bits per draw of the in-check, exit and free bitmaps, built beside the values.
pub(crate) const FLAG_BITS_PER_DRAW: u64 = 3;

/// Bits per slot (both sides to move together) of the draws' ranks.
pub(crate) const RANK_BITS_PER_SLOT: f64 = 2.0 * super::draw_index::BITS_PER_SLOT;

/// Bytes per draw the fixpoint needs as planned (the values wait on disk meanwhile): its
/// bitmaps with [`PLANNED_LEVELS`] levels, and the in-check and exit bitmaps.
pub(crate) const BYTES_PER_DRAW: f64 =
    (FIXPOINT_BITMAPS + PLANNED_LEVELS + FLAG_BITS_PER_DRAW) as f64 / 8.0;

/// Bytes per draw the 棋例's game needs ([`parity::solve`], as [`rule_wins`] calls it): its
/// bitmaps at the deepest point of its recursion, [`parity::SOLVER_BITMAPS`], three more
/// [`rule_wins`] keeps (the wins by each rule), and the flags.
pub(crate) const PARITY_BYTES_PER_DRAW: f64 =
    (parity::SOLVER_BITMAPS + 3 + FLAG_BITS_PER_DRAW) as f64 / 8.0;

/// Bytes per draw the fixpoint's witnesses add where they fit ([`Spend::witnesses`]): 4
/// bytes per p-to-move draw, taken as 60% of the draws (KRNKR's first pass: 59%).
pub(crate) const WITNESS_BYTES_PER_DRAW: f64 = 4.0 * 0.6;

/// Most levels the fixpoint keeps: more than any set measured needs.
const MOST_LEVELS: u64 = 16;

/// What the fixpoint may spend beyond its bitmaps without raising this set's peak so far or,
/// if given (not 0), the run's `budget`: as many levels as fit (each spares a descent from X
/// in every round) with room for the two that roll past them, and at least the
/// [`PLANNED_LEVELS`] the memory model counts (without them every round descends Y from X
/// anew: KCPKN's 13 rounds took 7 s each, its fixpoint 85 s), then the witnesses if they
/// still fit. Everything, where the memory in use cannot be read.
fn spend_for(draws: &Draws, budget: u64) -> Spend {
    let bitmap = draws.ids.count().div_ceil(8).max(1);
    let p_nodes = draws.p_ids().end - draws.p_ids().start;
    let peak = super::memory::peak_memory();
    if peak == 0 {
        return Spend {
            witnesses: true,
            max_levels: MOST_LEVELS as usize,
        };
    }
    let need = super::memory::current_memory() + (FIXPOINT_BITMAPS + 2) * bitmap;
    let room = peak.max(budget).saturating_sub(need);
    let levels = (room / bitmap).clamp(PLANNED_LEVELS, MOST_LEVELS);
    Spend {
        witnesses: 4 * p_nodes <= room.saturating_sub(levels * bitmap),
        max_levels: levels as usize,
    }
}

/// What a draw's moves do for p's game and, if asked, for the opponent's
/// ([`Solver::draw_moves`]).
struct DrawMoves {
    /// A move leaves the draws for a result that settles the draw in p's game.
    exit: bool,
    /// The same in the opponent's game (false unless asked for).
    other_exit: bool,
    /// A move reaches a draw without giving check (not looked for past the exits sought).
    quiet: bool,
}

/// Bits per draw of the opponent's exit and free bitmaps, which the first side's pass builds
/// beside its own where a set has at most [`OTHER_FLAGS_MOST_SLOTS`] slots a side: where
/// that side's rule decides nothing, the other side's pass starts from them and the same
/// ranks instead of ranking and scanning the draws again. Such sets also keep the checks
/// seen ([`Draws::checks_seen`]), a bit more.
pub(crate) const OTHER_FLAG_BITS_PER_DRAW: u64 = 3;

/// About how many draws' flags are found again per node the first side's rule decided, if
/// the other side's draws are derived from the first's ([`Draws::without`]: each decided
/// node's predecessors, then each of theirs scanned again): past it, the other side's draws
/// are ranked and scanned anew.
const REDO_COST: u64 = 16;

/// True if the other side's draws are best derived from the first side's
/// ([`Draws::without`]) where its rule decided `decided` draws and left `left`.
fn derive_the_other_side(decided: u64, left: u64) -> bool {
    #[cfg(test)]
    match tests::DERIVE.load(std::sync::atomic::Ordering::Relaxed) {
        tests::ALWAYS | tests::SYNTHETIC => return true,
        tests::NEVER => return false,
        _ => {}
    }
    decided.saturating_mul(REDO_COST) < left
}

/// Slots a side past which the other side's flags are not built with the first side's (2
/// bits a draw: KRNKRAB's would raise its peak past 2 GiB).
pub(crate) const OTHER_FLAGS_MOST_SLOTS: u64 = super::memory::MOST_SLOTS_ONE_SIDE_DTM;

/// The draws' ids (ranks) and the wins for the side to move, from the cells read back as
/// bitmaps.
fn ranked(outcomes: [Outcomes; 2]) -> (DrawIndex, [Bits; 2]) {
    let [red, black] = outcomes;
    let ids = DrawIndex::from_words([red.draws, black.draws]);
    (ids, [red.wins, black.wins].map(Bits::from_words))
}

/// The result of `slot` (`side` to move) in this set: `None` for a draw, else whether the
/// side to move wins.
fn outcome_of(ids: &DrawIndex, wins: &[Bits; 2], side: Color, slot: u64) -> Option<bool> {
    ids.id(side, slot)
        .is_none()
        .then(|| wins[side.index()].get(slot))
}

/// Sets draw `v`'s bits in `[exit, free]`: free if it has an exit or a quiet move.
fn set_flags([exit, free]: [&Bits; 2], v: u64, has_exit: bool, quiet: bool) {
    if has_exit {
        exit.set(v);
    }
    if has_exit || quiet {
        free.set(v);
    }
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
    /// The draws with an exit or a quiet move ([`FREE`]).
    free: Bits,
    /// The draws seen to move into a checked draw while their moves were generated (by the
    /// fixpoint's verifications above all): in the game of chases alone such a check is an
    /// idle move of the opponent ([`RuleGame::surely_idles`]). Kept where the other side's
    /// flags are ([`OTHER_FLAGS_MOST_SLOTS`]): larger sets' peaks stay where they were.
    checks_seen: Option<Bits>,
    /// The opponent's game's `exit` and `free`, where they were built with p's.
    other: Option<[Bits; 2]>,
    /// True if chases are told apart from idle moves (the 棋例's full rules), else only
    /// checks count.
    chases: bool,
}

impl<'a> Draws<'a> {
    /// The draws of `outcomes` (the cells read back from disk as bitmaps), with their check,
    /// exit and free bits, and with `other_flags` the opponent's game's exit and free bits
    /// too ([`Draws::for_other_side`]); the cells themselves are not read.
    fn new(
        solver: &Solver<'a>,
        p: Color,
        outcomes: [Outcomes; 2],
        other_flags: bool,
    ) -> Result<Self, GenError> {
        let (ids, wins) = ranked(outcomes);
        let outcome = |side, slot| outcome_of(&ids, &wins, side, slot);
        let checked = Bits::new(ids.count());
        let exit = Bits::new(ids.count());
        let free = Bits::new(ids.count());
        let other = other_flags.then(|| [Bits::new(ids.count()), Bits::new(ids.count())]);
        for side in Color::ALL {
            par_chunks(solver.index.size()).try_for_each_init(
                || Node::new(solver.index),
                |node, range| {
                    for i in range {
                        let Some(v) = ids.id(side, i) else {
                            continue;
                        };
                        let (in_check, moves) =
                            solver.draw_flags(p, other_flags, side, i, node, outcome)?;
                        if in_check {
                            checked.set(v);
                        }
                        set_flags([&exit, &free], v, moves.exit, moves.quiet);
                        if let Some([other_exit, other_free]) = &other {
                            set_flags([other_exit, other_free], v, moves.other_exit, moves.quiet);
                        }
                    }
                    Ok::<(), GenError>(())
                },
            )?;
        }
        Ok(Draws {
            index: solver.index,
            p,
            checks_seen: (solver.index.size() <= OTHER_FLAGS_MOST_SLOTS)
                .then(|| Bits::new(ids.count())),
            checked,
            exit,
            free,
            other,
            ids,
            chases: false,
        })
    }

    /// The same draws as the opponent's game sees them, if their flags were built with p's
    /// ([`Draws::new`]): right only while the draws are unchanged, so only where p's rule
    /// decided nothing.
    fn for_other_side(self) -> Option<Self> {
        let [exit, free] = self.other?;
        Some(Draws {
            p: self.p.opponent(),
            exit,
            free,
            other: None,
            ..self
        })
    }

    /// The draws left when the nodes of `decided` (p's wins by the rule) leave them, as the
    /// opponent's game sees them, or `None` if its flags were not built with p's
    /// ([`Draws::new`]). `outcomes` are the cells read back once p's results were marked.
    /// Only a draw with a move into a decided node may have gained an exit or lost its
    /// quiet moves: those draws' flags are found again, the others' carried over.
    fn without(
        self,
        decided: &Bits,
        solver: &Solver<'a>,
        outcomes: [Outcomes; 2],
    ) -> Result<Option<Self>, GenError> {
        let Some([other_exit, other_free]) = &self.other else {
            return Ok(None);
        };
        let redo = Bits::new(self.ids.count());
        decided.for_each_one(Vec::new, |preds, v| {
            DrawGame::predecessors(&self, v, preds);
            for &w in preds.iter() {
                if !decided.get(w) {
                    redo.set(w);
                }
            }
        });
        let (ids, wins) = ranked(outcomes);
        let n = ids.count();
        debug_assert_eq!(n + decided.count(), self.ids.count());
        let [checked, exit, free, again] = std::array::from_fn(|_| Bits::new(n));
        // Node ids keep their order: a draw's new id is its old one less the decided
        // nodes before it.
        let mut u = 0;
        for v in 0..self.ids.count() {
            if decided.get(v) {
                continue;
            }
            if self.checked.get(v) {
                checked.set(u);
            }
            if redo.get(v) {
                again.set(u);
            } else {
                if other_exit.get(v) {
                    exit.set(u);
                }
                if other_free.get(v) {
                    free.set(u);
                }
            }
            u += 1;
        }
        drop(redo);
        let p = self.p.opponent();
        let outcome = |side, slot| outcome_of(&ids, &wins, side, slot);
        again.try_for_each_one(
            || Node::new(solver.index),
            |node, u| {
                let (side, slot) = ids.slot_of(u);
                let (_, moves) = solver.draw_flags(p, false, side, slot, node, outcome)?;
                set_flags([&exit, &free], u, moves.exit, moves.quiet);
                Ok::<(), GenError>(())
            },
        )?;
        Ok(Some(Draws {
            index: self.index,
            p,
            checks_seen: Some(Bits::new(n)),
            ids,
            checked,
            exit,
            free,
            other: None,
            chases: self.chases,
        }))
    }

    /// Calls `f` with node `v`'s position and its neighbours one piece-move away.
    fn with_position<R>(&self, v: u64, f: impl FnOnce(&Position, &mut Neighbours) -> R) -> R {
        let (side, slot) = self.ids.slot_of(v);
        node::with_loaded(self.index, slot, side, f)
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

    fn flags(&self, v: u64) -> u8 {
        (self.is_p_to_move(v) as u8 * P_TO_MOVE)
            | (self.checked.get(v) as u8 * CHECKED)
            | (self.exit.get(v) as u8 * EXIT)
            | (self.free.get(v) as u8 * FREE)
    }

    fn is_checked(&self, v: u64) -> bool {
        self.checked.get(v)
    }

    fn is_p_to_move(&self, v: u64) -> bool {
        (v < self.ids.first_of(Color::Black)) == (self.p == Color::Red)
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

    fn note_check(&self, v: u64) {
        if let Some(seen) = &self.checks_seen
            && !seen.get(v)
        {
            seen.set(v);
        }
    }

    fn predecessors(&self, v: u64, out: &mut Vec<u64>) {
        out.clear();
        self.with_position(v, |pos, near| {
            let prev = pos.turn().opponent();
            let index = self.index;
            // Legality untried: an illegal predecessor is no draw.
            pos.for_each_quiet_unmove_unchecked(|mv| {
                let j = near.slot_after(index, mv.to, mv.from);
                if let Some(w) = self.ids.id(prev, j) {
                    out.push(w);
                }
            });
        })
    }
}

impl RuleGame for Draws<'_> {
    fn id_bound(&self) -> u64 {
        self.ids.count()
    }

    fn p_to_move(&self, v: u64) -> bool {
        self.is_p_to_move(v)
    }

    fn exit(&self, v: u64) -> bool {
        self.exit.get(v)
    }

    fn any_move(
        &self,
        v: u64,
        mut f: impl FnMut(u64, bool, &dyn Fn() -> MoveAttack) -> bool,
    ) -> bool {
        self.with_position(v, |pos, near| {
            let next = pos.turn().opponent();
            // A quiet move into a draw is legal (an illegal one reaches an illegal slot).
            let attack = |mv| {
                if self.chases {
                    pos.move_attack(mv)
                } else {
                    MoveAttack::Idle
                }
            };
            near.any_quiet_move_with(self.index, pos, |mv, j| {
                self.ids
                    .id(next, j)
                    .is_some_and(|u| f(u, self.checked.get(u), &|| attack(mv)))
            })
        })
    }

    fn has_chases(&self) -> bool {
        self.chases
    }

    fn surely_moves(&self, v: u64) -> bool {
        // Free without an exit: a quiet move into the draws.
        self.free.get(v) && !self.exit.get(v)
    }

    fn checks_surely(&self, v: u64) -> bool {
        self.checks_seen.as_ref().is_some_and(|seen| seen.get(v))
    }

    fn predecessors(&self, v: u64, out: &mut Vec<u64>) {
        DrawGame::predecessors(self, v, out);
    }
}

/// What p wins of `draws` by the repetition rules, and of that what the perpetual-check rule
/// alone wins (chases taken as idle moves) and what p wins with the opponent's checks taken
/// as idle moves ([`parity::ChasesAlone`]): the three sets that tell which [`Rule`] decides
/// each result. Without chases (the perpetual-check rule alone) the first two are the same
/// and the third is empty.
fn rule_wins(draws: &Draws) -> [Bits; 3] {
    let nodes = draws.ids.count();
    if !draws.chases {
        let won = parity::solve(draws, Bits::new(nodes), Bits::new(nodes));
        let by_check = Bits::new(nodes);
        by_check.copy_from(&won);
        return [won, by_check, Bits::new(nodes)];
    }
    // What the perpetual-check rule alone gives p, by the faster solver, is won under the
    // 棋例's rules too.
    let step = trace::step("perpetual-check fixpoint");
    let by_check = Fixpoint::solve(draws, spend_for(draws, 0));
    step.done(|| format!("{} of {nodes} draws won", by_check.count()));
    let known = Bits::new(nodes);
    known.copy_from(&by_check);
    let step = trace::step("the 棋例's game");
    let won = parity::solve(draws, known, Bits::new(nodes));
    step.done(|| format!("{} won", won.count()));
    // Only the wins the perpetual-check rule leaves need a rule named: p wins nothing else
    // with the opponent's checks taken as idle moves.
    let by_chase = Bits::new(nodes);
    if won.count_and_not(&by_check) > 0 {
        let step = trace::step("the game of chases alone");
        by_chase.copy_from(&parity::solve_within(&parity::ChasesAlone(draws), &won));
        step.done(|| format!("{} won", by_chase.count()));
    }
    [won, by_check, by_chase]
}

impl Solver<'_> {
    /// Applies the repetition rules by the five-priority game of [`parity`]: with `chases`
    /// the 棋例's (checks and chases), else the perpetual-check rule alone (the same results
    /// as [`Solver::apply_perpetual_rule`], more slowly). Returns how many positions (slots)
    /// the rules changed per side to move.
    pub(crate) fn apply_repetition_rules(
        &mut self,
        spill: &Path,
        chases: bool,
    ) -> Result<RuleCounts, GenError> {
        let mut counts: RuleCounts = [(0, 0); 2];
        // Where the rule decides nothing for the first side, the second side's pass reuses
        // its draws and flags. (Red goes first: where it wins by the rule, black's game is
        // played over the draws it leaves, often far fewer. Black first, KRNKR's rule pass
        // took 31.0 s against 27.6 s.)
        #[allow(unused_mut)]
        let mut sides = self.sides_the_rule_can_favour(chases);
        #[cfg(test)]
        if tests::BLACK_FIRST.load(std::sync::atomic::Ordering::Relaxed) {
            sides.reverse();
        }
        let other_flags = sides.len() == 2 && self.index.size() <= OTHER_FLAGS_MOST_SLOTS;
        let mut reused: Option<Draws> = None;
        for (k, &p) in sides.iter().enumerate() {
            let draws = match reused.take() {
                // The cells are still on disk, unchanged: the last pass marked nothing.
                Some(draws) => draws,
                None => {
                    // The cells wait on disk from the first side's pass to the last's, with
                    // the results marked so far (writing them again between the sides took
                    // KRNKR 0.11 s).
                    if k == 0 {
                        self.spill_cells(spill)?;
                    }
                    let outcomes = self.read_spilled_outcomes(spill)?;
                    let step = trace::step("draws and their flags");
                    let draws = Draws {
                        chases,
                        ..Draws::new(self, p, outcomes, other_flags && k == 0)?
                    };
                    step.done(|| format!("{p:?}: {} draws", draws.ids.count()));
                    draws
                }
            };
            #[allow(unused_mut)]
            let [mut won, by_check, by_chase] = rule_wins(&draws);
            #[cfg(test)]
            if let Some(decided) = tests::synthetic_decided(&draws, k) {
                won = decided;
            }
            let rule_of = |v| {
                won.get(v)
                    .then(|| match (by_check.get(v), by_chase.get(v)) {
                        (true, _) => Rule::PerpetualCheck,
                        (false, true) => Rule::PerpetualChase,
                        (false, false) => Rule::Mixed,
                    })
            };
            let step = trace::step("rule results marked");
            self.mark_rule_results(p, spill, &draws.ids, rule_of, &mut counts)?;
            step.done(|| format!("{p:?}"));
            drop((by_check, by_chase));
            if other_flags && k == 0 {
                // The cells stay on disk for the other side's pass, with p's results.
                let decided = won.count();
                if decided == 0 {
                    reused = draws.for_other_side();
                    continue;
                }
                if derive_the_other_side(decided, draws.ids.count() - decided) {
                    let outcomes = self.read_spilled_outcomes(spill)?;
                    reused = draws.without(&won, self, outcomes)?;
                    #[cfg(test)]
                    if let Some(derived) = &reused {
                        tests::check_derived(self, spill, derived)?;
                    }
                    continue;
                }
            }
            drop((won, draws));
            if k + 1 == sides.len() {
                self.restore_cells(spill)?;
            }
        }
        Ok(counts)
    }

    /// Whether the draw at `slot` (`side` to move) is in check, and what its moves do for
    /// p's game and, with `both`, for the opponent's ([`Solver::draw_moves`]), loaded into
    /// `node`.
    fn draw_flags(
        &self,
        p: Color,
        both: bool,
        side: Color,
        slot: u64,
        node: &mut Node,
        outcome: impl Fn(Color, u64) -> Option<bool>,
    ) -> Result<(bool, DrawMoves), GenError> {
        node.load(self.index, slot, side);
        let (pos, near) = node.parts_mut();
        let in_check = pos.in_check();
        let moves = self.draw_moves(p, both, pos, in_check, near, outcome)?;
        Ok((in_check, moves))
    }

    /// The draws and wins of the cells spilled to `spill`, as bitmaps.
    fn read_spilled_outcomes(&self, spill: &Path) -> Result<[Outcomes; 2], GenError> {
        let step = trace::step("outcomes read from the spilled cells");
        let outcomes = match &self.wdl {
            Some(wdl) => wdl.read_spilled_outcomes(spill),
            None => self.cells.read_spilled_outcomes(spill),
        };
        let outcomes = outcomes.map_err(|source| GenError::Spill {
            path: spill.to_path_buf(),
            source,
        });
        step.done(|| spill.display().to_string());
        outcomes
    }

    /// What the moves of draw `pos` (on squares `sq`) do for p's game and, with `both`, for
    /// the opponent's: whether one leaves the draws for a result that settles it (an exit:
    /// one p wins when p is to move, one p does not win otherwise), and if not, whether one is
    /// quiet (reaches a draw without giving check). `outcome` gives a slot's result in this
    /// set: `None` for a draw, else whether its side to move wins.
    fn draw_moves(
        &self,
        p: Color,
        both: bool,
        pos: &mut Position,
        in_check: bool,
        near: &mut Neighbours,
        outcome: impl Fn(Color, u64) -> Option<bool>,
    ) -> Result<DrawMoves, GenError> {
        let side = pos.turn();
        let next = side.opponent();
        // Exits in the mover's game (a result the mover wins) and in its opponent's (one the
        // opponent does not win); the second is sought only when asked for.
        let (mut own, mut others) = (false, false);
        let seek_own = p == side || both;
        let seek_others = p != side || both;
        let mut quiet = false;
        // Before any rule result is marked, a quiet move is no exit (see
        // `Solver::rule_results_marked`): past the first that reaches a draw without check,
        // the quiet moves are not looked up (KRNKR: a third of ranking and scanning its
        // draws).
        let quiet_exits = self.rule_results_marked.load(Relaxed);
        // Pseudo-legal moves, legality tried only for a move that would be an exit: an
        // illegal quiet move reaches an illegal slot, which is no draw and no win.
        for &mv in pos.pseudo_legal_moves().iter() {
            // Whether the opponent wins and whether it loses after the move, if the move
            // leaves the draws (a capture may reach a draw of a sub-table).
            let capture = pos.is_capture(mv);
            if !capture && quiet && !quiet_exits {
                continue;
            }
            let result = if capture {
                if !pos.is_pseudo_legal_move_legal(mv, in_check) {
                    continue;
                }
                let v = self.capture_value_raw(pos, near.squares(), mv)?.to_stored();
                Some((
                    self.fixed_win_for(next, next, v),
                    self.fixed_win_for(side, next, v),
                ))
            } else {
                let j = near.slot_after(self.index, mv.from, mv.to);
                let result = outcome(next, j);
                if result.is_none() {
                    quiet = quiet || !pos.gives_check(mv);
                }
                result.map(|next_wins| (next_wins, !next_wins))
            };
            let Some((next_wins, next_loses)) = result else {
                continue;
            };
            let exit_own = seek_own && !own && next_loses;
            let exit_others = seek_others && !others && !next_wins;
            if (exit_own || exit_others)
                && (capture || pos.is_pseudo_legal_move_legal(mv, in_check))
            {
                own |= exit_own;
                others |= exit_others;
            }
            if (own || !seek_own) && (others || !seek_others) {
                break;
            }
        }
        let (exit, other_exit) = match p == side {
            true => (own, others),
            false => (others, own),
        };
        Ok(DrawMoves {
            exit,
            other_exit: both && other_exit,
            quiet,
        })
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
    /// KRNKR's rule decides a third of its draws): every node that `rule_of` gives a rule
    /// becomes a win by that rule with p to move and a loss by it otherwise; adds them to
    /// `counts`.
    pub(super) fn mark_rule_results(
        &self,
        p: Color,
        spill: &Path,
        ids: &DrawIndex,
        rule_of: impl Fn(u64) -> Option<Rule>,
        counts: &mut RuleCounts,
    ) -> Result<(), GenError> {
        for side in Color::ALL {
            let marker = match side == p {
                true => cells::rule_win,
                false => cells::rule_loss,
            };
            // The draws walked in order, their slots found on the way (asking each won
            // node's slot took KRNKR a third of a second).
            let marks = ids
                .nodes_of(side)
                .filter_map(|(v, slot)| rule_of(v).map(|rule| (slot, marker(rule))));
            let count = match side == p {
                true => &mut counts[side.index()].0,
                false => &mut counts[side.index()].1,
            };
            let marked = match &self.wdl {
                Some(wdl) => wdl.mark_spilled(spill, side.index(), marks),
                None => self.cells.mark_spilled(spill, side.index(), marks),
            };
            let marked = marked.map_err(|source| GenError::Spill {
                path: spill.to_path_buf(),
                source,
            })?;
            if marked > 0 {
                self.rule_results_marked.store(true, Relaxed);
            }
            *count += marked;
        }
        Ok(())
    }

    /// The sides p whose opponent has a piece that can give check, or with `chases` any
    /// piece besides its general (advisors and elephants can chase too): only for those can
    /// the rules change anything.
    pub(super) fn sides_the_rule_can_favour(&self, chases: bool) -> Vec<Color> {
        let material = self.index.material();
        let offends = |r: Role| r.is_attacker() || chases && r != Role::General;
        Color::ALL
            .into_iter()
            .filter(|p| {
                Role::ALL
                    .iter()
                    .any(|&r| offends(r) && material.count(p.opponent(), r) > 0)
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
        for p in self.sides_the_rule_can_favour(false) {
            // The pass reads no cell: they wait on disk meanwhile, and the draws and wins are
            // read back from there as bitmaps.
            self.spill_cells(spill)?;
            let outcomes = self.read_spilled_outcomes(spill)?;
            let draws = Draws::new(self, p, outcomes, false)?;
            let won = Fixpoint::solve(&draws, spend_for(&draws, budget));
            let rule_of = |v| won.get(v).then_some(Rule::PerpetualCheck);
            self.mark_rule_results(p, spill, &draws.ids, rule_of, &mut counts)?;
            drop((won, draws));
            self.restore_cells(spill)?;
        }
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::Draws;
    use crate::generate::bits::Bits;
    use crate::generate::{GenError, GenOptions, Solver, generate_all};
    use crate::material::Material;
    use crate::probe::{RuleSet, Tablebase};
    use crate::rules::Color;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};

    /// How the other side's draws are found: as the cost decides, or as a test forces.
    pub(super) static DERIVE: AtomicU8 = AtomicU8::new(AS_IT_COSTS);
    pub(super) const AS_IT_COSTS: u8 = 0;
    pub(super) const ALWAYS: u8 = 1;
    pub(super) const NEVER: u8 = 2;
    /// Always, with the first side's results replaced by every third draw (a table no
    /// rule gives, but many flags of the other side's draws change).
    pub(super) const SYNTHETIC: u8 = 3;

    /// Every third draw, in place of the first side's results where a test asks for it.
    pub(super) fn synthetic_decided(draws: &Draws, k: usize) -> Option<Bits> {
        if k > 0 || DERIVE.load(Relaxed) != SYNTHETIC {
            return None;
        }
        let decided = Bits::new(draws.ids.count());
        (0..draws.ids.count()).step_by(3).for_each(|v| {
            decided.set(v);
        });
        Some(decided)
    }
    /// True: black's pass goes first (the results do not depend on the order).
    pub(super) static BLACK_FIRST: AtomicBool = AtomicBool::new(false);
    /// How many times the other side's derived draws were checked against a new scan.
    static DERIVED: AtomicU64 = AtomicU64::new(0);

    /// Panics unless `derived` (the other side's draws, derived from the first side's) has
    /// the ids and flags that ranking and scanning the cells spilled to `spill` gives.
    pub(super) fn check_derived(
        solver: &Solver,
        spill: &Path,
        derived: &Draws,
    ) -> Result<(), GenError> {
        let outcomes = solver.read_spilled_outcomes(spill)?;
        let scanned = Draws::new(solver, derived.p, outcomes, false)?;
        assert_eq!(derived.ids.count(), scanned.ids.count());
        assert_eq!(
            derived.ids.first_of(Color::Black),
            scanned.ids.first_of(Color::Black)
        );
        assert!(derived.checked.same_as(&scanned.checked), "in check");
        assert!(derived.exit.same_as(&scanned.exit), "exits");
        assert!(derived.free.same_as(&scanned.free), "free");
        DERIVED.fetch_add(1, Relaxed);
        Ok(())
    }

    /// KRKN's table under `asian` (black wins draws by the rule: where red can only check
    /// forever), its sub-tables generated first, with black's pass first or not and the
    /// other side's draws found as `derive` says.
    /// Also returns how many derived draws were checked meanwhile. Tests that set the knobs
    /// take turns.
    fn krkn_bytes(black_first: bool, derive: u8) -> (Vec<u8>, u64) {
        static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let tb = Tablebase::with_rules(dir.path(), RuleSet::Asian);
        let krkn = Material::parse("KRKN").unwrap();
        let subs: Vec<Material> = krkn.subsets().into_iter().filter(|m| *m != krkn).collect();
        generate_all(&tb, &subs, &GenOptions::default()).unwrap();
        let checked_before = DERIVED.load(Relaxed);
        DERIVE.store(derive, Relaxed);
        BLACK_FIRST.store(black_first, Relaxed);
        let reports = generate_all(&tb, &[krkn], &GenOptions::default());
        DERIVE.store(AS_IT_COSTS, Relaxed);
        BLACK_FIRST.store(false, Relaxed);
        let report = reports.unwrap().pop().unwrap();
        let rule_wins: u64 = report.stats.iter().map(|s| s.rule_win + s.rule_loss).sum();
        assert!(rule_wins > 0, "KRKN has results by the rule");
        let checked = DERIVED.load(Relaxed) - checked_before;
        (std::fs::read(tb.path_of(krkn)).unwrap(), checked)
    }

    /// Black's draws derived from red's (the draws red's rule decided removed, the flags of
    /// their predecessors found again) have the ids and flags of a new scan, and give the
    /// same table, byte for byte, as black's draws ranked and scanned anew.
    #[test]
    fn the_second_side_s_draws_derived_equal_them_scanned_anew() {
        let (derived, checked) = krkn_bytes(false, ALWAYS);
        assert_eq!(checked, 1, "black's draws were derived once");
        assert_eq!(derived, krkn_bytes(false, NEVER).0);
    }

    /// The other side's draws derived where a third of the draws left them (at random as
    /// far as the rule goes, so that many of the flags change) have a new scan's ids and
    /// flags.
    #[test]
    fn the_draws_derived_after_many_left_equal_them_scanned_anew() {
        assert_eq!(krkn_bytes(false, SYNTHETIC).1, 1);
    }

    /// The passes' order does not change the table: black first (its rule decides nothing
    /// in KRKN, so red's pass reuses its draws and flags) gives red first's bytes.
    #[test]
    fn either_side_s_pass_may_go_first() {
        assert_eq!(krkn_bytes(true, AS_IT_COSTS).0, krkn_bytes(false, NEVER).0);
    }
}
