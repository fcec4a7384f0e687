//! The draws of a set as a dense range of node ids, for the perpetual-check passes: a bitmap
//! of the draws per side to move with a rank directory, so that a draw's node id is its rank
//! (red-to-move draws first) and bitmaps over the nodes take a bit per draw, not per slot.

use super::cells::{self, Cells};
use crate::rules::Color;
use rayon::prelude::*;

/// Words of a superblock: the rank directory keeps a 64-bit count per superblock and a
/// 16-bit count per word relative to it (at most 1023 * 64 bits precede a word within its
/// superblock, which fits 16 bits).
const SUPER_WORDS: usize = 1024;

/// Bits a slot of a [`RankedBits`]: the bitmap and its 16-bit count per word.
pub(crate) const BITS_PER_SLOT: f64 = 1.25;

/// A bitmap with constant-time rank and logarithmic select: 1.25 bits a slot.
pub(crate) struct RankedBits {
    words: Vec<u64>,
    /// Set bits before each superblock.
    before_super: Vec<u64>,
    /// Set bits before each word, counted from the start of its superblock.
    before_word: Vec<u16>,
    /// The word holding the set bit of rank `k * SELECT_SAMPLE`, for each `k`: select
    /// searches only between two samples.
    samples: Vec<u64>,
    ones: u64,
}

/// Ranks between two of [`RankedBits`]'s select samples (8 bytes per this many set bits).
const SELECT_SAMPLE: u64 = 512;

impl RankedBits {
    /// The bitmap whose bit `i` is `bit(i)`, for `i` below `len`.
    pub(crate) fn new(len: u64, bit: impl Fn(u64) -> bool + Sync) -> RankedBits {
        let words: Vec<u64> = (0..len.div_ceil(64))
            .into_par_iter()
            .map(|w| {
                (w * 64..(w * 64 + 64).min(len))
                    .fold(0u64, |acc, i| acc | ((bit(i) as u64) << (i % 64)))
            })
            .collect();
        RankedBits::from_words(words)
    }

    /// The bitmap held in `words` (bit `i` is bit `i % 64` of word `i / 64`), with its rank
    /// directory.
    pub(crate) fn from_words(words: Vec<u64>) -> RankedBits {
        let mut before_super = Vec::with_capacity(words.len().div_ceil(SUPER_WORDS));
        let mut before_word = Vec::with_capacity(words.len());
        let mut samples = Vec::new();
        let mut ones = 0u64;
        for (c, chunk) in words.chunks(SUPER_WORDS).enumerate() {
            before_super.push(ones);
            let mut within = 0u64;
            for (k, w) in chunk.iter().enumerate() {
                before_word.push(within as u16);
                let after = ones + within + w.count_ones() as u64;
                // Each sample rank reached within this word.
                while (samples.len() as u64) * SELECT_SAMPLE < after {
                    samples.push((c * SUPER_WORDS + k) as u64);
                }
                within += w.count_ones() as u64;
            }
            ones += within;
        }
        RankedBits {
            words,
            before_super,
            before_word,
            samples,
            ones,
        }
    }

    /// Number of set bits.
    pub(crate) fn ones(&self) -> u64 {
        self.ones
    }

    /// The rank of bit `i` (set bits before it) if it is set.
    #[inline]
    pub(crate) fn rank_of_set(&self, i: u64) -> Option<u64> {
        let w = (i / 64) as usize;
        let word = self.words[w];
        let b = i % 64;
        (word >> b & 1 == 1).then(|| {
            self.before_super[w / SUPER_WORDS]
                + self.before_word[w] as u64
                + (word & ((1u64 << b) - 1)).count_ones() as u64
        })
    }

    /// The position of the set bit of rank `r` (below [`RankedBits::ones`]).
    pub(crate) fn select(&self, r: u64) -> u64 {
        debug_assert!(r < self.ones);
        let k = (r / SELECT_SAMPLE) as usize;
        // The word holding rank r lies between two samples: the last word whose count of
        // set bits before it is at most r.
        let (mut lo, mut hi) = (
            self.samples[k] as usize,
            self.samples
                .get(k + 1)
                .map_or(self.words.len() - 1, |&w| w as usize),
        );
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.ones_before_word(mid) <= r {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let k = (r - self.ones_before_word(lo)) as u32;
        lo as u64 * 64 + select_in_word(self.words[lo], k) as u64
    }

    /// The positions of the set bits, ascending: a walk over the words, where asking
    /// [`RankedBits::select`] of each rank would search for each.
    pub(crate) fn ones_ascending(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut left = word;
            std::iter::from_fn(move || {
                (left != 0).then(|| {
                    let bit = left.trailing_zeros() as u64;
                    left &= left - 1;
                    w as u64 * 64 + bit
                })
            })
        })
    }

    /// Set bits before word `w`.
    /// [`RankedBits::select`] of rank `r`, given that the one of rank `before` (less than
    /// `r`) is at `at`: the words after it are counted forward, for at most
    /// [`SCAN_WORDS`] words before falling back to the search (ranks asked in ascending
    /// order, as bitmaps of node ids are walked, are mostly a word or two apart).
    pub(crate) fn select_after(&self, r: u64, before: u64, at: u64) -> u64 {
        debug_assert!(before < r && r < self.ones);
        let mut left = r - before;
        let mut w = (at / 64) as usize;
        let b = at % 64;
        let mut word = match b {
            63 => 0,
            _ => self.words[w] & !((2u64 << b) - 1),
        };
        for _ in 0..SCAN_WORDS {
            let ones = word.count_ones() as u64;
            if left <= ones {
                return w as u64 * 64 + select_in_word(word, (left - 1) as u32) as u64;
            }
            left -= ones;
            w += 1;
            word = self.words[w];
        }
        self.select(r)
    }

    #[inline]
    fn ones_before_word(&self, w: usize) -> u64 {
        self.before_super[w / SUPER_WORDS] + self.before_word[w] as u64
    }
}

/// The draws of both sides to move: node id = rank among red-to-move draws, then the black
/// ones after them.
pub(crate) struct DrawIndex {
    sides: [RankedBits; 2],
    /// Tells this index apart from every other in this process, for [`LAST_SELECTED`].
    serial: u64,
}

/// The position of the one of rank `k` (from 0) in `word`, which has more than `k` ones:
/// the halves, quarters and bytes before it skipped by their counts, then the ones of its
/// byte cleared one by one (at most seven).
#[inline]
fn select_in_word(word: u64, mut k: u32) -> u32 {
    let (mut w, mut at) = (word, 0);
    for half in [32, 16, 8] {
        let low = (w & ((1u64 << half) - 1)).count_ones();
        if k >= low {
            k -= low;
            w >>= half;
            at += half;
        }
    }
    for _ in 0..k {
        w &= w - 1;
    }
    at + w.trailing_zeros()
}

/// Words [`RankedBits::select_after`] counts forward before it searches instead.
const SCAN_WORDS: usize = 4;

/// A serial number for each [`DrawIndex`] made.
static SERIALS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// The last node id this thread turned into a slot: the index's serial, the id, its
    /// side's rank and its slot ([`DrawIndex::slot_of`] starts from it when the next id is
    /// close after it: the passes walk bitmaps of ids in ascending order, and the search
    /// took 8% of the perpetual-check fixpoint's time).
    static LAST_SELECTED: std::cell::Cell<(u64, u64, u64)> =
        const { std::cell::Cell::new((u64::MAX, 0, 0)) };
}

impl DrawIndex {
    /// The slots whose cells are [`cells::DRAW`].
    pub(crate) fn new(cells: &Cells) -> DrawIndex {
        let side = |s: usize| RankedBits::new(cells.size(), |i| cells.raw(s, i) == cells::DRAW);
        DrawIndex {
            sides: [side(0), side(1)],
            serial: SERIALS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The draws marked in `words`, per side to move (red, black), as [`RankedBits::from_words`]
    /// reads them.
    pub(crate) fn from_words(words: [Vec<u64>; 2]) -> DrawIndex {
        DrawIndex {
            sides: words.map(RankedBits::from_words),
            serial: SERIALS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Number of draws, both sides to move.
    pub(crate) fn count(&self) -> u64 {
        self.sides[0].ones() + self.sides[1].ones()
    }

    /// The first node id of `side` to move's draws.
    #[inline]
    pub(crate) fn first_of(&self, side: Color) -> u64 {
        match side {
            Color::Red => 0,
            Color::Black => self.sides[0].ones(),
        }
    }

    /// The node ids of `side` to move's draws.
    pub(crate) fn ids_of(&self, side: Color) -> std::ops::Range<u64> {
        let first = self.first_of(side);
        first..first + self.sides[side.index()].ones()
    }

    /// The node ids of `side` to move's draws with their slots, ascending.
    pub(crate) fn nodes_of(&self, side: Color) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ids_of(side)
            .zip(self.sides[side.index()].ones_ascending())
    }

    /// The node id of `slot` with `side` to move, if it is a draw.
    #[inline]
    pub(crate) fn id(&self, side: Color, slot: u64) -> Option<u64> {
        self.sides[side.index()]
            .rank_of_set(slot)
            .map(|r| self.first_of(side) + r)
    }

    /// The side to move and slot of node `id`.
    #[inline]
    pub(crate) fn slot_of(&self, id: u64) -> (Color, u64) {
        let red = self.sides[0].ones();
        let (side, rank) = match id < red {
            true => (0, id),
            false => (1, id - red),
        };
        let bits = &self.sides[side];
        let (serial, last_id, last_slot) = LAST_SELECTED.get();
        // The last id, if it was this index's, of the same side and before this one.
        let slot = match serial == self.serial && last_id < id && (last_id < red) == (id < red) {
            true => bits.select_after(rank, rank - (id - last_id), last_slot),
            false => bits.select(rank),
        };
        LAST_SELECTED.set((self.serial, id, slot));
        (Color::ALL[side], slot)
    }
}

#[cfg(test)]
mod tests {
    use super::RankedBits;

    #[test]
    fn select_in_a_word_finds_the_one_of_each_rank() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Sparse, dense and random words.
            for word in [
                x,
                x & x.rotate_left(17) & x.rotate_left(29),
                x | x >> 3,
                u64::MAX,
            ] {
                let ones: Vec<u32> = (0..64).filter(|b| word >> b & 1 == 1).collect();
                for (k, &at) in ones.iter().enumerate() {
                    assert_eq!(super::select_in_word(word, k as u32), at, "{word:#x} {k}");
                }
            }
        }
    }

    #[test]
    fn ids_walked_in_any_order_give_their_slots() {
        // Dense, sparse and mixed draws; ids asked in ascending order (with gaps of every
        // size, from one side into the other), then backwards, then scattered.
        let len = (2 * super::SUPER_WORDS as u64 + 3) * 64 + 5;
        let sides: [Vec<u64>; 2] = [
            (0..len)
                .filter(|i| (i * i + i / 7) % 5 < 2 || (i / 2000) % 3 == 0)
                .collect(),
            (0..len)
                .filter(|i| i % 311 == 7 || (i / 777) % 5 == 1)
                .collect(),
        ];
        let words = |set: &Vec<u64>| {
            let mut w = vec![0u64; len.div_ceil(64) as usize];
            set.iter()
                .for_each(|&i| w[(i / 64) as usize] |= 1 << (i % 64));
            w
        };
        let index = super::DrawIndex::from_words([words(&sides[0]), words(&sides[1])]);
        let slots: Vec<(usize, u64)> = (0..2)
            .flat_map(|s| sides[s].iter().map(move |&i| (s, i)))
            .collect();
        let n = slots.len() as u64;
        let mut ids: Vec<u64> = (0..n).collect();
        for step in [2, 3, 50, 1_000] {
            ids.extend((0..n).step_by(step));
        }
        ids.extend((0..n).rev());
        ids.extend((0..n).map(|k| k * 7_919 % n));
        for id in ids {
            let (side, slot) = index.slot_of(id);
            assert_eq!((side.index(), slot), slots[id as usize], "id {id}");
        }
    }

    #[test]
    fn rank_and_select_agree_with_counting() {
        // Three superblocks and a bit, with runs of every density.
        let len = (3 * super::SUPER_WORDS as u64 + 1) * 64 + 17;
        let bit = |i: u64| (i * i + i / 7) % 5 < 2 || (i / 2000).is_multiple_of(3);
        let bits = RankedBits::new(len, bit);
        let mut rank = 0;
        for i in 0..len {
            if bit(i) {
                assert_eq!(bits.rank_of_set(i), Some(rank), "rank of {i}");
                assert_eq!(bits.select(rank), i, "select of {rank}");
                rank += 1;
            } else {
                assert_eq!(bits.rank_of_set(i), None);
            }
        }
        assert_eq!(bits.ones(), rank);
        // Sparse: long empty runs across superblocks and select samples.
        for step in [70_001u64, 33, 4097] {
            let sparse = RankedBits::new(1_000_000, |i| i % step == 7);
            let set: Vec<u64> = (0..1_000_000).filter(|i| i % step == 7).collect();
            assert_eq!(sparse.ones(), set.len() as u64);
            for (r, &i) in set.iter().enumerate() {
                assert_eq!(sparse.select(r as u64), i, "select {r} of every {step}th");
            }
        }
        let ascending: Vec<u64> = bits.ones_ascending().collect();
        assert_eq!(
            ascending,
            (0..len).filter(|&i| bit(i)).collect::<Vec<u64>>()
        );
        let all = RankedBits::new(len, |_| true);
        assert_eq!(all.select(len - 1), len - 1);
        assert_eq!(all.rank_of_set(len - 1), Some(len - 1));
    }
}
