//! How much memory generation takes and has: the machine's probes, the model of a set's
//! needs by phase, and the guards that refuse what cannot fit.

use super::{GenError, perpetual, perpetual_graph};
use crate::index::MaterialIndex;
use crate::material::Material;
use crate::probe::RuleSet;
use crate::rules::{Color, Role};

/// Bytes a slot of the set being written takes, for each side to move: its cell
/// ([`super::Cells`]), made from the search's bitmaps and its recorded distances once the
/// rule pass is done.
const CELL_BYTES: u64 = 1;

/// Bytes a slot of a small sub-table takes, read whole for the captures: its DTM section of
/// the side to move after the capture (one side only) as the file stores it, one byte a
/// value unless a distance reaches 253.
const SUB_VALUE_BYTES: u64 = 1;

/// Slots per side of the largest sub-table read whole. A larger one is read through its
/// memory map, block by block, with its recent blocks in a cache: what it takes is the
/// pages of its file read, at most its compressed size.
pub(super) const MOST_SLOTS_READ_WHOLE: u64 = 1 << 22;

/// Slots per side of the largest table written with one side to move's distances
/// ([`crate::table::Distances::OneSide`]; every set up to 5 men). A generation that reads
/// such a table as a sub-table and needs its other side finds that side by a one-ply search
/// of every slot, held whole (a byte a slot, and the stored side whole beside it), so larger
/// tables keep both sides' distances: their sub-table reads stay within their pages.
pub(super) const MOST_SLOTS_ONE_SIDE_DTM: u64 = 1 << 26;

/// True if a table of `slots` slots a side that `opts`'s run writes stores one side to move's
/// distances.
pub(super) fn one_side_dtm(slots: u64, opts: &super::GenOptions) -> bool {
    !opts.both_sides_dtm && slots <= MOST_SLOTS_ONE_SIDE_DTM
}

/// Bytes a sub-table of `slots` slots per side takes while a set is generated: the side
/// needed read whole (small tables), or through the memory map (at most its compressed
/// size); but where that side's distances come from a search, it is read whole with the
/// stored side beside it, which is what is counted up to [`MOST_SLOTS_ONE_SIDE_DTM`] (the
/// plan cannot know which side a table not yet written stores).
fn sub_table_bytes(slots: u64) -> u64 {
    if slots <= MOST_SLOTS_ONE_SIDE_DTM {
        slots.saturating_mul(2 * SUB_VALUE_BYTES)
    } else {
        (slots as f64 * super::plan::DISK_BYTES_PER_SLOT) as u64
    }
}

/// What writing adds, per slot: the compressed WDL section and the coder's working arrays,
/// and a batch of DTM blocks (the DTM section goes to a temporary file as it is compressed).
/// Measured on KRNKR: the write phase's peak 86 MB, 20 MB above its cells, the process's
/// base included.
const WRITE_BYTES_PER_SLOT: f64 = 0.2;

/// Bits a slot (both sides to move) of the search in bitmaps without distances: won and
/// lost, the frontier and the capture-draws per side to move, and the candidates.
const BITS_SOLVING_PER_SLOT: u64 = 9;

/// Bits a slot (both sides to move) of the search in bitmaps with distances (by levels, the
/// distances on disk): as [`BITS_SOLVING_PER_SLOT`], and black's frontier of the next level.
const BITS_SOLVING_BY_LEVELS_PER_SLOT: u64 = 10;

/// Bits a slot (both sides to move) the search in bitmaps leaves for the rule pass and the
/// writer: won and lost, and the rules' two bits, per side to move.
const BITS_KEPT_PER_SLOT: u64 = 8;

/// Memory of the process before any table: code, thread stacks, buffers.
const BASE_BYTES: u64 = 16 << 20;

/// Share of a set's slot-positions that are plain draws, for the estimate of the rule passes.
/// Measured (the draws the rule pass starts from, or the tables' draws and rule results, a
/// position's mirror image counted once): KRNKR 0.20, KRCKR 0.27, KRNKRA 0.27, KRNKRB 0.255,
/// KRNKRAB 0.29. Defenders raise it, and it is what bounds the rule pass of the largest sets:
/// 0.30 until the model knows the material.
const DRAW_SHARE: f64 = 0.30;

/// Share of the rule pass's bitmaps (as [`bytes_per_draw`] counts them) that is resident at its
/// peak, for a pass over `draws` draws: a bitmap's pages are mapped only when first written,
/// the sparse ones (the nodes that just joined, the candidates) touch few, and the larger a
/// set the more of its levels the fixpoint keeps. Measured with the search in bitmaps, where the
/// rule pass is the binding phase (stop 50's KRNKRAB family, the rule phase's peak less the
/// process, sub-tables and ranks, over the draws the pass started from): KRNKR 0.44 (13.2M
/// draws), KRNKRA 0.51 (72M), KRNKRB 0.57 (107M), KRNKRAB 0.77 (534M); taken as 0.45 at 10^7
/// draws plus 0.2 for each tenfold, within 0.3 and 0.8 (a fit to those four sets).
fn rule_bitmaps_resident(draws: u64) -> f64 {
    let tenfolds = (draws.max(1) as f64).log10() - 7.0;
    (0.45 + 0.2 * tenfolds).clamp(0.3, 0.8)
}

/// The memory one generation holds in each phase, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseMemory {
    /// Initialising and the sweeps: the search's bitmaps, and one side to move of each
    /// sub-table (small ones read whole, large ones
    /// through their memory maps: see [`MOST_SLOTS_READ_WHOLE`]).
    pub solve: u64,
    /// The perpetual-check pass with the bitmaps (0 when no pass runs), the cells on disk:
    /// building the draws' ranks and flags, or the fixpoint, whichever is larger.
    pub rule_bitmaps: u64,
    /// The perpetual-check pass with the graph (0 when no pass runs), `DRAW_SHARE` of the
    /// slot-positions taken as draws.
    pub rule_graph: u64,
    /// Writing: the cells (turned into WDL codes where they are), the compressed sections;
    /// without distances, the bitmaps and a block's codes at a time.
    pub write: u64,
}

impl PhaseMemory {
    /// The model for `m` (any colouring) under `rules`, with `wdl_only` in a run without
    /// distances. Both solve in bitmaps ([`super::WdlBits`]): [`BITS_SOLVING_PER_SLOT`] a
    /// slot, or [`BITS_SOLVING_BY_LEVELS_PER_SLOT`] with the distances recorded on disk; the
    /// rule pass runs with the bitmaps on disk. With distances the writer holds the cells
    /// (made from the bitmaps and the distances); without, the outcomes and the rules'
    /// results ([`BITS_KEPT_PER_SLOT`]) and a block's worth of codes at a time.
    pub fn of_run(m: Material, rules: RuleSet, wdl_only: bool) -> PhaseMemory {
        let m = m.canonical();
        let own = MaterialIndex::new(m).size();
        let subs = m.subsets().iter().fold(0u64, |sum, s| {
            sum.saturating_add(sub_table_bytes(MaterialIndex::new(*s).size()))
        });
        let values = match wdl_only {
            true => own / 8 * BITS_SOLVING_PER_SLOT,
            false => own / 8 * BITS_SOLVING_BY_LEVELS_PER_SLOT,
        };
        let solve = BASE_BYTES.saturating_add(values).saturating_add(subs);
        let (rule_bitmaps, rule_graph) = if can_offend(m, rules) {
            let draws = (2.0 * own as f64 * DRAW_SHARE) as u64;
            let ranks = (own as f64 * perpetual::RANK_BITS_PER_SLOT / 8.0) as u64;
            // The first side's pass builds the other side's flags beside its own, and they
            // are held through it like the ranks.
            let other_flags = match own <= perpetual::OTHER_FLAGS_MOST_SLOTS {
                true => draws * perpetual::OTHER_FLAG_BITS_PER_DRAW / 8,
                false => 0,
            };
            let held = ranks.saturating_add(other_flags);
            // The cells wait on disk through the whole pass: the draws' ranks and flags are
            // built from a bitmap of the wins beside them (a bit a slot-position), then the
            // fixpoint runs.
            let building = BASE_BYTES
                .saturating_add(subs)
                .saturating_add(held)
                .saturating_add(own / 4)
                .saturating_add(draws * perpetual::FLAG_BITS_PER_DRAW / 8);
            let fixpoint = BASE_BYTES
                .saturating_add(subs)
                .saturating_add(held)
                .saturating_add(
                    (draws as f64 * bytes_per_draw(rules) * rule_bitmaps_resident(draws)) as u64,
                );
            // The witnesses are kept only where they do not raise the set's peak.
            let witnesses = (draws as f64 * perpetual::WITNESS_BYTES_PER_DRAW) as u64;
            let fixpoint = if fixpoint + witnesses <= solve {
                fixpoint + witnesses
            } else {
                fixpoint
            };
            // The graph pass reads the cells, so its run solves in them (and the candidates).
            let graph = draws.saturating_mul(perpetual_graph::BYTES_PER_DRAW);
            let in_cells = BASE_BYTES
                .saturating_add(subs)
                .saturating_add(own.saturating_mul(2 * CELL_BYTES))
                .saturating_add(own / 8);
            (building.max(fixpoint), in_cells.saturating_add(graph))
        } else {
            (0, 0)
        };
        // The search's frontiers and candidates are gone by then.
        let kept = match wdl_only {
            true => own / 8 * BITS_KEPT_PER_SLOT,
            false => own.saturating_mul(2 * CELL_BYTES),
        };
        let write = BASE_BYTES
            .saturating_add(subs)
            .saturating_add(kept)
            .saturating_add((own as f64 * WRITE_BYTES_PER_SLOT) as u64);
        PhaseMemory {
            solve,
            rule_bitmaps,
            rule_graph,
            write,
        }
    }

    /// The least peak: the rule pass by bitmaps.
    pub fn least_peak(&self) -> u64 {
        self.solve.max(self.rule_bitmaps).max(self.write)
    }
}

/// Memory a run may always take, whatever its largest set: room for the bitmap pass's levels
/// and witnesses on small sets (every set up to 5 men stays within issue 12's 300 MB).
const LEAST_RUN_BUDGET: u64 = 256 << 20;

/// The least peak of the largest of `sets` under `rules`, or [`LEAST_RUN_BUDGET`] if more:
/// the budget of a run generating them ([`super::GenOptions::peak_budget`]).
pub(super) fn run_budget(sets: &[Material], rules: RuleSet, wdl_only: bool) -> u64 {
    sets.iter()
        .map(|&m| PhaseMemory::of_run(m, rules, wdl_only).least_peak())
        .max()
        .unwrap_or(0)
        .max(LEAST_RUN_BUDGET)
}

/// True if a side of `m` has a piece that can give check.
/// True if some side of `m` has a piece the rules of `rules` can make an offender of: one
/// that gives check, or under `asian` any piece besides the general (advisors and elephants
/// chase too).
/// Bytes per draw of the rule pass's bitmaps: the perpetual-check fixpoint's, or under
/// `asian` the larger of it and the 棋例's game, which runs after it.
fn bytes_per_draw(rules: RuleSet) -> f64 {
    match rules {
        RuleSet::Asian => perpetual::BYTES_PER_DRAW.max(perpetual::PARITY_BYTES_PER_DRAW),
        _ => perpetual::BYTES_PER_DRAW,
    }
}

fn can_offend(m: Material, rules: RuleSet) -> bool {
    let offends = |r: Role| match rules {
        RuleSet::Plain => false,
        RuleSet::Check => r.is_attacker(),
        RuleSet::Asian => r != Role::General,
    };
    Role::ALL
        .iter()
        .any(|&r| offends(r) && Color::ALL.iter().any(|&c| m.count(c, r) > 0))
}

/// Memory the generator needs for a set at least (the rule pass by bitmaps), estimated
/// before it starts: see `PhaseMemory`.
/// With `wdl_only`, in a run without distances.
pub fn memory_needed(m: Material, rules: RuleSet, wdl_only: bool) -> u64 {
    PhaseMemory::of_run(m, rules, wdl_only).least_peak()
}

/// Refuses `m` at once, before its index is built, if even its values cannot fit in memory.
///
/// # Errors
/// [`GenError::TooLarge`] with the set's slots (a lower bound) and the memory it needs.
pub fn refuse_if_too_large(m: Material, threads: usize) -> Result<(), GenError> {
    let slots = MaterialIndex::slots_lower_bound(m.canonical());
    let need = slots.saturating_mul(2 * CELL_BYTES as u128);
    let avail = available_memory() as u128;
    if avail > 0 && need > avail / 10 * 9 {
        let seconds = super::plan::seconds_per_slot(threads) * slots as f64;
        return Err(too_large(m, slots, need as f64, avail as f64, seconds));
    }
    Ok(())
}

/// Refuses `m` if it cannot fit in memory; `seconds` is the estimate for every set still to
/// generate.
pub(super) fn check_fits(
    m: Material,
    rules: RuleSet,
    wdl_only: bool,
    seconds: f64,
) -> Result<(), GenError> {
    let need = memory_needed(m, rules, wdl_only);
    let avail = available_memory();
    if avail > 0 && need > avail / 10 * 9 {
        let slots = MaterialIndex::new(m.canonical()).size() as u128;
        return Err(too_large(m, slots, need as f64, avail as f64, seconds));
    }
    Ok(())
}

/// The refusal of `m`: `slots` per side, `need` and `avail` bytes, `seconds` of generation.
fn too_large(m: Material, slots: u128, need: f64, avail: f64, seconds: f64) -> GenError {
    let gib = |b: f64| b / (1u64 << 30) as f64;
    GenError::TooLarge {
        material: m.name(),
        slots,
        need_gib: gib(need),
        avail_gib: gib(avail),
        hours: seconds / 3600.0,
    }
}

/// Makes the allocator map every block of 1 MiB or more on its own, so that freeing it
/// returns it to the system at once. glibc's threshold otherwise grows to the size of each
/// mapped block freed (up to 32 MiB), after which such blocks come from its heap and stay
/// resident when freed: the cells read back after the rule pass, then freed and read again,
/// held 30-50 MB more than they should on KRNKR, 300 MB more after the graph pass.
pub(super) fn map_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// glibc's `M_MMAP_THRESHOLD` option of `mallopt`.
        const M_MMAP_THRESHOLD: i32 = -3;
        unsafe extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // SAFETY: mallopt only sets an allocator option; it takes no pointer and changes no
        // block already allocated.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 1 << 20);
        }
    }
}

/// Returns the memory freed to the allocator to the system (glibc's `malloc_trim`), so that
/// what one phase or set freed in small blocks (a level's compressed chunks, the positions
/// waiting for their level) is not counted in the next one's resident memory: within a
/// `--men 5` run such blocks had raised the 32.8M-slot sets' peaks while solving from 0.875
/// to 0.92-1.01 bytes a position.
pub(super) fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only returns free memory to the system; it takes no pointer
        // and changes no block in use.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Memory available to new allocations in bytes (Linux `MemAvailable`; 0 if unknown).
pub fn available_memory() -> u64 {
    proc_kib("/proc/meminfo", "MemAvailable:")
}

/// Starts a new peak: [`peak_memory`] then reports the peak since this call (Linux, where
/// writing 5 to `/proc/self/clear_refs` resets it; elsewhere nothing happens).
pub fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory of this process in bytes (Linux; 0 elsewhere).
pub fn peak_memory() -> u64 {
    proc_kib("/proc/self/status", "VmHWM:")
}

/// Resident memory of this process now in bytes (Linux; 0 elsewhere).
pub fn current_memory() -> u64 {
    proc_kib("/proc/self/status", "VmRSS:")
}

/// The `key` line of a `/proc` file in KiB, as bytes (0 if absent).
fn proc_kib(file: &str, key: &str) -> u64 {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_budgeted_by_its_largest_set() {
        let sets: Vec<Material> = ["KRNKR", "KRKR", "KRNK"]
            .iter()
            .map(|n| Material::parse(n).unwrap())
            .collect();
        let largest = PhaseMemory::of_run(sets[0], RuleSet::Asian, false);
        assert_eq!(
            run_budget(&sets, RuleSet::Asian, false),
            largest.least_peak().max(LEAST_RUN_BUDGET)
        );
        // The graph would raise KRNKR's peak above its bitmaps'.
        assert!(largest.rule_graph > largest.least_peak());
    }

    #[test]
    fn a_run_without_distances_solves_and_writes_in_bits() {
        let m = Material::parse("KRNKRAB").unwrap();
        let own = MaterialIndex::new(m).size();
        let with = PhaseMemory::of_run(m, RuleSet::Asian, false);
        let without = PhaseMemory::of_run(m, RuleSet::Asian, true);
        // Black's frontier of the next level; both sides' cells against 8 bits a slot kept
        // for the writer.
        assert_eq!(with.solve - without.solve, own / 8);
        assert_eq!(with.write - without.write, 2 * own - own);
        assert!(without.least_peak() <= with.least_peak());
    }
}
