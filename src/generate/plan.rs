//! What generating sets will take, said before it starts: slots, peak memory, disk and time
//! per set, from the memory model ([`super::memory::PhaseMemory`]) and rates measured on this
//! machine kind.

use super::memory::{PhaseMemory, available_memory};
use super::{GenOptions, thread_count};
use crate::index::MaterialIndex;
use crate::material::Material;
use crate::probe::{RuleSet, Tablebase};
use crate::rules::{Color, Role};
use serde::Serialize;

/// Threads the rates below were measured with (a 2-core machine of the CI kind).
const MEASURED_THREADS: f64 = 2.0;
/// Seconds per slot (both sides to move together) of initialising, the sweeps and writing a
/// set past [`LARGE_RULE_PASS_SLOTS`]: stop 46's KRNKRAB family run (stop 45's binary)
/// KRNKRA 0.54e-6 (72.5 s of 201), KRNKRB 0.52e-6 (109 s of 323), KRNKRAB 0.57e-6 (527 s of
/// 1,825); stop 38's 0.68e-6, 0.66e-6 and 0.72e-6.
const SOLVE_SECONDS_PER_SLOT: f64 = 0.57e-6;
/// As [`SOLVE_SECONDS_PER_SLOT`], for a set of at most [`LARGE_RULE_PASS_SLOTS`]: every set up
/// to 5 men (1.118e9 slots) 0.345e-6 at stop 49 (386 s of 526), 0.38e-6 at stop 47 (424 s of
/// 580: the write phase 71 s, from 111 at stop 46), stop 46 0.41e-6 (455 s of 618), stop 44
/// 0.49e-6, stop 43 0.61e-6, stop 37 0.74e-6.
const SMALL_SOLVE_SECONDS_PER_SLOT: f64 = 0.36e-6;
/// As [`SOLVE_SECONDS_PER_SLOT`] and [`SMALL_SOLVE_SECONDS_PER_SLOT`], for a run without
/// distances (`--wdl-only`: the search in bitmaps, no DTM to write): stop 50's KRNKRAB family
/// KRNKRA 0.31e-6 (40.7 s of 154.7), KRNKRB 0.28e-6 (59.5 s of 242.4), KRNKRAB 0.33e-6 (303 s
/// of 1,504); every set up to 5 men 0.33e-6 (371 s of 505, summed over the sets).
const WDL_ONLY_SOLVE_SECONDS_PER_SLOT: f64 = 0.33e-6;
/// Seconds per slot of the perpetual-check pass by bitmaps. It grows with the set and its
/// share of draws: session 27's binary KRNKR 0.95e-6 (31 s), KRNKRA 1.54e-6 (205.5 s; the
/// plan then says 340 s for the whole set, which took 362 s); earlier KRNKRAB 1.81e-6 (1,667
/// s, before the first round read the draws' flags: not measured since).
const BITMAP_RULE_SECONDS_PER_SLOT: f64 = 1.5e-6;
/// Seconds per slot of the `asian` rule pass (the five-priority game of checks and chases,
/// after the perpetual-check fixpoint that seeds it) of a set where both sides have a piece
/// that attacks (a rook, horse, cannon or pawn: [`contested`]) but not both a rook: over the
/// 75 such sets up to 5 men (7.17e8 slots, 2 threads) 1.11e-7 at stop 49 and 1.06e-7 at stop
/// 50 (76 s), from KPPKN's 8.2e-7 and KCAKC's 6.0e-7 down to KRNKC's 0.12e-7. Stop 47's
/// single rate for every contested set (1.86e-7 measured, 3.2e-7 planned) put every set up to
/// 5 men at 716 s by stop 49, which took 526 s (+36%).
const PRIORITY_RULE_SECONDS_PER_SLOT: f64 = 1.2e-7;
/// As [`PRIORITY_RULE_SECONDS_PER_SLOT`], for a set where each side has a rook ([`rooks_each`]),
/// where the rule must settle the most draws: the 7 such sets up to 5 men (1.06e8 slots)
/// 5.51e-7 at stop 49 and 5.23e-7 at stop 50 (55.5 s), KRKR 2.8e-7 to KRCKR 8.0e-7; KRNKR
/// 4.5e-7 to 5.1e-7 (15.3 to 16.7 s).
const ROOKS_EACH_RULE_SECONDS_PER_SLOT: f64 = 5.5e-7;
/// As [`PRIORITY_RULE_SECONDS_PER_SLOT`], for a set where one side has only its general,
/// advisors and elephants: the 144 such sets up to 5 men (2.95e8 slots) 1.2e-8 at stop 47.
const ONE_SIDED_RULE_SECONDS_PER_SLOT: f64 = 2e-8;
/// Slots a side past which a set's `asian` rule pass is planned at
/// [`LARGE_PRIORITY_RULE_SECONDS_PER_SLOT`]: KRNKR (3.3e7) runs at about the 5-men rate,
/// KRNKRA (1.3e8) at the large one.
const LARGE_RULE_PASS_SLOTS: u64 = 1 << 26;
/// Seconds per slot of the `asian` rule pass of a set past [`LARGE_RULE_PASS_SLOTS`], where most
/// slot-positions are draws the game must settle: stop 46's KRNKRAB family run (stop 45's
/// binary), KRNKRA 0.96e-6 (129 s), KRNKRB 1.02e-6 (214 s), KRNKRAB 1.41e-6 (1,298 s); stop
/// 38's 1.53e-6, 1.46e-6 and 2.05e-6. With these rates the family is planned at about 40.5
/// minutes (40 min 13 s measured), KRNKRAB itself within 6%, KRNKRA and KRNKRB 22-24% high.
const LARGE_PRIORITY_RULE_SECONDS_PER_SLOT: f64 = 1.3e-6;
/// Bytes on disk per slot of a table with both sides' distances, measured over every set up
/// to 5 men (0.228 with DTM as halves, format 7: 254.5 MB for 1.118e9 slots; KRNKR 0.30,
/// KRCKR 0.17): what a table of more than 2^26 slots a side takes.
pub(super) const DISK_BYTES_PER_SLOT: f64 = 0.23;
/// Bytes on disk per slot of a table with one side to move's distances (format 9), measured
/// over every set up to 5 men: 133.6 MB for 1.118e9 slots (KRNKR 0.23, KRCKR 0.13).
const ONE_SIDE_DISK_BYTES_PER_SLOT: f64 = 0.12;
/// Bytes on disk per slot of a table without distances (`--wdl-only`): KRNKR's file takes
/// 5,265,728 bytes so (its WDL codes tell apart 8.9M wins by the rule), 0.70 of its
/// 7,477,324 with one side's distances, which scales [`ONE_SIDE_DISK_BYTES_PER_SLOT`].
const WDL_ONLY_DISK_BYTES_PER_SLOT: f64 = 0.085;

/// What one set will take.
#[derive(Clone, Debug, Serialize)]
pub struct SetPlan {
    /// The set (stored colouring).
    pub material: String,
    /// Slots per side to move.
    pub slots: u64,
    /// Peak memory while generating it, bytes.
    pub peak_bytes: u64,
    /// Estimated wall time, seconds.
    pub seconds: f64,
    /// Estimated size of its file, bytes.
    pub disk_bytes: u64,
    /// The perpetual-check pass expected (`graph` or `bitmaps`), if one runs.
    pub rule_pass: Option<&'static str>,
}

/// What generating some sets and every missing sub-table will take.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The sets asked for.
    pub material: String,
    /// The largest peak of the sets, bytes.
    pub peak_bytes: u64,
    /// Estimated wall time of all the sets, seconds.
    pub seconds: f64,
    /// Estimated bytes of all their files.
    pub disk_bytes: u64,
    /// Memory available now, bytes (0 if unknown).
    pub available_bytes: u64,
    /// True if every set fits in 90% of the memory available.
    pub fits: bool,
    /// Every set to generate, smallest first.
    pub sets: Vec<SetPlan>,
}

/// Seconds per slot of a set without a perpetual-check pass on `threads` threads.
pub(super) fn seconds_per_slot(threads: usize) -> f64 {
    SOLVE_SECONDS_PER_SLOT * MEASURED_THREADS / threads.max(1) as f64
}

/// The plan for generating `targets` into `tb` with `opts`: the sets [`super::generate_all`]
/// would generate, in its order.
///
/// # Errors
/// [`super::GenError::TooLarge`] for a target whose values alone cannot fit in memory (its
/// sub-sets are not listed).
pub fn plan(
    tb: &Tablebase,
    targets: &[Material],
    opts: &GenOptions,
) -> Result<Plan, super::GenError> {
    let threads = thread_count(opts.threads);
    let (order, todo) = super::work_list(tb, targets, opts, threads)?;
    Ok(plan_of_work(
        tb,
        targets,
        &order,
        &todo,
        threads,
        opts.wdl_only,
    ))
}

/// The plan for the sets of `order` marked in `todo`, on `threads` threads.
pub(super) fn plan_of_work(
    tb: &Tablebase,
    targets: &[Material],
    order: &[Material],
    todo: &[bool],
    threads: usize,
    wdl_only: bool,
) -> Plan {
    let avail = available_memory();
    let to_make: Vec<Material> = order
        .iter()
        .zip(todo)
        .filter(|(_, todo)| **todo)
        .map(|(&m, _)| m)
        .collect();
    let sets: Vec<SetPlan> = to_make
        .iter()
        .map(|&m| {
            let mut set = set_plan(m, tb.rules(), threads, wdl_only);
            if wdl_only {
                set.disk_bytes = (set.slots as f64 * WDL_ONLY_DISK_BYTES_PER_SLOT) as u64;
            }
            set
        })
        .collect();
    let limit = avail / 10 * 9;
    Plan {
        material: targets
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(" "),
        peak_bytes: sets.iter().map(|s| s.peak_bytes).max().unwrap_or(0),
        seconds: sets.iter().map(|s| s.seconds).sum(),
        disk_bytes: sets.iter().map(|s| s.disk_bytes).sum(),
        available_bytes: avail,
        fits: avail == 0 || sets.iter().all(|s| s.peak_bytes <= limit),
        sets,
    }
}

/// Bytes on disk per slot of a table of `slots` slots a side that `gen` writes (one side to
/// move's distances up to 2^26 slots a side, both beyond).
fn disk_bytes_per_slot(slots: u64) -> f64 {
    match slots <= super::memory::MOST_SLOTS_ONE_SIDE_DTM {
        true => ONE_SIDE_DISK_BYTES_PER_SLOT,
        false => DISK_BYTES_PER_SLOT,
    }
}

/// True if both sides of `m` have a piece that attacks (a rook, horse, cannon or pawn): the
/// sets whose draws the repetition rules mostly have to settle.
fn contested(m: Material) -> bool {
    Color::ALL.into_iter().all(|c| {
        [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
            .into_iter()
            .any(|r| m.count(c, r) > 0)
    })
}

/// True if each side of `m` has a rook.
fn rooks_each(m: Material) -> bool {
    Color::ALL.into_iter().all(|c| m.count(c, Role::Rook) > 0)
}

/// What `m` will take on `threads` threads, with `wdl_only` in a run without distances.
fn set_plan(m: Material, rules: RuleSet, threads: usize, wdl_only: bool) -> SetPlan {
    let slots = MaterialIndex::new(m).size();
    let memory = PhaseMemory::of_run(m, rules, wdl_only);
    let peak_bytes = memory.least_peak();
    // The pass each rule set runs: under `check` the one `auto` picks, the bitmaps; under
    // `asian` the five-priority game.
    let (rule_pass, rule_rate) = match rules {
        _ if memory.rule_graph == 0 => (None, 0.0),
        RuleSet::Asian if slots > LARGE_RULE_PASS_SLOTS => {
            (Some("priorities"), LARGE_PRIORITY_RULE_SECONDS_PER_SLOT)
        }
        RuleSet::Asian if rooks_each(m) => (Some("priorities"), ROOKS_EACH_RULE_SECONDS_PER_SLOT),
        RuleSet::Asian if contested(m) => (Some("priorities"), PRIORITY_RULE_SECONDS_PER_SLOT),
        RuleSet::Asian => (Some("priorities"), ONE_SIDED_RULE_SECONDS_PER_SLOT),
        _ => (Some("bitmaps"), BITMAP_RULE_SECONDS_PER_SLOT),
    };
    let scale = MEASURED_THREADS / threads.max(1) as f64;
    let solve_rate = match (wdl_only, slots > LARGE_RULE_PASS_SLOTS) {
        (true, _) => WDL_ONLY_SOLVE_SECONDS_PER_SLOT,
        (false, true) => SOLVE_SECONDS_PER_SLOT,
        (false, false) => SMALL_SOLVE_SECONDS_PER_SLOT,
    };
    SetPlan {
        material: m.name(),
        slots,
        peak_bytes,
        seconds: slots as f64 * (solve_rate + rule_rate) * scale,
        disk_bytes: (slots as f64 * disk_bytes_per_slot(slots)) as u64,
        rule_pass,
    }
}
