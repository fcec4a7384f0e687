//! `gen --json`: one generated (or reused) set.

use crate::generate::GenReport;
use crate::table::SideStats;
use serde::Serialize;

/// Seconds or bytes per phase of one generation.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PerPhase<T> {
    /// Reading sub-tables and each slot's first value.
    pub init: T,
    /// The retrograde sweeps.
    pub sweep: T,
    /// The perpetual-check pass (0 under `plain`).
    pub rule: T,
    /// Statistics, compression, writing.
    pub write: T,
}

/// The statistics of both sides to move.
#[derive(Clone, Debug, Serialize)]
pub struct BothSides {
    /// Red to move.
    pub red_to_move: SideStats,
    /// Black to move.
    pub black_to_move: SideStats,
}

/// One set of a `canju gen` run (`gen --json` prints one a line, as each is done).
#[derive(Clone, Debug, Serialize)]
pub struct GenSummary {
    /// The set, stored colouring.
    pub material: String,
    /// Slots per side to move (index entries: a position and its mirror image).
    pub slots: u64,
    /// False if the file was present and reused.
    pub generated: bool,
    /// Wall seconds.
    pub seconds: f64,
    /// Wall seconds per phase.
    pub phases: PerPhase<f64>,
    /// Peak resident bytes per phase.
    pub phase_peak_bytes: PerPhase<u64>,
    /// The perpetual-check pass that ran: `graph`, `bitmaps`, or null.
    pub rule_pass: Option<&'static str>,
    /// Peak resident bytes while the set was generated.
    pub peak_bytes: u64,
    /// `peak_bytes` per slot and side to move.
    pub peak_bytes_per_slot: f64,
    /// The peak of solving the wins and losses (init and sweep: with distances, or in
    /// bitmaps for `--wdl-only`) per slot and side to move.
    pub search_bytes_per_slot: f64,
    /// How the wins and losses were solved: `cells` (a byte a position, with distances) or
    /// `bitmaps` (`--wdl-only`).
    pub search: &'static str,
    /// Size of the table file.
    pub file_bytes: u64,
    /// True if the table stores distances to mate (false: made with `--wdl-only`).
    pub distances: bool,
    /// Counts per side to move.
    pub stats: BothSides,
}

impl From<&GenReport> for GenSummary {
    fn from(r: &GenReport) -> GenSummary {
        let t = r.phases;
        GenSummary {
            material: r.material.name(),
            slots: r.slots,
            generated: r.generated,
            seconds: r.seconds,
            phases: PerPhase {
                init: t.init,
                sweep: t.sweep,
                rule: t.rule,
                write: t.write,
            },
            phase_peak_bytes: PerPhase {
                init: t.peaks.init,
                sweep: t.peaks.sweep,
                rule: t.peaks.rule,
                write: t.peaks.write,
            },
            rule_pass: t.rule_pass.map(|p| p.name()),
            peak_bytes: r.peak_memory,
            peak_bytes_per_slot: r.peak_memory as f64 / (2 * r.slots.max(1)) as f64,
            search_bytes_per_slot: t.peaks.search() as f64 / (2 * r.slots.max(1)) as f64,
            search: if t.in_bits { "bitmaps" } else { "cells" },
            file_bytes: r.file_bytes,
            distances: r.distances,
            stats: BothSides {
                red_to_move: r.stats[0].clone(),
                black_to_move: r.stats[1].clone(),
            },
        }
    }
}
