//! Retrograde analysis: the exact value of every position of a material set.
//!
//! The search runs in bitmaps ([`WdlBits`]: won and lost per slot and side to move, shared
//! by rayon threads without locks), a few bits a position. No successor counters: a position
//! that may have just lost is verified by generating its moves (forward verification, as
//! Syzygy's and xiangqitb's generators do).
//!
//! 1. *Initialise*: decode every slot, mark illegal ones; a position without legal moves is
//!    lost at distance 0; captures are looked up in the sub-tables (through the same
//!    [`Tablebase`] users probe): a capture into a lost position makes a win (its distance
//!    known, unless a quiet move wins faster), one into a draw means the position never
//!    loses; if every move is a capture, the value is final.
//! 2. *Sweep* by distance n = 0, 1, 2... (`level_sweep`): the positions decided at distance
//!    n form the frontier. For a loss, each predecessor (un-moves without un-captures) that
//!    is not decided wins in n+1. For a win, each undecided predecessor becomes a candidate;
//!    once per level each candidate's quiet moves are generated, and if all of them now lose
//!    (wins of at most n plies for the opponent), it is a loss one ply longer than its
//!    longest alternative (n, or a capture's as looked up). A position whose distance is
//!    known before its level (`pending`) waits on disk for it, and each level's frontier is
//!    written to disk (`level_record`): the distances take no memory while solving.
//!    A run without distances (`--wdl-only`) goes by turns instead of levels (`wdl_sweep`).
//! 3. What is still undecided is a draw.
//! 4. The repetition rules turn some draws into results by the rule: under `check` the
//!    perpetual-check pass (`perpetual`, `perpetual_graph`), under `asian` the game of
//!    checks and chases (`parity`, run by `perpetual`). The bitmaps wait on disk.
//! 5. With distances, the writer's cells ([`Cells`], a byte per slot and side to move: a
//!    distance or a marker) are made from the bitmaps and the recorded levels; the writer
//!    reads them block by block and turns them into WDL codes where they are. Without, it
//!    reads the bitmaps. The search in cells of earlier versions (`--in-cells`, for
//!    comparing) solves in those cells directly.

mod bits;
mod captures;
mod cells;
mod draw_index;
mod fixpoint;
mod level_record;
mod level_sweep;
mod memory;
mod node;
mod parity;
mod pending;
mod perpetual;
mod perpetual_graph;
mod plan;
mod progress;
mod wdl_bits;
mod wdl_sweep;

use crate::index::{MAX_MEN, MaterialIndex};
use crate::material::Material;
use crate::probe::{ProbeError, RuleSet, Tablebase};
use crate::rules::{Color, Move, MoveList, Position, Role, Square};
use crate::table::{self, RuleStats, SideStats, TableError, ValueSource};
use crate::trace;
use crate::value::{Rule, STORED_ILLEGAL, Value};
use bits::Bits;
use captures::{Captures, SubTable};
pub use cells::Cells;
use level_record::LevelRecord;
use memory::check_fits;
pub use memory::{available_memory, memory_needed, peak_memory, refuse_if_too_large};
use node::{Neighbours, Node};
use pending::Pending;
pub use plan::{Plan, SetPlan, plan};
use progress::Phase;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use thiserror::Error;
pub use wdl_bits::WdlBits;

/// Why generation failed.
#[derive(Debug, Error)]
pub enum GenError {
    /// A sub-table could not be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The table could not be written.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The output folder could not be made, or its stale temporary files removed.
    #[error("cannot prepare the table folder {path}: {source}")]
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
    /// The values could not be set aside on disk (during the repetition rules' pass, or the
    /// distances while the search in bitmaps runs), or read back.
    #[error("cannot keep the values on disk in the temporary file {path}: {source}")]
    Spill {
        /// The temporary file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A set with distances would read a sub-table generated without them.
    #[error(
        "{sub} holds win/draw/loss only (generated with --wdl-only), and {set} with distances \
         to mate needs its sub-tables' distances: `canju gen {set}` (without --wdl-only) makes \
         such sub-tables again first"
    )]
    SubTableWithoutDistances {
        /// The sub-table.
        sub: String,
        /// The set that needs it.
        set: String,
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
    /// A distance to mate too long to count (the search ran past its last level).
    #[error(
        "{material}: a distance to mate past {} plies cannot be counted",
        u16::MAX
    )]
    DistanceTooLong {
        /// The set.
        material: String,
    },
    /// The thread pool could not start.
    #[error("thread pool: {0}")]
    Threads(String),
}

/// Which implementation of the perpetual-check pass runs (both give the same values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RulePass {
    /// The bitmaps: the least memory and, since their first round reads the draws' flags
    /// instead of generating moves, also faster than the graph on the sets measured (KRNKR,
    /// 47 of the 49 sets up to 4 men; see the README).
    #[default]
    Auto,
    /// Bitmaps over the draws, moves generated when needed: 2 bytes a draw (4.4 with the
    /// witnesses, kept where they fit) and 2.5 bits a slot, the cells on disk.
    Bitmaps,
    /// An explicit graph of the draws' moves: up to 170 bytes a draw, each step a scan.
    Graph,
    /// The five-priority game of the full repetition rules (`parity`), here with checks
    /// only: the same values as the others, more slowly; a cross-check of that solver.
    Priorities,
}

impl RulePass {
    /// Lower-case name, as the command line takes it.
    pub fn name(self) -> &'static str {
        match self {
            RulePass::Auto => "auto",
            RulePass::Bitmaps => "bitmaps",
            RulePass::Graph => "graph",
            RulePass::Priorities => "priorities",
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
    /// The perpetual-check pass to run under `check`.
    pub rule_pass: RulePass,
    /// Bytes the bitmap pass may let a set's peak reach for its kept levels and witnesses
    /// (0: the set's own peak so far). [`generate_all`] sets it to the least peak of the
    /// largest set it generates (at least 256 MiB), so that the run's peak is that of its
    /// largest set.
    pub peak_budget: u64,
    /// Sub-tables with at most this many slots per side are read whole into memory, larger
    /// ones through their memory maps and block caches (`None`: 4M, see the README).
    pub whole_sub_table_slots: Option<u64>,
    /// Write win/draw/loss only, no distances to mate (every table the run writes); sub-tables
    /// without distances may then be read.
    pub wdl_only: bool,
    /// Store both sides to move's distances in every table the run writes, so that no DTM
    /// probe needs a one-ply search (about twice the DTM bytes). Otherwise tables of at most
    /// 2^26 slots a side store one side's.
    pub both_sides_dtm: bool,
    /// Solve with the mate search's cells (a byte a position) as before the search in
    /// bitmaps: for comparing the two.
    pub in_cells: bool,
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
    /// Peak resident memory of each phase, bytes (0 if unknown).
    pub peaks: PhasePeaks,
    /// True if the wins and losses were solved in bitmaps (a run without distances), not in
    /// cells of a byte a position.
    pub in_bits: bool,
}

/// Peak resident memory of each phase of one generation, bytes (0 where unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhasePeaks {
    /// Initialising.
    pub init: u64,
    /// The sweeps.
    pub sweep: u64,
    /// The perpetual-check pass.
    pub rule: u64,
    /// Writing.
    pub write: u64,
}

impl PhasePeaks {
    /// The peak of solving the wins and losses: init and sweep.
    pub fn search(&self) -> u64 {
        self.init.max(self.sweep)
    }

    /// The largest.
    pub fn max(&self) -> u64 {
        self.init.max(self.sweep).max(self.rule).max(self.write)
    }
}

/// The peak resident memory since the last call (or [`memory::reset_peak`]); starts the next.
fn take_peak() -> u64 {
    let peak = peak_memory();
    memory::release_freed();
    memory::reset_peak();
    peak
}

/// The values of every slot of a set, as [`solve`] leaves them.
pub struct Solved {
    /// The value of every slot for red and for black to move ([`SolvedValues::into_stored`]
    /// gives the stored form).
    pub values: SolvedValues,
    /// Time spent per phase (`write` is 0).
    pub phases: PhaseTimes,
}

/// A set's values as [`solve`] leaves them.
pub enum SolvedValues {
    /// With distances, one byte a position.
    Cells(Cells),
    /// Wins and losses alone, in bitmaps (a run without distances): wins and losses by
    /// mate read with stand-in distances.
    Bits(WdlBits),
}

impl SolvedValues {
    /// Every slot's stored value, per side to move.
    pub fn into_stored(self) -> [Vec<u16>; 2] {
        match self {
            SolvedValues::Cells(cells) => cells.into_stored(),
            SolvedValues::Bits(bits) => bits.into_stored(),
        }
    }
}

impl ValueSource for SolvedValues {
    fn slots(&self) -> u64 {
        match self {
            SolvedValues::Cells(cells) => cells.slots(),
            SolvedValues::Bits(bits) => bits.slots(),
        }
    }

    fn stored(&self, side: usize, slot: u64) -> u16 {
        match self {
            SolvedValues::Cells(cells) => ValueSource::stored(cells, side, slot),
            SolvedValues::Bits(bits) => bits.stored(side, slot),
        }
    }

    fn into_wdl_codes(self, rule_codes: [table::RuleCodes; 2]) -> [table::WdlCodes; 2] {
        match self {
            SolvedValues::Cells(cells) => cells.into_wdl_codes(rule_codes),
            SolvedValues::Bits(bits) => bits.into_wdl_codes(rule_codes),
        }
    }

    fn wdl_codes_piecewise(&self) -> bool {
        match self {
            SolvedValues::Cells(cells) => cells.wdl_codes_piecewise(),
            SolvedValues::Bits(bits) => bits.wdl_codes_piecewise(),
        }
    }

    fn wdl_codes_in(
        &self,
        side: usize,
        range: std::ops::Range<u64>,
        rule_codes: table::RuleCodes,
    ) -> Vec<u8> {
        match self {
            SolvedValues::Cells(cells) => cells.wdl_codes_in(side, range, rule_codes),
            SolvedValues::Bits(bits) => bits.wdl_codes_in(side, range, rule_codes),
        }
    }
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
    /// True if the table stores distances to mate (false: `--wdl-only`).
    pub distances: bool,
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
    let dir_error = |source| GenError::Dir {
        path: tb.dir().to_path_buf(),
        source,
    };
    std::fs::create_dir_all(tb.dir()).map_err(dir_error)?;
    table::remove_stale_temporaries(tb.dir()).map_err(dir_error)?;
    let threads = thread_count(opts.threads);
    let (order, todo) = work_list(tb, targets, opts, threads)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| GenError::Threads(e.to_string()))?;
    // Refuse up front, before hours of work on sub-tables, if any set cannot fit in memory;
    // the targets first, so the error names what the user asked for.
    let wanted: Vec<Material> = targets.iter().map(|m| m.canonical()).collect();
    let seconds = plan::plan_of_work(tb, targets, &order, &todo, threads, opts.wdl_only).seconds;
    let to_make: Vec<Material> = order
        .iter()
        .zip(&todo)
        .filter(|(_, t)| **t)
        .map(|(m, _)| *m)
        .collect();
    let targets_first = to_make.iter().filter(|m| wanted.contains(m));
    let largest_first = to_make.iter().rev().filter(|m| !wanted.contains(m));
    for &m in targets_first.chain(largest_first) {
        check_fits(m, tb.rules(), opts.wdl_only, seconds)?;
    }
    let opts = &GenOptions {
        peak_budget: match opts.peak_budget {
            0 => memory::run_budget(&to_make, tb.rules(), opts.wdl_only),
            b => b,
        },
        ..opts.clone()
    };
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
                    distances: t.holds_distances(),
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
/// file is missing, it is a target and `force` is set, or it holds no distances and the run
/// makes tables with distances). Refuses at once, before listing
/// any sub-set, a target whose values alone cannot fit in memory.
fn work_list(
    tb: &Tablebase,
    targets: &[Material],
    opts: &GenOptions,
    threads: usize,
) -> Result<(Vec<Material>, Vec<bool>), GenError> {
    let (force, wdl_only) = (opts.force, opts.wdl_only);
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
    for &m in &order {
        set_aside_check_only_table(tb, m)?;
    }
    // A run with distances makes again the tables it reads that have none.
    let lacks_distances =
        |m: Material| !wdl_only && tb.table(m).is_ok_and(|t| !t.holds_distances());
    let todo = order
        .iter()
        .map(|&m| !tb.has(m) || (force && wanted.contains(&m)) || lacks_distances(m))
        .collect();
    Ok((order, todo))
}

/// Moves `m`'s `asian` table aside if it was written before `asian` included the chase rule
/// (it holds the perpetual-check rule alone): to its `check` name, which it is read under,
/// unless a file has that name already, in which case the old one is removed. The run then
/// makes the table again.
fn set_aside_check_only_table(tb: &Tablebase, m: Material) -> Result<(), GenError> {
    let Err(ProbeError::Table(TableError::CheckOnlyRules { path, .. })) = tb.table(m) else {
        return Ok(());
    };
    let kept = path.with_file_name(table::file_name(&m.canonical().name(), table::CHECK_RULES));
    let moved = if kept.exists() {
        std::fs::remove_file(&path)
    } else {
        std::fs::rename(&path, &kept)
    };
    moved.map_err(|source| GenError::Dir { path, source })
}

/// Everything the passes share.
struct Solver<'a> {
    index: &'a MaterialIndex,
    /// The sub-tables, read after captures.
    captures: Captures,
    cells: Cells,
    /// In a run without distances solved in bitmaps, the values (and `cells` are empty):
    /// spilled, read and marked on disk through the repetition rules' pass as the cells are.
    wdl: Option<WdlBits>,
    /// In a run with distances solved in bitmaps, the distances, on disk until the cells are
    /// made from the bitmaps and them ([`Solver::restore_cells`]).
    record: Option<LevelRecord>,
    max_assigned: AtomicU16,
    /// True once a rule pass has marked results in the cells: until then a draw's quiet
    /// move reaches a draw or a position its opponent wins, never one it loses (that would
    /// have made the draw a win), so only captures can leave the draws for an exit
    /// ([`Solver::draw_moves`]).
    rule_results_marked: AtomicBool,
}

impl Solver<'_> {
    /// The value after capture `mv` as the sub-table stores it (results by rule included).
    /// `pos` stands on square list `sq`. A sub-table without distances (allowed only for a
    /// run with `--wdl-only`) gives its wins and losses stand-in distances: such a run needs
    /// only who wins.
    fn capture_value_raw(&self, pos: &Position, sq: &[u8], mv: Move) -> Result<Value, GenError> {
        let entry = |s: Square| sq.iter().position(|&e| e as usize == s.index());
        let (from, to) = (entry(mv.from), entry(mv.to));
        let (Some(from), Some(to)) = (from, to) else {
            unreachable!("a capture between two pieces of the square list");
        };
        let value = self.captures.value_after(sq, pos.turn(), from, to)?;
        value.ok_or_else(|| GenError::Inconsistent {
            material: self.captures.table_after(to).material.name(),
            fen: pos.after(mv).fen(),
        })
    }

    /// The value after capture `mv` for the mate search.
    fn capture_value(&self, pos: &Position, sq: &[u8], mv: Move) -> Result<Value, GenError> {
        let v = self.capture_value_raw(pos, sq, mv)?;
        // The mate search sees results decided by the perpetual-check rule as draws; the rule
        // pass (crate::generate::perpetual) uses them as they are.
        Ok(if v.is_by_rule() { Value::Draw } else { v })
    }

    /// Sets both cells of slot `i` (red and black to move) from the positions' own moves.
    fn start_slot(&self, node: &mut Node, i: u64) -> Result<(), GenError> {
        self.first_values(node, i, |side, first| match first {
            First::Marker(m) => self.cells.set_marker(side, i, m),
            First::Distance(d) => {
                self.note_assigned(d);
                self.cells.set_distance(side, i, d);
            }
        })
    }

    /// Calls `record(side, first)` with the first value of slot `i` for each side to move
    /// (red, then black), from the positions' own moves: [`cells::ILLEGAL`] for both where
    /// the slot holds no position.
    fn first_values(
        &self,
        node: &mut Node,
        i: u64,
        mut record: impl FnMut(usize, First),
    ) -> Result<(), GenError> {
        let mut sq = [0u8; MAX_MEN];
        let n = self.index.layout().len();
        let sq = &mut sq[..n];
        if !self.index.decode_squares(i, sq) || self.index.encode_squares(sq) != Some(i) {
            for side in 0..2 {
                record(side, First::Marker(cells::ILLEGAL));
            }
            return Ok(());
        }
        let pos = node.load_position(self.index, sq);
        // Each side's check status serves twice: legality with the other side to move, and
        // the move generator with this side to move.
        let checked = Color::ALL.map(|c| pos.is_in_check(c));
        for turn in Color::ALL {
            pos.set_turn(turn);
            record(turn.index(), self.first_value(&mut *pos, sq, checked)?);
        }
        Ok(())
    }

    /// The first value of `pos` (on square list `sq`) from its own moves; `checked` says
    /// which generals are attacked. `pos` is made and unmade on, and left as it was.
    fn first_value(
        &self,
        pos: &mut Position,
        sq: &[u8],
        checked: [bool; 2],
    ) -> Result<First, GenError> {
        let turn = pos.turn();
        if checked[turn.opponent().index()] {
            return Ok(First::Marker(cells::ILLEGAL));
        }
        let in_check = checked[turn.index()];
        let (mut best_win, mut can_draw, mut longest) = (None, false, 0);
        let (mut any_quiet, mut any_capture) = (false, false);
        // Pseudo-legal moves: every capture's legality is tried, a quiet move's only until
        // one is found legal.
        for &mv in pos.pseudo_legal_moves().iter() {
            if !pos.is_capture(mv) {
                any_quiet = any_quiet || pos.is_pseudo_legal_move_legal(mv, in_check);
                continue;
            }
            if !pos.is_pseudo_legal_move_legal(mv, in_check) {
                continue;
            }
            any_capture = true;
            match self.capture_value(pos, sq, mv)? {
                Value::Loss(n) => best_win = Some(best_win.map_or(n + 1, |b: u16| b.min(n + 1))),
                Value::Draw => can_draw = true,
                Value::Win(n) => longest = longest.max(n),
                Value::WinByRule(_) | Value::LossByRule(_) => unreachable!("read as draws"),
            }
        }
        Ok(match best_win {
            // No legal move: mated or stalemated (困毙), lost either way.
            None if !any_quiet && !any_capture => First::Distance(0),
            Some(w) => First::Distance(w),
            None if can_draw => First::Marker(cells::CAN_DRAW),
            None if !any_quiet => First::Distance(longest + 1),
            None => First::Marker(cells::UNDECIDED),
        })
    }

    /// The mate search in cells: first values from the positions' own moves, then a sweep by
    /// distance; what is left undecided is drawn. Adds its phases' times and peaks to
    /// `phases`.
    ///
    /// # Errors
    /// A sub-table cannot be read, or disagrees with this set.
    fn mate_search(
        &self,
        progress: bool,
        clock: Instant,
        phases: &mut PhaseTimes,
    ) -> Result<(), GenError> {
        let size = self.index.size();
        let name = self.index.material().name();
        // 1. Initialise.
        let bar = Phase::new(progress, &name, "init", size * 2);
        par_chunks(size).try_for_each_init(
            || Node::new(self.index),
            |node, range| {
                for i in range.clone() {
                    self.start_slot(node, i)?;
                }
                bar.inc(2 * (range.end - range.start));
                Ok::<(), GenError>(())
            },
        )?;
        bar.finish();
        phases.init = clock.elapsed().as_secs_f64();
        phases.peaks.init = take_peak();

        // 2. Sweep by distance.
        let bar = Phase::new(progress, &name, "sweep", 0);
        let decided = AtomicU64::new(0);
        let candidates = Bits::new(size);
        let mut traced = trace::Totals::default();
        let mut n: u16 = 0;
        while n <= self.max_assigned.load(Relaxed) {
            for turn in Color::ALL {
                let side = turn.index();
                let visit = |i: u64, scratch: &mut (Node, Vec<u64>)| {
                    self.propagate(scratch, i, turn, n, &candidates);
                };
                let scratch = || (Node::new(self.index), Vec::new());
                let (timed, before) = (traced.start(), decided.load(Relaxed));
                // Counted a chunk at a time: one shared counter per position would bounce
                // between the cores.
                if n <= cells::MAX_INLINE as u16 {
                    par_chunks(size).for_each_init(scratch, |scratch, range| {
                        let mut count = 0;
                        self.cells.for_each_equal(side, range, n as u8, |i| {
                            count += 1;
                            visit(i, scratch);
                        });
                        decided.fetch_add(count, Relaxed);
                    });
                } else {
                    let at_n = self.cells.big_at(side, n);
                    decided.fetch_add(at_n.len() as u64, Relaxed);
                    at_n.par_iter()
                        .for_each_init(scratch, |scratch, &i| visit(i, scratch));
                }
                traced.add("positions propagated", timed, || {
                    decided.load(Relaxed) - before
                });
                if n % 2 == 1 {
                    let timed = traced.start();
                    // Each candidate is verified once, however many of its moves just lost.
                    let them = turn.opponent();
                    candidates.try_for_each_one(
                        || Node::new(self.index),
                        |node, j| self.settle_candidate(node, j, them, n),
                    )?;
                    traced.add("candidates verified", timed, || candidates.count());
                    candidates.clear_all();
                }
            }
            bar.sweep(n, decided.load(Relaxed));
            n += 1;
        }
        bar.finish();
        drop(candidates);
        traced.print(&format!("sweep of {}, {n} levels", name));

        // 3. What is still undecided is drawn.
        self.cells.settle_draws();
        Ok(())
    }

    /// Length of the loss of `pos` (on square list `sq`), whose quiet moves all lose (the
    /// longest taking `quiet_max` plies for the opponent's win) and whose captures all lose.
    /// `captures` are its pseudo-legal captures. `pos` is made and unmade on, and left as it was.
    fn loss_length(
        &self,
        pos: &mut Position,
        sq: &[u8],
        captures: &MoveList,
        quiet_max: u16,
    ) -> Result<u16, GenError> {
        let mut longest = quiet_max;
        if captures.is_empty() {
            return Ok(longest + 1);
        }
        let in_check = pos.in_check();
        for &mv in captures.iter() {
            if pos.is_pseudo_legal_move_legal(mv, in_check) {
                match self.capture_value(pos, sq, mv)? {
                    Value::Win(n) => longest = longest.max(n),
                    _ => unreachable!("a position with a capture that does not lose is decided"),
                }
            }
        }
        Ok(longest + 1)
    }

    /// `asked`, or for [`RulePass::Auto`] the bitmaps.
    fn choose_rule_pass(asked: RulePass) -> RulePass {
        match asked {
            RulePass::Auto => RulePass::Bitmaps,
            pass => pass,
        }
    }

    /// Writes the cells to `path` and frees them while a pass that does not read them runs.
    fn spill_cells(&mut self, path: &std::path::Path) -> Result<(), GenError> {
        let step = trace::step("cells spilled");
        let spilled = match &mut self.wdl {
            Some(wdl) => wdl.spill(path),
            None => self.cells.spill(path),
        };
        let spilled = spilled.map_err(|source| GenError::Spill {
            path: path.to_path_buf(),
            source,
        });
        step.done(|| path.display().to_string());
        spilled
    }

    /// Reads back the cells [`Solver::spill_cells`] wrote; in a run with distances solved in
    /// bitmaps, makes the cells from the bitmaps and the distances recorded.
    fn restore_cells(&mut self, path: &std::path::Path) -> Result<(), GenError> {
        if let Some(record) = self.record.take() {
            let wdl = self
                .wdl
                .take()
                .expect("a level record is made with the bitmaps");
            let step = trace::step("cells made from the bitmaps and the levels");
            self.cells = cells_with_distances(&wdl, path, record)?;
            step.done(|| path.display().to_string());
            return Ok(());
        }
        let step = trace::step("cells read back");
        let restored = match &mut self.wdl {
            Some(wdl) => wdl.restore(path),
            None => self.cells.restore(path),
        };
        let restored = restored.map_err(|source| GenError::Spill {
            path: path.to_path_buf(),
            source,
        });
        step.done(|| path.display().to_string());
        restored
    }

    fn note_assigned(&self, v: u16) {
        // Read first: a shared atomic written by every thread for every win would bounce
        // between the cores.
        if v > self.max_assigned.load(Relaxed) {
            self.max_assigned.fetch_max(v, Relaxed);
        }
    }

    /// The slots (the opponent to move) whose quiet moves reach slot `i` (`turn` to move),
    /// in `preds`, repeats allowed. Un-moves whose legality is not tried: one that leaves
    /// `turn` in check reaches a slot without a legal position, which a search never changes.
    fn quiet_predecessors(&self, node: &mut Node, preds: &mut Vec<u64>, i: u64, turn: Color) {
        node.load(self.index, i, turn);
        let (pos, near) = node.parts();
        preds.clear();
        pos.for_each_quiet_unmove_unchecked(|mv| {
            preds.push(near.slot_after(self.index, mv.to, mv.from));
        });
    }

    /// Processes slot `i` (side `turn`), whose final value is `n`: if it loses, its
    /// predecessors win in n + 1; if it wins, its undecided predecessors join `candidates`
    /// (they may lose now).
    fn propagate(
        &self,
        (node, preds): &mut (Node, Vec<u64>),
        i: u64,
        turn: Color,
        n: u16,
        candidates: &Bits,
    ) {
        self.quiet_predecessors(node, preds, i, turn);
        let them = turn.opponent().index();
        for &j in preds.iter() {
            if n.is_multiple_of(2) {
                if self.cells.improve_win(them, j, n + 1) {
                    self.note_assigned(n + 1);
                }
            } else if self.cells.raw(them, j) == cells::UNDECIDED {
                candidates.set(j);
            }
        }
    }

    /// Settles candidate `j` (`side` to move) as a loss if its moves now all lose.
    fn settle_candidate(
        &self,
        node: &mut Node,
        j: u64,
        side: Color,
        n: u16,
    ) -> Result<(), GenError> {
        if let Some(l) = self.loss_after_win(node, j, side, n)?
            && self.cells.settle_loss(side.index(), j, l)
        {
            self.note_assigned(l);
        }
        Ok(())
    }

    /// The loss of slot `j` (`side` to move) if every quiet move of it now leads to a win
    /// of at most `n` plies for the opponent (forward verification: its moves are generated
    /// and looked up), else `None`.
    fn loss_after_win(
        &self,
        node: &mut Node,
        j: u64,
        side: Color,
        n: u16,
    ) -> Result<Option<u16>, GenError> {
        node.load(self.index, j, side);
        let (pos, near) = node.parts_mut();
        let next = side.opponent().index();
        // Pseudo-legal moves are enough: an illegal one leads to an illegal slot.
        let mut captures = MoveList::new();
        let escapes = near.any_quiet_move_noting_captures(self.index, pos, &mut captures, |k| {
            let lost = match self.cells.raw(next, k) {
                cells::ILLEGAL => true,
                c if c <= cells::MAX_INLINE => c % 2 == 1 && c as u16 <= n,
                cells::BIG => self
                    .cells
                    .distance(next, k)
                    .is_some_and(|d| d % 2 == 1 && d <= n),
                _ => false,
            };
            !lost
        });
        if escapes {
            return Ok(None);
        }
        self.loss_length(pos, near.squares(), &captures, n)
            .map(Some)
    }
}

/// The cells of the bitmaps spilled to `spill` (removed), each win and loss by mate taking
/// its distance from `record`.
///
/// # Errors
/// A file cannot be read, or the record does not hold a distance for exactly the wins and
/// losses by mate.
fn cells_with_distances(
    wdl: &WdlBits,
    spill: &std::path::Path,
    mut record: LevelRecord,
) -> Result<Cells, GenError> {
    let (cells, by_mate) = wdl
        .spilled_into_cells(spill)
        .map_err(|source| GenError::Spill {
            path: spill.to_path_buf(),
            source,
        })?;
    let record_path = record.path().to_path_buf();
    let record_error = |source| GenError::Spill {
        path: record_path.clone(),
        source,
    };
    let written = [0, 1].map(|side| record.recorded(side));
    let set = record.replay_into(&cells).map_err(record_error)?;
    if set != by_mate || set != written {
        let message = format!(
            "the level record holds {set:?} distances (red, black to move; {written:?} \
             written) for {by_mate:?} wins and losses by mate"
        );
        return Err(record_error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            message,
        )));
    }
    Ok(cells)
}

/// A position's first value, before the sweeps.
enum First {
    /// A marker of [`cells`].
    Marker(u8),
    /// A distance: final for losses, the best known for wins.
    Distance(u16),
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
    memory::map_large_allocations();
    memory::release_freed();
    memory::reset_peak();
    let start = Instant::now();
    let material = material.canonical();
    let name = material.name();
    let Solved { values, mut phases } = solve(tb, material, opts)?;
    let written = Instant::now();
    let bar = Phase::new(opts.progress, &name, "write", 1);
    let index = MaterialIndex::new(material);
    let mut stats = Color::ALL.map(|turn| side_stats(&index, &values, turn));
    let path = tb.path_of(material);
    if opts.wdl_only {
        stats = stats.map(without_distances);
    }
    let rules = tb.rules().name();
    // One side's distances: the other's follow by a one-ply search (Tablebase::probe).
    let distances = match (opts.wdl_only, memory::one_side_dtm(index.size(), opts)) {
        (true, _) => table::Distances::None,
        (false, true) => table::Distances::OneSide,
        (false, false) => table::Distances::BothSides,
    };
    let file_bytes =
        table::write_table_with(&path, rules, &name, values, stats.clone(), distances)?;
    tb.forget(material);
    bar.finish();
    phases.write = written.elapsed().as_secs_f64();
    phases.peaks.write = take_peak();
    Ok(GenReport {
        material,
        slots: index.size(),
        stats,
        seconds: start.elapsed().as_secs_f64(),
        file_bytes,
        peak_memory: phases.peaks.max(),
        generated: true,
        phases,
        distances: !opts.wdl_only,
    })
}

/// Solves `material` (stored colouring) whose sub-tables exist, returning the stored value of
/// every slot for red and for black to move.
pub fn solve(tb: &Tablebase, material: Material, opts: &GenOptions) -> Result<Solved, GenError> {
    let mut phases = PhaseTimes::default();
    let clock = Instant::now();
    let index = MaterialIndex::new(material);
    let size = index.size();
    let step = trace::step("sub-tables read");
    let mut subs: [[Option<SubTable>; 7]; 2] = Default::default();
    for victim in Color::ALL {
        for role in Role::ALL {
            if let Some(m) = material.after_capture(victim, role) {
                let table = tb.table(m)?;
                if !opts.wdl_only && !table.holds_distances() {
                    return Err(GenError::SubTableWithoutDistances {
                        sub: table.material.name(),
                        set: material.name(),
                    });
                }
                let swap = table.material != m;
                // After the capture the victim's side is to move, in the table's colouring.
                let to_move = if swap { victim.opponent() } else { victim };
                let whole = opts
                    .whole_sub_table_slots
                    .unwrap_or(memory::MOST_SLOTS_READ_WHOLE);
                // A side whose distances the file does not store is found by a search, so
                // it is read whole whatever its size.
                if table.index.size() <= whole || table.searches(to_move.index()) {
                    tb.load_side(&table, to_move.index())?;
                }
                subs[victim.index()][role.index()] = Some(SubTable { table, swap });
            }
        }
    }
    step.done(|| material.name());
    let name = material.name();
    // The graph pass reads the cells: a run that asks for it solves in them.
    let graph =
        tb.rules() == RuleSet::Check && Solver::choose_rule_pass(opts.rule_pass) == RulePass::Graph;
    let in_bits = !opts.in_cells && !graph;
    let mut solver = Solver {
        index: &index,
        captures: Captures::new(&index, subs),
        cells: Cells::new(if in_bits { 0 } else { size }),
        wdl: in_bits.then(|| WdlBits::new(size)),
        record: None,
        max_assigned: AtomicU16::new(0),
        rule_results_marked: AtomicBool::new(false),
    };
    phases.in_bits = in_bits;
    let spill = table::temporary_path(&tb.path_of(material), "cells");
    match &solver.wdl {
        Some(wdl) if opts.wdl_only => {
            solver.solve_in_bits(wdl, opts.progress, clock, &mut phases)?
        }
        Some(wdl) => {
            let temporary = |tag| {
                let path = table::temporary_path(&tb.path_of(material), tag);
                move |source| GenError::Spill { path, source }
            };
            let path = table::temporary_path(&tb.path_of(material), "levels");
            let mut record = LevelRecord::create(&path).map_err(temporary("levels"))?;
            let path = table::temporary_path(&tb.path_of(material), "pending");
            let pending = Pending::create(&path).map_err(temporary("pending"))?;
            solver.solve_levels_in_bits(
                wdl,
                &mut record,
                pending,
                opts.progress,
                clock,
                &mut phases,
            )?;
            solver.record = Some(record);
        }
        None => solver.mate_search(opts.progress, clock, &mut phases)?,
    }
    phases.sweep = clock.elapsed().as_secs_f64() - phases.init;
    phases.peaks.sweep = take_peak();

    // 4. The perpetual-check rule.
    if tb.rules() == RuleSet::Check {
        let bar = Phase::new(opts.progress, &name, "perpetual-check rule", 0);
        let pass = Solver::choose_rule_pass(opts.rule_pass);
        match pass {
            RulePass::Graph => solver.apply_perpetual_rule_graph(&spill)?,
            RulePass::Priorities => solver.apply_repetition_rules(&spill, false)?,
            _ => solver.apply_perpetual_rule(&spill, opts.peak_budget)?,
        };
        phases.rule_pass = Some(pass);
        bar.finish();
    } else if tb.rules() == RuleSet::Asian {
        let bar = Phase::new(opts.progress, &name, "check and chase rules", 0);
        solver.apply_repetition_rules(&spill, true)?;
        phases.rule_pass = Some(RulePass::Priorities);
        bar.finish();
    }
    phases.rule = clock.elapsed().as_secs_f64() - phases.init - phases.sweep;
    if phases.rule_pass.is_some() {
        phases.peaks.rule = take_peak();
    }
    // Without a rules' pass, the distances still wait on disk: the cells are made now.
    if solver.record.is_some() {
        solver.spill_cells(&spill)?;
        solver.restore_cells(&spill)?;
    }
    let values = match solver.wdl {
        Some(wdl) => SolvedValues::Bits(wdl),
        None => SolvedValues::Cells(solver.cells),
    };
    Ok(Solved { values, phases })
}

/// `stats` of a table without distances: the longest win and loss are not known (the
/// generator's distances there were counted from sub-tables' stand-ins).
fn without_distances(stats: SideStats) -> SideStats {
    SideStats {
        longest_win: 0,
        longest_win_fen: None,
        longest_loss: 0,
        longest_loss_fen: None,
        ..stats
    }
}

/// Counts over legal positions as a player sees them: a slot stands for two positions (itself
/// and its mirror image) unless the position is its own mirror image.
pub fn side_stats(index: &MaterialIndex, values: &impl ValueSource, turn: Color) -> SideStats {
    #[derive(Default)]
    struct Acc {
        s: SideStats,
        win_at: Option<u64>,
        loss_at: Option<u64>,
        rule_win_at: Option<u64>,
        rule_loss_at: Option<u64>,
        /// Per rule: wins, losses, a win's slot, a loss's slot.
        by_rule: [(u64, u64, Option<u64>, Option<u64>); 3],
    }
    let acc = par_chunks(index.size())
        .map(|range| {
            let mut a = Acc::default();
            for i in range {
                let v = values.stored(turn.index(), i);
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
                    Value::WinByRule(rule) => {
                        a.s.win += weight;
                        a.s.rule_win += weight;
                        a.rule_win_at.get_or_insert(i);
                        let by = &mut a.by_rule[rule.index()];
                        by.0 += weight;
                        by.2.get_or_insert(i);
                    }
                    Value::LossByRule(rule) => {
                        a.s.loss += weight;
                        a.s.rule_loss += weight;
                        a.rule_loss_at.get_or_insert(i);
                        let by = &mut a.by_rule[rule.index()];
                        by.1 += weight;
                        by.3.get_or_insert(i);
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
            for (a, b) in x.by_rule.iter_mut().zip(y.by_rule) {
                *a = (a.0 + b.0, a.1 + b.1, a.2.or(b.2), a.3.or(b.3));
            }
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
        by_rule: Rule::ALL.map(|rule| {
            let (win, loss, win_at, loss_at) = acc.by_rule[rule.index()];
            RuleStats {
                win,
                loss,
                win_fen: fen(win_at),
                loss_fen: fen(loss_at),
                ..RuleStats::none(rule)
            }
        }),
        ..acc.s
    }
}

/// Worker threads for `asked` (0 = every core): never more than the machine's cores.
pub fn thread_count(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if asked == 0 { cores } else { asked.min(cores) }
}
