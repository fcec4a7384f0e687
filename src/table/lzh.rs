//! LZ77 with Huffman codes shared by a whole section: the block codec of win/draw/loss data.
//!
//! A table holds long stretches of one value and patterns that repeat one piece's sweep of the
//! board later (90 slots on, or a multiple). General-purpose compressors pay for their entropy
//! tables in every block, which dominates when blocks must be small for fast probes; here the
//! two Huffman codes (literal/length and offset) are built once per section from every block's
//! symbol counts and stored in the header, so a block is only its bit stream.
//!
//! A block is a sequence of tokens, each either a literal value or a match (copy `len` values
//! from `off` values back, overlapping allowed, so one token covers a run). Offsets can be
//! given as one of the two most recent ones (`rep`, starting as 1 and 90). Lengths and offsets
//! are sent as a bucket symbol plus extra bits. A block is its bit stream alone; the table file
//! checks the section's bytes against checksums kept per chunk of the section.
//!
//! A probe decodes tokens from the block's start until the wanted value is produced; a match
//! that covers it is answered without copying.

use super::huffman::{self, BitReader, BitWriter, Decoder, Encoder};

/// Most values a block may hold (the tokenizer's segment: blocks never cross one).
pub const MAX_BLOCK_VALUES: usize = 1 << 20;
/// Most tokens in a block: a probe decodes half of them on average, so this sets probe time
/// against size. Over every 5-men set: 64 tokens give 0.091 bits a position, 48 gave 0.093,
/// 40 about 0.10 (`cargo bench --bench probe`).
pub const MAX_BLOCK_TOKENS: usize = 64;
/// Symbols of the bucket code for a number `x`: 0..16 directly, then 4 per power of two.
const BUCKETS: usize = 16 + 4 * 17;
/// Literal values (bytes), then length buckets.
const LITLEN_SYMBOLS: usize = 256 + BUCKETS;
/// Two repeated offsets, then offset buckets.
const OFFSET_SYMBOLS: usize = 2 + BUCKETS;
/// Shortest match.
const MIN_MATCH: usize = 2;
/// Shortest match at a new offset.
const MIN_NEW_MATCH: usize = 4;
/// The repeated offsets a block starts with: the previous value and one sweep of the board.
const INITIAL_REPS: [usize; 2] = [1, 90];
const HASH_BITS: u32 = 15;
/// Earlier positions with the same hash examined per match search.
const CHAIN_DEPTH: usize = 24;

/// Bucket symbol, extra-bit count and extra bits of `x`.
#[inline]
fn bucket(x: usize) -> (usize, u32, u64) {
    if x < 16 {
        return (x, 0, 0);
    }
    let k = usize::BITS - 1 - x.leading_zeros();
    let sub = (x >> (k - 2)) & 3;
    let extra_bits = k - 2;
    (
        16 + (k as usize - 4) * 4 + sub,
        extra_bits,
        (x & ((1 << extra_bits) - 1)) as u64,
    )
}

/// The number a bucket symbol and its extra bits stand for; `None` past the largest bucket.
#[inline]
fn unbucket(symbol: usize, input: &mut BitReader) -> Option<usize> {
    if symbol < 16 {
        return Some(symbol);
    }
    if symbol >= BUCKETS {
        return None;
    }
    let k = (symbol - 16) / 4 + 4;
    let sub = (symbol - 16) % 4;
    let extra = input.get(k as u32 - 2) as usize;
    Some((1 << k) | (sub << (k - 2)) | extra)
}

/// One unit of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Literal(u8),
    /// Copy `len` values from `off` back; `rep` says which repeated offset, if any, it is.
    Match {
        len: usize,
        off: usize,
        rep: Option<usize>,
    },
}

/// The two most recent offsets, as encoder and decoder both track them.
#[derive(Clone, Copy)]
struct Reps([usize; 2]);

impl Reps {
    fn update(&mut self, off: usize, rep: Option<usize>) {
        match rep {
            Some(0) => {}
            Some(_) => self.0.swap(0, 1),
            None => self.0 = [off, self.0[0]],
        }
    }
}

fn common_length(values: &[u8], a: usize, b: usize) -> usize {
    values[a..]
        .iter()
        .zip(&values[b..])
        .take_while(|(x, y)| x == y)
        .count()
}

#[inline]
fn hash(values: &[u8], i: usize) -> usize {
    let word = u32::from_le_bytes(values[i..i + 4].try_into().expect("4 bytes"));
    (word.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// What the tokenizer reports, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    Token(Token),
    /// The block ends after the previous token (a new one starts unless the segment ended).
    EndOfBlock,
}

/// Splits one segment into blocks of at most [`MAX_BLOCK_TOKENS`] tokens (greedy matching with
/// one step of lookahead; matches stay inside their block), in order.
fn tokenize(values: &[u8], mut emit: impl FnMut(Event)) {
    let n = values.len();
    let mut head = vec![u32::MAX; 1 << HASH_BITS];
    let mut prev = vec![u32::MAX; n];
    let mut reps = Reps(INITIAL_REPS);
    let mut block_start = 0;
    let mut tokens = 0;
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
                let score = 2 * len as i64 - 1;
                if len >= MIN_MATCH && score > best.0 {
                    best = (
                        score,
                        Token::Match {
                            len,
                            off,
                            rep: Some(r),
                        },
                    );
                }
            }
        }
        if i + 4 <= n {
            let mut j = head[hash(values, i)];
            for _ in 0..CHAIN_DEPTH {
                if j == u32::MAX || (j as usize) < start {
                    break;
                }
                let off = i - j as usize;
                let len = common_length(values, i, j as usize);
                let cost = 6 + i64::from(usize::BITS - off.leading_zeros()) / 2;
                let score = 2 * len as i64 - cost;
                if len >= MIN_NEW_MATCH && score > best.0 {
                    best = (
                        score,
                        Token::Match {
                            len,
                            off,
                            rep: None,
                        },
                    );
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
        if tokens == MAX_BLOCK_TOKENS {
            emit(Event::EndOfBlock);
            (block_start, tokens, reps) = (i, 0, Reps(INITIAL_REPS));
        }
        tokens += 1;
        let (score, token) = best_at(i, block_start, &reps, &head, &prev);
        insert(i, &mut head, &mut prev);
        if let Token::Match { len, .. } = token
            && i + 1 < n
            && len < 64
            && best_at(i + 1, block_start, &reps, &head, &prev).0 > score + 2
        {
            emit(Event::Token(Token::Literal(values[i])));
            i += 1;
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
        for k in i + 1..i + covered {
            insert(k, &mut head, &mut prev);
        }
        i += covered;
    }
    emit(Event::EndOfBlock);
}

/// Symbol counts of one block's tokens.
struct Counts {
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

/// Literal/length symbol, extra-bit count and extra bits of a match length.
fn length_symbol(len: usize) -> (usize, u32, u64) {
    let (s, bits, extra) = bucket(len - MIN_MATCH);
    (256 + s, bits, extra)
}

/// Offset symbol, extra-bit count and extra bits of a match offset.
fn offset_symbol(off: usize, rep: Option<usize>) -> (usize, u32, u64) {
    match rep {
        Some(r) => (r, 0, 0),
        None => {
            let (s, bits, extra) = bucket(off - 1);
            (2 + s, bits, extra)
        }
    }
}

fn count_segment(values: &[u8]) -> Counts {
    let mut counts = Counts::new();
    tokenize(values, |e| match e {
        Event::Token(Token::Literal(v)) => counts.litlen[v as usize] += 1,
        Event::Token(Token::Match { len, off, rep }) => {
            counts.litlen[length_symbol(len).0] += 1;
            counts.offset[offset_symbol(off, rep).0] += 1;
        }
        Event::EndOfBlock => {}
    });
    counts
}

/// One compressed block.
pub struct Block {
    /// Values it holds.
    pub values: u32,
    /// Bit stream.
    pub bytes: Vec<u8>,
}

fn encode_segment(values: &[u8], litlen: &Encoder, offset: &Encoder) -> Vec<Block> {
    let mut blocks = vec![];
    let mut out = BitWriter::default();
    let (mut covered, mut block_values) = (0usize, 0usize);
    tokenize(values, |e| match e {
        Event::Token(Token::Literal(v)) => {
            litlen.put(&mut out, v as usize);
            block_values += 1;
        }
        Event::Token(Token::Match { len, off, rep }) => {
            let (s, bits, extra) = length_symbol(len);
            litlen.put(&mut out, s);
            out.put(extra, bits);
            let (s, bits, extra) = offset_symbol(off, rep);
            offset.put(&mut out, s);
            out.put(extra, bits);
            block_values += len;
        }
        Event::EndOfBlock => {
            let bytes = std::mem::take(&mut out).finish();
            blocks.push(Block {
                values: block_values as u32,
                bytes,
            });
            covered += block_values;
            block_values = 0;
        }
    });
    debug_assert_eq!(covered, values.len());
    blocks
}

/// Compresses `sides` (each a stream of values, compressed separately) into blocks of at most
/// [`MAX_BLOCK_TOKENS`] tokens and [`MAX_BLOCK_VALUES`] values, with codes made for all of them;
/// returns the codes (as [`BlockDecoder::new`] reads them) and the blocks in order, the first
/// side's first.
pub fn compress(sides: &[&[u8]]) -> (Vec<u8>, Vec<Block>) {
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
    let litlen = huffman::code_lengths(&counts.litlen, huffman::MAX_CODE_BITS);
    let offset = huffman::code_lengths(&counts.offset, huffman::MAX_CODE_BITS);
    let (enc_litlen, enc_offset) = (Encoder::new(&litlen), Encoder::new(&offset));
    let blocks = segments
        .par_iter()
        .flat_map_iter(|s| encode_segment(s, &enc_litlen, &enc_offset))
        .collect();
    let mut codes = litlen;
    codes.extend_from_slice(&offset);
    (codes, blocks)
}

/// Values per entry of [`BlockIndex`]'s lookup table.
const LOOKUP_SHIFT: u32 = 14;

/// Where each block of a section lies in the payload and which block holds a value (values of
/// both sides counted in a row, red to move first).
#[derive(Clone, Debug)]
pub struct BlockIndex {
    /// Per block, then once more for the end: (first value, payload offset), side by side so
    /// a probe finds both in one cache line.
    bounds: Vec<(u64, u64)>,
    /// For every `1 << LOOKUP_SHIFT` values, the block holding the first of them.
    lookup: Vec<u32>,
}

impl BlockIndex {
    /// The index of a section holding `slots` values per side; `None` if its block list does not
    /// add up (sizes to the section's bytes, counts to both sides, a block boundary where the
    /// second side starts).
    pub fn new(s: &super::Section, slots: u64) -> Option<BlockIndex> {
        let (&first, &end) = (s.offsets.first()?, s.offsets.last()?);
        if s.block_counts.len() != s.block_sizes.len() || s.block_counts.is_empty() {
            return None;
        }
        let mut bounds = Vec::with_capacity(s.block_sizes.len() + 1);
        let (mut offset, mut start) = (first, 0u64);
        let mut side_boundary = false;
        for (&count, &size) in s.block_counts.iter().zip(&s.block_sizes) {
            if count == 0 || count as usize > MAX_BLOCK_VALUES || size == 0 {
                return None;
            }
            side_boundary |= start == slots;
            bounds.push((start, offset));
            offset += u64::from(size);
            start += u64::from(count);
        }
        bounds.push((start, offset));
        if offset != end || start != 2 * slots || !side_boundary {
            return None;
        }
        let mut lookup = Vec::with_capacity(start.div_ceil(1 << LOOKUP_SHIFT) as usize);
        let mut b = 0;
        for k in 0..start.div_ceil(1 << LOOKUP_SHIFT) {
            while bounds[b + 1].0 <= k << LOOKUP_SHIFT {
                b += 1;
            }
            lookup.push(b as u32);
        }
        Some(BlockIndex { bounds, lookup })
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Payload bytes and value count of block `b`.
    #[inline]
    pub fn block(&self, b: usize) -> (std::ops::Range<usize>, usize) {
        let ((start, offset), (end, next)) = (self.bounds[b], self.bounds[b + 1]);
        (offset as usize..next as usize, (end - start) as usize)
    }

    /// Payload bytes and value count of the block holding value `v` (< the number of values),
    /// and `v`'s place in it.
    #[inline]
    pub fn locate(&self, v: u64) -> (std::ops::Range<usize>, usize, usize) {
        let mut b = self.lookup[(v >> LOOKUP_SHIFT) as usize] as usize;
        while self.bounds[b + 1].0 <= v {
            b += 1;
        }
        let (range, n) = self.block(b);
        (range, n, (v - self.bounds[b].0) as usize)
    }
}

/// Decodes blocks of one section.
#[derive(Clone)]
pub struct BlockDecoder {
    litlen: Decoder,
    offset: Decoder,
}

impl BlockDecoder {
    /// The decoder for a section's stored codes; `None` if they are malformed.
    pub fn new(codes: &[u8]) -> Option<BlockDecoder> {
        if codes.len() != LITLEN_SYMBOLS + OFFSET_SYMBOLS {
            return None;
        }
        let (litlen, offset) = codes.split_at(LITLEN_SYMBOLS);
        Some(BlockDecoder {
            litlen: Decoder::new(litlen)?,
            offset: Decoder::new(offset)?,
        })
    }

    /// Reads the token starting at value `p` of a block of `n` values, updating the repeated
    /// offsets; `None` if the bits are no token or the match reaches outside the block.
    #[inline(always)]
    fn next_token(
        &self,
        input: &mut BitReader,
        reps: &mut Reps,
        p: usize,
        n: usize,
    ) -> Option<Token> {
        let symbol = self.litlen.get(input)?;
        if symbol < 256 {
            return Some(Token::Literal(symbol as u8));
        }
        let len = unbucket(symbol - 256, input)? + MIN_MATCH;
        let (off, rep) = match self.offset.get(input)? {
            r @ 0..=1 => (reps.0[r], Some(r)),
            s => (unbucket(s - 2, input)? + 1, None),
        };
        if off > p || len > n - p {
            return None;
        }
        reps.update(off, rep);
        Some(Token::Match { len, off, rep })
    }

    /// Decodes a whole block of `n` values into `out` (`n` long); `None` if it is corrupted.
    fn decode_into(&self, block: &[u8], n: usize, out: &mut [u8]) -> Option<()> {
        let mut input = BitReader::new(block);
        let mut reps = Reps(INITIAL_REPS);
        let mut p = 0;
        for _ in 0..MAX_BLOCK_TOKENS {
            if p == n {
                break;
            }
            let (len, off) = match self.next_token(&mut input, &mut reps, p, n)? {
                Token::Literal(v) => {
                    out[p] = v;
                    p += 1;
                    continue;
                }
                Token::Match { len, off, .. } => (len, off),
            };
            // The periodic pattern [p - off, done) doubles with each copy.
            let (src, mut done, end) = (p - off, p, p + len);
            while done < end {
                let chunk = (done - src).min(end - done);
                out.copy_within(src..src + chunk, done);
                done += chunk;
            }
            p = end;
        }
        (p == n && input.exhausted()).then_some(())
    }

    /// Value `at` of a block holding `n` values; `None` if the block is corrupted.
    ///
    /// Nothing is copied: tokens are decoded up to the one covering `at`; a match there points
    /// at an earlier place, found among the tokens already read, until a literal answers.
    pub fn value_at(&self, block: &[u8], n: usize, at: usize) -> Option<u8> {
        if at >= n || n > MAX_BLOCK_VALUES {
            return None;
        }
        let mut input = BitReader::new(block);
        let mut reps = Reps(INITIAL_REPS);
        // Per token: its first value, and the literal value or the match offset << 8.
        let mut starts = [0u32; MAX_BLOCK_TOKENS];
        let mut kinds = [0u32; MAX_BLOCK_TOKENS];
        let mut p = 0;
        let mut t = 0;
        loop {
            if t == MAX_BLOCK_TOKENS || p >= n {
                return None;
            }
            starts[t] = p as u32;
            match self.next_token(&mut input, &mut reps, p, n)? {
                Token::Literal(v) => {
                    if p == at {
                        return (!input.overrun()).then_some(v);
                    }
                    kinds[t] = u32::from(v);
                    p += 1;
                }
                Token::Match { len, off, .. } => {
                    kinds[t] = (off as u32) << 8;
                    if at < p + len {
                        break;
                    }
                    p += len;
                }
            }
            t += 1;
        }
        if input.overrun() {
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

    /// All `n` values of a block; `None` if the block is corrupted.
    pub fn decode(&self, block: &[u8], n: usize) -> Option<Vec<u8>> {
        if n > MAX_BLOCK_VALUES {
            return None;
        }
        let mut out = vec![0u8; n];
        self.decode_into(block, n, &mut out)?;
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks shaped like table data: runs, a pattern repeating every 90, noise.
    fn sample_blocks() -> Vec<Vec<u8>> {
        let mut rng = 12345u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let row: Vec<u8> = (0..90)
            .map(|i| u8::from(i % 9 > 5) + u8::from(i > 80))
            .collect();
        (0..6)
            .map(|b| {
                (0..4000 + 37 * b)
                    .map(|i| match b {
                        0 => 2,
                        1 => u8::from(i > 1000) + u8::from(i > 3000),
                        2 | 3 => {
                            if next() % 50 == 0 {
                                (next() % 3) as u8
                            } else {
                                row[i % 90]
                            }
                        }
                        4 => (next() % 3) as u8,
                        _ => (next() % 256) as u8,
                    })
                    .collect()
            })
            .collect()
    }

    /// The sides compressed, with each block's raw values.
    fn compressed(sides: &[Vec<u8>]) -> (BlockDecoder, Vec<(Vec<u8>, Block)>) {
        let refs: Vec<&[u8]> = sides.iter().map(|b| &b[..]).collect();
        let (codes, blocks) = compress(&refs);
        let all = sides.concat();
        let mut at = 0;
        let pairs = blocks
            .into_iter()
            .map(|b| {
                let raw = all[at..at + b.values as usize].to_vec();
                at += b.values as usize;
                (raw, b)
            })
            .collect();
        assert_eq!(at, all.len());
        (BlockDecoder::new(&codes).unwrap(), pairs)
    }

    #[test]
    fn every_value_round_trips_by_block_and_by_probe() {
        let sides = sample_blocks();
        let (dec, blocks) = compressed(&sides);
        for (raw, block) in &blocks {
            assert_eq!(dec.decode(&block.bytes, raw.len()).as_ref(), Some(raw));
            for (at, &v) in raw.iter().enumerate() {
                assert_eq!(
                    dec.value_at(&block.bytes, raw.len(), at),
                    Some(v),
                    "value {at}"
                );
            }
        }
        // A constant side is one block of a few bytes; noise is cut into many blocks.
        assert_eq!(blocks[0].0.len(), sides[0].len());
        assert!(blocks[0].1.bytes.len() < 12);
        assert!(blocks.len() > sides[4].len() / (4 * MAX_BLOCK_TOKENS));
        // Runs and the repeated row (the first four sides): far below 1 bit a value.
        let structured: usize = sides[..4].iter().map(Vec::len).sum();
        let (mut values, mut bytes) = (0, 0);
        for (raw, block) in &blocks {
            if values + raw.len() <= structured {
                values += raw.len();
                bytes += block.bytes.len();
            }
        }
        assert_eq!(values, structured);
        assert!(
            bytes * 8 * 4 < structured,
            "{bytes} bytes for {structured} values"
        );
    }

    #[test]
    fn corrupted_blocks_never_panic() {
        // (The file's chunk checksums catch corruption; the decoder must survive it anyway.)
        let sides = sample_blocks();
        let (dec, blocks) = compressed(&sides);
        let mut refused = 0;
        for (raw, block) in blocks.iter().step_by(7) {
            let packed = &block.bytes;
            for byte in 0..packed.len() {
                let mut bad = packed.clone();
                bad[byte] ^= 0x10;
                refused += usize::from(dec.decode(&bad, raw.len()).is_none());
                for at in (0..raw.len()).step_by(37) {
                    let _ = dec.value_at(&bad, raw.len(), at);
                }
            }
            assert_eq!(dec.decode(&packed[..packed.len() - 1], raw.len()), None);
            assert_eq!(dec.decode(packed, raw.len() + 100), None, "too few values");
        }
        assert!(refused > 0);
        let codes_len = LITLEN_SYMBOLS + OFFSET_SYMBOLS;
        assert!(BlockDecoder::new(&vec![1; codes_len - 1]).is_none());
        assert!(
            BlockDecoder::new(&vec![1; codes_len]).is_none(),
            "oversubscribed"
        );
    }

    proptest::proptest! {
        #[test]
        fn random_streams_round_trip(
            runs in proptest::collection::vec((0u8..4, 1usize..300), 1..60),
            pattern in proptest::collection::vec(0u8..4, 2..12),
            repeats in 1usize..60,
            period in 1usize..200,
            split in 0usize..1000,
        ) {
            // Runs of a small alphabet and a short pattern repeated (overlapping copies), then
            // the same stream again `period` values later, so runs, repeats and literals all
            // occur; split into two sides anywhere.
            let mut values: Vec<u8> = runs.iter().flat_map(|&(v, n)| std::iter::repeat_n(v, n)).collect();
            values.extend(pattern.iter().cycle().take(pattern.len() * repeats));
            let copy: Vec<u8> = values.iter().skip(period.min(values.len() - 1)).copied().collect();
            values.extend(copy);
            let cut = 1 + split % (values.len() - 1).max(1);
            let sides = if values.len() > 1 {
                vec![values[..cut].to_vec(), values[cut..].to_vec()]
            } else {
                vec![values.clone()]
            };
            let (dec, blocks) = compressed(&sides);
            for (raw, block) in &blocks {
                proptest::prop_assert_eq!(dec.decode(&block.bytes, raw.len()), Some(raw.clone()));
                for (at, &v) in raw.iter().enumerate() {
                    proptest::prop_assert_eq!(dec.value_at(&block.bytes, raw.len(), at), Some(v));
                }
            }
        }
    }

    #[test]
    fn buckets_cover_every_length() {
        for x in (0..5000).chain([MAX_BLOCK_VALUES - 1, MAX_BLOCK_VALUES]) {
            let (s, bits, extra) = bucket(x);
            assert!(s < BUCKETS);
            let mut w = BitWriter::default();
            w.put(extra, bits);
            let bytes = w.finish();
            assert_eq!(unbucket(s, &mut BitReader::new(&bytes)), Some(x));
        }
    }
}
