//! The block index: where each block starts, how many values it holds and how its streams
//! are laid out, checked against the section when a table is opened.

use super::huffman::BitReader;
use super::*;

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
    pub(super) fn most_tokens(self) -> usize {
        match self {
            Layout::Single => SINGLE_BLOCK_TOKENS,
            Layout::Paired => MAX_BLOCK_TOKENS,
        }
    }
}

/// Readers of a block's streams (the second is empty in a [`Layout::Single`] block); `None`
/// if the first stream would end past the block.
pub(super) fn streams<'a>(block: &'a [u8], r: &BlockRef) -> Option<(BitReader<'a>, BitReader<'a>)> {
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
    pub fn new(s: &crate::table::Section, slots: u64) -> Option<BlockIndex> {
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
