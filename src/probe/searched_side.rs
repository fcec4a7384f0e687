//! The side to move whose distances a table does not store (format 9 on): its values by a
//! one-ply search over the stored side, one position at a time or every slot at once.

use super::{Position, ProbeError, Table, Tablebase, Wdl};
use crate::material::Material;
use crate::table::{DtmSide, TableError};
use crate::value::{Outcome, Rule, STORED_DRAW, Value};

impl Tablebase {
    /// The value of `p` (in `table`'s colouring) whose side to move's distances the table
    /// does not store: its WDL code, and for a win or loss by mate the distance its moves
    /// give ([`Tablebase::value_from_moves`]), which must agree with the code.
    pub(super) fn searched_value(
        &self,
        table: &Table,
        p: &Position,
    ) -> Result<Option<Value>, ProbeError> {
        let Some(outcome) = table.outcome(p)? else {
            return Ok(None);
        };
        self.value_of_outcome(table, p, outcome, || self.value_from_moves(p))
            .map(Some)
    }

    /// The value of `p` (in `table`'s colouring, on the side a search gives) whose WDL code
    /// says `outcome`: for a win or loss by mate the distance its moves give (`from_moves`),
    /// which must agree with the code.
    fn value_of_outcome(
        &self,
        table: &Table,
        p: &Position,
        outcome: Outcome,
        from_moves: impl FnOnce() -> Result<Value, ProbeError>,
    ) -> Result<Value, ProbeError> {
        Ok(match outcome {
            Outcome::Draw => Value::Draw,
            Outcome::WinByRule(r) => Value::WinByRule(r),
            Outcome::LossByRule(r) => Value::LossByRule(r),
            Outcome::Win | Outcome::Loss => {
                let v = from_moves()?;
                // A win or loss by the perpetual-check rule may share the code of one by
                // mate (format 11): the moves tell, a mate by a move to a mate, a result by
                // the rule by none. The code says the rule (the others have codes of their
                // own), whichever rule the best move's result came by.
                let folded = table.searches_check_results(p.turn().index());
                let v = match v {
                    Value::WinByRule(_) if folded => Value::WinByRule(Rule::PerpetualCheck),
                    Value::LossByRule(_) if folded => Value::LossByRule(Rule::PerpetualCheck),
                    v => v,
                };
                let fits = match v.rule() {
                    Some(_) => folded && Wdl::from(v) == Wdl::from(outcome),
                    None => Outcome::from(v) == outcome,
                };
                if !fits {
                    return Err(TableError::SearchDisagrees {
                        path: table.file.path().to_path_buf(),
                        fen: p.fen(),
                        code: outcome.to_string(),
                        search: v.to_string(),
                    }
                    .into());
                }
                v
            }
        })
    }

    /// [`Tablebase::value_from_moves`] of `pos` (in `table`'s colouring), whose quiet moves
    /// reach `table`'s other side to move, read whole: those are read from it by slot, and
    /// only the captures go through the probe.
    fn value_from_moves_within(&self, table: &Table, pos: &Position) -> Result<Value, ProbeError> {
        let other = 1 - pos.turn().index();
        best_of_moves(pos, |mv, after| {
            if pos.is_capture(mv) {
                return self.probe_unchecked(after);
            }
            let not_in_table = || ProbeError::NotInTable {
                material: table.material.name(),
                fen: after.fen(),
            };
            let j = table.index.encode(after).ok_or_else(not_in_table)?;
            Value::from_stored(table.stored(other, j)?).ok_or_else(not_in_table)
        })
    }

    /// The value a legal position has given its moves' values: a loss in 0 without a legal
    /// move, else the best of the values its moves leave (the first of the best, in move
    /// order). What the generator solved, and what the verifier checks every stored value
    /// against.
    ///
    /// # Errors
    /// A table a move reaches is missing or damaged.
    pub fn value_from_moves(&self, pos: &Position) -> Result<Value, ProbeError> {
        // A legal move from a legal position leads to a legal position.
        best_of_moves(pos, |_, after| self.probe_unchecked(after))
    }

    /// Reads the values of `side` (0 red, 1 black) to move of `table` whole into memory, as
    /// [`Table::load_side`] does; for the side whose distances the table does not store
    /// ([`Table::searches`]), from the stored side (read whole first) by a one-ply search of
    /// every slot that a win or loss by mate holds, in parallel.
    ///
    /// # Errors
    /// A checksum mismatch, a block that does not decode, a table a capture reaches missing
    /// or damaged, or a WDL code its moves disagree with ([`TableError::SearchDisagrees`]).
    pub fn load_side(&self, table: &Table, side: usize) -> Result<(), ProbeError> {
        use rayon::prelude::*;
        if !table.searches(side) {
            return Ok(table.load_side(side)?);
        }
        // The stored side first, whole (its checksums checked on the way): the search reads it.
        table.load_side(1 - side)?;
        // Its WDL codes whole too: a code looked up slot by slot decodes its block each time.
        let codes = table.file.load_wdl_of(side)?;
        let turn = crate::rules::Color::ALL[side];
        let step = crate::trace::step("searched side read whole");
        let values = (0..table.index.size())
            .into_par_iter()
            .map(|i| {
                let Some(pos) = table.index.legal_position(i, turn) else {
                    return Ok(STORED_DRAW);
                };
                let outcome = table.outcome_of_code(codes[i as usize], side)?;
                let v = self.value_of_outcome(table, &pos, outcome, || {
                    self.value_from_moves_within(table, &pos)
                })?;
                Ok(v.to_stored())
            })
            .collect::<Result<Vec<u16>, ProbeError>>()?;
        step.done(|| format!("{} side {side}", table.material.name()));
        let _ = table.all[side].set(DtmSide::from_stored(values));
        Ok(())
    }

    /// Every stored value of `material`'s table, red to move then black to move, slot by slot
    /// (the side a search gives included; [`Tablebase::load_all`]).
    ///
    /// # Errors
    /// The table is missing or damaged ([`Tablebase::load_side`]).
    pub fn stored_values(&self, material: Material) -> Result<[Vec<u16>; 2], ProbeError> {
        let table = self.table(material)?;
        self.load_all(&table)?;
        Ok([0, 1].map(|side| {
            (0..table.index.size())
                .map(|i| table.all[side].get().map_or(0, |v| v.stored(i)))
                .collect()
        }))
    }

    /// Reads both sides to move of `table` whole ([`Tablebase::load_side`]): what the
    /// verifier and `canju theory` read every value of.
    ///
    /// # Errors
    /// As [`Tablebase::load_side`].
    pub fn load_all(&self, table: &Table) -> Result<(), ProbeError> {
        let stored_first = match table.file.header().dtm_side {
            Some(1) => [1, 0],
            _ => [0, 1],
        };
        for side in stored_first {
            self.load_side(table, side)?;
        }
        Ok(())
    }
}

/// The value `pos` has given the value `value_after` gives the position after each legal
/// move (for its side to move): a loss in 0 without a legal move, else the best of the
/// values its moves leave, the first of the best in move order.
fn best_of_moves(
    pos: &Position,
    mut value_after: impl FnMut(crate::rules::Move, &Position) -> Result<Value, ProbeError>,
) -> Result<Value, ProbeError> {
    let mut best: Option<Value> = None;
    for &mv in pos.legal_moves().iter() {
        let v = value_after(mv, &pos.after(mv))?.parent();
        if best.is_none_or(|b| v.goodness() > b.goodness()) {
            best = Some(v);
        }
    }
    Ok(best.unwrap_or(Value::Loss(0)))
}
