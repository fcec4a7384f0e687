//! The perpetual-check pass over an explicit graph of the draws' moves (up to 170 bytes a draw,
//! each step of the fixpoint a scan of memory). It was once the faster pass; the bitmap pass of
//! [`super::perpetual`] computes the same fixpoint in 2 to 4.4 bytes a draw and, since its
//! first round reads the draws' flags, faster. It runs when asked (`--rule-pass graph`), and
//! the tests compare the two passes.
//!
//! The rule, the labels and the fixpoint are described in [`super::perpetual`].
//!
//! The moves between draws are generated once per side p into an explicit graph
//! ([`DrawGraph`]): successors of every draw, plus, for each draw whose side to move is in
//! check, the draws that move into it. Every step of the fixpoint is then a scan of that graph
//! rather than a fresh move generation.
//!

use super::draw_index::DrawIndex;
use super::fixpoint::{CHECKED, EXIT, P_TO_MOVE};
use super::perpetual::RuleCounts;
use super::{GenError, Neighbours, Solver, par_chunks};
use crate::index::MAX_MEN;
use crate::rules::Color;
use crate::value::Rule;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering::Relaxed};

const X: u8 = 8;
const Y: u8 = 16;
const Z: u8 = 32;

/// Memory of the draw graph per draw, bytes, for the memory guard and `auto`'s choice: node
/// arrays (offsets, reverse offsets, flags, counter, in-degree: 22 bytes), the successors of
/// 4 bytes each, and the chunks' parts while they are joined. Measured as the rule phase's
/// peak over the sweep's, per draw, on every set up to 5 men: 40-70 on most, 145 on KCAKC
/// and 165 on KCKC (a cannon's many quiet moves); this is the largest, so that the graph is
/// never chosen where it would raise a run's peak past its budget.
pub(crate) const BYTES_PER_DRAW: u64 = 170;

/// Counter value of a node that cannot join Z in the current attractor.
const NEVER: u8 = 0xFF;

/// Everything one chunk of slots contributes to the graph.
#[derive(Default)]
struct Part {
    degrees: Vec<u32>,
    edges: Vec<u32>,
    flags: Vec<u8>,
}

/// The draws of a table as an explicit game graph for one side p.
struct DrawGraph {
    /// `offsets[v]..offsets[v + 1]` indexes `edges`: the distinct draws node v moves to.
    offsets: Vec<u64>,
    edges: Vec<u32>,
    /// For nodes in check: the draws that move into them (same layout).
    rev_offsets: Vec<u64>,
    rev_edges: Vec<u32>,
    flags: Vec<AtomicU8>,
    /// Unresolved checking moves of opponent-to-move nodes during one Z attractor.
    counters: Vec<AtomicU8>,
}

impl DrawGraph {
    /// A graph from each node's flags and its distinct successors (`offsets[v]..offsets[v + 1]`
    /// of `edges`); adds the predecessors of checked nodes.
    fn new(flags: Vec<AtomicU8>, offsets: Vec<u64>, edges: Vec<u32>) -> Self {
        let nodes = flags.len();
        // Predecessors of checked nodes: only checking moves into Z make Z grow backwards.
        let in_degree: Vec<AtomicU32> = (0..nodes).map(|_| AtomicU32::new(0)).collect();
        (0..nodes).into_par_iter().with_min_len(4096).for_each(|v| {
            for &u in &edges[offsets[v] as usize..offsets[v + 1] as usize] {
                if flags[u as usize].load(Relaxed) & CHECKED != 0 {
                    in_degree[u as usize].fetch_add(1, Relaxed);
                }
            }
        });
        let mut rev_offsets = Vec::with_capacity(nodes + 1);
        rev_offsets.push(0u64);
        for d in &in_degree {
            rev_offsets.push(rev_offsets.last().copied().unwrap_or(0) + d.load(Relaxed) as u64);
        }
        let rev_total = rev_offsets[nodes] as usize;
        let rev_cells: Vec<AtomicU32> = (0..rev_total).map(|_| AtomicU32::new(0)).collect();
        (0..nodes).into_par_iter().with_min_len(4096).for_each(|v| {
            for &u in &edges[offsets[v] as usize..offsets[v + 1] as usize] {
                if flags[u as usize].load(Relaxed) & CHECKED != 0 {
                    let k = in_degree[u as usize].fetch_sub(1, Relaxed) - 1;
                    rev_cells[rev_offsets[u as usize] as usize + k as usize]
                        .store(v as u32, Relaxed);
                }
            }
        });
        let rev_edges = rev_cells.into_iter().map(AtomicU32::into_inner).collect();
        DrawGraph {
            offsets,
            edges,
            rev_offsets,
            rev_edges,
            counters: (0..nodes).map(|_| AtomicU8::new(0)).collect(),
            flags,
        }
    }

    fn len(&self) -> usize {
        self.flags.len()
    }

    fn successors(&self, v: usize) -> &[u32] {
        &self.edges[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    fn predecessors(&self, v: usize) -> &[u32] {
        &self.rev_edges[self.rev_offsets[v] as usize..self.rev_offsets[v + 1] as usize]
    }
}

impl Solver<'_> {
    /// The current draws of both sides, ranked; refuses if their graph cannot fit in memory.
    fn draw_ranks(&self) -> Result<DrawIndex, GenError> {
        let ids = DrawIndex::new(&self.cells);
        let draws = ids.count();
        let need = draws * BYTES_PER_DRAW;
        let avail = super::available_memory();
        if draws >= u32::MAX as u64 || (avail > 0 && need > avail / 10 * 9) {
            let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
            return Err(GenError::RulePassTooLarge {
                material: self.index.material().name(),
                draws,
                need_gib: gib(need),
                avail_gib: gib(avail),
            });
        }
        Ok(ids)
    }

    /// The graph of the current draws for side p: one move generation per draw. Node ids are
    /// the draws' ranks.
    fn draw_graph(&self, p: Color) -> Result<(DrawIndex, DrawGraph), GenError> {
        let ranks = self.draw_ranks()?;
        let n = self.index.layout().len();
        let size = self.index.size();
        let mut parts: Vec<Part> = vec![];
        for side in Color::ALL {
            let side_parts: Vec<Part> = par_chunks(size)
                .map_init(Vec::new, |succ: &mut Vec<u32>, range| {
                    let mut part = Part::default();
                    for i in range {
                        if ranks.id(side, i).is_none() {
                            continue;
                        }
                        let flags = self.draw_node(p, side, i, n, &ranks, succ)?;
                        part.degrees.push(succ.len() as u32);
                        part.edges.extend_from_slice(succ);
                        part.flags.push(flags);
                    }
                    Ok(part)
                })
                .collect::<Result<_, GenError>>()?;
            parts.extend(side_parts);
        }
        let nodes: usize = parts.iter().map(|p| p.flags.len()).sum();
        let total_edges: usize = parts.iter().map(|p| p.edges.len()).sum();
        let mut offsets = Vec::with_capacity(nodes + 1);
        let mut edges = Vec::with_capacity(total_edges);
        let mut flags = Vec::with_capacity(nodes);
        offsets.push(0u64);
        for part in parts {
            for d in part.degrees {
                offsets.push(offsets.last().copied().unwrap_or(0) + d as u64);
            }
            edges.extend_from_slice(&part.edges);
            flags.extend(part.flags.into_iter().map(AtomicU8::new));
        }
        Ok((ranks, DrawGraph::new(flags, offsets, edges)))
    }

    /// Flags of draw slot `i` (`side` to move) for side p, with its distinct successor draws
    /// in `succ`.
    fn draw_node(
        &self,
        p: Color,
        side: Color,
        i: u64,
        n: usize,
        ranks: &DrawIndex,
        succ: &mut Vec<u32>,
    ) -> Result<u8, GenError> {
        let mut sq = [0u8; MAX_MEN];
        let sq = &mut sq[..n];
        self.index.decode_squares(i, sq);
        let pos = self.index.position_of(sq, side);
        let next = side.opponent();
        let mut flags = if side == p { P_TO_MOVE } else { 0 };
        let checked = pos.in_check();
        if checked {
            flags |= CHECKED;
        }
        let mut near = Neighbours::new(self.index, sq);
        succ.clear();
        for &mv in pos.legal_moves_knowing_check(checked).iter() {
            let fixed = if pos.is_capture(mv) {
                self.capture_value_raw(&pos, near.squares(), mv)?
                    .to_stored()
            } else {
                let j = near.slot_after(self.index, mv.from, mv.to);
                match ranks.id(next, j) {
                    Some(u) => {
                        succ.push(u as u32);
                        continue;
                    }
                    None => self.cells.stored(next.index(), j),
                }
            };
            // A move out of the draws: p wins there or does not.
            let p_wins = self.fixed_win_for(p, next, fixed);
            if p_wins == (side == p) {
                flags |= EXIT;
            }
        }
        succ.sort_unstable();
        succ.dedup();
        Ok(flags)
    }
}

/// The nested fixpoint over one side's graph.
struct Pass {
    graph: DrawGraph,
}

impl Pass {
    fn flags(&self, v: u32) -> u8 {
        self.graph.flags[v as usize].load(Relaxed)
    }

    /// True if some opponent-to-move draw cannot move to a draw without checking and has no
    /// exit, or some p-to-move draw has an exit (a capture into a sub-table's win by the
    /// rule): only then can p win anything by the rule.
    fn rule_can_apply(&self) -> bool {
        (0..self.graph.len()).into_par_iter().any(|v| {
            let f = self.flags(v as u32);
            f & (P_TO_MOVE | EXIT) == P_TO_MOVE | EXIT
                || f & (P_TO_MOVE | EXIT) == 0
                    && self
                        .graph
                        .successors(v)
                        .iter()
                        .all(|&u| self.flags(u) & CHECKED != 0)
        })
    }

    /// Least fixpoint of Z for the current X and Y, as an attractor: a move's label depends
    /// only on the node it reaches (a check when the side to move there is in check), so Z
    /// grows backwards along checking moves, with a counter of unresolved checking moves per
    /// opponent-to-move node, as in the mate search.
    ///
    /// A p-to-move node joins at once if it has an exit or a quiet move reaches Y; otherwise
    /// when a checking move reaches Z. An opponent-to-move node qualifies only if it has no
    /// exit and each quiet move reaches X; it joins when each checking move reaches Z.
    fn solve_z(&self) {
        let g = &self.graph;
        let frontier: Vec<u32> = (0..g.len())
            .into_par_iter()
            .with_min_len(4096)
            .filter(|&v| {
                let cell = &g.flags[v];
                let f = cell.fetch_and(!Z, Relaxed);
                let succ = g.successors(v);
                let joins = if f & P_TO_MOVE != 0 {
                    f & EXIT != 0
                        || succ.iter().any(|&u| {
                            let h = self.flags(u);
                            h & CHECKED == 0 && h & Y != 0
                        })
                } else {
                    let mut checks = 0u8;
                    let mut ok = f & EXIT == 0;
                    for &u in succ {
                        let h = self.flags(u);
                        if h & CHECKED != 0 {
                            checks += 1;
                        } else if h & X == 0 {
                            ok = false;
                            break;
                        }
                    }
                    g.counters[v].store(if ok { checks } else { NEVER }, Relaxed);
                    ok && checks == 0
                };
                if joins {
                    cell.fetch_or(Z, Relaxed);
                }
                joins
            })
            .map(|v| v as u32)
            .collect();
        let mut frontier = frontier;
        while !frontier.is_empty() {
            frontier = frontier
                .par_iter()
                .with_min_len(256)
                .flat_map_iter(|&v| {
                    g.predecessors(v as usize).iter().copied().filter(|&w| {
                        let cell = &g.flags[w as usize];
                        let f = cell.load(Relaxed);
                        if f & Z != 0 {
                            return false;
                        }
                        let joins = if f & P_TO_MOVE != 0 {
                            true
                        } else {
                            let counter = &g.counters[w as usize];
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
                        joins && cell.fetch_or(Z, Relaxed) & Z == 0
                    })
                })
                .collect();
        }
    }

    /// Copies bit `from` onto bit `to` on every node; true if anything changed.
    fn copy_bit(&self, from: u8, to: u8) -> bool {
        // One flag per chunk, combined at the end: a shared "changed" flag written by every
        // thread for every changed node kept two cores fighting over one cache line.
        self.graph
            .flags
            .par_chunks(1 << 14)
            .map(|chunk| {
                let mut changed = false;
                for c in chunk {
                    let f = c.load(Relaxed);
                    let want = f & from != 0;
                    if want != (f & to != 0) {
                        changed = true;
                        c.store(if want { f | to } else { f & !to }, Relaxed);
                    }
                }
                changed
            })
            .reduce(|| false, |a, b| a || b)
    }

    /// Runs the fixpoint; afterwards X holds the draws p wins.
    fn run(&self) {
        if !self.rule_can_apply() {
            return;
        }
        // mu X: X grows from the empty set.
        loop {
            // nu Y: Y shrinks from every draw.
            self.graph.flags.par_iter().for_each(|c| {
                c.fetch_or(Y, Relaxed);
            });
            loop {
                self.solve_z();
                if !self.copy_bit(Z, Y) {
                    break;
                }
            }
            if !self.copy_bit(Y, X) {
                return;
            }
        }
    }
}

impl Solver<'_> {
    /// Applies the perpetual-check rule to the draws left by the mate search and returns how
    /// many positions (slots) it changed per side to move.
    pub(crate) fn apply_perpetual_rule_graph(
        &mut self,
        spill: &std::path::Path,
    ) -> Result<RuleCounts, GenError> {
        let mut counts: RuleCounts = [(0, 0); 2];
        for p in self.sides_the_rule_can_favour(false) {
            let (ranks, graph) = self.draw_graph(p)?;
            // The graph holds all the pass reads: the cells wait on disk meanwhile.
            self.spill_cells(spill)?;
            let pass = Pass { graph };
            pass.run();
            let rule_of = |v: u64| (pass.flags(v as u32) & X != 0).then_some(Rule::PerpetualCheck);
            self.mark_rule_results(p, spill, &ranks, rule_of, &mut counts)?;
            drop(pass);
            self.restore_cells(spill)?;
        }
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixpoint::{HandNode, hand_made_games, random_game, textbook};
    use super::*;
    use proptest::prelude::*;

    /// The nodes the graph pass finds p wins in a hand-made game.
    fn won(nodes: &[HandNode]) -> Vec<bool> {
        let mut offsets = vec![0u64];
        let mut edges = vec![];
        let mut flags = vec![];
        for (p, check, exit, succ) in nodes {
            // The graph holds distinct successors.
            let mut succ = succ.clone();
            succ.sort_unstable();
            succ.dedup();
            edges.extend_from_slice(&succ);
            offsets.push(edges.len() as u64);
            let f = (*p as u8 * P_TO_MOVE) | (*check as u8 * CHECKED) | (*exit as u8 * EXIT);
            flags.push(AtomicU8::new(f));
        }
        let pass = Pass {
            graph: DrawGraph::new(flags, offsets, edges),
        };
        pass.run();
        (0..nodes.len() as u32)
            .map(|v| pass.flags(v) & X != 0)
            .collect()
    }

    #[test]
    fn the_graph_pass_on_hand_made_games() {
        for (name, nodes, want) in hand_made_games() {
            assert_eq!(won(&nodes), want, "{name}");
        }
    }

    proptest! {
        #[test]
        fn the_graph_pass_agrees_with_the_textbook(bits in prop::collection::vec(any::<u32>(), 2..60)) {
            let nodes = random_game(bits.len() - bits.len() % 2, &bits);
            prop_assert_eq!(won(&nodes), textbook(&nodes));
        }
    }
}
