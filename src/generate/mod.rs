//! Retrograde analysis: the exact value of every position of a material set.
//!
//! Per slot and side to move one `u16` (an atomic, so rayon threads can share the arrays):
//! a decided distance (odd win, even loss), `DRAW`, `ILLEGAL`, or `0x8000 | c` for an
//! undecided position with `c` successors (distinct slots reached by quiet moves) not yet
//! known to be wins for the opponent.
//!
//! 1. *Initialise*: decode every slot, mark illegal ones; a position without legal moves is
//!    `Loss(0)`; captures are looked up in the sub-tables (through the same [`Tablebase`] users
//!    probe): a capture into a lost position makes a tentative win; if every move is a capture,
//!    the value is final.
//! 2. *Sweep* by distance n = 0, 1, 2...: positions whose value is n are final. For a loss, each
//!    predecessor (un-moves without un-captures) becomes a win in n+1 unless it already wins as
//!    fast. For a win, each predecessor's counter drops by one; at zero every quiet move of that
//!    predecessor loses, and its value is a loss one ply longer than its longest alternative
//!    (quiet moves at most n, captures as looked up), or a draw if a capture draws.
//! 3. What is still undecided is a draw.

mod bits;
mod memory;
mod perpetual;
mod perpetual_graph;
mod plan;
mod progress;

use crate::index::{MAX_MEN, MaterialIndex};
use crate::material::Material;
use crate::probe::{ProbeError, RuleSet, Table, Tablebase};
use crate::rules::{Color, Move, Position, Role, Square};
use crate::table::{self, SideStats, TableError};
use crate::value::{STORED_DRAW, STORED_ILLEGAL, Value};
use memory::check_fits;
pub use memory::{available_memory, memory_needed, peak_memory, refuse_if_too_large};
pub use plan::{Plan, SetPlan, plan};
use progress::Phase;
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use thiserror::Error;

const UNDECIDED: u16 = 0x8000;
const COUNTER_MASK: u16 = 0x3FFF;

#[inline]
fn is_undecided(v: u16) -> bool {
    v & 0xC000 == UNDECIDED
}

/// Why generation failed.
#[derive(Debug, Error)]
pub enum GenError {
    /// A sub-table could not be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The table could not be written.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The output folder could not be made.
    #[error("cannot create {path}: {source}")]
    Dir {
        /// The folder.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A sub-table lacks a position that a capture reaches.
    #[error("sub-table {material} has no value for {fen}")]
    Inconsistent {
        /// The sub-table.
        material: String,
        /// The position.
        fen: String,
    },
    /// The set needs more memory than this machine has.
    #[error(
        "{material}: {} slots per side need about {need_gib:.1} GiB while generating; \
         {avail_gib:.1} GiB is available, of which at most 90% is used; at the rate measured \
         on this machine kind it and its missing sub-tables would also take about {hours:.1} \
         hours (`canju plan {material}` lists every set)",
        slot_count(*slots)
    )]
    TooLarge {
        /// The set.
        material: String,
        /// Slots per side to move (a lower bound for sets refused before their index is
        /// built).
        slots: u128,
        /// Memory needed, GiB.
        need_gib: f64,
        /// Memory available, GiB.
        avail_gib: f64,
        /// Estimated hours.
        hours: f64,
    },
    /// The draws are too many for the perpetual-check pass's graph.
    #[error(
        "{material}: the perpetual-check pass needs about {need_gib:.1} GiB for the graph of \
         its {draws} draws, {avail_gib:.1} GiB is available (`--rules plain` does not need it)"
    )]
    RulePassTooLarge {
        /// The set.
        material: String,
        /// Draws (slots, both sides to move) left by the mate search.
        draws: u64,
        /// Memory needed, GiB.
        need_gib: f64,
        /// Memory available, GiB.
        avail_gib: f64,
    },
    /// The thread pool could not start.
    #[error("thread pool: {0}")]
    Threads(String),
}

/// Which implementation of the perpetual-check pass runs (both give the same values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RulePass {
    /// The graph when it takes at most half of the memory available, else the bitmaps.
    #[default]
    Auto,
    /// Bitmaps over the draws, moves generated when needed: about 3 bytes a slot, several
    /// times slower than the graph (KRNKR: see the README).
    Bitmaps,
    /// An explicit graph of the draws' moves: about 90 bytes a draw, each step a scan.
    Graph,
}

impl RulePass {
    /// Lower-case name, as the command line takes it.
    pub fn name(self) -> &'static str {
        match self {
            RulePass::Auto => "auto",
            RulePass::Bitmaps => "bitmaps",
            RulePass::Graph => "graph",
        }
    }
}

/// A slot count for messages: the number, or "more than 10^38" past `u128`.
fn slot_count(slots: u128) -> String {
    if slots == u128::MAX {
        "more than 10^38".to_string()
    } else {
        slots.to_string()
    }
}

/// How to generate.
#[derive(Clone, Debug, Default)]
pub struct GenOptions {
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Show progress bars on stderr.
    pub progress: bool,
    /// Regenerate the named sets even if their files exist (sub-tables are reused).
    pub force: bool,
    /// The perpetual-check pass to run under `asian`.
    pub rule_pass: RulePass,
}

/// Wall time of each phase of one generation, seconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseTimes {
    /// Reading sub-tables and setting every slot's first value from its moves.
    pub init: f64,
    /// The retrograde sweeps by distance.
    pub sweep: f64,
    /// The perpetual-check pass (0 under `plain`).
    pub rule: f64,
    /// Statistics, compression and writing the file.
    pub write: f64,
    /// The perpetual-check pass that ran (`None` under `plain`).
    pub rule_pass: Option<RulePass>,
}

/// The values of every slot of a set, as [`solve`] leaves them.
#[derive(Clone, Debug)]
pub struct Solved {
    /// Stored value of every slot for red and for black to move (`0xFFFF` for slots without
    /// a legal position).
    pub values: [Vec<u16>; 2],
    /// Time spent per phase (`write` is 0).
    pub phases: PhaseTimes,
}

/// What one generation did.
#[derive(Clone, Debug)]
pub struct GenReport {
    /// Material (stored colouring).
    pub material: Material,
    /// Slots per side to move.
    pub slots: u64,
    /// Statistics per side to move.
    pub stats: [SideStats; 2],
    /// Wall time in seconds.
    pub seconds: f64,
    /// Bytes written.
    pub file_bytes: u64,
    /// Peak resident memory while this set was generated (of the process so far for a set
    /// found present), bytes (0 if unknown).
    pub peak_memory: u64,
    /// False if the file existed and was reused.
    pub generated: bool,
    /// Time per phase (all 0 for a reused file).
    pub phases: PhaseTimes,
}

/// Generates `targets` and every set their captures lead to, smallest first; existing files
/// are reused (the targets themselves are rebuilt with `force`).
pub fn generate_all(
    tb: &Tablebase,
    targets: &[Material],
    opts: &GenOptions,
) -> Result<Vec<GenReport>, GenError> {
    generate_all_with(tb, targets, opts, |_| {})
}

/// As [`generate_all`], calling `on_report` as each set is done (to print progress).
pub fn generate_all_with(
    tb: &Tablebase,
    targets: &[Material],
    opts: &GenOptions,
    mut on_report: impl FnMut(&GenReport),
) -> Result<Vec<GenReport>, GenError> {
    std::fs::create_dir_all(tb.dir()).map_err(|source| GenError::Dir {
        path: tb.dir().to_path_buf(),
        source,
    })?;
    let threads = thread_count(opts.threads);
    let (order, todo) = work_list(tb, targets, opts.force, threads)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| GenError::Threads(e.to_string()))?;
    // Refuse up front, before hours of work on sub-tables, if any set cannot fit in memory;
    // the targets first, so the error names what the user asked for.
    let wanted: Vec<Material> = targets.iter().map(|m| m.canonical()).collect();
    let seconds = plan::plan_of_work(tb, targets, &order, &todo, threads).seconds;
    let to_make: Vec<Material> = order
        .iter()
        .zip(&todo)
        .filter(|(_, t)| **t)
        .map(|(m, _)| *m)
        .collect();
    let targets_first = to_make.iter().filter(|m| wanted.contains(m));
    let largest_first = to_make.iter().rev().filter(|m| !wanted.contains(m));
    for &m in targets_first.chain(largest_first) {
        check_fits(m, tb.rules(), seconds)?;
    }
    let mut reports = vec![];
    for (&m, &generate) in order.iter().zip(&todo) {
        if !generate {
            if wanted.contains(&m) {
                let t = tb.table(m)?;
                let report = GenReport {
                    material: m,
                    slots: t.index.size(),
                    stats: t.stats().clone(),
                    seconds: 0.0,
                    file_bytes: t.file.file_bytes(),
                    peak_memory: peak_memory(),
                    generated: false,
                    phases: PhaseTimes::default(),
                };
                on_report(&report);
                reports.push(report);
            }
            continue;
        }
        let report = pool.install(|| generate_one(tb, m, opts))?;
        on_report(&report);
        reports.push(report);
        release_sub_tables(tb, m, &order, &todo);
    }
    Ok(reports)
}

/// Drops from `tb`'s cache (read whole into memory while `done` was generated) each
/// sub-table of `done` that no set after it in `order` still to generate (`todo`) reads.
fn release_sub_tables(tb: &Tablebase, done: Material, order: &[Material], todo: &[bool]) {
    let at = order.iter().position(|&m| m == done).unwrap_or(order.len());
    let later: Vec<Material> = order[at + 1..]
        .iter()
        .zip(&todo[at + 1..])
        .filter(|(_, t)| **t)
        .map(|(m, _)| *m)
        .collect();
    for sub in done.subsets() {
        let needed = later.iter().any(|m| m.subsets().contains(&sub));
        if !needed {
            tb.forget(sub);
        }
    }
}

/// The sets `targets` need, smallest first, each with whether it is to be generated (its
/// file is missing, or it is a target and `force` is set). Refuses at once, before listing
/// any sub-set, a target whose values alone cannot fit in memory.
fn work_list(
    tb: &Tablebase,
    targets: &[Material],
    force: bool,
    threads: usize,
) -> Result<(Vec<Material>, Vec<bool>), GenError> {
    let wanted: Vec<Material> = targets.iter().map(|m| m.canonical()).collect();
    for &m in &wanted {
        if let Err(e) = refuse_if_too_large(m, threads)
            && (force || !tb.has(m))
        {
            return Err(e);
        }
    }
    let mut order: Vec<Material> = targets.iter().flat_map(|m| m.closure()).collect();
    crate::material::sort_dependency_order(&mut order);
    order.dedup();
    let todo = order
        .iter()
        .map(|m| !tb.has(*m) || (force && wanted.contains(m)))
        .collect();
    Ok((order, todo))
}

/// A capture's sub-table, and whether positions must be colour-swapped to read it.
struct SubTable {
    table: Arc<Table>,
    swap: bool,
}

/// Everything the passes share.
struct Solver<'a> {
    index: &'a MaterialIndex,
    /// Sub-table by captured piece: [victim colour][role].
    subs: [[Option<SubTable>; 7]; 2],
    values: [Vec<AtomicU16>; 2],
    max_assigned: AtomicU16,
}

impl Solver<'_> {
    /// The value after capture `mv` as the sub-table stores it (results by rule included).
    fn capture_value_raw(&self, pos: &Position, mv: Move) -> Result<Value, GenError> {
        let victim = pos.piece_at(mv.to).expect("a capture");
        let sub = self.subs[victim.color.index()][victim.role.index()]
            .as_ref()
            .expect("sub-table loaded for every capturable piece");
        let after = pos.after(mv);
        let p = if sub.swap {
            after.color_swapped()
        } else {
            after
        };
        sub.table.value(&p)?.ok_or_else(|| GenError::Inconsistent {
            material: sub.table.material.name(),
            fen: p.fen(),
        })
    }

    /// The value after capture `mv` for the mate search.
    fn capture_value(&self, pos: &Position, mv: Move) -> Result<Value, GenError> {
        let v = self.capture_value_raw(pos, mv)?;
        // The mate search sees results decided by the perpetual-check rule as draws; the rule
        // pass (crate::generate::perpetual) uses them as they are.
        Ok(if v.is_by_rule() { Value::Draw } else { v })
    }

    /// Initial stored values of slot `i` (red to move, black to move).
    fn initial_pair(&self, i: u64, succ: &mut Vec<u64>) -> Result<[u16; 2], GenError> {
        let mut sq = [0u8; MAX_MEN];
        let n = self.index.layout().len();
        let sq = &mut sq[..n];
        if !self.index.decode_squares(i, sq) || self.index.encode_squares(sq) != Some(i) {
            return Ok([STORED_ILLEGAL; 2]);
        }
        let mut pos = self.index.position_of(sq, Color::Red);
        // Each side's check status serves twice: legality with the other side to move, and
        // the move generator with this side to move.
        let checked = Color::ALL.map(|c| pos.is_in_check(c));
        let red = self.initial(&pos, checked, sq, succ)?;
        pos.set_turn(Color::Black);
        let black = self.initial(&pos, checked, sq, succ)?;
        Ok([red, black])
    }

    /// Initial stored value of `pos`, whose pieces stand on the square list `sq`; `checked`
    /// says which generals are attacked.
    fn initial(
        &self,
        pos: &Position,
        checked: [bool; 2],
        sq: &mut [u8],
        succ: &mut Vec<u64>,
    ) -> Result<u16, GenError> {
        let turn = pos.turn();
        if checked[turn.opponent().index()] {
            return Ok(STORED_ILLEGAL);
        }
        let moves = pos.legal_moves_knowing_check(checked[turn.index()]);
        if moves.is_empty() {
            return Ok(0);
        }
        let mut near = Neighbours::new(self.index, sq);
        succ.clear();
        let mut best_win: Option<u16> = None;
        for &mv in moves.iter() {
            if pos.is_capture(mv) {
                if let Value::Loss(n) = self.capture_value(pos, mv)? {
                    best_win = Some(best_win.map_or(n + 1, |b| b.min(n + 1)));
                }
            } else {
                succ.push(near.slot_after(self.index, mv.from, mv.to));
            }
        }
        if let Some(w) = best_win {
            return Ok(w);
        }
        succ.sort_unstable();
        succ.dedup();
        if succ.is_empty() {
            return self.final_loss_or_draw(pos, 0);
        }
        Ok(UNDECIDED | succ.len() as u16)
    }

    /// Value of a position whose quiet moves all lose (the longest taking `quiet_max` plies
    /// for the opponent's win), from its captures: a draw if one draws, else a loss.
    fn final_loss_or_draw(&self, pos: &Position, quiet_max: u16) -> Result<u16, GenError> {
        let mut longest = quiet_max;
        for &mv in pos.legal_moves().iter() {
            if pos.is_capture(mv) {
                match self.capture_value(pos, mv)? {
                    Value::Draw => return Ok(STORED_DRAW),
                    Value::Win(n) => longest = longest.max(n),
                    Value::Loss(_) | Value::WinByRule | Value::LossByRule => {
                        unreachable!("captures into losses make wins; rule results read as draws")
                    }
                }
            }
        }
        Ok(longest + 1)
    }

    /// `asked`, or for [`RulePass::Auto`] the graph if the current draws' graph takes at most
    /// half of the memory available, else the bitmaps.
    fn choose_rule_pass(&self, asked: RulePass) -> RulePass {
        if asked != RulePass::Auto {
            return asked;
        }
        let draws: u64 = self
            .values
            .iter()
            .map(|side| {
                side.par_iter()
                    .filter(|v| v.load(Relaxed) == STORED_DRAW)
                    .count() as u64
            })
            .sum();
        let avail = available_memory();
        if avail == 0 || draws * perpetual_graph::BYTES_PER_DRAW <= avail / 2 {
            RulePass::Graph
        } else {
            RulePass::Bitmaps
        }
    }

    fn note_assigned(&self, v: u16) {
        self.max_assigned.fetch_max(v, Relaxed);
    }

    /// Processes slot `i` (side `turn`), whose final value is `n`.
    fn propagate(&self, i: u64, turn: Color, n: u16, preds: &mut Vec<u64>) -> Result<(), GenError> {
        let mut sq = [0u8; MAX_MEN];
        let sq = &mut sq[..self.index.layout().len()];
        self.index.decode_squares(i, sq);
        let pos = self.index.position_of(sq, turn);
        let mut near = Neighbours::new(self.index, sq);
        preds.clear();
        pos.for_each_unmove(&[], |um, _| {
            preds.push(near.slot_after(self.index, um.mv.to, um.mv.from));
        });
        preds.sort_unstable();
        preds.dedup();
        let them = turn.opponent();
        let vals = &self.values[them.index()];
        for &j in preds.iter() {
            let cell = &vals[j as usize];
            if n.is_multiple_of(2) {
                // We lose in n: the predecessor wins in n + 1.
                let win = n + 1;
                let mut cur = cell.load(Relaxed);
                loop {
                    let better = is_undecided(cur) || (cur % 2 == 1 && cur < 0x8000 && cur > win);
                    if !better {
                        break;
                    }
                    match cell.compare_exchange_weak(cur, win, Relaxed, Relaxed) {
                        Ok(_) => {
                            self.note_assigned(win);
                            break;
                        }
                        Err(c) => cur = c,
                    }
                }
            } else {
                // We win in n: one fewer escape for the predecessor.
                let mut cur = cell.load(Relaxed);
                loop {
                    if !is_undecided(cur) {
                        break;
                    }
                    let left = cur & COUNTER_MASK;
                    if left > 1 {
                        match cell.compare_exchange_weak(cur, cur - 1, Relaxed, Relaxed) {
                            Ok(_) => break,
                            Err(c) => cur = c,
                        }
                        continue;
                    }
                    // Last escape gone: this thread owns the slot's final value.
                    let p = self
                        .index
                        .decode(j, them)
                        .expect("legal predecessor decodes");
                    let v = self.final_loss_or_draw(&p, n)?;
                    match cell.compare_exchange(cur, v, Relaxed, Relaxed) {
                        Ok(_) => {
                            if v != STORED_DRAW {
                                self.note_assigned(v);
                            }
                            break;
                        }
                        Err(c) => cur = c,
                    }
                }
            }
        }
        Ok(())
    }
}

/// A position's square list, ready to give the slots of positions one piece-move away (moves
/// and un-moves alike): which entry stands on each square, and the defender placements that
/// moves of other pieces leave alone.
struct Neighbours<'s> {
    sq: &'s mut [u8],
    entry: [u8; 90],
    pair: crate::index::DefenderPair,
}

impl<'s> Neighbours<'s> {
    /// `sq` must be a legal slot's square list.
    #[inline]
    fn new(index: &MaterialIndex, sq: &'s mut [u8]) -> Self {
        let mut entry = [0xFFu8; 90];
        for (k, &s) in sq.iter().enumerate() {
            entry[s as usize] = k as u8;
        }
        let pair = index.defender_pair(sq).expect("legal slot");
        Neighbours { sq, entry, pair }
    }

    /// The slot after the piece on `from` goes to the empty point `to`.
    #[inline]
    fn slot_after(&mut self, index: &MaterialIndex, from: Square, to: Square) -> u64 {
        let k = self.entry[from.index()] as usize;
        self.sq[k] = to.index() as u8;
        let j = if k < index.defender_entries() {
            index.encode_squares(self.sq)
        } else {
            index.encode_with(self.pair, self.sq)
        };
        self.sq[k] = from.index() as u8;
        j.expect("a move keeps the material")
    }
}

/// Chunk of slots handled by one rayon task.
const CHUNK: u64 = 4096;

fn par_chunks(size: u64) -> impl ParallelIterator<Item = std::ops::Range<u64>> {
    (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(move |c| c * CHUNK..((c + 1) * CHUNK).min(size))
}

/// Generates one set whose sub-tables already exist, writes it, and reports.
pub fn generate_one(
    tb: &Tablebase,
    material: Material,
    opts: &GenOptions,
) -> Result<GenReport, GenError> {
    memory::reset_peak();
    let start = Instant::now();
    let material = material.canonical();
    let name = material.name();
    let Solved { values, mut phases } = solve(tb, material, opts)?;
    let written = Instant::now();
    let bar = Phase::new(opts.progress, &name, "write", 1);
    let index = MaterialIndex::new(material);
    let stats = Color::ALL.map(|turn| side_stats(&index, &values[turn.index()], turn));
    let path = tb.path_of(material);
    let file_bytes = table::write_table(&path, tb.rules().name(), &name, values, stats.clone())?;
    tb.forget(material);
    bar.finish();
    phases.write = written.elapsed().as_secs_f64();
    Ok(GenReport {
        material,
        slots: index.size(),
        stats,
        seconds: start.elapsed().as_secs_f64(),
        file_bytes,
        peak_memory: peak_memory(),
        generated: true,
        phases,
    })
}

/// Solves `material` (stored colouring) whose sub-tables exist, returning the stored value of
/// every slot for red and for black to move.
pub fn solve(tb: &Tablebase, material: Material, opts: &GenOptions) -> Result<Solved, GenError> {
    let mut phases = PhaseTimes::default();
    let clock = Instant::now();
    let index = MaterialIndex::new(material);
    let size = index.size();
    let mut subs: [[Option<SubTable>; 7]; 2] = Default::default();
    for victim in Color::ALL {
        for role in Role::ALL {
            if let Some(m) = material.after_capture(victim, role) {
                let table = tb.table(m)?;
                table.load_all()?;
                let swap = table.material != m;
                subs[victim.index()][role.index()] = Some(SubTable { table, swap });
            }
        }
    }
    let name = material.name();
    let solver = Solver {
        index: &index,
        subs,
        values: [
            (0..size).map(|_| AtomicU16::new(0)).collect(),
            (0..size).map(|_| AtomicU16::new(0)).collect(),
        ],
        max_assigned: AtomicU16::new(0),
    };

    // 1. Initialise.
    let bar = Phase::new(opts.progress, &name, "init", size * 2);
    par_chunks(size).try_for_each_init(Vec::new, |succ, range| {
        for i in range.clone() {
            let pair = solver.initial_pair(i, succ)?;
            for (turn, v) in pair.into_iter().enumerate() {
                if !is_undecided(v) && v != STORED_ILLEGAL && v != STORED_DRAW {
                    solver.note_assigned(v);
                }
                solver.values[turn][i as usize].store(v, Relaxed);
            }
        }
        bar.inc(2 * (range.end - range.start));
        Ok::<(), GenError>(())
    })?;
    bar.finish();
    phases.init = clock.elapsed().as_secs_f64();

    // 2. Sweep by distance.
    let bar = Phase::new(opts.progress, &name, "sweep", 0);
    let decided = AtomicU64::new(0);
    let mut n: u16 = 0;
    while n <= solver.max_assigned.load(Relaxed) {
        for turn in Color::ALL {
            par_chunks(size).try_for_each_init(Vec::new, |preds, range| {
                let vals = &solver.values[turn.index()];
                for i in range {
                    if vals[i as usize].load(Relaxed) == n {
                        decided.fetch_add(1, Relaxed);
                        solver.propagate(i, turn, n, preds)?;
                    }
                }
                Ok::<(), GenError>(())
            })?;
        }
        bar.sweep(n, decided.load(Relaxed));
        n += 1;
    }
    bar.finish();

    // 3. What is still undecided is drawn.
    solver.values.par_iter().for_each(|side| {
        side.par_iter().for_each(|a| {
            if is_undecided(a.load(Relaxed)) {
                a.store(STORED_DRAW, Relaxed);
            }
        })
    });

    phases.sweep = clock.elapsed().as_secs_f64() - phases.init;

    // 4. The perpetual-check rule.
    if tb.rules() == RuleSet::Asian {
        let bar = Phase::new(opts.progress, &name, "perpetual-check rule", 0);
        let pass = solver.choose_rule_pass(opts.rule_pass);
        match pass {
            RulePass::Graph => solver.apply_perpetual_rule_graph()?,
            _ => solver.apply_perpetual_rule()?,
        };
        phases.rule_pass = Some(pass);
        bar.finish();
    }
    phases.rule = clock.elapsed().as_secs_f64() - phases.init - phases.sweep;
    Ok(Solved {
        values: solver
            .values
            .map(|side| side.into_iter().map(AtomicU16::into_inner).collect()),
        phases,
    })
}

/// Counts over legal positions as a player sees them: a slot stands for two positions (itself
/// and its mirror image) unless the position is its own mirror image.
pub fn side_stats(index: &MaterialIndex, values: &[u16], turn: Color) -> SideStats {
    #[derive(Default)]
    struct Acc {
        s: SideStats,
        win_at: Option<u64>,
        loss_at: Option<u64>,
        rule_win_at: Option<u64>,
        rule_loss_at: Option<u64>,
    }
    let acc = par_chunks(index.size())
        .map(|range| {
            let mut a = Acc::default();
            for i in range {
                let v = values[i as usize];
                let value = match Value::from_stored(v) {
                    Some(x) if v != STORED_ILLEGAL => x,
                    _ => continue,
                };
                let weight = if index.is_symmetric_slot(i) {
                    let p = index.decode(i, turn).expect("legal slot");
                    if p.mirrored() == p { 1 } else { 2 }
                } else {
                    2
                };
                a.s.positions += weight;
                match value {
                    Value::WinByRule => {
                        a.s.win += weight;
                        a.s.rule_win += weight;
                        a.rule_win_at.get_or_insert(i);
                    }
                    Value::LossByRule => {
                        a.s.loss += weight;
                        a.s.rule_loss += weight;
                        a.rule_loss_at.get_or_insert(i);
                    }
                    Value::Win(d) => {
                        a.s.win += weight;
                        if a.win_at.is_none() || d > a.s.longest_win {
                            a.s.longest_win = d;
                            a.win_at = Some(i);
                        }
                    }
                    Value::Draw => a.s.draw += weight,
                    Value::Loss(d) => {
                        a.s.loss += weight;
                        if a.loss_at.is_none() || d > a.s.longest_loss {
                            a.s.longest_loss = d;
                            a.loss_at = Some(i);
                        }
                    }
                }
            }
            a
        })
        .reduce(Acc::default, |mut x, y| {
            x.s.positions += y.s.positions;
            x.s.win += y.s.win;
            x.s.draw += y.s.draw;
            x.s.loss += y.s.loss;
            x.s.rule_win += y.s.rule_win;
            x.s.rule_loss += y.s.rule_loss;
            x.rule_win_at = x.rule_win_at.or(y.rule_win_at);
            x.rule_loss_at = x.rule_loss_at.or(y.rule_loss_at);
            if y.win_at.is_some() && (x.win_at.is_none() || y.s.longest_win > x.s.longest_win) {
                x.s.longest_win = y.s.longest_win;
                x.win_at = y.win_at;
            }
            if y.loss_at.is_some() && (x.loss_at.is_none() || y.s.longest_loss > x.s.longest_loss) {
                x.s.longest_loss = y.s.longest_loss;
                x.loss_at = y.loss_at;
            }
            x
        });
    let fen = |i: Option<u64>| i.and_then(|i| index.decode(i, turn)).map(|p| p.fen());
    SideStats {
        longest_win_fen: fen(acc.win_at),
        longest_loss_fen: fen(acc.loss_at),
        rule_win_fen: fen(acc.rule_win_at),
        rule_loss_fen: fen(acc.rule_loss_at),
        ..acc.s
    }
}

/// Worker threads for `asked` (0 = every core): never more than the machine's cores.
pub fn thread_count(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if asked == 0 { cores } else { asked.min(cores) }
}
