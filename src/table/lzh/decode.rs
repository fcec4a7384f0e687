//! Decoding: a step table per code (symbol, length and bucket in one look-up) and the decoder
//! that runs a block's token chains up to the wanted value.

use super::huffman::{BitReader, Decoder, MAX_CODE_BITS};
use super::*;

/// One decoding step per [`MAX_CODE_BITS`]-bit window: the code's length (bits 0-3), the
/// number of extra bits that follow it (bits 4-8), a flag (bit 9: a match for the literal/length
/// code, a repeated offset for the offset code) and the base the extra bits are added to (bits
/// 10-31: the literal value, the match length, the offset, or which repeated offset). 0 where
/// no code starts: corrupt input.
///
/// Spelling out each symbol's bucket in the table saves the decoder a branch and a second
/// look-up per code.
#[derive(Clone)]
pub(super) struct StepTable(pub(super) Box<[u32; 1 << MAX_CODE_BITS]>);

/// Extra-bit count and base of each bucket symbol.
pub(super) const fn build_bucket_bases() -> [(u32, u32); BUCKETS] {
    let mut t = [(0u32, 0u32); BUCKETS];
    let mut s = 0;
    while s < BUCKETS {
        t[s] = if s < 16 {
            (0, s as u32)
        } else {
            let k = (s - 16) / 4 + 4;
            (
                (k - 2) as u32,
                ((1 << k) | (((s - 16) % 4) << (k - 2))) as u32,
            )
        };
        s += 1;
    }
    t
}
pub(super) static BUCKET_BASES: [(u32, u32); BUCKETS] = build_bucket_bases();

impl StepTable {
    /// `step(symbol)`: (extra bits, flag, base) of a symbol of the code.
    fn new(code: &Decoder, step: impl Fn(usize) -> (u32, bool, u32)) -> StepTable {
        let mut t = Box::new([0u32; 1 << MAX_CODE_BITS]);
        for (slot, (symbol, len)) in t.iter_mut().zip(code.entries()) {
            if len > 0 {
                let (extra, flag, base) = step(symbol);
                *slot = len | extra << 4 | u32::from(flag) << 9 | base << 10;
            }
        }
        StepTable(t)
    }

    /// The entry for the next bits of `window`, its value (base plus extra bits), and the bits
    /// it takes.
    #[inline(always)]
    fn step(&self, window: u64) -> (u32, u64, u32) {
        let e = self.0[(window & ((1 << MAX_CODE_BITS) - 1)) as usize];
        let (len, extra) = (e & 0xF, (e >> 4) & 0x1F);
        let value = u64::from(e >> 10) + ((window >> len) & ((1u64 << extra) - 1));
        (e, value, len + extra)
    }
}

/// A decoded token: the values it covers, and a literal's value or a match's offset.
#[derive(Clone, Copy)]
pub(super) struct Step {
    len: usize,
    /// A literal's value, or a match's offset << 8 (never 0: offsets start at 1).
    kind: u32,
}

/// Decodes blocks of one section.
#[derive(Clone)]
pub struct BlockDecoder {
    litlen: StepTable,
    offset: StepTable,
}

impl BlockDecoder {
    /// The decoder for a section's stored codes; `None` if they are malformed.
    pub fn new(codes: &[u8]) -> Option<BlockDecoder> {
        if codes.len() != LITLEN_SYMBOLS + OFFSET_SYMBOLS {
            return None;
        }
        let (litlen, offset) = codes.split_at(LITLEN_SYMBOLS);
        let litlen = StepTable::new(&Decoder::new(litlen)?, |s| match s {
            0..256 => (0, false, s as u32),
            _ => {
                let (extra, base) = BUCKET_BASES[s - 256];
                (extra, true, base + MIN_MATCH as u32)
            }
        });
        let offset = StepTable::new(&Decoder::new(offset)?, |s| match s {
            0..2 => (0, true, s as u32),
            _ => {
                let (extra, base) = BUCKET_BASES[s - 2];
                (extra, false, base + 1)
            }
        });
        Some(BlockDecoder { litlen, offset })
    }

    /// Reads the token starting at value `p` of a block of `n` values, updating the repeated
    /// offsets; `None` if the bits are no token or the match reaches outside the block.
    ///
    /// Both codes are read from one window of bits (the offset's bits are consumed only for a
    /// match), so the second look-up does not wait for a refill.
    #[inline(always)]
    fn next_token(
        &self,
        input: &mut BitReader,
        reps: &mut Reps,
        p: usize,
        n: usize,
    ) -> Option<Step> {
        let window = input.window();
        let (e, value, used) = self.litlen.step(window);
        let (o, offset, offset_used) = self.offset.step(window >> used);
        let is_match = e & (1 << 9) != 0;
        let off = if o & (1 << 9) != 0 {
            reps.0[offset as usize & 1]
        } else {
            offset as usize
        };
        let len = if is_match { value as usize } else { 1 };
        // A literal needs a code; a match an offset code too, inside the block.
        if e == 0 || (is_match && (o == 0 || off > p || len > n - p)) {
            return None;
        }
        input.consume(used + if is_match { offset_used } else { 0 });
        if is_match {
            // A repeated offset other than the last swaps the two; a new one pushes.
            let keep = if o & (1 << 9) != 0 && offset == 0 {
                reps.0[1]
            } else {
                reps.0[0]
            };
            reps.0 = [off, keep];
        }
        Some(Step {
            len,
            kind: if is_match {
                (off as u32) << 8
            } else {
                value as u32
            },
        })
    }

    /// Decodes a whole block (`block` holds `r.bytes`) into `out` (`r.values` long); `None` if
    /// it is corrupted.
    fn decode_into(&self, block: &[u8], r: &BlockRef, out: &mut [u8]) -> Option<()> {
        let n = r.values;
        let (mut a, mut b) = streams(block, r)?;
        let mut reps = Reps(INITIAL_REPS);
        let mut p = 0;
        for t in 0..r.layout.most_tokens() {
            if p == n {
                break;
            }
            let input = match r.layout {
                Layout::Paired if t % 2 == 1 => &mut b,
                _ => &mut a,
            };
            let Step { len, kind } = self.next_token(input, &mut reps, p, n)?;
            let off = (kind >> 8) as usize;
            if off == 0 {
                out[p] = kind as u8;
                p += 1;
                continue;
            }
            // The periodic pattern [p - off, done) doubles with each copy.
            let (src, mut done, end) = (p - off, p, p + len);
            while done < end {
                let chunk = (done - src).min(end - done);
                out.copy_within(src..src + chunk, done);
                done += chunk;
            }
            p = end;
        }
        (p == n && a.exhausted() && !b.overrun()).then_some(())
    }

    /// Value `at` of a block (`block` holds `r.bytes`); `None` if the block is corrupted.
    ///
    /// Nothing is copied: tokens are decoded up to the one covering `at`; a match there points
    /// at an earlier place, found among the tokens already read, until a literal answers.
    #[inline]
    pub fn value_at(&self, block: &[u8], r: &BlockRef, at: usize) -> Option<u8> {
        match r.layout {
            Layout::Single => self.value_in::<false>(block, r, at),
            Layout::Paired => self.value_in::<true>(block, r, at),
        }
    }

    fn value_in<const PAIRED: bool>(&self, block: &[u8], r: &BlockRef, at: usize) -> Option<u8> {
        let n = r.values;
        if at >= n || n > MAX_BLOCK_VALUES {
            return None;
        }
        let (mut a, mut b) = streams(block, r)?;
        let mut reps = Reps(INITIAL_REPS);
        let most = r.layout.most_tokens();
        // Per token: its first value, and the literal value or the match offset << 8.
        let mut starts = [0u32; MAX_BLOCK_TOKENS];
        let mut kinds = [0u32; MAX_BLOCK_TOKENS];
        let mut p = 0;
        let mut t = 0;
        // Two tokens a round, one from each stream: their bit chains do not depend on each
        // other, so the processor decodes both at once.
        'tokens: loop {
            for k in 0..2 {
                let input = if PAIRED && k == 1 { &mut b } else { &mut a };
                if t == most || p >= n {
                    return None;
                }
                starts[t] = p as u32;
                let Step { len, kind } = self.next_token(input, &mut reps, p, n)?;
                kinds[t] = kind;
                if at < p + len {
                    break 'tokens;
                }
                p += len;
                t += 1;
            }
        }
        if a.overrun() || b.overrun() {
            return None;
        }
        // Follow the copies back; each step lands in an earlier token.
        let mut pos = at as u32;
        loop {
            let off = kinds[t] >> 8;
            if off == 0 {
                return Some(kinds[t] as u8);
            }
            let into = pos - starts[t];
            pos = starts[t] - off
                + match off {
                    1 => 0,
                    _ if into < off => into,
                    _ => into % off,
                };
            // Usually a short step back (a run, a row of the board).
            while starts[t] > pos {
                t -= 1;
            }
        }
    }

    /// All values of a block (`block` holds `r.bytes`); `None` if the block is corrupted.
    pub fn decode(&self, block: &[u8], r: &BlockRef) -> Option<Vec<u8>> {
        if r.values > MAX_BLOCK_VALUES {
            return None;
        }
        let mut out = vec![0u8; r.values];
        self.decode_into(block, r, &mut out)?;
        Some(out)
    }
}
