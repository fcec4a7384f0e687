//! Independent re-derivation of every stored value from its successors.
//!
//! For each legal position the verifier generates every legal move, reads the successor's value
//! (from the same table, or through the [`Tablebase`] for captures) and recomputes the value:
//! no move loses at once; otherwise the shortest win through a move into a loss, else the
//! longest loss if every move leads to a win, else a draw. Exact distances make this local check
//! complete: by induction on the distance, every win and loss is right, so every draw is too.
//!
//! A table without distances (`--wdl-only`) gets the same check on outcomes alone: each must be
//! the best of its moves' outcomes. Without distances that is not a proof: a set of wrong
//! results that justify one another around cycles would pass ([`VerifyReport::complete`]).

use crate::index::MaterialIndex;
use crate::material::Material;
use crate::probe::{ProbeError, Table, Tablebase};
use crate::rules::Position;
use crate::value::{Outcome, Rule, Standing, Value};
use rayon::prelude::*;
use thiserror::Error;

/// Why a table failed verification.
#[derive(Debug, Error)]
pub enum VerifyError {
    /// A table could not be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// A stored value disagrees with its successors.
    #[error("{material}: {fen} is stored as {stored} but its moves give {expected}")]
    Mismatch {
        /// The table.
        material: String,
        /// The position.
        fen: String,
        /// What the table says.
        stored: String,
        /// What the successors say.
        expected: String,
    },
}

/// What a successful verification checked.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifyReport {
    /// Legal slots checked, both sides to move (each a position and its mirror image).
    pub slots: u64,
    /// The positions those slots hold as a player counts them (both mirror images), the
    /// count `canju stats` and `canju info` report.
    pub positions: u64,
    /// True if the check proves every value (the table holds distances); false for the
    /// outcome-only check of a table without them.
    pub complete: bool,
}

/// The outcome a position must have given its successors' outcomes.
///
/// # Errors
/// A table a move reaches is missing or damaged.
pub fn derive_outcome(tb: &Tablebase, pos: &Position) -> Result<Outcome, ProbeError> {
    let mut best: Option<Outcome> = None;
    for &mv in pos.legal_moves().iter() {
        let o = tb.probe_outcome(&pos.after(mv))?.parent();
        if best.is_none_or(|b| o.goodness() > b.goodness()) {
            best = Some(o);
        }
    }
    Ok(best.unwrap_or(Outcome::Loss))
}

/// True if `rule`, stored for `pos` as a win (`wins`) or a loss by a repetition rule, is the
/// rule its moves give. A rule names what the repetitions of the position's own set need
/// (README, *The repetition rules*): a result a capture reaches is settled, whatever decided
/// it. So a win is by perpetual check if a capture reaches a win, else by the first rule
/// (check, chase, mixed) of the wins its quiet moves reach. A loss is by perpetual check if
/// every loss its quiet moves reach by a rule is, by mixed if one of them is mixed, else by
/// chase or mixed: a perpetual check's loss may be one by chase alone as well, which its
/// label does not say.
///
/// # Errors
/// A table a move reaches is missing or damaged.
pub fn rule_fits(
    tb: &Tablebase,
    pos: &Position,
    rule: Rule,
    wins: bool,
) -> Result<bool, ProbeError> {
    let mut quiet_rules = Vec::new();
    let mut captured_win = false;
    for &mv in pos.legal_moves().iter() {
        let o = tb.probe_outcome(&pos.after(mv))?.parent();
        if (o.goodness() > 0) != wins {
            continue;
        }
        match (o.rule(), pos.is_capture(mv)) {
            (Some(r), false) => quiet_rules.push(r.index()),
            (Some(_), true) if wins => captured_win = true,
            _ => (),
        }
    }
    let at = rule.index();
    let (check, chase, mixed) = (
        Rule::PerpetualCheck.index(),
        Rule::PerpetualChase.index(),
        Rule::Mixed.index(),
    );
    Ok(match wins {
        true if captured_win => at == check,
        true => quiet_rules.iter().min() == Some(&at),
        false => match quiet_rules.iter().max().copied().unwrap_or(check) {
            worst if worst == check => at == check,
            worst if worst == mixed => at == mixed,
            _ => at == chase || at == mixed,
        },
    })
}

/// True if `stored` is `expected`, or both are wins or both losses by a repetition rule and
/// the stored rule fits the position's moves ([`rule_fits`]).
fn agrees(
    tb: &Tablebase,
    pos: &Position,
    stored: Option<impl Standing>,
    expected: impl Standing,
) -> Result<bool, ProbeError> {
    let Some(stored) = stored else {
        return Ok(false);
    };
    let (g, e) = (stored.goodness(), expected.goodness());
    match (stored.rule(), expected.rule()) {
        (Some(rule), Some(_)) if g == e => rule_fits(tb, pos, rule, g > 0),
        (s, x) => Ok(s == x && g == e),
    }
}

/// [`verify_table`] for a table without distances: every legal position's outcome is the
/// best of its moves' outcomes.
fn verify_outcomes(tb: &Tablebase, table: &Table) -> Result<VerifyReport, VerifyError> {
    let index = &table.index;
    let (slots, positions) = index
        .par_legal_positions()
        .map(|(i, pos)| {
            let stored = table.outcome(&pos).map_err(ProbeError::from)?;
            let expected = derive_outcome(tb, &pos)?;
            if !agrees(tb, &pos, stored, expected)? {
                return Err(VerifyError::Mismatch {
                    material: table.material.name(),
                    fen: pos.fen(),
                    stored: stored.map_or_else(|| "nothing".to_string(), |o| o.to_string()),
                    expected: expected.to_string(),
                });
            }
            Ok((1u64, index.mirror_images(i, &pos)))
        })
        .try_reduce(|| (0, 0), |a, b| Ok((a.0 + b.0, a.1 + b.1)))?;
    Ok(VerifyReport {
        slots,
        positions,
        complete: false,
    })
}

/// The value a position must have given its successors' values
/// ([`Tablebase::value_from_moves`]).
///
/// # Errors
/// A table a move reaches is missing or damaged.
pub fn derive_value(tb: &Tablebase, pos: &Position) -> Result<Value, ProbeError> {
    tb.value_from_moves(pos)
}

/// Checks every legal position of `material`'s table.
pub fn verify_table(tb: &Tablebase, material: Material) -> Result<VerifyReport, VerifyError> {
    let table = tb.table(material)?;
    if !table.holds_distances() {
        table.file.verify_checksums().map_err(ProbeError::from)?;
        return verify_outcomes(tb, &table);
    }
    // Checks the checksums (and load_wdl below once more). The side whose distances a
    // search gives is read by that search: its wins and losses then agree with their moves
    // by construction, and the check below proves its WDL codes and rule results.
    tb.load_all(&table)?;
    // The WDL section is stored separately (its own codec); it must agree with every value.
    // (From format 7 the distances are read through it, so this guards formats up to 6.)
    let wdl = table.file.load_wdl().map_err(ProbeError::from)?;
    let index = MaterialIndex::new(table.material);
    let (slots, positions) = index
        .par_legal_positions()
        .map(|(i, pos)| {
            let turn = pos.turn();
            let stored = table.stored(turn.index(), i).map_err(ProbeError::from)?;
            let value = Value::from_stored(stored);
            // A win or loss by mate of the side a search gives was read as the best of these
            // very moves (and checked against its code): searching again would find it again.
            let searched = !table.file.header().stores_distances_of(turn.index());
            let expected = match value {
                Some(v @ (Value::Win(_) | Value::Loss(_))) if searched => v,
                _ => derive_value(tb, &pos)?,
            };
            let code = wdl[turn.index()][i as usize];
            let rule_codes = table.file.header().rule_codes_of(turn.index());
            let wdl_ok = code == crate::table::wdl_code_with(stored, rule_codes);
            if !agrees(tb, &pos, value, expected)? || !wdl_ok {
                let v = Value::from_stored(stored)
                    .map_or_else(|| format!("raw {stored:#x}"), |v| v.to_string());
                return Err(VerifyError::Mismatch {
                    material: table.material.name(),
                    fen: pos.fen(),
                    stored: if wdl_ok {
                        v
                    } else {
                        format!(
                            "{v}, but the WDL section says {}",
                            ["loss", "draw", "win", "loss by rule", "win by rule"]
                                .get(code as usize)
                                .unwrap_or(&"an unknown code")
                        )
                    },
                    expected: expected.to_string(),
                });
            }
            let mirror_images = index.mirror_images(i, &pos);
            Ok((1u64, mirror_images))
        })
        .try_reduce(|| (0, 0), |a, b| Ok((a.0 + b.0, a.1 + b.1)))?;
    Ok(VerifyReport {
        slots,
        positions,
        complete: true,
    })
}
