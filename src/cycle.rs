//! The cycle that decides a result by a repetition rule, found from the tables' values.
//!
//! The tables store values, not plans: a position won by the rule is one where the loser
//! cannot avoid a mate except by an endless play the rule forbids it. [`find_rule_cycle`]
//! shows such a play. From the position it explores, breadth first, the positions both sides
//! reach while keeping their values (the winner's moves to positions the loser loses by the
//! rule, the loser's moves to positions the winner wins by the rule; every other move of the
//! loser walks into a mate), and looks among them for a cycle the rule decides against the
//! loser ([`Shape`]):
//! - every move of the loser checks or chases, and the winner moves idly at least once: one
//!   offender, who loses;
//! - every move of the loser checks, and every move of the winner checks or chases, at least
//!   one a chase: a side that only checks loses against one that chases.
//!
//! The search re-derives the rule from the moves' attacks ([`Position::move_attack`]), not
//! from the solver's priorities, so a cycle found is an independent demonstration. It is one
//! play among many (the loser may have other moves that keep its value), and it may not be
//! found within the search's budget in a set where the cycles lie far from the position.

use crate::probe::{ProbeError, RuleSet, Tablebase};
use crate::rules::{Color, Move, MoveAttack, Position};
use crate::value::{Outcome, Rule};
use std::collections::{HashMap, VecDeque};

/// A cycle the rule decides, reached from the position searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCycle {
    /// The side that wins by the rule.
    pub winner: Color,
    /// The rule that decides the position's value.
    pub rule: Rule,
    /// Moves from the position searched to the cycle's first position (shortest found).
    pub prefix: Vec<Move>,
    /// The cycle's moves: after the last, the cycle's first position stands again.
    pub cycle: Vec<Move>,
    /// For each move of the cycle, every move its side had there that keeps its value (the
    /// loser's others walk into a mate; the winner's others let the loser off).
    pub keeping: Vec<Vec<Move>>,
    /// What kind of cycle it is.
    pub shape: Shape,
}

/// The two kinds of cycle the rule decides against the loser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every move of the loser attacks (checks or chases); the winner moves idly at least
    /// once, so it is no offender.
    OneOffender,
    /// Every move of the loser checks; every move of the winner checks or chases, at least one
    /// a chase: both attack forever, and the side that only checks loses.
    CheckerAgainstChaser,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleSearch {
    /// The cycle, if one was found.
    pub found: Option<RuleCycle>,
    /// Positions whose moves were examined.
    pub explored: usize,
    /// True if every position reachable while both sides keep their values was examined (a
    /// cycle not found then does not exist, which would contradict the table).
    pub complete: bool,
}

/// How many positions [`find_rule_cycle`] examines at most by default.
pub const DEFAULT_BUDGET: usize = 50_000;

/// Looks for a cycle that decides `pos`'s result by the rule, examining at most `budget`
/// positions. `found` is `None` when `pos`'s value is not decided by a rule, or when no
/// cycle lies within the budget.
///
/// # Errors
///
/// `pos` is illegal, or a table the search needs is missing or damaged.
pub fn find_rule_cycle(
    tb: &Tablebase,
    pos: &Position,
    budget: usize,
) -> Result<CycleSearch, ProbeError> {
    let (winner, rule) = match tb.probe_outcome(pos)? {
        Outcome::WinByRule(rule) => (pos.turn(), rule),
        Outcome::LossByRule(rule) => (pos.turn().opponent(), rule),
        _ => {
            return Ok(CycleSearch {
                found: None,
                explored: 0,
                complete: true,
            });
        }
    };
    let mut graph = Graph::new(tb, winner, pos.clone());
    let mut stage = budget.min(1_000);
    loop {
        graph.explore(stage)?;
        let complete = graph.queue.is_empty();
        if let Some((prefix, cycle, shape)) = graph.cycle(rule) {
            let keeping = graph.keeping_along(pos, &prefix, &cycle);
            let found = RuleCycle {
                winner,
                rule,
                prefix,
                cycle,
                keeping,
                shape,
            };
            return Ok(graph.outcome(Some(found), complete));
        }
        if complete || stage >= budget {
            return Ok(graph.outcome(None, complete));
        }
        stage = (stage * 8).min(budget);
    }
}

/// One move between two positions that keep their values.
#[derive(Clone, Copy, Debug)]
struct Edge {
    mv: Move,
    to: u32,
    /// What the move does for the rule set; `None` for a capture, which leaves the set and
    /// so is never part of a cycle.
    attack: Option<MoveAttack>,
}

/// A position reached, with how it was first reached.
struct Node {
    pos: Position,
    /// The node it was first reached from, and the move: the shortest way from the start.
    parent: Option<(u32, Move)>,
    /// Its moves that keep the values, once examined.
    edges: Option<Vec<Edge>>,
}

/// The positions reached so far.
struct Graph<'a> {
    tb: &'a Tablebase,
    winner: Color,
    nodes: Vec<Node>,
    index: HashMap<Vec<u8>, u32>,
    queue: VecDeque<u32>,
    explored: usize,
}

impl<'a> Graph<'a> {
    fn new(tb: &'a Tablebase, winner: Color, start: Position) -> Graph<'a> {
        let mut graph = Graph {
            tb,
            winner,
            nodes: Vec::new(),
            index: HashMap::new(),
            queue: VecDeque::new(),
            explored: 0,
        };
        graph.node_of(start, None);
        graph
    }

    fn outcome(&self, found: Option<RuleCycle>, complete: bool) -> CycleSearch {
        CycleSearch {
            found,
            explored: self.explored,
            complete,
        }
    }

    /// The node of `pos`, added (and queued) if new.
    fn node_of(&mut self, pos: Position, parent: Option<(u32, Move)>) -> u32 {
        let key = board_key(&pos);
        if let Some(&v) = self.index.get(&key) {
            return v;
        }
        let v = self.nodes.len() as u32;
        self.nodes.push(Node {
            pos,
            parent,
            edges: None,
        });
        self.index.insert(key, v);
        self.queue.push_back(v);
        v
    }

    /// Examines queued positions until `budget` have been examined in all.
    fn explore(&mut self, budget: usize) -> Result<(), ProbeError> {
        while self.explored < budget {
            let Some(v) = self.queue.pop_front() else {
                break;
            };
            let edges = self.edges_of(v)?;
            self.nodes[v as usize].edges = Some(edges);
            self.explored += 1;
        }
        Ok(())
    }

    /// The moves of node `v` that keep both sides' values.
    fn edges_of(&mut self, v: u32) -> Result<Vec<Edge>, ProbeError> {
        let pos = self.nodes[v as usize].pos.clone();
        let by_winner = pos.turn() == self.winner;
        let mut edges = Vec::new();
        for &mv in pos.legal_moves().iter() {
            let after = pos.after(mv);
            let keeps = match self.tb.probe_outcome(&after)? {
                Outcome::LossByRule(_) => by_winner,
                Outcome::WinByRule(_) => !by_winner,
                _ => false,
            };
            if !keeps {
                continue;
            }
            let attack = (!pos.is_capture(mv)).then(|| attack_under(self.tb.rules(), &pos, mv));
            let to = self.node_of(after, Some((v, mv)));
            edges.push(Edge { mv, to, attack });
        }
        Ok(edges)
    }

    /// The shortest prefix and cycle of the first shape (in the order that suits `rule`)
    /// found among the positions examined.
    fn cycle(&self, rule: Rule) -> Option<(Vec<Move>, Vec<Move>, Shape)> {
        use Shape::*;
        let kinds: &[(Shape, LoserPlays)] = match rule {
            Rule::PerpetualCheck => &[
                (OneOffender, LoserPlays::Checks),
                (CheckerAgainstChaser, LoserPlays::Checks),
                (OneOffender, LoserPlays::Attacks),
            ],
            Rule::PerpetualChase => &[
                (OneOffender, LoserPlays::Chases),
                (OneOffender, LoserPlays::Attacks),
                (CheckerAgainstChaser, LoserPlays::Checks),
            ],
            Rule::Mixed => &[
                (OneOffender, LoserPlays::Attacks),
                (CheckerAgainstChaser, LoserPlays::Checks),
            ],
        };
        kinds.iter().find_map(|&(shape, loser)| {
            let (start, cycle) = self.cycle_of(shape, loser)?;
            Some((self.path_to(start), cycle, shape))
        })
    }

    /// For each move of `cycle` (played after `prefix` from `start`), the moves of its
    /// position that keep the mover's value.
    fn keeping_along(&self, start: &Position, prefix: &[Move], cycle: &[Move]) -> Vec<Vec<Move>> {
        let mut pos = start.clone();
        for &mv in prefix {
            pos.make(mv);
        }
        let mut keeping = Vec::with_capacity(cycle.len());
        for &mv in cycle {
            let v = self.index[&board_key(&pos)];
            keeping.push(self.edges(v).iter().map(|e| e.mv).collect());
            pos.make(mv);
        }
        keeping
    }

    /// The moves from the start to node `v` by the way it was first reached.
    fn path_to(&self, mut v: u32) -> Vec<Move> {
        let mut moves = Vec::new();
        while let Some((parent, mv)) = self.nodes[v as usize].parent {
            moves.push(mv);
            v = parent;
        }
        moves.reverse();
        moves
    }

    /// True if edge `e`, made by the winner (`by_winner`) or the loser, may lie on a cycle of
    /// `shape` whose loser plays `loser`.
    fn allowed(shape: Shape, loser: LoserPlays, by_winner: bool, e: &Edge) -> bool {
        let Some(attack) = e.attack else {
            return false;
        };
        match (shape, by_winner) {
            (Shape::OneOffender, true) => true,
            (Shape::CheckerAgainstChaser, true) => attack != MoveAttack::Idle,
            (_, false) => loser.admits(attack),
        }
    }

    /// True if edge `e` is what makes a cycle of `shape` go against the loser: an idle move
    /// of the winner, or its chase.
    fn decisive(shape: Shape, by_winner: bool, e: &Edge) -> bool {
        by_winner
            && match shape {
                Shape::OneOffender => e.attack == Some(MoveAttack::Idle),
                Shape::CheckerAgainstChaser => {
                    matches!(e.attack, Some(MoveAttack::Chase | MoveAttack::PawnChase))
                }
            }
    }

    /// The start and moves of the shortest cycle of `shape` through a decisive edge, among
    /// the few decisive edges nearest the start.
    fn cycle_of(&self, shape: Shape, loser: LoserPlays) -> Option<(u32, Vec<Move>)> {
        let allowed = |u: u32, e: &Edge| Self::allowed(shape, loser, self.by_winner(u), e);
        let component = strongly_connected(self.nodes.len(), |u, out| {
            for e in self.edges(u) {
                if allowed(u, e) {
                    out.push(e.to);
                }
            }
        });
        let mut candidates: Vec<(usize, u32, Edge)> = Vec::new();
        for u in 0..self.nodes.len() as u32 {
            for e in self.edges(u) {
                if allowed(u, e)
                    && Self::decisive(shape, self.by_winner(u), e)
                    && component[u as usize] == component[e.to as usize]
                {
                    candidates.push((self.path_to(u).len(), u, *e));
                }
            }
        }
        candidates.sort_by_key(|&(depth, u, _)| (depth, u));
        candidates
            .iter()
            .take(32)
            .filter_map(|&(depth, u, e)| {
                let back = self.shortest_path(e.to, u, &allowed)?;
                let mut cycle = vec![e.mv];
                cycle.extend(back);
                Some((depth + cycle.len(), u, cycle))
            })
            .min_by_key(|(len, _, _)| *len)
            .map(|(_, u, cycle)| (u, cycle))
    }

    /// The moves of the shortest way from `from` to `to` over allowed edges.
    fn shortest_path(
        &self,
        from: u32,
        to: u32,
        allowed: &dyn Fn(u32, &Edge) -> bool,
    ) -> Option<Vec<Move>> {
        let mut came: HashMap<u32, (u32, Move)> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        let mut reached = from == to;
        while let Some(u) = queue.pop_front() {
            if reached {
                break;
            }
            for e in self.edges(u) {
                if allowed(u, e) && e.to != from && !came.contains_key(&e.to) {
                    came.insert(e.to, (u, e.mv));
                    reached |= e.to == to;
                    queue.push_back(e.to);
                }
            }
        }
        let mut moves = Vec::new();
        let mut v = to;
        while v != from {
            let &(u, mv) = came.get(&v)?;
            moves.push(mv);
            v = u;
        }
        moves.reverse();
        Some(moves)
    }

    fn by_winner(&self, u: u32) -> bool {
        self.nodes[u as usize].pos.turn() == self.winner
    }

    fn edges(&self, u: u32) -> &[Edge] {
        self.nodes[u as usize].edges.as_deref().unwrap_or(&[])
    }
}

/// The attacks the loser's moves in a cycle are limited to.
#[derive(Clone, Copy, Debug)]
enum LoserPlays {
    Checks,
    Chases,
    Attacks,
}

impl LoserPlays {
    fn admits(self, attack: MoveAttack) -> bool {
        match self {
            LoserPlays::Checks => attack == MoveAttack::Check,
            LoserPlays::Chases => attack == MoveAttack::Chase,
            LoserPlays::Attacks => matches!(attack, MoveAttack::Check | MoveAttack::Chase),
        }
    }
}

/// What quiet move `mv` does under `rules`: chases are idle moves where only checks count.
fn attack_under(rules: RuleSet, pos: &Position, mv: Move) -> MoveAttack {
    match (rules, pos.move_attack(mv)) {
        (RuleSet::Asian, attack) | (_, attack @ MoveAttack::Check) => attack,
        _ => MoveAttack::Idle,
    }
}

/// The board and side to move: what a repetition compares.
fn board_key(pos: &Position) -> Vec<u8> {
    let mut key = vec![pos.turn().index() as u8];
    for (sq, piece) in pos.pieces() {
        key.push(sq.index() as u8);
        key.push(piece.fen_char() as u8);
    }
    key
}

/// The strongly connected component of every node `0..n` of the graph whose successors
/// `successors(u, out)` pushes onto `out` (Tarjan's algorithm, without recursion).
fn strongly_connected(n: usize, successors: impl Fn(u32, &mut Vec<u32>)) -> Vec<u32> {
    let mut t = Tarjan {
        order: vec![UNSEEN; n],
        low: vec![0; n],
        component: vec![UNSEEN; n],
        stack: Vec::new(),
        frames: Vec::new(),
        next_order: 0,
        components: 0,
    };
    for root in 0..n as u32 {
        if t.order[root as usize] == UNSEEN {
            t.visit(root, &successors);
            t.run(&successors);
        }
    }
    t.component
}

/// Not yet numbered.
const UNSEEN: u32 = u32::MAX;

/// Tarjan's algorithm's state.
struct Tarjan {
    order: Vec<u32>,
    low: Vec<u32>,
    component: Vec<u32>,
    stack: Vec<u32>,
    /// The depth-first path: each node with its successors and how many were visited.
    frames: Vec<(u32, Vec<u32>, usize)>,
    next_order: u32,
    components: u32,
}

impl Tarjan {
    fn visit(&mut self, u: u32, successors: &impl Fn(u32, &mut Vec<u32>)) {
        self.order[u as usize] = self.next_order;
        self.low[u as usize] = self.next_order;
        self.next_order += 1;
        self.stack.push(u);
        let mut out = Vec::new();
        successors(u, &mut out);
        self.frames.push((u, out, 0));
    }

    /// Walks depth first until the path is empty, numbering components as they close.
    fn run(&mut self, successors: &impl Fn(u32, &mut Vec<u32>)) {
        while let Some((u, out, k)) = self.frames.last_mut() {
            let u = *u;
            if let Some(&w) = out.get(*k) {
                *k += 1;
                if self.order[w as usize] == UNSEEN {
                    self.visit(w, successors);
                } else if self.component[w as usize] == UNSEEN {
                    self.low[u as usize] = self.low[u as usize].min(self.order[w as usize]);
                }
                continue;
            }
            self.frames.pop();
            if let Some(&(parent, _, _)) = self.frames.last() {
                self.low[parent as usize] = self.low[parent as usize].min(self.low[u as usize]);
            }
            if self.low[u as usize] == self.order[u as usize] {
                while let Some(w) = self.stack.pop() {
                    self.component[w as usize] = self.components;
                    if w == u {
                        break;
                    }
                }
                self.components += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn components(edges: &[(u32, u32)], n: usize) -> Vec<u32> {
        strongly_connected(n, |u, out| {
            out.extend(edges.iter().filter(|e| e.0 == u).map(|e| e.1));
        })
    }

    #[test]
    fn components_join_exactly_the_nodes_on_a_common_cycle() {
        // 0 -> 1 -> 2 -> 0 is a cycle; 2 -> 3 -> 4 -> 3 another; 5 stands alone.
        let c = components(&[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 5)], 6);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert!(c[3] == c[4] && c[3] != c[0]);
        assert!(c[5] != c[0] && c[5] != c[3]);
        // A chain has no cycle: every node is its own component.
        let c = components(&[(0, 1), (1, 2)], 3);
        assert!(c[0] != c[1] && c[1] != c[2] && c[0] != c[2]);
    }
}
