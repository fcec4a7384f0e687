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

    /// The bits held in `words` (bit `i` is bit `i % 64` of word `i / 64`).
    pub(crate) fn from_words(words: Vec<u64>) -> Bits {
        Bits {
            words: words.into_iter().map(AtomicU64::new).collect(),
        }
    }

    /// True if both hold the same bits.
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &Bits) -> bool {
        self.words.len() == other.words.len()
            && self
                .words
                .iter()
                .zip(&other.words)
                .all(|(a, b)| a.load(Relaxed) == b.load(Relaxed))
    }

    /// True if bit `i` is set.
    #[inline]
    pub(crate) fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize].load(Relaxed) >> (i % 64) & 1 == 1
    }

    /// Words held: bits `0` to `64 * word_count() - 1`.
    pub(crate) fn word_count(&self) -> usize {
        self.words.len()
    }

    /// Word `k`: bits `64 k` to `64 k + 63`.
    #[inline]
    pub(crate) fn word(&self, k: usize) -> u64 {
        self.words[k].load(Relaxed)
    }

    /// Sets bit `i`; true if it was clear (so exactly one of several threads setting it
    /// together sees `true`). A bit already set is only read: the searches set most bits
    /// many times over (a candidate once for each of its moves that just lost), and a plain
    /// load costs far less than a locked read-modify-write.
    #[inline]
    pub(crate) fn set(&self, i: u64) -> bool {
        let mask = 1u64 << (i % 64);
        let word = &self.words[(i / 64) as usize];
        word.load(Relaxed) & mask == 0 && word.fetch_or(mask, Relaxed) & mask == 0
    }

    /// Clears bit `i`.
    #[inline]
    pub(crate) fn clear(&self, i: u64) {
        self.words[(i / 64) as usize].fetch_and(!(1u64 << (i % 64)), Relaxed);
    }

    /// Clears every bit.
    pub(crate) fn clear_all(&self) {
        self.words.par_iter().for_each(|w| w.store(0, Relaxed));
    }

    /// Sets every bit below `len`, the length this bitmap was made with.
    pub(crate) fn fill(&self, len: u64) {
        let full = len / 64;
        self.words.par_iter().enumerate().for_each(|(k, w)| {
            let word = match (k as u64).cmp(&full) {
                std::cmp::Ordering::Less => u64::MAX,
                std::cmp::Ordering::Equal => (1u64 << (len % 64)) - 1,
                std::cmp::Ordering::Greater => 0,
            };
            w.store(word, Relaxed);
        });
    }

    /// Clears every bit that is clear in `other`.
    pub(crate) fn and_from(&self, other: &Bits) {
        self.combine(other, |to, from| to.fetch_and(from, Relaxed));
    }

    /// Sets every bit that is set in `other`.
    pub(crate) fn or_from(&self, other: &Bits) {
        self.combine(other, |to, from| to.fetch_or(from, Relaxed));
    }

    /// Clears every bit that is set in `other`.
    pub(crate) fn and_not_from(&self, other: &Bits) {
        self.combine(other, |to, from| to.fetch_and(!from, Relaxed));
    }

    /// Applies `op` to each word of this bitmap with the same word of `other`, in parallel.
    fn combine(&self, other: &Bits, op: impl Fn(&AtomicU64, u64) -> u64 + Sync) {
        self.words
            .par_iter()
            .zip(other.words.par_iter())
            .for_each(|(to, from)| {
                op(to, from.load(Relaxed));
            });
    }

    /// Makes this bitmap `a` and not `b`; returns how many bits are set.
    pub(crate) fn assign_and_not(&self, a: &Bits, b: &Bits) -> u64 {
        self.words
            .par_iter()
            .zip(a.words.par_iter().zip(b.words.par_iter()))
            .with_min_len(1 << 10)
            .map(|(to, (a, b))| {
                let w = a.load(Relaxed) & !b.load(Relaxed);
                to.store(w, Relaxed);
                w.count_ones() as u64
            })
            .sum()
    }

    /// Calls `f(scratch, i)` for every bit `i` set, in parallel; each task's scratch comes
    /// from `init`. A word is read once, so bits changed meanwhile may or may not be seen.
    pub(crate) fn for_each_one<S>(
        &self,
        init: impl Fn() -> S + Sync + Send,
        f: impl Fn(&mut S, u64) + Sync + Send,
    ) {
        let never_fails = self.try_for_each_one(init, |scratch, i| {
            f(scratch, i);
            Ok::<(), std::convert::Infallible>(())
        });
        let Ok(()) = never_fails;
    }

    /// As [`Bits::for_each_one`], stopping at the first error `f` returns.
    pub(crate) fn try_for_each_one<S, E: Send>(
        &self,
        init: impl Fn() -> S + Sync + Send,
        f: impl Fn(&mut S, u64) -> Result<(), E> + Sync + Send,
    ) -> Result<(), E> {
        self.words
            .par_chunks(16)
            .enumerate()
            .try_for_each_init(init, |scratch, (c, chunk)| {
                for (k, word) in chunk.iter().enumerate() {
                    let mut w = word.load(Relaxed);
                    let base = ((c * 16 + k) * 64) as u64;
                    while w != 0 {
                        f(scratch, base + w.trailing_zeros() as u64)?;
                        w &= w - 1;
                    }
                }
                Ok(())
            })
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

    /// Number of set bits.
    pub(crate) fn count(&self) -> u64 {
        self.words
            .par_iter()
            .map(|w| w.load(Relaxed).count_ones() as u64)
            .sum()
    }

    /// Number of bits set here and clear in `other`.
    pub(crate) fn count_and_not(&self, other: &Bits) -> u64 {
        self.words
            .par_iter()
            .zip(other.words.par_iter())
            .map(|(a, b)| (a.load(Relaxed) & !b.load(Relaxed)).count_ones() as u64)
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
        let c = Bits::new(200);
        c.set(130);
        c.set(5);
        let d = Bits::new(200);
        assert_eq!(d.assign_and_not(&a, &c), 2, "0 and 199");
        assert_eq!(a.count_and_not(&c), 2, "counted without a bitmap");
        let seen = std::sync::Mutex::new(vec![]);
        d.for_each_one(|| (), |_, i| seen.lock().unwrap().push(i));
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, [0, 199]);
        c.and_not_from(&a);
        assert_eq!(c.count(), 1);
        assert!(c.get(5) && !c.get(130));
        d.clear_all();
        assert_eq!(d.count(), 0);
        d.fill(200);
        assert_eq!(d.count(), 200);
        let e = Bits::new(128);
        e.fill(128);
        assert_eq!(e.count(), 128);
        c.or_from(&a);
        assert_eq!(c.count(), 4, "5, 0, 130 and 199");
        c.and_from(&a);
        assert_eq!(c.count(), 3, "0, 130 and 199");
    }
}
