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
//! are sent as a bucket symbol plus extra bits. A block is its bit streams alone; the table file
//! checks the section's bytes against checksums kept per chunk of the section.
//!
//! Since format 6 a block is [`BLOCK_BYTES`] (one cache line; the file aligns the section) and
//! holds two bit streams: tokens go to the first and the second in turn, the first stream's
//! length is kept in the block index, and zeros pad the line. A block ends before the token
//! that would not fit. (Format 5 blocks were one stream of at most 64 tokens and any length;
//! they are still read, see [`Layout`].)
//!
//! A probe decodes tokens from the block's start until the wanted value is produced; a match
//! that covers it is answered without copying. Its time is the chain of table look-ups that
//! finds where each token ends (both codes of a token are read from one window of bits), so
//! two streams, whose chains are independent, decode about twice as fast as one. Measured on
//! the ten largest 5-men tables (`PROBE_SETS=... cargo bench --bench probe`, 2-core VM):
//!
//! | blocks | WDL bits a position (with the header's block list) | table-file part of a probe |
//! |---|---|---|
//! | format 5: one stream, 64 tokens, any length | 0.097 (0.102) | 600-790 ns |
//! | one stream, 32 tokens | 0.110 | 460 ns |
//! | 64 bytes, two streams (this format) | 0.103 (0.110) | 470-550 ns |
//! | 128 bytes, four streams | 0.095 (0.100) | 640-690 ns |
//!
//! Four streams spend more instructions than the chains save: the decoder is then limited by
//! the work per token, not by its latency.

use super::huffman::{self, BitReader, BitWriter, Decoder, Encoder, MAX_CODE_BITS};

/// Most values a block may hold (the tokenizer's segment: blocks never cross one).
pub const MAX_BLOCK_VALUES: usize = 1 << 20;
/// Bytes of a block in the paired layout ([`Layout::Paired`], format 6 on): one cache line.
pub const BLOCK_BYTES: usize = 64;
/// Most tokens in a block (a bound for the decoder's work; paired blocks usually end at
/// [`BLOCK_BYTES`] first, after about 55 tokens of table data).
pub const MAX_BLOCK_TOKENS: usize = 128;
/// Tokens a single-stream block ([`Layout::Single`], format 5) held at most.
const SINGLE_BLOCK_TOKENS: usize = 64;
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

/// Decides where blocks end: each token goes to the two streams of a paired block in turn,
/// and a block ends before a token that would take it past [`BLOCK_BYTES`] (or
/// [`MAX_BLOCK_TOKENS`]).
struct Budget<F: Fn(&Token) -> u32> {
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
/// lookahead; matches stay inside their block), in order. Only matches that `codable` accepts
/// are made (the codes are built from a first pass whose blocks end elsewhere, so a match
/// length or offset bucket can lack a code; every value's literal has one, since a value's
/// first appearance in a segment is always a literal).
fn tokenize<F: Fn(&Token) -> u32>(
    values: &[u8],
    mut budget: Budget<F>,
    codable: impl Fn(&Token) -> bool,
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
                let score = 2 * len as i64 - 1;
                let token = Token::Match {
                    len,
                    off,
                    rep: Some(r),
                };
                if len >= MIN_MATCH && score > best.0 && codable(&token) {
                    best = (score, token);
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
                let score = 2 * len as i64 - cost;
                let token = Token::Match {
                    len,
                    off,
                    rep: None,
                };
                if len >= MIN_NEW_MATCH && score > best.0 && codable(&token) {
                    best = (score, token);
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

/// Bits of a token under the codes `litlen` and `offset`, extra bits included.
fn token_bits(token: &Token, litlen: impl Fn(usize) -> u32, offset: impl Fn(usize) -> u32) -> u32 {
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
fn count_segment(values: &[u8]) -> Counts {
    let mut counts = Counts::new();
    let guess = Budget::new(|t: &Token| {
        token_bits(
            t,
            |s| if s < 256 { 2 } else { 4 },
            |s| if s < 2 { 1 } else { 5 },
        )
    });
    tokenize(
        values,
        guess,
        |_| true,
        |e| match e {
            Event::Token(Token::Literal(v)) => counts.litlen[v as usize] += 1,
            Event::Token(Token::Match { len, off, rep }) => {
                counts.litlen[length_symbol(len).0] += 1;
                counts.offset[offset_symbol(off, rep).0] += 1;
            }
            Event::EndOfBlock => {}
        },
    );
    counts
}

/// One compressed block.
pub struct Block {
    /// Values it holds.
    pub values: u32,
    /// [`BLOCK_BYTES`] bytes: the first stream, the second, zeros.
    pub bytes: Vec<u8>,
    /// Bytes of the first stream.
    pub split: u8,
}

/// Writes the tokens of one segment, each block's alternately into its two streams.
fn encode_segment(values: &[u8], litlen: &Encoder, offset: &Encoder) -> Vec<Block> {
    let mut blocks = vec![];
    let mut out = [BitWriter::default(), BitWriter::default()];
    let (mut covered, mut block_values, mut tokens) = (0usize, 0usize, 0usize);
    let budget = Budget::new(|t: &Token| token_bits(t, |s| litlen.bits(s), |s| offset.bits(s)));
    // Asked of matches only.
    let codable = |t: &Token| match *t {
        Token::Literal(_) => true,
        Token::Match { len, off, rep } => {
            litlen.bits(length_symbol(len).0) > 0 && offset.bits(offset_symbol(off, rep).0) > 0
        }
    };
    tokenize(values, budget, codable, |e| match e {
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
            let [mut bytes, second] = std::mem::take(&mut out).map(BitWriter::finish);
            let split = bytes.len() as u8;
            bytes.extend_from_slice(&second);
            assert!(bytes.len() <= BLOCK_BYTES, "a block overflows its bytes");
            bytes.resize(BLOCK_BYTES, 0);
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
    blocks
}

/// Compresses `sides` (each a stream of values, compressed separately) into paired blocks of
/// [`BLOCK_BYTES`] and at most [`MAX_BLOCK_VALUES`] values, with codes made for all of them;
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

/// How a section's blocks are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Format 5: blocks of any size, each one stream of at most 64 tokens.
    Single,
    /// From format 6: blocks of [`BLOCK_BYTES`], one cache line each, holding two streams
    /// (tokens alternate between them, so a probe decodes two chains at once).
    Paired,
}

impl Layout {
    /// Most tokens a block of this layout holds.
    fn most_tokens(self) -> usize {
        match self {
            Layout::Single => SINGLE_BLOCK_TOKENS,
            Layout::Paired => MAX_BLOCK_TOKENS,
        }
    }
}

/// Readers of a block's streams (the second is empty in a [`Layout::Single`] block); `None`
/// if the first stream would end past the block.
fn streams<'a>(block: &'a [u8], r: &BlockRef) -> Option<(BitReader<'a>, BitReader<'a>)> {
    let (first, second) = block.split_at_checked(r.split)?;
    Some((BitReader::new(first), BitReader::new(second)))
}

/// One block: where its bytes lie in the payload, the values it holds, its layout and the
/// bytes of its first stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockRef {
    /// Payload bytes.
    pub bytes: std::ops::Range<usize>,
    /// Values held.
    pub values: usize,
    /// Layout.
    pub layout: Layout,
    /// Bytes of the first stream (all of a [`Layout::Single`] block).
    pub split: usize,
}

/// Where each block of a section lies in the payload and which block holds a value (values of
/// both sides counted in a row, red to move first).
#[derive(Clone, Debug)]
pub struct BlockIndex {
    layout: Layout,
    /// Per block: the values it holds << 8, or'ed with the bytes of its first stream
    /// ([`Layout::Paired`]).
    blocks: Vec<u32>,
    /// [`Layout::Single`]: the payload offset of each block, then of the section's end.
    offsets: Vec<u64>,
    /// [`Layout::Paired`]: the payload offset of the first block.
    base: u64,
    /// For every `1 << shift` values: the block holding the first of them and its place there.
    lookup: Vec<(u32, u32)>,
    shift: u32,
}

impl BlockIndex {
    /// The index of a section holding `slots` values per side; `None` if its block list does not
    /// add up (sizes to the section's bytes, counts to both sides, a block boundary where the
    /// second side starts).
    pub fn new(s: &super::Section, slots: u64) -> Option<BlockIndex> {
        let (&first, &end) = (s.offsets.first()?, s.offsets.last()?);
        let count = s.block_counts.len();
        let layout = match (s.block_sizes.len(), s.block_splits.len()) {
            (n, 0) if n == count => Layout::Single,
            (0, n) if n == count => Layout::Paired,
            _ => return None,
        };
        if count == 0 || count >= u32::MAX as usize {
            return None;
        }
        let mut blocks = Vec::with_capacity(count);
        let mut offsets = vec![];
        let (mut offset, mut start) = (first, 0u64);
        let mut side_boundary = false;
        for b in 0..count {
            let values = s.block_counts[b];
            let (size, split) = match layout {
                Layout::Single => (u64::from(s.block_sizes[b]), 0),
                Layout::Paired => (BLOCK_BYTES as u64, u32::from(s.block_splits[b])),
            };
            if values == 0 || values as usize > MAX_BLOCK_VALUES || size == 0 {
                return None;
            }
            if split as usize > BLOCK_BYTES {
                return None;
            }
            side_boundary |= start == slots;
            if layout == Layout::Single {
                offsets.push(offset);
            }
            blocks.push(values << 8 | split);
            offset = offset.checked_add(size)?;
            start += u64::from(values);
        }
        if layout == Layout::Single {
            offsets.push(offset);
        }
        if offset != end || start != 2 * slots || !side_boundary {
            return None;
        }
        // About one lookup entry per block: a probe then steps over a block or two.
        let shift = (start / count as u64).max(1).ilog2();
        let entries = start.div_ceil(1 << shift);
        let mut lookup = Vec::with_capacity(entries as usize);
        let (mut b, mut block_start) = (0usize, 0u64);
        for k in 0..entries {
            let v = k << shift;
            while block_start + u64::from(blocks[b] >> 8) <= v {
                block_start += u64::from(blocks[b] >> 8);
                b += 1;
            }
            lookup.push((b as u32, (v - block_start) as u32));
        }
        Some(BlockIndex {
            layout,
            blocks,
            offsets,
            base: first,
            lookup,
            shift,
        })
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Block `b`.
    #[inline]
    pub fn block(&self, b: usize) -> BlockRef {
        let (values, split) = (
            (self.blocks[b] >> 8) as usize,
            (self.blocks[b] & 0xFF) as usize,
        );
        match self.layout {
            Layout::Single => {
                let bytes = self.offsets[b] as usize..self.offsets[b + 1] as usize;
                BlockRef {
                    split: bytes.len(),
                    bytes,
                    values,
                    layout: Layout::Single,
                }
            }
            Layout::Paired => {
                let start = self.base as usize + b * BLOCK_BYTES;
                BlockRef {
                    bytes: start..start + BLOCK_BYTES,
                    values,
                    layout: Layout::Paired,
                    split,
                }
            }
        }
    }

    /// The block holding value `v` (< the number of values), and `v`'s place in it.
    #[inline]
    pub fn locate(&self, v: u64) -> (BlockRef, usize) {
        let (b, into) = self.lookup[(v >> self.shift) as usize];
        let (mut b, mut at) = (b as usize, into as u64 + (v & ((1 << self.shift) - 1)));
        loop {
            let values = u64::from(self.blocks[b] >> 8);
            if at < values {
                break;
            }
            at -= values;
            b += 1;
        }
        (self.block(b), at as usize)
    }
}

/// One decoding step per [`MAX_CODE_BITS`]-bit window: the code's length (bits 0-3), the
/// number of extra bits that follow it (bits 4-8), a flag (bit 9: a match for the literal/length
/// code, a repeated offset for the offset code) and the base the extra bits are added to (bits
/// 10-31: the literal value, the match length, the offset, or which repeated offset). 0 where
/// no code starts: corrupt input.
///
/// Spelling out each symbol's bucket in the table saves the decoder a branch and a second
/// look-up per code.
#[derive(Clone)]
struct StepTable(Box<[u32; 1 << MAX_CODE_BITS]>);

/// Extra-bit count and base of each bucket symbol.
const fn build_bucket_bases() -> [(u32, u32); BUCKETS] {
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
static BUCKET_BASES: [(u32, u32); BUCKETS] = build_bucket_bases();

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
struct Step {
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

    /// Where a block of `compress` lies within its own bytes.
    fn block_ref(block: &Block) -> BlockRef {
        BlockRef {
            bytes: 0..block.bytes.len(),
            values: block.values as usize,
            layout: Layout::Paired,
            split: usize::from(block.split),
        }
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
            let r = block_ref(block);
            assert_eq!(block.bytes.len(), BLOCK_BYTES);
            assert_eq!(dec.decode(&block.bytes, &r).as_ref(), Some(raw));
            for (at, &v) in raw.iter().enumerate() {
                assert_eq!(dec.value_at(&block.bytes, &r, at), Some(v), "value {at}");
            }
        }
        // A constant side is one block; noise is cut into many (about 2 bits a value).
        assert_eq!(blocks[0].0.len(), sides[0].len());
        assert!(blocks.len() > sides[4].len() / (4 * BLOCK_BYTES));
        // Runs and the repeated row (the first four sides): far below 1 bit a value, padding
        // included.
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
            bytes * 8 * 2 < structured,
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
            let (packed, r) = (&block.bytes, block_ref(block));
            for byte in 0..packed.len() {
                let mut bad = packed.clone();
                bad[byte] ^= 0x10;
                refused += usize::from(dec.decode(&bad, &r).is_none());
                for at in (0..raw.len()).step_by(37) {
                    let _ = dec.value_at(&bad, &r, at);
                }
            }
            let used = r.split + 1;
            assert_eq!(
                dec.decode(&packed[..used.min(r.split)], &r),
                None,
                "cut short"
            );
            let more = BlockRef {
                values: raw.len() + 100,
                ..r.clone()
            };
            assert_eq!(dec.decode(packed, &more), None, "too few values");
            for split in [0, BLOCK_BYTES, BLOCK_BYTES + 1] {
                let r = BlockRef { split, ..r.clone() };
                let _ = dec.decode(packed, &r);
                for at in (0..raw.len()).step_by(37) {
                    let _ = dec.value_at(packed, &r, at);
                }
            }
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
                let r = block_ref(block);
                proptest::prop_assert_eq!(dec.decode(&block.bytes, &r), Some(raw.clone()));
                for (at, &v) in raw.iter().enumerate() {
                    proptest::prop_assert_eq!(dec.value_at(&block.bytes, &r, at), Some(v));
                }
            }
        }
    }

    /// A WDL section holding `blocks` back to back from payload offset `base`.
    fn section(codes: Vec<u8>, blocks: &[(Vec<u8>, Block)], base: u64) -> super::super::Section {
        super::super::Section {
            block_values: MAX_BLOCK_VALUES as u32,
            value_bytes: 0,
            offsets: vec![base, base + (blocks.len() * BLOCK_BYTES) as u64],
            checksum: 0,
            dictionary: vec![],
            codec: super::super::Codec::Lzh,
            codes,
            block_counts: blocks.iter().map(|(_, b)| b.values).collect(),
            block_sizes: vec![],
            block_splits: blocks.iter().map(|(_, b)| b.split).collect(),
            chunk_sums: vec![],
        }
    }

    #[test]
    fn the_block_index_finds_every_value_and_refuses_lists_that_do_not_add_up() {
        // Two sides of equal length, as a table stores them.
        let mut sides = sample_blocks();
        sides.truncate(4);
        let side: Vec<u8> = sides.concat();
        let (codes, blocks) = compress(&[&side, &side]);
        let (dec, pairs) = compressed(&[side.clone(), side.clone()]);
        let s = section(codes, &pairs, 640);
        let index = BlockIndex::new(&s, side.len() as u64).expect("a consistent section");
        assert_eq!(index.blocks(), blocks.len());
        let payload: Vec<u8> = std::iter::repeat_n(0, 640)
            .chain(pairs.iter().flat_map(|(_, b)| b.bytes.iter().copied()))
            .collect();
        let all = [&side[..], &side[..]].concat();
        for (v, &want) in all.iter().enumerate() {
            let (block, at) = index.locate(v as u64);
            assert_eq!(block.bytes.start % BLOCK_BYTES, 0);
            let bytes = &payload[block.bytes.clone()];
            assert_eq!(dec.value_at(bytes, &block, at), Some(want), "value {v}");
        }
        let refused = |change: &dyn Fn(&mut super::super::Section)| {
            let mut bad = s.clone();
            change(&mut bad);
            BlockIndex::new(&bad, side.len() as u64).is_none()
        };
        assert!(
            refused(&|b| b.block_splits[0] = 65),
            "a split past the block"
        );
        assert!(refused(&|b| b.block_counts[1] = 0), "an empty block");
        assert!(
            refused(&|b| b.block_counts[0] += 1),
            "counts past both sides"
        );
        assert!(refused(&|b| b.offsets[1] -= 1), "bytes short of the blocks");
        assert!(
            refused(&|b| b.block_splits.pop().map(|_| ()).unwrap()),
            "a split missing"
        );
        assert!(
            refused(&|b| b.block_sizes = vec![64; b.block_counts.len()]),
            "two layouts"
        );
        // A block that holds the end of the first side and the start of the second.
        let mut shifted = s.clone();
        let mut start = 0u64;
        let second = (0..blocks.len())
            .find(|&b| {
                let found = start == side.len() as u64;
                start += u64::from(shifted.block_counts[b]);
                found
            })
            .expect("a block starting the second side");
        assert!(shifted.block_counts[second] > 1);
        shifted.block_counts[second - 1] += 1;
        shifted.block_counts[second] -= 1;
        assert!(
            BlockIndex::new(&shifted, side.len() as u64).is_none(),
            "no block boundary where the second side starts"
        );
    }

    #[test]
    fn buckets_cover_every_length() {
        for x in (0..5000).chain([MAX_BLOCK_VALUES - 1, MAX_BLOCK_VALUES]) {
            let (s, bits, extra) = bucket(x);
            assert!(s < BUCKETS);
            let (extra_bits, base) = BUCKET_BASES[s];
            assert_eq!(extra_bits, bits);
            assert_eq!(base as usize + extra as usize, x);
            assert!(extra < 1 << bits);
        }
    }
}
