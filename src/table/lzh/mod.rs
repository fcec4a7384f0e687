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

use super::huffman::{self};

mod decode;
mod encode;
mod index;

pub use decode::*;
pub use encode::*;
pub use index::*;

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

/// A byte of [`pack_code_lengths`] from this value on stands for a run of zero lengths, one
/// more than its value above it.
const ZERO_RUN: u8 = 0x80;

/// A section's code lengths (one byte a symbol, mostly zeros: a WDL section's literals are
/// its few codes) as the header stores them from format 9: a length as itself, and a run of
/// `n` zeros (1 to 128) as one byte `ZERO_RUN`` + n - 1`. About 400 bytes become a few
/// dozen, which is most of a small table's header.
pub fn pack_code_lengths(lengths: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut zeros = 0u8;
    for &l in lengths {
        if l == 0 && zeros < 128 {
            zeros += 1;
            continue;
        }
        if zeros > 0 {
            out.push(ZERO_RUN + zeros - 1);
        }
        zeros = u8::from(l == 0);
        if l != 0 {
            out.push(l);
        }
    }
    if zeros > 0 {
        out.push(ZERO_RUN + zeros - 1);
    }
    out
}

/// The code lengths [`pack_code_lengths`] packed, or `None` if `packed` holds a length past
/// the longest code or more symbols than a section has.
pub fn unpack_code_lengths(packed: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for &b in packed {
        match b {
            ZERO_RUN.. => out.extend(std::iter::repeat_n(0, usize::from(b - ZERO_RUN) + 1)),
            l if u32::from(l) <= super::huffman::MAX_CODE_BITS => out.push(l),
            _ => return None,
        }
        if out.len() > LITLEN_SYMBOLS + OFFSET_SYMBOLS {
            return None;
        }
    }
    Some(out)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_lengths_pack_and_unpack() {
        let mut lengths = vec![0u8; LITLEN_SYMBOLS + OFFSET_SYMBOLS];
        for (i, l) in [(0, 1), (1, 2), (2, 9), (300, 3), (LITLEN_SYMBOLS, 4)] {
            lengths[i] = l;
        }
        let packed = pack_code_lengths(&lengths);
        assert!(packed.len() < 20, "{}", packed.len());
        assert_eq!(unpack_code_lengths(&packed).unwrap(), lengths);
        assert!(
            unpack_code_lengths(&pack_code_lengths(&[]))
                .unwrap()
                .is_empty()
        );
        // A length past the longest code, or too many symbols, is refused.
        assert_eq!(unpack_code_lengths(&[10]), None);
        assert_eq!(unpack_code_lengths(&[0xFF; 4]), None);
    }

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
            .flatten()
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
                let mut bad = *packed;
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
    fn section(codes: Vec<u8>, blocks: &[(Vec<u8>, Block)], base: u64) -> crate::table::Section {
        crate::table::Section {
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
        let (codes, segments) = compress(&[&side, &side]);
        let blocks: Vec<Block> = segments.into_iter().flatten().collect();
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
        let refused = |change: &dyn Fn(&mut crate::table::Section)| {
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
