//! A slot's position and the slots one piece-move away, the unit of work of every phase.
//!
//! Decoding a slot, setting up its board and splitting its slot by group is a large part of
//! every phase's cost, and the phases visit slots mostly in order, where neighbours in the
//! order differ in a piece or two. A [`Node`] is kept from one slot to the next: loading a slot
//! lifts and places only the pieces that stand elsewhere.

use crate::index::{DefenderPair, GroupParts, MAX_MEN, MaterialIndex};
use crate::material::Material;
use crate::rules::{Color, Move, MoveList, Position, Square};
use std::cell::RefCell;

/// Marks a point no entry of the square list stands on.
const NO_ENTRY: u8 = 0xFF;

/// A position's square list, ready to give the slots of positions one piece-move away (moves
/// and un-moves alike): which entry stands on each square, and its slot split by group, which
/// moves of rooks, horses, cannons and pawns change one group at a time.
pub(super) struct Neighbours {
    sq: [u8; MAX_MEN],
    len: usize,
    entry: [u8; 90],
    /// Where the generals, advisors and elephants stand.
    pair: DefenderPair,
    /// The slot split by group: a move of a rook, horse, cannon or pawn recomputes only its
    /// group's part.
    parts: GroupParts,
}

impl Neighbours {
    /// `sq` must be a legal slot's square list.
    #[inline]
    pub(super) fn new(index: &MaterialIndex, sq: &[u8]) -> Self {
        let mut near = Neighbours::empty(sq.len());
        near.sq[..sq.len()].copy_from_slice(sq);
        for (k, &s) in sq.iter().enumerate() {
            near.entry[s as usize] = k as u8;
        }
        near.split(index, u64::MAX);
        near
    }

    /// A square list of `len` entries not yet placed: no point has an entry.
    fn empty(len: usize) -> Self {
        Neighbours {
            sq: [0; MAX_MEN],
            len,
            entry: [NO_ENTRY; 90],
            pair: DefenderPair::default(),
            parts: GroupParts::default(),
        }
    }

    /// The square list, in [`MaterialIndex::layout`] order.
    #[inline]
    pub(super) fn squares(&self) -> &[u8] {
        &self.sq[..self.len]
    }

    /// Computes the slot's defender pair and parts from the square list, where they were
    /// those of a list that differs only in the entries of bit mask `changed`.
    #[inline]
    fn split(&mut self, index: &MaterialIndex, changed: u64) {
        let sq = &self.sq[..self.len];
        let defenders = (1u64 << index.defender_entries()) - 1;
        if changed & defenders != 0 {
            self.pair = index.defender_pair(sq).expect("legal slot");
        }
        let split = index.split_changed_into(self.pair, sq, &mut self.parts, changed);
        debug_assert!(split, "legal slot");
    }

    /// The slot after the piece on `from` goes to the empty point `to`.
    #[inline]
    pub(super) fn slot_after(&mut self, index: &MaterialIndex, from: Square, to: Square) -> u64 {
        let k = self.entry[from.index()] as usize;
        let sq = &mut self.sq[..self.len];
        let j = if k < index.defender_entries() {
            index.slot_after_defender_move(&self.parts, sq, k, to.index() as u8)
        } else {
            index.slot_after_group_move(&self.parts, sq, k, to.index() as u8)
        };
        j.expect("a move keeps the material")
    }

    /// True if `f` holds for the slot after some quiet pseudo-legal move of `pos` (whose
    /// pieces stand on this square list). The moves are made piece by piece, so that the
    /// first one for which `f` holds ends the search (an illegal move leads to a slot
    /// holding no legal position).
    #[inline]
    pub(super) fn any_quiet_move(
        &mut self,
        index: &MaterialIndex,
        pos: &Position,
        mut f: impl FnMut(u64) -> bool,
    ) -> bool {
        self.any_quiet_move_with(index, pos, |_, j| f(j))
    }

    /// As [`Neighbours::any_quiet_move`], `f` also given the move.
    #[inline]
    pub(super) fn any_quiet_move_with(
        &mut self,
        index: &MaterialIndex,
        pos: &Position,
        f: impl FnMut(Move, u64) -> bool,
    ) -> bool {
        self.quiet_moves_until(index, pos, None, f)
    }

    /// As [`Neighbours::any_quiet_move`], the captures passed on the way added to `captures`
    /// (every pseudo-legal capture, where `f` holds for no quiet move).
    #[inline]
    pub(super) fn any_quiet_move_noting_captures(
        &mut self,
        index: &MaterialIndex,
        pos: &Position,
        captures: &mut MoveList,
        mut f: impl FnMut(u64) -> bool,
    ) -> bool {
        self.quiet_moves_until(index, pos, Some(captures), |_, j| f(j))
    }

    /// Calls `f` on the quiet pseudo-legal moves of `pos`, piece by piece, until it holds
    /// for one (true); the captures passed go to `captures` if given.
    #[inline]
    fn quiet_moves_until(
        &mut self,
        index: &MaterialIndex,
        pos: &Position,
        mut captures: Option<&mut MoveList>,
        mut f: impl FnMut(Move, u64) -> bool,
    ) -> bool {
        let mut moves = MoveList::new();
        for k in 0..self.len {
            let from = Square::from_index_unchecked(self.sq[k]);
            if pos.piece_at(from).is_none_or(|p| p.color != pos.turn()) {
                continue;
            }
            moves.clear();
            pos.pseudo_legal_moves_from(from, &mut moves);
            for &mv in moves.iter() {
                if pos.is_capture(mv) {
                    if let Some(list) = captures.as_deref_mut() {
                        list.push(mv);
                    }
                } else if f(mv, self.slot_after(index, mv.from, mv.to)) {
                    return true;
                }
            }
        }
        false
    }
}

/// A legal slot's position with its [`Neighbours`], kept from one slot to the next: loading a
/// slot lifts and places only the pieces whose points differ from the last slot's.
pub(super) struct Node {
    pos: Position,
    near: Neighbours,
    /// Whether `pos` and `near`'s square list hold a slot (else the board is empty).
    loaded: bool,
    /// Whether `near`'s parts are those of the loaded slot.
    split: bool,
}

impl Node {
    /// An empty node for slots of `index`.
    pub(super) fn new(index: &MaterialIndex) -> Node {
        Node {
            pos: Position::empty(Color::Red),
            near: Neighbours::empty(index.layout().len()),
            loaded: false,
            split: false,
        }
    }

    /// Loads legal slot `slot` with `turn` to move, ready for [`Node::parts`].
    #[inline]
    pub(super) fn load(&mut self, index: &MaterialIndex, slot: u64, turn: Color) {
        let mut sq = [0u8; MAX_MEN];
        let len = self.near.len;
        index.decode_squares(slot, &mut sq[..len]);
        let changed = self.place_squares(index, &sq[..len]);
        // Parts left stale by a load of the position alone are computed whole.
        let changed = if self.split { changed } else { u64::MAX };
        self.near.split(index, changed);
        self.split = true;
        self.pos.set_turn(turn);
    }

    /// Loads the position of square list `sq` (a legal slot's) without its neighbours, for
    /// callers that need only the position: [`Node::parts`] then waits for a [`Node::load`].
    #[inline]
    pub(super) fn load_position(&mut self, index: &MaterialIndex, sq: &[u8]) -> &mut Position {
        self.place_squares(index, sq);
        self.split = false;
        &mut self.pos
    }

    /// Lifts the pieces of the last slot that stand elsewhere in `sq`, and places them;
    /// returns which entries moved (bit k: entry k; every bit for the first load).
    #[inline]
    fn place_squares(&mut self, index: &MaterialIndex, sq: &[u8]) -> u64 {
        let near = &mut self.near;
        let layout = index.layout();
        if self.loaded {
            for (&old, &new) in near.sq.iter().zip(sq) {
                if old != new {
                    self.pos.lift(Square::from_index_unchecked(old));
                    near.entry[old as usize] = NO_ENTRY;
                }
            }
        }
        let mut changed = if self.loaded { 0 } else { u64::MAX };
        for k in 0..near.len {
            if !self.loaded || near.sq[k] != sq[k] {
                let s = sq[k];
                self.pos.place(Square::from_index_unchecked(s), layout[k]);
                near.entry[s as usize] = k as u8;
                near.sq[k] = s;
                changed |= 1 << k;
            }
        }
        self.loaded = true;
        changed
    }

    /// The loaded position and its neighbours.
    #[inline]
    pub(super) fn parts(&mut self) -> (&Position, &mut Neighbours) {
        debug_assert!(self.split, "a node's neighbours read before a load");
        (&self.pos, &mut self.near)
    }

    /// As [`Node::parts`], the position to make and unmake moves on (to be left as it was).
    #[inline]
    pub(super) fn parts_mut(&mut self) -> (&mut Position, &mut Neighbours) {
        debug_assert!(self.split, "a node's neighbours read before a load");
        (&mut self.pos, &mut self.near)
    }
}

thread_local! {
    /// Each thread's node for [`with_loaded`], with the material it was made for.
    static NODE: RefCell<Option<(Material, Node)>> = const { RefCell::new(None) };
}

/// Calls `f` with legal slot `slot` of `index` (`turn` to move) loaded into this thread's
/// node, for callers that have no scratch of their own to keep one in (the rule pass's game
/// traits). A call made from within `f` loads a node of its own.
pub(super) fn with_loaded<R>(
    index: &MaterialIndex,
    slot: u64,
    turn: Color,
    f: impl FnOnce(&Position, &mut Neighbours) -> R,
) -> R {
    let run = |node: &mut Node| {
        node.load(index, slot, turn);
        let (pos, near) = node.parts();
        f(pos, near)
    };
    NODE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut kept) => {
            let material = index.material();
            if kept.as_ref().is_none_or(|(m, _)| *m != material) {
                *kept = Some((material, Node::new(index)));
            }
            let (_, node) = kept.as_mut().expect("just made");
            run(node)
        }
        Err(_) => run(&mut Node::new(index)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Legal slots of `name`, loaded into one node `stride` slots apart (and wrapping round),
    /// give the position and neighbour slots a fresh decode gives.
    fn loads_agree_with_fresh_decodes(name: &str, stride: u64) {
        let index = MaterialIndex::new(Material::parse(name).unwrap());
        let mut node = Node::new(&index);
        let size = index.size();
        let mut checked = 0;
        for step in 0..size.min(100_000) {
            let slot = (step * stride) % size;
            let turn = if step % 2 == 0 {
                Color::Red
            } else {
                Color::Black
            };
            let mut sq = [0u8; MAX_MEN];
            let sq = &mut sq[..index.layout().len()];
            if !index.decode_squares(slot, sq) || index.encode_squares(sq) != Some(slot) {
                continue;
            }
            let fresh = index.position_of(sq, turn);
            node.load(&index, slot, turn);
            let (pos, near) = node.parts();
            assert_eq!(pos.fen(), fresh.fen(), "slot {slot} of {name}");
            let mut from_node = vec![];
            near.any_quiet_move(&index, pos, |j| {
                from_node.push(j);
                false
            });
            let mut from_fresh = vec![];
            Neighbours::new(&index, sq).any_quiet_move(&index, &fresh, |j| {
                from_fresh.push(j);
                false
            });
            assert_eq!(from_node, from_fresh, "slot {slot} of {name}");
            checked += 1;
        }
        assert!(
            checked > 1_000,
            "{name}: only {checked} legal slots checked"
        );
    }

    #[test]
    fn a_reused_node_loads_what_a_fresh_decode_gives() {
        for name in ["KRKN", "KNNKA", "KAABKR", "KPPKC", "KRRKAA", "KRNKNP"] {
            // Neighbours in the order, where most loads move a piece or two, and slots far
            // apart (a stride coprime with most sizes), where most move every piece.
            for stride in [1, 7_919] {
                loads_agree_with_fresh_decodes(name, stride);
            }
        }
    }
}
