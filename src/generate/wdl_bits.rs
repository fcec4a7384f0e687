//! A set's outcomes in bitmaps, without distances: what a run without distances
//! (`gen --wdl-only`) solves, hands to the repetition rules' pass and writes. Two bits a
//! position (won, lost) and two more per position where the rules decide something, against
//! the mate search's byte.

use super::bits::Bits;
use super::cells::{self, Cells, Outcomes, SPILL_CHUNK_BYTES};
use crate::table::{RuleCodes, ValueSource, WdlCodes};
use crate::value::{Rule, STORED_DRAW, STORED_ILLEGAL, stored_rule_loss, stored_rule_win};
use rayon::prelude::*;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
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
    /// Per side to move, made at its first result by a rule: 0 for a result by mate, else
    /// the rule's index ([`Rule::index`]) plus 1, in two bits.
    by_rule: [OnceLock<[Bits; 2]>; 2],
}

/// The rule of a result whose two bits `by_rule` holds at `slot`, if by a rule.
fn rule_at(by_rule: &[Bits; 2], slot: u64) -> Option<Rule> {
    let k = usize::from(by_rule[0].get(slot)) | usize::from(by_rule[1].get(slot)) << 1;
    k.checked_sub(1).map(|k| Rule::ALL[k])
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
    /// true if this call decided it. Threads may decide the same slot together, all as wins
    /// or all as losses (a search decides wins and losses in separate steps).
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

    /// One side's outcomes from its `won` and `lost` words.
    fn outcomes_of(&self, won: &[u64], lost: &[u64]) -> Outcomes {
        let words = self.words();
        let tail = match self.size % 64 {
            0 => u64::MAX,
            r => (1u64 << r) - 1,
        };
        let word = |k: usize| {
            let mask = if k + 1 == words { tail } else { u64::MAX };
            let (w, l) = (won[k], lost[k]);
            (!w & !l & mask, w & !l)
        };
        let (draws, wins) = (0..words).into_par_iter().map(word).unzip();
        Outcomes { draws, wins }
    }

    /// Writes the bitmaps to `path` and frees them while the rule pass runs (it reads the
    /// outcomes and marks its results there: [`WdlBits::read_spilled_outcomes`],
    /// [`WdlBits::mark_spilled`]). Per side to move, four arrays of words: won, lost and the
    /// rules' two bits (zeros where no rule result is marked yet).
    ///
    /// # Errors
    /// The file cannot be written (it is removed).
    pub(super) fn spill(&mut self, path: &Path) -> std::io::Result<()> {
        let write = || -> std::io::Result<()> {
            let mut f = std::io::BufWriter::with_capacity(SPILL_CHUNK_BYTES, File::create(path)?);
            for side in 0..2 {
                let rules = self.by_rule[side].get();
                let arrays = [
                    Some(&self.won[side]),
                    Some(&self.lost[side]),
                    rules.map(|r| &r[0]),
                    rules.map(|r| &r[1]),
                ];
                // An array not made yet (no rule result) is written as zeros.
                for bits in arrays {
                    for k in 0..self.words() {
                        let w = bits.map_or(0, |b| b.word(k));
                        f.write_all(&w.to_le_bytes())?;
                    }
                }
            }
            f.flush()
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(path);
            return Err(e);
        }
        self.won = [Bits::new(0), Bits::new(0)];
        self.lost = [Bits::new(0), Bits::new(0)];
        self.by_rule = [OnceLock::new(), OnceLock::new()];
        Ok(())
    }

    /// Reads back the bitmaps [`WdlBits::spill`] wrote to `path`, and removes the file.
    ///
    /// # Errors
    /// The file cannot be read or is shorter than the bitmaps.
    pub(super) fn restore(&mut self, path: &Path) -> std::io::Result<()> {
        let mut f = File::open(path)?;
        for side in 0..2 {
            let [won, lost, rule0, rule1] = [0, 1, 2, 3].map(|_| Vec::new());
            let mut arrays = [won, lost, rule0, rule1];
            for words in &mut arrays {
                *words = read_words(&mut f, self.words())?;
            }
            let [won, lost, rule0, rule1] = arrays;
            self.won[side] = Bits::from_words(won);
            self.lost[side] = Bits::from_words(lost);
            if rule0.iter().chain(&rule1).any(|&w| w != 0) {
                let rules = [Bits::from_words(rule0), Bits::from_words(rule1)];
                let _ = self.by_rule[side].set(rules);
            }
        }
        std::fs::remove_file(path)
    }

    /// The draws and the wins for the side to move (by a rule included) of the bitmaps
    /// spilled to `path`, as the repetition rules' pass reads them.
    ///
    /// # Errors
    /// The file cannot be read or is shorter than the bitmaps.
    pub(super) fn read_spilled_outcomes(&self, path: &Path) -> std::io::Result<[Outcomes; 2]> {
        let mut f = File::open(path)?;
        let words = self.words();
        let mut side_outcomes = |side: usize| -> std::io::Result<Outcomes> {
            f.seek(SeekFrom::Start(self.array_offset(side, 0)))?;
            let won = read_words(&mut f, words)?;
            let lost = read_words(&mut f, words)?;
            Ok(self.outcomes_of(&won, &lost))
        };
        Ok([side_outcomes(0)?, side_outcomes(1)?])
    }

    /// The writer's cells from the bitmaps spilled to `path` (which is removed): slots
    /// without a legal position, draws and results by a rule as their markers, and each win
    /// and loss by mate [`cells::UNDECIDED`] until its distance is set. Returns them and how
    /// many wins and losses by mate each side to move has.
    ///
    /// # Errors
    /// The file cannot be read or is shorter than the bitmaps.
    pub(super) fn spilled_into_cells(&self, path: &Path) -> std::io::Result<(Cells, [u64; 2])> {
        let mut f = File::open(path)?;
        let cells = Cells::new(self.size);
        let mut by_mate = [0u64; 2];
        let chunk_words = SPILL_CHUNK_BYTES / 8;
        for (side, by_mate) in by_mate.iter_mut().enumerate() {
            for first in (0..self.words()).step_by(chunk_words) {
                let len = (self.words() - first).min(chunk_words);
                let mut arrays = [0, 1, 2, 3].map(|_| Vec::new());
                for (a, words) in arrays.iter_mut().enumerate() {
                    f.seek(SeekFrom::Start(
                        self.array_offset(side, a) + 8 * first as u64,
                    ))?;
                    *words = read_words(&mut f, len)?;
                }
                *by_mate += (0..len)
                    .into_par_iter()
                    .map(|k| {
                        let [won, lost, rule0, rule1] = [0, 1, 2, 3].map(|a| arrays[a][k]);
                        let bytes: [u8; 64] = std::array::from_fn(|b| {
                            // Padding past the last slot stays as new cells hold it.
                            match 64 * (first + k) as u64 + (b as u64) < self.size {
                                true => cell_of_bits([won, lost, rule0, rule1], b),
                                false => cells::UNDECIDED,
                            }
                        });
                        cells.store_bytes(side, 64 * (first + k) as u64, &bytes);
                        ((won ^ lost) & !(rule0 | rule1)).count_ones() as u64
                    })
                    .sum::<u64>();
            }
        }
        std::fs::remove_file(path)?;
        Ok((cells, by_mate))
    }

    /// Marks the slots of `side` in `marks` (ascending) in the bitmaps spilled to `path`,
    /// to its marker ([`cells::rule_win`] or [`cells::rule_loss`]), a chunk of words at a time; returns how many
    /// were set.
    ///
    /// # Errors
    /// The file cannot be read or written, or is shorter than the bitmaps.
    pub(super) fn mark_spilled(
        &self,
        path: &Path,
        side: usize,
        marks: impl Iterator<Item = (u64, u8)>,
    ) -> std::io::Result<u64> {
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        let chunk_words = (SPILL_CHUNK_BYTES / 8) as u64;
        let mut chunk: Option<(u64, [Vec<u64>; 4])> = None;
        let mut set = 0;
        for (slot, marker) in marks {
            let c = slot / 64 / chunk_words;
            if chunk.as_ref().is_none_or(|(at, _)| *at != c) {
                if let Some((at, arrays)) = chunk.take() {
                    self.write_chunk(&mut f, side, at * chunk_words, &arrays)?;
                }
                let first = c * chunk_words;
                let len = (self.words() as u64 - first).min(chunk_words) as usize;
                let mut arrays = [0, 1, 2, 3].map(|_| Vec::new());
                for (a, words) in arrays.iter_mut().enumerate() {
                    f.seek(SeekFrom::Start(self.array_offset(side, a) + 8 * first))?;
                    *words = read_words(&mut f, len)?;
                }
                chunk = Some((c, arrays));
            }
            let (_, arrays) = chunk.as_mut().expect("the chunk of the mark");
            let (k, bit) = ((slot / 64 - c * chunk_words) as usize, 1u64 << (slot % 64));
            let (win, rule) = cells::rule_of_marker(marker).expect("a rule's marker");
            let put = |words: &mut Vec<u64>, on: bool| match on {
                true => words[k] |= bit,
                false => words[k] &= !bit,
            };
            put(&mut arrays[0], win);
            put(&mut arrays[1], !win);
            put(&mut arrays[2], (rule.index() + 1) & 1 == 1);
            put(&mut arrays[3], (rule.index() + 1) & 2 == 2);
            set += 1;
        }
        if let Some((at, arrays)) = chunk {
            self.write_chunk(&mut f, side, at * chunk_words, &arrays)?;
        }
        Ok(set)
    }

    /// Writes `arrays` (won, lost, the rules' two bits of `side`) back from word `first`.
    fn write_chunk(
        &self,
        f: &mut File,
        side: usize,
        first: u64,
        arrays: &[Vec<u64>; 4],
    ) -> std::io::Result<()> {
        for (a, words) in arrays.iter().enumerate() {
            f.seek(SeekFrom::Start(self.array_offset(side, a) + 8 * first))?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            f.write_all(&bytes)?;
        }
        Ok(())
    }

    /// Words of each bitmap.
    fn words(&self) -> usize {
        self.size.div_ceil(64) as usize
    }

    /// Where array `a` (won, lost, the rules' two bits) of `side` starts in the spill file.
    fn array_offset(&self, side: usize, a: usize) -> u64 {
        8 * self.words() as u64 * (4 * side + a) as u64
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
        let rule = || self.by_rule[side].get().and_then(|r| rule_at(r, slot));
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

/// The cell of bit `b` of one word of each of a side's bitmaps (won, lost, the rules' two
/// bits): a win or loss by mate is [`cells::UNDECIDED`], waiting for its distance.
fn cell_of_bits(words: [u64; 4], b: usize) -> u8 {
    let [won, lost, rule0, rule1] = words.map(|w| w >> b & 1 == 1);
    let rule = usize::from(rule0) | usize::from(rule1) << 1;
    match (won, lost, rule.checked_sub(1).map(|k| Rule::ALL[k])) {
        (true, true, _) => cells::ILLEGAL,
        (false, false, _) => cells::DRAW,
        (_, _, None) => cells::UNDECIDED,
        (true, false, Some(rule)) => cells::rule_win(rule),
        (false, true, Some(rule)) => cells::rule_loss(rule),
    }
}

/// `n` words read from `f` (little-endian).
fn read_words(f: &mut File, n: usize) -> std::io::Result<Vec<u64>> {
    let mut words = Vec::with_capacity(n);
    let mut bytes = vec![0u8; SPILL_CHUNK_BYTES.min(8 * n)];
    while words.len() < n {
        let chunk = &mut bytes[..8 * (n - words.len()).min(SPILL_CHUNK_BYTES / 8)];
        f.read_exact(chunk)?;
        words.extend(
            chunk
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
        );
    }
    Ok(words)
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
        let ones = |words: &[u64]| words.iter().map(|w| w.count_ones()).sum::<u32>();
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("spill");
        let mut bits = WdlBits::new(130);
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
        bits.spill(&spill).unwrap();
        let [red, black] = bits.read_spilled_outcomes(&spill).unwrap();
        assert_eq!(ones(&red.draws), 128);
        assert_eq!(ones(&red.wins), 1);
        assert_eq!(ones(&black.draws), 129);
        for rule in Rule::ALL {
            // Slot 70 lies in the second word, 129 in the last.
            let marks = [(5, cells::rule_loss(rule)), (70, cells::rule_win(rule))];
            assert_eq!(bits.mark_spilled(&spill, 0, marks.into_iter()).unwrap(), 2);
            let marks = [(129, cells::rule_win(rule))];
            assert_eq!(bits.mark_spilled(&spill, 1, marks.into_iter()).unwrap(), 1);
            let [red, black] = bits.read_spilled_outcomes(&spill).unwrap();
            assert_eq!((ones(&red.draws), ones(&red.wins)), (127, 1), "{rule:?}");
            assert_eq!(
                (ones(&black.draws), ones(&black.wins)),
                (129, 1),
                "{rule:?}"
            );
        }
        bits.restore(&spill).unwrap();
        assert!(!spill.exists(), "the spill is removed");
        let last = *Rule::ALL.last().unwrap();
        assert_eq!(bits.stored(0, 70), stored_rule_win(last));
        assert_eq!(bits.stored(0, 5), stored_rule_loss(last));
        assert_eq!(bits.stored(1, 129), stored_rule_win(last));
        assert_eq!(bits.stored(0, 3), STORED_ILLEGAL);
        assert_eq!(bits.stored(1, 0), STORED_DRAW);
    }

    #[test]
    fn the_writers_cells_come_from_the_spilled_bitmaps() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("spill");
        // 130 slots: the last word holds two, the rest of it is padding.
        let mut bits = WdlBits::new(130);
        bits.set_illegal(0, 3);
        bits.decide(0, 5, true);
        bits.decide(1, 129, false);
        bits.spill(&spill).unwrap();
        let rule = Rule::ALL[1];
        let marks = [(70, cells::rule_win(rule)), (71, cells::rule_loss(rule))];
        bits.mark_spilled(&spill, 1, marks.into_iter()).unwrap();
        let (made, by_mate) = bits.spilled_into_cells(&spill).unwrap();
        assert!(!spill.exists(), "the spill is removed");
        assert_eq!(
            by_mate,
            [1, 1],
            "a win and a loss by mate wait for their distances"
        );
        assert_eq!(made.raw(0, 3), cells::ILLEGAL);
        assert_eq!(made.raw(0, 5), cells::UNDECIDED);
        assert_eq!(made.raw(1, 129), cells::UNDECIDED);
        assert_eq!(made.raw(0, 6), cells::DRAW);
        assert_eq!(made.raw(1, 70), cells::rule_win(rule));
        assert_eq!(made.raw(1, 71), cells::rule_loss(rule));
        assert_eq!(made.raw(0, 71), cells::DRAW);
        assert_eq!(
            made.raw(0, 131),
            cells::UNDECIDED,
            "padding as new cells hold it"
        );
    }
}
