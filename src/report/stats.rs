//! `stats`: a material set's statistics, in the colouring the user named.

use crate::material::Material;
use crate::probe::{ProbeError, Tablebase};
use crate::rules::Position;
use crate::table::SideStats;
use crate::value::{Outcome, Value};
use serde::Serialize;

/// Per side to move counts of a set (`canju stats --json`). Counts are *positions*: legal
/// placements as a player sees them, both mirror images counted.
#[derive(Clone, Debug, Serialize)]
pub struct StatsReport {
    /// The set in ASCII, red first, as the user named it.
    pub material: String,
    /// The set as players name it.
    pub material_chinese: String,
    /// The table's rule set.
    pub rules: String,
    /// False for a table without distances (`--wdl-only`): the longest wins and losses are
    /// then 0 with no example.
    pub distances: bool,
    /// Red to move.
    pub red: SideStats,
    /// Black to move.
    pub black: SideStats,
}

/// The statistics of `m` as named (a table is stored once for a set and its colour swap: the
/// sides and example positions are swapped back).
///
/// # Errors
///
/// The table is missing or damaged.
pub fn stats_report(tb: &Tablebase, m: Material) -> Result<StatsReport, ProbeError> {
    let table = tb.table(m)?;
    let mut stats = table.stats().clone();
    if table.material != m {
        stats.swap(0, 1);
        stats.iter_mut().for_each(swap_example_colours);
    }
    let [red, black] = stats;
    Ok(StatsReport {
        material: m.name(),
        material_chinese: m.chinese_name(),
        rules: table.rules().to_string(),
        distances: table.holds_distances(),
        red,
        black,
    })
}

/// Swaps the colours of a side's example positions.
fn swap_example_colours(s: &mut SideStats) {
    let mut fens = vec![
        &mut s.longest_win_fen,
        &mut s.longest_loss_fen,
        &mut s.rule_win_fen,
        &mut s.rule_loss_fen,
    ];
    for r in s.by_rule.iter_mut() {
        fens.extend([&mut r.win_fen, &mut r.loss_fen]);
    }
    for fen in fens {
        if let Some(f) = fen.as_ref() {
            *fen = Position::from_fen(f).ok().map(|p| p.color_swapped().fen());
        }
    }
}

/// Every legal position of `m`'s table whose value a repetition rule decided, one of each
/// mirror pair, in the colouring of `m`, with its value, to `each`. A side whose distances a
/// search gives is read whole first, where its WDL codes leave results by the
/// perpetual-check rule to the search (format 11 on).
///
/// # Errors
///
/// The table or one a capture reaches is missing, or a block cannot be read.
pub fn rule_decided_positions(
    tb: &Tablebase,
    m: Material,
    mut each: impl FnMut(&Position, Value),
) -> Result<(), ProbeError> {
    let table = tb.table(m)?;
    if (0..2).any(|side| table.searches(side) && table.searches_check_results(side)) {
        tb.load_all(&table)?;
    }
    for (_, pos) in table.index.legal_positions() {
        // A result by a rule has no distance: the outcome says all of it.
        let rule_value = match table.outcome(&pos)? {
            Some(Outcome::WinByRule(r)) => Some(Value::WinByRule(r)),
            Some(Outcome::LossByRule(r)) => Some(Value::LossByRule(r)),
            _ => None,
        };
        if let Some(v) = rule_value {
            if table.material == m {
                each(&pos, v);
            } else {
                each(&pos.color_swapped(), v);
            }
        }
    }
    Ok(())
}
