//! A set's outcomes in bitmaps, without distances: what a run without distances
//! (`gen --wdl-only`) solves, hands to the repetition rules' pass and writes. Two bits a
//! position (won, lost) and three more per position the rules decide something on, against
//! the mate search's byte.

use super::bits::Bits;
use super::cells::{self, Outcomes};
use crate::table::{RuleCodes, ValueSource, WdlCodes};
use crate::value::{Rule, STORED_DRAW, STORED_ILLEGAL, stored_rule_loss, stored_rule_win};
use rayon::prelude::*;
use std::sync::OnceLock;

/// Stand-in stored values of a win and a loss: a table without distances stores neither.
const STAND_IN_WIN: u16 = 1;
const STAND_IN_LOSS: u16 = 0;

/// Per side to move, whether the side to move wins or loses; a slot set in both holds no
/// legal position, one set in neither is drawn (or not decided yet while the search runs).
pub struct WdlBits {
    size: u64,
    won: [Bits; 2],
    lost: [Bits; 2],
    /// Per side to move, made at its first result by a rule: the results by a rule, and the
    /// rule's index ([`Rule::index`]) in two bits.
    by_rule: [OnceLock<RuleBits>; 2],
}

/// One side to move's results by a rule.
struct RuleBits {
    any: Bits,
    /// Bit 0 and bit 1 of the rule's index.
    index: [Bits; 2],
}

impl RuleBits {
    fn new(size: u64) -> RuleBits {
        RuleBits {
            any: Bits::new(size),
            index: [Bits::new(size), Bits::new(size)],
        }
    }

    fn rule(&self, slot: u64) -> Option<Rule> {
        self.any.get(slot).then(|| {
            let k =
                usize::from(self.index[0].get(slot)) | usize::from(self.index[1].get(slot)) << 1;
            Rule::ALL[k]
        })
    }
}

impl WdlBits {
    /// `size` slots per side, none decided.
    pub(super) fn new(size: u64) -> WdlBits {
        WdlBits {
            size,
            won: [Bits::new(size), Bits::new(size)],
            lost: [Bits::new(size), Bits::new(size)],
            by_rule: [OnceLock::new(), OnceLock::new()],
        }
    }

    /// Slots per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Marks slot `i` of `side` as holding no legal position.
    pub(super) fn set_illegal(&self, side: usize, i: u64) {
        self.won[side].set(i);
        self.lost[side].set(i);
    }

    /// True if the side to move at slot `i` of `side` wins, or the slot holds no legal
    /// position (which a move into it makes illegal: no escape).
    #[inline]
    pub(super) fn won_or_illegal(&self, side: usize, i: u64) -> bool {
        self.won[side].get(i)
    }

    /// True if slot `i` of `side` is a legal position not decided yet.
    #[inline]
    pub(super) fn undecided(&self, side: usize, i: u64) -> bool {
        !self.won[side].get(i) && !self.lost[side].get(i)
    }

    /// True if the side to move at slot `i` of `side` loses (the slot is legal).
    #[inline]
    pub(super) fn lost(&self, side: usize, i: u64) -> bool {
        self.lost[side].get(i) && !self.won[side].get(i)
    }

    /// Decides slot `i` of `side` as a win (`win`) or a loss unless it is decided already;
    /// true if this call decided it.
    #[inline]
    pub(super) fn decide(&self, side: usize, i: u64, win: bool) -> bool {
        let (this, other) = match win {
            true => (&self.won[side], &self.lost[side]),
            false => (&self.lost[side], &self.won[side]),
        };
        !other.get(i) && this.set(i)
    }

    /// Positions decided, both sides to move together (the slots without a legal position
    /// not counted).
    pub(super) fn decided(&self) -> u64 {
        (0..2)
            .map(|s| self.won[s].count() + self.lost[s].count() - 2 * self.illegal_count(s))
            .sum()
    }

    fn illegal_count(&self, side: usize) -> u64 {
        self.won[side].count() - self.won[side].count_and_not(&self.lost[side])
    }

    /// The draws and the wins for the side to move (by a rule included), as the repetition
    /// rules' pass reads them.
    pub(super) fn outcomes(&self) -> [Outcomes; 2] {
        let words = self.size.div_ceil(64) as usize;
        let tail = match self.size % 64 {
            0 => u64::MAX,
            r => (1u64 << r) - 1,
        };
        [0, 1].map(|s| {
            let (won, lost) = (&self.won[s], &self.lost[s]);
            let word = |k: usize| {
                let mask = if k + 1 == words { tail } else { u64::MAX };
                let (w, l) = (won.word(k), lost.word(k));
                (!w & !l & mask, w & !l)
            };
            let (draws, wins) = (0..words).into_par_iter().map(word).unzip();
            Outcomes { draws, wins }
        })
    }

    /// Sets each slot of `side` in `marks` to its marker ([`cells::rule_win`] or
    /// [`cells::rule_loss`]), as [`super::Cells::mark_spilled`] does on disk; returns how
    /// many were set.
    pub(super) fn mark(&self, side: usize, marks: impl Iterator<Item = (u64, u8)>) -> u64 {
        let rules = self.by_rule[side].get_or_init(|| RuleBits::new(self.size));
        let mut set = 0;
        for (slot, marker) in marks {
            let (win, rule) = cells::rule_of_marker(marker).expect("a rule's marker");
            let (this, other) = match win {
                true => (&self.won[side], &self.lost[side]),
                false => (&self.lost[side], &self.won[side]),
            };
            this.set(slot);
            other.clear(slot);
            rules.any.set(slot);
            for (b, bits) in rules.index.iter().enumerate() {
                if rule.index() >> b & 1 == 1 {
                    bits.set(slot);
                } else {
                    bits.clear(slot);
                }
            }
            set += 1;
        }
        set
    }

    /// Every slot's stored value, per side to move (tests).
    pub fn into_stored(self) -> [Vec<u16>; 2] {
        [0, 1].map(|s| (0..self.size).map(|i| self.stored(s, i)).collect())
    }
}

impl ValueSource for WdlBits {
    fn slots(&self) -> u64 {
        self.size
    }

    /// Wins and losses by mate take stand-in distances: a table without distances stores
    /// neither.
    fn stored(&self, side: usize, slot: u64) -> u16 {
        let (won, lost) = (self.won[side].get(slot), self.lost[side].get(slot));
        let rule = || self.by_rule[side].get().and_then(|r| r.rule(slot));
        match (won, lost) {
            (true, true) => STORED_ILLEGAL,
            (false, false) => STORED_DRAW,
            (true, false) => rule().map_or(STAND_IN_WIN, stored_rule_win),
            (false, true) => rule().map_or(STAND_IN_LOSS, stored_rule_loss),
        }
    }

    fn into_wdl_codes(self, rule_codes: [RuleCodes; 2]) -> [WdlCodes; 2] {
        [0, 1].map(|side| {
            WdlCodes::from_bytes(self.wdl_codes_in(side, 0..self.size, rule_codes[side]))
        })
    }

    /// A byte a slot against a few bits: the codes are made a block's worth at a time.
    fn wdl_codes_piecewise(&self) -> bool {
        true
    }
}

/// True if stored value `v` is a win in the sense [`Value`] gives it (tests).
#[cfg(test)]
fn is_win(v: u16) -> bool {
    crate::value::Value::from_stored(v).is_some_and(|v| v.is_win())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_reads_back_as_decided_and_marked() {
        let bits = WdlBits::new(130);
        bits.set_illegal(0, 3);
        assert!(
            bits.decide(0, 5, true) && !bits.decide(0, 5, false),
            "decided once"
        );
        assert!(bits.decide(1, 129, false));
        assert!(!bits.decide(0, 3, true), "an illegal slot stays illegal");
        assert_eq!(bits.stored(0, 3), STORED_ILLEGAL);
        assert!(is_win(bits.stored(0, 5)));
        assert!(bits.lost(1, 129) && !bits.lost(0, 3) && bits.won_or_illegal(0, 3));
        assert_eq!(bits.stored(1, 0), STORED_DRAW);
        assert_eq!(bits.decided(), 2, "the illegal slot is no position");
        let [red, black] = bits.outcomes();
        assert_eq!(red.draws.iter().map(|w| w.count_ones()).sum::<u32>(), 128);
        assert_eq!(red.wins.iter().map(|w| w.count_ones()).sum::<u32>(), 1);
        assert_eq!(black.draws.iter().map(|w| w.count_ones()).sum::<u32>(), 129);
        for rule in Rule::ALL {
            let marks = [(7, cells::rule_win(rule)), (5, cells::rule_loss(rule))];
            assert_eq!(bits.mark(0, marks.into_iter()), 2);
            assert_eq!(bits.stored(0, 7), stored_rule_win(rule), "{rule:?}");
            assert_eq!(bits.stored(0, 5), stored_rule_loss(rule), "{rule:?}");
        }
        let [red, _] = bits.outcomes();
        assert_eq!(red.draws.iter().map(|w| w.count_ones()).sum::<u32>(), 127);
        assert_eq!(red.wins.iter().map(|w| w.count_ones()).sum::<u32>(), 1);
    }
}
