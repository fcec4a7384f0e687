//! The results of captures, read from the sub-tables by square lists: the square list after
//! a capture is the set's own list with the victim's entry left out (in the order the
//! sub-table's layout wants, flipped where the sub-table holds the colours swapped), so no
//! position is built, copied or colour-swapped per capture.

use crate::index::{MAX_MEN, MaterialIndex};
use crate::probe::Table;
use crate::rules::{Color, Piece, Role, Square};
use crate::value::Value;
use std::sync::Arc;

/// A capture's sub-table, and whether positions must be colour-swapped to read it.
pub(super) struct SubTable {
    pub(super) table: Arc<Table>,
    pub(super) swap: bool,
}

/// How to read the sub-table after the capture of one entry of the set's square list.
struct VictimMap {
    /// The victim's colour and kind: which sub-table.
    victim: (Color, Role),
    /// For each entry of the sub-table's layout, the set's entry standing there.
    order: Vec<u8>,
}

/// The sub-tables of a set, by the piece a capture takes.
pub(super) struct Captures {
    /// By victim colour and role.
    subs: [[Option<SubTable>; 7]; 2],
    /// By the victim's entry in the set's layout (`None` for the generals).
    by_entry: Vec<Option<VictimMap>>,
}

impl Captures {
    /// The captures of the set `index` indexes, into the sub-tables `subs` ([victim colour]
    /// [role]; one for every piece but the generals).
    pub(super) fn new(index: &MaterialIndex, subs: [[Option<SubTable>; 7]; 2]) -> Captures {
        let layout = index.layout();
        let by_entry = (0..layout.len())
            .map(|victim| {
                let piece = layout[victim];
                let sub = subs[piece.color.index()][piece.role.index()].as_ref()?;
                let mut used = vec![false; layout.len()];
                used[victim] = true;
                let order = sub
                    .table
                    .index
                    .layout()
                    .iter()
                    .map(|p| {
                        let ours = if sub.swap {
                            Piece::new(p.color.opponent(), p.role)
                        } else {
                            *p
                        };
                        let e = (0..layout.len())
                            .find(|&e| !used[e] && layout[e] == ours)
                            .expect("the sub-table holds the set less the victim");
                        used[e] = true;
                        e as u8
                    })
                    .collect();
                Some(VictimMap {
                    victim: (piece.color, piece.role),
                    order,
                })
            })
            .collect();
        Captures { subs, by_entry }
    }

    /// The sub-table read after the capture of the piece at entry `to` (not a general), with
    /// the way the set's entries map onto its layout.
    fn sub_after(&self, to: usize) -> (&VictimMap, &SubTable) {
        let map = self.by_entry[to].as_ref().expect("a capture of no general");
        let (color, role) = map.victim;
        let sub = self.subs[color.index()][role.index()].as_ref();
        (map, sub.expect("a sub-table for every capturable piece"))
    }

    /// The sub-table read after the capture of the piece at entry `to` (not a general).
    pub(super) fn table_after(&self, to: usize) -> &Table {
        &self.sub_after(to).1.table
    }

    /// The value (for the side to move after the capture) of the position after the piece at
    /// entry `from` of square list `sq` (side `mover`'s) captures the one at entry `to`;
    /// `None` if the sub-table has no slot for it (an inconsistent sub-table). A sub-table
    /// without distances gives stand-in distances ([`Table::stored`]).
    ///
    /// # Errors
    /// A damaged block of the sub-table.
    pub(super) fn value_after(
        &self,
        sq: &[u8],
        mover: Color,
        from: usize,
        to: usize,
    ) -> Result<Option<Value>, crate::table::TableError> {
        let (map, sub) = self.sub_after(to);
        let mut after = [0u8; MAX_MEN];
        for (k, &e) in map.order.iter().enumerate() {
            let s = if e as usize == from {
                sq[to]
            } else {
                sq[e as usize]
            };
            after[k] = if sub.swap {
                Square::from_index_unchecked(s).flip().index() as u8
            } else {
                s
            };
        }
        let Some(slot) = sub.table.index.encode_squares(&after[..map.order.len()]) else {
            return Ok(None);
        };
        // The victim's side is to move after the capture, the mover in swapped colours.
        let to_move = if sub.swap { mover } else { mover.opponent() };
        Ok(Value::from_stored(sub.table.stored(to_move.index(), slot)?))
    }
}
