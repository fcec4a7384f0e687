//! Encoding: tokens chosen by a hash-chain match finder within a token budget, symbol
//! counts for the section's two Huffman codes, and blocks packed into their bit streams.

use super::huffman::{self, BitWriter, Encoder};
use super::*;

/// The two most recent offsets, as encoder and decoder both track them.
#[derive(Clone, Copy)]
pub(super) struct Reps(pub(super) [usize; 2]);

impl Reps {
    fn update(&mut self, off: usize, rep: Option<usize>) {
        match rep {
            Some(0) => {}
            Some(_) => self.0.swap(0, 1),
            None => self.0 = [off, self.0[0]],
        }
    }
}

pub(super) fn common_length(values: &[u8], a: usize, b: usize) -> usize {
    let (x, y) = (&values[a..], &values[b..]);
    let n = x.len().min(y.len());
    // Eight values at a time: the first differing byte of two words is the lowest set
    // byte of their xor (little-endian).
    let mut len = 0;
    while len + 8 <= n {
        let word = |s: &[u8]| u64::from_le_bytes(s[len..len + 8].try_into().expect("8 bytes"));
        let diff = word(x) ^ word(y);
        if diff != 0 {
            return len + (diff.trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    len + x[len..n]
        .iter()
        .zip(&y[len..n])
        .take_while(|(p, q)| p == q)
        .count()
}

#[inline]
pub(super) fn hash(values: &[u8], i: usize) -> usize {
    let word = u32::from_le_bytes(values[i..i + 4].try_into().expect("4 bytes"));
    (word.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// What the tokenizer reports, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Event {
    Token(Token),
    /// The block ends after the previous token (a new one starts unless the segment ended).
    EndOfBlock,
}

/// Decides where blocks end: each token goes to the two streams of a paired block in turn,
/// and a block ends before a token that would take it past [`BLOCK_BYTES`] (or
/// [`MAX_BLOCK_TOKENS`]).
pub(super) struct Budget<F: Fn(&Token) -> u32> {
    /// Bits of a token as the block's stream will store it.
    cost: F,
    bits: [u32; 2],
    tokens: usize,
}

impl<F: Fn(&Token) -> u32> Budget<F> {
    fn new(cost: F) -> Self {
        Budget {
            cost,
            bits: [0; 2],
            tokens: 0,
        }
    }

    /// Takes `token` into the block if it fits.
    fn take(&mut self, token: &Token) -> bool {
        let stream = self.tokens % 2;
        let mut bits = self.bits;
        bits[stream] += (self.cost)(token);
        let bytes = bits[0].div_ceil(8) + bits[1].div_ceil(8);
        if self.tokens == MAX_BLOCK_TOKENS || bytes as usize > BLOCK_BYTES {
            return false;
        }
        self.bits = bits;
        self.tokens += 1;
        true
    }

    fn reset(&mut self) {
        self.bits = [0; 2];
        self.tokens = 0;
    }
}

/// Splits one segment into blocks as `budget` allows (greedy matching with one step of
/// lookahead; matches stay inside their block), in order. Each match is made as `fit` makes
/// it, or not at all where it gives `None` (the codes are built from a first pass whose
/// blocks end elsewhere, so a match length or offset bucket can lack a code; every value's
/// literal has one, since a value's first appearance in a segment is always a literal).
pub(super) fn tokenize<F: Fn(&Token) -> u32>(
    values: &[u8],
    mut budget: Budget<F>,
    fit: impl Fn(Token) -> Option<Token>,
    mut emit: impl FnMut(Event),
) {
    let n = values.len();
    let mut head = vec![u32::MAX; 1 << HASH_BITS];
    let mut prev = vec![u32::MAX; n];
    let mut reps = Reps(INITIAL_REPS);
    let mut block_start = 0;
    let insert = |i: usize, head: &mut Vec<u32>, prev: &mut Vec<u32>| {
        if i + 4 <= n {
            let h = hash(values, i);
            prev[i] = head[h];
            head[h] = i as u32;
        }
    };
    // Best match at `i`: (score, token); the score weighs values covered against the cost of
    // sending a new offset.
    let best_at = |i: usize, start: usize, reps: &Reps, head: &Vec<u32>, prev: &Vec<u32>| {
        let mut best = (0i64, Token::Literal(values[i]));
        for (r, &off) in reps.0.iter().enumerate() {
            if off <= i - start {
                let len = common_length(values, i, i - off);
                let token = Token::Match {
                    len,
                    off,
                    rep: Some(r),
                };
                if len >= MIN_MATCH
                    && let Some(token @ Token::Match { len, .. }) = fit(token)
                    && 2 * len as i64 - 1 > best.0
                {
                    best = (2 * len as i64 - 1, token);
                }
            }
        }
        if i + 4 <= n {
            let mut j = head[hash(values, i)];
            for _ in 0..CHAIN_DEPTH {
                if j == u32::MAX || (j as usize) < start || j as usize >= i {
                    break;
                }
                let off = i - j as usize;
                let len = common_length(values, i, j as usize);
                let cost = 6 + i64::from(usize::BITS - off.leading_zeros()) / 2;
                let token = Token::Match {
                    len,
                    off,
                    rep: None,
                };
                if len >= MIN_NEW_MATCH
                    && let Some(token @ Token::Match { len: made, .. }) = fit(token)
                    && 2 * made as i64 - cost > best.0
                {
                    best = (2 * made as i64 - cost, token);
                }
                if i + len == n {
                    break;
                }
                j = prev[j as usize];
            }
        }
        best
    };
    let mut i = 0;
    while i < n {
        let (score, mut token) = best_at(i, block_start, &reps, &head, &prev);
        if let Token::Match { len, .. } = token
            && i + 1 < n
            && len < 64
            && best_at(i + 1, block_start, &reps, &head, &prev).0 > score + 2
        {
            token = Token::Literal(values[i]);
        }
        if !budget.take(&token) {
            // Start a new block here; the token is chosen again without the old history.
            emit(Event::EndOfBlock);
            (block_start, reps) = (i, Reps(INITIAL_REPS));
            budget.reset();
            continue;
        }
        let covered = match token {
            Token::Literal(_) => 1,
            Token::Match { len, off, rep } => {
                reps.update(off, rep);
                len
            }
        };
        emit(Event::Token(token));
        for k in i..i + covered {
            insert(k, &mut head, &mut prev);
        }
        i += covered;
    }
    emit(Event::EndOfBlock);
}

/// Symbol counts of one block's tokens.
pub(super) struct Counts {
    litlen: Vec<u64>,
    offset: Vec<u64>,
}

impl Counts {
    fn new() -> Counts {
        Counts {
            litlen: vec![0; LITLEN_SYMBOLS],
            offset: vec![0; OFFSET_SYMBOLS],
        }
    }

    fn add(&mut self, other: &Counts) {
        for (a, b) in self.litlen.iter_mut().zip(&other.litlen) {
            *a += b;
        }
        for (a, b) in self.offset.iter_mut().zip(&other.offset) {
            *a += b;
        }
    }
}

/// The longest match length of at most `len` and at least `min` whose literal/length symbol
/// has a code (`has_code`), if any. A prefix of a match is a match, so a long match whose
/// length bucket the section's code lacks (the first pass cut its blocks elsewhere) is cut
/// to the longest length it has a code for. Before, such a match was given up for a literal
/// or a short match, and each later value of the run searched its whole length again (on
/// KRKN, runs of 12,000 to 18,000 values: 2.3 billion values compared, 37% of the
/// generation's instructions).
pub(super) fn codable_length(
    len: usize,
    min: usize,
    has_code: impl Fn(usize) -> bool,
) -> Option<usize> {
    let (mut s, _, _) = length_symbol(len);
    let mut longest = len;
    while longest >= min {
        if has_code(s) {
            return Some(longest);
        }
        if s == 256 {
            return None;
        }
        s -= 1;
        let (bits, base) = BUCKET_BASES[s - 256];
        longest = base as usize + (1 << bits) - 1 + MIN_MATCH;
    }
    None
}

/// Literal/length symbol, extra-bit count and extra bits of a match length.
pub(super) fn length_symbol(len: usize) -> (usize, u32, u64) {
    let (s, bits, extra) = bucket(len - MIN_MATCH);
    (256 + s, bits, extra)
}

/// Offset symbol, extra-bit count and extra bits of a match offset.
pub(super) fn offset_symbol(off: usize, rep: Option<usize>) -> (usize, u32, u64) {
    match rep {
        Some(r) => (r, 0, 0),
        None => {
            let (s, bits, extra) = bucket(off - 1);
            (2 + s, bits, extra)
        }
    }
}

/// Bits of a token under the codes `litlen` and `offset`, extra bits included.
pub(super) fn token_bits(
    token: &Token,
    litlen: impl Fn(usize) -> u32,
    offset: impl Fn(usize) -> u32,
) -> u32 {
    match *token {
        Token::Literal(v) => litlen(v as usize),
        Token::Match { len, off, rep } => {
            let (l, l_extra, _) = length_symbol(len);
            let (o, o_extra, _) = offset_symbol(off, rep);
            litlen(l) + l_extra + offset(o) + o_extra
        }
    }
}

/// Symbol counts of a segment, cut into blocks with guessed code lengths (the codes are made
/// from these counts; the real cut, with the real codes, differs a little).
pub(super) fn count_segment(values: &[u8]) -> Counts {
    let mut counts = Counts::new();
    let guess = Budget::new(|t: &Token| {
        token_bits(
            t,
            |s| if s < 256 { 2 } else { 4 },
            |s| if s < 2 { 1 } else { 5 },
        )
    });
    tokenize(values, guess, Some, |e| match e {
        Event::Token(Token::Literal(v)) => counts.litlen[v as usize] += 1,
        Event::Token(Token::Match { len, off, rep }) => {
            counts.litlen[length_symbol(len).0] += 1;
            counts.offset[offset_symbol(off, rep).0] += 1;
        }
        Event::EndOfBlock => {}
    });
    counts
}

/// One compressed block. Its bytes are held in place, not in an allocation of their own: a
/// table of 9.2e8 slots a side has 1.6 million blocks, all held while the values they
/// compress still are (as vectors, 112 bytes a block went to the heap, 72 now).
pub struct Block {
    /// Values it holds.
    pub values: u32,
    /// The first stream, the second, zeros.
    pub bytes: [u8; BLOCK_BYTES],
    /// Bytes of the first stream.
    pub split: u8,
}

/// Writes the tokens of one segment, each block's alternately into its two streams.
pub(super) fn encode_segment(values: &[u8], litlen: &Encoder, offset: &Encoder) -> Vec<Block> {
    let mut blocks = vec![];
    let mut out = [BitWriter::default(), BitWriter::default()];
    let (mut covered, mut block_values, mut tokens) = (0usize, 0usize, 0usize);
    let budget = Budget::new(|t: &Token| token_bits(t, |s| litlen.bits(s), |s| offset.bits(s)));
    // Asked of matches only.
    let fit = |t: Token| match t {
        Token::Literal(_) => Some(t),
        Token::Match { len, off, rep } => {
            let min = if rep.is_some() {
                MIN_MATCH
            } else {
                MIN_NEW_MATCH
            };
            let len = codable_length(len, min, |s| litlen.bits(s) > 0)?;
            (offset.bits(offset_symbol(off, rep).0) > 0).then_some(Token::Match { len, off, rep })
        }
    };
    tokenize(values, budget, fit, |e| match e {
        Event::Token(token) => {
            let out = &mut out[tokens % 2];
            tokens += 1;
            match token {
                Token::Literal(v) => {
                    litlen.put(out, v as usize);
                    block_values += 1;
                }
                Token::Match { len, off, rep } => {
                    let (s, bits, extra) = length_symbol(len);
                    litlen.put(out, s);
                    out.put(extra, bits);
                    let (s, bits, extra) = offset_symbol(off, rep);
                    offset.put(out, s);
                    out.put(extra, bits);
                    block_values += len;
                }
            }
        }
        Event::EndOfBlock => {
            let [first, second] = std::mem::take(&mut out).map(BitWriter::finish);
            let split = first.len();
            assert!(
                split + second.len() <= BLOCK_BYTES,
                "a block overflows its bytes"
            );
            let mut bytes = [0; BLOCK_BYTES];
            bytes[..split].copy_from_slice(&first);
            bytes[split..split + second.len()].copy_from_slice(&second);
            let split = split as u8;
            blocks.push(Block {
                values: block_values as u32,
                bytes,
                split,
            });
            covered += block_values;
            (block_values, tokens) = (0, 0);
        }
    });
    debug_assert_eq!(covered, values.len());
    blocks.shrink_to_fit();
    blocks
}

/// Compresses `sides` (each a stream of values, compressed separately) into paired blocks of
/// [`BLOCK_BYTES`] and at most [`MAX_BLOCK_VALUES`] values, with codes made for all of them;
/// returns the codes (as [`BlockDecoder::new`] reads them) and the blocks in order, the first
/// side's first, a vector per segment of at most [`MAX_BLOCK_VALUES`] values (collected in place:
/// one flat vector would pass through a second copy of itself).
pub fn compress(sides: &[&[u8]]) -> (Vec<u8>, Vec<Vec<Block>>) {
    use rayon::prelude::*;
    let segments: Vec<&[u8]> = sides
        .iter()
        .flat_map(|s| s.chunks(MAX_BLOCK_VALUES))
        .collect();
    let counts = segments
        .par_iter()
        .map(|s| count_segment(s))
        .reduce(Counts::new, |mut a, b| {
            a.add(&b);
            a
        });
    let book = CodeBook::of(&counts);
    let blocks = segments.par_iter().map(|s| book.encode(s)).collect();
    (book.into_lengths(), blocks)
}

/// As [`compress`], segment `k` of the sides' values (in the order [`compress`] cuts them:
/// each side in chunks of [`MAX_BLOCK_VALUES`], the first side's first) made by
/// `segment_values(k)` when needed and dropped after, twice (once to count, once to
/// encode): the values are never held whole.
pub fn compress_segments(
    segments: usize,
    segment_values: impl Fn(usize) -> Vec<u8> + Sync,
) -> (Vec<u8>, Vec<Vec<Block>>) {
    use rayon::prelude::*;
    let counts = (0..segments)
        .into_par_iter()
        .map(|k| count_segment(&segment_values(k)))
        .reduce(Counts::new, |mut a, b| {
            a.add(&b);
            a
        });
    let book = CodeBook::of(&counts);
    let blocks = (0..segments)
        .into_par_iter()
        .map(|k| book.encode(&segment_values(k)))
        .collect();
    (book.into_lengths(), blocks)
}

/// A section's codes: their lengths and their encoders.
struct CodeBook {
    litlen: Vec<u8>,
    offset: Vec<u8>,
    enc_litlen: Encoder,
    enc_offset: Encoder,
}

impl CodeBook {
    /// The codes for symbols counted `counts` times.
    fn of(counts: &Counts) -> CodeBook {
        let litlen = huffman::code_lengths(&counts.litlen, huffman::MAX_CODE_BITS);
        let offset = huffman::code_lengths(&counts.offset, huffman::MAX_CODE_BITS);
        let (enc_litlen, enc_offset) = (Encoder::new(&litlen), Encoder::new(&offset));
        CodeBook {
            litlen,
            offset,
            enc_litlen,
            enc_offset,
        }
    }

    /// The blocks of one segment.
    fn encode(&self, segment: &[u8]) -> Vec<Block> {
        encode_segment(segment, &self.enc_litlen, &self.enc_offset)
    }

    /// The code lengths as [`BlockDecoder::new`] reads them.
    fn into_lengths(self) -> Vec<u8> {
        let mut codes = self.litlen;
        codes.extend_from_slice(&self.offset);
        codes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_is_cut_to_the_longest_length_with_a_code() {
        // Codes for the symbols of lengths 2 to 17 and of 1,000, none in between.
        let coded = |s: usize| s < length_symbol(18).0 || s == length_symbol(1000).0;
        assert_eq!(codable_length(1000, MIN_MATCH, coded), Some(1000));
        assert_eq!(codable_length(700, MIN_MATCH, coded), Some(17));
        // The longest length of 1,000's bucket (offsets 896 to 1,023 past the shortest match).
        assert_eq!(
            codable_length(5000, MIN_MATCH, coded),
            Some(1023 + MIN_MATCH)
        );
        assert_eq!(codable_length(9, MIN_MATCH, coded), Some(9));
        // Nothing long enough has a code.
        assert_eq!(codable_length(700, 20, coded), None);
        assert_eq!(codable_length(700, MIN_MATCH, |_| false), None);
    }

    #[test]
    fn common_length_counts_like_value_by_value() {
        // Runs and noise, so that matches end at every place within a word.
        let values: Vec<u8> = (0..3000u32)
            .map(|i| {
                if (i / 37) % 3 == 0 {
                    1
                } else {
                    (i * i % 7) as u8
                }
            })
            .collect();
        let naive = |a: usize, b: usize| {
            values[a..]
                .iter()
                .zip(&values[b..])
                .take_while(|(x, y)| x == y)
                .count()
        };
        let mut long = 0;
        for a in (0..values.len()).step_by(7) {
            for b in (0..a).step_by(13).chain([a.saturating_sub(1), a]) {
                let len = common_length(&values, a, b);
                assert_eq!(len, naive(a, b), "at {a} and {b}");
                long += (len > 8) as usize;
            }
        }
        assert!(long > 100, "long matches tried: {long}");
    }
}
