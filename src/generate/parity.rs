//! The repetition rules of the 棋例 as a game with a priority on every move, solved exactly
//! over bitmaps.
//!
//! For one side p, each move between two draws gets a priority by who makes it and what it
//! does ([`priority`]):
//!
//! | move | by the opponent | by p |
//! |---|---|---|
//! | idle (閑), a general's own attack | 5 | 4 |
//! | chase (捉) | 3 | 2 |
//! | a pawn's own attack | 5 (idle) | 2 (a chase) |
//! | check (將) | 1 | 1 |
//!
//! p wins an endless play exactly when the highest priority seen infinitely often is even:
//! - 4: the opponent attacks on every move from some point on (an offender) and p does not
//!   (it moves idly again and again): one offender loses;
//! - 2: the opponent only checks from some point on while p attacks and chases again and
//!   again: a side that only checks loses against one that chases (單方面長將 is never
//!   allowed);
//! - 5 (the opponent moves idly again and again), 3 (both sides attack and the opponent
//!   chases: two offenders draw) and 1 (both only check) are not wins for p.
//!
//! A pawn's own attack is idle unless both sides attack perpetually (相互長打). For p's win
//! that is the same as idle for the opponent's pawn (p wins nothing where the opponent is no
//! offender, and where both attack, a pawn's chase by the opponent breaks p's claim just as
//! an idle move does) and a chase for p's pawn (p keeps its claim either way where the
//! opponent offends).
//!
//! The positions p wins are the nested fixpoint `mu X5. nu X4. mu X3. nu X2. mu X1. Pre`,
//! where `Pre` holds for a p-to-move position when some move of priority k reaches X_k (or
//! it has an exit p wins), and for an opponent-to-move position when every move of priority
//! k reaches X_k (and it has no exit p does not win); `textbook` (test code) computes it as written,
//! the tests' oracle. [`solve`] finds the same set by Zielonka's recursive algorithm, which
//! needs far fewer passes over the nodes (KCKPP's rule pass: 300 s by the fixpoint, 32 s):
//! every step is an attractor grown backwards over un-moves, each candidate confirmed by
//! generating its moves (forward verification); no move is stored, and a subgame is a
//! bitmap of nodes with a top priority. A subgame's attractor of top-priority moves is grown
//! once and then mended as the other side's wins are cut off, near what left
//! ([`Solver::reattract`]): the textbook algorithm grows it anew each time, which on KRCKR
//! meant thirteen passes over seven million nodes (its rule pass: 119 s, mended 61 s).
//!
//! The perpetual-check rule alone is this game without chases: its priorities 5, 4 and 1
//! give the same wins as [`super::fixpoint`]'s 3, 2 and 1 (a test checks this).

use super::bits::Bits;
use super::par_chunks;
use crate::rules::MoveAttack;
use crate::trace;
use rayon::prelude::*;

/// The highest priority: the opponent's idle move.
pub(crate) const TOP: u8 = 5;

/// The priority of a move of `kind` in p's game, made by p (`by_p`) or by the opponent.
pub(crate) fn priority(kind: MoveAttack, by_p: bool) -> u8 {
    match (kind, by_p) {
        (MoveAttack::Check, _) => 1,
        (MoveAttack::Chase | MoveAttack::PawnChase, true) => 2,
        (MoveAttack::Chase, false) => 3,
        (MoveAttack::Idle, true) => 4,
        (MoveAttack::Idle | MoveAttack::PawnChase, false) => 5,
    }
}

/// Bitmaps over the nodes [`solve`] holds at once at most: the two it is given, an
/// attractor's three, and at the deepest recursion two or three a frame (nodes, the
/// top-priority attractor, and p's wins cut off where the frame favours the opponent) with
/// the last frame's two results (or what left and the nodes it makes doubtful, one bitmap).
pub(crate) const SOLVER_BITMAPS: u64 = 2 + 3 + 3 + 2 + 3 + 4;

/// The draws of one side p's game, as the solver sees them. Node ids are below
/// [`RuleGame::id_bound`], and every id below it is a node.
pub(crate) trait RuleGame: Sync {
    /// Every node id is below this.
    fn id_bound(&self) -> u64;
    /// True if p is to move at node `v`.
    fn p_to_move(&self, v: u64) -> bool;
    /// True if some move of node `v` leaves the draws for a result that settles it: for a
    /// p-to-move node a result p wins, for an opponent-to-move node one p does not win.
    fn exit(&self, v: u64) -> bool;
    /// True if `f` holds for some move of node `v` to a node (stops at the first). `f` is
    /// given the node, whether the move checks, and what it attacks when asked: finding a
    /// chase takes move generation, so it is found only where the answer matters.
    fn any_move(&self, v: u64, f: impl FnMut(u64, bool, &dyn Fn() -> MoveAttack) -> bool) -> bool;
    /// The nodes that move into node `v` (repeats allowed), in `out`.
    fn predecessors(&self, v: u64, out: &mut Vec<u64>);
    /// False if no move is a chase (only checks count): then priorities 2 and 3 never occur.
    fn has_chases(&self) -> bool;
    /// True if node `v` is known to have a move to a node without generating its moves
    /// (false tells nothing).
    fn surely_moves(&self, _v: u64) -> bool {
        false
    }
    /// True if node `v` is known to have a checking move to a node without generating its
    /// moves (false tells nothing).
    fn checks_surely(&self, _v: u64) -> bool {
        false
    }
    /// True if opponent-to-move node `v` is known, without generating its moves, to have a
    /// move of the top priority (for the opponent: idle) to a node (false tells nothing).
    fn surely_idles(&self, _v: u64) -> bool {
        false
    }
}

/// The game `G` with the opponent's checks taken as idle moves: the plays p wins in it are
/// those the opponent loses by chasing (or by checks and chases where its chases alone
/// offend), which tells a perpetual chase ([`crate::value::Rule::PerpetualChase`]) from a
/// mix of checks and chases. Counting fewer of the opponent's moves as attacks only takes
/// claims from p, so p wins a subset of what it wins in `G`.
pub(crate) struct ChasesAlone<'g, G>(pub &'g G);

impl<G: RuleGame> RuleGame for ChasesAlone<'_, G> {
    fn id_bound(&self) -> u64 {
        self.0.id_bound()
    }

    fn p_to_move(&self, v: u64) -> bool {
        self.0.p_to_move(v)
    }

    fn exit(&self, v: u64) -> bool {
        self.0.exit(v)
    }

    fn any_move(
        &self,
        v: u64,
        mut f: impl FnMut(u64, bool, &dyn Fn() -> MoveAttack) -> bool,
    ) -> bool {
        if self.0.p_to_move(v) {
            return self.0.any_move(v, f);
        }
        self.0.any_move(v, |u, check, attack| match check {
            true => f(u, false, &|| MoveAttack::Idle),
            false => f(u, false, attack),
        })
    }

    fn predecessors(&self, v: u64, out: &mut Vec<u64>) {
        self.0.predecessors(v, out);
    }

    fn has_chases(&self) -> bool {
        self.0.has_chases()
    }

    fn surely_moves(&self, v: u64) -> bool {
        self.0.surely_moves(v)
    }

    fn checks_surely(&self, v: u64) -> bool {
        self.0.checks_surely(v)
    }

    fn surely_idles(&self, v: u64) -> bool {
        // The opponent's checks are its idle moves here.
        !self.0.p_to_move(v) && self.0.checks_surely(v)
    }
}

/// The nodes p wins, as a bitmap over node ids, given nodes known to be won (`won`) and
/// known not to be (`lost`): for example what the perpetual-check rule alone gives p, and
/// gives the opponent (every play a side wins under it, it wins under the 棋例's rules too).
/// Each is grown at once into what its side can force play into, and the game left between
/// them is solved by [`Solver::wins`].
pub(crate) fn solve(game: &impl RuleGame, won: Bits, lost: Bits) -> Bits {
    // Where p wins little, most draws are held by idle moves at every turn: cut those off
    // first, cheaply (the search gives up where it would not be cheap).
    let step = trace::step("idle escapes");
    let complete = idle_escapes(game, &won, &lost, true);
    step.done(|| format!("complete {complete}, {} not won", lost.count()));
    let step = trace::step("opponent's attractor");
    opponent_attractor(game, &won, &lost);
    step.done(|| format!("{} not won", lost.count()));
    solve_closed(game, won, lost)
}

/// The nodes p wins, as a bitmap over node ids, in a game where p wins only nodes of
/// `within`: the nodes a game with the same moves and exits, in which p wins at least as
/// much, gives p (as [`ChasesAlone`] and the game it wraps). Its other nodes are known not
/// to be won, and the opponent's attractor need not be grown over them: an
/// opponent-to-move node p wins in that game has every move in `within`, and a p-to-move
/// one an exit or some move there, so the opponent can keep play out of `within`. What p
/// forces play into from its exits is found first: where it is large, the search for idle
/// escapes gives up at once (on KRNKRA's chases alone it searched 19 s for nothing); where
/// that search completes, the opponent's attractor is grown over what it cut off.
pub(crate) fn solve_within(game: &impl RuleGame, within: &Bits) -> Bits {
    let n = game.id_bound();
    let won = Bits::new(n);
    let step = trace::step("settled from the exits");
    Solver::new(game).settle(within, &won);
    step.done(|| format!("{} won", won.count()));
    let lost = Bits::new(n);
    lost.fill(n);
    lost.and_not_from(within);
    let step = trace::step("idle escapes");
    let complete = idle_escapes(game, &won, &lost, false);
    step.done(|| format!("complete {complete}, {} not won", lost.count()));
    if complete {
        // Draws were cut off, and what moves into them with them: settled again over the
        // rest (cheap: the search completes only where p forces little).
        opponent_attractor(game, &won, &lost);
        return solve_closed(game, won, lost);
    }
    drop(lost);
    let open = Bits::new(n);
    open.assign_and_not(within, &won);
    let step = trace::step("solved");
    won.or_from(&Solver::new(game).wins(open, TOP));
    step.done(|| format!("{} won", won.count()));
    won
}

/// The rest of [`solve`], once `lost` holds every node from which the opponent can force
/// play into it (no opponent-to-move node outside it has a move into it, and no p-to-move
/// node outside it has every move there).
fn solve_closed(game: &impl RuleGame, won: Bits, lost: Bits) -> Bits {
    let n = game.id_bound();
    let solver = Solver::new(game);
    let open = Bits::new(n);
    open.fill(n);
    open.and_not_from(&lost);
    drop(lost);
    let step = trace::step("settled from the exits");
    solver.settle(&open, &won);
    step.done(|| format!("{} won", won.count()));
    // Every node left has a move left and no exit: the game proper.
    open.and_not_from(&won);
    let step = trace::step("solved");
    won.or_from(&solver.wins(open, TOP));
    step.done(|| format!("{} won", won.count()));
    won
}

/// Past this share of the nodes (1 in this many) that p can force the opponent to attack
/// from, [`idle_escapes`] gives up: a search that confirms a node by asking what each of its
/// moves attacks costs most where it succeeds most, and it then cuts off little (on KCCKN,
/// KRCKR and KRABKR it took 8-13 s to cut off under 0.2% of the draws; Zielonka's solver
/// needed 3-5 s for the whole game without it). Where p wins little it stays under 4%
/// (KRNKR, KCPKN, KRABKR for black) and cuts off the rest at once.
const IDLE_ESCAPES_GIVE_UP: u64 = 10;

/// Share of [`IDLE_ESCAPES_GIVE_UP`]'s bound (1 in this many, at least
/// [`FIRST_STEP_LEAST_BOUND`] nodes) past which the first step alone makes [`idle_escapes`]
/// give up in [`solve`]'s game. Measured in stop 47 on the 5-men sets whose rule pass costs
/// most: searches that gave up had first steps from 4.8% of the bound (KCPKC) to 8.8 times it
/// (KNCKN), all in [`solve`]'s game; searches that completed up to 17.5% (KRNKR's black
/// game: 51,900 of 296,158, a search of 0.21 s that now gives up for 0.4 s more) and, in the
/// game of chases alone ([`solve_within`], where no search gave up), 3.9% (KRNKR's, 1.6 s).
/// At a quarter of the bound the 5-men sets took 10 min 2 s, at 1/32 in both games 9 min 40 s.
const FIRST_STEP_GIVE_UP: u64 = 32;

/// The least first-step bound of [`FIRST_STEP_GIVE_UP`]: small games are cheap either way.
const FIRST_STEP_LEAST_BOUND: u64 = 64;

/// 1 in this many nodes is tried first, so that a first step past its bound is seen without
/// trying every node (the first step's scan was most of a search that gave up: KCCKN's took
/// 3.0 s).
const FIRST_STEP_SAMPLE: u64 = 64;

/// Adds to `lost` the nodes from which the opponent can move idly (priority 5) at every turn
/// forever, or reach a node already in `lost`: an endless play with infinitely many idle
/// moves of the opponent is no win for p. The others, where p can force the opponent to
/// attack or reach a node p wins (`won`, or by an exit), are found first, as an attractor:
/// a p-to-move node joins when some move leads into it (or into `won`), an
/// opponent-to-move node when each of its idle moves does. Adds nothing if that attractor
/// grows past [`IDLE_ESCAPES_GIVE_UP`]'s share of the nodes, or, with `first_step_bound`, its
/// first step past [`FIRST_STEP_GIVE_UP`]'s share of that (judged first on a sample); false
/// if it gave up so.
fn idle_escapes(game: &impl RuleGame, won: &Bits, lost: &Bits, first_step_bound: bool) -> bool {
    let n = game.id_bound();
    let most_forced = n / IDLE_ESCAPES_GIVE_UP;
    if won.count() > most_forced {
        return false;
    }
    let forced = Bits::new(n);
    forced.copy_from(won);
    let joins = |v: u64| {
        if game.p_to_move(v) {
            game.exit(v) || game.any_move(v, |u, _, _| forced.get(u))
        } else {
            !game.any_move(v, |u, check, attack| {
                !check && !forced.get(u) && priority(attack(), false) == TOP
            })
        }
    };
    let walk = [Bits::new(n), Bits::new(n), Bits::new(n)];
    // The first step: the nodes of `won`, and those that join whatever else joins (the
    // opponent's without an idle escape, p's exits). A p-to-move node with a move into
    // `won` is found among their predecessors, without generating every p node's moves.
    // While nothing is forced, an opponent node known to have an idle move has an idle
    // escape: on KRNKR's game of chases alone, the opponent's checks (idle there) seen by
    // the perpetual-check fixpoint spared most of this step's moves.
    let nothing_forced = won.count() == 0;
    let first = |v: u64| {
        won.get(v)
            || !lost.get(v)
                && match game.p_to_move(v) {
                    true => game.exit(v),
                    false => !(nothing_forced && game.surely_idles(v)) && joins(v),
                }
    };
    let most_first = match first_step_bound {
        true => (most_forced / FIRST_STEP_GIVE_UP).max(FIRST_STEP_LEAST_BOUND),
        false => most_forced,
    };
    let sampled = (0..n.div_ceil(FIRST_STEP_SAMPLE))
        .into_par_iter()
        .filter(|&k| first(k * FIRST_STEP_SAMPLE))
        .count() as u64;
    if sampled * FIRST_STEP_SAMPLE > most_first {
        return false;
    }
    let first_step = std::cell::Cell::new(true);
    let complete = grow_back(
        n,
        &walk,
        first,
        |u, preds| game.predecessors(u, preds),
        |w| !forced.get(w) && !lost.get(w),
        joins,
        |step| {
            forced.or_from(step);
            let most = match first_step.replace(false) {
                true => most_first,
                false => most_forced,
            };
            forced.count() <= most
        },
        || n.saturating_sub(forced.count() + lost.count()),
    );
    if !complete {
        return false;
    }
    par_chunks(n).for_each(|range| {
        for v in range {
            if !forced.get(v) {
                lost.set(v);
            }
        }
    });
    true
}

/// Adds to `lost` the nodes from which the opponent can force play to an exit of its own (a
/// result p does not win), whatever the repetition rules: p wins none of them. An
/// opponent-to-move node joins when it has an exit or a move into the set, a p-to-move node
/// without an exit when every move leads into it. The nodes of `won` (known won) are not
/// tried: on KRNKR's red game, where the perpetual-check rule had won 10.2 of the 13.2
/// million draws, trying them took half of this attractor's time.
fn opponent_attractor(game: &impl RuleGame, won: &Bits, lost: &Bits) {
    let n = game.id_bound();
    let walk = [Bits::new(n), Bits::new(n), Bits::new(n)];
    grow_back(
        n,
        &walk,
        |v| {
            (lost.get(v) || !game.p_to_move(v) && game.exit(v)) && {
                lost.set(v);
                true
            }
        },
        |u, preds| game.predecessors(u, preds),
        |w| !lost.get(w) && !won.get(w),
        |w| {
            let joins = match game.p_to_move(w) {
                true => !game.exit(w) && !game.any_move(w, |u, _, _| !lost.get(u)),
                false => game.exit(w) || game.any_move(w, |u, _, _| lost.get(u)),
            };
            joins && lost.set(w)
        },
        |_| true,
        || n.saturating_sub(lost.count() + won.count()),
    );
}

/// How many times a node's predecessors cost more than confirming a node: a step of an
/// attractor is found by predecessors while it is smaller than the open nodes over this.
const PULL_FACTOR: u64 = 8;

/// Grows a set backwards, step by step, in `walk` (frontier, next step, candidates): the
/// nodes below `n` for which `seed` holds are the first step; then the predecessors
/// (`preds`) of a step's nodes for which `near` holds are gathered, each once, and those for
/// which `joins` then holds are the next step, until a step is empty (`joins` must check
/// the node's moves in full, as it is also asked of nodes no move of the step reaches).
/// `on_step` is given each step before its predecessors are gathered (to add it to the set
/// being grown), and stops the growth by returning false. True if the growth was complete.
/// `open_after_seeds` counts the nodes `near` holds for once the first step has joined
/// (the seeds themselves may be nodes it never held for, such as those already in the set
/// being grown); later steps are taken off that count. Where a step is large beside those
/// still open, each of them is asked `joins` instead (a scan, cheaper than generating the
/// step's predecessors). Counting the seeds as open had made every step of the opponent's
/// attractor a scan where most nodes were seeds: 13 scans of all 13 million draws in
/// KRNKR's game of chases alone.
#[allow(clippy::too_many_arguments)]
fn grow_back(
    n: u64,
    walk: &[Bits; 3],
    seed: impl Fn(u64) -> bool + Sync,
    preds: impl Fn(u64, &mut Vec<u64>) + Sync,
    near: impl Fn(u64) -> bool + Sync,
    joins: impl Fn(u64) -> bool + Sync,
    on_step: impl Fn(&Bits) -> bool,
    open_after_seeds: impl Fn() -> u64,
) -> bool {
    let [frontier, next, candidates] = walk;
    frontier.clear_all();
    par_chunks(n).for_each(|range| {
        for v in range {
            if seed(v) {
                frontier.set(v);
            }
        }
    });
    let (mut current, mut next) = (frontier, next);
    let mut step = current.count();
    let mut open: Option<u64> = None;
    while step > 0 {
        if !on_step(current) {
            return false;
        }
        let open = *open.insert(match open {
            None => open_after_seeds(),
            Some(before) => before.saturating_sub(step),
        });
        next.clear_all();
        if step.saturating_mul(PULL_FACTOR) >= open {
            par_chunks(n).for_each(|range| {
                for w in range {
                    if near(w) && joins(w) {
                        next.set(w);
                    }
                }
            });
        } else {
            candidates.clear_all();
            current.for_each_one(Vec::new, |found, u| {
                preds(u, found);
                for &w in found.iter() {
                    if near(w) {
                        candidates.set(w);
                    }
                }
            });
            candidates.for_each_one(
                || (),
                |_, w| {
                    if joins(w) {
                        next.set(w);
                    }
                },
            );
        }
        std::mem::swap(&mut current, &mut next);
        step = current.count();
    }
    true
}

/// The priority of one move, found when first asked: what a quiet move attacks takes move
/// generation, and many questions are answered by the side that moves alone.
struct MovePriority<'f> {
    by_p: bool,
    check: bool,
    attack: &'f dyn Fn() -> MoveAttack,
    known: std::cell::Cell<Option<u8>>,
}

impl<'f> MovePriority<'f> {
    /// The priority of a move by p (`by_p`) or the opponent, a check or not, whose attack
    /// `attack` finds when asked.
    fn new(by_p: bool, check: bool, attack: &'f dyn Fn() -> MoveAttack) -> Self {
        MovePriority {
            by_p,
            check,
            attack,
            known: std::cell::Cell::new(None),
        }
    }

    /// The priorities the move can have: a check's, else an attack's and an idle move's.
    fn bounds(&self) -> (u8, u8) {
        match (self.check, self.by_p) {
            (true, _) => (1, 1),
            (false, true) => (2, 4),
            (false, false) => (3, 5),
        }
    }

    fn get(&self) -> u8 {
        if self.check {
            return 1;
        }
        let known = self
            .known
            .get()
            .unwrap_or_else(|| priority((self.attack)(), self.by_p));
        self.known.set(Some(known));
        known
    }

    /// True if the move's priority is at most `top` (it is a move of the subgame).
    fn at_most(&self, top: u8) -> bool {
        match self.bounds() {
            (_, high) if high <= top => true,
            (low, _) if low > top => false,
            _ => self.get() <= top,
        }
    }

    /// True if the move's priority is `top`.
    fn is(&self, top: u8) -> bool {
        match self.bounds() {
            (low, high) if low != top && high != top => false,
            (low, high) if low == high => true,
            _ => self.get() == top,
        }
    }
}

/// What an attractor is grown towards: the nodes already in it, or also the moves of the
/// subgame's top priority.
#[derive(Clone, Copy, PartialEq)]
enum Goal {
    Into,
    IntoOrTop,
}

/// Zielonka's recursive solution of a parity game, over bitmaps: a subgame is a set of
/// nodes and a top priority (its moves are those between its nodes of at most that
/// priority), each of its nodes with a move in it.
struct Solver<'g, G> {
    game: &'g G,
    /// An attractor's frontier, next step and candidates.
    walk: [Bits; 3],
}

impl<'g, G: RuleGame> Solver<'g, G> {
    fn new(game: &'g G) -> Self {
        let n = game.id_bound();
        Solver {
            game,
            walk: std::array::from_fn(|_| Bits::new(n)),
        }
    }

    /// Keeps in `won` (nodes known won) those of `open` and adds p's exits there, the
    /// opponent's nodes without a move, and what p can force play into from them all.
    /// `open` must be closed: no opponent-to-move node in it has an exit or a move out of it
    /// (moves out of it are not looked at).
    fn settle(&self, open: &Bits, won: &Bits) {
        let game = self.game;
        par_chunks(game.id_bound()).for_each(|range| {
            for v in range {
                // Scanning every opponent node's moves took KRNKR's two games 0.9 s; most
                // are known to move without it.
                let settled = || match game.p_to_move(v) {
                    true => game.exit(v),
                    false => !game.surely_moves(v) && !game.any_move(v, |_, _, _| true),
                };
                if open.get(v) && !won.get(v) && settled() {
                    won.set(v);
                }
            }
        });
        won.and_from(open);
        self.attract(open, TOP, false, Goal::Into, won);
    }

    /// The nodes p wins in the subgame of `nodes` and moves of priority at most `top`. The
    /// side the top priority favours (p if it is even) wins wherever it can make the
    /// top-priority moves again and again, unless the other side can win in the subgame
    /// without them; the other side's wins there, and what it can force play into from
    /// them, are cut off and the rest solved again, until the other side wins nothing more.
    fn wins(&self, nodes: Bits, top: u8) -> Bits {
        let n = self.game.id_bound();
        // With checks alone left, every play's top priority is 1: the opponent's.
        if top == 1 || top <= 3 && !self.game.has_chases() {
            return Bits::new(n);
        }
        let favoured_is_p = top.is_multiple_of(2);
        // p's wins cut off, when the other side is p; else p wins what is left.
        let cut_off = (!favoured_is_p).then(|| Bits::new(n));
        // Where the favoured side can force a move of the top priority: found once, then
        // mended as the other side's wins leave the subgame.
        let to_top = Bits::new(n);
        self.attract(&nodes, top, !favoured_is_p, Goal::IntoOrTop, &to_top);
        while nodes.count() > 0 {
            let sub = Bits::new(n);
            sub.assign_and_not(&nodes, &to_top);
            let sub_won = self.wins(sub, top - 1);
            // The other side's wins in the subgame.
            let other = match favoured_is_p {
                true => {
                    let other = Bits::new(n);
                    other.assign_and_not(&nodes, &to_top);
                    other.and_not_from(&sub_won);
                    other
                }
                false => sub_won,
            };
            if other.count() == 0 {
                break;
            }
            // What the other side can force play into from there leaves the subgame.
            self.attract(&nodes, top, favoured_is_p, Goal::Into, &other);
            if let Some(cut_off) = &cut_off {
                cut_off.or_from(&other);
            }
            nodes.and_not_from(&other);
            self.reattract(&nodes, top, !favoured_is_p, &to_top, other);
        }
        cut_off.unwrap_or(nodes)
    }

    /// Mends `to_top`, the attractor that [`Solver::attract`] with [`Goal::IntoOrTop`] grew
    /// in a subgame, after the nodes of `removed` (an attractor of the other side's) left it
    /// for `nodes`: the same set as growing it anew, at the cost of the nodes near what left.
    /// A node of the other side has no move into `removed`, so the attractor can only
    /// shrink, and only where a node's place in it rested on a move into what left: the
    /// nodes with such a move (unless the forcing side can still move at the top priority
    /// there, which keeps it whatever else left), and those with a move into them, are taken
    /// out and the attractor grown again over them.
    fn reattract(&self, nodes: &Bits, top: u8, against_p: bool, to_top: &Bits, removed: Bits) {
        let game = self.game;
        to_top.and_not_from(&removed);
        // What left, and the nodes found doubtful: grown in place.
        let doubtful = removed;
        let top_move_left = |w: u64| {
            game.any_move(w, |u, check, attack| {
                nodes.get(u) && MovePriority::new(game.p_to_move(w), check, attack).is(top)
            })
        };
        let unsure = |w: u64| {
            let forcing = game.p_to_move(w) != against_p;
            game.any_move(w, |u, _, _| doubtful.get(u)) && !(forcing && top_move_left(w))
        };
        grow_back(
            game.id_bound(),
            &self.walk,
            |v| doubtful.get(v),
            |u, preds| game.predecessors(u, preds),
            |w| to_top.get(w) && !doubtful.get(w),
            unsure,
            |step| {
                doubtful.or_from(step);
                true
            },
            || to_top.count_and_not(&doubtful),
        );
        to_top.and_not_from(&doubtful);
        drop(doubtful);
        self.attract(nodes, top, against_p, Goal::IntoOrTop, to_top);
    }

    /// Grows `attr` (within `nodes`) by the nodes from which one side (`against_p`: the
    /// opponent, else p) can force play into it, or with [`Goal::IntoOrTop`] along a move of
    /// priority `top`, with moves of the subgame of `nodes` and priorities up to `top`.
    fn attract(&self, nodes: &Bits, top: u8, against_p: bool, goal: Goal, attr: &Bits) {
        let game = self.game;
        let joins = |w: u64| {
            let forcing = game.p_to_move(w) != against_p;
            let reaches = |u: u64, check: bool, attack: &dyn Fn() -> MoveAttack| {
                if !nodes.get(u) {
                    return None;
                }
                let prio = MovePriority::new(game.p_to_move(w), check, attack);
                let inside = attr.get(u);
                match (inside, forcing) {
                    (true, _) => prio.at_most(top).then_some(true),
                    (false, true) => (goal == Goal::IntoOrTop && prio.is(top)).then_some(true),
                    (false, false) => (prio.at_most(top)
                        && !(goal == Goal::IntoOrTop && prio.is(top)))
                    .then_some(false),
                }
            };
            match forcing {
                true => game.any_move(w, |u, c, a| reaches(u, c, a) == Some(true)),
                false => !game.any_move(w, |u, c, a| reaches(u, c, a) == Some(false)),
            }
        };
        grow_back(
            game.id_bound(),
            &self.walk,
            |v| nodes.get(v) && (attr.get(v) || goal == Goal::IntoOrTop && joins(v)),
            |u, preds| game.predecessors(u, preds),
            |w| nodes.get(w) && !attr.get(w),
            joins,
            |step| {
                attr.or_from(step);
                true
            },
            || nodes.count_and_not(attr),
        );
    }
}

/// A move of a hand-made game: the node it reaches and what it does.
#[cfg(test)]
pub(super) type HandMove = (u32, MoveAttack);

/// A node of a hand-made game: (p to move, exit, moves).
#[cfg(test)]
pub(super) type HandNode = (bool, bool, Vec<HandMove>);

/// The fixpoint as written, each set iterated from its start over every node: the oracle
/// for [`solve`].
#[cfg(test)]
pub(super) fn textbook(nodes: &[HandNode]) -> Vec<bool> {
    fn level(nodes: &[HandNode], sets: &mut Vec<Vec<bool>>, k: usize) -> Vec<bool> {
        let n = nodes.len();
        let mut x = vec![k.is_multiple_of(2); n];
        loop {
            sets[k - 1] = x.clone();
            let inner = if k == 1 {
                (0..n).map(|v| pre(nodes, sets, v)).collect()
            } else {
                level(nodes, sets, k - 1)
            };
            if inner == x {
                return x;
            }
            x = inner;
        }
    }
    fn pre(nodes: &[HandNode], sets: &[Vec<bool>], v: usize) -> bool {
        let (p_to_move, exit, moves) = &nodes[v];
        let mut reached = moves
            .iter()
            .map(|&(u, kind)| sets[priority(kind, *p_to_move) as usize - 1][u as usize]);
        if *p_to_move {
            *exit || reached.any(|r| r)
        } else {
            !*exit && reached.all(|r| r)
        }
    }
    let mut sets = vec![vec![false; nodes.len()]; TOP as usize];
    level(nodes, &mut sets, TOP as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::MoveAttack::{Chase, Check, Idle, PawnChase};
    use proptest::prelude::*;

    /// A hand-made game with its moves and, derived, its predecessors.
    struct HandMade {
        nodes: Vec<HandNode>,
        preds: Vec<Vec<u64>>,
    }

    impl HandMade {
        fn new(nodes: &[HandNode]) -> HandMade {
            let mut preds = vec![vec![]; nodes.len()];
            for (v, (_, _, moves)) in nodes.iter().enumerate() {
                for &(u, _) in moves {
                    preds[u as usize].push(v as u64);
                }
            }
            HandMade {
                nodes: nodes.to_vec(),
                preds,
            }
        }
    }

    impl RuleGame for HandMade {
        fn id_bound(&self) -> u64 {
            self.nodes.len() as u64
        }
        fn p_to_move(&self, v: u64) -> bool {
            self.nodes[v as usize].0
        }
        fn exit(&self, v: u64) -> bool {
            self.nodes[v as usize].1
        }
        fn any_move(
            &self,
            v: u64,
            mut f: impl FnMut(u64, bool, &dyn Fn() -> MoveAttack) -> bool,
        ) -> bool {
            let moves = &self.nodes[v as usize].2;
            moves
                .iter()
                .any(|&(u, kind)| f(u as u64, kind == Check, &|| kind))
        }
        fn predecessors(&self, v: u64, out: &mut Vec<u64>) {
            out.clone_from(&self.preds[v as usize]);
        }
        fn has_chases(&self) -> bool {
            self.nodes
                .iter()
                .any(|n| n.2.iter().any(|&(_, k)| k == Chase || k == PawnChase))
        }
        fn checks_surely(&self, v: u64) -> bool {
            // Told for every node, so that the games of chases alone take the shortcut.
            self.nodes[v as usize].2.iter().any(|&(_, k)| k == Check)
        }
    }

    fn solved(nodes: &[HandNode]) -> Vec<bool> {
        solved_knowing(nodes, &[], &[])
    }

    /// As [`solved`], told at the start that the nodes `won` are won and the nodes `lost`
    /// are not (both must be so).
    fn solved_knowing(nodes: &[HandNode], won: &[bool], lost: &[bool]) -> Vec<bool> {
        let bits = |known: &[bool]| {
            let bits = Bits::new(nodes.len() as u64);
            for (v, _) in known.iter().enumerate().filter(|(_, k)| **k) {
                bits.set(v as u64);
            }
            bits
        };
        let won = solve(&HandMade::new(nodes), bits(won), bits(lost));
        (0..nodes.len() as u64).map(|v| won.get(v)).collect()
    }

    /// A cycle of two nodes: p moves 0 -> 1 with `by_p`, the opponent 1 -> 0 with `by_o`.
    fn cycle(by_p: MoveAttack, by_o: MoveAttack) -> Vec<HandNode> {
        vec![
            (true, false, vec![(1, by_p)]),
            (false, false, vec![(0, by_o)]),
        ]
    }

    /// A cycle of four nodes: p moves with `p1` then `p2`, the opponent with `o1` then `o2`.
    fn cycle4(p1: MoveAttack, o1: MoveAttack, p2: MoveAttack, o2: MoveAttack) -> Vec<HandNode> {
        vec![
            (true, false, vec![(1, p1)]),
            (false, false, vec![(2, o1)]),
            (true, false, vec![(3, p2)]),
            (false, false, vec![(0, o2)]),
        ]
    }

    #[test]
    fn one_offender_loses() {
        assert_eq!(solved(&cycle(Idle, Chase)), [true, true], "perpetual chase");
        assert_eq!(solved(&cycle(Idle, Check)), [true, true], "perpetual check");
        assert_eq!(
            solved(&cycle4(Idle, Check, Idle, Chase)),
            [true; 4],
            "one check, one chase (一將一捉)"
        );
    }

    #[test]
    fn two_offenders_draw() {
        assert_eq!(solved(&cycle(Chase, Chase)), [false, false]);
        assert_eq!(solved(&cycle(Check, Check)), [false, false]);
        assert_eq!(solved(&cycle4(Check, Chase, Chase, Chase)), [false; 4]);
    }

    #[test]
    fn a_checker_loses_against_a_chaser() {
        assert_eq!(solved(&cycle(Chase, Check)), [true, true]);
        assert_eq!(
            solved(&cycle(Check, Chase)),
            [false, false],
            "p only checks"
        );
        assert_eq!(
            solved(&cycle4(Check, Check, Chase, Check)),
            [true; 4],
            "p checks and chases, the opponent only checks"
        );
    }

    #[test]
    fn attacking_now_and_then_is_allowed() {
        assert_eq!(
            solved(&cycle4(Idle, Chase, Idle, Idle)),
            [false; 4],
            "一捉一閑"
        );
        assert_eq!(
            solved(&cycle4(Idle, Check, Idle, Idle)),
            [false; 4],
            "一將一閑"
        );
        assert_eq!(solved(&cycle(Idle, Idle)), [false, false]);
    }

    #[test]
    fn a_pawns_attack_counts_only_between_offenders() {
        assert_eq!(
            solved(&cycle(Idle, PawnChase)),
            [false, false],
            "the opponent's pawn alone is idle"
        );
        assert_eq!(
            solved(&cycle(PawnChase, Check)),
            [true, true],
            "p's pawn chases against perpetual check"
        );
        assert_eq!(
            solved(&cycle(PawnChase, Chase)),
            [false, false],
            "both attack perpetually: two offenders"
        );
        assert_eq!(
            solved(&cycle(Check, PawnChase)),
            [false, false],
            "p only checks against a pawn that attacks with every move"
        );
    }

    #[test]
    fn the_offender_may_vary_into_a_loss_or_a_draw() {
        // From 1 the opponent chases into 0 or moves idly to 2, where p's only move returns
        // idly: the idle cycle holds the draw; with an exit p wins at 2, only chases remain.
        let mut nodes = vec![
            (true, false, vec![(1, Idle)]),
            (false, false, vec![(0, Chase), (2, Idle)]),
            (true, false, vec![(1, Idle)]),
        ];
        assert_eq!(solved(&nodes), [false; 3]);
        nodes[2].1 = true;
        assert_eq!(solved(&nodes), [true; 3]);
        // An opponent exit (a result p does not win) settles its node.
        let mut nodes = cycle(Idle, Chase);
        nodes[1].1 = true;
        assert_eq!(solved(&nodes), [false, false]);
    }

    /// Twenty two-node cycles, p's moves idle, the opponent's `by_o`.
    fn cycles(by_o: MoveAttack) -> Vec<HandNode> {
        (0..20u32)
            .flat_map(|k| {
                [
                    (true, false, vec![(2 * k + 1, Idle)]),
                    (false, false, vec![(2 * k, by_o)]),
                ]
            })
            .collect()
    }

    #[test]
    fn idle_escapes_cut_off_idle_draws_and_give_up_where_p_forces_much() {
        let none = || Bits::new(40);
        // The opponent moves idly in every cycle: p forces nothing, every node is cut off.
        let lost = none();
        assert!(idle_escapes(
            &HandMade::new(&cycles(Idle)),
            &none(),
            &lost,
            true
        ));
        assert_eq!(lost.count(), 40);
        // It chases in every cycle: p forces it to attack from every node, past a tenth of
        // them, so the search gives up and cuts off nothing; the solver still finds p's wins.
        let lost = none();
        assert!(!idle_escapes(
            &HandMade::new(&cycles(Chase)),
            &none(),
            &lost,
            true
        ));
        assert_eq!(lost.count(), 0);
        assert_eq!(solved(&cycles(Chase)), [true; 40]);
    }

    /// A random game of `n` nodes from `bits`: p moves from the even nodes, the opponent
    /// from the odd, up to three moves each, of any kind.
    fn random_game(n: usize, bits: &[u32]) -> Vec<HandNode> {
        const KINDS: [MoveAttack; 4] = [Idle, Chase, PawnChase, Check];
        (0..n)
            .map(|v| {
                let b = bits[v];
                let moves = (0..(b >> 4) % 4)
                    .map(|k| {
                        let u = (b >> (8 + 6 * k)) as usize % n;
                        let u = (u - u % 2 + (1 - v % 2)) as u32 % n as u32;
                        (u, KINDS[(b >> (k * 2)) as usize % 4])
                    })
                    .collect();
                (v % 2 == 0, b % 16 == 15, moves)
            })
            .collect()
    }

    /// The perpetual-check game of [`super::super::fixpoint`] (labels by the node reached)
    /// as a game of this module: a move into a checked node is a check, any other is idle.
    fn check_only(nodes: &[super::super::fixpoint::HandNode]) -> Vec<HandNode> {
        nodes
            .iter()
            .map(|(p, _, exit, succ)| {
                let kind = |u: u32| if nodes[u as usize].1 { Check } else { Idle };
                (*p, *exit, succ.iter().map(|&u| (u, kind(u))).collect())
            })
            .collect()
    }

    proptest! {
        #[test]
        fn the_solver_agrees_with_the_textbook(bits in prop::collection::vec(any::<u32>(), 2..50)) {
            let nodes = random_game(bits.len() - bits.len() % 2, &bits);
            prop_assert_eq!(solved(&nodes), textbook(&nodes));
        }

        #[test]
        fn what_is_known_changes_nothing(bits in prop::collection::vec(any::<u32>(), 2..50), pick in any::<u64>()) {
            let nodes = random_game(bits.len() - bits.len() % 2, &bits);
            let want = textbook(&nodes);
            // Any part of the winning nodes and of the others, told at the start.
            let told = |v: usize| pick >> (v % 64) & 1 == 1;
            let won: Vec<bool> = want.iter().enumerate().map(|(v, &w)| w && told(v)).collect();
            let lost: Vec<bool> = want.iter().enumerate().map(|(v, &w)| !w && told(v)).collect();
            prop_assert_eq!(solved_knowing(&nodes, &won, &lost), want);
        }

        #[test]
        fn what_checks_alone_win_chases_keep(bits in prop::collection::vec(any::<u32>(), 2..50)) {
            let nodes = random_game(bits.len() - bits.len() % 2, &bits);
            let checks_only: Vec<HandNode> = nodes
                .iter()
                .map(|(p, exit, moves)| {
                    let idle = |k| if k == Check { Check } else { Idle };
                    (*p, *exit, moves.iter().map(|&(u, k)| (u, idle(k))).collect())
                })
                .collect();
            let with_chases = textbook(&nodes);
            for (v, won) in textbook(&checks_only).into_iter().enumerate() {
                prop_assert!(!won || with_chases[v], "node {}", v);
            }
        }

        #[test]
        fn chases_alone_solved_within_the_games_wins(bits in prop::collection::vec(any::<u32>(), 2..50)) {
            let nodes = random_game(bits.len() - bits.len() % 2, &bits);
            let game = HandMade::new(&nodes);
            // The game with the opponent's checks taken as idle moves, written out.
            let chases_alone: Vec<HandNode> = nodes
                .iter()
                .map(|(p, exit, moves)| {
                    let idle = |k| if !*p && k == Check { Idle } else { k };
                    (*p, *exit, moves.iter().map(|&(u, k)| (u, idle(k))).collect())
                })
                .collect();
            let within = solve(&game, Bits::new(game.id_bound()), Bits::new(game.id_bound()));
            let won = solve_within(&ChasesAlone(&game), &within);
            let got: Vec<bool> = (0..nodes.len() as u64).map(|v| won.get(v)).collect();
            prop_assert_eq!(got, textbook(&chases_alone));
        }

        #[test]
        fn without_chases_it_is_the_perpetual_check_rule(bits in prop::collection::vec(any::<u32>(), 2..50)) {
            let nodes = super::super::fixpoint::random_game(bits.len() - bits.len() % 2, &bits);
            let want = super::super::fixpoint::textbook(&nodes);
            prop_assert_eq!(solved(&check_only(&nodes)), want);
        }
    }
}
