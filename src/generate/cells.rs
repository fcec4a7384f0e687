//! The generator's working values: one byte per position (slot and side to move), with the
//! rare distances that do not fit in a byte kept in a side map.
//!
//! A cell holds a distance to mate up to [`MAX_INLINE`] plies (odd: the side to move wins, even:
//! it loses), or one of the markers below. The mate search moves cells from [`UNDECIDED`] or
//! [`CAN_DRAW`] to distances and ends by turning what is left into [`DRAW`]; the perpetual-check
//! pass turns draws into [`RULE_WIN`] and [`RULE_LOSS`].

use crate::table::{ValueSource, wdl_code};
use crate::value::{STORED_DRAW, STORED_ILLEGAL, STORED_RULE_LOSS, STORED_RULE_WIN};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The longest distance a cell holds itself.
pub(super) const MAX_INLINE: u8 = 0xF8;
/// A distance longer than [`MAX_INLINE`], kept in the side map.
pub(super) const BIG: u8 = 0xF9;
/// No legal position: the side not to move is in check (or the slot is not a position).
pub(super) const ILLEGAL: u8 = 0xFA;
/// Not decided yet; every capture of the position loses, so it may still lose.
pub(super) const UNDECIDED: u8 = 0xFB;
/// Not decided yet; a capture draws, so it wins or draws.
pub(super) const CAN_DRAW: u8 = 0xFC;
/// Lost by the perpetual-check rule.
pub(super) const RULE_LOSS: u8 = 0xFD;
/// Won by the perpetual-check rule.
pub(super) const RULE_WIN: u8 = 0xFE;
/// Drawn.
pub(super) const DRAW: u8 = 0xFF;

/// One byte per position for both sides to move, and the long distances.
pub struct Cells {
    sides: [Vec<AtomicU8>; 2],
    /// Distances of the [`BIG`] cells, per side to move.
    big: [Mutex<HashMap<u64, u16>>; 2],
}

impl Cells {
    /// `size` slots per side, every cell [`UNDECIDED`].
    pub(super) fn new(size: u64) -> Cells {
        let side = || (0..size).map(|_| AtomicU8::new(UNDECIDED)).collect();
        Cells {
            sides: [side(), side()],
            big: Default::default(),
        }
    }

    /// Slots per side to move.
    pub fn size(&self) -> u64 {
        self.sides[0].len() as u64
    }

    /// The cell of `slot` with `side` (0 red, 1 black) to move.
    #[inline]
    pub(super) fn raw(&self, side: usize, slot: u64) -> u8 {
        self.sides[side][slot as usize].load(Relaxed)
    }

    /// The distance of `slot`, if it holds one.
    #[inline]
    pub(super) fn distance(&self, side: usize, slot: u64) -> Option<u16> {
        match self.raw(side, slot) {
            c if c <= MAX_INLINE => Some(c as u16),
            BIG => self.big_distance(side, slot),
            _ => None,
        }
    }

    fn big_distance(&self, side: usize, slot: u64) -> Option<u16> {
        let map = self.big[side].lock().expect("no panic holds the lock");
        // Read under the lock: the cell may have left BIG since it was loaded.
        (self.raw(side, slot) == BIG).then(|| map[&slot])
    }

    /// The value of `slot` in the stored form (undecided cells read as draws).
    pub fn stored(&self, side: usize, slot: u64) -> u16 {
        match self.raw(side, slot) {
            c if c <= MAX_INLINE => c as u16,
            BIG => self.big_distance(side, slot).unwrap_or(STORED_DRAW),
            ILLEGAL => STORED_ILLEGAL,
            RULE_LOSS => STORED_RULE_LOSS,
            RULE_WIN => STORED_RULE_WIN,
            _ => STORED_DRAW,
        }
    }

    /// Sets `slot` to marker `cell` (not a distance).
    #[inline]
    pub(super) fn set_marker(&self, side: usize, slot: u64, cell: u8) {
        debug_assert!(cell > BIG);
        self.sides[side][slot as usize].store(cell, Relaxed);
    }

    /// Sets `slot` to distance `d` (no other thread may change it meanwhile).
    pub(super) fn set_distance(&self, side: usize, slot: u64, d: u16) {
        if d <= MAX_INLINE as u16 {
            self.sides[side][slot as usize].store(d as u8, Relaxed);
        } else {
            let mut map = self.big[side].lock().expect("no panic holds the lock");
            map.insert(slot, d);
            self.sides[side][slot as usize].store(BIG, Relaxed);
        }
    }

    /// Makes `slot` a win in `w` plies unless it already wins as fast (or has lost, which
    /// a position with a move into a loss never has); true if it changed.
    pub(super) fn improve_win(&self, side: usize, slot: u64, w: u16) -> bool {
        let cell = &self.sides[side][slot as usize];
        let mut cur = cell.load(Relaxed);
        loop {
            let better = match cur {
                UNDECIDED | CAN_DRAW => true,
                c if c <= MAX_INLINE => c % 2 == 1 && c as u16 > w,
                BIG => return self.improve_big_win(side, slot, w),
                _ => false,
            };
            if !better {
                return false;
            }
            if w > MAX_INLINE as u16 {
                return self.improve_big_win(side, slot, w);
            }
            match cell.compare_exchange_weak(cur, w as u8, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(c) => cur = c,
            }
        }
    }

    /// [`Cells::improve_win`] where the cell or the new distance is [`BIG`]: under the lock.
    fn improve_big_win(&self, side: usize, slot: u64, w: u16) -> bool {
        let mut map = self.big[side].lock().expect("no panic holds the lock");
        let cell = &self.sides[side][slot as usize];
        loop {
            let cur = cell.load(Relaxed);
            let better = match cur {
                UNDECIDED | CAN_DRAW => true,
                c if c <= MAX_INLINE => c % 2 == 1 && c as u16 > w,
                BIG => map[&slot] % 2 == 1 && map[&slot] > w,
                _ => false,
            };
            if !better {
                return false;
            }
            let new = if w <= MAX_INLINE as u16 { w as u8 } else { BIG };
            if new == BIG {
                map.insert(slot, w);
            }
            if cell.compare_exchange(cur, new, Relaxed, Relaxed).is_ok() {
                if new != BIG {
                    map.remove(&slot);
                }
                return true;
            }
        }
    }

    /// Makes the [`UNDECIDED`] `slot` a loss in `l` plies; false if another thread decided it.
    pub(super) fn settle_loss(&self, side: usize, slot: u64, l: u16) -> bool {
        let cell = &self.sides[side][slot as usize];
        if l <= MAX_INLINE as u16 {
            return cell
                .compare_exchange(UNDECIDED, l as u8, Relaxed, Relaxed)
                .is_ok();
        }
        let mut map = self.big[side].lock().expect("no panic holds the lock");
        if cell.load(Relaxed) != UNDECIDED {
            return false;
        }
        map.insert(slot, l);
        let done = cell
            .compare_exchange(UNDECIDED, BIG, Relaxed, Relaxed)
            .is_ok();
        if !done {
            map.remove(&slot);
        }
        done
    }

    /// The slots of `side` whose distance `n` is kept in the side map.
    pub(super) fn big_at(&self, side: usize, n: u16) -> Vec<u64> {
        let map = self.big[side].lock().expect("no panic holds the lock");
        let mut at: Vec<u64> = map
            .iter()
            .filter(|&(&slot, &d)| d == n && self.raw(side, slot) == BIG)
            .map(|(&slot, _)| slot)
            .collect();
        at.sort_unstable();
        at
    }

    /// Turns every undecided cell into a draw.
    pub(super) fn settle_draws(&self) {
        self.sides.par_iter().for_each(|side| {
            side.par_iter().for_each(|c| {
                let v = c.load(Relaxed);
                if v == UNDECIDED || v == CAN_DRAW {
                    c.store(DRAW, Relaxed);
                }
            })
        });
    }

    /// Both sides' values in the stored form.
    pub fn into_stored(self) -> [Vec<u16>; 2] {
        [0, 1].map(|s| (0..self.size()).map(|i| self.stored(s, i)).collect())
    }
}

impl ValueSource for Cells {
    fn slots(&self) -> u64 {
        self.size()
    }

    fn stored(&self, side: usize, slot: u64) -> u16 {
        Cells::stored(self, side, slot)
    }

    fn into_wdl_codes(self) -> [Vec<u8>; 2] {
        let Cells { sides, big } = self;
        let [red, black] = sides;
        let [red_big, black_big] = big.map(|m| m.into_inner().expect("no panic holds the lock"));
        // The bytes are turned into codes where they are: no second copy of the values.
        [(red, red_big), (black, black_big)].map(|(side, big)| {
            let mut bytes: Vec<u8> = side.into_iter().map(AtomicU8::into_inner).collect();
            let mut last = wdl_code(STORED_DRAW);
            for (slot, b) in bytes.iter_mut().enumerate() {
                let stored = match *b {
                    c if c <= MAX_INLINE => c as u16,
                    BIG => big[&(slot as u64)],
                    ILLEGAL => {
                        *b = last;
                        continue;
                    }
                    RULE_LOSS => STORED_RULE_LOSS,
                    RULE_WIN => STORED_RULE_WIN,
                    _ => STORED_DRAW,
                };
                last = wdl_code(stored);
                *b = last;
            }
            bytes
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_distances_go_to_the_side_map_and_back() {
        let cells = Cells::new(4);
        assert!(cells.improve_win(0, 0, 301));
        assert_eq!(cells.raw(0, 0), BIG);
        assert_eq!(cells.distance(0, 0), Some(301));
        assert!(
            !cells.improve_win(0, 0, 303),
            "a slower win is no improvement"
        );
        assert!(cells.improve_win(0, 0, 299));
        assert_eq!(cells.big_at(0, 299), vec![0]);
        assert!(cells.improve_win(0, 0, 7));
        assert_eq!(cells.raw(0, 0), 7);
        assert!(cells.big_at(0, 299).is_empty(), "the old entry is stale");
        assert!(cells.settle_loss(1, 2, 400));
        assert!(!cells.settle_loss(1, 2, 402), "a loss is settled once");
        assert_eq!(cells.stored(1, 2), 400);
        assert!(!cells.improve_win(1, 2, 5), "a loss is never a win");
        cells.set_marker(0, 3, ILLEGAL);
        cells.settle_draws();
        assert_eq!(cells.stored(0, 1), STORED_DRAW);
        assert_eq!(cells.stored(0, 3), STORED_ILLEGAL);
        let codes = cells.into_wdl_codes();
        assert_eq!(
            codes[0],
            vec![2, 1, 1, 1],
            "an illegal slot takes the code before it"
        );
        assert_eq!(codes[1], vec![1, 1, 0, 1]);
    }
}
