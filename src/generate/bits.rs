//! A bitmap shared by rayon threads: one bit per slot, set and read without locks.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One bit per index, all clear at first.
pub(crate) struct Bits {
    words: Vec<AtomicU64>,
}

impl Bits {
    /// `len` clear bits.
    pub(crate) fn new(len: u64) -> Bits {
        Bits {
            words: (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// True if bit `i` is set.
    #[inline]
    pub(crate) fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize].load(Relaxed) >> (i % 64) & 1 == 1
    }

    /// Sets bit `i`; true if it was clear (so exactly one of several threads setting it
    /// together sees `true`).
    #[inline]
    pub(crate) fn set(&self, i: u64) -> bool {
        let mask = 1u64 << (i % 64);
        self.words[(i / 64) as usize].fetch_or(mask, Relaxed) & mask == 0
    }

    /// Clears bit `i`.
    #[inline]
    pub(crate) fn clear(&self, i: u64) {
        self.words[(i / 64) as usize].fetch_and(!(1u64 << (i % 64)), Relaxed);
    }

    /// Makes this bitmap equal to `other`; true if any bit changed.
    pub(crate) fn copy_from(&self, other: &Bits) -> bool {
        self.words
            .par_iter()
            .zip(other.words.par_iter())
            .with_min_len(1 << 12)
            .map(|(to, from)| {
                let want = from.load(Relaxed);
                to.swap(want, Relaxed) != want
            })
            .reduce(|| false, |a, b| a || b)
    }

    /// Sets every bit that is set in `other`.
    pub(crate) fn or_from(&self, other: &Bits) {
        self.words
            .par_iter()
            .zip(other.words.par_iter())
            .for_each(|(to, from)| {
                to.fetch_or(from.load(Relaxed), Relaxed);
            });
    }

    /// The indices set here and clear in `other`, in increasing order.
    pub(crate) fn and_not(&self, other: &Bits) -> Vec<u64> {
        self.indices(|k, w| w & !other.words[k].load(Relaxed))
    }

    /// The indices set, in increasing order.
    pub(crate) fn ones(&self) -> Vec<u64> {
        self.indices(|_, w| w)
    }

    /// The indices of the bits set in `word(k, word k)` over every word k.
    fn indices(&self, word: impl Fn(usize, u64) -> u64 + Sync) -> Vec<u64> {
        self.words
            .par_iter()
            .enumerate()
            .with_min_len(1 << 10)
            .fold(Vec::new, |mut out, (k, a)| {
                let mut w = word(k, a.load(Relaxed));
                while w != 0 {
                    out.push(k as u64 * 64 + w.trailing_zeros() as u64);
                    w &= w - 1;
                }
                out
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            })
    }

    /// Number of set bits.
    #[cfg(test)]
    pub(crate) fn count(&self) -> u64 {
        self.words
            .par_iter()
            .map(|w| w.load(Relaxed).count_ones() as u64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    #[test]
    fn set_get_copy_and_count() {
        let a = Bits::new(200);
        assert!(!a.get(130));
        assert!(a.set(130));
        assert!(!a.set(130), "a second set reports the bit was already set");
        assert!(a.set(0) && a.set(199));
        assert!(a.get(130) && a.get(0) && a.get(199) && !a.get(131));
        assert_eq!(a.count(), 3);
        let b = Bits::new(200);
        assert!(b.copy_from(&a));
        assert!(!b.copy_from(&a), "copying equal bitmaps changes nothing");
        assert_eq!(b.count(), 3);
        assert_eq!(a.ones(), [0, 130, 199]);
        let c = Bits::new(200);
        c.set(130);
        c.set(5);
        assert_eq!(a.and_not(&c), [0, 199]);
        c.or_from(&a);
        assert_eq!(c.ones(), [0, 5, 130, 199]);
        a.clear(0);
        assert_eq!(a.ones(), [130, 199]);
        assert!(b.copy_from(&a));
        assert_eq!(b.count(), 2);
    }
}
