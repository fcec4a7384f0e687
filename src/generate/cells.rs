//! The generator's working values: one byte per position (slot and side to move), with the
//! rare distances that do not fit in a byte kept in a side map.
//!
//! A cell holds a distance to mate up to [`MAX_INLINE`] plies (odd: the side to move wins, even:
//! it loses), or one of the markers below. The mate search moves cells from [`UNDECIDED`] or
//! [`CAN_DRAW`] to distances and ends by turning what is left into [`DRAW`]; the repetition
//! rules' pass turns draws into wins and losses by a rule ([`rule_win`], [`rule_loss`]).

use crate::table::{
    NO_CODE, RuleCodes, ValueSource, WdlCodes, fill_runs_without_code, wdl_code_with,
};
use crate::value::{Rule, STORED_DRAW, STORED_ILLEGAL, Value, stored_rule_loss, stored_rule_win};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The longest distance a cell holds itself.
pub(super) const MAX_INLINE: u8 = 0xF4;
/// A distance longer than [`MAX_INLINE`], kept in the side map.
pub(super) const BIG: u8 = 0xF5;
/// No legal position: the side not to move is in check (or the slot is not a position).
pub(super) const ILLEGAL: u8 = 0xF6;
/// Not decided yet; every capture of the position loses, so it may still lose.
pub(super) const UNDECIDED: u8 = 0xF7;
/// Not decided yet; a capture draws, so it wins or draws.
pub(super) const CAN_DRAW: u8 = 0xF8;
/// Lost by the perpetual-check rule; 0xFA and 0xFB by the other rules ([`rule_loss`]).
const RULE_LOSS: u8 = 0xF9;
/// Won by the perpetual-check rule; 0xFD and 0xFE by the other rules ([`rule_win`]).
const RULE_WIN: u8 = 0xFC;
/// Drawn.
pub(super) const DRAW: u8 = 0xFF;

/// The marker of a loss by `rule`.
pub(super) const fn rule_loss(rule: Rule) -> u8 {
    RULE_LOSS + rule as u8
}

/// The marker of a win by `rule`.
pub(super) const fn rule_win(rule: Rule) -> u8 {
    RULE_WIN + rule as u8
}

/// The rule result `marker` stands for (a win if true), if it is one.
pub(super) fn rule_of_marker(marker: u8) -> Option<(bool, Rule)> {
    match marker {
        m @ RULE_LOSS..RULE_WIN => Some((false, Rule::ALL[(m - RULE_LOSS) as usize])),
        m @ RULE_WIN..=0xFE => Some((true, Rule::ALL[(m - RULE_WIN) as usize])),
        _ => None,
    }
}

/// One byte per position for both sides to move, and the long distances.
///
/// The bytes are packed eight to an atomic word in memory order, so that a sweep reads a
/// word at a time and the writer can take them as bytes.
pub struct Cells {
    sides: [Vec<AtomicU64>; 2],
    size: u64,
    /// Distances of the [`BIG`] cells, per side to move.
    big: [Mutex<HashMap<u64, u16>>; 2],
    /// Per side to move, a word per [`LEVEL_CHUNK`] slots: bit `d % 64` set once a cell there
    /// has held distance `d` ([`Cells::for_each_equal`] skips the chunks that never held its
    /// distance).
    levels: [Vec<AtomicU64>; 2],
}

/// Slots a word of [`Cells`]'s `levels` covers (a multiple of 8).
const LEVEL_CHUNK: u64 = 4096;

/// One side to move's outcomes, a bit per slot in 64-bit words (bit `i` of word `i / 64`):
/// see [`Cells::read_spilled_outcomes`].
pub(super) struct Outcomes {
    /// The draws.
    pub draws: Vec<u64>,
    /// The wins for the side to move, by the perpetual-check rule included.
    pub wins: Vec<u64>,
}

/// Cells [`Cells::read_spilled_outcomes`] reads at a time and then turns into bits in
/// parallel (a multiple of 64, so that each bitmap word comes from one chunk): serially, the
/// reading took KRNKR's rule pass 0.16-0.20 s each time, now 0.07-0.10 s.
const OUTCOME_CHUNK_CELLS: usize = 1 << 22;

/// Cells turned into WDL codes at a time, in parallel.
const CODE_CHUNK: usize = 1 << 16;

/// Bytes of cells (or of the bitmaps of [`super::WdlBits`]) written or read back at a time
/// when they are spilled.
pub(super) const SPILL_CHUNK_BYTES: usize = 1 << 20;

/// `n` in every byte of a word.
const fn splat(n: u8) -> u64 {
    n as u64 * 0x0101_0101_0101_0101
}

/// The shift of byte `b` (0..8, in memory order) within a word.
#[inline]
const fn shift(b: u64) -> u32 {
    if cfg!(target_endian = "little") {
        8 * b as u32
    } else {
        8 * (7 - b as u32)
    }
}

/// The bytes of word `w` equal to zero, as their high bits.
#[inline]
fn zero_bytes(w: u64) -> u64 {
    const LOW7: u64 = splat(0x7F);
    !(((w & LOW7) + LOW7) | w | LOW7)
}

/// The stored form of `cell`; `big` gives the distance of a [`BIG`] cell.
#[inline]
fn stored_of(cell: u8, big: impl FnOnce() -> u16) -> u16 {
    match cell {
        c if c <= MAX_INLINE => c as u16,
        BIG => big(),
        ILLEGAL => STORED_ILLEGAL,
        c @ RULE_LOSS..RULE_WIN => stored_rule_loss(Rule::ALL[(c - RULE_LOSS) as usize]),
        c @ RULE_WIN..=0xFE => stored_rule_win(Rule::ALL[(c - RULE_WIN) as usize]),
        _ => STORED_DRAW,
    }
}

/// True if a win in `w` plies is better for a cell holding `cur` (`big` giving the distance
/// of a [`BIG`] cell): the cell is undecided, or a slower win.
#[inline]
fn faster_win(cur: u8, w: u16, big: impl FnOnce() -> u16) -> bool {
    match cur {
        UNDECIDED | CAN_DRAW => true,
        c if c <= MAX_INLINE => c % 2 == 1 && c as u16 > w,
        BIG => {
            let d = big();
            d % 2 == 1 && d > w
        }
        _ => false,
    }
}

impl Cells {
    /// `size` slots per side, every cell [`UNDECIDED`].
    pub(super) fn new(size: u64) -> Cells {
        let words = size.div_ceil(8);
        let side = || {
            let mut v: Vec<AtomicU64> = (0..words)
                .map(|_| AtomicU64::new(splat(UNDECIDED)))
                .collect();
            // Bytes past the end are illegal slots: no sweep visits them.
            if let Some(last) = v.last_mut()
                && !size.is_multiple_of(8)
            {
                let w = last.get_mut();
                for b in size % 8..8 {
                    *w = (*w & !(0xFF << shift(b))) | ((ILLEGAL as u64) << shift(b));
                }
            }
            v
        };
        let levels = || {
            (0..size.div_ceil(LEVEL_CHUNK))
                .map(|_| AtomicU64::new(0))
                .collect()
        };
        Cells {
            sides: [side(), side()],
            size,
            big: Default::default(),
            levels: [levels(), levels()],
        }
    }

    /// Slots per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    #[inline]
    fn word(&self, side: usize, slot: u64) -> (&AtomicU64, u32) {
        (&self.sides[side][(slot / 8) as usize], shift(slot % 8))
    }

    /// The cell of `slot` with `side` (0 red, 1 black) to move.
    #[inline]
    pub(super) fn raw(&self, side: usize, slot: u64) -> u8 {
        let (w, s) = self.word(side, slot);
        (w.load(Relaxed) >> s) as u8
    }

    /// Sets the cell of `slot` to `new` if it holds `cur`; else returns what it holds.
    #[inline]
    fn swap_cell(&self, side: usize, slot: u64, cur: u8, new: u8) -> Result<(), u8> {
        let (w, s) = self.word(side, slot);
        let mut word = w.load(Relaxed);
        loop {
            let now = (word >> s) as u8;
            if now != cur {
                return Err(now);
            }
            let next = (word & !(0xFF << s)) | ((new as u64) << s);
            match w.compare_exchange_weak(word, next, Relaxed, Relaxed) {
                Ok(_) => {
                    self.note_level(side, slot, new);
                    return Ok(());
                }
                Err(x) => word = x,
            }
        }
    }

    /// Notes in `levels` that `slot`'s chunk holds `cell`, if a distance.
    #[inline]
    fn note_level(&self, side: usize, slot: u64, cell: u8) {
        if cell > MAX_INLINE {
            return;
        }
        let (word, bit) = (
            &self.levels[side][(slot / LEVEL_CHUNK) as usize],
            1 << (cell % 64),
        );
        // Read first: most cells of a chunk share a few distances.
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Sets the cell of `slot` to `new`, whatever it holds.
    #[inline]
    fn store_cell(&self, side: usize, slot: u64, new: u8) {
        let (w, s) = self.word(side, slot);
        let _ = w.fetch_update(Relaxed, Relaxed, |word| {
            Some((word & !(0xFF << s)) | ((new as u64) << s))
        });
        self.note_level(side, slot, new);
    }

    /// Calls `f` for every slot of `slots` (a range starting on a multiple of 8) whose
    /// cell for `side` holds `n`, reading a word of eight cells at a time, and for a distance
    /// only in the chunks of [`LEVEL_CHUNK`] slots that have held it (a sweep's late levels
    /// find a few positions in a set of tens of millions: KRKNC's 117 levels read its cells
    /// 234 times).
    #[inline]
    pub(super) fn for_each_equal(
        &self,
        side: usize,
        slots: std::ops::Range<u64>,
        n: u8,
        mut f: impl FnMut(u64),
    ) {
        debug_assert_eq!(slots.start % 8, 0);
        if n > MAX_INLINE {
            return self.for_each_equal_in(side, slots, n, f);
        }
        let mut start = slots.start;
        while start < slots.end {
            let end = ((start / LEVEL_CHUNK + 1) * LEVEL_CHUNK).min(slots.end);
            let held = self.levels[side][(start / LEVEL_CHUNK) as usize].load(Relaxed);
            if held >> (n % 64) & 1 == 1 {
                self.for_each_equal_in(side, start..end, n, &mut f);
            }
            start = end;
        }
    }

    /// [`Cells::for_each_equal`] reading every cell of `slots`.
    #[inline]
    fn for_each_equal_in(
        &self,
        side: usize,
        slots: std::ops::Range<u64>,
        n: u8,
        mut f: impl FnMut(u64),
    ) {
        let words = &self.sides[side][(slots.start / 8) as usize..slots.end.div_ceil(8) as usize];
        for (k, w) in words.iter().enumerate() {
            let mut hits = zero_bytes(w.load(Relaxed) ^ splat(n));
            while hits != 0 {
                let bit = hits.trailing_zeros() as u64;
                let byte = if cfg!(target_endian = "little") {
                    bit / 8
                } else {
                    7 - bit / 8
                };
                let slot = slots.start + 8 * k as u64 + byte;
                if slot < slots.end {
                    f(slot);
                }
                hits &= hits - 1;
            }
        }
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
        stored_of(self.raw(side, slot), || {
            self.big_distance(side, slot).unwrap_or(STORED_DRAW)
        })
    }

    /// Stores `bytes` as the cells of `side` from `first_slot` (a multiple of 8) on, eight
    /// at a time; those past the last slot's word are dropped.
    pub(super) fn store_bytes(&self, side: usize, first_slot: u64, bytes: &[u8]) {
        debug_assert!(first_slot.is_multiple_of(8) && bytes.len().is_multiple_of(8));
        let words = &self.sides[side];
        for (k, group) in bytes.chunks_exact(8).enumerate() {
            if let Some(w) = words.get((first_slot / 8) as usize + k) {
                w.store(
                    u64::from_ne_bytes(group.try_into().expect("8 bytes")),
                    Relaxed,
                );
            }
        }
    }

    /// Sets `slot` to marker `cell` (not a distance).
    #[inline]
    pub(super) fn set_marker(&self, side: usize, slot: u64, cell: u8) {
        debug_assert!(cell > BIG);
        self.store_cell(side, slot, cell);
    }

    /// Sets `slot` to distance `d` (no other thread may change it meanwhile).
    pub(super) fn set_distance(&self, side: usize, slot: u64, d: u16) {
        if d <= MAX_INLINE as u16 {
            self.store_cell(side, slot, d as u8);
        } else {
            let mut map = self.big[side].lock().expect("no panic holds the lock");
            map.insert(slot, d);
            self.store_cell(side, slot, BIG);
        }
    }

    /// Makes `slot` a win in `w` plies unless it already wins as fast (or has lost, which
    /// a position with a move into a loss never has); true if it changed.
    pub(super) fn improve_win(&self, side: usize, slot: u64, w: u16) -> bool {
        let mut cur = self.raw(side, slot);
        loop {
            if cur == BIG || w > MAX_INLINE as u16 {
                return self.improve_big_win(side, slot, w);
            }
            if !faster_win(cur, w, || unreachable!("not BIG")) {
                return false;
            }
            match self.swap_cell(side, slot, cur, w as u8) {
                Ok(()) => return true,
                Err(c) => cur = c,
            }
        }
    }

    /// [`Cells::improve_win`] where the cell or the new distance is [`BIG`]: under the lock.
    fn improve_big_win(&self, side: usize, slot: u64, w: u16) -> bool {
        let mut map = self.big[side].lock().expect("no panic holds the lock");
        loop {
            let cur = self.raw(side, slot);
            if !faster_win(cur, w, || map[&slot]) {
                return false;
            }
            let new = if w <= MAX_INLINE as u16 { w as u8 } else { BIG };
            if new == BIG {
                map.insert(slot, w);
            }
            if self.swap_cell(side, slot, cur, new).is_ok() {
                if new != BIG {
                    map.remove(&slot);
                }
                return true;
            }
        }
    }

    /// Makes the [`UNDECIDED`] `slot` a loss in `l` plies; false if another thread decided it.
    pub(super) fn settle_loss(&self, side: usize, slot: u64, l: u16) -> bool {
        if l <= MAX_INLINE as u16 {
            return self.swap_cell(side, slot, UNDECIDED, l as u8).is_ok();
        }
        let mut map = self.big[side].lock().expect("no panic holds the lock");
        if self.raw(side, slot) != UNDECIDED {
            return false;
        }
        map.insert(slot, l);
        let done = self.swap_cell(side, slot, UNDECIDED, BIG).is_ok();
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

    /// Writes the cells of both sides to the new file `path` and frees them, for a pass that
    /// does not read them ([`Cells::restore`] reads them back). On an error the cells stay
    /// and the file is removed.
    ///
    /// # Errors
    /// The file cannot be written (a full disk).
    pub(super) fn spill(&mut self, path: &Path) -> std::io::Result<()> {
        // Not synced: the file is read back by this run, and a run that dies leaves it as a
        // temporary file the next run does not read.
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(path)?;
            let mut bytes = Vec::with_capacity(SPILL_CHUNK_BYTES);
            for side in &self.sides {
                for words in side.chunks(SPILL_CHUNK_BYTES / 8) {
                    bytes.clear();
                    bytes.extend(words.iter().flat_map(|w| w.load(Relaxed).to_ne_bytes()));
                    f.write_all(&bytes)?;
                }
            }
            Ok(())
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(path);
            return Err(e);
        }
        self.sides = [Vec::new(), Vec::new()];
        Ok(())
    }

    /// Reads back the cells [`Cells::spill`] wrote to `path`, and removes the file.
    ///
    /// # Errors
    /// The file cannot be read or is shorter than the cells.
    pub(super) fn restore(&mut self, path: &Path) -> std::io::Result<()> {
        let words = self.size.div_ceil(8) as usize;
        let mut f = std::fs::File::open(path)?;
        let mut bytes = vec![0u8; SPILL_CHUNK_BYTES.min(8 * words)];
        for side in &mut self.sides {
            let mut v = Vec::with_capacity(words);
            while v.len() < words {
                let chunk = &mut bytes[..8 * (words - v.len()).min(SPILL_CHUNK_BYTES / 8)];
                f.read_exact(chunk)?;
                v.extend(
                    chunk.chunks_exact(8).map(|b| {
                        AtomicU64::new(u64::from_ne_bytes(b.try_into().expect("8 bytes")))
                    }),
                );
            }
            *side = v;
        }
        std::fs::remove_file(path)
    }

    /// Reads the cells [`Cells::spill`] wrote to `path` as two bitmaps per side to move (red,
    /// black): the draws, and the wins (by the rule included), a bit per slot; the file stays.
    /// This is all the perpetual-check pass needs of the cells, at a sixteenth of their size.
    ///
    /// # Errors
    /// The file cannot be read or is shorter than the cells.
    pub(super) fn read_spilled_outcomes(&self, path: &Path) -> std::io::Result<[Outcomes; 2]> {
        let words = self.size.div_ceil(8) as usize;
        let mut f = std::fs::File::open(path)?;
        let mut bytes = vec![0u8; OUTCOME_CHUNK_CELLS.min(8 * words)];
        let mut read_side = |side: usize| -> std::io::Result<Outcomes> {
            let big = self.big[side].lock().expect("no panic holds the lock");
            // The stored form says what a cell means; only a win's cell is read through it.
            let is_win = |slot: u64, cell: u8| {
                Value::from_stored(stored_of(cell, || big[&slot])).is_some_and(|v| v.is_win())
            };
            let out_words = self.size.div_ceil(64) as usize;
            let (mut draws, mut wins) = (vec![0u64; out_words], vec![0u64; out_words]);
            // The side's cells are whole words of 8 (padding cells are never drawn or won).
            let cells = 8 * words;
            for (c, (draws, wins)) in draws
                .chunks_mut(OUTCOME_CHUNK_CELLS / 64)
                .zip(wins.chunks_mut(OUTCOME_CHUNK_CELLS / 64))
                .enumerate()
            {
                let first = c * OUTCOME_CHUNK_CELLS;
                let chunk = &mut bytes[..OUTCOME_CHUNK_CELLS.min(cells - first)];
                f.read_exact(chunk)?;
                let chunk = &*chunk;
                draws
                    .par_iter_mut()
                    .zip(wins.par_iter_mut())
                    .enumerate()
                    .for_each(|(w, (draw, win))| {
                        let cells_of_word = &chunk[64 * w..(64 * w + 64).min(chunk.len())];
                        for (k, &cell) in cells_of_word.iter().enumerate() {
                            let slot = (first + 64 * w + k) as u64;
                            if cell == DRAW {
                                *draw |= 1 << k;
                            } else if is_win(slot, cell) {
                                *win |= 1 << k;
                            }
                        }
                    });
            }
            Ok(Outcomes { draws, wins })
        };
        Ok([read_side(0)?, read_side(1)?])
    }

    /// Sets each cell of `side` named in `marks` (slots ascending) to its marker in the file [`Cells::spill`]
    /// wrote to `path`, a chunk of the file read and written back at a time, so that the
    /// cells need not be in memory; returns how many were set.
    ///
    /// # Errors
    /// The file cannot be read or written, or is shorter than the cells.
    pub(super) fn mark_spilled(
        &self,
        path: &Path,
        side: usize,
        marks: impl Iterator<Item = (u64, u8)>,
    ) -> std::io::Result<u64> {
        use std::io::{Seek, SeekFrom};
        const CHUNK: u64 = 1 << 20;
        // A cell's byte in the file: the words of red to move, then black's, each word's
        // bytes in memory order, which is slot order.
        let side_start = side as u64 * self.size.div_ceil(8) * 8;
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        let mut buf = vec![0u8; CHUNK as usize];
        let mut chunk: Option<u64> = None;
        let mut set = 0;
        let write_back = |f: &mut std::fs::File, c: u64, buf: &[u8]| {
            f.seek(SeekFrom::Start(side_start + c * CHUNK))?;
            f.write_all(buf)
        };
        for (slot, marker) in marks {
            let c = slot / CHUNK;
            if chunk != Some(c) {
                if let Some(done) = chunk {
                    write_back(&mut f, done, &buf)?;
                }
                let len = (self.size - c * CHUNK).min(CHUNK) as usize;
                buf.resize(len, 0);
                f.seek(SeekFrom::Start(side_start + c * CHUNK))?;
                f.read_exact(&mut buf)?;
                chunk = Some(c);
            }
            buf[(slot % CHUNK) as usize] = marker;
            set += 1;
        }
        if let Some(done) = chunk {
            write_back(&mut f, done, &buf)?;
        }
        f.sync_all()?;
        Ok(set)
    }

    /// Turns every undecided cell into a draw.
    pub(super) fn settle_draws(&self) {
        self.sides.par_iter().for_each(|side| {
            side.par_iter().for_each(|w| {
                let bytes = w.load(Relaxed).to_ne_bytes().map(|b| match b {
                    UNDECIDED | CAN_DRAW => DRAW,
                    b => b,
                });
                w.store(u64::from_ne_bytes(bytes), Relaxed);
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

    fn into_wdl_codes(self, rule_codes: [RuleCodes; 2]) -> [WdlCodes; 2] {
        let Cells {
            sides, size, big, ..
        } = self;
        let [red, black] = sides;
        let [red_big, black_big] = big.map(|m| m.into_inner().expect("no panic holds the lock"));
        // The bytes are turned into codes where they are: no second copy of the values. The
        // two sides at once, and each side's bytes a chunk at a time (serially, KRNKR's
        // took 0.15 s).
        let codes_of = |side: Vec<AtomicU64>, big: HashMap<u64, u16>, rule_codes: RuleCodes| {
            let words: Vec<u64> = side.into_iter().map(AtomicU64::into_inner).collect();
            let mut codes = WdlCodes::new(words, size as usize);
            codes
                .bytes_mut()
                .par_chunks_mut(CODE_CHUNK)
                .enumerate()
                .for_each(|(c, chunk)| {
                    for (k, b) in chunk.iter_mut().enumerate() {
                        let slot = (c * CODE_CHUNK + k) as u64;
                        *b = match *b {
                            ILLEGAL => NO_CODE,
                            cell => wdl_code_with(stored_of(cell, || big[&slot]), rule_codes),
                        };
                    }
                });
            fill_runs_without_code(codes.bytes_mut(), rule_codes);
            codes
        };
        let (red, black) = rayon::join(
            || codes_of(red, red_big, rule_codes[0]),
            || codes_of(black, black_big, rule_codes[1]),
        );
        [red, black]
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
        let codes = cells.into_wdl_codes([RuleCodes::None; 2]);
        assert_eq!(
            codes[0].as_bytes(),
            [2, 1, 1, 1],
            "an illegal slot takes the code before it"
        );
        assert_eq!(codes[1].as_bytes(), [1, 1, 0, 1]);
    }

    #[test]
    fn outcomes_read_from_the_spilled_cells_agree_with_the_values() {
        // 131 slots: two full bitmap words and a part, every kind of cell on both sides;
        // then two of the chunks the file is read in, and a part.
        outcomes_round_trip(131);
        outcomes_round_trip(2 * OUTCOME_CHUNK_CELLS as u64 + 77);
    }

    fn outcomes_round_trip(size: u64) {
        let mut cells = Cells::new(size);
        for i in 0..size {
            cells.set_distance(0, i, (i % 13) as u16);
            let marker = [
                DRAW,
                rule_win(Rule::Mixed),
                rule_loss(Rule::PerpetualChase),
                ILLEGAL,
                UNDECIDED,
            ][i as usize % 5];
            cells.set_marker(1, i, marker);
        }
        cells.improve_win(0, 3, 301);
        cells.set_marker(0, 4, DRAW);
        cells.settle_draws();
        let dir =
            std::env::temp_dir().join(format!("canju-outcomes-{}-{size}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cells");
        let want: Vec<[(bool, bool); 2]> = (0..size)
            .map(|i| {
                [0, 1].map(|side| {
                    let v = crate::value::Value::from_stored(cells.stored(side, i));
                    let illegal = cells.stored(side, i) == STORED_ILLEGAL;
                    let draw = v == Some(crate::value::Value::Draw) && !illegal;
                    (draw, v.is_some_and(|v| v.is_win()) && !illegal)
                })
            })
            .collect();
        cells.spill(&path).unwrap();
        let got = cells.read_spilled_outcomes(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let bit = |words: &[u64], i: u64| words[(i / 64) as usize] >> (i % 64) & 1 == 1;
        for i in 0..size {
            for side in 0..2 {
                let o = &got[side];
                let (draw, win) = want[i as usize][side];
                assert_eq!(bit(&o.draws, i), draw, "draw bit of {i}, side {side}");
                assert_eq!(bit(&o.wins, i), win, "win bit of {i}, side {side}");
            }
        }
        assert!(want.iter().any(|w| w[0].1) && want.iter().any(|w| w[1].0));
        assert!(bit(&got[0].wins, 3), "a distance from the side map");
    }

    #[test]
    fn markers_set_in_the_spilled_file_come_back_with_the_cells() {
        // Three chunks of the file per side, and a part.
        let size = 3 * (1 << 20) + 5;
        let mut cells = Cells::new(size);
        for i in (0..size).step_by(7) {
            cells.set_marker(1, i, DRAW);
            cells.set_distance(0, i, 3);
        }
        let marked: Vec<u64> = vec![0, 7, (1 << 20) - 1, 1 << 20, 2 * (1 << 20) + 3, size - 1];
        let dir = std::env::temp_dir().join(format!("canju-mark-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cells");
        let before: Vec<u8> = (0..size).map(|i| cells.raw(0, i)).collect();
        cells.spill(&path).unwrap();
        let n = cells
            .mark_spilled(&path, 1, marked.iter().map(|&i| (i, RULE_LOSS)))
            .unwrap();
        assert_eq!(n, marked.len() as u64);
        cells.restore(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        for i in 0..size {
            let want = if marked.contains(&i) {
                RULE_LOSS
            } else if i % 7 == 0 {
                DRAW
            } else {
                UNDECIDED
            };
            assert_eq!(cells.raw(1, i), want, "black to move, slot {i}");
            assert_eq!(
                cells.raw(0, i),
                before[i as usize],
                "red to move untouched, {i}"
            );
        }
    }

    #[test]
    fn cells_set_aside_on_disk_come_back_the_same() {
        let mut cells = Cells::new(21);
        for i in 0..21 {
            cells.set_distance(0, i, (i % 9) as u16);
            cells.set_marker(
                1,
                i,
                [DRAW, rule_win(Rule::PerpetualCheck), ILLEGAL][i as usize % 3],
            );
        }
        cells.improve_win(1, 5, 301);
        let want: Vec<[u16; 2]> = (0..21)
            .map(|i| [cells.stored(0, i), cells.stored(1, i)])
            .collect();
        let dir = std::env::temp_dir().join(format!("canju-spill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cells");
        cells.spill(&path).unwrap();
        assert!(
            cells.sides.iter().all(|s| s.is_empty()),
            "the memory is freed"
        );
        cells.restore(&path).unwrap();
        assert!(!path.exists(), "the file is removed once read");
        let got: Vec<[u16; 2]> = (0..21)
            .map(|i| [cells.stored(0, i), cells.stored(1, i)])
            .collect();
        assert_eq!(got, want);
        // A file cut short is an error, not a wrong value.
        cells.spill(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(cells.restore(&path).is_err());
        // Where the file cannot be made, the cells stay.
        let mut kept = Cells::new(3);
        kept.set_distance(0, 1, 4);
        assert!(kept.spill(&dir.join("missing").join("cells")).is_err());
        assert_eq!(kept.stored(0, 1), 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_sweep_finds_exactly_the_cells_at_its_distance_across_chunks() {
        let size = 5 * LEVEL_CHUNK + 77;
        let cells = Cells::new(size);
        // Set, improved (the chunk keeps its old level noted) and settled, in some chunks.
        let at_5 = [
            3,
            LEVEL_CHUNK + 9,
            4 * LEVEL_CHUNK + 70,
            5 * LEVEL_CHUNK + 76,
        ];
        for &i in &at_5 {
            cells.set_distance(0, i, 5);
        }
        cells.set_distance(0, 2 * LEVEL_CHUNK, 7);
        assert!(cells.improve_win(0, 2 * LEVEL_CHUNK, 5));
        assert!(cells.settle_loss(0, 3 * LEVEL_CHUNK + 1, 69));
        let found = |range: std::ops::Range<u64>, n: u8| {
            let mut at = vec![];
            cells.for_each_equal(0, range, n, |i| at.push(i));
            at
        };
        let mut want = at_5.to_vec();
        want.insert(2, 2 * LEVEL_CHUNK);
        assert_eq!(found(0..size, 5), want);
        assert!(found(0..size, 7).is_empty(), "the cell left 7");
        // 69 and 5 share a bit of the chunks' words: only the cells tell them apart.
        assert_eq!(found(0..size, 69), [3 * LEVEL_CHUNK + 1]);
        assert_eq!(
            found(LEVEL_CHUNK..4 * LEVEL_CHUNK, 5),
            [LEVEL_CHUNK + 9, 2 * LEVEL_CHUNK]
        );
        assert_eq!(found(0..size, UNDECIDED).len() as u64, size - 6);
    }

    #[test]
    fn a_sweep_finds_exactly_the_cells_at_its_distance() {
        let cells = Cells::new(21);
        let wins = [0u64, 7, 8, 13, 20];
        for &i in &wins {
            cells.set_distance(1, i, 5);
        }
        cells.set_distance(1, 3, 4);
        cells.set_distance(1, 4, 6);
        cells.set_distance(0, 9, 5);
        let found = |range: std::ops::Range<u64>, n: u8| {
            let mut at = vec![];
            cells.for_each_equal(1, range, n, |i| at.push(i));
            at
        };
        assert_eq!(found(0..21, 5), wins);
        assert_eq!(found(8..16, 5), [8, 13]);
        assert_eq!(found(0..21, 4), [3]);
        assert!(
            found(0..21, ILLEGAL).is_empty(),
            "the bytes past the end are never visited"
        );
        assert_eq!(found(0..21, UNDECIDED).len(), 21 - 7);
    }
}
